"""``vgm rulesets`` as a user runs it (typer's CliRunner on the assembled app)."""
import json

from typer.testing import CliRunner

from rulesets import UnknownName
from ui.cli import app

runner = CliRunner()


def test_list_shows_every_pack_with_its_size():
    result = runner.invoke(app, ["rulesets", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in ("dnd5e", "coc7e", "pf2e", "swade", "avalon", "mafia"):
        assert name in result.output
    assert "32 checks" in result.output and "8 roles" in result.output


def test_list_json():
    rows = json.loads(runner.invoke(app, ["rulesets", "list", "--json"]).output)
    dnd = next(r for r in rows if r["name"] == "dnd5e")
    assert dnd["kind"] == "trpg" and dnd["checks"] == 32 and dnd["builtin"]


def test_show_coc7e_lists_skills_in_english_and_chinese():
    result = runner.invoke(app, ["rulesets", "show", "coc7e"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for english, chinese in [("Spot Hidden", "侦查"), ("Listen", "聆听"), ("Library Use", "图书馆使用"),
                             ("Psychology", "心理学"), ("Fast Talk", "话术"), ("Fighting (Brawl)", "斗殴")]:
        line = next(line for line in result.output.splitlines() if english in line)
        assert chinese in line


def test_show_avalon_has_roles_and_setups():
    result = runner.invoke(app, ["rulesets", "show", "Avalon"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "merlin_or_morgana" in result.output and "2-3-4-3-4" in result.output and "1-1-1-2-1" in result.output


def test_show_json_round_trips_the_pack():
    info = json.loads(runner.invoke(app, ["rulesets", "show", "dnd5e", "--json"]).output)
    assert {c["id"] for c in info["checks"]} >= {"perception", "dexterity_save", "death_save"}


def test_resolve_prints_the_id():
    result = runner.invoke(app, ["rulesets", "resolve", "dnd5e", "Wisdom (Perception)"])
    assert result.output.strip() == "perception"
    out = json.loads(runner.invoke(app, ["rulesets", "resolve", "avalon", "梅林", "--json"]).output)
    assert out["id"] == "merlin" and out["name"] == "Merlin"


def test_resolve_unknown_fails_with_the_closest_ids():
    result = runner.invoke(app, ["rulesets", "resolve", "dnd5e", "Perceptoin"])
    assert isinstance(result.exception, UnknownName)
    assert "closest: perception" in str(result.exception)
