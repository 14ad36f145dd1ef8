"""The written-line vote: roll, no roll or impossible, learned from the ``dev`` case sets' lines.

The roll model is learned from a real DM's calls, and real table talk is not how people write to
a GM ("Brisa pries the grate loose and slips into the drain"). The packs' example lines speak for
written lines, but only through a nearest-lines vote. This vote is a multinomial logistic
regression over the line's and the scene's vectors and the four numbers the gate already weighed
(``pipelines.decide.learned.written_features``), fitted on every roll, no-roll and impossible case
of the ``dev`` sets (their lines never went into the packs, so the pack vote in the features is
what play sees). Play weighs it by the line's style: real talk keeps the real DM's call.

Measured with each set held out of the fit in turn (a new writer's set, as a blind set is), and
its bar ``refuse_at`` chosen there: the vote alone refuses at most ``REFUSE_SHARE`` of the held-out
sets' possible lines. ``test`` sets are never read; ``train`` sets' lines are in the packs, so their
pack vote has seen them and they are left out.

    vgm play learn DIR --written-only     # refit this vote alone into the shipped model file
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import rulesets
from pipelines.check_index import CheckIndex
from pipelines.decide.features import LineFeatures, act_words, previous_block, scene_tail, surface, vote_features
from pipelines.decide.learned import WRITTEN_CLASSES, LearnedDecision, written_features
from pipelines.decide.rules import words_only
from pipelines.vector_store import embed_cached

from ._cases import CASES_DIR, load_cases, set_role
from ._logistic import logistic

__all__ = ["learn_written", "written_cases", "REFUSE_SHARE", "POWER", "STRENGTH"]

STRENGTH = 3.0        # scikit-learn's C, chosen with each set held out: with the act words 0.3 / 1.0 / 3.0 gave held-out accuracy 0.856 / 0.871 / 0.879
ACT = True            # the vote reads the line's act words (``act_words``): held out, everyday acts left unrolled 0.719 → 0.750, rolls kept 0.883 → 0.891 (ordinary sets), 0.912 → 0.914 and 0.919 → 0.927 on the rest
POWERS = (1.0, 2.0, 4.0, 8.0, 16.0)  # the vote's weight in play is style ** power: the lowest that leaves real training turns as they were
POWER = 4.0           # the power when no real turns are given to choose it
REAL_SLACK = 0.0      # how much more of the real training turns' negatives the vote may roll (0.002 gave 0.1998 on the held-out test episodes, against a bar of 0.20)
REFUSE_SHARE = 0.003  # the held-out sets' possible lines the vote alone may refuse
DOUBT_POWERS = (1.0, 2.0, 4.0)  # the doubt's weight is style ** power, as the vote's own
DOUBT_POWER = 2.0     # the doubt's power when no real turns are given to choose it
DOUBT_SHARE = 0.005   # the held-out sets' no-roll acts the doubt may roll at the hardest difficulty
DOUBT_REAL_SLACK = 0.001  # how much more of the real training turns' negatives the doubt may roll
BARS = tuple(np.round(np.arange(0.5, 1.0, 0.02), 2))


def written_cases(role: str = "dev") -> list[tuple[Any, str]]:
    """``(case, set name)`` for every roll, no-roll and impossible case of the sets of ``role``."""
    out = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        if set_role(path) == role:
            out += [(case, path.stem) for case in load_cases(path) if case.kind in WRITTEN_CLASSES]
    return out


def _features(cases: list[Any], learned: LearnedDecision) -> tuple[np.ndarray, np.ndarray]:
    """Each case's written-vote row and the gate's ``p_play``, computed as the decision step computes them in play."""
    said = [" ".join(case.line.split()) or " " for case in cases]
    scenes = [case.to_scenario().public_scene(set()) for case in cases]
    lines = embed_cached(said)
    tails = embed_cached([scene_tail(scene) or " " for scene in scenes])
    deeds = embed_cached([act_words(case.line) for case in cases]) if ACT else [None] * len(cases)
    rows, gate = [], []
    for case, text, scene, line, tail, deed in zip(cases, said, scenes, lines, tails, deeds):
        index = CheckIndex.for_pack(rulesets.load(case.ruleset))
        blocks = LineFeatures(line=line[None], scene=tail[None], previous=previous_block(None, True, len(line))[None],
                              vote=vote_features(index, line, text)[None], surface=surface(case.line, scene)[None])
        p_real = float(learned.p_roll(blocks.matrix(learned.blocks))[0])
        style = float(learned.style(line)[0])
        not_no_roll = 1.0 - float(blocks.vote[0, 1])
        p_play = learned.p_play(p_real, style, not_no_roll)
        rows.append(written_features(line, tail, p_play, learned.threshold, p_real, style, not_no_roll, deed)[0])
        gate.append(p_play)
    return np.asarray(rows, dtype=np.float32), np.asarray(gate)


def _held_out(x: np.ndarray, y: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """Each case's class probabilities from a fit that did not see its set."""
    probs = np.zeros((len(y), len(WRITTEN_CLASSES)))
    for name in sorted(set(sets.tolist())):
        out = sets == name
        probs[out] = logistic(STRENGTH, class_weight="balanced").fit(x[~out], y[~out]).predict_proba(x[out])
    return probs


def _real_rows(learned: LearnedDecision, features: LineFeatures, said: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Real turns' written-vote rows and the gate's ``p_play``, as play computes them (``said``: their lines)."""
    p_real = learned.p_roll(features.matrix(learned.blocks))
    style = learned.style(features.line)
    not_no_roll = 1.0 - features.vote[:, 1]
    p_play = np.array([learned.p_play(float(p), float(s), float(n)) for p, s, n in zip(p_real, style, not_no_roll)])
    deeds = embed_cached([act_words(text) for text in said]) if ACT else [None] * len(said)
    rows = np.vstack([written_features(line, scene, pp, learned.threshold, float(p), float(s), float(n), deed)
                      for line, scene, pp, p, s, n, deed in zip(features.line, features.scene, p_play, p_real, style, not_no_roll, deeds)])
    return rows, p_play


def _power(learned: LearnedDecision, section: dict[str, Any], rows: np.ndarray, p_play: np.ndarray,
           y: np.ndarray) -> tuple[float, dict[str, Any], np.ndarray]:
    """The lowest power of style that leaves the real training turns as the gate had them: no more
    than ``REAL_SLACK`` more negatives rolled and no call lost (else the highest tried, the nearest
    to leaving them alone; the measures say how near). Also each turn's weighed share for
    impossible at that power (what the refusal bar reads)."""
    gate = p_play >= learned.threshold
    base_neg, base_recall = float(gate[y == 0].mean()), float(gate[y == 1].mean())
    probs = LearnedDecision({**_MINIMAL, "written": section}).p_written(rows)
    style = rows[:, -2]
    for power in POWERS:
        trial = LearnedDecision({**_MINIMAL, "written": {**section, "power": power}})
        rolled = np.array([trial.weigh_written(p, learned.threshold, row, s)[0] >= learned.threshold
                           for p, row, s in zip(p_play, probs, style)])
        neg, recall = float(rolled[y == 0].mean()), float(rolled[y == 1].mean())
        if neg <= base_neg + REAL_SLACK and recall >= base_recall:
            break
    return power, {"written_power": power, "written_real_roll_rate_negatives": [round(base_neg, 4), round(neg, 4)],
                   "written_real_recall": [round(base_recall, 4), round(recall, 4)]}, style ** power * probs[:, 2]


_MINIMAL = {"roll": {"weights": [0.0], "bias": 0.0, "platt": [1.0, 0.0], "threshold": 0.5},
            "checks": {"classes": ["none"], "weights": [[0.0]], "bias": [0.0]}}  # a model that only weighs the written vote


def learn_written(model: dict[str, Any], on_progress: Callable[[str], None] | None = None,
                  real: tuple[LineFeatures, np.ndarray, list[str]] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(section, measured)``: the model file's ``written`` section, fitted with ``model``'s gate, and
    what it scored on the ``dev`` sets each held out in turn. ``real``: the training episodes' turn
    features, labels and lines, on which the vote's weight in play (the power of style) and the
    doubt's are chosen; without them they are ``POWER`` and ``DOUBT_POWER``."""
    say = on_progress or (lambda _: None)
    learned = LearnedDecision(model)
    pairs = written_cases("dev")
    if not pairs:
        return {}, {"written_cases": 0}
    cases = [case for case, _ in pairs]
    say(f"reading {len(cases)} written dev lines as the gate reads them")
    x, p_play = _features(cases, learned)
    y = np.array([WRITTEN_CLASSES.index(case.kind) for case in cases])
    sets = np.array([name for _, name in pairs])
    say("fitting the written vote on every dev set")
    fit = logistic(STRENGTH, class_weight="balanced").fit(x, y)
    section = {"weights": fit.coef_.tolist(), "bias": fit.intercept_.tolist(), "power": POWER, "classes": list(WRITTEN_CLASSES), "act": ACT}
    power, real_measured, real_weighed, real_doubt = POWER, {}, None, None
    if real is not None:
        say("choosing the vote's weight on the real training turns")
        rows, real_play = _real_rows(learned, real[0], real[2])
        power, real_measured, real_weighed = _power(learned, section, rows, real_play, real[1])
        real_doubt = _Leaning(learned, {**section, "power": power}, rows, real_play, real[1], real[2])
    say("the written vote, each dev set held out in turn")
    probs = _held_out(x, y, sets)
    style = x[:, -2]
    weighed = style ** power * probs[:, 2]
    possible = y != 2
    refuse_at = next((float(t) for t in BARS if (weighed[possible] >= t).mean() <= REFUSE_SHARE), 1.01)
    weigh = LearnedDecision({**_MINIMAL, "written": {**section, "power": power}}).weigh_written
    moved = np.array([weigh(p, learned.threshold, row, s)[0] for p, row, s in zip(p_play, probs, style)])
    rolled = moved >= learned.threshold
    doubt = _doubt(_Leaning(learned, {**section, "power": power}, x, p_play, y, [case.line for case in cases], probs), real_doubt)
    measured = {
        **doubt[1],
        "written_cases": len(cases), "written_sets": len(set(sets.tolist())),
        "written_held_out_roll_recall": round(float(rolled[y == 1].mean()), 4),
        "written_held_out_no_roll_kept": round(float((~rolled[y == 0]).mean()), 4),
        "written_held_out_impossible_not_told": round(float(rolled[y == 2].mean()), 4),
        "written_gate_roll_recall": round(float((p_play[y == 1] >= learned.threshold).mean()), 4),
        "written_gate_no_roll_kept": round(float((p_play[y == 0] < learned.threshold).mean()), 4),
        "written_refuse_at": round(refuse_at, 4),
        "written_held_out_impossible_refused": round(float((weighed[y == 2] >= refuse_at).mean()), 4),
        "written_held_out_possible_refused": round(float((weighed[possible] >= refuse_at).mean()), 4),
        **real_measured,
        **({"written_real_refused": round(float((real_weighed >= refuse_at).mean()), 5)} if real_weighed is not None else {}),
    }
    return {**section, "power": power, "refuse_at": refuse_at, **doubt[0]}, measured


class _Leaning:
    """For lines the gate and vote leave unrolled, acts only (words are never doubted), how far the
    vote leans to impossible over no roll before the style weight: what ``doubt_at`` reads."""

    def __init__(self, learned: LearnedDecision, section: dict[str, Any], rows: np.ndarray, p_play: np.ndarray,
                 y: np.ndarray, lines: list[str], probs: np.ndarray | None = None):
        model = LearnedDecision({**_MINIMAL, "written": section})
        probs = model.p_written(rows) if probs is None else probs
        self.style = rows[:, -2]
        moved = np.array([model.weigh_written(p, learned.threshold, row, s).p_roll for p, row, s in zip(p_play, probs, self.style)])
        acts = np.array([not words_only(line) for line in lines])
        self.open = (moved < learned.threshold) & acts
        self.lean = probs[:, 2] / np.maximum(probs[:, 2] + probs[:, 0], 1e-9)
        self.y = y

    def flagged(self, power: float, bar: float) -> np.ndarray:
        return self.open & (self.style ** power * self.lean >= bar)


def _doubt(written: _Leaning, real: _Leaning | None) -> tuple[dict[str, float], dict[str, Any]]:
    """``doubt_power`` and ``doubt_at``: of the pairs that roll at most ``DOUBT_SHARE`` of the held-out
    sets' no-roll acts and at most ``DOUBT_REAL_SLACK`` more of the real training negatives, the one
    that rolls the most held-out impossible acts the gate would have told as done."""
    best, best_caught = None, -1
    for power in DOUBT_POWERS if real is not None else (DOUBT_POWER,):
        for bar in BARS:
            flags = written.flagged(power, bar)
            if flags[written.y == 0].mean() > DOUBT_SHARE:
                continue
            if real is not None and real.flagged(power, bar)[real.y == 0].mean() > DOUBT_REAL_SLACK:
                continue
            caught = int(flags[written.y == 2].sum())
            if caught > best_caught:
                best, best_caught = (power, float(bar)), caught
    if best is None:
        return {}, {"written_doubt": None}
    power, bar = best
    flags = written.flagged(power, bar)
    told = written.open & (written.y == 2)
    return {"doubt_power": power, "doubt_at": bar}, {
        "written_doubt": {"power": power, "at": bar, "held_out_told_rolled": [int((flags & told).sum()), int(told.sum())],
                          "held_out_no_roll_rolled": round(float(flags[written.y == 0].mean()), 4),
                          **({"real_negatives_rolled": round(float(real.flagged(power, bar)[real.y == 0].mean()), 5)} if real else {})}}

