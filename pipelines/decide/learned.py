"""The decision learned from real play: how likely a line is to call for a roll, and which check.

Built by ``vgm play learn`` (``eval.play.learn``) from the training episodes of the Critical Role
transcripts, where the human DM's own calls are the labels, and committed as one small JSON file
(``model/decision.json``): plain logistic-regression weights over ``features.LineFeatures``, a
Platt calibration fitted on held-out folds, and the play threshold chosen on training data only.
Reading it needs numpy alone; players never need the data it was built from.

    learned = LearnedDecision.shipped()
    learned.p_roll(features.matrix(learned.blocks))              # calibrated P(the DM calls a check), per row
    learned.check_scores(features.matrix(learned.check_blocks))  # P(check | a check is called), over learned.checks
    learned.style(line_vectors)                                  # P(the line is worded like the packs' example lines)
    learned.p_play(p_roll, style, not_no_roll)                   # P(roll) as play weighs it, example lines counted by style
    learned.rank_checks(vote, fit, p_check, style)               # the checks, best first

Which check a line calls for has two witnesses that disagree by kind of line: the packs' example
lines (right on most lines written for the GM, wrong on most real table talk) and the model learned
from the real DM's calls (the other way round). ``rank_checks`` weighs them by a small learned mix
(a conditional logit over ``MIX_NAMES``), fitted on real calls the check model did not see and on
the packs' own lines voted without themselves, so neither kind of line is given away for the other.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from rulesets import FileProblem, VgmError, read_json

__all__ = ["LearnedDecision", "MIX_NAMES", "MODEL_FILE", "ModelFileError", "WRITTEN_CLASSES", "candidate_features",
           "impossible_features", "written_features", "Weighed"]

MODEL_FILE = Path(__file__).parent / "model" / "decision.json"


class Weighed(NamedTuple):
    """What the written vote makes of a line (``LearnedDecision.weigh_written``)."""
    p_roll: float        # the gate's P(roll), moved by the vote as far as the line is worded like written lines
    p_impossible: float  # the vote's share for impossible, weighed the same way (what ``refuse_at`` reads)
    unlikely: bool       # that share outweighs both "roll" and "no roll"
    doubted: bool        # no roll, yet the vote leans to impossible over no roll past ``doubt_at``
                         # (weighed by style to ``doubt_power``): rolled, never told as done


class ModelFileError(VgmError):
    """A decision model file that cannot be used."""


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


class LearnedDecision:
    """The weights of one built model (see the module docstring for the file)."""

    def __init__(self, data: dict[str, Any], source: str = "") -> None:
        try:
            roll, checks = data["roll"], data["checks"]
            self.roll_w = np.asarray(roll["weights"], dtype=np.float32)
            self.roll_b = float(roll["bias"])
            self.platt = (float(roll["platt"][0]), float(roll["platt"][1]))
            self.threshold = float(roll["threshold"])
            worded = roll.get("worded") or {}
            self.worded = (float(worded.get("power", 1.0)), float(worded.get("vote", 0.0)), float(worded.get("bias", 0.0)))
            self.checks: list[str] = list(checks["classes"])
            self.check_w = np.asarray(checks["weights"], dtype=np.float32).reshape(len(self.checks), -1)
            if self.check_w.shape[0] != len(self.checks):
                raise ValueError("one row of check weights per check")
            self.check_b = np.asarray(checks["bias"], dtype=np.float32)
            self.ruleset = str(data.get("ruleset", "dnd5e"))
            self.blocks = tuple(data.get("blocks", ("line", "scene", "vote", "surface")))
            self.check_blocks = tuple(checks.get("blocks", self.blocks))
            self.mix = np.asarray(checks["mix"], dtype=np.float64) if "mix" in checks else None
            if self.mix is not None and self.mix.shape != (len(MIX_NAMES),):
                raise ValueError(f"the check mix has {self.mix.size} weights, not {len(MIX_NAMES)}")
            style = data.get("style") or {}
            self.style_w = np.asarray(style["weights"], dtype=np.float32) if "weights" in style else None
            self.style_b = float(style.get("bias", 0.0))
            bars = data.get("impossible") or {}
            self.implausible_at = float(bars["implausible_at"]) if "implausible_at" in bars else None
            self.refuse_at = float(bars["refuse_at"]) if "refuse_at" in bars else None
            self.impossible_w = np.asarray(bars["weights"], dtype=np.float32) if "weights" in bars else None
            self.impossible_b = float(bars.get("bias", 0.0))
            written = data.get("written") or {}
            self.written_w = np.asarray(written["weights"], dtype=np.float32) if "weights" in written else None
            self.written_b = np.asarray(written.get("bias", [0.0] * len(WRITTEN_CLASSES)), dtype=np.float32)
            self.written_power = float(written.get("power", 1.0))
            self.written_act = bool(written.get("act", False))  # the vote reads the line's act words as well (``act_words``)
            self.written_refuse_at = float(written["refuse_at"]) if "refuse_at" in written else None
            self.doubt_power = float(written.get("doubt_power", 1.0))
            self.doubt_at = float(written["doubt_at"]) if "doubt_at" in written else None
            if self.written_w is not None and self.written_w.shape[0] != len(WRITTEN_CLASSES):
                raise ValueError(f"the written vote has {self.written_w.shape[0]} rows, not {len(WRITTEN_CLASSES)}")
            self.meta: dict[str, Any] = dict(data.get("meta", {}))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelFileError(f"{source or 'decision model'}: not a decision model file ({exc}); "
                                 "rebuild it with `vgm play learn DIR -o FILE`") from None

    @classmethod
    def load(cls, path: str | Path) -> "LearnedDecision":
        try:
            data = read_json(Path(path), what="decision model file")
        except FileProblem as problem:
            raise ModelFileError(f"{problem}; rebuild it with `vgm play learn DIR -o FILE`") from None
        return cls(data, str(path))

    @classmethod
    def shipped(cls) -> "LearnedDecision":
        """The committed model (read once per process)."""
        return _shipped(str(MODEL_FILE))

    @property
    def width(self) -> int:
        return int(self.roll_w.shape[0])

    def _check_width(self, x: np.ndarray, width: int) -> np.ndarray:
        x = np.atleast_2d(np.asarray(x, dtype=np.float32))
        if x.shape[1] != width:
            raise ModelFileError(f"the decision model reads {width} features, the line gave {x.shape[1]}; rebuild it")
        return x

    def p_roll(self, x: np.ndarray) -> np.ndarray:
        """Calibrated probability, per row, that the line calls for a roll."""
        z = self._check_width(x, self.width) @ self.roll_w + self.roll_b
        a, b = self.platt
        return _sigmoid(a * z + b)

    def p_play(self, p_roll: float, style: float, not_no_roll: float) -> float:
        """P(roll) as play compares it with the threshold: the real tables' calibrated ``p_roll``,
        moved by the example lines' share against needing no roll (``not_no_roll``: the lines
        near impossible acts count against "no roll") as far as the line is worded like them
        (``style`` to the learned power): written lines are judged mostly by the examples written
        like them, real talk by the real DM's calls (weights chosen on training data)."""
        power, weight, bias = self.worded
        z = _logit(p_roll) + style ** power * (weight * _logit(not_no_roll) + bias)
        return float(_sigmoid(np.asarray(z)))

    @property
    def votes_impossible(self) -> bool:
        """Whether this model carries its own impossible-act vote (older files leave it to the packs' lines)."""
        return self.impossible_w is not None

    def p_impossible(self, lines: np.ndarray, scenes: np.ndarray) -> np.ndarray:
        """P(no roll makes the act work in this scene), per row of line and scene vectors (0 without a vote)."""
        x = impossible_features(lines, scenes)
        if self.impossible_w is None:
            return np.zeros(len(x))
        return _sigmoid(self._check_width(x, self.impossible_w.shape[0]) @ self.impossible_w + self.impossible_b)

    def p_written(self, x: np.ndarray) -> np.ndarray | None:
        """P(roll, no roll, impossible) per row by the vote learned from written case lines
        (``written_features``); ``None`` for a model built without it or for features of another width."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float32))
        if self.written_w is None or x.shape[1] != self.written_w.shape[1]:
            return None
        z = x @ self.written_w.T + self.written_b
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def weigh_written(self, p_play: float, threshold: float, probs: np.ndarray, style: float) -> "Weighed":
        """The written vote moves the gate's ``p_play`` as far as the line is worded like written lines
        (``style`` to the learned power: real table talk keeps the real DM's call). "Impossible"
        counts against "no roll" there: an act that may not work is rolled, never told as done
        without dice. See ``Weighed`` for what it returns."""
        weight = style ** self.written_power
        no_roll, roll, impossible = (float(v) for v in probs)
        gate = _logit(p_play) - _logit(threshold)
        vote = math.log(max(roll + impossible, 1e-9)) - math.log(max(no_roll, 1e-9))
        moved = float(_sigmoid(np.asarray(gate + weight * (vote - gate) + _logit(threshold))))
        leaning = style ** self.doubt_power * impossible / max(impossible + no_roll, 1e-9)
        doubted = self.doubt_at is not None and moved < threshold and leaning >= self.doubt_at
        return Weighed(moved, weight * impossible, weight * impossible >= max(no_roll, roll), doubted)

    def style(self, lines: np.ndarray) -> np.ndarray:
        """P(the line is worded like the packs' example lines rather than like real table talk),
        per row of line vectors; 0.5 for a model built without it."""
        lines = np.atleast_2d(np.asarray(lines, dtype=np.float32))
        if self.style_w is None or lines.shape[1] != self.style_w.shape[0]:
            return np.full(len(lines), 0.5)
        return _sigmoid(lines @ self.style_w + self.style_b)

    def rank_checks(self, vote: Any, fit: dict[str, float], learned: dict[str, float], style: float) -> list[str]:
        """The checks, best first, by the learned mix of the example lines' vote and ``learned``
        (this model's P(check | a check is called) for the line); ``[]`` when it has no mix."""
        if self.mix is None or not learned:
            return []
        checks, rows = candidate_features(vote, fit, learned, style)
        score = rows @ self.mix
        return [checks[i] for i in np.argsort(-score, kind="stable")]

    def check_scores(self, x: np.ndarray) -> np.ndarray:
        """P(check | a check is called), per row, over ``self.checks`` (``x``: the ``check_blocks``)."""
        z = self._check_width(x, self.check_w.shape[1]) @ self.check_w.T + self.check_b
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


# what the mix weighs for each candidate check: the example lines' log-score (the vote, reordered
# by the scene), the learned log P(check), each again times the line's style (P(worded like the
# example lines)) and times its nearest example's similarity, and whether the model never learned
# the check (a family check such as ``tool:thieves``: only the vote knows it)
MIX_NAMES = ("vote", "learned", "style_vote", "style_learned", "near_vote", "near_learned", "unlearned")
_VOTE_FLOOR = -20.0  # the log-score of a check the example lines did not name at all


def candidate_features(vote: Any, fit: dict[str, float], learned: dict[str, float], style: float,
                       width: int = 8) -> tuple[list[str], np.ndarray]:
    """The checks worth ranking (the vote's and the model's leading ``width`` each) and their
    ``MIX_NAMES`` rows: one function, so the build and play weigh alike."""
    ranked = sorted(learned, key=learned.__getitem__, reverse=True)[:width]
    checks = list(dict.fromkeys([*vote.candidates(width), *ranked]))
    near = max((n.similarity for n in vote.neighbours), default=0.0)
    floor = math.log(max(min(learned.values()), 1e-6)) if learned else 0.0
    rows = []
    for check in checks:
        voted = fit.get(check, math.log(max(vote.scores.get(check, 0.0), 1e-9)) if check in vote.scores else _VOTE_FLOOR)
        voted = max(voted, _VOTE_FLOOR)
        known = math.log(max(learned[check], 1e-6)) if check in learned else floor
        rows.append([voted, known, style * voted, style * known, near * voted, near * known, float(check not in learned)])
    return checks, np.asarray(rows, dtype=np.float64).reshape(len(checks), len(MIX_NAMES))


def impossible_features(lines: np.ndarray, scenes: np.ndarray) -> np.ndarray:
    """The impossible-act vote's features: the line, the scene's tail, and their product (what the
    line does with what the scene says), scaled so the product weighs like the other two."""
    lines = np.atleast_2d(np.asarray(lines, dtype=np.float32))
    scenes = np.atleast_2d(np.asarray(scenes, dtype=np.float32))
    return np.hstack([lines, scenes, 10.0 * lines * scenes])


WRITTEN_CLASSES = ("no_roll", "roll", "impossible")  # the written vote's classes, in its rows' order


def _logit(q: float) -> float:
    q = min(max(q, 1e-4), 1 - 1e-4)
    return math.log(q / (1 - q))


def written_features(line: np.ndarray, scene: np.ndarray, p_play: float, threshold: float, p_real: float,
                     style: float, not_no_roll: float, act: np.ndarray | None = None) -> np.ndarray:
    """The written vote's features: the line's and the scene's vectors, the vector of its act words when the
    vote reads them (``features.act_words``), and what the gate already weighed (how far ``p_play`` is past the
    threshold, the real DM's probability, the line's style and the example lines' share against "no roll"), as
    one row: one function, so the build and play read alike. The gate's four numbers stay last (style is [-2])."""
    gate = [_logit(p_play) - _logit(threshold), _logit(p_real), style, _logit(not_no_roll)]
    acts = [] if act is None else [np.ravel(act)]
    return np.hstack([np.ravel(line), np.ravel(scene), *acts, np.asarray(gate, dtype=np.float32)])[None].astype(np.float32)


@lru_cache(maxsize=4)
def _shipped(path: str) -> LearnedDecision:
    return LearnedDecision.load(path)


def dump(model: dict[str, Any], path: str | Path) -> None:
    """Write a model dict as compact JSON (weights rounded to 5 decimals: the file stays small)."""
    def rounded(value: Any) -> Any:
        if isinstance(value, float):
            return round(value, 5)
        if isinstance(value, list):
            return [rounded(v) for v in value]
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return value

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(rounded(model), separators=(",", ":")) + "\n", encoding="utf-8")
