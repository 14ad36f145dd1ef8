"""The features the learned decision reads: one function, so the build and play read alike.

A line's features are its MiniLM vector, the vector of what the GM said last (the scene's last
words: on a real table whether a check comes depends as much on the moment as on the line), the
line just before it when another player said it, the
pack's example-line vote (its share for rolling at all, for ``no_roll`` and for ``impossible``,
and the nearest example's similarity) and a few surface marks a DM hears at once (a question,
a number, first person, "I try", quoted speech). Everything is computed from inputs a played
GM has: no later turn is ever read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..check_index import DECISIONS, IMPOSSIBLE, NO_ROLL, CheckIndex

__all__ = ["act_words", "BLOCKS", "LineFeatures", "previous_block", "surface", "SURFACE_NAMES", "vote_features", "VOTE_NAMES", "scene_tail", "SCENE_CHARS"]

SCENE_CHARS = 600  # the scene's last words, about one beat of a GM's description

_FIRST = re.compile(r"\b(?:i|i'm|i'll|i'd|i've|me|my)\b")
_TRY = re.compile(r"\b(?:try|tries|trying|attempt\w*|going to|gonna|want to|wanna|can i|could i|i'd like to|i'll)\b")
_DEED = re.compile(r"\b(?:look|search|check|listen|sneak|hide|climb|jump|grab|pick|open|investigate|examine|inspect|"
                   r"follow|track|persuade|convince|lie|bluff|intimidate|threaten|steal|pocket|swim|run|lift|push|pull|"
                   r"break|force|cast|heal|stabili[sz]e|read|study|recall|remember|know)\w*")
_NUMBER = re.compile(r"\d|\bnat(?:ural)?\b")
_PROMPT = re.compile(r"\b(?:what do you (?:do|want)|what are you doing|what would you like|go ahead|anything else|how do you)\b")
_ROLLISH = re.compile(r"\b(?:check|roll|save|saving throw|dc)\b")

SURFACE_NAMES = ("log_chars", "question", "first_person", "tries", "deed_verb", "number", "quoted", "exclaims",
                 "scene_asks", "scene_rolls", "log_scene_chars")
VOTE_NAMES = ("vote_roll", "vote_no_roll", "vote_impossible", "vote_best_similarity")
BLOCKS = ("line", "scene", "previous", "vote", "surface")


_ACT_PARTS = {"VERB", "AUX", "PART", "ADV", "ADP", "ADJ"}


def act_words(line: str) -> str:
    """The words of what a line does, without what it does it to: "I read the open logbook" → "read open",
    "I walk up to the barrel gate slowly" → "walk up to slowly". MiniLM hears a whole line's topic (a logbook,
    a gate) more than its act; this is the act heard alone. Without the parser, the line as it is."""
    from ..english import parse

    doc = parse(" ".join(line.split())[:400]) if line.strip() else None
    if doc is None:
        return line or " "
    return " ".join(t.text.lower() for t in doc if t.pos_ in _ACT_PARTS) or "none"


def scene_tail(scene: str, limit: int = SCENE_CHARS) -> str:
    """The scene's last sentences, up to ``limit`` characters: where the players act."""
    scene = " ".join(scene.split())
    if len(scene) <= limit:
        return scene
    out = ""
    for sentence in reversed(re.findall(r"[^.!?]+[.!?]*", scene)):
        if out and len(out) + len(sentence) > limit:
            break
        out = sentence.strip() + " " + out
    return out.strip()[-limit:]


def surface(line: str, scene: str) -> np.ndarray:
    """The few marks a DM hears before the meaning: see ``SURFACE_NAMES``."""
    low, tail = line.lower(), scene_tail(scene).lower()[-200:]
    return np.array([
        np.log1p(len(line)), line.rstrip(" \"'”’").endswith("?"), bool(_FIRST.search(low)), bool(_TRY.search(low)),
        bool(_DEED.search(low)), bool(_NUMBER.search(low)), '"' in line or "“" in line, "!" in line,
        bool(_PROMPT.search(tail)), bool(_ROLLISH.search(tail)), np.log1p(len(scene)),
    ], dtype=np.float32)


def vote_features(index: CheckIndex, query: np.ndarray, act: str, k: int = 20, temperature: float = 0.1) -> np.ndarray:
    """The pack's example lines on *whether* to roll: the wide, soft vote's shares."""
    if not len(index):
        return np.zeros(len(VOTE_NAMES), dtype=np.float32)
    vote = index.vote(act, k=k, temperature=temperature, query=query)
    rest = sum(vote.scores.get(lab, 0.0) for lab in DECISIONS)
    best = max((n.similarity for n in vote.neighbours), default=0.0)
    return np.array([max(0.0, 1.0 - rest), vote.scores.get(NO_ROLL, 0.0), vote.scores.get(IMPOSSIBLE, 0.0), best],
                    dtype=np.float32)


def previous_block(vector: np.ndarray | None, by_gm: bool, width: int) -> np.ndarray:
    """The turn before the line: another player's line (its vector; a teammate's "you should check
    for traps" often comes first), or, when the GM spoke last, zeros and a flag (the scene says it)."""
    out = np.zeros(width + 1, dtype=np.float32)
    if by_gm or vector is None:
        out[-1] = 1.0
    else:
        out[:width] = vector
    return out


@dataclass
class LineFeatures:
    """The vectors of a batch of lines: ``line`` and ``scene`` (MiniLM, unit length), ``previous``
    (``previous_block``), ``vote`` and ``surface`` (``VOTE_NAMES`` and ``SURFACE_NAMES``), row by row."""

    line: np.ndarray
    scene: np.ndarray
    previous: np.ndarray
    vote: np.ndarray
    surface: np.ndarray

    def matrix(self, blocks: tuple[str, ...] = BLOCKS) -> np.ndarray:
        """The named blocks side by side (a model records which it reads)."""
        unknown = [b for b in blocks if b not in BLOCKS]
        if unknown:
            raise ValueError(f"unknown feature block {unknown[0]!r}; blocks are {', '.join(BLOCKS)}")
        return np.hstack([getattr(self, b) for b in blocks]).astype(np.float32)
