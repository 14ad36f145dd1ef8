"""The word-reading the impossible-act rules and the scene reader share: lemmas (``lemminflect``),
clauses, noun phrases, and whether a verb is the speaker's own act (not asked, denied, wished or
someone else's); and the kinds file those rules read (``impossible_kinds.yaml``).

What the scene says became of its things is read in ``scene_state``; a line acting on such a
thing is refused in ``impossible.acts_on_gone``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from lemminflect import getAllLemmas, getLemma

from pipelines.speech import first_name

KINDS = Path(__file__).with_name("impossible_kinds.yaml")  # the kinds of impossible act, and the scene's ruin words, as data

__all__ = ["KINDS", "kinds_file", "Word", "words", "clauses", "lemmas", "find", "noun_phrase", "names", "own_act", "is_question"]

_DETERMINERS = {"the", "a", "an", "his", "her", "their", "its", "my", "our", "your", "this", "that", "these", "those", "whole",
                "entire", "some", "one", "two", "three", "every", "each", "both", "all", "another", "other", "same", "nearest"}
_FUNCTION = {"and", "or", "but", "of", "in", "on", "at", "to", "from", "by", "with", "for", "into", "onto", "across", "over", "about",
             "under", "through", "around", "near", "behind", "between", "along", "past", "up", "down", "off", "out", "above",
             "below", "against", "toward", "towards", "upon", "when", "as", "so", "than", "who", "which", "that", "it", "is",
             "are", "was", "were", "be", "been", "has", "have", "had", "not", "now", "then", "just", "back", "until", "while",
             "if", "there", "here", "he", "she", "they", "we", "you", "i", "him", "them", "me", "us", "again", "too", "very",
             "before", "after", "because", "since", "unless", "though", "where", "whenever", "till"}
# before a verb, these make it no act of the speaker's: asked, wished, supposed, denied, someone else's
_NOT_AN_ACT = {"if", "whether", "could", "would", "should", "might", "may", "can", "cannot", "wish", "imagine", "pretend",
               "unless", "how", "what", "why", "who", "where", "suppose", "like", "say", "says", "said", "think", "joke",
               "not", "never", "no", "don't", "doesn't", "didn't", "won't", "can't", "couldn't", "wouldn't", "isn't",
               "aren't", "wasn't", "shouldn't", "nobody", "or", "must", "be", "been", "being"}
_OTHERS = {"he", "she", "they", "you", "it", "him", "her", "them", "you're", "they're", "he's", "she's", "someone", "somebody", "everyone", "everybody", "people", "y'all", "this", "that"}
_AUX = {"is", "was", "are", "were", "been", "has", "have", "had", "now", "already", "long", "all", "lies", "lay", "lie",
        "got", "just", "since", "completely", "entirely", "utterly"}  # how a statement goes on: "is", "was now", "had long"
_SELF = {"i", "we", "me", "us", "i'm", "i'll", "we're", "we'll", "i've", "let's"}


@dataclass(frozen=True)
class Word:
    text: str
    low: str
    lemmas: frozenset[str]


@lru_cache(maxsize=50_000)
def lemmas(low: str) -> frozenset[str]:
    """The word and its verb and noun lemmas: "lifts" → {lifts, lift}, "houses" → {houses, house}."""
    if not low.isalpha():  # "hot-wires" → hot-wire: the last part of a hyphened word inflects
        head, dash, last = low.rpartition("-")
        return frozenset({low, *(f"{head}-{x}" for x in lemmas(last))}) if dash and last.isalpha() else frozenset({low})
    return frozenset({low, *getLemma(low, upos="VERB"), *getLemma(low, upos="NOUN")})


_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")  # letters of any alphabet: "Tomás's" is one word
_QUOTED = re.compile(r"[\"“][^\"”]*[\"”]")


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[Word, ...]:
    return tuple(Word(w, w.lower().replace("’", "'"), lemmas(w.lower().replace("’", "'"))) for w in _WORD.findall(text))


@lru_cache(maxsize=8192)
def _all_lemmas(clause: tuple[Word, ...]) -> frozenset[str]:
    return frozenset().union(*(w.lemmas for w in clause))


_TYPED_ON = re.compile(r"\?\s*(?:and\s+|or\s+|so\s+)?(?:could|can|would|will|is|are|do|does|did|should|how|what|where|when|who|why|which)\b[^.!?]*$", re.I)


def is_question(text: str) -> bool:
    """The line ends in a question mark (inside a closing quote too), or a second question typed on after one
    without its own ("how tall is that mesa? could we climb it before dark"): asking is not doing."""
    return text.rstrip("\"'”’ )").endswith("?") or bool(_TYPED_ON.search(text))


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[tuple[Word, ...], ...]:
    """The line's statements, clause by clause: quoted speech, questions and parentheses dropped."""
    text = _QUOTED.sub(" ", re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", text))
    out = []
    for sentence in re.findall(r"[^.!?]+[.!?]*", text):
        if sentence.rstrip().endswith("?"):
            continue
        out += [words(c) for c in re.split(r"[,;:—–]|\b(?:then|but|so|because|while|although|though)\b", sentence, flags=re.I)]
    return tuple(c for c in out if c)


def find(clause: tuple[Word, ...], phrase: str, start: int = 0) -> list[int]:
    """Where the phrase's words start in the clause, each word matched by lemma."""
    parts = phrase.lower().split()
    if not set(parts) <= _all_lemmas(clause):
        return []
    return [i for i in range(start, len(clause) - len(parts) + 1)
            if all(p in clause[i + k].lemmas for k, p in enumerate(parts))]


def noun_phrase(clause: tuple[Word, ...], i: int) -> tuple[str | None, int]:
    """The head of the noun phrase starting at ``i`` (after its determiners) and where it ends:
    "the whole stone tower into the sea" → ("tower", index of "into")."""
    while i < len(clause) and clause[i].low in _DETERMINERS:
        i += 1
    head, n = None, 0
    while (i < len(clause) and clause[i].low not in _FUNCTION and clause[i].low not in _NOT_AN_ACT and "n't" not in clause[i].low
           and n < 4 and not (n and (clause[i].low in _AUX or _verb_form(clause[i].low)))):
        if clause[i].low.endswith(("'s", "s'")):  # "the tavern's door": the possessor is no head
            head, i, n = None, i + 1, 0
            continue
        head, i, n = clause[i].low, i + 1, n + 1
    return head, i


@lru_cache(maxsize=20_000)
def _verb_form(low: str) -> bool:
    """An inflected verb ("snapped", "runs"), not a plural noun ("boats"): where a noun phrase ends."""
    found = getAllLemmas(low)
    return any(v != low for v in found.get("VERB", ())) and not any(n != low for n in found.get("NOUN", ()))


def names(head: str | None, thing: str) -> bool:
    """The line's word names the thing: the same noun lemma, or one ends the other's compound ("rowboat", "boat")."""
    if not head:
        return False
    a, b = getLemma(head.lower(), upos="NOUN")[0], getLemma(thing.lower(), upos="NOUN")[0]
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.endswith(short))


def own_act(clause: tuple[Word, ...], i: int, actor: str | None = None, named: bool = False) -> bool:
    """The verb at ``i`` is the speaker's (or ``actor``'s) own act: nothing before it in the clause
    asks, wishes, supposes or denies it, and its subject is "I"/"we", the actor, or unsaid (or,
    with ``named``, any character named: what no one can do, "Grog" cannot either)."""
    before = clause[:i]
    if any(w.low in _NOT_AN_ACT or w.low.endswith("n't") for w in before):
        return False
    first = first_name(actor).lower() if actor else ""
    for k in range(len(before) - 1, -1, -1):
        w = before[k]
        if w.low in _SELF or w.low == first:
            return True
        if k and before[k - 1].low in _OBJECT_OF:
            continue  # "braces her back against it and lifts": what a preposition governs is no subject
        if w.low in _OTHERS and w.low not in _ONLY_OBJECTS:
            return False
        # a name: "Jester runs up and casts", "Keth draws water"
        if w.text[0].isupper() and (k > 0 or not getAllLemmas(w.low) or (k + 1 < len(clause) and clause[k + 1].low.endswith("s"))):
            return named or w.low == first
    return True


_ONLY_OBJECTS = {"him", "her", "them"}  # "braces her back", "grabs him and runs": never the one who acts
_OBJECT_OF = {"against", "at", "to", "with", "on", "onto", "into", "from", "for", "over", "under", "behind", "beside", "near",
              "by", "about", "toward", "towards", "past", "through", "around", "of", "in", "off"}


@lru_cache(maxsize=1)
def kinds_file() -> dict:
    data = yaml.safe_load(KINDS.read_text(encoding="utf-8"))
    for kind in data["kinds"]:  # YAML reads a bare on/off/yes/no as true/false: a word list must hold words
        for key, value in kind.items():
            if isinstance(value, list) and any(isinstance(v, bool) for v in value):
                raise ValueError(f"{KINDS}: kind {kind['id']!r}: key {key!r} holds a true/false; quote words like \"on\" and \"off\"")
    return data
