"""What the scene and the player's words say about how hard a check is, before a mechanic reads them.

Small and general on purpose: the scenario's secrets carry the real numbers; the words only
nudge a default up or down one step, or ask for advantage / a bonus die.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..table import Scenario, Secret

_HARDER = re.compile(r"\b(quickly|hurr(y|ied|iedly)|rush(ing)?|in the dark|while (running|climbing|falling)|under fire|blind(ly|folded)?|one[- ]handed|desperate(ly)?|in a hurry)\b", re.I)
_EASIER = re.compile(r"\b(carefully|slowly|take my time|taking my time|methodical(ly)?|patiently|thoroughly|with (a|the) (rope|light|torch|lantern|tools?|help))\b", re.I)
_ADVANTAGE = re.compile(r"\b(with advantage|advantage|bonus die)\b", re.I)
_DISADVANTAGE = re.compile(r"\b(with disadvantage|disadvantage|penalty die)\b", re.I)


@dataclass(frozen=True)
class Cues:
    """The inputs every mechanic's ``choose_difficulty`` starts from."""

    secret: Secret | None  # the unrevealed scenario secret this action reaches, if any
    base: int | str | None  # the secret's difficulty, else the scene's default, else None
    source: str  # why that base ("the scene sets it": never the secret's id, which players read), or ""
    shift: int  # -1 easier, 0, +1 harder, from the player's words
    shift_why: str  # "'quickly' makes it harder"
    edge: int  # +1 advantage / bonus die, -1 disadvantage / penalty die, 0 neither
    party_level: int  # pf2e: the scene's party level (1 without a scene)

    @property
    def secret_id(self) -> str | None:
        return self.secret.id if self.secret else None

    @property
    def nudge(self) -> int:
        """The player's words move the difficulty only when no secret has set it."""
        return 0 if self.secret else self.shift

    def number(self, default: int) -> int:
        """The base as a number (a DC or a TN modifier), or ``default`` when there is none."""
        base = self.base
        return int(base) if base is not None and str(base).lstrip("-").isdigit() else default


def matching_secret(scenario: Scenario | None, check_id: str, text: str, revealed: set[str]) -> Secret | None:
    """The first unrevealed secret for this check whose keywords the action names (or one with none)."""
    if scenario is None:
        return None
    words = text.lower()
    by_skill = [s for s in scenario.secrets if check_id in s.checks and s.id not in revealed]
    keyed = [s for s in by_skill if any(k.lower() in words for k in s.keywords)]
    if keyed:
        return keyed[0]
    unkeyed = [s for s in by_skill if not s.keywords]
    return unkeyed[0] if unkeyed else None


def step(text: str) -> tuple[int, str]:
    """-1 (easier), 0, +1 (harder) from the player's words, with the words as the reason."""
    hard, easy = _HARDER.search(text), _EASIER.search(text)
    if hard and not easy:
        return 1, f"'{hard.group(0)}' makes it harder"
    if easy and not hard:
        return -1, f"'{easy.group(0)}' makes it easier"
    return 0, ""


def edge(text: str) -> int:
    """+1 when the player asks for advantage (or a bonus die), -1 for the opposite, 0 for both or neither."""
    adv, dis = bool(_ADVANTAGE.search(text)), bool(_DISADVANTAGE.search(text))
    return 0 if adv == dis else (1 if adv else -1)


def read_cues(check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Cues:
    """Everything the scene and the words say about ``check_id`` for the action ``text``."""
    secret = matching_secret(scenario, check_id, text, revealed or set())
    shift, shift_why = step(text)
    usual = scenario.difficulty if scenario and scenario.difficulty is not None else None
    base = secret.difficulty if secret and secret.difficulty is not None else usual
    source = "the scene sets it" if secret else ("the scene's usual difficulty" if base is not None else "")
    return Cues(secret=secret, base=base, source=source, shift=shift, shift_why=shift_why, edge=edge(text),
                party_level=scenario.level if scenario else 1)
