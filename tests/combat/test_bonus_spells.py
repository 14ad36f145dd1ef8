"""Bonus-action spells and repeated saves in a D&D 5e fight: Healing Word leaves the action free,
but then the action's spell must be a cantrip; a held creature saves again at each turn's end."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesets
from gm.combat import Action, CombatError, combatant_from_sheet, start_combat
from gm.combat.spells import cast, repeat_saves
from gm.fight import player_acts, read_action
from gm.systems import find_character

from .conftest import Faces, sheets, turn_of

PACK = rulesets.load("dnd5e")


def oskar_first(seed=3, foes=("goblin", "goblin")):
    return turn_of("dnd5e", "Oskar", foes, seed=seed)


def test_healing_word_leaves_the_action_and_a_cantrip_may_follow():
    fight = oskar_first()
    fight.get("Brisa").hp = 5
    events = fight.act("Oskar", Action(kind="cast", options={"spell": "Healing Word", "targets": ["Brisa"]}))
    oskar = fight.get("Oskar")
    assert "Healing Word" in events[0].text and oskar.actions_left == 1 and oskar.bonus_left == 0
    fight.act("Oskar", Action(kind="cast", target="Goblin 2", options={"spell": "Sacred Flame"}))
    assert oskar.actions_left == 0


def test_after_a_bonus_action_spell_a_leveled_action_spell_is_refused_and_nothing_is_spent():
    fight = oskar_first()
    fight.act("Oskar", Action(kind="cast", options={"spell": "Healing Word", "targets": ["Brisa"]}))
    slots = dict(fight.get("Oskar").slots)
    with pytest.raises(CombatError, match="bonus-action spell this turn, so the action's spell must be a cantrip; Cure Wounds is 1st level"):
        fight.act("Oskar", Action(kind="cast", options={"spell": "Cure Wounds", "targets": ["Brisa"]}))
    assert fight.get("Oskar").slots == slots and fight.get("Oskar").actions_left == 1


def test_after_a_leveled_action_spell_no_bonus_action_spell_and_only_one_bonus_action():
    fight = oskar_first()
    fight.act("Oskar", Action(kind="cast", target="Goblin 2", options={"spell": "Guiding Bolt"}))
    assert fight.current.name == "Oskar Venn"  # the bonus action is still there
    with pytest.raises(CombatError, match="bonus-action spell such as Healing Word is allowed only beside a cantrip"):
        fight.act("Oskar", Action(kind="cast", options={"spell": "Healing Word", "targets": ["Brisa"]}))
    fight = oskar_first()
    fight.act("Oskar", Action(kind="cast", options={"spell": "Healing Word", "targets": ["Brisa"]}))
    with pytest.raises(CombatError, match="has used this turn's bonus action; Shield of Faith takes one"):
        fight.act("Oskar", Action(kind="cast", options={"spell": "Shield of Faith", "targets": ["Ilya"]}))


def test_at_the_table_the_turn_stays_open_for_the_bonus_spell_then_ends():
    fight = oskar_first()
    events = player_acts(fight, "Oskar Venn", read_action(fight, "Oskar Venn", "I cast Sacred Flame at Goblin 2"))
    assert fight.current.name == "Oskar Venn"  # a bonus-action spell could still be cast
    events = player_acts(fight, "Oskar Venn", read_action(fight, "Oskar Venn", "I cast Spiritual Weapon at the Goblin"))
    assert "Spiritual Weapon" in events[0].text and any(e.text.startswith("Oskar Venn's Spiritual Weapon at Goblin") for e in events)
    assert fight.current.name != "Oskar Venn"


def test_spiritual_weapon_adds_the_casting_modifier_and_a_d8_every_two_slots_above_second():
    oskar = combatant_from_sheet(find_character("Oskar", sheets("dnd5e")), PACK)
    goblin = start_combat("dnd5e", [oskar.model_copy()], ["goblin"], seed=1).get("Goblin")
    oskar.slots_max = oskar.slots = {2: 1, 4: 1}
    events = cast(None, oskar, "Spiritual Weapon", [goblin], slot=4, rng=Faces(15, 3, 4))
    damage = next(e for e in events if e.rolls and "force" in e.text)
    assert damage.rolls[0].expression == "1d8+3+1d8" and damage.rolls[0].total == 3 + 3 + 4


def test_misty_step_moves_the_caster_away_from_the_nearest_foe_without_the_action():
    wizard = {"name": "Wren", "ruleset": "dnd5e", "concept": "elf wizard", "level": 3,
              "abilities": {"STR": 8, "DEX": 14, "CON": 12, "INT": 16, "WIS": 12, "CHA": 10}, "spells": ["Misty Step"]}
    fight = start_combat("dnd5e", [wizard], [{"monster": "goblin", "distance": 5}], seed=2)
    while fight.current.name != "Wren":
        fight.npc_turn()
    events = fight.act("Wren", Action(kind="cast", options={"spell": "Misty Step"}))
    assert "30 ft away" in events[-1].text and fight.get("Goblin").position - fight.get("Wren").position >= 30
    assert fight.get("Wren").actions_left == 1


# ---------------------------------------------------------------- repeated saves


def held_goblin(faces):
    fight = oskar_first(seed=5, foes=("bandit",))
    bandit = fight.get("Bandit")
    fight.act("Oskar", Action(kind="cast", target="Bandit", options={"spell": "Hold Person"}), rng=Faces(1))
    assert bandit.has("paralyzed")
    return fight, bandit


def test_hold_person_is_saved_against_again_at_the_end_of_the_held_ones_turn_and_ends_on_a_success():
    fight, bandit = held_goblin(None)
    held = bandit.condition("paralyzed")
    assert (held.save, held.dc) == ("wisdom", 13)
    out = repeat_saves(fight, bandit, Faces(2))  # 2 + WIS 0: fails
    assert bandit.has("paralyzed") and "failure" in out[0].text
    out = repeat_saves(fight, bandit, Faces(19))
    assert not bandit.has("paralyzed") and "no longer paralyzed (Hold Person ends on them)" in out[-1].text
    assert fight.get("Oskar").concentrating == "hold_person"  # the caster still holds the spell


def test_the_held_creatures_turn_passes_with_its_save_in_the_log():
    fight, bandit = held_goblin(None)
    events = []
    for _ in range(8):
        events += fight.next_turn(random.Random(0))
        if any(e.kind == "save" and e.actor == "Bandit" for e in events):
            break
    assert any(e.text.startswith("Bandit saves again against Hold Person (WIS)") for e in events)


def test_ending_concentration_ends_the_hold():
    from gm.combat.spells import end_concentration

    fight, bandit = held_goblin(None)
    end_concentration(fight, fight.get("Oskar"), "Oskar lets it go")
    assert not bandit.has("paralyzed")


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 20))
def test_a_repeated_save_ends_the_hold_exactly_when_it_meets_the_dc(face):
    fight, bandit = held_goblin(None)
    mod = int(bandit.checks.get("wisdom_save", 0))
    repeat_saves(fight, bandit, Faces(face))
    assert bandit.has("paralyzed") == (face + mod < 13)


def test_the_spiritual_weapon_strikes_again_on_a_later_turn_with_the_bonus_action_and_no_slot():
    fight = oskar_first()
    player_acts(fight, "Oskar Venn", read_action(fight, "Oskar Venn", "I cast Spiritual Weapon at the Goblin"))
    player_acts(fight, "Oskar Venn", read_action(fight, "Oskar Venn", "I end my turn"))
    for _ in range(12):
        if fight.current.name == "Oskar Venn" or fight.over:
            break
        fight.next_turn() if fight.current.is_player else fight.npc_turn()
    oskar = fight.get("Oskar")
    slots = dict(oskar.slots)
    foe = fight.nearest_enemy(oskar).name
    events = player_acts(fight, "Oskar Venn", read_action(fight, "Oskar Venn", f"my spiritual weapon hits {foe}"))
    assert events[0].text.startswith(f"Oskar Venn's Spiritual Weapon strikes again at {foe}")
    assert oskar.slots == slots and fight.current.name == "Oskar Venn"  # no slot; the action is still there
    events = player_acts(fight, "Oskar Venn", read_action(fight, "Oskar Venn", f"I cast Guiding Bolt at {foe}"))
    assert "Guiding Bolt" in events[0].text  # striking is no spell: a leveled action spell may follow
