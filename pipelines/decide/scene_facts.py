"""What a scene plainly says is gone, and a line that acts on that very thing anyway.

    scene: "The rope bridge across the gorge snapped an hour ago."   line: "I walk across the rope bridge."
    scene: "The cell has no window."                                 line: "I open the window."

No roll makes those work. The scene's fact counts only when it is a plain statement about the
thing: the thing starts its clause and its state follows ("the bridge ... snapped"), or the clause
says there is none of it and nothing more ("There is no boat here."). A negation inside a
description of other things ("There's no boats at the dock that are being manned") is no such
fact. The line must act on the thing itself, as the direct object of a verb that needs it whole
("cross the bridge", "row the boat", "ask the courier"), in an act of the speaker's own.

Also the word-reading both this module and ``impossible`` use: lemmas (``lemminflect``),
clauses, and whether a verb is the speaker's own act (not asked, denied, wished or someone else's).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from lemminflect import getAllLemmas, getLemma

from pipelines.english import parse
from pipelines.speech import first_name

KINDS = Path(__file__).with_name("impossible_kinds.yaml")  # the kinds of impossible act, and the scene's ruin words, as data

__all__ = ["KINDS", "kinds_file", "Word", "words", "clauses", "lemmas", "find", "noun_phrase", "own_act", "is_question", "gone_things", "lost_things", "acts_on_gone"]

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


def is_question(text: str) -> bool:
    """The line ends in a question mark (inside a closing quote too): asking is not doing."""
    return text.rstrip("\"'”’ )").endswith("?")


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


# ---- the scene side -----------------------------------------------------------------------------
_AUX = {"is", "was", "are", "were", "been", "has", "have", "had", "now", "already", "long", "all", "lies", "lay", "lie",
        "got", "just", "since", "completely", "entirely", "utterly"}
_PREPOSITIONS = {"of", "in", "on", "at", "across", "over", "by", "near", "beside", "behind", "to", "from", "under", "above"}
_ENDS = {"here", "left", "anymore", "nearby", "inside", "around", "at", "all", "in", "sight", "anywhere", "whatsoever", "now"}


@lru_cache(maxsize=1)
def _vocab() -> dict:
    return kinds_file()["scene_gone"]


@lru_cache(maxsize=1)
def kinds_file() -> dict:
    data = yaml.safe_load(KINDS.read_text(encoding="utf-8"))
    for kind in data["kinds"]:  # YAML reads a bare on/off/yes/no as true/false: a word list must hold words
        for key, value in kind.items():
            if isinstance(value, list) and any(isinstance(v, bool) for v in value):
                raise ValueError(f"{KINDS}: kind {kind['id']!r}: key {key!r} holds a true/false; quote words like \"on\" and \"off\"")
    return data



def _statement(clause: tuple[Word, ...]) -> tuple[str, str] | None:
    """(thing, what the scene says of it) when the clause is a plain statement about one thing."""
    low = [w.low for w in clause]
    i = 2 if low[:2] in (["both", "of"], ["all", "of"], ["each", "of"], ["one", "of"]) else 0
    if low[i:i + 2] in (["there", "is"], ["there", "are"], ["there", "was"], ["there", "were"]) or low[i:i + 1] == ["there's"]:
        j = i + (1 if low[i] == "there's" else 2)
        if j < len(low) and low[j] == "no":
            head, end = noun_phrase(clause, j + 1)
            if head and all(w in _ENDS for w in low[end:]):  # nothing more: no "at the dock that are being manned"
                return head, f"there is no {head}"
        return None
    if i >= len(low) or low[i] not in _DETERMINERS:
        return None
    head, j = noun_phrase(clause, i)
    if not head:
        return None
    if j < len(low) and low[j] in _PREPOSITIONS and low[j] != "of":  # "the rope bridge across the gorge snapped"
        _, j = noun_phrase(clause, j + 1)
    if low[j:j + 2] in (["has", "no"], ["had", "no"], ["have", "no"]):  # "the cell has no window"
        lacked, end = noun_phrase(clause, j + 2)
        return (lacked, f"there is no {lacked}") if lacked and all(w in _ENDS for w in low[end:]) else None
    said = [head]
    while j < len(low) and low[j] in _AUX:
        said.append(low[j])
        j += 1
    for state in sorted(_vocab()["states"], key=len, reverse=True):
        k = j + len(state.split())
        if j not in find(clause, state, j) or low[k:k + 1] == ["up"]:
            continue
        return head, f"the {' '.join(said)} {state}"
    return None


_HEDGES = {"will", "would", "could", "might", "may", "can", "should", "must", "shall"}  # not done: only maybe, or later
_NOT_YET = {"if", "unless", "before", "until", "till", "lest", "whether"}


def _with_conjuncts(token: Any) -> list[Any]:
    """The noun and those listed with it: "weapons and tools", "the pole and both paddles"."""
    out, todo = [], [token]
    while todo:
        t = todo.pop()
        if t.pos_ in ("NOUN", "PROPN"):
            out.append(t)
        todo += [c for c in t.children if c.dep_ == "conj"]
    return out


def _subjects(verb: Any, dep: str) -> list[Any]:
    """The verb's subjects of ``dep``; a verb joined to an earlier one shares its subject ("fell ... and sank")."""
    found = [c for c in verb.children if c.dep_ == dep]
    while not found and verb.dep_ == "conj" and verb.head is not verb:
        verb = verb.head
        found = [c for c in verb.children if c.dep_ == dep]
    return [n for s in found for n in _with_conjuncts(s) if _a_thing(n)]


def _said_of(noun: Any, state: str, passive: bool) -> tuple[str, str]:
    name = noun.text if noun.pos_ == "PROPN" else f"the {noun.text}"
    return noun.lower_, f"{name} {('were' if noun.tag_ in ('NNS', 'NNPS') else 'was') + ' ' if passive else ''}{state}"


def lost_things(scene: str) -> dict[str, str]:
    """What the scene's sentences say was done to a thing, read from their parse, so lists and word
    order do not hide it: "the porter took every visitor's weapons and tools" → tools were taken; "the
    pole and both paddles went overboard and sank"; "fed the ledger into the stove" → burned. Only
    what is said as done: not "will sink", "could burn", "before it sinks", nor "is sinking"."""
    doc = parse(" ".join(scene.split())) if scene.strip() else None
    if doc is None:
        return {}
    lost = _vocab().get("lost_by") or {}
    done_to, by_itself, particles = lost.get("done_to", {}), lost.get("by_itself", {}), lost.get("with_particle", {})
    found: dict[str, str] = {}
    for t in doc:
        if t.lower_ in lost.get("without", {}) and t.dep_ in ("amod", "compound", "acomp"):
            found.setdefault(lost["without"][t.lower_], f"there is no {lost['without'][t.lower_]}")
        if t.pos_ != "VERB" or t.tag_ not in ("VBD", "VBN"):
            continue
        kids = list(t.children)
        if any(c.dep_ == "neg" or c.lower_ in _HEDGES or c.tag_ == "TO" or (c.dep_ == "mark" and c.lower_ in _NOT_YET) for c in kids):
            continue
        lemma = getLemma(t.lower_, upos="VERB")[0]
        passive = any(c.dep_ in ("nsubjpass", "auxpass") for c in kids)
        objects = _subjects(t, "nsubjpass") if passive else [n for c in kids if c.dep_ == "dobj" for n in _with_conjuncts(c)]
        if objects and not passive:  # the small parser hangs a list's later nouns on the verb: "took our swords and crossbows"
            objects += [n for c in kids if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN") for n in _with_conjuncts(c)]
        objects = [n for n in objects if _a_thing(n)]
        if t.dep_ == "amod" and t.tag_ == "VBN" and t.head.pos_ in ("NOUN", "PROPN"):  # "the stolen horse"
            objects, passive = [t.head], True
        particle = next((f"{lemma} {c.lower_}" for c in kids if c.dep_ in ("prt", "advmod") and f"{lemma} {c.lower_}" in particles), None)
        fire = next((c for c in kids if c.dep_ == "prep" and c.lower_ in ("into", "onto", "in")
                     and any(w.lower_ in lost.get("fire", ()) for w in c.subtree)), None)
        if fire is not None and lemma in lost.get("into_fire", ()):
            said = [_said_of(n, "burned", True) for n in objects]
        elif particle:
            said = [_said_of(n, particles[particle], False) for n in _subjects(t, "nsubj")]
        elif lemma in done_to and objects:
            said = [_said_of(n, done_to[lemma], True) for n in objects]
        elif lemma in by_itself and not passive and not any(c.dep_ == "dobj" for c in kids):
            said = [_said_of(n, by_itself[lemma], False) for n in _subjects(t, "nsubj")]
        else:
            continue
        for thing, fact in said:
            found.setdefault(thing, fact)
    return found


def _a_thing(noun: Any) -> bool:
    """A particular thing, not "a long rest", "a look" or "a breath" (what "took" says of a pause)."""
    return not any(c.dep_ == "det" and c.lower_ in ("a", "an", "another", "some") for c in noun.children)


@lru_cache(maxsize=2048)
def gone_things(scene: str) -> dict[str, str]:
    """Each thing the scene plainly says is gone, destroyed, dead or absent → what the scene says.

        gone_things("The rope bridge across the gorge snapped an hour ago.")  # {"bridge": "the bridge snapped"}
    """
    found: dict[str, str] = {}
    for sentence in re.findall(r"[^.!?;]+", " ".join(scene.split())):
        for part in re.split(r",\s*(?:and\s+)?|\s+(?:and|but)\s+(?=(?:the|his|her|their|its|there)\b)", sentence, flags=re.I):
            said = words(part)  # the thing may follow an opening phrase: "At the lip of the gorge the bridge is gone"
            starts = [0] + [k for k, w in enumerate(said) if k and w.low in _DETERMINERS]
            if (fact := next(filter(None, (_statement(said[k:]) for k in starts)), None)) is not None:
                found.setdefault(*fact)
    for verb in (t for t in (parse(scene) or ()) if t.tag_ == "VBD" and any(c.dep_ == "nsubj" for c in t.children) and all(c.dep_ != "neg" for c in t.children)):
        # what the scene says was done to it (the parse): "the flood sank the barge"; only a verb that ends a thing, said as done
        done = _vocab()["ended_by"].get(getLemma(verb.lower_, upos="VERB")[0])
        for thing in (c for c in verb.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") and done):
            found.setdefault(thing.lower_, f"{'' if thing.pos_ == 'PROPN' else 'the '}{thing.text} was {done}")
    for thing, fact in lost_things(scene).items():
        found.setdefault(thing, fact)
    return found


def acts_on_gone(line: str, scene: str, actor: str | None = None) -> str | None:
    """Why the line cannot work: it acts on a thing the scene plainly says is gone, as the direct
    object of a verb that needs the thing whole (or the place it moves across, or the dead it asks).

        acts_on_gone("I walk across the rope bridge.", "The rope bridge snapped an hour ago.")
        # "the scene says the bridge snapped"
    """
    things = gone_things(scene) if scene.strip() else {}
    if not things or is_question(line):
        return None
    vocab = _vocab()
    for clause in clauses(line):
        for group, preps in (("uses", ()), ("moves", vocab["move_preps"]), ("speaks", ())):
            for verb in vocab[group]:
                for i in find(clause, verb):
                    j = i + len(verb.split())
                    if preps:
                        if j >= len(clause) or clause[j].low not in preps:
                            continue
                        while j + 1 < len(clause) and clause[j + 1].low in preps:  # "climbs up onto the wagon"
                            j += 1
                        j += 1
                    head, _ = noun_phrase(clause, j)
                    if group == "uses" and verb in vocab["from_verbs"]:  # "draw a bucket of water from the well": the well is what it needs
                        head = next((noun_phrase(clause, k + 1)[0] for k in range(j, len(clause)) if clause[k].low == "from"), head)
                    thing = next((t for t in things if names(head, t)), None)
                    if thing is None or not own_act(clause, i, actor):
                        continue
                    dead = things[thing].endswith(("dead", "buried", "killed", "slain", "murdered"))
                    away = dead or re.search(r"\b(?:gone|missing|left|rode)\b", things[thing])  # the dead and the departed do not answer
                    if (bool(away) if group == "speaks" else not dead) or (dead and verb in ("ride", "mount", "saddle")):
                        return vocab["reason"].format(fact=things[thing])
    return None
