"""Words that name the kind of act outright, in any game: "shoot the rope", "hold my breath",
"stands his ground", "throws his weight on the sweep".

The nearest example lines hear a line's nouns ("Shoot the rope" sat among rope-climbing lines;
"pulls his collar over his mouth and charges through the fumes" among grabbing and healing
ones). When the line says what kind of act it is in so many words, that names the check: the
pack's checks for that kind (its ``concepts``), the one the vote ranks highest among them.
On *whether* to roll a cue is only a second opinion: it stands in for the needs-dice direction,
which the nearest lines' own share for rolling must still back (``adjudicate``'s ``dice_weight``).
"""
from __future__ import annotations

import re
from typing import Any

from .speech import narrated

__all__ = ["CUES", "cued_checks"]

_SELF = r"(?:my|his|her|their|your|our)"
CUES: dict[str, str] = {
    "shoot": r"\b(?:shoot|shoots|shooting)\b(?!\s+(?:(?:him|her|them|me|you|us)\s+)?(?:a\s+)?(?:\w+\s+)?(?:look|glance|smile|grin|question|wink))"
             r"|\b(?:fire|fires|firing)\s+(?:at|on|a shot|a round|both barrels)\b|\btakes?\s+a\s+shot\b",
    "swim": r"\b(?:swim|swims|swimming)\b|\b(?:dive|dives|diving)\s+(?:in|into|after|under|down|for)\b|\btreads?\s+water\b",
    "boat": r"\b(?:steer|steers|steering|pole|poles|poling|row|rows|rowing|paddle|paddles|paddling)\b[^.!?]{0,40}?"
            r"\b(?:boat|raft|punt|skiff|canoe|barge|flatboat|keelboat|dinghy|launch|sweep|tiller|helm|oars?|current|rapids)\b"
            r"|\b(?:on|at|takes?|grabs?|works?)\s+the\s+(?:sweep|tiller|helm|oars)\b|\bthe\s+sweep\b",
    "gamble": r"\b(?:bet|bets|betting|wager|wagers|gamble|gambles|gambling|ante|antes)\b"
              r"|\bplays?\s+(?:him|her|them|cards|poker|faro|dice)\b|\b(?:a|another|the)\s+(?:hand|round|game)\s+of\s+(?:cards|poker|faro|dice|bones)\b",
    "endure": r"\bthrough\s+(?:the\s+|that\s+|this\s+)?(?:\w+\s+)?(?:fumes|smoke|gas|spores|stench|reek|miasma|vapou?rs?)\b"
              r"|\b(?:fight|fights|fighting|shake|shakes|throw|throws)\s+off\s+(?:the\s+)?(?:\w+\s+)?(?:venom|poison|disease|sickness|fever|toxin|drug|exhaustion|chill)\b"
              r"|\b(?:drain|drains|chug|chugs|down|downs|gulp|gulps|quaff|quaffs)\s+(?:the|a|his|her|my|their)\s+(?:\w+\s+)?(?:horn|tankard|flagon|bottle|mug|pint|stein|jug)\b",
    "resolve": rf"\b(?:stand|stands|standing|hold|holds|holding)\s+{_SELF}\s+ground\b"
               r"|\b(?:fight|fights|fighting|resist|resists|resisting|refuse|refuses|shake|shakes)\b[^.!?]{0,24}?"
               r"\b(?:the\s+)?(?:pull|urge|call|song|voice|whispers?|compulsion|fear|terror|dread|panic|charm|spell)\b"
               rf"|\bsteels?\s+(?:my|him|her|them|your|our)sel(?:f|ves)\b|\bkeeps?\s+{_SELF}\s+(?:nerve|wits|sanity|composure)\b",
}
_CUES = tuple((concept, re.compile(pattern, re.I)) for concept, pattern in CUES.items())


def cued_checks(line: str, pack: Any) -> list[str]:
    """The pack's checks for every kind of act the line names outright, outside anything said
    (``[]`` when it names none, or the pack has no checks for it)."""
    concepts = getattr(pack, "concepts", {}) or {}
    act = narrated(line)
    found: list[str] = []
    for concept, pattern in _CUES:
        if concept in concepts and pattern.search(act):
            found += concepts[concept]
    return list(dict.fromkeys(found))
