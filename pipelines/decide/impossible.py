"""Acts no roll can make succeed, by kind, and the reason the GM gives.

The kinds are data (``impossible_kinds.yaml``): moving what no one moves, walking on water,
holding a breath for hours, a jump across a gap the scene says is wider than anyone jumps, a
spell from one whose sheet gives no magic, a thing the era does not have yet... Each is a small
vocabulary that one short matcher reads: a verb of the speaker's own act (not asked, denied,
wished, or someone else's), the noun that is its object, and sometimes a number the scene states.
Every refusal is a ``Reason``: a sentence the GM can say, with the ``kind`` that gave it.

    impossible_act("I hoist the whole assay office onto my back")  # None: "office" is no kind's object
    impossible_act("I lift the church over my head")               # "no one could move that"
    impossible_act("Could I lift the church?")                     # None: asked, not done
"""
from __future__ import annotations

import re
from functools import lru_cache


from .scene_facts import KINDS, Word, acts_on_gone, clauses, find, kinds_file, noun_phrase, own_act, words

__all__ = ["Reason", "impossible_act", "impossible_in_scene", "impossible_without_magic", "impossible_in_era", "magic_act", "kinds_file"]



class Reason(str):
    """What the GM says ("no one could move that"), with the ``kind`` of impossibility that said it."""

    kind: str = ""

    def __new__(cls, text: str, kind: str) -> "Reason":
        made = super().__new__(cls, text)
        made.kind = kind
        return made


def kinds(of_type: str | None = None) -> list[dict]:
    return [k for k in kinds_file()["kinds"] if of_type is None or k["type"] == of_type]


def _says(line: str, phrases: list[str]) -> bool:
    every = words(line)
    return any(find(every, p) for p in phrases)


def _acts(kind: dict, line: str, actor: str | None = None) -> list[tuple[tuple[Word, ...], int, int]]:
    """Each (clause, the verb's index, index after the object) where the line does one of the kind's verbs to one of
    its objects (any object when it lists none), as the speaker's own act."""
    if _says(line, kind.get("unless", [])):
        return []
    found = []
    objects = set(kind.get("objects") or ())
    for clause in clauses(line):
        for verb in kind.get("verbs", []):
            first, *particle = verb.split()
            for i in find(clause, first):
                j = i + 1
                if particle and not find(clause[j:j + 6], " ".join(particle)):
                    continue  # "pick ... up": the particle before or after the object
                if particle and find(clause[j:j + len(particle)], " ".join(particle)):
                    j += len(particle)
                if kind.get("preps"):
                    while j < len(clause) and (clause[j].low.endswith("ly") or clause[j].low in ("straight", "right", "all", "the", "way")):
                        j += 1
                    if j >= len(clause) or clause[j].low not in kind["preps"]:
                        if objects:
                            continue
                    else:
                        j += 1
                head, end = noun_phrase(clause, j)
                if objects and not (head and objects & _lemmas(head)):
                    continue
                if own_act(clause, i, actor, named=True):
                    found.append((clause, i, end))
    return found


def _lemmas(word: str) -> set[str]:
    return set(words(word)[0].lemmas) if words(word) else set()


def impossible_act(line: str) -> str | None:
    """Why ``line`` cannot succeed however the dice fall, by its words alone, or ``None``."""
    for kind in kinds("act"):
        for clause, _, end in _acts(kind, line):
            if not kind.get("then") or any(find(clause[end:], w) for w in kind["then"]):
                return Reason(kind["reason"], kind["id"])
    for kind in kinds("phrase"):
        if _says(line, kind.get("unless", [])):
            continue
        for clause in clauses(line):
            if any(own_act(clause, i, named=True) for p in kind["phrases"] for i in find(clause, p)):
                return Reason(kind["reason"], kind["id"])
    return None


# ---- numbers a scene states: "two hundred feet across", "a 60-foot gap", "forty tons" ---------------
_UNITS = {"foot": 1, "feet": 1, "ft": 1, "yard": 3, "yards": 3, "metre": 3.28, "metres": 3.28, "meter": 3.28, "meters": 3.28,
          "mile": 5280, "miles": 5280, "km": 3281, "ton": 2000, "tons": 2000, "tonne": 2205, "tonnes": 2205,
          "pound": 1, "pounds": 1, "lb": 1, "lbs": 1}
_WEIGHTS = {"ton", "tons", "tonne", "tonnes", "pound", "pounds", "lb", "lbs"}
_SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                                     "fifteen sixteen seventeen eighteen nineteen".split())}
_SMALL.update({"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90})
_NUMBER = r"(?:\d[\d,]*(?:\.\d+)?|a|an|half|and|hundred|thousand|" + "|".join(_SMALL) + r")"
_QUANTITY = re.compile(rf"\b((?:{_NUMBER}[\s-]+)+)({'|'.join(_UNITS)})\b", re.I)


def _value(number: str) -> float:
    total, current = 0.0, 0.0
    said = [w for w in re.split(r"[\s-]+", number.lower().replace(",", "").strip()) if w]
    if set(said) - {"a", "an", "and", "half"}:  # "a 60-foot gap": the article is no number
        said = [w for w in said if w not in ("a", "an")] if not set(said) & {"hundred", "thousand"} else said
    for w in said:
        if re.fullmatch(r"\d+(?:\.\d+)?", w):
            current += float(w)
        elif w in _SMALL:
            current += _SMALL[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w == "thousand":
            total, current = total + (current or 1) * 1000, 0.0
        elif w in ("a", "an") and not current:
            current = 1
        elif w == "half":
            current = 0.5
    return total + current


def _stated(scene: str, quantity: str, near: list[str]) -> list[float]:
    """The distances (feet) or weights (pounds) the scene states in a sentence with one of ``near``."""
    out = []
    for sentence in re.findall(r"[^.!?;]+", scene):
        if not any(find(words(sentence), w) for w in near):
            continue
        for m in _QUANTITY.finditer(sentence):
            if re.match(r"[\s,]*(?:deep|down|high|tall|up|long|below|above|overhead)\b", sentence[m.end():], re.I):
                continue  # a depth or a height is no width to cross or distance to shoot
            if (m.group(2).lower() in _WEIGHTS) == (quantity == "weight") and (value := _value(m.group(1))) > 0:
                out.append(value * _UNITS[m.group(2).lower()])
    return out


def _amount(value: float, quantity: str) -> str:
    if quantity == "weight":
        return f"{value / 2000:g} tons" if value >= 2000 else f"{value:,.0f} pounds"
    return f"{value / 5280:g} miles" if value >= 5280 * 1.5 else "a mile" if value >= 5280 else f"{value:,.0f} feet"


def impossible_in_scene(line: str, scene: str, actor: str | None = None, blind_in_dark: bool = False) -> str | None:
    """Why the act cannot succeed in the scene as it stands: a number the scene states past any
    body (a gap too wide to jump, a target too far to shoot, a weight too great to lift), a thing
    the scene plainly says is gone (``scene_facts``), or reading in a dark the scene says is total
    when ``blind_in_dark`` (the actor needs a light). ``None`` when the scene does not say.

        impossible_in_scene("I jump across", "The chasm is two hundred feet across.")  # "no one jumps 200 feet"
    """
    scene = " ".join((scene or "").split())
    if not scene:
        return None
    for kind in kinds("measure"):
        if not _acts(kind, line, actor):
            continue
        stated = _stated(scene, kind["quantity"], kind["scene_words"])
        named = [v for k, v in (kind.get("limits") or {}).items() if _says(line, [k])]
        limit = min(named) if named else kind["limit"]
        if stated and min(stated) > limit:
            return Reason(kind["reason"].format(amount=_amount(min(stated), kind["quantity"])), kind["id"])
    if gone := acts_on_gone(line, scene, actor):
        return Reason(gone, "scene_gone")
    if blind_in_dark:
        for kind in kinds("dark"):
            if _says(scene, kind["scene_phrases"]) and _acts(kind, line, actor):
                return Reason(kind["reason"], kind["id"])
    return None


# ---- magic, for those whose sheets give none ---------------------------------------------------
def magic_act(line: str) -> str | None:
    """What magic the line works as the speaker's own act ("a spell", "telepathy"...), or ``None``.

        magic_act("I cast fireball into the middle of them")   # "a spell"
        magic_act("I cast my line into the river")               # None
        magic_act("Jester runs up and casts Cure Wounds.")       # None: Jester's act, not the speaker's
    """
    kind = kinds("magic")[0]
    for clause in clauses(line):
        for i in find(clause, "cast"):
            j = i + 1
            while j < len(clause) and clause[j].low in ("a", "an", "the", "my", "his", "her", "their", "one", "some"):
                j += 1
            if any(find(clause[j:j + len(s.split())], s) for s in kind["spells"]) and own_act(clause, i):
                return "a spell"
        for what, phrases in kind["phrases"].items():
            if any(own_act(clause, i) for p in phrases for i in find(clause, p)):
                return what
    return None


def impossible_without_magic(line: str, actor: str | None, without_magic: list[str] | tuple[str, ...]) -> str | None:
    """Why the act cannot work when ``actor`` is one of those whose sheets give no magic and the
    line works some; ``None`` otherwise (a caster's spell is left to the dice)."""
    if not actor or actor not in without_magic:
        return None
    what = magic_act(line)
    return Reason(kinds("magic")[0]["reason"].format(actor=actor.split()[0], what=what), "magic") if what else None


# ---- things the year does not have yet -------------------------------------------------------------
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


def impossible_in_era(line: str, scene: str, era_year: int | None = None, era: str = "") -> str | None:
    """Why a thing the line uses does not exist yet: the latest year the scene states, else the
    game's usual era (a pack's ``rules.era``), is before it came about. The thing must be what the
    speaker's own act uses ("I call the sheriff on my cell phone"), not a word in table talk, and
    a thing the scene itself mentions exists there, whatever the year.

        impossible_in_era("I call a tow truck on my cell phone", "1926, a farm road")  # "there are no mobile phones in 1926"
    """
    years = [int(y) for y in _YEAR.findall(scene or "")]
    year = max(years) if years else era_year
    if year is None:
        return None
    kind = kinds("era")[0]
    scene_words = words(scene or "")
    for invention in kind["inventions"]:
        if invention["year"] <= year or any(find(scene_words, w) for w in invention["words"]):
            continue
        for clause, i, _ in _acts(kind, line):
            if any(find(clause[i + 1:i + 7], w) for w in invention["words"]):  # what the act uses, not the verb
                return Reason(kind["reason"].format(what=invention["what"], when=year if years else era or year), "era")
    return None
