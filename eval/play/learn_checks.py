"""Which check the DM calls, learned for ``vgm play learn``: the model and the mix.

Two small fits, each judged on what it did not see (the style gate they use is ``learn_style``'s):

- **the check model**: P(check | a check is called), multinomial logistic regression over the
  skill and ability calls of the training episodes (saves and initiative answer the dice, not the
  kind of act); its feature blocks are chosen on folds that hold out whole episodes.
- **the mix** (``pipelines.decide.learned.MIX_NAMES``): a conditional logit over each line's
  candidate checks that weighs the example lines' vote against the check model, by style and by
  how near the nearest example is. It is fitted on two kinds of line at once: real calls, with
  check probabilities from models that did not see their episode, and the pack's own example
  lines, voted on by the pack without them. Fitted on real calls alone it trusts the model on
  written lines too (right on about a fifth of them); on example lines alone it trusts the vote on
  real talk (right on about a quarter).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from pipelines.check_index import DECISIONS, CheckIndex, pack_examples
from pipelines.decide.features import LineFeatures
from pipelines.decide.learned import MIX_NAMES, candidate_features
from pipelines.vector_store import embed_cached

from ._logistic import episode_folds, logistic
from .learn_style import PACK_FOLDS, as_written, fold_of
from .real import RealTurn, is_ability_call

__all__ = ["learn_checks", "fit_mix", "CHECK_BLOCK_CHOICES", "MIN_CHECK_CALLS"]

CHECK_BLOCK_CHOICES = (("line", "scene"), ("line", "scene", "previous", "vote", "surface"))
MIN_CHECK_CALLS = 5   # a check the DM called fewer times than this in training is not a class
MIX_L2 = 1e-3         # the mix's seven weights barely need holding back; this keeps them finite


def _held_out_probs(x: np.ndarray, labels: np.ndarray, episodes: np.ndarray, folds: int) -> list[dict[str, float]]:
    """Each call's P(check), from a model that did not see its episode."""
    probs: list[dict[str, float]] = [{} for _ in labels]
    for out in episode_folds(episodes, folds):
        if out.all() or not out.any() or len(set(labels[~out])) < 2:
            continue
        model = logistic().fit(x[~out], labels[~out])
        for i, row in zip(np.flatnonzero(out), model.predict_proba(x[out])):
            probs[i] = dict(zip(model.classes_, row.tolist()))
    return probs


def _top(ranked: list[str], gold: set[str], n: int) -> bool:
    return any(c in gold for c in ranked[:n])


def fit_mix(rows: list[tuple[list[str], np.ndarray, set[str]]]) -> np.ndarray:
    """The mix's weights: maximum likelihood of the gold check among each line's candidates
    (a conditional logit; scipy's L-BFGS, as scikit-learn has no model whose classes change
    from row to row). ``rows``: (candidate checks, their ``MIX_NAMES`` rows, gold checks)."""
    from scipy.optimize import minimize

    usable = [(feats, np.array([c in gold for c in checks])) for checks, feats, gold in rows if any(c in gold for c in checks)]
    if not usable:
        return np.zeros(len(MIX_NAMES))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for feats, gold in usable:
            z = feats @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            p_gold = max(float(p[gold].sum()), 1e-12)
            total -= math.log(p_gold)
            grad -= (p * gold / p_gold) @ feats - p @ feats
        n = len(usable)
        return total / n + MIX_L2 * float(w @ w), grad / n + 2 * MIX_L2 * w

    return minimize(loss, np.zeros(len(MIX_NAMES)), jac=True, method="L-BFGS-B").x


def _pack_rows(pack: Any, which: CheckIndex, checks_model: Any, check_blocks: tuple[str, ...],
               style: dict[str, float]) -> list[tuple[list[str], np.ndarray, set[str]]]:
    """The pack's own check lines as the mix sees them in play, each voted on without itself."""
    own = [(lab, text) for lab, text in pack_examples(pack) if lab in pack.checks]
    index = CheckIndex.for_pack(pack)
    vectors = embed_cached([text for _, text in own])
    folds_of = [fold_of(text) for _, text in own]
    rows = []
    for fold in range(PACK_FOLDS):
        held = {text for (_, text), f in zip(own, folds_of) if f == fold}
        voter, plain = which.without(held), index.without(held)
        for (label, text), vector, f in zip(own, vectors, folds_of):
            if f != fold:
                continue
            vote = voter.vote(text, k=10, exclude=set(DECISIONS), query=vector)
            blocks = as_written(plain, vector, text)
            learned = dict(zip(checks_model.classes_, checks_model.predict_proba(blocks.matrix(check_blocks))[0].tolist()))
            rows.append((*candidate_features(vote, voter.fit(vote, ""), learned, style.get(text, 0.5)), {label}))
    return rows


def learn_checks(turns: list[RealTurn], features: LineFeatures, pack: Any, turn_style: np.ndarray,
                 example_style: dict[str, float], folds: int, say: Callable[[str], None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(checks, measured)``: the model file's ``checks`` section and what was measured on lines
    each part did not see. ``turn_style``/``example_style``: each training turn's and example
    line's style from a gate that did not see it (``learn_style.style_gate``)."""
    calls = [(i, next(s for s in t.skills if is_ability_call(s))) for i, t in enumerate(turns)
             if any(is_ability_call(s) for s in t.skills)]
    counts = Counter(s for _, s in calls)
    kept = [(i, s) for i, s in calls if counts[s] >= MIN_CHECK_CALLS]
    rows, labels = np.array([i for i, _ in kept]), np.array([s for _, s in kept])
    episodes = np.array([turns[i].episode for i in rows])
    golds = [{s for s in turns[i].skills if is_ability_call(s)} for i in rows]

    say("choosing the check model's features on held-out episodes")
    held: dict[tuple[str, ...], list[dict[str, float]]] = {}
    for blocks in CHECK_BLOCK_CHOICES:
        held[blocks] = _held_out_probs(features.matrix(blocks)[rows], labels, episodes, folds)

    def alone(probs: list[dict[str, float]]) -> float:
        ranked = [sorted(p, key=p.get, reverse=True) for p in probs]
        return float(np.mean([_top(r, g, 1) + _top(r, g, 3) for r, g in zip(ranked, golds)]))

    check_blocks = max(held, key=lambda b: alone(held[b]))
    checks_model = logistic().fit(features.matrix(check_blocks)[rows], labels)

    say("weighing the vote against the model on real calls and on the pack's own lines")
    which = CheckIndex.for_pack(pack, borrow=True)
    real_rows = []
    for i, probs, gold in zip(rows, held[check_blocks], golds):
        vote = which.vote(turns[i].line, k=10, exclude=set(DECISIONS), query=features.line[i])
        real_rows.append((*candidate_features(vote, which.fit(vote, turns[i].scene), probs, float(turn_style[i])), gold))
    written_rows = _pack_rows(pack, which, checks_model, check_blocks, example_style)
    mix = fit_mix(real_rows + written_rows)

    def scored(part: list[tuple[list[str], np.ndarray, set[str]]]) -> tuple[float, float]:
        ranked = [[checks[j] for j in np.argsort(-(feats @ mix), kind="stable")] for checks, feats, _ in part]
        return (round(float(np.mean([_top(r, g, 1) for r, (_, _, g) in zip(ranked, part)])), 4),
                round(float(np.mean([_top(r, g, 3) for r, (_, _, g) in zip(ranked, part)])), 4))

    measured = {
        "check_calls": len(kept), "check_blocks": list(check_blocks),
        "held_out_check_model_top1_plus_top3": round(alone(held[check_blocks]), 4),
        "mix": dict(zip(MIX_NAMES, np.round(mix, 4).tolist())),
        "mix_real_calls_top1_top3": scored(real_rows), "mix_pack_lines_top1_top3": scored(written_rows),
    }
    checks = {"classes": [str(c) for c in checks_model.classes_], "weights": checks_model.coef_.tolist(),
              "bias": checks_model.intercept_.tolist(), "blocks": list(check_blocks), "mix": mix.tolist()}
    return checks, measured
