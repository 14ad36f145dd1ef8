"""The impossible-act vote: P(no roll can make this act work, in this scene), calibrated on real play.

A logistic regression over the line's vector, the scene's last sentences and their product (what
the line does to what the scene says: "I ride Jericho" after "Jericho broke a leg and was put
down"). Positives are the impossible acts the packs and the ``train`` case sets give; negatives
are every real training turn (CRD3: no human DM there refused an act as impossible) and the
written lines that need a roll or none. The ``dev`` sets are never fitted on: they measure it.

Its bar, ``refuse_at``, is set on real turns the fit did not see (held out by episode): the vote
refuses at most ``REFUSE_SHARE`` of them. A calibrated vote may refuse at most 0.2% of real lines;
the bar keeps a wide margin below that, because on the written ``dev`` lines every refusal it
adds past it costs about one possible act refused for two impossible ones caught (a first build
at 0.1% refused 0.12% of the held-out test episodes' turns, all of them table talk).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import rulesets
from pipelines.check_index import IMPOSSIBLE, pack_examples
from pipelines.decide.features import scene_tail
from pipelines.decide.learned import impossible_features
from pipelines.vector_store import embed_cached

from ._cases import CASES_DIR, load_cases, set_role, trpg_packs
from ._logistic import episode_folds, logistic

__all__ = ["learn_impossible", "written_lines", "REFUSE_SHARE"]

REFUSE_SHARE = 0.0005     # real turns the vote may refuse (held out by episode)
POSITIVE_WEIGHT = 30.0     # an impossible line counts as this many real turns (they are few: ~400 against ~45,000)
WRITTEN_WEIGHT = 5.0       # a written possible line counts as this many real turns (worded like the positives)
STRENGTH = 1.0


def written_lines(role: str) -> list[tuple[str, str, bool, str]]:
    """``(line, scene, impossible?, source)`` of every roll, no-roll and impossible case in the sets of ``role``."""
    out = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        if set_role(path) != role:
            continue
        for case in load_cases(path):
            if case.kind in ("roll", "no_roll", "impossible"):
                out.append((case.line, scene_tail(case.to_scenario().scene) or " ", case.kind == "impossible", path.stem))
    return out


def _vectors(rows: list[tuple[str, str, bool, str]]) -> np.ndarray:
    lines = embed_cached([" ".join(line.split()) or " " for line, *_ in rows])
    scenes = embed_cached([scene for _, scene, *_ in rows])
    return impossible_features(lines, scenes)


def _fit(written: np.ndarray, labels: np.ndarray, real: np.ndarray):
    x = np.vstack([written, real])
    y = np.r_[labels, np.zeros(len(real))]
    weight = np.r_[np.where(labels == 1, POSITIVE_WEIGHT, WRITTEN_WEIGHT), np.ones(len(real))]
    return logistic(STRENGTH).fit(x, y, sample_weight=weight)


def learn_impossible(turn_lines: np.ndarray, turn_scenes: np.ndarray, episodes: np.ndarray, folds: int,
                     on_progress: Callable[[str], None] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(section, measured)``: the vote's part of the model file's ``impossible`` section and what
    it scored on held-out real episodes and on the ``dev`` sets it never saw."""
    say = on_progress or (lambda _: None)
    say("fitting the impossible-act vote (pack and train-set impossible acts against real turns)")
    pack_rows = [(text, " ", label == IMPOSSIBLE, "pack") for name in trpg_packs()
                 for label, text in pack_examples(rulesets.load(name))]
    train = pack_rows + written_lines("train")
    x_train = _vectors(train)
    y_train = np.array([imp for _, _, imp, _ in train], dtype=float)
    real = impossible_features(turn_lines, turn_scenes)

    held = np.zeros(len(real))
    for out in episode_folds(episodes, folds):
        held[out] = _fit(x_train, y_train, real[~out]).decision_function(real[out])
    refuse_at = float(1 / (1 + np.exp(-np.quantile(held, 1 - REFUSE_SHARE))))  # a probability, as play reads it
    held = 1 / (1 + np.exp(-held))
    model = _fit(x_train, y_train, real)

    dev = written_lines("dev")
    measured: dict[str, Any] = {"impossible_positives": int(y_train.sum()), "impossible_real_refused": round(float((held >= refuse_at).mean()), 4)}
    if dev:
        scores = model.predict_proba(_vectors(dev))[:, 1]
        impossible = np.array([imp for _, _, imp, _ in dev])
        measured.update({
            "impossible_dev_refused": round(float((scores[impossible] >= refuse_at).mean()), 4),
            "impossible_dev_possible_refused": round(float((scores[~impossible] >= refuse_at).mean()), 4),
            "impossible_dev_cases": [int(impossible.sum()), int((~impossible).sum())],
        })
    section = {"weights": model.coef_[0].tolist(), "bias": float(model.intercept_[0]), "refuse_at": refuse_at}
    return section, measured
