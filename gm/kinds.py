"""Kinds of things, and how big and how old such things usually are (gm/data/things.yaml): what a GM says of a
size or an age the world never gives ("how tall is the lighthouse?"), and what keeps one thing's size from answering
another's ("The lighthouse is 65 feet tall" tells no saloon's height)."""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from typing import Any

import yaml

from pipelines.english import parse

__all__ = ["asked_thing", "calling", "kind_of", "names_someone", "prior", "round_figure", "usual", "usual_kinds", "usual_size"]


def prior(question: str, low: int, high: int) -> int:
    """A number in [low, high] fixed by the question's words: the same question, the same number, in every run."""
    digest = hashlib.sha256(" ".join(question.lower().split()).encode()).digest()
    return low + int.from_bytes(digest[:4], "big") % (high - low + 1)


def names_someone(thing: str, world: Any) -> bool:
    """Whether "the keeper" or "Ruth" is one of the world's people, by name or calling (the head word of their role:
    "the lighthouse" is not "the lighthouse keeper")."""
    words = {w.lower() for w in re.findall(r"[A-Za-z'’-]+", thing)} - {"the", "a", "an", "of", "old", "young"}
    return any(words & ({w.lower() for w in re.findall(r"[A-Za-z'’-]+", n.name)} | {calling(getattr(n, "role", "") or "")})
               for n in getattr(world, "npcs", []) or [])


def calling(role: str) -> str:
    """What a role says someone is: "the keeper's grown daughter" → "daughter", "a gambler in a brocade vest" → "gambler"."""
    doc = parse(role)
    chunk = next(iter(doc.noun_chunks), None) if doc is not None and role else None
    return chunk.root.lower_ if chunk is not None else ""


@functools.cache
def usual_kinds() -> dict[str, dict[str, list[float]]]:
    return yaml.safe_load((Path(__file__).parent / "data" / "things.yaml").read_text(encoding="utf-8"))


def usual(kind: str | None, trait: str) -> Any:
    """What things of ``kind`` usually are in one trait ("tall", "old", "of", ...), as gm/data/things.yaml has it; None."""
    return usual_kinds().get(kind or "", {}).get(trait)


def asked_thing(phrase: str) -> str:
    """The thing a phrase names, without what it is placed by: "the chain on the lighthouse door" → "the chain"."""
    return re.split(r"\s+(?:on|in|of|at|by|over|under|round|around|with)\s+", phrase)[0]


@functools.cache
def _kind_vectors() -> tuple[list[str], Any]:
    from pipelines.embeddings import embed  # MiniLM is loaded only when a thing's kind is not in the table by name
    kinds = list(usual_kinds())
    return kinds, embed(kinds)


_PERSON_WORD = re.compile(r"(?:er|or|man|men|ess|ist|ian|wife|boy|girl|smith|lord|lady|guard|chief|kid|child)s?$")
_LIKE_A_KIND = 0.6  # MiniLM cosine at which a word is taken for a kind ("watchtower" a tower); below it, no kind


def kind_of(thing: str, world: Any = None) -> str | None:
    """The kind of thing in gm/data/things.yaml that ``thing`` is: its head word ("the drop to the water" is a drop, "the
    bell tower" a bell tower), singular; else one of the world's people is a person; else a word ending in a kind
    ("watchtower"), or the nearest kind by meaning unless the word is for someone ("the bartender" is no bar); None
    for no kind near enough."""
    doc = parse(thing)
    chunk = next(iter(doc.noun_chunks), None) if doc is not None else None
    words = [t.lower_ for t in chunk] if chunk is not None else re.findall(r"[a-z'’-]+", thing.lower())
    head = chunk.root.lower_ if chunk is not None else (words[-1] if words else "")
    if not head or head in ("it", "that", "this"):
        return None
    at = words.index(head) if head in words else len(words) - 1
    kinds = usual_kinds()
    for word in ([" ".join(words[at - 1:at + 1])] if at else []) + [head]:
        for form in (word, re.sub(r"ies$", "y", word), re.sub(r"(?:es|s)$", "", word), word[:-1] if word.endswith("s") else word):
            if form in kinds:
                return form
    if names_someone(thing, world):
        return "person"
    # a word made of a kind and more: "watchtower" is a tower, "floodgate" a gate
    made = max((k for k in kinds if " " not in k and len(k) >= 4 and head.endswith(k)), key=len, default=None)
    if made:
        return made
    if _PERSON_WORD.search(head):
        return None
    names, vectors = _kind_vectors()
    from pipelines.embeddings import embed
    likeness = vectors @ embed(head)[0]
    return names[int(likeness.argmax())] if likeness.max() >= _LIKE_A_KIND else None


def round_figure(n: float) -> float:
    """A figure a GM says: 7, 35, 120, 450, 2000, not 37.4."""
    step = 0.5 if n < 5 else 1 if n < 20 else 5 if n < 100 else 10 if n < 300 else 50 if n < 1000 else 100 if n < 5000 else 500
    return max(step, round(n / step) * step)


def usual_size(question: str, kind: str | None, way: str) -> tuple[float, str] | None:
    """How big a thing of ``kind`` is, measured ``way`` (high, deep, wide, long, far), as such things are
    (gm/data/things.yaml), at a point of the usual range fixed by the question; a number and its unit (feet, yards or
    miles). None for no kind, or a kind not measured that way."""
    span = usual(kind, {"high": "tall"}.get(way, way))
    if not span:
        return None
    low, high = span
    feet = low * (high / low) ** (prior(question, 0, 1000) / 1000)  # even on a log scale: a cliff is 40 feet as often as 90
    if feet >= 3960:  # three quarters of a mile and more is told in miles
        return round_figure(feet / 5280) if feet < 5 * 5280 else round(feet / 5280), "miles"
    if way == "far" and feet >= 150:
        return round_figure(feet / 3), "yards"
    return round_figure(feet), "feet"
