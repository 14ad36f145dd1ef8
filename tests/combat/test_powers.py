"""Casting in the other three games, each paying its own price: a CoC investigator pays magic
points and Sanity, a Pathfinder bard a slot of the spell's rank and two actions, a Savage
Worlds preacher power points on a Faith roll; what cannot be paid is refused and nothing is spent."""
import random

import pytest

import rulesets
from gm.characters import CharacterError, parse_character
from gm.combat import Action, CombatError, combatant_from_sheet, start_combat
from gm.fight import player_acts, read_action
from gm.combat.powers import cast_power, pf2e_slots
from gm.sheet_rules import check_sheet
from gm.systems import find_character

from .conftest import Faces, sheets


def pc(pack, name):
    return combatant_from_sheet(find_character(name, sheets(pack)), rulesets.load(pack))


def test_an_investigator_pays_magic_points_and_sanity():
    margaret, eddie = pc("coc7e", "Margaret"), pc("coc7e", "Eddie")
    assert margaret.magic_points == 65 // 5 and margaret.sanity == 65
    eddie.hp = 4
    events = cast_power(None, margaret, "Mend the Flesh", [eddie], rng=Faces(3, 5))
    assert margaret.magic_points == 13 - 6 and margaret.sanity == 65 - 3 and eddie.hp == 4 + 5
    assert "6 magic points (7 left) and 3 Sanity (62 left)" in events[0].text
    cast_power(None, margaret, "Mend the Flesh", [eddie], rng=random.Random(1))
    with pytest.raises(CombatError, match="costs 6 magic points and Dr. Margaret Hale has 1"):
        cast_power(None, margaret, "Mend the Flesh", [eddie])
    assert margaret.magic_points == 1


def test_an_investigator_without_spells_casts_nothing():
    with pytest.raises(CombatError, match="Eddie Kowalczyk casts no spells"):
        cast_power(None, pc("coc7e", "Eddie"), "Wither", [])


def test_a_pathfinder_bard_spends_a_slot_and_two_actions():
    party = [find_character(n, sheets("pf2e")) for n in ("Pip", "Keth")]
    fight = start_combat("pf2e", party, ["toll_goblin"], random.Random(2), seed=2)
    while fight.current.name != "Pip Quillon":
        fight.next_turn() if fight.current.is_player else fight.npc_turn()
    pip = fight.get("Pip")
    assert pip.slots == pf2e_slots(2) == {1: 3} and pip.spell_dc == 18
    fight.get("Keth").hp = 10
    events = player_acts(fight, "Pip Quillon", read_action(fight, "Pip Quillon", "I cast Soothe on Keth"))
    assert pip.slots == {1: 2} and fight.get("Keth").hp > 10
    assert "rank 1 slot (2 left)" in events[0].text


def test_a_cantrip_costs_no_slot_and_deals_damage_by_a_basic_save():
    pip, goblin = pc("pf2e", "Pip"), None
    fight = start_combat("pf2e", [find_character("Pip", sheets("pf2e"))], ["toll_goblin"], random.Random(2), seed=2)
    if fight.current.name != "Pip Quillon":
        fight.run_npcs()
    goblin = fight.standing("foes")[0]
    events = fight.act("Pip", Action(kind="cast", target=goblin.name, options={"spell": "daze"}), rng=Faces(1, 4))
    assert fight.get("Pip").slots == {1: 3}
    assert "basic will save against Daze" in events[1].text and "critical failure" in events[1].text  # natural 1
    assert fight.get("Pip").actions_left == 1  # two of three actions


def test_a_savage_worlds_preacher_pays_power_points_on_a_faith_roll():
    hosea, dutch = pc("swade", "Hosea"), pc("swade", "Dutch")
    dutch.wounds, dutch.hp = 2, 2
    events = cast_power(None, hosea, "Healing", [dutch], rng=Faces(6, 2))  # Faith d8: 6, wild d6: 2 → 6, success
    assert hosea.power_points == 10 - 3 and dutch.wounds == 1 and "success; 3 power points (7 left)" in events[0].text
    cast_power(None, hosea, "Healing", [dutch], rng=Faces(2, 1))  # a failure costs 1
    assert hosea.power_points == 6 and dutch.wounds == 1


def test_protection_adds_two_to_toughness_against_damage():
    fight = start_combat("swade", [find_character("Hosea", sheets("swade"))], ["claim_jumper"], random.Random(1), seed=1)
    hosea = fight.get("Hosea")
    fight.turn = fight.order.index(hosea.name)
    fight.rules.start_turn(fight, hosea, random.Random(0))
    fight.act("Hosea", Action(kind="cast", target="Hosea", options={"spell": "protection"}), rng=Faces(8, 3, 1))
    assert hosea.has("protected")
    line = fight.rules.hurt(fight, hosea, hosea.toughness, rng=random.Random(0))[0].text
    assert f"Toughness {hosea.toughness + 2}" in line and "no effect" in line


@pytest.mark.parametrize("pack, data, message", [
    ("coc7e", {"characteristics": {"STR": 50, "CON": 50, "SIZ": 50, "DEX": 50, "APP": 50, "INT": 50, "POW": 50, "EDU": 50},
               "spells": ["Summon Shoggoth"]}, "spells: no spell 'Summon Shoggoth' in coc7e; it has Mend the Flesh, Wither"),
    ("pf2e", {"concept": "human wizard", "attributes": {"Int": 4}, "spells": ["Soothe"],
              "ranks": {"Perception": "trained", "Fortitude": "trained", "Reflex": "trained", "Will": "expert"}},
     "spells: Soothe is occult; a wizard casts arcane spells"),
    ("swade", {"attributes": {"Agility": "d6", "Smarts": "d6", "Spirit": "d6", "Strength": "d6", "Vigor": "d6"}, "spells": ["Bolt"]},
     "spells: powers need an arcane skill"),
])
def test_a_sheet_with_a_spell_its_game_does_not_allow_is_one_line(pack, data, message):
    sheet = parse_character({"name": "Nobody", **data}, rulesets.load(pack))
    with pytest.raises(CharacterError, match=message):
        check_sheet(sheet, rulesets.load(pack), "nobody.yaml")
