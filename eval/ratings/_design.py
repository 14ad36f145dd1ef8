"""Crowd-scale designs: each item rated by exactly K people, each person a random subset of M items.

The rule is pure (no database) so property tests can drive it: ``share`` picks a newcomer's items
from the live count of raters holding each one. Items with the fewest holders go first (random
among equals), so no item runs ahead of another by more than one; the load is the open slots split
evenly over the raters still needed, so loads differ by at most one. A drop-out's unanswered items go
back into the pool (``_store`` does that) and the next newcomers take them.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass
from typing import Mapping

from ._errors import StudyError

DROP_AFTER_MINUTES = 60.0
"""Default: an unfinished rater silent this long has dropped out; their open items go to others."""


@dataclass(frozen=True)
class Design:
    """K ratings per item, at most M items per rater (attention items come on top)."""

    per_item: int
    per_rater: int
    drop_after: float = DROP_AFTER_MINUTES * 60  # seconds

    def quota(self, items: int) -> int:
        """Participants needed when nobody drops out: items x K / M, rounded up."""
        return math.ceil(items * self.per_item / self.per_rater)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | None) -> "Design | None":
        return cls(**json.loads(text)) if text else None


def design(per_item: int | None, per_rater: int | None, items: int, drop_after_minutes: float = DROP_AFTER_MINUTES) -> Design | None:
    """A checked design for ``items`` rateable items; None when neither number is given. One line per mistake."""
    if per_item is None and per_rater is None:
        return None
    if per_item is None or per_rater is None:
        given, missing = ("--per-item", "--per-rater") if per_rater is None else ("--per-rater", "--per-item")
        raise StudyError(f"{given} needs {missing} too: each item gets K ratings, each rater M items (e.g. --per-item 3 --per-rater 30)")
    if per_item < 1:
        raise StudyError(f"--per-item {per_item}: give how many ratings each item gets, 1 or more (e.g. 3)")
    if per_rater < 1:
        raise StudyError(f"--per-rater {per_rater}: give how many items each rater gets, 1 or more (e.g. 30)")
    if per_rater > items:
        raise StudyError(f"--per-rater {per_rater}: the study has only {items} items and nobody rates one twice; "
                         f"give --per-rater {items} or fewer")
    if not 0 < drop_after_minutes < 60 * 24 * 365:
        raise StudyError(f"--drop-after {drop_after_minutes:g}: give the minutes of silence after which a rater has dropped out, e.g. 60")
    return Design(per_item, per_rater, float(drop_after_minutes) * 60)


def load_for(open_slots: int, per_rater: int) -> int:
    """How many items the next rater gets: the open slots split evenly over the raters still needed."""
    if open_slots <= 0:
        return 0
    raters = math.ceil(open_slots / per_rater)
    return math.ceil(open_slots / raters)


def share(holders: Mapping[int, int], per_item: int, per_rater: int, rng: random.Random, mine: frozenset[int] = frozenset()) -> list[int]:
    """The items a new rater gets, given how many raters hold each item now (``holders``).

    Never an item already held K times or already in ``mine``; the least-held first, random among equals.
    """
    open_slots = sum(per_item - n for n in holders.values() if n < per_item)
    load = load_for(open_slots, per_rater)
    free = [i for i, n in holders.items() if n < per_item and i not in mine]
    rng.shuffle(free)
    free.sort(key=lambda i: holders[i])  # stable: random among items held equally often
    return sorted(free[:load])
