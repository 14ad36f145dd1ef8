"""Build the GM's learned decision from real play (``vgm play learn DIR``).

The labels are the human DM's own calls (``eval.play.real``): did a check follow the line, and
which. Two logistic regressions over ``pipelines.decide.features`` (scikit-learn):

- **roll**: P(the DM calls a check) over every player turn. Its strength is chosen, and its
  scores calibrated (Platt), on folds that hold out whole episodes, so the probabilities and the
  play threshold are those of tables the model has not seen. The threshold is the lowest that
  keeps the held-out folds' recall at ``target_recall`` (0.5): a GM that rolls on half of what a
  DM would roll on, and on as few other lines as that allows.
- **checks**: P(check | a check is called), multinomial, over the skill and ability calls of the
  training positives (saves and initiative answer the dice, not the kind of act); its features
  and its weight beside the pack's example-line vote are chosen on held-out episodes too.

Only the episodes named as training (``bench/real_split.yaml``) are read; the result is one
small JSON file (``pipelines/decide/model/decision.json``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

import rulesets
from pipelines.check_index import IMPOSSIBLE, NO_ROLL, CheckIndex, LineSense
from pipelines.decide.features import LineFeatures, previous_block, scene_tail, surface, vote_features
from pipelines.decide.learned import MODEL_FILE, dump
from pipelines.steps.adjudicate import rank_checks
from pipelines.vector_store import embed_cached
from rulesets import VgmError, read_yaml

from .real import RealTurn, is_ability_call, real_turns

__all__ = ["learn", "turn_features", "read_split", "SPLIT_FILE"]

SPLIT_FILE = Path(__file__).resolve().parents[2] / "bench" / "real_split.yaml"
IMPLAUSIBLE_SHARE = 0.005  # the impossible-act vote rolls at the hardest difficulty at most this share of real training lines
STRENGTHS = (0.1, 0.3, 1.0)  # inverse L2 strength (scikit-learn's C) tried on the held-out folds
BLOCK_CHOICES = (("line", "scene", "previous"), ("line", "scene", "previous", "vote", "surface"))  # feature sets tried the same way
VOTE_WEIGHTS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
CHECK_BLOCK_CHOICES = (("line", "scene"), ("line", "scene", "previous", "vote", "surface"))  # the learned check model's weight beside the pack's vote, tried the same way
MIN_CHECK_CALLS = 5                # a check the DM called fewer times than this in training is not a class


def read_split(path: str | Path = SPLIT_FILE) -> dict[str, list[str]]:
    """``{"train": [...], "test": [...]}`` episode names of the fixed split."""
    data = read_yaml(Path(path), what="split file") or {}
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in ("train", "test")):
        raise VgmError(f"{path}: a split file needs 'train' and 'test' lists of episode names (see {SPLIT_FILE})")
    return {k: [str(e) for e in data[k]] for k in ("train", "test")}


def turn_features(turns: list[RealTurn], pack: Any, index: CheckIndex | None = None,
                  on_progress: Callable[[str], None] | None = None) -> LineFeatures:
    """The features of each turn, as the decision step computes them in play."""
    index = index or CheckIndex.for_pack(pack)
    say = on_progress or (lambda _: None)
    say(f"embedding {len(turns)} lines")
    said = [" ".join(t.line.split()) or " " for t in turns]
    lines = embed_cached(said)
    say(f"embedding {len(turns)} scenes")
    scenes = embed_cached([scene_tail(t.scene) or " " for t in turns])
    say("embedding the turns before")
    by_player = [i for i, t in enumerate(turns) if t.previous_speaker != "GM"]
    before = dict(zip(by_player, embed_cached([" ".join(turns[i].previous.split()) or " " for i in by_player])))
    width = lines.shape[1]
    previous = np.array([previous_block(before.get(i), i not in before, width) for i in range(len(turns))], dtype=np.float32)
    say("voting")
    votes = np.array([vote_features(index, q, s) for q, s in zip(lines, said)], dtype=np.float32)
    marks = np.array([surface(t.line, t.scene) for t in turns], dtype=np.float32)
    return LineFeatures(line=lines, scene=scenes, previous=previous, vote=votes, surface=marks)


def _folds(episodes: list[str], n: int) -> list[set[str]]:
    ordered = sorted(set(episodes))
    return [set(ordered[i::n]) for i in range(n)]


def _fit(x: np.ndarray, y: np.ndarray, strength: float, **kw: Any):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=strength, max_iter=4000, **kw).fit(x, y)


def _held_out_scores(x: np.ndarray, y: np.ndarray, episodes: np.ndarray, strength: float, folds: int) -> np.ndarray:
    """Each turn's raw score from a model that did not see its episode."""
    scores = np.zeros(len(y))
    for held in _folds(list(episodes), folds):
        out = np.isin(episodes, list(held))
        model = _fit(x[~out], y[~out], strength)
        scores[out] = model.decision_function(x[out])
    return scores


def _threshold(p: np.ndarray, y: np.ndarray, target_recall: float) -> float:
    """The highest probability at which held-out recall still reaches ``target_recall``."""
    positives = np.sort(p[y == 1])[::-1]
    k = max(1, int(np.ceil(target_recall * len(positives))))
    return float(positives[min(k, len(positives)) - 1])


def _check_ranks(x: np.ndarray, labels: np.ndarray, episodes: np.ndarray, votes: list[tuple[Any, dict[str, float]]], folds: int,
                 weights: tuple[float, ...]) -> dict[float, float]:
    """Held-out top-1 + top-3 of the check ranking for each weight of the learned model beside the
    pack's vote, ranked exactly as ``adjudicate`` ranks (``rank_checks``)."""
    ranks: dict[float, list[float]] = {w: [] for w in weights}
    for held in _folds(list(episodes), folds):
        out = np.isin(episodes, list(held))
        if out.all() or not out.any() or len(set(labels[~out])) < 2:
            continue
        model = _fit(x[~out], labels[~out], 1.0)
        for row, gold, (vote, fit) in zip(model.predict_proba(x[out]), labels[out], [v for v, o in zip(votes, out) if o]):
            learned = dict(zip(model.classes_, row.tolist()))
            for w in weights:
                order = rank_checks(vote, fit, learned, 3, 0.05, w)
                ranks[w].append((order[0] == gold) + (gold in order[:3]))
    return {w: float(np.mean(r)) if r else 0.0 for w, r in ranks.items()}


def learn(source: str | Path, *, out: str | Path = MODEL_FILE, split: str | Path = SPLIT_FILE, folds: int = 4,
          target_recall: float = 0.5, ruleset: str = "dnd5e",
          on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Build and write the model; returns what it measured on the held-out training folds."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    say = on_progress or (lambda _: None)
    episodes = set(read_split(split)["train"])
    turns = list(real_turns(source, ruleset=ruleset, episodes=episodes))
    if not turns or not any(t.positive for t in turns):
        raise VgmError(f"{source}: none of the training episodes in {split} are there, or the DM never calls a check in them")
    pack = rulesets.load(ruleset)
    features = turn_features(turns, pack, on_progress=say)
    y = np.array([t.positive for t in turns], dtype=int)
    eps = np.array([t.episode for t in turns])

    say("choosing the roll model's features and strength on held-out episodes")
    tried = {}
    for blocks in BLOCK_CHOICES:
        x = features.matrix(blocks)
        for strength in STRENGTHS:
            scores = _held_out_scores(x, y, eps, strength, folds)
            tried[(blocks, strength)] = (roc_auc_score(y, scores), scores)
    blocks, strength = max(tried, key=lambda key: tried[key][0])
    x = features.matrix(blocks)
    scores = tried[(blocks, strength)][1]
    platt = _fit(scores.reshape(-1, 1), y, 1e6)
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    p = 1 / (1 + np.exp(-(a * scores + b)))
    threshold = _threshold(p, y, target_recall)
    roll = _fit(x, y, strength)

    say("setting the impossible-act vote's bar on real lines")
    sense = LineSense.from_packs("impossible")
    unlikely = np.array([sense(t.line, query=q) for t, q in zip(turns, features.line)])
    bars = {"implausible_at": float(np.quantile(unlikely, 1 - IMPLAUSIBLE_SHARE))}

    say("fitting the check model")
    calls = [(i, next(s for s in t.skills if is_ability_call(s))) for i, t in enumerate(turns)
             if any(is_ability_call(s) for s in t.skills)]
    counts = Counter(s for _, s in calls)
    kept = [(i, s) for i, s in calls if counts[s] >= MIN_CHECK_CALLS]
    rows, labels = [i for i, _ in kept], np.array([s for _, s in kept])
    which = CheckIndex.for_pack(pack, borrow=True)
    votes = []
    for i in rows:
        vote = which.vote(turns[i].line, k=10, exclude={NO_ROLL, IMPOSSIBLE}, query=features.line[i])
        votes.append((vote, which.fit(vote, turns[i].scene)))
    mixes = {(blocks_c, w): score for blocks_c in CHECK_BLOCK_CHOICES
             for w, score in _check_ranks(features.matrix(blocks_c)[rows], labels, eps[rows], votes, folds, VOTE_WEIGHTS).items()}
    check_blocks, vote_weight = max(mixes, key=mixes.get)
    checks = _fit(features.matrix(check_blocks)[rows], labels, 1.0)

    measured = {
        "turns": len(turns), "positives": int(y.sum()), "episodes": sorted(episodes & set(eps)),
        "blocks": list(blocks), "strength": strength, "held_out_roc_auc": round(tried[(blocks, strength)][0], 4),
        "held_out_average_precision": round(float(average_precision_score(y, scores)), 4),
        "held_out_roll_rate_negatives": round(float((p[y == 0] >= threshold).mean()), 4),
        "held_out_recall": round(float((p[y == 1] >= threshold).mean()), 4),
        "check_calls": len(kept), "check_blocks": list(check_blocks), "learned_weight": vote_weight,
        "held_out_check_top1_plus_top3": round(mixes[(check_blocks, vote_weight)], 4),
    }
    dump({
        "ruleset": ruleset, "blocks": list(blocks),
        "roll": {"weights": roll.coef_[0].tolist(), "bias": float(roll.intercept_[0]), "platt": [a, b], "threshold": threshold},
        "impossible": bars,
        "checks": {"classes": [str(c) for c in checks.classes_], "weights": checks.coef_.tolist(),
                   "bias": checks.intercept_.tolist(), "vote_weight": vote_weight, "blocks": list(check_blocks)},
        "meta": {**measured, "built": date.today().isoformat(), "source": "CRD3 (CC-BY-SA-4.0), training episodes only",
                 "target_recall": target_recall, "script": "vgm play learn (eval/play/learn.py)"},
    }, out)
    return measured
