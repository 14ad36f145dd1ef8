"""Rest between fights, by each game's rules: what an hour, or a night, gives back.

- dnd5e (SRD 5.1, "Resting"): a short rest (at least an hour) spends Hit Dice until the hit points
  are full or the dice run out, and gives a warlock's pact slots back; a long rest (8 hours) gives
  every hit point and slot back and half the level in Hit Dice (``d20.short_rest`` / ``long_rest``).
- coc7e (Keeper Rulebook, "Using Magic": magic points regenerate at one point per hour, never
  above a fifth of POW): ``hours`` magic points back.
- pf2e (Player Core, "Rest and Daily Preparations"): 8 hours' rest heals the Constitution modifier
  (at least 1) times the level, and the daily preparations give back every spell slot and the
  Focus Points; a rest of 10 minutes or more is a Refocus (1 Focus Point back).
- swade (core rules, "Recharging"): 5 power points back for every hour of rest, up to the maximum.

The dead do not rest; a character at 0 HP in dnd5e gets no long rest (the rules' own line).
"""
from __future__ import annotations

import random
import re

from ._base import NIGHT
from ._common import event
from ._model import Combatant, CombatEvent, rules_for

__all__ = ["rest", "read_rest", "NIGHT"]

_REST = re.compile(r"\b(?:rest|rests|resting|sleep|sleeps|camp|camps|make camp|bed down|turn in|meditate|recuperate|catch our breath)\b", re.I)
_NOT = re.compile(r"\b(?:rest of|arrest|the rest\b|rest (?:my|his|her|a) (?:hand|foot|head|eyes|elbow)|rests? (?:on|against|upon))\b", re.I)
_WHO = re.compile(r"(?:i|we|let'?s|let us|everyone|the party|the group|all of us|(?:ok(?:ay)?|fine|right),?\s+(?:we|let'?s)|rest|take|make|camp)\b")
_SAID = re.compile(r"[?\"“]|\b(?:ask|asks|tell|tells|say|says|suggest|suggests|whisper|whispers|beg|begs|urge|urges)\b")
_WORDS = {"an": 1, "a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "ten": 10, "twelve": 12}


def read_rest(text: str) -> float | None:
    """How many hours a line rests ("we take a long rest" 8, "a short rest" 1, "rest for three hours" 3,
    "we sleep" / "make camp for the night" 8, "ten minutes" 1/6; ``/rest``, ``/rest long``,
    ``/rest 3``); None when it does not rest."""
    low = text.lower().strip()
    if (command := re.match(r"/rest\b\s*(.*)$", low)) is not None:  # the terminal's /rest [short|long|HOURS]
        arg = command.group(1).strip()
        if arg in ("", "short"):
            return 1.0
        if arg in ("long", "night"):
            return NIGHT
        number = re.match(r"(\d+(?:\.\d+)?)\s*(?:h|hours?)?$", arg)
        return float(number.group(1)) if number else None
    if not _REST.search(low) or _NOT.search(low) or not _WHO.match(low) or _SAID.search(low):
        return None  # "Maren, you should rest", "I ask her whether we can rest": words, not the party resting
    if re.search(r"\blong rest\b|\bnight\b|\bsleep\b|\bovernight\b|\buntil (?:morning|dawn)\b|\bfull day\b|\bbed down\b|\bturn in\b", low):
        return NIGHT
    m = re.search(r"\b(\d+(?:\.\d+)?|an|a|one|two|three|four|five|six|seven|eight|ten|twelve)\s+(hours?|minutes?)\b", low)
    if m:
        n = float(m.group(1)) if m.group(1)[0].isdigit() else _WORDS[m.group(1)]
        return n if m.group(2).startswith("hour") else n / 60
    return 1.0  # "a short rest", "we rest a while"


def rest(c: Combatant, hours: float, rng: random.Random | None = None) -> list[CombatEvent]:
    """What ``hours`` of rest give ``c`` back by its game's rules (one line each; each rules module's ``rest``)."""
    if c.status == "dead":
        return [event(None, c, "rest", f"{c.name} is dead; rest does not help")]
    return rules_for(c.system).rest(c, hours, rng or random.Random())
