"""Bootstrap CIs and paired tests other areas import from eval.stats."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.stats import bootstrap_ci, bradley_terry_fit, cluster_bootstrap_ci, harmonic_mean, paired_test


def test_bootstrap_ci_brackets_the_mean_and_is_reproducible():
    values = [1, 0, 1, 1, 0, 1, 1, 0, 1, 1]
    ci = bootstrap_ci(values, B=500, seed=3)
    assert ci.low <= ci.value == 0.7 <= ci.high
    assert bootstrap_ci(values, B=500, seed=3) == ci


def test_bootstrap_of_constant_is_a_point():
    ci = bootstrap_ci([1.0, 1.0, 1.0])
    assert (ci.low, ci.value, ci.high) == (1.0, 1.0, 1.0)


def test_two_column_statistic():
    rows = np.array([[1.0, 0.5], [0.5, 0.5], [1.0, 1.0]])
    ci = bootstrap_ci(rows, stat=lambda r: harmonic_mean(r[:, 0].mean(), r[:, 1].mean()), B=200)
    assert ci.low <= ci.value <= ci.high


def test_cluster_bootstrap_moves_whole_clusters():
    ci = cluster_bootstrap_ci({"e1": [1, 1, 1], "e2": [0, 0, 0]}, B=300)
    assert ci.value == 0.5 and ci.low == 0.0 and ci.high == 1.0


def test_paired_test_finds_a_clear_difference_and_not_a_null_one():
    rng = np.random.default_rng(0)
    a = rng.random(60)
    assert paired_test(a + 0.2, a, B=500).p_value < 0.01
    same = paired_test(a, a, B=500)
    assert same.diff == 0 and same.p_value == 1.0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12),
       st.permutations([0, 1, 2]))
def test_bradley_terry_fit_ignores_player_order_and_which_side_is_written_first(games, order):
    """Games (i, j, wins of i, wins of j): relabelling the players relabels the strengths, and writing
    each game from the other player's side (rows negated, outcomes flipped) changes nothing."""
    games = [g for g in games if g[0] != g[1]]
    if not games:
        return

    def fit(games, flip=False):
        x = np.zeros((len(games), 3))
        for r, (i, j, _, _) in enumerate(games):
            x[r, i], x[r, j] = 1.0, -1.0
        won = np.array([g[2] for g in games], float)
        lost = np.array([g[3] for g in games], float)
        if flip:
            x, won, lost = -x, lost, won
        return bradley_terry_fit(np.concatenate([x, x]), np.r_[np.ones(len(games)), np.zeros(len(games))],
                                 np.r_[won, lost], 3, 0.05)

    base = fit(games)
    assert abs(base.sum()) < 1e-9
    relabelled = fit([(order[i], order[j], a, b) for i, j, a, b in games])
    assert np.allclose(relabelled[order], base, atol=1e-4)
    assert np.allclose(fit(games, flip=True), base, atol=1e-4)
