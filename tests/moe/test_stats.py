"""Bootstrap CIs and paired tests other areas import from eval.stats."""
import numpy as np

from eval.stats import bootstrap_ci, cluster_bootstrap_ci, harmonic_mean, paired_test


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
