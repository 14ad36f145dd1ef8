"""Cluster bootstrap over games: resample whole games, recompute the figure, take percentiles.

Probe answers within a game are far from independent (the same agents, the same evidence), so
the unit resampled is the game, as in MafiaScope (B = 1000, fixed seed).

Not ``eval.stats.cluster_bootstrap_ci``: belief figures are ratios that are often undefined in
a resample (no actual "suspects" pair, no flip), and those draws must be skipped, not turned
into NaN intervals; rows also keep several columns per item.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

B_DEFAULT = 1000
SEED_DEFAULT = 20260729


def _stack(parts: Sequence[np.ndarray], width: int) -> np.ndarray:
    parts = [p for p in parts if p.size]
    return np.vstack(parts) if parts else np.empty((0, width))


def cluster_bootstrap(
    per_game: Sequence[np.ndarray],
    stat: Callable[[np.ndarray], float | None],
    *,
    b: int = B_DEFAULT,
    seed: int = SEED_DEFAULT,
    level: float = 0.95,
) -> tuple[float | None, tuple[float, float] | None]:
    """(point estimate, (lo, hi) percentile interval) of ``stat`` over rows pooled from games.

    ``per_game`` holds one 2-D array of rows per game; ``stat`` maps pooled rows to a number
    (or None when undefined, e.g. an empty denominator; such resamples are skipped).
    """
    width = max((p.shape[1] for p in per_game if p.ndim == 2 and p.size), default=1)
    point = stat(_stack(per_game, width))
    if point is None or len(per_game) == 0:
        return point, None
    rng = np.random.default_rng(seed)
    draws = []
    n = len(per_game)
    for _ in range(b):
        pick = rng.integers(0, n, size=n)
        value = stat(_stack([per_game[i] for i in pick], width))
        if value is not None and np.isfinite(value):
            draws.append(value)
    if not draws:
        return point, None
    alpha = (1 - level) / 2
    lo, hi = np.quantile(draws, [alpha, 1 - alpha])
    return float(point), (float(lo), float(hi))
