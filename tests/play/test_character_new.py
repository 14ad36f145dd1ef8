"""Characters of every game by its creation rules, and every sheet legal by its game's rules.

``vgm character new`` makes coc7e, pf2e and swade characters as well as dnd5e ones; each is
checked by ``gm.sheet_rules`` with the creation budget, and every shipped sheet passes the
same rules without it (the Savage Worlds Parry of a character with no Fighting is 2)."""
from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rulesets
from gm.character_builder import build_character, class_book
from gm.character_new import build_new, choices
from gm.characters import CharacterError, load_character, parse_character
from gm.sheet_rules import check_sheet, sheet_problems, swade_points
from gm.systems import ready_characters
from ui.cli import app

PACKS = {name: rulesets.load(name) for name in ("dnd5e", "coc7e", "pf2e", "swade")}


def run(*args):
    return CliRunner().invoke(app, ["character", "new", *args])


# ----- every sheet, by its game's rules ------------------------------------------------------------


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_every_shipped_sheet_is_legal_by_its_games_rules(pack):
    sheets = ready_characters(PACKS[pack])
    assert sheets
    for sheet in sheets:
        assert sheet_problems(sheet, PACKS[pack]) == [], sheet.name


def test_a_parry_the_fighting_die_does_not_give_is_refused_in_one_line(tmp_path):
    """Dutch as he shipped: Parry 5 with no Fighting skill (2 + nothing = 2)."""
    path = tmp_path / "dutch.yaml"
    text = open("gm/data/characters/swade/dutch.yaml").read().replace("parry: 2", "parry: 5")
    path.write_text(text)
    with pytest.raises(CharacterError) as err:
        load_character(path, PACKS["swade"])
    line = str(err.value)
    assert "\n" not in line and str(path) in line and "parry: 5" in line and "is 2" in line


@pytest.mark.parametrize("pack, data, key", [
    ("coc7e", {"characteristics": {"STR": 50, "CON": 50, "SIZ": 50, "DEX": 50, "APP": 50, "INT": 50, "POW": 50, "EDU": 50}, "hp": 14}, "hp: 14"),
    ("coc7e", {"characteristics": {"STR": 50, "CON": 50, "SIZ": 50, "DEX": 50, "APP": 50, "INT": 50, "POW": 50, "EDU": 50},
               "skills": {"Library Use": 10}}, "below its base value 20"),
    ("pf2e", {"level": 1, "attributes": {"Str": 4, "Dex": 1, "Con": 1, "Int": 0, "Wis": 0, "Cha": 0},
              "ranks": {"Perception": "master", "Fortitude": "trained", "Reflex": "trained", "Will": "trained"}}, "master at level 1"),
    ("pf2e", {"level": 1, "attributes": {"Str": 4, "Dex": 4, "Con": 4, "Int": 0, "Wis": 0, "Cha": 0},
              "ranks": {"Perception": "trained", "Fortitude": "trained", "Reflex": "trained", "Will": "trained"}}, "add up to +12"),
    ("dnd5e", {"level": 1, "abilities": {"STR": 10, "DEX": 10, "CON": 10, "INT": 10, "WIS": 10, "CHA": 10},
               "proficiencies": ["strength_save"], "hp": 40}, "saving throws"),
    ("swade", {"attributes": {"Agility": "d6", "Smarts": "d6", "Spirit": "d6", "Strength": "d6", "Vigor": "d10"}, "toughness": 5}, "toughness: 5"),
])
def test_a_sheet_that_breaks_its_rules_names_the_key_and_what_is_allowed(pack, data, key):
    sheet = parse_character({"name": "Nobody", **data}, PACKS[pack])
    with pytest.raises(CharacterError, match=re.escape(key)):
        check_sheet(sheet, PACKS[pack], "nobody.yaml")


# ----- new characters of every game ----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_made_character_is_legal_by_the_creation_rules(data):
    pack = data.draw(st.sampled_from(["coc7e", "pf2e", "swade"]))
    offered = choices(pack)
    picks = {kind: data.draw(st.sampled_from(ids)) for kind, ids in offered.items()}
    seed = data.draw(st.integers(0, 10_000))
    sheet = build_new(pack, name="Ada Moss", klass=picks.get("occupation") or picks.get("class") or picks["archetype"],
                      ancestry=picks.get("ancestry"), background=picks.get("background"), seed=seed)
    assert sheet_problems(sheet, PACKS[pack], new=True) == []


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_every_made_dnd5e_character_is_legal_too(data):
    book = class_book("dnd5e")
    klass = data.draw(st.sampled_from(sorted(book.classes)))
    background = data.draw(st.sampled_from(sorted(book.backgrounds)))
    order = data.draw(st.permutations([15, 14, 13, 12, 10, 8]))
    level = data.draw(st.integers(1, 20))
    sheet = build_character("dnd5e", name="Wren", klass=klass, background=background, method="standard", scores=list(order), level=level)
    assert sheet_problems(sheet, PACKS["dnd5e"], new=True) == []


def test_an_investigator_follows_the_creation_numbers():
    sheet = build_new("coc7e", name="Ada Moss", klass="journalist", seed=11)
    c = sheet.characteristics
    assert sheet.hp == (c["constitution"] + c["size"]) // 10 and sheet.sanity == c["power"]
    assert 9 <= sheet.skills["credit_rating"] <= 30  # a journalist's Credit Rating range
    assert all(15 <= c[a] <= 90 for a in c)


def test_a_pathfinder_character_spends_its_boosts_and_gets_its_class_ranks():
    sheet = build_new("pf2e", name="Tamsin", klass="rogue", ancestry="halfling", background="street_urchin")
    assert sheet.attributes["dexterity"] == 4 and sum(sheet.attributes.values()) == 9
    assert sheet.ranks["reflex"] == "expert" and sheet.ranks["stealth"] == "trained" and sheet.ranks["thievery"] == "trained"
    assert sheet.hp == 6 + 8 + sheet.attributes["constitution"]


def test_a_savage_worlds_character_spends_its_points_and_derives_parry():
    sheet = build_new("swade", name="Cole", klass="brawler", seed=2)
    attrs, skills = swade_points(sheet, PACKS["swade"])
    assert attrs == 5 and skills <= 12
    assert sheet.parry == 2 + int(sheet.skills["fighting"][1:]) // 2


@pytest.mark.parametrize("args, check", [
    (["-r", "coc7e", "--class", "professor", "--seed", "4"], lambda s: s.skills["library_use"] > 20),
    (["-r", "pf2e", "--class", "cleric", "--ancestry", "dwarf", "--background", "farmhand"], lambda s: s.ranks["religion"] == "trained"),
    (["-r", "swade", "--class", "preacher"], lambda s: "faith" in s.skills),
])
def test_character_new_builds_a_character_in_every_game_the_table_loads(tmp_path, args, check):
    out = tmp_path / "ada.yaml"
    result = run(*args, "--name", "Ada Moss", "-o", str(out))
    assert result.exit_code == 0, result.output
    pack = PACKS[args[1]]
    sheet = load_character(out, pack)
    assert sheet.name == "Ada Moss" and check(sheet)
    assert yaml.safe_load(out.read_text())["ruleset"] == args[1]


def test_an_unknown_choice_is_one_line_naming_what_is_offered(tmp_path):
    result = run("-r", "pf2e", "--name", "X", "--class", "necromancer", "-o", str(tmp_path / "x.yaml"))
    assert result.exit_code != 0
    assert "no class 'necromancer'" in result.output and "wizard" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("klass, level, magic", [("ranger", 1, False), ("ranger", 2, True), ("paladin", 1, False), ("warlock", 1, True), ("fighter", 5, False)])
def test_a_dnd5e_character_works_magic_from_the_level_its_class_gets_spell_slots(klass, level, magic):
    sheet = build_character("dnd5e", name="Wren", klass=klass, background="acolyte", method="standard", scores=[15, 14, 13, 12, 10, 8], level=level)
    assert sheet.magic is magic


@pytest.mark.parametrize("pack, klass, spell", [("pf2e", "cleric", "heal"), ("pf2e", "wizard", "force_barrage"), ("swade", "preacher", "healing")])
def test_a_new_caster_starts_with_spells_it_can_cast(pack, klass, spell):
    from gm.combat import combatant_from_sheet

    sheet = build_new(pack, name="Ada Moss", klass=klass, seed=1)
    assert spell in combatant_from_sheet(sheet, PACKS[pack]).spells


def test_a_new_cleric_starts_with_the_cleric_spells_of_its_slot_levels():
    sheet = build_character("dnd5e", name="Wren", klass="cleric", background="acolyte", method="standard", scores=[10, 12, 14, 8, 15, 13])
    assert "Cure Wounds" in sheet.spells and "Hold Person" not in sheet.spells  # 2nd level comes at character level 3
    fighter = build_character("dnd5e", name="Wren", klass="fighter", background="acolyte", method="standard", scores=[15, 14, 13, 12, 10, 8])
    assert fighter.spells == []
