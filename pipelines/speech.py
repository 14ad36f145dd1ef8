"""Speech or act: whether a player's line only talks, and which checks talk can call for.

A line that only speaks ("Maren, what do you know about the bell?") is answered by the one it is
put to. Its words may share nouns with a Dexterity save's examples (the bell tower collapsing),
but no GM calls a save on a question. What talk *can* call for is a check players reach for by
speaking — persuading, lying, threatening — and the pack's own example lines say which those
are: the checks whose examples are often quoted speech. So no check list is written here, and a
new pack brings its own.

    is_talk('I ask Dutch, "Where\'d you learn to track like that?"')   # True
    is_talk('"Stay back," I say, and edge toward the door')             # False: an act around the words
    spoken_checks(pack)                                                 # {"persuasion", "deception", ...}
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["is_talk", "asks_only", "asks_in_report", "asks_the_gm", "speaks", "addressed", "first_name", "without_quotes", "narrated", "spoken_checks", "SPOKEN_SHARE"]

# A check is one talk can call for when at least this share of its example lines speak. Measured
# on the four shipped packs: the social checks sit at 30-55%, every other check at 0-8%.
SPOKEN_SHARE = 0.15

# Words that may stand around quoted speech without making the line an act: who speaks, how, to whom.
_TAGS = set("""i he she they we you it me him her them us my his their our your the a an to at and with in over up out
    then just as while so softly quietly gently loudly calmly firmly warmly politely cheerfully simply again too back
    say says said ask asks asked tell tells told reply replies replied answer answers call calls called add adds greet
    greets whisper whispers murmur murmurs mutter mutters shout shouts yell yells cry cries sigh sighs laugh laughs
    nod nods smile smiles grin grins wave waves bow bows wink winks shrug shrugs chuckle chuckles lean leans turn turns
    growl growls snap snaps speak speaks talk talks offer offers go goes on ooc""".split())
_QUOTED = re.compile(r"[\"“”].*?[\"“”]|(?<!\w)'.+?'(?!\w)", re.S)
# Titles written with a full stop that ends no sentence ("Mr. Vane", "Dr. Hale").
_ABBREVIATED = ("Mr", "Mrs", "Ms", "Dr", "St")
_VOCATIVE = re.compile(rf"^\s*((?:(?:{'|'.join(_ABBREVIATED)})\.\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)\s*,")  # "Mr. Vane," too
# Words that open a line with a comma like a name does, but address no one ("Oh, what? ...", "Ja, I can").
_INTERJECTIONS = set("""oh ah ahh aw uh um hm hmm er well so okay ok alright right yes yeah yep no nope nah ja sure fine
    wait now look listen hey hi hello man dude god gods wow whoa sorry please thanks thank cool great huh also and but
    then actually honestly really""".split())
# A statement inside the line: ". " or "! " (not after a title such as "Mr." or "Dr.").
_STATEMENT = re.compile("".join(rf"(?<!\b{a})" for a in _ABBREVIATED) + r"[.!](?=\s|$)")


def _addressed(line: str) -> re.Match | None:
    """The opening "Name," the line is put to, unless that word is an interjection ("Oh, ...")."""
    named = _VOCATIVE.match(line)
    return named if named and named.group(1).split()[0].lower() not in _INTERJECTIONS else None


_TITLES = {"dr", "mr", "mrs", "ms", "miss", "sir", "lady", "lord", "father", "sister", "brother", "captain", "professor", "prof",
           "doc", "sheriff", "deputy", "reverend", "rev"}


def first_name(name: str) -> str:
    """The name a line or a scene calls a character by: "Dr. Margaret Hale" is Margaret."""
    words = name.split()
    return next((w for w in words if w.lower().rstrip(".") not in _TITLES), words[0] if words else name)


def addressed(line: str) -> str | None:
    """The name the line opens by addressing ("Dutch, keep an eye on that door" → "Dutch")."""
    named = _addressed(line)
    return named.group(1) if named else None


def speaks(line: str) -> bool:
    """Whether the line has the character say something: quoted words, or it opens by naming the
    one it addresses ("Maren, ..."). It may do more besides."""
    return bool(_QUOTED.search(line) or _addressed(line))


def is_talk(line: str) -> bool:
    """Whether a line only speaks: quoted words with at most who says them and to whom around them,
    or questions that open by naming the one they are put to ("Maren, when did the bell start?"),
    not an interjection ("Oh, what? ...") and with no statement among them.

    Talk that reaches a secret is answered by the one spoken to, in the fiction; it does not make
    the speaker roll to find the secret. An act around the words ("...," I say, watching her
    hands) is not only talk.
    """
    if _QUOTED.search(line):
        rest = _QUOTED.sub(" ", line)
        words = re.findall(r"[A-Za-z][A-Za-z'’]*", rest)
        return all(w.lower() in _TAGS or w[0].isupper() for w in words)  # a capital: a name ("I" is a tag)
    named = _addressed(line)
    if named is None:
        return False
    rest = line[named.end():].rstrip()
    return rest.endswith("?") and not _STATEMENT.search(rest)  # only questions: "...senses. Do I hear?" acts first


# a question for facts: who, what, where... ("how about", "why don't you" are proposals, not questions)
_WH = re.compile(r"^\s*(?:who|what|where|when|why|how|which|whose)\b(?!\s+(?:about|don't|dont|not|dare|would you like))", re.I)


def asks_only(line: str) -> bool:
    """Whether a line that only speaks (``is_talk``) only asks for facts: every sentence said is a
    who/what/where/when/why/how question ("How much to take me across?", "Who put up the money on
    Kettleman, Sheriff?"). The one asked answers; no one rolls to ask."""
    if not is_talk(line):
        return False
    named = _addressed(line)
    said = [q.strip("\"“”'‘’ ") for q in _QUOTED.findall(line)] or [line[named.end():] if named else line]
    sentences = [s.strip() for part in said for s in re.split(r"(?<=[.!?])\s+", part) if s.strip()]
    return bool(sentences) and all(s.endswith("?") and _WH.match(_VOCATIVE.sub("", s)) for s in sentences)


# a question for facts told, not quoted: "I ask Ruth gently when she last saw her father"
# ("Keth turns to Marisol and asks which way she'd rather take, the river or the pines": the one turned to is asked)
_ASKED = r"(?:him|her|them|the\s+[\w'’-]+|[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)"
_ASKS_REPORTED = re.compile(r"^(?:(?:i|we|[A-Z][\w'’]+)\s+)?(?:(?:gently|quietly|politely|softly|calmly|then|just)\s+)?"
                            r"(?:(?:ask|asks)\s+" + _ASKED + r"|(?:turn|turns)\s+to\s+" + _ASKED + r"\s+and\s+(?:ask|asks)(?:\s+" + _ASKED + r")?)\s+"
                            r"(?:(?:gently|quietly|politely|softly|calmly|plainly|again)\s+)?(?:who|what|where|when|why|how|which|whose|whether|if)\b"
                            r"[^;:!?.]*[.?]?$", re.I)
_MORE_ASKED = re.compile(r"^\s*(?:(?:or|and)\s+)?(?:also\s+)?(?:who|who's|what|what's|where|when|why|how|which|whose|whether|if)\b", re.I)
# what makes asking "whether" or "if" a read of the one asked: "I ask him whether he's lying"
_READS_THEM = re.compile(r"\b(?:lie|lies|lying|lied|truth|truthful|honest|honestly|hiding|hides|hid|afraid|scared|nervous|bluffing|"
                         r"sincere|serious|means it|trust|trusts|believe|believes)\b", re.I)


def asks_in_report(line: str) -> bool:
    """Whether the line only tells of asking someone for facts, in one sentence and nothing in
    quotes ("I ask Ruth gently when she last saw her father", "I ask Snik whether the Chief ever
    sleeps"): like a quoted question for facts, the one asked answers. Asking "whether" or "if"
    someone lies is a read of them, not this."""
    text = " ".join(line.split())
    if _QUOTED.search(text) or not _ASKS_REPORTED.match(text):
        return False
    # past a comma only more asking: "..., or who's been down here", "..., a honey cake or jerky, and whether ..."
    # ("I ask the guard where the inn is, then slip past him" does something too)
    if not all(_MORE_ASKED.match(part) or (" or " in f" {part} " and len(part.split()) <= 9) for part in text.split(",")[1:]):
        return False
    return not (re.search(r"\b(?:whether|if)\b", text, re.I) and _READS_THEM.search(text))


# a question put to the GM, not in quotes: "How many goblins are behind the gate?", "What's the name on the boat?"
_GM_WH = re.compile(r"^(?:(?:wait|so|ok|okay|um|uh|hey|and|lol|hm+|well|right)[,\s]+)*"
                    r"(?:who|who's|what|what's|whats|where|where's|when|when's|why|how|which|whose)\b", re.I)
# what takes lore or a keen sense to answer: the players roll for that ("Which god is this shrine for?")
_NEEDS_LORE = re.compile(r"\b(?:do|did|would|does|can|could) (?:i|we|he|she|they) (?:know|recogni[sz]e|remember|recall|notice|see|hear|spot|"
                         r"sense|smell|tell)\b|\bknow about\b|\b(?:mean|means|meaning|signify|signifies|symboli[sz]es?|rite|rites|ritual|"
                         r"deity|god|gods|goddess|crest|sigil|heraldry|coat of arms|runes?|glyphs?|language|script|spell|magic|arcane|"
                         r"lying|hiding|kind of|sort of|type of)\b", re.I)


def asks_the_gm(line: str) -> bool:
    """Whether a line with nothing in quotes only asks the GM for plain facts: every sentence a
    who/what/where/how... question ("How many goblins are behind the gate?"), none reaching for
    lore, a keen sense or a read of someone ("Which god is this shrine for?", "What kind of meat
    is this?"). In CRD3 the DM called a roll after 0.8% of such questions (15 of 1,776), against
    2.0% after any player turn."""
    if _QUOTED.search(line) or _NEEDS_LORE.search(line):
        return False
    sentences = [_ASIDE.sub("", s.strip()) for s in re.split(r"(?<=[.!?])\s+", line.strip()) if s.strip()]
    return bool(sentences) and all(s.endswith("?") and _GM_WH.match(s) for s in sentences)


# the table's lead-in to a question: "Sorry, quick question before I do anything, which side did we come in from?"
_ASIDE = re.compile(r"^(?:(?:sorry|quick question|real quick|one (?:quick )?question|question|hang on|hold on|before (?:i|we) do anything|"
                    r"before anything else|first|actually|ok|okay|so|wait|um|uh)\b[^,?]{0,30},\s*)+", re.I)


# what follows "tells him" is words, not the act ("...and tells him he will talk or he will swim")
_REPORTED = re.compile(r"\b(?:tells?|says?|warns?|threatens?|promises?|asks?|explains?|shouts?|yells?|whispers?)\b.*", re.I)
_UNCLOSED = re.compile(r"[\"“][^\"”]*$")  # a quote the player never closed runs to the end of the line


def without_quotes(line: str) -> str:
    """The line with its quoted words taken out (a quote the player never closed runs to the end)."""
    return _UNCLOSED.sub(" ", _QUOTED.sub(" ", line))


def narrated(line: str) -> str:
    """The part of the line that tells what the character does, not what they say: quoted and
    reported speech taken out."""
    return _REPORTED.sub(" ", without_quotes(line))


def spoken_checks(pack: Any, share: float = SPOKEN_SHARE) -> frozenset[str]:
    """The pack's checks whose example lines speak in at least ``share`` of cases."""
    return _spoken(tuple((cid, tuple(check.examples)) for cid, check in pack.checks.items()), share)


@lru_cache(maxsize=16)
def _spoken(examples: tuple[tuple[str, tuple[str, ...]], ...], share: float) -> frozenset[str]:
    return frozenset(cid for cid, lines in examples if lines and sum(map(speaks, lines)) / len(lines) >= share)
