"""Character sheets: modifiers per rule system, and one-line errors for a user's broken sheet."""
from __future__ import annotations

import pytest
import rulesets

from gm.characters import CharacterError, load_character, parse_character, ready_characters


@pytest.mark.parametrize("pack", ["dnd5e", "coc7e", "pf2e", "swade"])
def test_every_pack_ships_ready_characters_that_can_roll_every_check(pack):
    rs = rulesets.load(pack)
    sheets = ready_characters(rs)
    assert 2 <= len(sheets) <= 4
    for sheet in sheets:
        for check in rs.checks:
            plan = sheet.plan(rs, check)
            assert plan.expression()


def test_dnd5e_modifiers():
    rs = rulesets.load("dnd5e")
    sheet = parse_character({"name": "Tess", "level": 5, "abilities": {"DEX": 17, "Wisdom": 12, "str": 9},
                             "proficiencies": ["Perception", "Dex save"], "expertise": ["sleight of hand"]}, rs)
    assert sheet.plan(rs, "perception").modifier == 1 + 3  # WIS +1, proficiency +3 at level 5
    assert sheet.plan(rs, "sleight_of_hand").modifier == 3 + 6  # DEX +3, expertise doubles it
    assert sheet.plan(rs, "dexterity_save").modifier == 6
    assert sheet.plan(rs, "athletics").modifier == -1  # STR 9, not proficient
    assert sheet.plan(rs, "perception").expression(advantage=1) == "2d20kh1+4"


def test_coc7e_values_and_bases():
    rs = rulesets.load("coc7e")
    sheet = parse_character({"name": "Ada", "characteristics": {"DEX": 60, "INT": 70, "EDU": 80},
                             "skills": {"Spot Hidden": 55, "图书馆使用": 65}}, rs)
    assert sheet.plan(rs, "spot_hidden").value == 55
    assert sheet.plan(rs, "library_use").value == 65  # named by its Chinese name in the sheet
    assert sheet.plan(rs, "dodge").value == 30  # base DEX/2
    assert sheet.plan(rs, "idea").value == 70 and sheet.plan(rs, "know").value == 80
    assert sheet.plan(rs, "listen").value == rs.checks["listen"].base


def test_pf2e_ranks():
    rs = rulesets.load("pf2e")
    sheet = parse_character({"name": "Vex", "level": 3, "attributes": {"Dex": 4, "Wis": 1},
                             "ranks": {"Stealth": "expert", "Perception": "trained", "Sailing Lore": "trained"}}, rs)
    assert sheet.plan(rs, "stealth").modifier == 4 + 3 + 4
    assert sheet.plan(rs, "perception").modifier == 1 + 3 + 2
    assert sheet.plan(rs, "thievery").modifier == 4  # untrained: attribute only
    assert sheet.plan(rs, "lore:sailing").modifier == 0 + 3 + 2


def test_swade_dice_and_unskilled():
    rs = rulesets.load("swade")
    sheet = parse_character({"name": "Kit", "attributes": {"Agility": "d8", "Vigor": "d6"}, "skills": {"Shooting": "d10"}}, rs)
    assert sheet.plan(rs, "shooting").expression() == "1d10 + wild d6"
    assert sheet.plan(rs, "notice").expression() == "1d4 + wild d6"  # a core skill starts at d4
    assert sheet.plan(rs, "gambling").expression() == "1d4 + wild d6 -2"  # unskilled
    assert sheet.plan(rs, "soak").die == "d6"  # Soak rolls Vigor
    extra = parse_character({"name": "Goon", "wild_card": False, "attributes": {"Agility": "d6"}}, rs)
    assert extra.plan(rs, "agility").expression() == "1d6"


@pytest.mark.parametrize("text,where,what", [
    ("name: X\nabilities: {STR: 40}\n", ":2", "1-30"),
    ("name: X\nabilities: {STR: 10}\nproficiencies: [Perseption]\n", ":3", "closest: perception"),
    ("name: X\nabilities: {STRONGNESS: 10}\n", ":2", "not an ability"),
    ("name: X\nabilities: {STR: 10}\nhitpoints: 4\n", ":3", "remove it"),
    ("name: X\nabilities: [STR\n", ":3", "not valid YAML"),
    ("- just a list\n", "", "a mapping"),
])
def test_broken_user_sheet_is_one_line_naming_file_and_line(tmp_path, text, where, what):
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(CharacterError) as err:
        load_character(path, rulesets.load("dnd5e"))
    message = str(err.value)
    assert "\n" not in message and f"mine.yaml{where}" in message and what in message


def test_sheet_for_another_ruleset_is_refused(tmp_path):
    path = tmp_path / "inv.yaml"
    path.write_text("name: Y\nruleset: coc7e\ncharacteristics: {STR: 50}\n")
    with pytest.raises(CharacterError, match="table plays 'dnd5e'"):
        load_character(path, rulesets.load("dnd5e"))
