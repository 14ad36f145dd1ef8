"""Reading the dice the way each rule system does, and setting difficulty with a reason."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gm.adjudication import Difficulty, choose_difficulty, judge, player_roll
from gm.characters import RollPlan
from gm.dice import BadDice, Roll


def _roll(total, faces=None):
    return Roll(expression="x", total=total, breakdown=str(total), faces=faces if faces is not None else [total])


COC = RollPlan(system="percentile", check="spot_hidden", check_name="Spot Hidden", value=60)


@pytest.mark.parametrize("rolled,outcome", [
    (1, "critical success"), (12, "extreme success"), (13, "hard success"), (30, "hard success"),
    (31, "regular success"), (60, "regular success"), (61, "failure"), (99, "failure"), (100, "fumble"),
])
def test_coc_success_levels(rolled, outcome):
    assert judge(COC, Difficulty(system="percentile", level="regular"), _roll(rolled))[0] == outcome


def test_coc_hard_difficulty_needs_half_and_low_skills_fumble_at_96():
    hard = Difficulty(system="percentile", level="hard")
    assert judge(COC, hard, _roll(45)) == ("failure (regular success, needed hard)", False)
    assert judge(COC, hard, _roll(30)) == ("hard success", True)
    low = COC.model_copy(update={"value": 40})
    assert judge(low, Difficulty(system="percentile"), _roll(96))[0] == "fumble"
    assert hard.label(COC) == "Hard (30)"


PF2 = RollPlan(system="degrees", check="athletics", check_name="Athletics", modifier=8)


@pytest.mark.parametrize("total,face,outcome", [
    (26, 18, "critical success"), (16, 8, "success"), (15, 7, "failure"), (7, 2, "failure"), (6, 3, "critical failure"),
    (16, 1, "failure"),  # a natural 1 drops a success one degree
    (14, 20, "success"),  # a natural 20 lifts a failure one degree
])
def test_pf2e_degrees_of_success(total, face, outcome):
    assert judge(PF2, Difficulty(system="degrees", target=16), _roll(total, [face]))[0] == outcome


SW = RollPlan(system="trait", check="notice", check_name="Notice", die="d8", wild=True)


@pytest.mark.parametrize("total,faces,outcome", [
    (3, [3, 2], "failure"), (4, [4, 1], "success"), (8, [8, 3], "success with 1 raise"), (13, [13, 2], "success with 2 raises"),
    (-1, [1, 1], "critical failure (snake eyes)"),
])
def test_swade_raises_and_snake_eyes(total, faces, outcome):
    assert judge(SW, Difficulty(system="trait", target=4), _roll(total, faces))[0] == outcome


def test_dnd_death_save_and_initiative():
    death = RollPlan(system="d20", check="death_save", check_name="Death Saving Throw")
    d = choose_difficulty("d20", "death_save", "I cling to life")
    assert d.target == 10
    assert judge(death, d, _roll(20, [20]))[1] is True
    assert "two failures" in judge(death, d, _roll(1, [1]))[0]
    init = choose_difficulty("d20", "initiative", "I draw my sword")
    assert init.target is None
    assert judge(RollPlan(system="d20", check="initiative", check_name="Initiative"), init, _roll(14, [12])) == ("rolled 14", None)


@given(total=st.integers(-10, 60), dc=st.integers(5, 30))
def test_dnd_success_iff_total_meets_dc(total, dc):
    plan = RollPlan(system="d20", check="stealth", check_name="Stealth")
    assert judge(plan, Difficulty(system="d20", target=dc), _roll(total, [10]))[1] == (total >= dc)


def test_difficulty_words_nudge_and_say_why():
    assert choose_difficulty("d20", "stealth", "I sneak past").target == 15
    hard = choose_difficulty("d20", "stealth", "I sneak past quickly")
    assert hard.target == 20 and "quickly" in hard.reason
    easy = choose_difficulty("d20", "stealth", "I carefully sneak past")
    assert easy.target == 10 and "carefully" in easy.reason
    assert choose_difficulty("d20", "stealth", "I sneak with advantage").advantage == 1
    assert choose_difficulty("percentile", "spot_hidden", "I quickly look").level == "hard"
    assert choose_difficulty("trait", "notice", "I look in the dark").modifier == -2
    assert choose_difficulty("degrees", "athletics", "I climb").target == 15  # level-1 DC


def test_scenario_secret_sets_the_number(tmp_path):
    import rulesets
    from gm.table import load_scenario

    scen = load_scenario("drowned_chapel", rulesets.load("dnd5e"))
    d = choose_difficulty("d20", "investigation", "I search the altar", scen)
    # the reason players read says the scene set it, never which secret (its id would give it away)
    assert (d.target, d.secret) == (14, "altar_catch") and "scene sets it" in d.reason and "altar" not in d.reason
    # once found, the secret no longer sets the DC; an action no keyword matches gets the default
    assert choose_difficulty("d20", "investigation", "I search the altar", scen, {"altar_catch"}).target == 15
    assert choose_difficulty("d20", "investigation", "I look at the pews", scen).secret is None


def test_player_typed_rolls_are_checked():
    plan = RollPlan(system="d20", check="stealth", check_name="Stealth", modifier=7)
    d = Difficulty(system="d20", target=15)
    assert player_roll(plan, d, "12").total == 19
    for bad in ("21", "0", "banana"):
        with pytest.raises(BadDice):
            player_roll(plan, d, bad)
    with pytest.raises(BadDice, match="1 to 100"):
        player_roll(COC, Difficulty(system="percentile"), "101")
    with pytest.raises(BadDice, match="exploding d8"):
        player_roll(SW, Difficulty(system="trait", target=4), "8 3")  # a d8 never stops on 8
    assert player_roll(SW, Difficulty(system="trait", target=4), "11 3").total == 11
