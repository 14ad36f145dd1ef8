"""Opposed rolls in and out of a fight: Stealth vs (passive) Perception, grapples, CoC skill contests, SWADE tests."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gm.combat import CombatError, contestant, monster, opposed
from gm.systems import find_character

from .conftest import Faces, pack, sheets


def _sheet(ruleset, name):
    return find_character(name, sheets(ruleset))


def test_stealth_against_passive_perception_meets_like_a_dc():
    rs = pack("dnd5e")
    brisa, goblin = _sheet("dnd5e", "Brisa"), monster("dnd5e", "goblin")  # Stealth +7 (expertise); passive Perception 9
    tie = opposed("dnd5e", contestant(brisa, "stealth", rs), contestant(goblin, "perception", rs, passive=True), Faces(2))
    assert tie.b.roll is None and tie.b.breakdown == "passive 10 -1 = 9"
    assert tie.a.total == 9 and tie.tie and tie.winner == brisa.name
    low = opposed("dnd5e", contestant(goblin, "stealth", rs), contestant(_sheet("dnd5e", "Ilya"), "Perception", rs, passive=True), Faces(3))
    assert low.a.total == 9 and low.b.total == 10 and low.winner == "Ilya Thorncastle"
    assert "passive Perception" in low.text and len(low.breakdowns) == 2


@given(st.integers(1, 20), st.integers(1, 20))
def test_d20_contest_ties_keep_the_status_quo(fa, fb):
    rs = pack("dnd5e")
    a, b = _sheet("dnd5e", "Ilya"), _sheet("dnd5e", "Oskar")  # Athletics +5 and +2
    result = opposed("d20", contestant(a, "athletics", rs), contestant(b, "athletics", rs), Faces(fa, fb))
    ta, tb = fa + 5, fb + 2
    assert (result.a.total, result.b.total) == (ta, tb)
    assert result.winner == (a.name if ta > tb else b.name)
    assert result.tie == (ta == tb)
    assert result.a.breakdown.startswith(f"1d20 ({fa})") and result.b.breakdown.startswith(f"1d20 ({fb})")


def test_grapple_takes_the_better_of_athletics_or_acrobatics():
    import random

    from gm.combat import start_combat

    fight = start_combat("dnd5e", [_sheet("dnd5e", "Ilya")], [{"monster": "wolf", "distance": 5}], random.Random(1))
    from .conftest import put_first

    put_first(fight, "Ilya")
    events = fight.act("Ilya", "grapple", "Wolf", Faces(10, 10))  # Ilya Athletics 15 vs the wolf's Acrobatics (+2) 12
    assert "Acrobatics" in events[0].text and events[0].hit


def test_pf2e_contest_is_a_roll_against_the_other_side_s_dc():
    rs = pack("pf2e")
    keth, lurker = _sheet("pf2e", "Keth"), monster("pf2e", "river_lurker")  # Stealth +8 vs Perception DC 18
    meets = opposed("pf2e", contestant(keth, "stealth", rs), contestant(lurker, "perception", rs), Faces(10))
    assert meets.b.total == 18 and meets.b.roll is None and meets.a.total == 18 and meets.winner == keth.name
    assert meets.a.level_name == "success"
    crit = opposed("pf2e", contestant(keth, "stealth", rs), contestant(lurker, "perception", rs), Faces(20))
    assert crit.a.level_name == "critical success" and crit.raises == 1


def test_coc_skill_contest_compares_levels_then_skills():
    rs = pack("coc7e")
    tomas, cultist = _sheet("coc7e", "Tomas"), monster("coc7e", "cultist")  # Stealth 45 vs Listen 45
    both_regular = opposed("coc7e", contestant(tomas, "stealth", rs), contestant(cultist, "listen", rs), Faces(10, 40, 10, 30))
    assert both_regular.winner is None and "draw" in both_regular.rule  # equal levels, equal skills
    rs_spot = opposed("coc7e", contestant(tomas, "spot hidden", rs), contestant(cultist, "stealth", rs), Faces(10, 40, 10, 30))
    assert rs_spot.winner == tomas.name and "higher skill" in rs_spot.rule  # 65 against 40, both regular
    better = opposed("coc7e", contestant(tomas, "stealth", rs), contestant(cultist, "listen", rs), Faces(5, 0, 10, 30))
    assert better.winner == tomas.name and better.a.level_name == "extreme success"


def test_swade_actor_needs_four_and_ties_go_to_the_defender():
    rs = pack("swade")
    dutch, jumper = _sheet("swade", "Dutch"), monster("swade", "claim_jumper")  # Stealth d6 (wild) vs Notice d6
    tie = opposed("swade", contestant(dutch, "stealth", rs), contestant(jumper, "notice", rs), Faces(5, 2, 5))
    assert tie.a.total == tie.b.total == 5 and tie.winner == jumper.name and tie.tie
    low = opposed("swade", contestant(dutch, "stealth", rs), contestant(jumper, "notice", rs), Faces(3, 2, 1))
    assert low.winner == jumper.name and "at least 4" in low.rule
    win = opposed("swade", contestant(dutch, "stealth", rs), contestant(jumper, "notice", rs), Faces(6, 4, 2, 1))
    assert win.winner == dutch.name and win.a.total == 10 and win.raises == 2


def test_unknown_system_is_one_line():
    with pytest.raises(CombatError, match="no opposed rolls") as err:
        opposed("avalon", None, None)
    assert "\n" not in str(err.value)
