"""Making a D&D 5e character: the standard array and point buy by their rules, class and background
skills, a sheet the table loads (and the web panel shows as /sheet does), and every wrong choice
as one line; the wizard runs scripted (all options) or answers questions from stdin."""
from __future__ import annotations

import pytest
import yaml
from typer.testing import CliRunner

import rulesets
from gm.character_builder import (
    POINT_BUY_BUDGET,
    build_character,
    check_scores,
    class_book,
    parse_scores,
    point_cost,
    sheet_yaml,
    write_sheet,
)
from gm.characters import CharacterError, load_character
from ui.cli import app

PACK = rulesets.load("dnd5e")


def run(*args, input=None):
    return CliRunner().invoke(app, ["character", "new", *args], input=input)


# ----- the rules ----------------------------------------------------------------------------------


def test_the_standard_array_is_each_value_once_in_any_order():
    scores = parse_scores(PACK, "8,15,14,12,13,10")
    check_scores("standard", scores)
    assert scores == {"strength": 8, "dexterity": 15, "constitution": 14, "intelligence": 12, "wisdom": 13, "charisma": 10}
    with pytest.raises(CharacterError, match=r"^standard array: the six scores are 15, 14, 13, 12, 10 and 8, each used once; you gave STR 15, DEX 15"):
        check_scores("standard", parse_scores(PACK, "15,15,13,12,10,8"))


def test_point_buy_spends_at_most_27_points_on_scores_of_8_to_15():
    assert point_cost(parse_scores(PACK, "STR=15,DEX=15,CON=15,INT=8,WIS=8,CHA=8")) == POINT_BUY_BUDGET == 27
    check_scores("pointbuy", parse_scores(PACK, "15,15,15,8,8,8"))
    check_scores("pointbuy", parse_scores(PACK, "8,8,8,8,8,8"))  # spending less is allowed
    with pytest.raises(CharacterError) as over:
        check_scores("pointbuy", parse_scores(PACK, "15,15,15,9,8,8"))
    assert str(over.value) == "point buy: STR 15, DEX 15, CON 15, INT 9, WIS 8, CHA 8 costs 28 points, 1 more than the 27 you have; lower a score"
    with pytest.raises(CharacterError, match="every score is 8 to 15 before bonuses; STR 16, CHA 7 is not"):
        check_scores("pointbuy", parse_scores(PACK, "16,8,8,8,8,7"))


@pytest.mark.parametrize("text,message", [
    ("15,14,13,12,10", "needs six numbers"),
    ("STR=15,DEX=14,CON=13,INT=12,WIS=10", "no score for CHA"),
    ("STR=15,STR=14,CON=13,INT=12,WIS=10,CHA=8", "STR is given twice"),
    ("LCK=15,DEX=14,CON=13,INT=12,WIS=10,CHA=8", "'LCK' is not an ability"),
    ("fifteen", "is not a score"),
])
def test_scores_that_cannot_be_read_are_one_line(text, message):
    with pytest.raises(CharacterError, match=message) as caught:
        parse_scores(PACK, text)
    assert "\n" not in str(caught.value)


def test_a_fighter_gets_class_saves_background_skills_hp_and_ac():
    sheet = build_character("dnd5e", name="Hedda Vane", klass="Fighter", background="soldier", method="standard",
                            scores="15,13,14,8,12,10", skills="Perception, Survival")
    assert sheet.abilities == {"strength": 15, "dexterity": 13, "constitution": 14, "intelligence": 8, "wisdom": 12, "charisma": 10}
    assert sheet.proficiencies == ["athletics", "intimidation", "perception", "survival", "strength_save", "constitution_save"]
    assert sheet.hp == 10 + 2 and sheet.ac == 16  # d10 + CON; chain mail ignores DEX
    assert sheet.concept == "soldier fighter" and sheet.level == 1
    assert sheet.magic is False  # a fighter's sheet says it has no spells


def test_a_casting_class_says_so_on_the_sheet_whatever_the_concept():
    """The GM refuses spells only to characters without magic; a wizard called 'a quiet hermit' keeps hers."""
    import rulesets

    wizard = build_character("dnd5e", name="Wren", klass="Wizard", background="scholar", method="standard",
                             scores="8,14,13,15,12,10", concept="a quiet hermit")
    assert wizard.magic is True and wizard.works_magic(rulesets.load("dnd5e"))


def test_bonuses_levels_and_the_class_armour_count():
    monk = build_character("dnd5e", name="Tam", klass="monk", background="acolyte", method="pointbuy",
                           scores="STR=8,DEX=15,CON=13,INT=8,WIS=15,CHA=8", bonuses="DEX+2,WIS+1", level=3)
    assert monk.abilities["dexterity"] == 17 and monk.abilities["wisdom"] == 16
    assert monk.ac == 10 + 3 + 3  # unarmoured defence: DEX and WIS
    assert monk.hp == (8 + 1) + 2 * (5 + 1)  # d8 max + CON at 1st, then 5 + CON a level
    human = build_character("dnd5e", name="X", klass="monk", background="acolyte", method="standard",
                            scores="8,15,13,12,14,10", bonuses="STR+1,DEX+1,CON+1,INT+1,WIS+1,CHA+1")
    assert human.abilities["strength"] == 9
    with pytest.raises(CharacterError, match="7 points of bonuses is more than any race or background gives"):
        build_character("dnd5e", name="X", klass="monk", background="acolyte", method="pointbuy",
                        scores="8,15,13,8,15,8", bonuses="DEX+2,WIS+2,STR+2,CON+1")
    with pytest.raises(CharacterError, match=r"each ability gets \+1 or \+2 once; DEX\+3"):
        build_character("dnd5e", name="X", klass="monk", background="acolyte", method="standard", scores="8,15,13,12,14,10", bonuses="DEX+3")


def test_skills_come_from_the_class_list_and_the_background_is_not_picked_twice():
    given = dict(name="X", klass="cleric", background="acolyte", method="standard", scores="10,8,13,12,15,14")
    with pytest.raises(CharacterError, match="a cleric picks from History, Medicine, Persuasion; Stealth is not one of them"):
        build_character("dnd5e", skills="Stealth, History", **given)
    with pytest.raises(CharacterError, match="Insight is not one of them .or the background gives it"):
        build_character("dnd5e", skills="Insight, History", **given)
    with pytest.raises(CharacterError, match="a cleric picks 2 skills; you gave 1"):
        build_character("dnd5e", skills="History", **given)
    picked = build_character("dnd5e", **given)  # none given: those on the best abilities
    assert picked.proficiencies[:4] == ["insight", "religion", "medicine", "persuasion"]


def test_a_rogue_has_expertise_on_proficient_skills_only():
    rogue = build_character("dnd5e", name="Mags", klass="rogue", background="street urchin", method="standard",
                            scores="8,15,14,12,13,10", skills="Acrobatics,Perception,Investigation,Insight", expertise="Stealth, Perception")
    assert rogue.expertise == ["stealth", "perception"] and rogue.ac == 11 + 2
    with pytest.raises(CharacterError, match="doubles 2 skills it is proficient in"):
        build_character("dnd5e", name="Mags", klass="rogue", background="street urchin", method="standard",
                        scores="8,15,14,12,13,10", expertise="Arcana, Stealth")
    with pytest.raises(CharacterError, match="a level 1 fighter has no expertise"):
        build_character("dnd5e", name="X", klass="fighter", background="soldier", method="standard",
                        scores="15,13,14,8,12,10", expertise="Athletics")


def test_unknown_class_background_or_rule_set_is_one_line():
    with pytest.raises(CharacterError, match=r"no class 'wizzard' \(did you mean wizard\?\); choose one of barbarian"):
        build_character("dnd5e", name="X", klass="wizzard", background="sage", method="standard", scores="8,14,13,15,12,10")
    with pytest.raises(CharacterError, match="no background 'sage'"):
        build_character("dnd5e", name="X", klass="wizard", background="sage", method="standard", scores="8,14,13,15,12,10")
    with pytest.raises(CharacterError, match="class books exist for dnd5e only; coc7e characters are made by gm.character_new"):
        class_book("coc7e")


def test_every_class_and_background_builds_a_sheet_the_table_loads(tmp_path):
    book = class_book("dnd5e")
    backgrounds = list(book.backgrounds)
    for k, klass in enumerate(book.classes):
        sheet = build_character("dnd5e", name=f"Hero {k}", klass=klass, background=backgrounds[k % len(backgrounds)],
                                method="standard", scores="15,14,13,12,10,8", level=3)
        path = write_sheet(sheet, tmp_path / f"{klass}.yaml", PACK)
        assert load_character(path, PACK) == sheet
        assert 8 <= sheet.ac <= 20 and sheet.hp > 0


def test_the_yaml_reads_like_the_shipped_sheets_and_json_loads_too(tmp_path):
    sheet = build_character("dnd5e", name="Wren Ashdown", klass="ranger", background="wanderer", method="pointbuy",
                            scores="STR=10,DEX=15,CON=14,INT=8,WIS=14,CHA=10", bonuses="DEX+2,WIS+1")
    data = yaml.safe_load(sheet_yaml(sheet, PACK))
    assert list(data)[:6] == ["name", "ruleset", "concept", "level", "abilities", "proficiencies"]
    assert data["abilities"] == {"STR": 10, "DEX": 17, "CON": 14, "INT": 8, "WIS": 15, "CHA": 10}
    assert "Survival" in data["proficiencies"] and "dexterity_save" in data["proficiencies"]
    import json

    as_json = tmp_path / "wren.json"
    as_json.write_text(json.dumps(data))
    assert load_character(as_json, PACK) == sheet  # the import format: JSON is read as well
    with pytest.raises(CharacterError, match="already exists; pass --force"):
        write_sheet(sheet, as_json, PACK)


# ----- the command -----------------------------------------------------------------------------------


def test_the_wizard_runs_from_options_without_asking(tmp_path):
    out = tmp_path / "hedda.yaml"
    result = run("--name", "Hedda Vane", "--class", "fighter", "--background", "soldier", "--method", "standard",
                 "--scores", "STR=15,DEX=13,CON=14,INT=8,WIS=12,CHA=10", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "?" not in result.output.split("\n")[0] and f"wrote {out}" in result.output.replace("\n", "")
    sheet = load_character(out, PACK)
    assert sheet.name == "Hedda Vane" and sheet.hp == 12 and sheet.ac == 16
    assert "Athletics" in result.output and "proficiency +2" in result.output  # the /sheet rows


def test_an_illegal_point_buy_is_a_one_line_error_and_writes_nothing(tmp_path):
    out = tmp_path / "x.yaml"
    result = run("--name", "X", "--class", "fighter", "--background", "soldier", "--method", "pointbuy",
                 "--scores", "15,15,15,9,8,8", "-o", str(out))
    assert result.exit_code != 0 and not out.exists()
    assert isinstance(result.exception, CharacterError)
    assert "costs 28 points, 1 more than the 27 you have" in str(result.exception) and "\n" not in str(result.exception)


def test_the_wizard_asks_for_a_standard_array_and_re_asks_a_wrong_answer(tmp_path):
    out = tmp_path / "mags.yaml"
    answers = "\n".join([
        "Mags Bellwether",  # name
        "rogue",            # class
        "street urchin",    # background
        "standard",         # method
        "8", "15", "15", "14", "12", "13",  # STR 8, DEX 15, a second 15 is refused, CON 14, INT 12, WIS 13; CHA gets 10
        "",                 # no bonuses
        "Acrobatics, Insight, Perception, Investigation",
        "Stealth, Perception",  # expertise
    ]) + "\n"
    result = run("-o", str(out), input=answers)
    assert result.exit_code == 0, result.output
    assert "pick one of the values left: 15" not in result.output  # 15 was still left when DEX took it
    assert "CON: pick one of the values left: 14, 13, 12, 10" in result.output  # the second 15, said in one line
    assert "CHA gets the last value, 10" in result.output
    sheet = load_character(out, PACK)
    assert sheet.abilities == {"strength": 8, "dexterity": 15, "constitution": 14, "intelligence": 12, "wisdom": 13, "charisma": 10}
    assert sheet.expertise == ["stealth", "perception"] and sheet.ac == 13 and sheet.hp == 10


def test_the_wizard_asks_for_point_buy_within_the_points_left(tmp_path):
    out = tmp_path / "wren.yaml"
    answers = "\n".join([
        "Wren Ashdown", "ranger", "wanderer", "pointbuy",
        "16",               # STR: over 15, refused
        "10", "15", "14", "8", "15",  # STR 10 (2), DEX 15 (9), CON 14 (7), INT 8 (0), WIS 15 costs 9 with 9 left
        "15",               # CHA 15 would cost 9 with 0 left: refused
        "8",
        "DEX+2,WIS+1",
        "",                 # the suggested skills
    ]) + "\n"
    result = run("-o", str(out), input=answers)
    assert result.exit_code == 0, result.output
    assert "STR: a point-buy score is 8 to 15 before bonuses" in result.output
    assert "CHA 15 costs 9; you have 0 points left" in result.output
    sheet = load_character(out, PACK)
    assert sheet.abilities["dexterity"] == 17 and sheet.abilities["wisdom"] == 16 and sheet.abilities["charisma"] == 8
    assert "point buy, 27 of 27 points" in out.read_text()


def test_list_shows_the_classes_and_backgrounds():
    result = run("--list")
    assert result.exit_code == 0
    for word in ("barbarian", "wizard", "d12", "acolyte", "street_urchin", "Sleight of Hand"):
        assert word in result.output
