"""Call of Cthulhu 7e combat: dodge or fight back, firearms by range, major wounds, Sanity, Luck, pushing."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.combat import CombatError, percentile_winner, push_roll, sanity_roll, skill_roll, spend_luck
from gm.combat import percentile as rules

from .conftest import Faces, duel, put_first

EDDIE = ["Eddie"]  # Fighting (Brawl) 65, .38 revolver (Firearms 45), DEX 50, HP 13, fights back
MARGARET = ["Margaret"]  # Dodge 27 (DEX 55 / 2), HP 10


def d100(value: int) -> tuple[int, int]:
    """The two dice faces that make ``value`` on the d100 (units die, then tens die)."""
    units = value % 10
    tens = 0 if value == 100 else value - units
    return (10 if units == 0 else units), tens


def faces(*values: int, then: tuple[int, ...] = ()) -> Faces:
    out = []
    for v in values:
        out += d100(v)
    return Faces(*out, *then)


@settings(max_examples=200)
@given(st.integers(-1, 4), st.integers(-1, 4), st.integers(1, 99), st.integers(1, 99), st.sampled_from(["skill", "defender", "attacker"]))
def test_opposed_tie_rules(la, lb, va, vb, ties):
    side, rule = percentile_winner(la, lb, va, vb, ties)
    a, b = max(la, 0), max(lb, 0)
    if a == 0 and b == 0:
        assert side is None
    elif a != b:
        assert side == ("a" if a > b else "b")
    elif ties == "attacker":
        assert side == "a"
    elif ties == "defender":
        assert side == "b"
    else:
        assert side == (None if va == vb else "a" if va > vb else "b")
    assert rule


def test_dodge_ties_go_to_the_dodger():
    fight = duel("coc7e", "dock_thug", party=MARGARET)
    put_first(fight, "Dockside Thug")  # Fighting (Brawl) 55 vs Margaret's Dodge 27
    events = fight.act("Dockside Thug", "cosh", "Margaret", faces(40, 20))  # regular vs regular
    assert "dodges" in events[0].text and events[0].hit is False and "dodging" in events[0].text
    assert len(events[0].rolls) == 2 and fight.get("Margaret").hp == 10


def test_fight_back_ties_go_to_the_attacker_and_a_won_fight_back_hurts_the_attacker():
    fight = duel("coc7e", "dock_thug", party=EDDIE)
    thug, eddie = fight.get("Dockside Thug"), fight.get("Eddie")
    put_first(fight, "Dockside Thug")
    tie = fight.act("Dockside Thug", "cosh", "Eddie", faces(50, 60, then=(3, 1)))  # both regular; 1d6 (3) + DB 1d4 (1)
    assert "fights back" in tie[0].text and tie[0].hit is True and "equal levels go to the attacker" in tie[0].text
    assert tie[1].breakdown == "1d6 (3) + 1d4 (1) = 4" and eddie.hp == 13 - 4
    put_first(fight, "Dockside Thug")
    fight.get("Dockside Thug").responses = 0
    eddie.responses = 0
    won = fight.act("Dockside Thug", "cosh", "Eddie", faces(50, 20, then=(2, 2)))  # regular vs hard: Eddie wins
    assert won[0].hit is False and any(e.target == "Dockside Thug" and e.kind == "damage" for e in won)
    assert thug.hp < thug.max_hp


def test_outnumbered_targets_give_later_attackers_a_bonus_die():
    fight = duel("coc7e", "dock_thug", party=MARGARET)
    put_first(fight, "Dockside Thug")
    fight.get("Margaret").responses = 1
    events = fight.act("Dockside Thug", "cosh", "Margaret", Faces(3, 40, 90, 5, 90))
    assert "outnumbered" in events[0].text and "1 bonus" in events[0].rolls[0].breakdown


def test_both_failing_does_no_harm():
    fight = duel("coc7e", "dock_thug", party=MARGARET)
    put_first(fight, "Dockside Thug")
    events = fight.act("Dockside Thug", "cosh", "Margaret", faces(90, 90))
    assert events[0].hit is False and "no winner" in events[0].text and fight.get("Margaret").hp == 10


@pytest.mark.parametrize("feet,level,bonus", [(5, "regular", True), (40, "regular", False), (80, "hard", False), (150, "extreme", False)])
def test_firearms_difficulty_by_range_and_point_blank(feet, level, bonus):
    fight = duel("coc7e", "dock_thug", party=EDDIE, distance=feet)  # .38: base 15 yards = 45 ft; DEX 50 → point-blank 10 ft
    fight.get("Dockside Thug").hp = fight.get("Dockside Thug").max_hp = 99
    put_first(fight, "Eddie")
    events = fight.act("Eddie", ".38 revolver", "Dockside Thug", Faces(5, 90, 90, 4))
    assert f"{level} range" in events[0].text
    assert ("point-blank: a bonus die" in events[0].text) is bonus
    assert ("1 bonus" in events[0].breakdown) is bonus


def test_beyond_extreme_range_is_refused():
    fight = duel("coc7e", "dock_thug", party=EDDIE, distance=200)
    put_first(fight, "Eddie")
    with pytest.raises(CombatError, match="extreme range of 180 ft"):
        fight.act("Eddie", ".38 revolver", "Dockside Thug")


def test_an_extreme_shot_impales():
    fight = duel("coc7e", "dock_thug", party=EDDIE, distance=30)
    fight.get("Dockside Thug").hp = fight.get("Dockside Thug").max_hp = 99
    put_first(fight, "Eddie")
    events = fight.act("Eddie", ".38 revolver", "Dockside Thug", faces(5, then=(4,)))  # 05 <= 45/5: extreme
    assert "extreme success" in events[0].text
    assert events[1].breakdown == "10 + 1d10 (4) = 14" and events[1].amount == 14


def test_a_major_wound_then_zero_hp_is_dying_and_a_failed_con_roll_kills():
    fight = duel("coc7e", "dock_thug", party=MARGARET)
    margaret = fight.get("Margaret")
    fight.damage("Margaret", 5, Faces(*d100(10)))  # half of 10: a major wound; CON 55 roll 10 passes
    assert margaret.major_wound and margaret.status == "up"
    fight.damage("Margaret", 7)
    assert margaret.hp == 0 and margaret.status == "down" and margaret.has("dying")
    rules.start_turn(fight, margaret, Faces(*d100(90)))
    assert margaret.status == "dead"


def test_zero_hp_without_a_major_wound_is_unconscious_not_dying():
    fight = duel("coc7e", "dock_thug", party=EDDIE)
    eddie = fight.get("Eddie")
    for _ in range(4):
        fight.damage("Eddie", 4)
    assert eddie.hp == 0 and eddie.status == "down" and not eddie.has("dying") and not eddie.major_wound


def test_more_than_maximum_hp_at_once_is_death():
    fight = duel("coc7e", "dock_thug", party=MARGARET)
    fight.damage("Margaret", 10)
    assert fight.get("Margaret").status != "dead"  # exactly the maximum: a major wound, not death
    fight2 = duel("coc7e", "dock_thug", party=MARGARET)
    fight2.damage("Margaret", 11)
    assert fight2.get("Margaret").status == "dead"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 15), min_size=1, max_size=10), st.booleans())
def test_hp_goes_to_zero_and_never_below(hits, player):
    fight = duel("coc7e", "dock_thug", party=EDDIE)
    target = fight.get("Eddie" if player else "Dockside Thug")
    for amount in hits:
        if target.status == "dead":
            break
        rules.hurt(fight, target, amount, rng=Faces(seed=amount))
        assert 0 <= target.hp <= target.max_hp


def test_sanity_loss_notation():
    fight = duel("coc7e", "dock_thug", party=EDDIE)
    eddie = fight.get("Eddie")  # Sanity 45
    ok = sanity_roll(eddie, "1/1d6", faces(30))
    assert eddie.sanity == 44 and "loses 1" in ok[0].text and "1/1d6" in ok[0].text
    bad = sanity_roll(eddie, "1/1d6", faces(80, then=(4,)))
    assert eddie.sanity == 40 and "1d6 (4)" in bad[0].breakdown
    fumble = sanity_roll(eddie, "0/1d4+1", faces(100))
    assert eddie.sanity == 35 and "fumble" in fumble[0].text
    with pytest.raises(CombatError, match="success/failure"):
        sanity_roll(eddie, "1d6")


def test_losing_five_at_once_calls_for_an_int_roll():
    fight = duel("coc7e", "dock_thug", party=EDDIE)
    eddie = fight.get("Eddie")
    events = sanity_roll(eddie, "0/1d10", faces(90, then=(8, *d100(30))), fight)  # lose 8; INT 60: roll 30 succeeds
    assert eddie.sanity == 37 and len(events) == 2 and "INT 30" in events[1].text
    assert eddie.has("temporarily insane")


def test_seeing_a_horror_costs_sanity_at_the_start():
    from gm.combat import start_encounter

    from .conftest import sheets

    fight = start_encounter("lighthouse_horror", sheets("coc7e"), Faces(seed=2))
    rolls = [e for e in fight.log if e.kind == "sanity" and "Sanity roll" in e.text]
    assert len(rolls) == 3 and all("Hollow Hound" in e.text and "(0/1d6)" in e.text for e in rolls)


def test_spending_luck_and_pushing():
    fight = duel("coc7e", "dock_thug", party=EDDIE)
    eddie = fight.get("Eddie")  # Luck 40; Psychology 45; Spot Hidden 50
    miss = skill_roll(eddie, "psychology", faces(52))
    assert not miss.ok
    made = spend_luck(eddie, miss)
    assert made.ok and made.luck_spent == 7 and eddie.luck == 33
    far = skill_roll(eddie, "psychology", faces(95))
    with pytest.raises(CombatError, match="needs 50 Luck"):
        spend_luck(eddie, far)
    pushed = push_roll(eddie, far, faces(80), consequence="Eddie insults the wrong man")
    assert pushed.pushed and not pushed.ok and "Eddie insults the wrong man" in pushed.consequence
    with pytest.raises(CombatError, match="already pushed"):
        push_roll(eddie, pushed)
    with pytest.raises(CombatError, match="pushed roll"):
        spend_luck(eddie, pushed)
    with pytest.raises(CombatError, match="cannot be pushed"):
        push_roll(eddie, skill_roll(eddie, "fighting_brawl", faces(99)))


def test_luck_can_rescue_a_missed_shot():
    fight = duel("coc7e", "dock_thug", party=EDDIE, distance=30)
    fight.get("Dockside Thug").hp = fight.get("Dockside Thug").max_hp = 99
    put_first(fight, "Eddie")
    events = fight.act("Eddie", ".38 revolver", "Dockside Thug", faces(50, then=(3,)), spend_luck=True)
    assert events[0].hit and "5 Luck spent" in events[0].text and fight.get("Eddie").luck == 35


def test_order_is_by_dex_without_a_roll():
    fight = duel("coc7e", "dock_thug", party=["Tomas", "Eddie"])
    dex = [fight.combatants[n].initiative for n in fight.order]
    assert dex == sorted(dex, reverse=True) and all(not e.rolls for e in fight.log if e.kind == "initiative")
