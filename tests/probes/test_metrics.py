"""Each belief figure on a tiny game computed by hand, plus properties that must hold for any input."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.beliefs import BeliefGame, Vote, brier, cluster_bootstrap, ece, score_games
from eval.beliefs import _metrics as m
from pipelines.probes import ProbeRecord


def rec(player, probe_id, answer, rnd=1, seq=1, players=("A", "B", "C", "D")):
    return ProbeRecord(round=rnd, public_msg_seq=seq, player_idx=list(players).index(player), player=player,
                       probe_seq=0, probe_id=probe_id, answer_parsed=answer, parse_ok=True)


def ra(**guesses):
    return [{"player": p, "guessed_role": g, "confidence": c} for p, (g, c) in guesses.items()]


def sm(**att):
    return {"toward_me": [{"player": p, "attitude": a, "confidence": 50} for p, a in att.items()]}


def sr(*pairs):
    return [{"player": p, "score": s} for p, s in pairs]


@pytest.fixture
def game():
    """A, B villagers, C Mafia, D Doctor; C is voted out after step 1.4 (position 1.5)."""
    probes = [
        rec("A", "role_assessment", ra(B=("Villager", 80), C=("Mafia", 60), D=("Unknown", 10))),
        rec("B", "role_assessment", ra(A=("Mafia", 90), C=("Villager", 40), D=("Doctor", 100))),
        rec("C", "role_assessment", ra(A=("Villager", 70), B=("Unknown", 0))),
        rec("A", "social_map", sm(B="suspects", C="trusts", D="neutral")),
        rec("B", "social_map", sm(A="suspects", C="suspects")),
        rec("C", "social_map", sm(A="neutral", B="suspects")),
        rec("A", "suspicion_ranking", sr(("C", 90), ("B", 20), ("D", 10))),
        rec("A", "suspicion_ranking", sr(("B", 50), ("C", 50), ("D", 0)), seq=2),
        rec("A", "suspicion_ranking", sr(("C", 80), ("B", 10), ("D", 10)), seq=3),
        rec("B", "suspicion_ranking", sr(("A", 70), ("C", 60))),
        rec("C", "suspicion_ranking", sr(("B", 50), ("A", 40))),
        rec("D", "suspicion_ranking", sr(("C", 90), ("A", 10))),
        rec("D", "suspicion_ranking", sr(("A", 80), ("B", 20)), rnd=2),
    ]
    return BeliefGame(
        game_id="t", players=["A", "B", "C", "D"], roles={"A": "Villager", "B": "Villager", "C": "Mafia", "D": "Doctor"},
        deaths={"C": (1, 4.5)}, votes=[Vote(1, 4, "A", "C"), Vote(1, 4, "B", "A"), Vote(1, 4, "C", "A")], probes=probes,
    )


def test_first_order_accuracy_unknown_share_and_chance(game):
    rows = m.first_order_rows(game)
    assert len(rows) == 6  # villager side only: A and B, three targets each
    assert m.accuracy(rows) == pytest.approx(3 / 5)  # Unknown left out
    assert m.unknown_share(rows) == pytest.approx(1 / 6)
    assert m.accuracy_chance(rows) == pytest.approx(1 / 3)


def test_mafia_recall_counts_wrong_guesses_as_misses(game):
    rows = m.mafia_recall_rows(game)
    assert rows[:, 1].mean() == pytest.approx(0.5) and rows[:, 2].mean() == pytest.approx(1 / 3)


def test_calibration_ece_and_brier_by_hand(game):
    rows = m.calibration_rows(game)
    # bins 80-100: (.8,1) (.9,0) (1.0,1) → |2/3 - .9| * 3/5; 60-79: (.6,1) → .4 * 1/5; 40-59: (.4,0) → .4 * 1/5
    assert ece(rows) == pytest.approx(0.14 + 0.08 + 0.08)
    assert brier(rows) == pytest.approx((0.04 + 0.16 + 0.81 + 0.16 + 0.0) / 5)
    bins = m.reliability_bins(rows)
    assert [b["n"] for b in bins] == [0, 0, 1, 1, 3] and bins[-1]["bin"] == "80-100"


def test_second_order_overprediction_agreement_and_split(game):
    rows = m.second_order_rows(game)
    assert len(rows) == 6  # pairs with a same-step role guess of the predictor
    assert m.overprediction(50)(rows) == pytest.approx(4 / 2)
    assert m.agreement(50)(rows) == pytest.approx(2 / 6)
    assert m.majority_baseline(50)(rows) == pytest.approx(1 / 3)
    assert m.overprediction(50)(m.select(rows, 4, 0)) == pytest.approx(3.0)  # innocents
    assert m.overprediction(50)(m.select(rows, 4, 1)) == pytest.approx(1.0)  # the Mafioso
    assert m.overprediction(70)(rows) == pytest.approx(4 / 1)
    assert m.overprediction(30)(rows) == pytest.approx(4 / 2)


def test_mafia_mafia_pairs_are_excluded(game):
    game.roles["B"] = "Mafia"
    rows = m.second_order_rows(game)
    assert len(rows) == 4  # B→C and C→B dropped


def test_attitude_mapping_at_threshold():
    assert m.attitude_from_guess("Mafia", 50, 50) == m.SUSPECTS
    assert m.attitude_from_guess("Mafia", 49, 50) == m.NEUTRAL
    assert m.attitude_from_guess("Doctor", 80, 50) == m.TRUSTS
    assert m.attitude_from_guess("Unknown", 100, 50) == m.NEUTRAL


def test_vote_coupling_uses_the_latest_ranking_before_the_vote(game):
    rows = m.vote_rows(game)
    innocent, mafia = m.select(rows, 0, 0), m.select(rows, 0, 1)
    # A's latest ranking before 1.4 is the one at 1.3 (top C); B's top is A; C's top is B but C votes A
    assert innocent[:, 1].tolist() == [1.0, 1.0] and innocent[:, 2].tolist() == pytest.approx([1 / 3, 1 / 3])
    assert mafia[:, 1].tolist() == [0.0]
    assert innocent[:, 3].tolist() == [1.0, 1.0]  # the vote is inside each one's committed-Mafia set


def test_volatility_flip_and_return_with_death_forced_flip_excluded(game):
    rows = m.dynamics_rows(game)
    a = rows[: 2]  # A's two consecutive pairs come first
    assert a[:, 1].tolist() == pytest.approx([2 / 3, 0.8])
    assert a[:, 2].tolist() == [1.0, 1.0]
    assert a[:, 3].tolist() == [0.0, 1.0]  # the second flip returns to C, abandoned before
    d = rows[-1]  # D's top suspect C died: not a flip, and one common player is no support
    assert math.isnan(d[1]) and math.isnan(d[2])


def test_report_has_every_figure_named(game):
    r = score_games([game, game], b=50)
    for key in ("ece", "brier", "overprediction_ratio", "volatility", "flip_rate", "return_rate", "first_order_accuracy",
                "mafia_recall", "agreement", "agreement_gain", "threshold_sweep", "vote_coupling", "parse_rate", "calibration_bins"):
        assert key in r
    assert r["overprediction_ratio"]["value"] == pytest.approx(2.0)
    assert r["ece"]["ci"] == pytest.approx([0.3, 0.3])  # identical games: no spread


def test_cluster_bootstrap_resamples_games_with_a_fixed_seed():
    games = [np.array([[1.0]]), np.array([[0.0]]), np.array([[1.0], [1.0]])]
    mean = lambda rows: float(rows[:, 0].mean())  # noqa: E731
    v1, ci1 = cluster_bootstrap(games, mean, b=300, seed=5)
    v2, ci2 = cluster_bootstrap(games, mean, b=300, seed=5)
    assert v1 == pytest.approx(0.75) and ci1 == ci2
    assert 0.0 <= ci1[0] <= v1 <= ci1[1] <= 1.0


# ---- properties ----------------------------------------------------------------------------------------------
conf_correct = st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60)


@given(conf_correct)
@settings(max_examples=200, deadline=None)
def test_ece_and_brier_stay_in_bounds(items):
    rows = np.array([(c, float(k)) for c, k in items])
    assert 0.0 <= ece(rows) <= 1.0
    assert 0.0 <= brier(rows) <= 1.0


@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=40))
@settings(max_examples=100, deadline=None)
def test_perfect_calibration_gives_zero(outcomes):
    rows = np.array([(o, o) for o in outcomes])  # certain and always right / zero confidence and always wrong
    assert ece(rows) == pytest.approx(0.0) and brier(rows) == pytest.approx(0.0)


@given(st.integers(1, 10), st.integers(0, 10))
@settings(max_examples=60, deadline=None)
def test_bin_accuracy_matching_confidence_gives_zero_ece(k, extra):
    n = 10 + extra  # in the 60-79 bin, 7 in 10 right at confidence 0.7
    rows = np.array([(0.7, 1.0)] * (7 * n) + [(0.7, 0.0)] * (3 * n))
    assert ece(rows) == pytest.approx(0.0, abs=1e-12)


@given(st.lists(st.integers(0, 100), min_size=2, max_size=6), st.integers(2, 8))
@settings(max_examples=60, deadline=None)
def test_volatility_is_zero_for_constant_beliefs(scores, steps):
    names = ["A", "B", "C", "D", "E", "F", "G"][: len(scores) + 1]
    ranking = [{"player": n, "score": s} for n, s in zip(names[1:], scores)]
    probes = [ProbeRecord(round=1, public_msg_seq=i, player_idx=0, player="A", probe_seq=0, probe_id="suspicion_ranking",
                          answer_parsed=ranking, parse_ok=True) for i in range(1, steps + 1)]
    g = BeliefGame(game_id="c", players=names, roles={n: "Villager" for n in names}, probes=probes)
    rows = m.dynamics_rows(g)
    vals = rows[~np.isnan(rows[:, 1]), 1]
    assert np.allclose(vals, 0.0)
    flips = rows[~np.isnan(rows[:, 2]), 2]
    assert not flips.any()


@given(st.lists(st.lists(st.integers(0, 100), min_size=3, max_size=3), min_size=2, max_size=6))
@settings(max_examples=60, deadline=None)
def test_volatility_is_an_l1_between_distributions(vectors):
    probes = [ProbeRecord(round=1, public_msg_seq=i, player_idx=0, player="A", probe_seq=0, probe_id="suspicion_ranking",
                          answer_parsed=[{"player": n, "score": s} for n, s in zip("BCD", v)], parse_ok=True)
              for i, v in enumerate(vectors, 1)]
    g = BeliefGame(game_id="c", players=list("ABCD"), roles=dict.fromkeys("ABCD", "Villager"), probes=probes)
    rows = m.dynamics_rows(g)
    vals = rows[~np.isnan(rows[:, 1]), 1] if len(rows) else np.array([])
    assert ((vals >= -1e-12) & (vals <= 2 + 1e-12)).all()
