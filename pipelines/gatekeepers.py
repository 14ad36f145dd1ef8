"""Talk aimed past a gatekeeper: a guard, an inspector, a doorman whose job in the scene is to stop,
check or refuse. What the player says to them is a social roll, not an answer.

"Hymnals, sir, nothing but hymnals for the temple" said to a customs officer tapping the crate,
"I'm his cousin from Providence" to the orderly who stands between the investigator and the
ward: the nearest example lines hear friendly small talk and call no roll, yet every game rolls
when words are meant to get something past someone set against it. Which roll is read from the
words: a threat is intimidation, a plea persuasion, and anything else (a story, a claim of who
they are or what the cargo is) deception, since that is how such claims are usually made. A
request told rather than quoted ("asks the elders to reopen the road") counts too, as persuasion.

    keeper_in("Two guards in the baron's livery block the gate.")      # True
    social_kind('"Please, he is my brother. Five minutes."')          # "persuade"
"""
from __future__ import annotations

import re

from .speech import without_quotes

__all__ = ["keeper_in", "social_kind", "asks_in_words"]

_KEEPER = (r"(?:guard|guards|guardsman|guardsmen|doorman|doormen|bouncer|sentry|sentries|sentinel|watchman|watchmen|the watch|patrol|"
           r"inspector|customs|officer|official|clerk|orderly|porter|gatekeeper|gate-?keeper|warden|toll-?keeper|tollman|bailiff|"
           r"constable|deputy|sheriff|marshal|soldier|soldiers|butler|receptionist|secretary|nurse|matron|steward|majordomo|"
           r"attendant|sergeant|captain|magistrate|elders?|council|innkeeper|landlord|landlady|proprietor|barkeep|bartender|"
           r"keeper|lock-?keeper|bridge-?keeper|ferryman|turnkey|jailer|gaoler)")
# what the keeper does in the scene: stands in the way, checks, refuses
_STOPS = (r"(?:block|blocks|blocking|blocked|bars the|barring|barred|stop|stops|stopped|stopping|check|checks|checking|inspect|"
          r"inspects|inspecting|guard|guards|guarding|stands? between|won't let|will not let|refuse|refuses|refused|refusing|demand|"
          r"demands|demanding|question|questions|questioning|turns? away|turning away|admits? only|members only|closed|forbid|"
          r"forbids|forbidden|pries|prying|lifts? the|frown|frowns|frowning|suspicious|eyes|eyeing|rationing|insists|taps|"
          r"wants? to see|asks? for|no one (?:gets|goes|passes|enters)|nobody|only (?:to|for)|will not|won't|grumbl\w*)")
_KEEPER_SCENE = re.compile(rf"\b{_KEEPER}\b[^.;]*\b{_STOPS}\b|\b{_STOPS}\b[^.;]*\b{_KEEPER}\b", re.I)
# ("or we're both in the soup" is a worry, not a threat)
_THREAT = re.compile(r"\bor (?:else|i'll|i will|we'll|we will|you'll|you will|i|we)\b(?!'re|'ve|'d| are| were| have| both)|"
                     r"\b(?:i'll|i will|we'll|we will)\s+(?:kill|break|hurt|gut|shoot|burn|bury|cut|end)\b|"
                     r"\bget out of (?:my|our|the) way\b|\byou'll regret\b|\blast (?:chance|warning)\b", re.I)
_PLEA = re.compile(r"\b(?:please|i beg|i'm begging|we beg|have mercy|have a heart|for pity's sake|i promise|we promise|as a favou?r|"
                   r"i'm asking you|i am asking you|i ask you|"
                   r"i'll answer for|i will answer for|i swear|let (?:me|us|them|him|her) (?:in|through|pass|see|go))\b", re.I)


# a request told rather than quoted: "asks them to reopen the road, promising an escort"
# ("asks the guard where the inn is" asks for a fact: that is no request to get past anyone)
_REQUEST = re.compile(r"\b(?:asks?|begs?|urges?|pleads? with|implores?|beseeches?)\b(?:[\s,]+[\w'’]+){0,6}?[\s,]+"
                      r"(?:to (?!the\b|a\b|an\b|his\b|her\b|their\b)\w+|for (?:permission|passage|entry|leave|mercy|help|shelter|time|a|an|the)\b)"
                      r"|\b(?:convinces?|persuades?|bargains? with|haggles? with|tries to (?:talk|convince|persuade|bribe|bluff|threaten)|"
                      r"talks? (?:him|her|them|the \w+) into)\b", re.I)
_REPORTED_THREAT = re.compile(r"\b(?:threatens?|warns? (?:him|her|them|the \w+) (?:that|to|what))\b", re.I)
_REPORTED_LIE = re.compile(r"\b(?:lies to|claims? (?:to be|that|he is|she is|they are)|pretends? to be|passes (?:himself|herself|themselves) off|"
                           r"poses? as|bluffs?)\b", re.I)


def asks_in_words(line: str) -> bool:
    """The line tells of a request made in words, not quoted ("asks the elders to reopen the road")."""
    told = without_quotes(line)
    return bool(_REQUEST.search(told) or _REPORTED_THREAT.search(told) or _REPORTED_LIE.search(told))


def keeper_in(scene: str) -> bool:
    """Whether the scene sets someone to stop, check or refuse: a guard blocking a gate, an
    inspector prying at a crate, an orderly between the player and the ward."""
    return bool(_KEEPER_SCENE.search(scene or ""))


def social_kind(line: str) -> str:
    """The shared kind of social act the words are (the packs' ``concepts``): ``intimidate``,
    ``persuade`` or ``deceive``."""
    told = without_quotes(line)
    if _THREAT.search(line) or _REPORTED_THREAT.search(told):
        return "intimidate"
    if _PLEA.search(line) or (_REQUEST.search(told) and not _REPORTED_LIE.search(told)):
        return "persuade"  # a request told, not quoted, is put plainly
    return "deceive"
