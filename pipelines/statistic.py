"""The statistic predictor (Tachikuma section 6): the most frequent check, learned from training data.

It counts, per rule set, how often each character and each skill was asked for, so a
pipeline can pick "the skill this character is usually asked for", falling back to the
rule set's most frequent skill, and a character "who is usually asked". It is the floor a
model pipeline has to beat.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from .records import MoeInstance


def _key(name: str) -> str:
    return " ".join(name.lower().split())


class SkillStats:
    """Skill and character frequencies per rule set, from gold answers.

    ``exclude`` lets one predict for an instance that is itself in the training data
    (leave-one-out), so a run without a separate training file does not see its own label.
    """

    def __init__(self, instances: Iterable[MoeInstance] = ()) -> None:
        self.by_character: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.by_ruleset: dict[str, Counter[str]] = defaultdict(Counter)
        self.characters: dict[str, Counter[str]] = defaultdict(Counter)
        self.size = 0
        for instance in instances:
            self.add(instance)

    def add(self, instance: MoeInstance, sign: int = 1) -> None:
        self.size += sign
        for check in instance.answers:
            self.by_character[(instance.ruleset, _key(check.character))][check.skill] += sign
            self.by_ruleset[instance.ruleset][check.skill] += sign
            self.characters[instance.ruleset][_key(check.character)] += sign

    @staticmethod
    def _top(counts: Counter[str], minus: Counter[str], allowed: Any) -> str | None:
        best = [(n - minus.get(skill, 0), skill) for skill, n in counts.items() if allowed is None or skill in allowed]
        best = [(n, skill) for n, skill in best if n > 0]
        # most frequent first; ties broken by name so runs are reproducible
        return min(best, key=lambda pair: (-pair[0], pair[1]))[1] if best else None

    def top_skill(self, ruleset: str, character: str, *, pack: Any = None, exclude: MoeInstance | None = None) -> str | None:
        """The character's most frequent skill, else the rule set's, else the pack's default."""
        allowed = getattr(pack, "checks", None)
        own = Counter(c.skill for c in (exclude.answers if exclude else []) if _key(c.character) == _key(character))
        every = Counter(c.skill for c in (exclude.answers if exclude else []))
        found = self._top(self.by_character.get((ruleset, _key(character)), Counter()), own, allowed)
        found = found or self._top(self.by_ruleset.get(ruleset, Counter()), every, allowed)
        return found or default_skill(pack)

    def top_character(self, ruleset: str, names: list[str], *, exclude: MoeInstance | None = None) -> str | None:
        """Of ``names``, the one asked for checks most often in training; None when none was."""
        counts = self.characters.get(ruleset, Counter())
        minus = Counter(_key(c.character) for c in (exclude.answers if exclude else []))
        scored = [(counts.get(_key(n), 0) - minus.get(_key(n), 0), -i, n) for i, n in enumerate(names)]
        scored = [s for s in scored if s[0] > 0]
        return max(scored)[2] if scored else None


def default_skill(pack: Any) -> str | None:
    """With no training data: the pack's perception-like check (the commonest GM call), else its first."""
    if pack is None:
        return None
    for name in ("perception", "spot hidden", "notice"):
        found = pack.try_resolve(name)
        if found:
            return found
    return next(iter(pack.checks), None)
