"""D&D 5e spells by the rules: a cleric casts Cure Wounds and Bless in and out of a fight, slots
go down and come back after a long rest, concentration holds or breaks, and a fighter, a spell
the sheet lacks or a slot the caster does not have is refused with the reason."""
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rulesets
from gm.characters import CharacterError, load_character
from gm.combat import Action, CombatError, combatant_from_sheet, long_rest
from gm.fight import player_acts, read_action
from gm.combat.spells import cast, find_spell, slots_for, spell_book
from gm.systems import find_character

from .conftest import Faces, sheets, turn_of

PACK = rulesets.load("dnd5e")


def pc(name):
    return combatant_from_sheet(find_character(name, sheets("dnd5e")), PACK)


def party_fight(seed=3):
    """Oskar (cleric 3), Ilya and Brisa against two goblins, Oskar's turn first."""
    return turn_of("dnd5e", "Oskar", ["goblin", "goblin"], seed=seed)


def test_a_cleric_heals_out_of_a_fight_by_the_spell_and_spends_a_slot():
    oskar, brisa = pc("Oskar"), pc("Brisa")
    assert oskar.slots == {1: 4, 2: 2} and oskar.spell_dc == 13 and oskar.spell_attack == 5  # level 3, WIS 16
    brisa.hp = 5
    events = cast(None, oskar, "Cure Wounds", [brisa], rng=Faces(6))
    assert brisa.hp == 5 + 6 + 3  # 1d8 + WIS modifier
    assert "1st-level slot (3 left)" in events[0].text and oskar.slots[1] == 3


def test_a_higher_slot_heals_more_and_a_cantrip_costs_nothing():
    oskar, brisa = pc("Oskar"), pc("Brisa")
    brisa.hp = 1
    events = cast(None, oskar, "cure wounds", [brisa], slot=2, rng=Faces(4, 5))
    assert events[-1].rolls[0].expression.startswith("1d8+1d8") and brisa.hp == 1 + 4 + 5 + 3
    assert oskar.slots == {1: 4, 2: 1}
    goblin_fight = party_fight()
    before = dict(goblin_fight.get("Oskar").slots)
    goblin_fight.act("Oskar", Action(kind="cast", target="Goblin", options={"spell": "sacred flame"}))
    assert goblin_fight.get("Oskar").slots == before


def test_bless_in_a_fight_holds_by_concentration_and_adds_a_d4():
    fight = party_fight()
    events = fight.act("Oskar", Action(kind="cast", options={"spell": "Bless", "targets": ["Oskar", "Ilya", "Brisa"]}))
    oskar, ilya = fight.get("Oskar"), fight.get("Ilya")
    assert oskar.concentrating == "bless" and ilya.has("blessed") and oskar.slots[1] == 3
    assert [e.text for e in events if e.kind == "condition"] == [f"{n} is blessed (Bless)" for n in ("Oskar Venn", "Ilya Thorncastle", "Brisa Tallowmere")]
    # Ilya's next attack rolls a d4 beside the d20
    fight.turn = fight.order.index("Ilya Thorncastle")
    fight.rules.start_turn(fight, ilya, random.Random(0))
    attack = fight.act("Ilya", "attack", target="Goblin")[0]
    assert len(attack.rolls) == 2 and attack.rolls[1].expression == "1d4" and "blessed +" in attack.text


def test_a_second_concentration_spell_ends_the_first_and_damage_can_break_it():
    fight = party_fight()
    oskar = fight.get("Oskar")
    fight.act("Oskar", Action(kind="cast", options={"spell": "bless", "targets": ["Ilya"]}))
    oskar.actions_left, oskar.bonus_left, oskar.cast_this_turn = 1, 1, []  # as on Oskar's next turn
    events = fight.act("Oskar", Action(kind="cast", target="Ilya", options={"spell": "shield of faith"}))
    assert any("Bless ends" in e.text for e in events) and not fight.get("Ilya").has("blessed")
    assert oskar.concentrating == "shield_of_faith"
    fight.rules.hurt(fight, oskar, 4, rng=Faces(1))  # CON save 1 + 1 = 2 vs DC 10: broken
    assert oskar.concentrating is None and not fight.get("Ilya").has("shield of faith")


def test_slots_come_back_after_a_long_rest():
    oskar = pc("Oskar")
    for _ in range(4):
        cast(None, oskar, "bless", [oskar], rng=random.Random(1))
    with pytest.raises(CombatError, match="spent every 1st-level slot"):
        cast(None, oskar, "bless", [oskar], slot=1)
    cast(None, oskar, "bless", [oskar], rng=random.Random(1))  # no slot named: the 2nd-level one is used
    assert oskar.slots == {1: 0, 2: 1}
    long_rest(oskar)
    assert oskar.slots == {1: 4, 2: 2} and oskar.concentrating is None


@pytest.mark.parametrize("who, spell, slot, reason", [
    ("Ilya", "Cure Wounds", None, "Ilya Thorncastle casts no spells: their sheet lists none"),
    ("Oskar", "Fireball", None, "no spell 'Fireball' in the pack"),
    ("Oskar", "Magic Missile", None, "Oskar Venn does not have Magic Missile; their sheet lists Sacred Flame"),
    ("Oskar", "Hold Person", 1, "Hold Person is a 2nd-level spell; it cannot be cast with a 1st-level slot"),
    ("Oskar", "Cure Wounds", 3, "Oskar Venn has no 3rd-level slots (slot levels: 1st, 2nd)"),
])
def test_what_cannot_be_cast_is_refused_with_the_reason_and_spends_nothing(who, spell, slot, reason):
    caster = pc(who)
    before = dict(caster.slots)
    with pytest.raises(CombatError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        cast(None, caster, spell, [caster], slot=slot)
    assert caster.slots == before


def test_the_gm_reads_a_cast_line_in_a_fight_and_resolves_it_by_the_rules():
    fight = party_fight()
    brisa = fight.get("Brisa")
    brisa.hp = 4
    action = read_action(fight, "Oskar Venn", "I cast Cure Wounds on Brisa")
    assert action.kind == "cast" and action.targets == ["Brisa Tallowmere"]
    events = player_acts(fight, "Oskar Venn", action)
    assert brisa.hp > 4 and any("regains (from Cure Wounds)" in e.text for e in events)
    assert fight.get("Oskar").slots[1] == 3


def test_a_fighter_casting_in_a_fight_is_refused_and_the_fight_is_unchanged():
    fight = party_fight()
    fight.turn = fight.order.index("Ilya Thorncastle")
    fight.rules.start_turn(fight, fight.get("Ilya"), random.Random(0))
    before = fight.to_dict()
    with pytest.raises(CombatError, match="casts no spells"):
        player_acts(fight, "Ilya Thorncastle", read_action(fight, "Ilya Thorncastle", "I cast Cure Wounds on Brisa"))
    assert fight.to_dict()["combatants"] == before["combatants"]


def test_hold_person_paralyses_on_a_failed_save():
    fight = party_fight()
    goblin = fight.get("Goblin")
    events = fight.act("Oskar", Action(kind="cast", target="Goblin", options={"spell": "hold person"}), rng=Faces(2))
    assert "saves against Hold Person (WIS): 1 vs DC 13, failure" in " ".join(e.text for e in events)
    assert goblin.has("paralyzed") and fight.get("Oskar").slots[2] == 1


def test_a_sheet_with_a_spell_the_pack_lacks_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "oskar.yaml"
    path.write_text(open("gm/data/characters/dnd5e/oskar.yaml").read().replace("Hold Person", "Wish"))
    with pytest.raises(CharacterError) as err:
        load_character(path, PACK)
    assert str(path) in str(err.value) and "spells: no spell 'Wish' in the pack" in str(err.value) and "\n" not in str(err.value)


def test_every_shipped_spell_reads_back_by_its_name():
    for key, spell in spell_book().spells.items():
        assert find_spell(spell.name) == (key, spell)


@given(st.sampled_from(["bard", "cleric", "druid", "sorcerer", "wizard", "paladin", "ranger", "warlock"]), st.integers(1, 19))
def test_slots_never_shrink_as_a_caster_levels_and_half_casters_trail_by_half(klass, level):
    now, pact = slots_for(klass, level)
    later, _ = slots_for(klass, level + 1)
    assert sum(later.values()) >= sum(now.values()) and max(later, default=0) >= max(now, default=0)
    if klass in ("paladin", "ranger") and level >= 2:
        assert now == slots_for("cleric", -(-level // 2))[0]
    assert pact == (klass == "warlock")
    assert slots_for("fighter", level) == ({}, False)
