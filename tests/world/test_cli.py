"""``vgm scenario check``: what the GM understood, printed; a bad file, one line and status 2."""
import json

from typer.testing import CliRunner

from ui.cli import app


def test_check_a_shipped_scenario_shows_npcs_knowledge_places_and_says_ok():
    result = CliRunner().invoke(app, ["scenario", "check", "drowned_chapel"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for shown in ("Maren", "What they know", "where the reliquary really is", "after persuasion", "the bell tower", "ok: drowned_chapel is playable"):
        assert shown in result.output
    assert "warning" not in result.output


def test_check_a_prose_only_file_warns_what_the_gm_could_not_find(tmp_path):
    path = tmp_path / "inn.yaml"
    path.write_text("ruleset: dnd5e\ntitle: Inn\nscene: The Gilded Goose, 1702. A door to the west leads to the stables.\n"
                    "opening: Smoke.\nnpcs:\n  - {name: Nell, description: 'the innkeeper, brisk'}\n")
    result = CliRunner().invoke(app, ["scenario", "check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["world"]["era"] == "1702" and out["world"]["places"][0]["exits"][0]["to"] == "the stables"
    assert out["warnings"] == ["Nell knows nothing the GM can tell; add world.npcs[].knows so a question gets the same answer every time"]


def test_check_says_what_the_prose_marked_for_the_gm_and_keeps_it_out_of_the_facts(tmp_path):
    path = tmp_path / "road.yaml"
    path.write_text("ruleset: pf2e\ntitle: Road\nscene: 'A milestone reads HOLLIN 4. (GM only: six bandits wait past the bend.)'\n"
                    "opening: Birdsong.\n")
    result = CliRunner().invoke(app, ["scenario", "check", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "kept from the players" in result.output and "six bandits wait past the bend." in result.output
    facts = result.output.split("kept from the players")[0]
    assert "bandits" not in facts


def test_check_a_bad_file_is_one_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("ruleset: dnd5e\ntitle: Bad\nscene: A.\nopening: B.\nworld:\n  npcs:\n    - {name: Bo, knows: [{topic: x}]}\n")
    result = CliRunner().invoke(app, ["scenario", "check", str(path)])
    assert result.exit_code != 0
    assert "world.npcs[0] (Bo).knows[0] (x): key 'answer': Field required" in str(result.exception)
