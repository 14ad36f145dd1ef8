"""Pathfinder 2e combat: three actions, the multiple attack penalty, degrees of success, valued conditions, dying."""
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.combat import CombatError, Combatant
from gm.combat import degrees as rules

from .conftest import Faces, duel, put_first

MARISOL = ["Marisol"]  # Longsword +8 (1d8+4), AC 20, 36 HP
KETH = ["Keth"]  # Longbow +8, Shortsword +8 agile


def _strike_mods(events) -> list[int]:
    """The bonus each Strike rolled with, read off its breakdown (``1d20 (x) + 3 = ...``)."""
    out = []
    for e in events:
        if e.kind == "attack":
            m = re.search(r"1d20 \(\d+\) ([+-]) (\d+)", e.breakdown)
            out.append(int(m.group(2)) * (1 if m.group(1) == "+" else -1) if m else 0)
    return out


def _tough(fight, name):
    foe = fight.get(name)
    foe.hp = foe.max_hp = 500
    foe.ac = 40  # every Strike misses: the fight goes on, the penalty is what we look at
    return foe


@settings(max_examples=25, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=3), st.integers(1, 3))
def test_map_applies_in_order_and_resets_each_turn(agile_flags, turns):
    fight = duel("pf2e", "bridge_thug", party=KETH)
    _tough(fight, "Bridge Thug")
    keth = fight.get("Keth")
    for _ in range(turns):
        put_first(fight, "Keth")
        events = []
        for agile in agile_flags:
            events += fight.act("Keth", "shortsword" if agile else "longbow", "Bridge Thug", Faces(5))
        expected = [8 + rules.multiple_attack_penalty(i, agile) for i, agile in enumerate(agile_flags)]
        assert _strike_mods(events) == expected
        assert keth.attacks_made == len(agile_flags)
    put_first(fight, "Keth")
    assert keth.attacks_made == 0 and keth.actions_left == 3


def test_map_values():
    assert [rules.multiple_attack_penalty(i) for i in range(4)] == [0, -5, -10, -10]
    assert [rules.multiple_attack_penalty(i, agile=True) for i in range(4)] == [0, -4, -8, -8]


def test_a_fourth_action_is_refused():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    _tough(fight, "Bridge Thug")
    put_first(fight, "Marisol")
    for _ in range(3):
        fight.act("Marisol", "strike", "Bridge Thug")
    with pytest.raises(CombatError, match="no action left") as err:
        fight.act("Marisol", "strike", "Bridge Thug")
    assert "\n" not in str(err.value)
    fight.next_turn()
    assert fight.current.name != "Marisol Ardent"


def test_stride_then_strike_costs_two_actions():
    fight = duel("pf2e", "bridge_thug", party=MARISOL, distance=20)
    _tough(fight, "Bridge Thug")
    marisol = put_first(fight, "Marisol")
    events = fight.act("Marisol", "longsword", "Bridge Thug", Faces(10))
    assert events[0].kind == "move" and marisol.actions_left == 1
    marisol.actions_left = 1
    marisol.position = 0
    with pytest.raises(CombatError, match="needs 2 actions"):
        fight.act("Marisol", "longsword", "Bridge Thug")


@pytest.mark.parametrize("face,degree", [(20, "critical success"), (7, "success"), (6, "failure"), (2, "failure"), (1, "critical failure")])
def test_degrees_of_success_against_ac(face, degree):
    fight = duel("pf2e", "bridge_thug", party=MARISOL)  # AC 15; Marisol +8
    fight.get("Bridge Thug").hp = fight.get("Bridge Thug").max_hp = 100
    put_first(fight, "Marisol")
    events = fight.act("Marisol", "longsword", "Bridge Thug", Faces(face, 4))
    assert f", {degree}" in events[0].text


def test_a_critical_strike_doubles_the_damage():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    fight.get("Bridge Thug").hp = fight.get("Bridge Thug").max_hp = 100
    put_first(fight, "Marisol")
    events = fight.act("Marisol", "longsword", "Bridge Thug", Faces(20, 5))
    assert events[1].breakdown == "(1d8 (5) + 4) * 2 = 18" and events[1].amount == 18


def test_frightened_lowers_rolls_and_ac_and_fades_each_turn():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    thug = fight.get("Bridge Thug")
    thug.add("frightened", value=2)
    assert rules.effective_ac(thug) == 13
    put_first(fight, "Bridge Thug")
    thug.hp = thug.max_hp = 100
    events = fight.act("Bridge Thug", "cudgel", "Marisol", Faces(10, 1))
    assert "status -2" in events[0].text and "1d20 (10) + 5" in events[0].breakdown
    fight.next_turn()
    assert thug.value("frightened") == 1
    put_first(fight, "Bridge Thug")
    fight.next_turn()
    assert not thug.has("frightened")


def test_demoralize_frightens_on_a_success():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    put_first(fight, "Marisol")  # Intimidation +6 (Cha 2, trained +4) vs Will DC 13
    events = fight.act("Marisol", "demoralize", "Bridge Thug", Faces(9))
    assert events[0].hit and fight.get("Bridge Thug").value("frightened") == 1
    put_first(fight, "Marisol")
    fight.act("Marisol", "demoralize", "Bridge Thug", Faces(20))
    assert fight.get("Bridge Thug").value("frightened") == 2


def test_trip_counts_as_an_attack_for_map():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    _tough(fight, "Bridge Thug")
    put_first(fight, "Marisol")
    fight.act("Marisol", "longsword", "Bridge Thug", Faces(2))
    events = fight.act("Marisol", "trip", "Bridge Thug", Faces(10))
    assert "MAP -5" in events[0].text


def test_slowed_and_stunned_take_actions():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    marisol = fight.get("Marisol")
    marisol.add("slowed", value=1)
    marisol.add("stunned", value=1)
    put_first(fight, "Marisol")
    assert marisol.actions_left == 1 and not marisol.has("stunned")


def _down(fight, name="Marisol"):
    pc = fight.get(name)
    fight.damage(pc.name, pc.hp + 5)
    assert pc.status == "down" and pc.value("dying") == 1 and pc.hp == 0
    return pc


def test_dying_and_recovery_checks():
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    pc = _down(fight)
    rules.recovery_check(fight, pc, Faces(15))  # DC 11: success, dying 1 → 0, wounded 1
    assert not pc.has("dying") and pc.value("wounded") == 1 and pc.status == "down"
    fight.heal(pc.name, 5)
    assert pc.status == "up"
    fight.damage(pc.name, pc.hp)
    assert pc.value("dying") == 2  # 1 + wounded 1
    rules.recovery_check(fight, pc, Faces(1))  # critical failure: +2
    assert pc.status == "dead"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.booleans()), min_size=1, max_size=10), st.booleans())
def test_hp_never_goes_below_zero(hits, player):
    fight = duel("pf2e", "bridge_thug", party=MARISOL)
    target = fight.get("Marisol" if player else "Bridge Thug")
    for amount, crit in hits:
        if target.status == "dead":
            break
        rules.hurt(fight, target, amount, crit=crit)
        assert 0 <= target.hp <= target.max_hp
        assert target.value("dying") <= 4
        if target.status == "up":
            assert target.hp > 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 30), st.sampled_from(["party", "foes"])), min_size=2, max_size=8))
def test_initiative_ties_go_to_the_foes_then_by_name(entries):
    people = [Combatant(name=f"C{i}", side=side, system="degrees", initiative=init) for i, (init, side) in enumerate(entries)]
    ordered = sorted(people, key=rules.sort_key)
    assert ordered == sorted(reversed(people), key=rules.sort_key)
    for a, b in zip(ordered, ordered[1:]):
        assert a.initiative >= b.initiative
        if a.initiative == b.initiative and a.side != b.side:
            assert a.side == "foes"


def test_same_seed_same_initiative():
    a, b = (duel("pf2e", "toll_goblin", seed=3, party=["Keth", "Pip", "Marisol"]) for _ in range(2))
    assert a.order == b.order and [c.initiative for c in a.combatants.values()] == [c.initiative for c in b.combatants.values()]


def test_ranged_strike_past_the_first_increment_takes_a_penalty():
    fight = duel("pf2e", "bridge_thug", party=KETH, distance=150)
    _tough(fight, "Bridge Thug")
    put_first(fight, "Keth")
    events = fight.act("Keth", "longbow", "Bridge Thug", Faces(10))
    assert "range -2" in events[0].text
    put_first(fight, "Keth")
    fight.get("Keth").position = -600
    with pytest.raises(CombatError, match="six range increments"):
        fight.act("Keth", "longbow", "Bridge Thug")
    assert random  # keep the import honest
