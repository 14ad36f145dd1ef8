"""How a line is worded, and what that changes in the roll decision (built by ``vgm play learn``).

Lines written for the GM ("I climb the wall to the window") and the loose talk of a real table
("wait, is he, like, still looking at us?") call for different witnesses: the packs' example
lines are right on most written lines and little help on real talk; the model learned from the
real DM is the other way round. Two fits, both from training data only:

- **the style gate**: P(worded like the example lines), logistic regression over the line's
  vector, every training player turn against every example line of the installed games; each
  turn's and line's own style comes from a gate that did not see it.
- **the worded roll**: ``LearnedDecision.p_play`` moves the real-DM probability by the example
  lines' share against needing no roll (a line that sits near impossible acts is not pushed
  towards "no roll": that would tell it as done without dice), as far as the line is worded like
  them (style to a power). Its three
  numbers are the ones that best sort the packs' own check and no-roll lines (each voted on by a
  pack without it) into roll and no roll, among those that leave the held-out real training turns
  as they were: ranking (ROC AUC) no more than ``REAL_AUC_SLACK`` lower, no more negatives
  rolled, recall still at the target.
"""
from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

import rulesets
from pipelines.check_index import NO_ROLL, CheckIndex, pack_examples
from pipelines.decide.features import LineFeatures, previous_block, surface, vote_features
from pipelines.decide.learned import LearnedDecision
from pipelines.vector_store import embed_cached

from ._logistic import logistic

__all__ = ["style_gate", "worded_roll", "as_written", "fold_of", "PACK_FOLDS"]

PACK_FOLDS = 5          # a pack's example lines are voted on a fifth at a time, by the pack without them
POWERS = (1.0, 2.0, 3.0, 4.0)
VOTE_WEIGHTS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
BIASES = (-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0)
REAL_AUC_SLACK = 0.015  # how much held-out real ranking the written lines may cost
RECALL_SLACK = 0.01


def fold_of(text: str) -> int:
    """A line's fold, the same in every build."""
    return zlib.crc32(text.encode()) % PACK_FOLDS


def style_gate(turn_lines: np.ndarray, example_texts: list[str], folds: int) -> tuple[dict[str, Any], np.ndarray, dict[str, float]]:
    """``(section, turn_style, example_style)``: the model file's ``style`` section, and each
    training turn's and example line's style from a gate that did not see it."""
    from sklearn.model_selection import cross_val_predict

    examples = embed_cached(example_texts)
    x = np.vstack([turn_lines, examples])
    y = np.r_[np.zeros(len(turn_lines)), np.ones(len(examples))]
    held = cross_val_predict(logistic(class_weight="balanced"), x, y, cv=folds, method="predict_proba")[:, 1]
    gate = logistic(class_weight="balanced").fit(x, y)
    section = {"weights": gate.coef_[0].tolist(), "bias": float(gate.intercept_[0])}
    return section, held[: len(turn_lines)], dict(zip(example_texts, held[len(turn_lines):].tolist()))


def as_written(index: CheckIndex, vector: np.ndarray, text: str) -> LineFeatures:
    """A pack's example line as play would read it said on its own: no scene, the GM spoke last,
    and ``index`` (the pack without the line) voting on it."""
    width = vector.shape[0]
    return LineFeatures(line=vector[None], scene=embed_cached([" "]), previous=previous_block(None, True, width)[None],
                        vote=vote_features(index, vector, text)[None], surface=surface(text, "")[None])


def _pack_roll_rows(roll: LearnedDecision, packs: list[str], example_style: dict[str, float]) -> list[tuple[float, float, float, bool]]:
    """(p_roll, style, 1 - vote_no_roll, rolls) of every check and no-roll example line of ``packs``,
    as play would read it if the pack had never seen the line."""
    rows = []
    for name in packs:
        pack = rulesets.load(name)
        own = [(lab, text) for lab, text in pack_examples(pack) if lab in pack.checks or lab == NO_ROLL]
        if not own:
            continue
        index = CheckIndex.for_pack(pack)
        vectors = embed_cached([text for _, text in own])
        for fold in range(PACK_FOLDS):
            voter = index.without({text for _, text in own if fold_of(text) == fold})
            for (label, text), vector in zip(own, vectors):
                if fold_of(text) != fold:
                    continue
                blocks = as_written(voter, vector, text)
                p = float(roll.p_roll(blocks.matrix(roll.blocks))[0])
                rows.append((p, example_style.get(text, 0.5), 1.0 - float(blocks.vote[0, 1]), label != NO_ROLL))
    return rows


def _logit(q: np.ndarray) -> np.ndarray:
    q = np.clip(q, 1e-4, 1 - 1e-4)
    return np.log(q / (1 - q))


def worded_roll(roll: LearnedDecision, packs: list[str], example_style: dict[str, float], real_p: np.ndarray,
                real_style: np.ndarray, real_vote: np.ndarray, real_y: np.ndarray,
                say: Callable[[str], None]) -> tuple[dict[str, float], dict[str, Any]]:
    """``(section, measured)``: the roll section's ``worded`` numbers and what they did.
    ``real_*``: the training turns' held-out calibrated P(roll), style, example lines' share
    against no roll, and whether the DM called a check."""
    from sklearn.metrics import roc_auc_score

    say("weighing the example lines' roll vote by how a line is worded")
    rows = np.array(_pack_roll_rows(roll, packs, example_style), dtype=float)
    cut = _logit(np.array(roll.threshold))
    y = real_y.astype(bool)

    def real(power: float, weight: float, bias: float) -> tuple[float, float, float]:
        z = _logit(real_p) + real_style ** power * (weight * _logit(real_vote) + bias)
        rolled = z >= cut
        return float(roc_auc_score(y, z)), float(rolled[~y].mean()), float(rolled[y].mean())

    def written(power: float, weight: float, bias: float) -> float:
        p, style, vote, rolls = rows.T
        rolled = _logit(p) + style ** power * (weight * _logit(vote) + bias) >= cut
        rolls = rolls.astype(bool)
        return float((rolled[rolls].mean() + (~rolled[~rolls]).mean()) / 2)

    base_auc, base_neg, base_recall = real(1.0, 0.0, 0.0)
    best, best_score = (1.0, 0.0, 0.0), written(1.0, 0.0, 0.0)
    for power, weight, bias in itertools.product(POWERS, VOTE_WEIGHTS, BIASES):
        auc, neg, recall = real(power, weight, bias)
        if auc < base_auc - REAL_AUC_SLACK or neg > base_neg or recall < base_recall - RECALL_SLACK:
            continue
        score = written(power, weight, bias)
        if score > best_score:
            best, best_score = (power, weight, bias), score
    auc, neg, recall = real(*best)
    section = {"power": best[0], "vote": best[1], "bias": best[2]}
    measured = {
        "worded_roll": section, "worded_pack_lines_balanced": (round(written(1.0, 0.0, 0.0), 4), round(best_score, 4)),
        "worded_real_auc_neg_recall": ([round(base_auc, 4), round(base_neg, 4), round(base_recall, 4)],
                                       [round(auc, 4), round(neg, 4), round(recall, 4)]),
    }
    return section, measured
