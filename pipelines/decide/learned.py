"""The decision learned from real play: how likely a line is to call for a roll, and which check.

Built by ``vgm play learn`` (``eval.play.learn``) from the training episodes of the Critical Role
transcripts, where the human DM's own calls are the labels, and committed as one small JSON file
(``model/decision.json``): plain logistic-regression weights over ``features.LineFeatures``, a
Platt calibration fitted on held-out folds, and the play threshold chosen on training data only.
Reading it needs numpy alone; players never need the data it was built from.

    learned = LearnedDecision.shipped()
    learned.p_roll(features.matrix(learned.blocks))              # calibrated P(the DM calls a check), per row
    learned.check_scores(features.matrix(learned.check_blocks))  # P(check | a check is called), over learned.checks
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rulesets import FileProblem, VgmError, read_json

__all__ = ["LearnedDecision", "MODEL_FILE", "ModelFileError", "mix_ranking"]

MODEL_FILE = Path(__file__).parent / "model" / "decision.json"


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
            self.checks: list[str] = list(checks["classes"])
            self.check_w = np.asarray(checks["weights"], dtype=np.float32).reshape(len(self.checks), -1)
            if self.check_w.shape[0] != len(self.checks):
                raise ValueError("one row of check weights per check")
            self.check_b = np.asarray(checks["bias"], dtype=np.float32)
            self.ruleset = str(data.get("ruleset", "dnd5e"))
            self.blocks = tuple(data.get("blocks", ("line", "scene", "vote", "surface")))
            self.vote_weight = float(checks.get("vote_weight", 1.0))
            self.check_blocks = tuple(checks.get("blocks", self.blocks))
            bars = data.get("impossible") or {}
            self.implausible_at = float(bars["implausible_at"]) if "implausible_at" in bars else None
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

    def check_scores(self, x: np.ndarray) -> np.ndarray:
        """P(check | a check is called), per row, over ``self.checks`` (``x``: the ``check_blocks``)."""
        z = self._check_width(x, self.check_w.shape[1]) @ self.check_w.T + self.check_b
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


def mix_ranking(vote: dict[str, float], learned: dict[str, float], weight: float) -> dict[str, float]:
    """Each check's score: the pack vote's log-score plus ``weight`` times the learned log P(check).

    A check the vote does not name scores as if the vote gave it 1e-4; a check the model never
    learned (a family check such as ``tool:thieves``, a game it was not trained on) scores as the
    model's least likely check for this line, so the vote can still lead with it.
    """
    floor = math.log(max(min(learned.values()), 1e-6)) if learned else 0.0
    score = {c: vote.get(c, math.log(1e-4)) for c in set(vote) | set(learned)}
    for c in score:
        score[c] += weight * (math.log(max(learned[c], 1e-6)) if c in learned else floor)
    return score


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
