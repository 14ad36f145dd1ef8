"""People a scene's prose names, read by a parser trained on real English (spaCy's small English
pipeline, packaged on PyPI), and what their words call them.

The reader's own patterns know the usual shapes ("Bessa Quill, the boat's cook,"); a new writer
finds new ones: "the herbwife, old Sefa Underbough, bent nearly double", "Its owner, the halfling
cartographer Orsolya Thimble, is alone", "Desk sergeant Thomas Mulrooney". A dependency parse sees
the same thing in each: a proper name with a noun set beside it (an apposition) or before it (a
compound). That noun is their role when it names a person rather than a place or a thing (by
meaning: ``reader._people_by_meaning``); a name the parser's entity tagger calls a person counts
too, when it takes part in the sentence (not "the Fenward road", not "in Tucson").
"""
from __future__ import annotations

import re
from typing import Any, Callable

from pipelines.english import parse

__all__ = ["parsed_people"]

_LOCATIVE = {"in", "at", "on", "from", "to", "near", "toward", "towards", "into", "across", "past", "through", "beyond", "outside"}
_AGENT = re.compile(r"(?:[^aeiou]er|or|ist|ian|man|woman|wife|smith|keeper|herd|wright|monger|ess)$")
_PARTAKES = {"nsubj", "nsubjpass", "appos", "dobj", "conj", "poss", "attr", "ROOT", "dative", "npadvmod"}


_KIN = {"son", "daughter", "wife", "husband", "widow", "mother", "father", "brother", "sister", "child", "heir", "friend", "servant",
        "niece", "nephew", "cousin", "uncle", "aunt", "apprentice", "ward", "bride", "mistress", "lover", "companion"}


def _kin_or_agent(noun: str) -> bool:
    """Whether "the <noun> of Ruth" names Ruth as someone: kin, or one who does something for them."""
    return noun in _KIN or bool(_AGENT.search(noun))


def _name_run(root: Any) -> list[Any]:
    """The proper-noun tokens that make up the name whose last word is ``root`` ("Sefa Underbough")."""
    run, doc = [root], root.doc
    i = root.i - 1
    while i >= 0:
        if doc[i].text in "-‑" and not doc[i].whitespace_ and i > 0 and not doc[i - 1].whitespace_ and doc[i - 1].pos_ == "PROPN":
            run[:0] = [doc[i - 1], doc[i]]  # "Moreau-Kline": one surname, cut in three by the tokenizer
            i -= 2
        elif doc[i].pos_ == "PROPN" and doc[i].head.i in {t.i for t in run}:
            run.insert(0, doc[i])
            i -= 1
        else:
            break
    return run


def _phrase(noun: Any, stop: int | None = None) -> str:
    """A role noun with the words that make it up ("halfling cartographer", "captain of the town watch"),
    without determiners, possessives or the name itself."""
    keep = [t for t in noun.lefts if t.dep_ in ("amod", "compound") and t.pos_ in ("NOUN", "ADJ") and (stop is None or t.i < stop)]
    words = [*keep, noun]
    of = [t for t in noun.rights if t.dep_ == "prep" and t.lower_ == "of"]
    if of and len(list(of[0].subtree)) <= 4:
        words += [t for t in of[0].subtree if t.pos_ != "DET"]
    return " ".join(t.text for t in sorted(words, key=lambda t: t.i)).lower()


def _role(root: Any, run: list[Any]) -> str:
    """The noun the sentence sets beside or before the name, as a phrase; "" when there is none."""
    for child in root.rights:
        if child.dep_ == "appos" and child.pos_ == "NOUN":
            return _phrase(child)  # "Zibzab Nettlecog, the tinkerer,"
    if root.dep_ == "appos" and root.head.pos_ == "NOUN":
        head = root.head
        inner = [c for c in head.rights if c.dep_ == "appos" and c.pos_ == "NOUN" and c.i < run[0].i]
        return _phrase(inner[0]) if inner else _phrase(head)  # "Its owner, the halfling cartographer Orsolya Thimble"
    before = [t for t in root.lefts if t.dep_ == "compound" and t.pos_ == "NOUN" and t.i < run[0].i]
    if before:
        # "Desk sergeant Thomas Mulrooney": the role's own compound, capitalised at a sentence's start, is part of it
        made = [t for t in before[0].lefts if t.dep_ == "compound" and t.pos_ in ("NOUN", "PROPN")]
        return " ".join(t.text for t in sorted([*made, *before], key=lambda t: t.i)).lower()
    return ""


def parsed_people(text: str, is_person: Callable[[list[str]], list[bool]]) -> list[tuple[str, str]]:
    """``(name, role)`` of each person the prose names, in order, once each; ``[]`` without the parser.

    ``is_person`` says, for role phrases, which name a person (the reader's meaning test)."""
    doc = parse(text) if (text or "").strip() else None
    if doc is None:
        return []
    tagged = {t.i for e in doc.ents if e.label_ == "PERSON" for t in e}
    found: list[tuple[str, str, bool]] = []
    for token in doc:
        if token.pos_ != "PROPN" or token.dep_ == "compound" and token.head.pos_ == "PROPN":
            continue  # not a name's last word ("Sefa" in "Sefa Underbough")
        run = _name_run(token)
        if token.dep_ == "compound" and token.head.pos_ == "NOUN" or token.dep_ == "pobj" and token.head.lower_ in _LOCATIVE:
            continue  # "the Fenward road", "in Tucson": a place or a thing's name
        if token.dep_ == "pobj" and token.head.lower_ == "of" and not _kin_or_agent(token.head.head.lower_):
            continue  # "the customs post of Vellisk": a place's name ("the daughter of Ruth" is someone)
        if all(t.text.isupper() for t in run):
            continue  # "THRAIN OCHREBEARD" cut in stone, "WANTED": lettering, not someone met
        name = "".join(t.text_with_ws for t in run).strip().removesuffix("'s").removesuffix("’s")
        role = _role(token, run)
        tagged_person = any(t.i in tagged for t in run) and token.dep_ in _PARTAKES
        if role or tagged_person:
            found.append((name, role, tagged_person))
    # a role is judged by its head noun: "captain of the town watch" by "captain", "halfling cartographer" by
    # "cartographer"; set beside a name, a noun of one who does something (-er, -ist, -keeper...) is someone
    heads = [role.split(" of ")[0].split()[-1] for _, role, _ in found if role]
    judged = iter(meant or bool(_AGENT.search(head)) for head, meant in zip(heads, is_person(heads)))
    out: list[tuple[str, str]] = []
    for name, role, tagged_person in found:
        person = next(judged) if role else False
        if (person or tagged_person) and all(name != n for n, _ in out):
            out.append((name, role))
    return out
