"""What a D&D 5e character carries: weapons make its attacks, armour its AC, arrows and javelins
run out, a potion heals and is gone; an unknown item or a weapon without damage is one line."""
import random

import pytest

import rulesets
from gm.combat import spells
from gm.characters import CharacterError, load_character, parse_character
from gm.combat import Action, CombatError, combatant_from_sheet, start_combat
from gm.combat.items import armour_class, use_item
from gm.sheet_rules import check_sheet
from gm.systems import find_character

from .conftest import Faces, sheets

PACK = rulesets.load("dnd5e")


def carrying(items: dict, **extra):
    return parse_character({"name": "Wren", "concept": "wood elf ranger", "level": 1, "proficiencies": ["strength_save", "dexterity_save"],
                            "abilities": {"STR": 12, "DEX": 16, "CON": 12, "INT": 10, "WIS": 14, "CHA": 8}, "items": items, **extra}, PACK)


def test_attacks_come_from_the_weapons_carried_and_ac_from_the_armour():
    wren = combatant_from_sheet(carrying({"Rapier": 1, "Longbow": 1, "Arrows": 3, "Scale Mail": 1, "Shield": 1}), PACK)
    rapier, bow = wren.attacks
    assert (rapier.name, rapier.kind, rapier.bonus, rapier.damage) == ("Rapier", "melee", 5, "1d8+3")  # finesse: DEX
    assert (bow.kind, bow.bonus, bow.damage, bow.range, bow.ammo) == ("ranged", 5, "1d8+3", [150, 600], "arrows")
    assert wren.ac == 14 + 2 + 2  # scale mail caps DEX at +2, shield +2
    assert wren.ammo == {"arrows": 3}


def test_a_shot_spends_an_arrow_and_with_none_left_the_bow_is_refused():
    wren = combatant_from_sheet(carrying({"Shortsword": 1, "Shortbow": 1, "Arrows": 1}), PACK)
    fight = start_combat("dnd5e", [wren], [{"monster": "goblin", "distance": 60}], random.Random(2), seed=2)
    if fight.current.name != "Wren":
        fight.run_npcs()
    fight.act("Wren", "shortbow", target="Goblin")
    assert fight.get("Wren").ammo["arrows"] == 0
    fight.get("Wren").actions_left = 1
    with pytest.raises(CombatError, match="Wren has no arrows left for Shortbow; pick another weapon"):
        fight.act("Wren", "shortbow", target="Goblin")


def test_javelins_are_thrown_and_used_up():
    ilya = combatant_from_sheet(find_character("Ilya", sheets("dnd5e")), PACK)
    javelin = ilya.attack("javelin")
    assert javelin.kind == "ranged" and ilya.ammo == {"javelin": 4} and ilya.ac == 16


def test_a_potion_heals_two_d4_plus_two_and_is_gone():
    brisa = combatant_from_sheet(find_character("Brisa", sheets("dnd5e")), PACK)
    brisa.hp = 3
    events = use_item(None, brisa, "potion of healing", rng=Faces(2, 3))
    assert brisa.hp == 3 + 2 + 3 + 2 and brisa.items["potion_of_healing"] == 0 and "(0 left)" in events[0].text
    with pytest.raises(CombatError, match="no Potion of Healing left"):
        use_item(None, brisa, "potion of healing")


def test_drinking_a_potion_in_a_fight_takes_the_action():
    party = [find_character(n, sheets("dnd5e")) for n in ("Brisa",)]
    fight = start_combat("dnd5e", party, ["goblin"], random.Random(1), seed=1)
    if fight.current.name != "Brisa Tallowmere":
        fight.run_npcs()
    events = fight.act("Brisa", Action(kind="use", options={"item": "potion of healing"}))
    assert events[0].kind == "use" and fight.get("Brisa").actions_left == 0


@pytest.mark.parametrize("items, extra, message", [
    ({"Vorpal Sword": 1}, {}, "items: no item 'Vorpal Sword' in the pack"),
    ({"Leather": 1}, {"ac": 17}, "ac: 17, but the armour carried gives 14"),
    ({"Dagger": 0}, {}, "items: Dagger 0; carry at least 1"),
])
def test_a_sheet_carrying_what_the_rules_do_not_allow_is_one_line(items, extra, message):
    with pytest.raises(CharacterError, match=message):
        check_sheet(carrying(items, **extra), PACK, "wren.yaml")


def test_a_weapon_without_damage_in_the_pack_data_is_one_line_naming_the_key(tmp_path, monkeypatch):
    bad = tmp_path / "dnd5e.yaml"
    bad.write_text(spells.SPELLS_FILE.read_text().replace("club: {damage: 1d4, type: bludgeoning", "club: {type: bludgeoning"))
    monkeypatch.setattr(spells, "SPELLS_FILE", bad)
    spells.spell_book.cache_clear()
    try:
        with pytest.raises(CombatError) as err:
            spells.spell_book()
        assert str(bad) in str(err.value) and "weapons.club.damage" in str(err.value) and "\n" not in str(err.value)
    finally:
        spells.spell_book.cache_clear()


def test_no_armour_is_ten_plus_dex():
    assert armour_class(carrying({"Dagger": 1})) is None
    assert combatant_from_sheet(carrying({"Dagger": 1}), PACK).ac == 13
