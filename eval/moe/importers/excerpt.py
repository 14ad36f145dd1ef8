"""How much of the log before a check becomes its context: the paper's excerpt rules, or a fixed window.

Tachikuma §3.4 names three principles, each a rule here (``--excerpt paper``):

- ``event`` — "the excerpted contexts encompass complete events within the game, such as the entire
  process of encountering enemies or the detailed information and clues leading up to the exploration
  of certain locations": the context starts at the last event boundary before the check (a silence of
  ``gap_minutes`` or more, a GM scene marker such as ``【第二幕】``/``——转场——``/``---``, or the start of
  the log; in CRD3, which has no times, the DM's "welcome back" after a break), capped at ``max_turns``;
- ``two_characters`` — "the excerpted contexts involve at least two characters who are present in the
  current scenarios": fewer than two characters speaking in the excerpt drops the check;
- ``predictable`` — "at least one character within the excerpted contexts has a skill check that can be
  predicted": a check whose characters never act in the excerpt is dropped, and so are the checks §3.3
  calls unpredictable: "perception checks may be prompted by the GM when players enter specific
  locations" (a Spot Hidden/Listen the GM calls straight after their own description, no player between)
  and checks that "require additional calculations" (bare dice such as damage, HP, armour).

``--excerpt window`` is the importers' older rule: the last ``window`` turns, nothing dropped for
content; kept so both can be compared on the same log.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.records import Turn
from rulesets import VgmError

EXCERPTS = ("paper", "window")
PAPER_RULES = ("event", "two_characters", "predictable")
GM_PROMPTED = {"spot_hidden", "listen"}  # the §3.3 example: perception the GM calls on arrival
_MARKER = re.compile(r"^\s*(?:[【\[（(]\s*)?(?:第[一二三四五六七八九十百\d]+[幕章节幕天夜回]|场景|转场|幕间|scene\b|chapter\b)|^\s*[-—=*~#]{3,}|^\s*(?:and\s+|all\s+right,?\s+)?welcome\s+back\b", re.IGNORECASE)


@dataclass(frozen=True)
class ExcerptRules:
    """Which excerpt and which of the paper's rules apply (all three under ``paper``)."""

    mode: str = "paper"
    window: int = 30
    gap_minutes: float = 30.0
    max_turns: int = 120
    rules: tuple[str, ...] = PAPER_RULES

    def applies(self, rule: str) -> bool:
        return self.mode == "paper" and rule in self.rules


def parse_rules(text: str | None) -> tuple[str, ...]:
    """``"event,two_characters"`` → those rules (all three when None), so each can be switched off and compared."""
    if text is None:
        return PAPER_RULES
    chosen = tuple(r.strip() for r in text.split(",") if r.strip())
    unknown = [r for r in chosen if r not in PAPER_RULES]
    if unknown:
        raise VgmError(f"--excerpt-rules: unknown rule {unknown[0]!r}; choose from {', '.join(PAPER_RULES)}")
    return chosen


def is_scene_marker(text: str) -> bool:
    """A GM line that opens a new scene or act (``【第二幕】``, ``——转场——``, ``---``)."""
    return bool(_MARKER.match(text))


def excerpt_start(turns: list[Turn], times: list[float | None], rules: ExcerptRules) -> int:
    """Index of the first context turn: the last event boundary (paper) or ``len - window``."""
    if rules.mode == "window" or "event" not in rules.rules:
        return max(0, len(turns) - rules.window)
    start = 0
    for i in range(len(turns) - 1, 0, -1):
        gap = times[i] is not None and times[i - 1] is not None and (times[i] - times[i - 1]) >= 60 * rules.gap_minutes
        if gap or (turns[i].speaker == "GM" and is_scene_marker(turns[i].text)):
            start = i
            break
    return max(start, len(turns) - rules.max_turns)


def characters_speaking(turns: list[Turn], bots: set[str] = frozenset()) -> set[str]:
    """Who speaks in an excerpt, the GM and the bot left out."""
    return {t.speaker for t in turns if t.speaker != "GM" and t.speaker not in bots}


def drop_reason(turns: list[Turn], answers: list[tuple[str, str]], rules: ExcerptRules, *, gm_spoke_last: bool = False) -> str | None:
    """Why the paper's rules drop this check (None: keep).

    ``answers``: (character, skill id); ``gm_spoke_last``: the last line before the roll (the request
    included) was the GM's, with no player in between.
    """
    speaking = characters_speaking(turns)
    if rules.applies("two_characters") and len(speaking) < 2:
        return "fewer than two characters in the excerpt (Tachikuma §3.4, rule 2)"
    if rules.applies("predictable"):
        if not any(character in speaking for character, _ in answers):
            return "no checked character acts in the excerpt, so the check cannot be predicted (§3.4, rule 3)"
        if all(skill in GM_PROMPTED for _, skill in answers) and gm_spoke_last:
            return "perception the GM called right after their own description (§3.3: not predictable)"
    return None
