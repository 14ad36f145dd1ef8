"""Uncertainty for every report: bootstrap confidence intervals and paired tests.

One place for these, imported by MOE, InMind, probes and ratings alike.

* ``bootstrap_ci(values, stat=np.mean)`` — resample items (rows) with replacement.
* ``cluster_bootstrap_ci(values_by_cluster)`` — resample whole clusters (episodes, games).
* ``paired_test(a, b)`` — two systems on the same items: the difference, its bootstrap CI,
  and a paired permutation p-value (swap the two systems' values on random items).
* ``bradley_terry_fit(x, y, w, k, ridge)`` — Bradley-Terry strengths (plus covariates) as a
  penalised logistic regression; the rating study's A/B battles and the tournaments' games.

``values`` may be 1-D (one number per item) or 2-D (one row per item, e.g. per-instance
(precision, recall) for an F-score); ``stat`` maps such an array (rows = items) to a number.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special
from scipy import stats as _sstats

Stat = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class Interval:
    """A point estimate with a confidence interval."""

    value: float
    low: float
    high: float
    level: float = 0.95

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"

    def as_dict(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


def _rows(values: Iterable) -> np.ndarray:
    array = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    return array


def bootstrap_ci(values: Sequence | np.ndarray, stat: Stat = np.mean, B: int = 1000, seed: int = 0, level: float = 0.95) -> Interval:
    """Percentile bootstrap CI of ``stat`` over items (rows of ``values``).

    Uses ``scipy.stats.bootstrap`` (percentile method: BCa degenerates when every
    resample gives the same value, which happens with perfect or all-zero scores).
    """
    rows = _rows(values)
    if len(rows) == 0:
        return Interval(float("nan"), float("nan"), float("nan"), level)
    point = float(stat(rows))
    if len(rows) < 2:
        return Interval(point, point, point, level)
    index = np.arange(len(rows))
    result = _sstats.bootstrap(
        (index,),
        lambda idx, axis=-1: np.apply_along_axis(lambda i: stat(rows[i.astype(int)]), axis, idx),
        n_resamples=B,
        confidence_level=level,
        method="percentile",
        random_state=np.random.default_rng(seed),
        vectorized=True,
    )
    low, high = result.confidence_interval
    return Interval(point, float(low), float(high), level)


def cluster_bootstrap_ci(
    values_by_cluster: Mapping[object, Sequence] | Sequence[Sequence],
    stat: Stat = np.mean,
    B: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Bootstrap that resamples whole clusters (items of one episode or game move together).

    Hand-written because scipy has no cluster bootstrap: draw clusters with replacement,
    pool their items, apply ``stat``; percentile interval.
    """
    clusters = [_rows(v) for v in (values_by_cluster.values() if isinstance(values_by_cluster, Mapping) else values_by_cluster)]
    clusters = [c for c in clusters if len(c)]
    if not clusters:
        return Interval(float("nan"), float("nan"), float("nan"), level)
    point = float(stat(np.concatenate(clusters)))
    if len(clusters) < 2:
        return Interval(point, point, point, level)
    rng = np.random.default_rng(seed)
    draws = np.array([stat(np.concatenate([clusters[i] for i in rng.integers(0, len(clusters), len(clusters))])) for _ in range(B)])
    alpha = (1 - level) / 2
    return Interval(point, float(np.quantile(draws, alpha)), float(np.quantile(draws, 1 - alpha)), level)


@dataclass(frozen=True)
class PairedTest:
    """System A minus system B on the same items."""

    diff: float
    low: float
    high: float
    p_value: float
    n: int

    def __str__(self) -> str:
        return f"Δ={self.diff:+.3f} [{self.low:+.3f}, {self.high:+.3f}], p={self.p_value:.3g} (n={self.n})"

    def as_dict(self) -> dict[str, float]:
        return {"diff": self.diff, "low": self.low, "high": self.high, "p_value": self.p_value, "n": self.n}


def paired_test(a: Sequence | np.ndarray, b: Sequence | np.ndarray, stat: Stat = np.mean, B: int = 2000, seed: int = 0, level: float = 0.95) -> PairedTest:
    """Paired bootstrap CI of stat(a) - stat(b) and a two-sided paired permutation p-value.

    Hand-written because the statistic may be non-linear over 2-D rows (an F-score of mean
    precision and mean recall), which ``scipy.stats.permutation_test`` cannot swap row-wise.
    """
    ra, rb = _rows(a), _rows(b)
    if ra.shape != rb.shape:
        raise ValueError(f"paired_test needs the same items for both systems; got {ra.shape} and {rb.shape}")
    n = len(ra)
    observed = float(stat(ra) - stat(rb))
    if n < 2:
        return PairedTest(observed, observed, observed, 1.0, n)
    rng = np.random.default_rng(seed)
    boots = np.empty(B)
    perms = np.empty(B)
    shape = (n,) + (1,) * (ra.ndim - 1)
    for k in range(B):
        idx = rng.integers(0, n, n)
        boots[k] = stat(ra[idx]) - stat(rb[idx])
        swap = rng.random(n).reshape(shape) < 0.5
        perms[k] = stat(np.where(swap, rb, ra)) - stat(np.where(swap, ra, rb))
    alpha = (1 - level) / 2
    p = (np.sum(np.abs(perms) >= abs(observed) - 1e-12) + 1) / (B + 1)
    return PairedTest(observed, float(np.quantile(boots, alpha)), float(np.quantile(boots, 1 - alpha)), float(min(1.0, p)), n)


def harmonic_mean(p: float, r: float) -> float:
    """F = 2PR/(P+R), 0 when both are 0."""
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def bradley_terry_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, k: int, ridge: float | np.ndarray) -> np.ndarray:
    """Bradley-Terry strengths, centred on 0, then any covariates' coefficients.

    A row of ``x`` is +1 for one side's player, -1 for the other's (columns ``0..k-1``), then the
    covariates (a side advantage, a length difference); ``y`` is 1 where that first side won, ``w``
    the row's weight (a count of games, a share of a tie, a bootstrap draw). Minimises the weighted
    logistic loss plus ``sum(ridge * beta**2)``; ``ridge`` is one number or one per column (0 leaves
    a covariate free), and keeps a player that always won finite.

    Hand-written on scipy's Newton-CG with the exact gradient and Hessian: choix fits plain pairs
    only (no covariates, no weights), and scikit-learn's solver took 90 ms a fit where this takes
    4 ms (a bootstrap needs hundreds of fits); scipy's L-BFGS-B took 55 ms.
    """
    penalty = np.broadcast_to(np.asarray(ridge, dtype=float), (x.shape[1],))

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ beta
        nll = float(np.sum(w * (np.logaddexp(0, z) - y * z)))
        return nll + float(penalty @ beta**2), x.T @ (w * (special.expit(z) - y)) + 2 * penalty * beta

    def hessian(beta: np.ndarray) -> np.ndarray:
        p = special.expit(x @ beta)
        return (x.T * (w * p * (1 - p))) @ x + np.diag(2 * penalty)

    beta = optimize.minimize(loss, np.zeros(x.shape[1]), jac=True, hess=hessian, method="Newton-CG").x
    return np.concatenate([beta[:k] - beta[:k].mean(), beta[k:]])
