"""The two pieces every ``vgm play learn`` fit shares: one logistic regression, and folds by episode."""
from __future__ import annotations

from typing import Any

import numpy as np


def logistic(strength: float = 1.0, **kw: Any):
    """An unfitted scikit-learn logistic regression (``strength`` is its C), as every part of the build uses."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=strength, max_iter=4000, **kw)


def episode_folds(episodes: np.ndarray, n: int) -> list[np.ndarray]:
    """``n`` boolean masks over ``episodes``, each holding out whole episodes (the same split every build)."""
    ordered = sorted(set(np.asarray(episodes).tolist()))
    return [np.isin(episodes, ordered[i::n]) for i in range(n)]
