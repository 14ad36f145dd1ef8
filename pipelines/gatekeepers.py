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

The other way round: a listener the scene sets to want the words (the sheriff who asked for the
name, the patron expecting the report) needs no roll to hear them, when the words only tell and
ask for nothing (``informs_willing``).
"""
from __future__ import annotations

import re

from .speech import without_quotes

__all__ = ["keeper_in", "social_kind", "said_kind", "asks_in_words", "informs_willing", "consoles"]

_KEEPER = (r"(?:guard|guards|guardsman|guardsmen|doorman|doormen|bouncer|sentry|sentries|sentinel|watchman|watchmen|the watch|patrol|"
           r"inspector|customs|officer|official|clerk|orderly|porter|gatekeeper|gate-?keeper|warden|toll-?keeper|tollman|bailiff|"
           r"constable|deputy|sheriff|marshal|soldier|soldiers|butler|receptionist|secretary|nurse|matron|steward|majordomo|"
           r"attendant|sergeant|captain|magistrate|elders?|council|innkeeper|landlord|landlady|proprietor|barkeep|bartender|"
           r"keeper|lock-?keeper|bridge-?keeper|ferryman|turnkey|jailer|gaoler|archivist|librarian|curator|registrar|caretaker|"
           r"sexton|verger|concierge)")
# what the keeper does in the scene: stands in the way, checks, refuses
_STOPS = (r"(?:block|blocks|blocking|blocked|bars the|barring|barred|stop|stops|stopped|stopping|check|checks|checking|inspect|"
          r"inspects|inspecting|guard|guards|guarding|stands? between|won't let|will not let|refuse|refuses|refused|refusing|demand|"
          r"demands|demanding|question|questions|questioning|turns? away|turning away|admits? only|members only|closed|forbid|"
          r"forbids|forbidden|pries|prying|lifts? the|frown|frowns|frowning|suspicious|eyes|eyeing|rationing|insists|taps|"
          r"wants? to see|asks? for|no one (?:gets|goes|passes|enters)|nobody|only (?:to|for)|will not|won't|grumbl\w*|"
          r"locking up|locks up|closing)")
_KEEPER_SCENE = re.compile(rf"\b{_KEEPER}\b[^.;]*\b{_STOPS}\b|\b{_STOPS}\b[^.;]*\b{_KEEPER}\b", re.I)
# anyone the scene sets against the asking, whatever their trade: the debtor who has dodged the
# party for a month, the witness who refuses to talk
# ("some of them have avoided the fray" avoids no one; "I wouldn't say a clearing" is the teller's hedge)
_UNWILLING = re.compile(r"\b(?:has|have|had)\s+(?:been\s+)?(?:dodg|avoid|duck|evad|refus|stall|hid)\w*\s+(?:him|her|them|you|us|me|the\s+(?:party|group|law|sheriff|watch|"
                        r"collectors?|questions?)|paying|to\s+pay|payment|every)\b"
                        r"|(?<!\bi )(?<!\byou )(?<!\bwe )\b(?:refuses?|refused|won't|will not|would not|wouldn't)\s+(?:to\s+)?(?:pay|talk|speak|answer|say|sell|give|hand|open|let|tell)\b", re.I)
# ("or we're both in the soup" is a worry, not a threat)
_THREAT = re.compile(r"\bor (?:else|i'll|i will|we'll|we will|you'll|you will|i|we)\b(?!'re|'ve|'d| are| were| have| both)|"
                     r"\b(?:i'll|i will|we'll|we will)\s+(?:kill|break|hurt|gut|shoot|burn|bury|cut|end)\b|"
                     r"\bget out of (?:my|our|the) way\b|\byou'll regret\b|\blast (?:chance|warning)\b", re.I)
_PLEA = re.compile(r"\b(?:please|i beg|i'm begging|we beg|have mercy|have a heart|for pity's sake|i promise|we promise|as a favou?r|"
                   r"i'm asking you|i am asking you|i ask you|i(?:'d| would) be (?:very |most |so |ever so |truly )?grateful|might i|may i|"
                   r"i'll answer for|i will answer for|i swear|let (?:me|us|them|him|her) (?:in|through|pass|see|go))\b", re.I)


# a request told rather than quoted: "asks them to reopen the road, promising an escort"
# ("asks the guard where the inn is" asks for a fact: that is no request to get past anyone)
_REQUEST = re.compile(r"\b(?:asks?|begs?|urges?|pleads? with|implores?|beseeches?)\b(?:[\s,]+[\w'’]+){0,6}?[\s,]+"
                      r"(?:to (?!the\b|a\b|an\b|his\b|her\b|their\b)\w+|for (?:permission|passage|entry|leave|mercy|help|shelter|time|a|an|the)\b)"
                      r"|\b(?:convinces?|persuades?|bargains? with|haggles? with|tries to (?:talk|convince|persuade|bribe|bluff|threaten)|"
                      r"talks? (?:him|her|them|the \w+) into)\b", re.I)
_REPORTED_THREAT = re.compile(r"\b(?:threatens?|warns? (?:him|her|them|the \w+) (?:that|to|what))\b", re.I)
# menace in the body, around the words: "leans over the vat until his shadow covers the tanner"
_MENACE = re.compile(r"\b(?:looms?|looming|towers?|towering)\s+over\b|\buntil\s+(?:his|her|their|my)\s+shadow\s+(?:covers|falls)\b"
                     r"|\bcracks?\s+(?:his|her|their|my)\s+knuckles\b|\bgets?\s+(?:right\s+)?in\s+(?:his|her|their)\s+face\b"
                     r"|\b(?:grabs?|seizes?|hauls?|yanks?)\s+(?:him|her|them|the\s+\w+|[A-Z][\w'’-]+)\s+(?:up\s+)?by\s+the\s+(?:collar|lapels?|shirt(?:front)?|throat|scruff)\b"
                     r"|\bpins?\s+(?:him|her|them|the\s+\w+|[A-Z][\w'’-]+)\s+(?:up\s+)?(?:against|to)\s+the\s+(?:wall|door|bar|table)\b"
                     r"|\b(?:rests?|lays?|puts?)\s+(?:his|her|their|my)\s+hand\s+on\s+(?:the|his|her|their|my)\s+(?:hilt|pommel|gun|revolver|pistol|holster|knife|sword|axe)\b", re.I)
_REPORTED_LIE = re.compile(r"\b(?:lies to|claims? (?:to be|that|he is|she is|they are)|pretends? to be|passes (?:himself|herself|themselves) off|"
                           r"poses? as|bluffs?)\b", re.I)


def asks_in_words(line: str) -> bool:
    """The line tells of a request made in words, not quoted ("asks the elders to reopen the road")."""
    told = without_quotes(line)
    return bool(_REQUEST.search(told) or _REPORTED_THREAT.search(told) or _REPORTED_LIE.search(told))


def keeper_in(scene: str) -> bool:
    """Whether the scene sets someone to stop, check or refuse: a guard blocking a gate, an
    inspector prying at a crate, an orderly between the player and the ward."""
    return bool(_KEEPER_SCENE.search(scene or "") or _UNWILLING.search(scene or ""))


def said_kind(line: str) -> str | None:
    """The social act the words plainly are, or ``None`` where nothing in them says: a threat or
    menace is ``intimidate``, a plea ``persuade`` (unlike ``social_kind``, no default)."""
    told = without_quotes(line)
    if _THREAT.search(line) or _REPORTED_THREAT.search(told) or _MENACE.search(told):
        return "intimidate"
    return "persuade" if _PLEA.search(line) else None


def social_kind(line: str) -> str:
    """The shared kind of social act the words are (the packs' ``concepts``): ``intimidate``,
    ``persuade`` or ``deceive``."""
    told = without_quotes(line)
    kind = said_kind(line)
    if kind is None and _REQUEST.search(told) and not _REPORTED_LIE.search(told):
        return "persuade"  # a request told, not quoted, is put plainly
    return kind or "deceive"


# the listener wants the words: asked for them, sent for the party, waits for the news
_WILLING = re.compile(r"\b(?:asked (?:you |the party |the investigators |them |us )?(?:to look|to find|to bring|to report|for (?:the|your|a|any|word|news|a report))|"
                      r"hired (?:you|the party|them)|sent for (?:you|the party|them)|(?:is|are) expecting (?:you|the party|them|word|news|your)|"
                      r"(?:is|are) (?:waiting|eager|anxious) (?:for (?:you|your|news|word)|to hear)|wants? to (?:know|hear) (?:what|how|who|where|everything)|"
                      r"(?:is|are|seems?|looks?) (?:glad|happy|pleased|relieved) to see (?:you|them|the party|us|(?:the\s+)?(?:armed\s+)?(?:visitors|travell?ers|strangers|party)))\b", re.I)
# telling what happened or handing over what was asked for: words that give, not ask
# ("tells the sheriff she is the mayor's niece" is a claim about herself, not a report)
_TELLS = re.compile(r"\b(?:tell|tells|telling|report|reports|reporting|explain|explains|describe|describes|recount|recounts|relate|relates|"
                    r"fill|fills)\b(?:\s+[\w'’]+){0,3}?\s+(?:in\s+)?(?:what|everything|all|about|how|where|who|when|the\s+(?:name|news|story|whole|details))\b"
                    r"|\b(?:show|shows|hand|hands|give|gives|toss|tosses|slide|slides|lay|lays)\s+(?:him|her|them|the|a|an|his|her|their|our|my)\b", re.I)
# a claim about oneself, in words said: "I'm his cousin"
_SELF_CLAIM = re.compile(r"\b(?:i'm|i am|we're|we are|my name|i was sent|i work for)\b", re.I)
# words that want something back: a question, a favour, an order
_WANTS = re.compile(r"\?|\b(?:could you|would you|will you|can you|i need|we need|you need to|you should|you must|help|lend|let (?:me|us)|"
                    r"give (?:me|us)|come with|don't|do not|pay|reward|owe)\b", re.I)


def informs_willing(line: str, scene: str) -> bool:
    """Whether the line only tells a listener the scene sets to want it what they want: a report
    to the sheriff who asked for one ("tells the sheriff plainly what we found at the mill"), the
    name handed to the one who asked for it. No one stands in the way (``keeper_in``), and the
    words ask, beg, threaten and lie for nothing."""
    if not _WILLING.search(scene or "") or keeper_in(scene):
        return False
    told = without_quotes(line)
    if _presses(line) or _PLEA.search(line):
        return False
    return bool(_TELLS.search(told)) and not _WANTS.search(line) and not _SELF_CLAIM.search(line)


def _presses(line: str) -> bool:
    """The words ask, threaten or lie for something, said or told."""
    told = without_quotes(line)
    return bool(_REQUEST.search(told) or _REPORTED_THREAT.search(told) or _REPORTED_LIE.search(told) or _THREAT.search(line))


# sympathy offered: "tells her he's sorry for her loss"
_CONDOLES = re.compile(r"\bsorry (?:for|about) (?:your|her|his|their) (?:loss|husband|wife|son|daughter|father|mother|brother|sister|boy|girl|friend)\b"
                       r"|\bcondolences\b|\bmy sympathies\b|\bsympathy for (?:your|her|his|their) loss\b"
                       # a eulogy at the graveside: "He was a good man, ma'am. Anything you need, you send for me."
                       r"|\b(?:he|she) was a (?:good|fine|decent|kind|brave|honest|godly) (?:man|woman|soul|friend|father|mother|husband|wife)\b"
                       r"|\b(?:god|lord) rest (?:his|her|their) souls?\b|\brest in peace\b", re.I)


# sympathy with a demand or a question in it: "He was a good man. Now tell me where he hid the money."
_ASKS_BACK = re.compile(r"\b(?:tell|give|show|hand|bring|lend|sell|let) (?:me|us)\b|\?", re.I)


def consoles(line: str) -> bool:
    """Whether the words only offer sympathy ("tells her he's sorry for her loss, and that he'll say
    words at the burying if she'd like"): no roll, when they ask, beg, threaten and lie for nothing."""
    return bool(_CONDOLES.search(line)) and not (_WANTS.search(line) or _presses(line) or _ASKS_BACK.search(line))
