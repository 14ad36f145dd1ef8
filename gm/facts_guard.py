"""Guards of the world's facts: a sentence of the GM's reply must not unsay what the world holds.

Two kinds a player notices at once ("How far is the drop?" → "about two miles" when the scene
says forty feet; the dead keeper answering a question):

    quantities("a drop of forty feet, 12 ft wide")          # {(40, "foot"), (12, "foot")}
    contradicts_numbers("It is two miles away.", ["The far bank lies forty feet off."])   # False: no miles stated
    contradicts_numbers("The drop is ten feet.", ["The drop is forty feet."])             # True
    speaks_for_the_silent('Ruth says, "Go away."', ["Ruth Quist"])                        # "Ruth Quist"
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pipelines.numbers import number_value
from pipelines.speech import first_name

__all__ = ["quantities", "contradicts_numbers", "speaks_for_the_silent"]

_UNIT = {  # the unit's words → one name, so "ft", "foot" and "feet" compare
    "foot": "foot", "feet": "foot", "ft": "foot", "yard": "yard", "yards": "yard", "mile": "mile", "miles": "mile",
    "metre": "metre", "metres": "metre", "meter": "metre", "meters": "metre", "m": "metre", "inch": "inch", "inches": "inch",
    "pace": "pace", "paces": "pace", "year": "year", "years": "year", "day": "day", "days": "day", "night": "night",
    "nights": "night", "hour": "hour", "hours": "hour", "week": "week", "weeks": "week", "month": "month", "months": "month",
    "minute": "minute", "minutes": "minute", "step": "pace", "steps": "pace",
}
_NUMBER = r"\d+(?:[.,]\d+)?|(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|" \
          r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|" \
          r"nineteen|a|an)(?:\s+hundred)?"
_QUANTITY = re.compile(rf"\b({_NUMBER})[\s-]+({'|'.join(sorted(_UNIT, key=len, reverse=True))})\b", re.I)
# being there at all: what an absent NPC cannot do ("Abner Quist is asleep", "Abner sits by the stove")
_THERE = (r"is (?:asleep|here|there|sitting|standing|waiting|watching|sleeping|inside|upstairs)|sits|stands|sleeps|waits|watches|"
          r"looks (?:at|up|on)|nods|smiles|walks|enters|appears|steps|leans|turns")
_SPEECH = re.compile(r"\b(?:says?|said|answers?|answered|replies|replied|whispers?|whispered|mutters?|muttered|tells?|told|"
                     r"explains?|explained|speaks?|spoke|calls?|called|asks?|asked|nods?|nodded|shrugs?|shrugged|smiles?|smiled|laughs?|laughed)\b", re.I)


def quantities(text: str) -> set[tuple[float, str]]:
    """The (value, unit) pairs a text states: "forty feet" → (40.0, "foot")."""
    out = set()
    for number, unit in _QUANTITY.findall(text):
        value = number_value(number) or None
        if value is not None and not (number.lower() in ("a", "an") and unit.lower() in ("m",)):
            out.add((value, _UNIT[unit.lower()]))
    return out


def contradicts_numbers(sentence: str, facts: Iterable[str]) -> bool:
    """The sentence gives a span or a size in a unit the facts state, and none of the facts' values
    ("a few feet more" states no number; "a day" is one day)."""
    stated = quantities(sentence)
    if not stated:
        return False
    known: dict[str, set[float]] = {}
    for fact in facts:
        for value, unit in quantities(fact):
            known.setdefault(unit, set()).add(value)
    return any(unit in known and value not in known[unit] for value, unit in stated)


def speaks_for_the_silent(sentence: str, silent: Sequence[str]) -> str | None:
    """The dead or absent NPC a sentence makes speak, answer or simply be there ("Ruth says, ...",
    "Abner Quist is asleep"), or None."""
    if not silent:
        return None
    verbs = rf"(?:{_SPEECH.pattern}|\b(?:{_THERE})\b)"
    for name in silent:
        for who in {re.escape(name), re.escape(first_name(name))}:
            # "Ruth says", "Ruth, pale, whispers", "says Ruth"; not "Ruth's chair ... nobody answers"
            if re.search(rf"\b{who}\b(?!['’]s)(?:,?\s+[\w-]+,?){{0,2}}\s+{verbs}|{verbs}\s+{who}\b", sentence, re.I):
                return name
    return None
