"""Build the GM's learned decision from real play (``vgm play learn DIR``).

The labels are the human DM's own calls (``eval.play.real``): did a check follow the line, and
which. Two logistic regressions over ``pipelines.decide.features`` (scikit-learn):

- **roll**: P(the DM calls a check) over every player turn. Its strength is chosen, and its
  scores calibrated (Platt), on folds that hold out whole episodes, so the probabilities and the
  play threshold are those of tables the model has not seen. The threshold is the lowest that
  keeps the held-out folds' recall at ``target_recall`` (0.5): a GM that rolls on half of what a
  DM would roll on, and on as few other lines as that allows.
- **checks**: P(check | a check is called), the style gate and the mix that weighs the model
  against the pack's example-line vote (``eval.play.learn_checks``), judged on held-out
  episodes and on the pack's own lines voted without themselves.

Only the episodes named as training (``bench/real_split.yaml``) are read; the result is one
small JSON file (``pipelines/decide/model/decision.json``).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

import rulesets
from pipelines.check_index import CheckIndex, LineSense, pack_examples
from pipelines.decide.features import LineFeatures, previous_block, scene_tail, surface, vote_features
from pipelines.decide.learned import MODEL_FILE, LearnedDecision, dump
from pipelines.vector_store import embed_cached
from rulesets import VgmError, read_yaml

from ._cases import trpg_packs
from ._logistic import episode_folds, logistic
from .learn_checks import learn_checks
from .learn_impossible import learn_impossible
from .learn_style import style_gate, worded_roll
from .learn_written import learn_written
from .real import RealTurn, real_turns

__all__ = ["learn", "learn_written_only", "turn_features", "read_split", "SPLIT_FILE"]

SPLIT_FILE = Path(__file__).resolve().parents[2] / "bench" / "real_split.yaml"
IMPLAUSIBLE_SHARE = 0.005  # the packs' pooled impossible-act direction rolls at the hardest difficulty at most this share of real training lines
_NO_CHECKS = {"classes": ["none"], "weights": [[0.0]], "bias": [0.0]}  # a roll-only model, to weigh the roll before the checks are fitted
STRENGTHS = (0.1, 0.3, 1.0)  # inverse L2 strength (scikit-learn's C) tried on the held-out folds
BLOCK_CHOICES = (("line", "scene", "previous"), ("line", "scene", "previous", "vote", "surface"))  # feature sets tried the same way


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


def learn_written_only(model_file: str | Path = MODEL_FILE, out: str | Path | None = None, source: str | Path | None = None,
                       split: str | Path = SPLIT_FILE, ruleset: str = "dnd5e",
                       on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Refit the written-line vote alone (``learn_written``) into a built model file: the real-play
    parts stay as they are. With ``source`` (CRD3-format episodes) its weight in play is chosen on
    the training episodes' turns; without, it keeps ``learn_written.POWER``."""
    LearnedDecision.load(model_file)  # one clear line for a file that is not a decision model
    model = json.loads(Path(model_file).read_text(encoding="utf-8"))
    real = None
    if source is not None:
        turns = list(real_turns(source, ruleset=ruleset, episodes=set(read_split(split)["train"])))
        if not turns:
            raise VgmError(f"{source}: none of the training episodes in {split} are there")
        real = (turn_features(turns, rulesets.load(ruleset), on_progress=on_progress), np.array([t.positive for t in turns], dtype=int),
                [t.line for t in turns])
    written, measured = learn_written(model, on_progress, real=real)
    meta = {k: v for k, v in model.get("meta", {}).items() if not k.startswith("written_")}
    dump({**model, "written": written, "meta": {**meta, **measured, "written_built": date.today().isoformat()}}, out or model_file)
    return measured


def _held_out_scores(x: np.ndarray, y: np.ndarray, episodes: np.ndarray, strength: float, folds: int) -> np.ndarray:
    """Each turn's raw score from a model that did not see its episode."""
    scores = np.zeros(len(y))
    for out in episode_folds(episodes, folds):
        model = logistic(strength).fit(x[~out], y[~out])
        scores[out] = model.decision_function(x[out])
    return scores


def _threshold(p: np.ndarray, y: np.ndarray, target_recall: float) -> float:
    """The highest probability at which held-out recall still reaches ``target_recall``."""
    positives = np.sort(p[y == 1])[::-1]
    k = max(1, int(np.ceil(target_recall * len(positives))))
    return float(positives[min(k, len(positives)) - 1])


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
    platt = logistic(1e6).fit(scores.reshape(-1, 1), y)
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    p = 1 / (1 + np.exp(-(a * scores + b)))
    threshold = _threshold(p, y, target_recall)
    roll = logistic(strength).fit(x, y)

    say("setting the hardest roll's bar on real lines")
    sense = LineSense.from_packs("impossible")
    unlikely = np.array([sense(t.line, query=q) for t, q in zip(turns, features.line)])
    vote, impossible_measured = learn_impossible(features.line, features.scene, eps, folds, say)
    bars = {"implausible_at": float(np.quantile(unlikely, 1 - IMPLAUSIBLE_SHARE)), **vote}

    say("fitting the style gate (example lines against real table talk)")
    packs = trpg_packs()
    examples = list(dict.fromkeys(text for name in packs for _, text in pack_examples(rulesets.load(name))))
    style, turn_style, example_style = style_gate(features.line, examples, folds)
    roll_section = {"weights": roll.coef_[0].tolist(), "bias": float(roll.intercept_[0]), "platt": [a, b], "threshold": threshold}
    worded, worded_measured = worded_roll(LearnedDecision({"blocks": list(blocks), "roll": roll_section, "checks": _NO_CHECKS}),
                                          packs, example_style, p, turn_style, 1.0 - features.vote[:, 1], y, say)
    checks, check_measured = learn_checks(turns, features, pack, turn_style, example_style, folds, say)

    model = {"ruleset": ruleset, "blocks": list(blocks), "roll": {**roll_section, "worded": worded},
             "impossible": bars, "checks": checks, "style": style}
    written, written_measured = learn_written(model, say, real=(features, y, [t.line for t in turns]))
    measured = {
        "turns": len(turns), "positives": int(y.sum()), "episodes": sorted(episodes & set(eps)),
        "blocks": list(blocks), "strength": strength, "held_out_roc_auc": round(tried[(blocks, strength)][0], 4),
        "held_out_average_precision": round(float(average_precision_score(y, scores)), 4),
        "held_out_roll_rate_negatives": round(float((p[y == 0] >= threshold).mean()), 4),
        "held_out_recall": round(float((p[y == 1] >= threshold).mean()), 4),
        "style_real_turns_mean": round(float(turn_style.mean()), 4),
        "style_example_lines_mean": round(float(np.mean(list(example_style.values()))), 4),
        **worded_measured, **check_measured, **impossible_measured, **written_measured,
    }
    dump({
        **model, "written": written,
        "meta": {**measured, "built": date.today().isoformat(), "source": "CRD3 (CC-BY-SA-4.0), training episodes only",
                 "target_recall": target_recall, "script": "vgm play learn (eval/play/learn.py)"},
    }, out)
    return measured
