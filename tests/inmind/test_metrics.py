"""Each InMind metric against a value worked out by hand."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval.inmind.metrics import (
    baseline_match,
    clean_ranking,
    exact_match,
    fill_correct,
    read_role,
    role_scores,
    score_fills,
    top_k,
    weighted_game_score,
)
from eval.inmind.roles import relaxed_group
from eval.inmind.tasks import ROUND_WEIGHTS, round_weights

TRUTH = {"1": "loyal_servant", "2": "merlin", "3": "percival", "4": "loyal_servant", "5": "morgana", "6": "assassin"}


def test_top_k_and_baseline_match():
    ranking = clean_ranking(["Player C", "a", "玩家B", "C", "Z"], ["A", "B", "C", "D", "E", "F"])
    assert ranking == ["C", "A", "B"]  # repeats and unknown labels dropped
    assert not top_k(ranking, "A", 1) and top_k(ranking, "A", 3)
    assert baseline_match(ranking, ["C", "D"]) and not baseline_match(ranking, ["D", "C"])
    assert not baseline_match([], ["C"])


def test_fills_compare_seat_sets_and_exact_non_seat_digits():
    assert fill_correct("16", "61") and fill_correct("16", [1, 6]) and fill_correct("3", "3号")
    assert not fill_correct("16", "1") and not fill_correct("3", None) and not fill_correct("16", "166")
    assert fill_correct("2", "2", is_seat=False) and not fill_correct("12", "21", is_seat=False)


def test_per_span_and_per_text_exact_match_by_hand():
    gold = {"MASK_1": "2", "MASK_2": "34", "MASK_3": "5"}
    correct = score_fills(gold, {"mask_1": "2", "MASK_2": "43", "MASK_3": "6"})
    assert correct == {"MASK_1": True, "MASK_2": True, "MASK_3": False}
    assert exact_match(correct) is False  # one of three wrong
    assert exact_match(correct, ["MASK_1", "MASK_2"]) is True  # a trace made of the first two spans
    assert score_fills(gold, None) == {k: False for k in gold}


def test_role_scores_strict_and_relaxed_by_hand():
    # seat 2 Merlin called Percival (same relaxed group), seat 5 Morgana called Assassin (same
    # group), seat 4 loyal called Merlin (wrong group), seat 6 missing (wrong).
    predicted = {"Player 1": "忠臣", "2": "Percival", "3": "派西维尔", "4": "Merlin", "5": "刺客"}
    strict, relaxed = role_scores(TRUTH, predicted)
    assert strict == pytest.approx(2 / 6)  # seats 1 and 3
    assert relaxed == pytest.approx(4 / 6)  # seats 1, 2, 3, 5


def test_relaxed_groups_follow_the_paper():
    assert {relaxed_group(r) for r in ("merlin", "percival")} == {"informed_good"}
    assert relaxed_group("loyal_servant") == "uninformed_good"
    assert {relaxed_group(r) for r in ("morgana", "assassin")} == {"evil"}


def test_read_role_takes_aliases_and_rejects_nonsense():
    assert read_role("[梅林]") == "merlin" and read_role("Loyal Servant of Arthur") == "loyal_servant"
    assert read_role("unknown") is None and read_role(None) is None


def test_released_round_weights():
    assert ROUND_WEIGHTS[5] == (0.1, 0.25, 0.3, 0.25, 0.1)
    assert ROUND_WEIGHTS[4] == (0.1, 0.25, 0.35, 0.3)
    assert ROUND_WEIGHTS[3] == (0.2, 0.4, 0.4)
    assert ROUND_WEIGHTS[2] == (0.4, 0.6)
    assert ROUND_WEIGHTS[1] == (1.0,)


def test_weighted_game_score_by_hand():
    # three rounds scoring 0.5, 1.0, 0.0 -> .2*.5 + .4*1 + .4*0 = 0.5
    assert weighted_game_score({1: 0.5, 2: 1.0, 3: 0.0}, round_weights(3)) == pytest.approx(0.5)
    # a missing round counts as zero
    assert weighted_game_score({2: 1.0}, round_weights(2)) == pytest.approx(0.6)


@given(st.integers(min_value=1, max_value=12))
def test_weights_sum_to_one(n):
    assert math.isclose(sum(round_weights(n)), 1.0)


@given(st.dictionaries(st.sampled_from(list(TRUTH)), st.sampled_from(["merlin", "percival", "loyal_servant", "morgana", "assassin"])))
def test_relaxed_is_never_below_strict(predicted):
    strict, relaxed = role_scores(TRUTH, predicted)
    assert 0 <= strict <= relaxed <= 1
