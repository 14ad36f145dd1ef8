"""Acts no roll can make succeed, told by the words themselves.

Nearest-neighbour retrieval over example lines hears the *topic* of a line, not whether it
could happen: "I lift the loaded ore wagon over my head" sits beside ordinary Athletics lines.
Some impossible acts are plain from their wording in any game: moving a building, walking on
water, holding one's breath for a day, photographing the past. This module names those, so the
rules decide what they can and the vote never rolls them.

The patterns stay narrow on purpose. On 41,114 real player utterances from 30 Critical Role
episodes (where people do try wild things, with magic) they fire on 1, a line quoting
"walk on water" as a figure of speech, where a roll would not follow anyway. Acts that magic
makes possible in some games (flying, teleporting, turning someone into a frog) are left to
each pack's ``impossible`` examples, because only the pack knows whether its characters can.

    impossible_act("I hoist the whole assay office onto my back")   # "no one could move that"
    impossible_act("I hoist the crate onto my back")                 # None
"""
from __future__ import annotations

import re

__all__ = ["impossible_act", "IMPOSSIBLE_ACTS"]

# Things no person lifts, carries or throws, whatever they roll.
_HUGE = (r"(?:building|house|cottage|barn|church|chapel|temple|tower|lighthouse|castle|fortress|train|"
         r"locomotive|ship|galleon|standing stone|monolith|menhir|mountain|hill|office|shop|store|saloon|"
         r"bank|inn|tavern|bridge|mansion|manor|warehouse|mill|windmill)s?")
# Things a strong person can heave at one end (to free a wheel), but never hold overhead or throw.
_HEAVY = r"(?:wagon|cart|carriage|stagecoach|coach|boulder)s?"
_THROW = r"(?:throw|throws|toss|tosses|hurl|hurls|fling|flings)"
_MOVE = (r"(?:lift|lifts|pick up|picks up|hoist|hoists|heave|heaves|carry|carries|throw|throws|toss|tosses|hurl|"
         r"hurls|raise|raises|uproot|uproots|tip over|tips over)")
# the object right after the verb: an article and up to two describing words ("the whole stone"),
# never a preposition, so "throw dynamite in houses" is not moving a house
_OBJECT = r"(?:the |a |an |that |this |his |her |their |my )?(?:(?!in |into |at |to |on |for |with )\w+ ){0,2}"
_SOMEONES = r"(?:my|his|her|their)"
# ...and the huge thing must end the object ("throw open the tavern door" moves a door)
_ENDS = r"(?=\s*(?:$|[.,!?;:]|(?:over|onto|on|off|into|up|down|across|at|to|from|and|with|so|while|before|until|like|above)\b))"

IMPOSSIBLE_ACTS: tuple[tuple[str, str], ...] = (
    ("no one could move that", rf"\b{_MOVE} {_OBJECT}{_HUGE}\b{_ENDS}"),
    ("no one could move that", rf"\b{_HUGE} (?:onto|on|over) {_SOMEONES} (?:back|head|shoulders?)\b"),
    ("no one could move that", rf"\b(?:tip|tips|topple|topples|push|pushes|shove|shoves|knock|knocks|pull|pulls) {_OBJECT}{_HUGE} (?:over|down)\b"),
    ("no one could lift that so high", rf"\b(?:{_MOVE}|{_THROW}) {_OBJECT}{_HEAVY} (?:\w+ ){{0,2}}(?:over|above) {_SOMEONES} head\b"),
    ("no one could throw that", rf"\b{_THROW} {_OBJECT}{_HEAVY}\b{_ENDS}"),
    ("no one flies by flapping their arms", rf"\bflap(?:s|ping)? {_SOMEONES} arms\b"),
    ("water and air do not hold a person up",
     r"\b(?:walk|walks|run|runs|sprint|sprints|dash|dashes)\b(?: \w+){0,2} (?:on|across) (?:the )?(?:surface of (?:the )?)?"
     r"(?:water|waves|sea|ocean|lake|bay|river|air|clouds?|sky)\b"),
    ("no one holds their breath that long",
     rf"\bhold(?:s|ing)? {_SOMEONES} breath (?:(?:for|until) (?:an? |the |a whole |one |two |three |several )?(?:hour|hours|day|days|week|night|year)\b"
     r"|until (?:dawn|sunrise|morning|tomorrow|nightfall|sundown|the \w+ (?:comes|arrives|rolls in)))"),
    ("nothing living outruns that", r"\b(?:outrun|outruns) (?:a |the )?(?:bullet|lightning|light)\b"),
    ("that is too far for any body",
     r"\b(?:swim|swims|jump|jumps|leap|leaps) (?:all the way )?(?:across|over) (?:the )?(?:whole |entire )?(?:ocean|atlantic|pacific|continent)\b"),
    ("that is too far for any body", r"\b(?:jump|jumps|leap|leaps) (?:\w+ ){0,3}(?:to|onto) the (?:moon|sun|clouds|stars)\b"),
    ("the past cannot be reached", r"\b(?:travel back in time|go back in time|turn back time|stop time|rewind time)\b"),
    ("the past cannot be reached", r"\b(?:photograph|photo|picture) of (?:\w+ ){0,4}(?:the way it looked|in the past|last (?:week|year|month))\b"),
    ("a body does not fit through a keyhole", rf"\bsqueeze {_SOMEONES} (?:whole )?body through (?:the |a )?keyhole\b"),
)
_COMPILED = tuple((why, re.compile(pattern, re.I)) for why, pattern in IMPOSSIBLE_ACTS)


def impossible_act(line: str) -> str | None:
    """Why ``line`` cannot succeed however the dice fall, or ``None`` when its words do not say."""
    text = " ".join(line.split())
    return next((why for why, pattern in _COMPILED if pattern.search(text)), None)
