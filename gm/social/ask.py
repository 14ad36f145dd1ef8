"""One decision the moderator asks of one seat: what kind, which answers are legal, and why not.

The engine builds an ``Ask`` in its hot loop, so it is a plain slotted object; the question
text for LLM and human seats is built lazily (scripted seats never pay for it).
"""
from __future__ import annotations

from collections.abc import Callable
import re
from typing import Any


class Ask:
    """A decision request.

    Args:
        kind: the engine's decision name (``propose``, ``vote``, ``mission``, ``speak``, ...).
        options: the legal names/choices (players one may name, etc.).
        check: ``value -> None`` when legal, else a one-line reason shown to the seat.
        fallback: ``rng -> value``: a legal move used when a model fails twice.
        question: ``() -> str``: the instruction text for LLM and human seats.
        size: a team size, when the decision is a team.
    """

    __slots__ = ("kind", "options", "check", "fallback", "question", "size", "notes", "extra")

    def __init__(
        self,
        kind: str,
        options: list[str] | None = None,
        *,
        check: Callable[[Any], str | None] | None = None,
        fallback: Callable[[Any], Any] | None = None,
        question: Callable[[], str] | None = None,
        size: int = 0,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.options = options or []
        self.check = check
        self.fallback = fallback
        self.question = question
        self.size = size
        self.notes: list[dict[str, Any]] = []  # private records the seat leaves (reasoning, illegal moves)
        self.extra = extra or {}

    def error(self, value: Any) -> str | None:
        return self.check(value) if self.check is not None else None

    def text(self) -> str:
        return self.question() if self.question is not None else self.kind


def one_of(options: list[str], what: str = "player") -> Callable[[Any], str | None]:
    """A check: the value must be one of ``options`` (names are matched exactly)."""

    def check(value: Any) -> str | None:
        if value in options:
            return None
        return f"{value!r} is not a {what} you may name; choose one of {', '.join(options)}"

    return check


def resolve_name(text: Any, names: list[str]) -> str | None:
    """A typed or generated name → the seat name: exact, case-insensitive, or seat number."""
    if text is None:
        return None
    s = str(text).strip().strip(".'\"").strip()
    if s in names:
        return s
    low = s.lower()
    for n in names:
        if n.lower() == low:
            return n
    m = _SEAT_NUMBER.fullmatch(low)
    if m and 1 <= int(m.group(1)) <= len(names):
        return names[int(m.group(1)) - 1]
    return None


def player_name(text: Any, names: list[str]) -> str:
    """``resolve_name`` for model answers: an unknown name is a ``ValueError`` the seat is re-asked with."""
    hit = resolve_name(text, names)
    if hit is None:
        raise ValueError(f"{text!r} is not a player; use one of {', '.join(names)}")
    return hit


_SEAT_NUMBER = re.compile(r"(?:player|seat|p|#)?\s*(\d+)\s*(?:号|号玩家)?")
