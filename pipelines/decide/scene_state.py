"""What a scene says became of its things: gone, broken, taken, burned, sold, dead.

    gone_things("The rope bridge across the gorge snapped an hour ago.")   # {"bridge": "the bridge snapped"}
    gone_things("The porter took every visitor's weapons and tools.")      # {"weapons": ..., "tools": "the tools were taken"}

Two readings. A plain statement about one thing: the thing starts its clause and its state
follows ("the bridge ... snapped"), or the clause says there is none of it and nothing more
("There is no boat here."); a negation inside a description of other things ("There's no boats
at the dock that are being manned") is no such fact. And the sentence parse (spaCy): what a verb
of loss did to its object or its subject, lists and all ("the pole and both paddles went overboard
and sank"), only when said as done ("will sink", "is sinking", "if they take" are not).

The words are data (``impossible_kinds.yaml``, ``scene_gone``). ``impossible.acts_on_gone`` refuses
a line that acts on such a thing.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from lemminflect import getLemma

from pipelines.english import parse

from .scene_facts import _AUX, _DETERMINERS, Word, find, kinds_file, noun_phrase, words

__all__ = ["gone_things", "lost_things", "vocab"]

_PREPOSITIONS = {"of", "in", "on", "at", "across", "over", "by", "near", "beside", "behind", "to", "from", "under", "above"}
_ENDS = {"here", "left", "anymore", "nearby", "inside", "around", "at", "all", "in", "sight", "anywhere", "whatsoever", "now"}


@lru_cache(maxsize=1)
def vocab() -> dict:
    return kinds_file()["scene_gone"]


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
    for state in sorted(vocab()["states"], key=len, reverse=True):
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
    lost = vocab().get("lost_by") or {}
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
    scene = " ".join(scene.split())  # one text, so this and ``lost_things`` share one parse (``parse`` is memoised)
    found: dict[str, str] = {}
    for sentence in re.findall(r"[^.!?;]+", scene):
        for part in re.split(r",\s*(?:and\s+)?|\s+(?:and|but)\s+(?=(?:the|his|her|their|its|there)\b)", sentence, flags=re.I):
            said = words(part)  # the thing may follow an opening phrase: "At the lip of the gorge the bridge is gone"
            starts = [0] + [k for k, w in enumerate(said) if k and w.low in _DETERMINERS]
            if (fact := next(filter(None, (_statement(said[k:]) for k in starts)), None)) is not None:
                found.setdefault(*fact)
    for verb in (t for t in (parse(scene) or ()) if t.tag_ == "VBD" and any(c.dep_ == "nsubj" for c in t.children) and all(c.dep_ != "neg" for c in t.children)):
        # what the scene says was done to it (the parse): "the flood sank the barge"; only a verb that ends a thing, said as done
        done = vocab()["ended_by"].get(getLemma(verb.lower_, upos="VERB")[0])
        for thing in (c for c in verb.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") and done):
            found.setdefault(thing.lower_, f"{'' if thing.pos_ == 'PROPN' else 'the '}{thing.text} was {done}")
    for thing, fact in lost_things(scene).items():
        found.setdefault(thing, fact)
    return found
