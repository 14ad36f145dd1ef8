"""A player's line retold as the character's act, for the sentence the GM falls back on.

"While the guard dozes, Tomás slips the key off his belt." → ``slip the key off his belt``;
"I'm going to pick the lock" → ``pick the lock``; ``told_by("Tomás", ...)`` → "Tomás slips the
key off his belt". The act is found where its doer is the subject (I, we, the character's name,
he or she), after any opening clause ("Quietly,", "As the train slows,") and around an aside
("Eddie, rifle ready, walks ..."). Words in quotes are what is said, never the act. A line with
no act to find gives ``""``, and the fallback says it plainly rather than garble it.

Verbs are turned with ``lemminflect`` ("goes" → "go", "carries" → "carry" and back), which
knows the irregular forms a suffix rule gets wrong.
"""
from __future__ import annotations

import re

from lemminflect import getAllLemmas, getAllLemmasOOV, getInflection

from pipelines.speech import first_name, without_quotes

__all__ = ["base_action", "gist", "third_person", "told_by"]

# a speaker's tag before the line: "Eddie: I check the saddlebags." / "Eddie - I check"
_TAG = re.compile(r"^[A-Z][\w'’]*(?:\s+[A-Z][\w'’]*)?\s*(?::|\s-\s)\s*")
_FILLER = re.compile(r"^(?:(?:ok(?:ay)?|so|well|alright|right|then|now|um+|uh+|hmm+|yeah|and)\b[,.!]?\s+)+", re.I)
_LET = re.compile(r"^let(?:'s| me| us)\s+", re.I)
# what may stand between the doer and the act's verb: wanting, trying, going to ("I'd like to", "she tries to")
_REACH = re.compile(
    r"^(?:['’](?:ll|d|m|re)\s+|(?:will|shall|can|could|would|just|then|also|now|"
    r"want(?:s)? to|wanna|gonna|like to|(?:am|is|are) going to|going to|"
    r"(?:try|tries|attempt|attempts|decide|decides|begin|begins|start|starts|mean|means|need|needs|have|has) to)\s+)+", re.I)
# after these the line states how things are, not an act ("Pip is hiding behind the barrels")
_STATE = {"be", "have", "seem", "know", "think", "want", "need", "wonder"}
_SAY = {"say", "tell", "ask", "shout", "yell", "whisper", "call", "reply", "answer", "mutter", "add", "murmur",
        "growl", "snap", "hiss", "insist", "explain", "announce", "declare", "offer", "exclaim", "cry", "bark"}
_PRONOUNS = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs", "i'm": "they're", "i've": "they've",
             "i'll": "they'll", "i'd": "they'd", "we": "they", "us": "them", "our": "their", "ours": "theirs",
             "ourselves": "themselves", "i": "they"}
_LINKS = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "at", "for", "with", "as", "it", "its", "his", "her", "their"}
# a phrase never ends on these ("...past the sentries without"); "wades in" and "floor it" may end as they are
_OPEN_ENDS = {"the", "a", "an", "and", "or", "but", "to", "of", "for", "with", "at", "from", "into", "onto", "toward", "towards",
              "without", "his", "her", "their", "its", "my", "your", "being", "by", "as", "than", "that", "this"}
_PREPOSITIONS = {"to", "into", "onto", "toward", "towards", "past", "through", "across", "without", "with", "for", "from",
                 "before", "after", "under", "over", "behind", "beside", "along", "around", "while", "until"}
# "...and lift their lamp", "...and shoot out the lantern": a verb after "and" is followed by what it acts on;
# "her hands and face" ends a noun phrase
_ACTED_ON = re.compile(r"\band (\w+)(?=\s+(?:the|a|an|his|her|their|my|its|it|them|him|me|us|to|up|out|off|down|in|on|at|"
                       r"into|onto|over|back|away|through|for|from|toward|towards|across|along|around|some|every|all|each|that|this|these|those|your|our)\b)", re.I)


def _verb_lemma(word: str, third: bool = False) -> str | None:
    """The verb a word can be the form of ("slips" → "slip"), or None if it is no verb. After a
    named doer a word in -s is taken for a verb even if the dictionary lacks it ("unsaddles")."""
    lemmas = getAllLemmas(word.lower(), upos="VERB").get("VERB")
    if not lemmas and third and re.fullmatch(r"[a-z]+[^s']s", word):
        lemmas = getAllLemmasOOV(word.lower(), upos="VERB").get("VERB")
    return lemmas[0] if lemmas else None


def _third(lemma: str) -> str:
    """``"carry"`` → ``"carries"``; ``"be"`` → ``"is"``."""
    forms = getInflection(lemma, tag="VBZ")
    return forms[0] if forms else lemma + "s"


def _reach_past(text: str) -> str:
    """The words after any wanting, trying or manner ("I'd like to quietly pick..." → "pick...")."""
    while True:
        text = _REACH.sub("", text)
        word, _, rest = text.partition(" ")
        if not (word.lower().endswith("ly") and _verb_lemma(word) is None and rest):
            return text  # "quietly" is skipped; "fly" is the act
        text = rest


def _doers(name: str) -> str:
    parts = [re.escape(name.strip()), re.escape(first_name(name))] if name.strip() else []
    return "|".join([*parts, "i", "we", "she", "he"])


def _from_doer(text: str, name: str) -> str | None:
    """The act after the first place its doer is the subject: at the start, or after a comma or
    "then" ("As the train slows, Eddie jumps off"), with an aside allowed before the verb."""
    doer = re.compile(rf"(?:^|(?<=,\s)|(?<=\bthen\s)|(?<=\band\s))(?:{_doers(name)})\b(?:\s*,[^,]{{1,40}},)?\s*(?=['’\w])", re.I)
    for found in doer.finditer(text):
        rest = _reach_past(text[found.end():])
        first, _, tail = rest.partition(" ")
        word = first.rstrip(",.!?")
        lemma = _verb_lemma(word, third=found.group(0).strip(" ,").lower() not in ("i", "we"))
        if lemma is None:
            continue
        lemma += first[len(word):]  # "kneels, tears away" keeps its comma
        if lemma.rstrip(",.!?") == "be" and (doing := re.match(r"(\w+ing)\b\s*(.*)", tail)) and _verb_lemma(doing.group(1)):
            lemma, tail = _verb_lemma(doing.group(1)), doing.group(2)  # "Pip is hiding behind..." → "hide behind..."
        return "" if lemma.rstrip(",.!?") in _STATE | _SAY else f"{lemma} {tail}".strip()
    return None


def base_action(line: str, name: str = "") -> str:
    """``"I try to climb my rope"`` → ``"climb their rope"``: what the character attempts, in the
    base form, or ``""`` when the line only says something or states how things are."""
    text = " ".join(line.strip().split())
    if re.match(r"^\(?\s*(?:ooc\b|out of character\b)", text, re.I):
        return ""  # table talk, not the character's act
    text = _TAG.sub("", text) if not re.match(r"^(?:I|We)\b", text) else text
    if re.fullmatch(r"[\"“'‘].*[\"”'’]", text):
        return ""  # all of it said, whatever apostrophes are inside ("'...I'd open it for you...'")
    unquoted = " ".join(without_quotes(text).split())
    if not re.search(r"[A-Za-z]{2}", unquoted.replace(name, "")):
        return ""  # only words said
    # the first sentence that is not a question ("What is this? Pip studies the sigil"), up to a dash or colon
    parts = [p.strip() for sentence in re.split(r"(?<=[.!?])\s+", unquoted) for p in re.split(r"[:;]|\s[-–—]\s", sentence)]
    clauses = [_FILLER.sub("", p.rstrip(".!,")) for p in parts if p and not p.endswith("?")]
    act = next((a for clause in clauses if (a := _from_doer(clause, name)) is not None), None)
    if act is None and clauses:  # no doer named: "pick the lock", "let me look under the bed"
        bare = _reach_past(_LET.sub("", clauses[0]))
        first = bare.split(" ", 1)[0]
        lemma = _verb_lemma(first) if first and first[:1].isalpha() else None
        if lemma is None or lemma in _STATE or lemma in _SAY or not first.islower() and first.lower() != lemma:
            return ""
        act = lemma + bare[len(first):]
    if not act:
        return ""
    act = _ACTED_ON.sub(lambda m: f"and {_and_verb(m.group(1))}", act)
    return " ".join(_PRONOUNS.get(w.lower(), w) for w in act.split()).strip(" ,")


def _and_verb(word: str) -> str:
    """"...and shoots" → "...and shoot"; a noun or link word after "and" stays as it is."""
    if word.lower() in _LINKS or not word.lower().endswith("s"):
        return word
    lemma = _verb_lemma(word)
    return lemma if lemma and lemma != word.lower() else word


def gist(action: str, words: int = 10) -> str:
    """The act's first clause, a few words long: enough to say what failed or worked without
    handing the player's whole line back to them (an echo)."""
    clause = re.split(r",\s|\s(?:so that|so|while|until|before|because)\s", action)[0]
    cut = clause.split()
    if len(cut) > words:  # end at the last "and" that fits ("crawl under the engine with her wrench"),
        ands = [i for i, w in enumerate(cut[:words]) if w.lower() == "and" and i >= 3]  # else before a phrase
        breaks = [i for i, w in enumerate(cut[:words]) if w.lower() in _PREPOSITIONS and i >= 4]
        cut = cut[:ands[-1]] if ands else cut[:breaks[-1]] if breaks else cut[:words]
    while cut and cut[-1].lower() in _OPEN_ENDS:  # never end on "the" or "without"
        cut.pop()
    return " ".join(cut)


def told_by(name: str, action: str) -> str:
    """``("Brisa", "search the altar and lift their lamp")`` → ``"Brisa searches the altar and lifts their lamp"``."""
    if not action:
        return name
    first, _, rest = action.partition(" ")
    rest = _ACTED_ON.sub(lambda m: "and " + (_third(m.group(1)) if _verb_lemma(m.group(1)) == m.group(1).lower()
                                             and m.group(1).lower() not in _LINKS else m.group(1)), rest)
    return f"{name} {_third(first)}{(' ' + rest) if rest else ''}".strip()


def third_person(name: str, line: str) -> str:
    """``("Brisa", "I search the altar")`` → ``"Brisa searches the altar"``."""
    return told_by(name, base_action(line, name))
