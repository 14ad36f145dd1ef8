"""Clues by intent: which of the scene's secrets a player's act is reaching for.

A secret used to open only when the model named its one exact check, so the Call of Cthulhu
footprints could never be found. Now the act decides: its words meet the secret's keywords, or
its meaning is close to the secret's ``trigger`` (MiniLM cosine). Any check of the secret's
family then finds it on a success.

    secret = reaching_for(scenario, "I kneel and look at the floorboards", revealed)
"""
from __future__ import annotations

import re
from typing import Callable

import numpy as np

from pipelines.speech import is_talk

from .table import Scenario, Secret

__all__ = ["reaching_for", "fits", "is_talk", "MEANING", "MEANING_WITH_WORD"]

MEANING = 0.55  # similarity to the trigger that is enough on its own
THE_ACT = 0.7  # ... the trigger's very act (the stair climbed 0.91, "the stairs to the bell tower" 0.80; the altar hurled 0.57)
MEANING_WITH_WORD = 0.3  # ... or with one of the secret's keywords in the line

Embed = Callable[[list[str]], np.ndarray]


def _keyword_hit(secret: Secret, line: str) -> bool:
    low = line.lower()
    return any(re.search(rf"\b{re.escape(k.lower())}", low) for k in secret.keywords if k.strip())


def _default_embed(texts: list[str]) -> np.ndarray:
    from pipelines.embeddings import embed_with

    return embed_with("auto", texts)  # one call, one encoder: MiniLM, or multilingual e5 for a Chinese scene


def reaching_for(scenario: Scenario, line: str, revealed: set[str] | list[str] = (), *, embed: Embed | None = None) -> Secret | None:
    """The unrevealed secret the act reaches for, or None.

    Each secret scores by the similarity of the line to its trigger (or, without one, to its
    keywords); it qualifies on meaning alone above ``MEANING``, or above ``MEANING_WITH_WORD``
    when a keyword is in the line too. The best qualifying secret wins.
    """
    open_ = [s for s in scenario.secrets if s.id not in set(revealed)]
    if not open_ or not line.strip():
        return None
    embed = embed or _default_embed
    probes = [s.trigger or " ".join(s.keywords) or s.text for s in open_]
    vectors = embed([line, *probes])
    sims = vectors[1:] @ vectors[0]
    best: tuple[float, Secret] | None = None
    for secret, sim in zip(open_, sims):
        hit = _keyword_hit(secret, line)
        if sim >= MEANING or (hit and sim >= MEANING_WITH_WORD):
            score = float(sim) + (0.1 if hit else 0.0)
            if best is None or score > best[0]:
                best = (score, secret)
    return best[1] if best else None


def meant(secret: Secret, line: str, *, embed: Embed | None = None) -> bool:
    """Whether the line is the very act the secret's trigger describes (on meaning alone, not a shared keyword):
    "I climb the broken stair up into the bell tower" for "climbing the broken stair up into the bell tower"."""
    vectors = (embed or _default_embed)([line, secret.trigger or " ".join(secret.keywords) or secret.text])
    return float(vectors[1] @ vectors[0]) >= THE_ACT


def fits(secret: Secret, check_id: str) -> bool:
    """Whether a check belongs to the secret's family of checks."""
    return check_id in secret.checks
