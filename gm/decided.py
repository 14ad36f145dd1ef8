"""A fact the world lacks, decided once and kept: "how tall is the lighthouse?", "what's the bartender's name?".

The world answers what it holds (``gm.answer``); a measure, a count, an age or a name it does not hold
is decided here. The model picks only the value, in a JSON shape with bounds; the sentence is built
from the question, so the reply carries exactly that value and nothing else the model dreamt up
("the bartender is 18 feet tall"). The fact is stored in the world, so asking again gets the same.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from collections.abc import Sequence
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field

from pipelines.llm.structured import complete_json
from pipelines.numbers import SMALL

from .answer import FAR_FROM, NAME_ASKED, Answer, content_keys, content_words
from .kinds import asked_thing, kind_of, names_someone, prior, round_figure, usual, usual_size

__all__ = ["decide_fact", "asks_to_decide"]

# what is asked, and the words to build the answer from: "how tall is the assay office?" → ("high", "the assay office")
_MEASURE = re.compile(r"\bhow (?P<way>tall|high|deep|wide|long|far|old|big|large)\s+(?:is|are|was|were)\s+(?P<thing>(?:the|that|this|these|those|"
                      r"his|her|their|its|your|our)\s+[^?.!,]{2,50}?|it)\s*(?:\b(?:from here|to the \w+|again))?"
                      r"(?:,?\s*(?:roughly|about|exactly|more or less|d['’]?you (?:think|reckon)|do you (?:think|reckon)|would you say))?\s*[?.!]*\s*$", re.I)
_COUNT = re.compile(r"\bhow many (?P<what>[a-z][a-z'’-]+)\s+(?P<verb>are|were|is|was)\s+(?P<rest>[^?.!]{2,60}?)\s*[?.!]*\s*$", re.I)
_COUNT_AT = re.compile(r"\bhow many (?P<what>[a-z][a-z'’-]+)\s+(?P<rest>(?:in|at|on|inside|around|here|out)\b[^?.!,]{0,40}?)\s*(?:,?\s*(?:roughly|about|more or less|d['’]?you (?:think|reckon)))?\s*[?.!]*\s*$", re.I)
_CROWD = {"people", "folk", "folks", "men", "patrons", "customers", "drinkers", "souls", "guests", "punters", "locals"}
_CROWDED = re.compile(r"\b(?:packed|crowded|thronged|heaving|full|busy|bustling|teeming|mobbed)\b", re.I)
_COUNT_THERE = re.compile(r"\bhow many (?P<what>[a-z][a-z'’-]+)\s+(?:are|were) there\s*(?P<rest>[^?.!]{0,60}?)\s*[?.!]*\s*$", re.I)
_WORDED = {"high": "tall", "deep": "deep", "wide": "wide", "long": "long", "far": "away", "old": "old", "big": "across"}
# "what's the gate made of?", "what metal is the bell?": what a thing is made of
_MADE = re.compile(r"\bwhat(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+(?P<thing>(?:the|that|this|these|those|his|her|their|its|your|our)\s+"
                   r"[^?.!,]{2,40}?|it)\s+(?:made|built|carved|forged|cast|put together)\s+(?:out\s+)?(?:of|from|with)\b|"
                   r"\bwhat (?:material|metal|stuff|kind of (?:wood|stone|metal)) (?:is|are|was|were)\s+(?P<thing2>(?:the|that|this|these|those)\s+"
                   r"[^?.!,]{2,40}?)\s*[?.!]*\s*$", re.I)
# what the model may say a thing of no kind in gm/data/things.yaml is made of: plain stuff, no invention
_STUFF = ("wood", "oak", "pine", "stone", "granite", "marble", "iron", "steel", "bronze", "brass", "copper", "silver", "gold", "pewter",
          "tin", "glass", "clay", "bone", "leather", "cloth", "canvas", "rope", "brick", "paper", "wax", "ivory")


class _Span(BaseModel):
    number: float = Field(gt=0, le=5000)
    unit: Literal["feet", "yards", "miles"]


class _Made(BaseModel):
    material: Literal[_STUFF]  # type: ignore[valid-type]


class _Count(BaseModel):
    number: int = Field(ge=0, le=60)


@functools.cache
def _names() -> dict[str, dict[str, list[str]]]:
    return yaml.safe_load((Path(__file__).parent / "data" / "names.yaml").read_text(encoding="utf-8"))


def _setting_of(world: Any, ruleset: str) -> str:
    """Which names fit: the era the world states ("1879" is the frontier, "1925" the twenties), else the game's own."""
    year = re.search(r"\b1[0-9]{3}\b", getattr(world, "era", "") or "")
    if year:
        return "frontier" if int(year.group(0)) < 1900 else "twenties"
    return {"coc7e": "twenties", "swade": "frontier"}.get(ruleset, "fantasy")


def _a_name(question: str, setting: str, taken: set[str]) -> str:
    """A given name and surname of the setting none here bears, fixed by the question's words. Picked, not asked of the
    model: the small model gave back a name it was told was taken ("Silas" for the bartender beside Silas Vane)."""
    names = _names()[setting]
    given = [n for n in names["given"] if n.lower() not in taken]
    surnames = [n for n in names["surnames"] if n.lower() not in taken]
    return f"{given[prior(question, 0, len(given) - 1)]} {surnames[prior(question + ' surname', 0, len(surnames) - 1)]}"


# what has an age and is no one: "how old is the saloon?" is a building's age, "how old is the sheriff?" a person's
_THING_AGED = re.compile(r"\b(?:house|building|saloon|church|chapel|shrine|tower|lighthouse|bridge|wall|walls|gate|town|city|village|ruins?|"
                         r"temple|castle|keep|fort|inn|tavern|mine|ship|boat|tree|book|coin|sword|blade|door|map|letter|stone|statue|"
                         r"idol|altar|well|mill|barn|road|place|office|cottage|manor|hall|abbey|cathedral|station|hotel|store|shop|"
                         r"painting|ring|amulet|chest|wreck|grave|tomb|crypt|logbook|ledger|journal|scroll|it|this|that)s?\b", re.I)


def _is_person(thing: str, world: Any) -> bool:
    """Whether "the sheriff", "Ruth" or "the old miner" is someone: an NPC by name or calling, or no word for a thing."""
    return names_someone(thing, world) or not _THING_AGED.search(thing)


def _asked(question: str) -> tuple[str, re.Match] | None:
    """What kind of value a question asks that could be decided ("between" two things, "span", "age", "made" of, "count",
    "name"), and the match that holds its words; None for any other question."""
    if m := FAR_FROM.search(question):
        return "between", m
    if m := _MEASURE.search(question):
        return ("age" if m.group("way").lower() == "old" else "span"), m
    if m := _MADE.search(question):
        return "made", m
    if m := _COUNT_THERE.search(question) or _COUNT.search(question) or _COUNT_AT.search(question):
        return "count", m
    return ("name", m) if (m := NAME_ASKED.search(question)) else None


# what a hidden text must state to keep a value back: how many there are of a hidden thing is hidden with it; its size,
# age, stuff or name only when the hidden text states one. A size is stated by its unit ("forty feet", "a mile off"),
# an age by its span of time: "long-toed prints" or "Old Maren" states neither
_UNIT = re.compile(r"\b(?:feet|foot|ft|yards?|yds|miles?|km|metres?|meters?|inches|fathoms?)\b", re.I)
_STATES = {"span": _UNIT, "between": _UNIT,
           "age": re.compile(r"\b(?:years?|centur(?:y|ies)|decades?|aged)\b", re.I),
           "made": re.compile(r"\b(?:made|carved|forged|cast|built)\s+(?:out\s+)?(?:of|from)\b|\b(?:" + "|".join(_STUFF) + r")\b", re.I),
           "name": re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")}


def _kept_back(kind: str, m: re.Match, hidden: Sequence[str]) -> bool:
    """Whether a hidden text speaks of what is asked ("how many tunnels?" of the secret tunnel): it is for the finding."""
    stems = lambda text: {w.rstrip("s") for w in content_words(text)}  # noqa: E731 - "tunnels" is of "a tunnel"
    asked = stems(m.groupdict().get("what") or m.groupdict().get("thing") or next((g for g in m.groups() if g), ""))
    if kind == "made":  # of "the chain on the lighthouse door" only the chain is asked after
        asked = stems(asked_thing(m.group("thing") or m.group("thing2") or ""))
    states = _STATES.get(kind or "")
    return any(asked & stems(h) and (states is None or states.search(h)) for h in hidden)


def asks_to_decide(question: str) -> str | None:
    """What kind of value a question asks that could be decided (as ``_asked`` reads it), or None."""
    asked = _asked(question)
    return asked[0] if asked else None


_SAID = {i: w for w, i in SMALL.items()}


def _number(n: float) -> str:
    """Twenty and under in words ("three men"), the rest in digits ("about 120 feet"); a GM's guess is a round
    figure ("about ten feet", not the model's "10.25"), and under one only as a half ("about 0.5 miles")."""
    n = round(n) if n >= 1 else 0.5
    return _SAID[int(n)] if float(n).is_integer() and int(n) <= 20 else f"{n:g}"


def _of(thing: str) -> str:
    """A sentence's opening of the thing: "The chain is", "The pews are", "It is"."""
    verb = "is" if not re.search(r"s$", thing) or thing.lower() == "it" else "are"
    return f"{thing[0].upper()}{thing[1:]} {verb}"


def _prompt_context(world: Any, scene: str) -> str:
    """The era, the place and the scene, as the model is told them."""
    era = getattr(world, "era", "") or ""
    here = getattr(world, "here", "") or ""
    return " ".join(x for x in [f"Era: {era}." if era else "", f"Place: {here}." if here else "", f"Scene: {scene.strip()}"] if x)


async def decide_fact(model: Any, question: str, world: Any, scene: str = "", ruleset: str = "",
                      hidden: Sequence[str] = ()) -> Answer | None:
    """Decide the one value a question asks that the world lacks, store it as a fact, and return it as the answer.
    None when the question asks nothing of that kind, a hidden text may hold the answer (it is found, not decided:
    "how deep is the tunnel?" of a secret tunnel), or the model gave no usable value (the turn then goes on as before)."""
    asked = _asked(question)
    if asked is None or model is None or _kept_back(*asked, hidden):
        return None
    kind, m = asked
    setting = _prompt_context(world, scene)
    system = ("You keep a tabletop game's world consistent. Decide one plain, ordinary value the world has not stated yet, "
              "fitting the setting. Reply with JSON only.")
    sentence = ""
    if kind in ("span", "age"):
        way, thing = m.group("way").lower(), m.group("thing").strip()
        way = {"tall": "high"}.get(way, way)
        thing = re.sub(r"^(?:his|her|their|its|your|our)\b", "the", thing, flags=re.I)
        if kind == "age":
            person = _is_person(thing, world)
            # an age is a guess any GM makes alike (the small model put a frontier saloon at 187 years): a grown
            # person's, a building's, or an old ruin's
            aged = None if person else usual(kind_of(thing, world), "old")
            years = (prior(question, 22, 68) if person else prior(question, 150, 900) if re.search(r"\b(?:ancient|ruin\w*|old|elder)\b", thing, re.I)
                     else round_figure(prior(question, *aged)) if aged else prior(question, 4, 40))
            sentence = f"{thing[0].upper()}{thing[1:]} is about {_number(years)} years old."
        else:
            kind_of_it = kind_of(thing, world)
            if way in ("big", "large"):  # "how big is the chest?": the way such a thing is measured first ("long")
                way = next(({"tall": "high"}.get(w, w) for w in ("tall", "long", "wide", "deep") if usual(kind_of_it, w)), "big")
            size = usual_size(question, kind_of_it, way)
            if size is None:  # a thing of no kind the table knows: the model's guess, bounded by the JSON shape
                asked = {"high": "tall", "deep": "deep", "wide": "wide", "long": "long", "far": "far away", "big": "big across"}[way]
                parsed = await complete_json(model, [{"role": "system", "content": system}, {"role": "user", "content":
                                             f"{setting}\nHow {asked} is {thing}? Give {{\"number\": N, \"unit\": \"feet\"|\"yards\"|\"miles\"}}."}],
                                             _Span, step="decide_fact", max_tokens=32, retry=False)
                size = (parsed.value.number, parsed.value.unit) if parsed.value is not None else None
            if size is not None:
                sentence = f"{_of(thing)} about {_number(size[0])} {size[1]} {_WORDED[way]}."
    elif kind == "between":  # how far such a thing as the one gone to stands from here, said between the two named
        there, start = (m.group("to") or m.group("to2")).strip(), (m.group("from") or m.group("from2")).strip()
        size = usual_size(question, kind_of(there, world), "far")
        if size is not None:
            sentence = f"{_of(there)} about {_number(size[0])} {size[1]} from {start}."
    elif kind == "made":
        thing = re.sub(r"^(?:his|her|their|its|your|our)\b", "the", (m.group("thing") or m.group("thing2")).strip(), flags=re.I)
        made_of = usual(kind_of(thing, world), "of")
        stuff = made_of[prior(question, 0, len(made_of) - 1)] if made_of else None
        if stuff is None:  # a thing of no kind the table knows: the model picks among plain stuffs
            parsed = await complete_json(model, [{"role": "system", "content": system}, {"role": "user", "content":
                                         f"{setting}\nWhat is {thing} made of? Give {{\"material\": one of {', '.join(_STUFF)}}}."}],
                                         _Made, step="decide_fact", max_tokens=16, retry=False)
            stuff = parsed.value.material if parsed.value is not None else None
        if stuff is not None:
            sentence = f"{_of(thing)} made of {stuff}."
    elif kind == "count":
        what = m.group("what").lower()
        # the count itself is no matter of the setting: a few, as a table would guess ("one man" at a card table is
        # what the small model says, and a GM would not); one when the question asks of one ("how many is ...")
        n = 1 if (m.groupdict().get("verb") or "are").lower() in ("is", "was") else prior(question, 2, 6)
        if m.re in (_COUNT_AT, _COUNT) and _CROWDED.search(scene) and what in _CROWD and re.match(r"(?:in here|here|inside|in (?:the|this) \w+)$", m.group("rest").strip(), re.I):
            n = prior(question, 18, 40)  # "how many people in here?" of a packed saloon: a crowd
        rest = re.sub(r"\b(?:ya|u)\b", "you", m.group("rest").strip())
        if m.re in (_COUNT_THERE, _COUNT_AT):
            sentence = f"There {'is' if n == 1 else 'are'} {_number(n)} {what}{(' ' + rest) if rest else ''}."
        else:
            sentence = f"{_number(n).capitalize()} {what} {'is' if n == 1 else 'are'} {rest}."
    else:
        role = next(g for g in m.groups() if g).lower()
        taken = {w.lower() for n in getattr(world, "npcs", []) or [] for w in n.name.split()}
        sentence = f"The {role} is {_a_name(question, _setting_of(world, ruleset), taken)}."
    if not sentence:
        return None
    if hasattr(world, "add_fact"):
        world.add_fact(sentence, about=[question.strip()], source="decided")
    return Answer("fact", sentence, keys=content_keys(sentence, asked=question))
