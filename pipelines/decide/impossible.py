"""Acts no roll can make succeed, by kind, and the reason the GM gives.

The kinds are data (``impossible_kinds.yaml``): moving what no one moves, walking on water,
holding a breath for hours, a jump across a gap the scene says is wider than anyone jumps, a
spell from one whose sheet gives no magic, a thing the era does not have yet... Each is a small
vocabulary that one short matcher reads: a verb of the speaker's own act (not asked, denied,
wished, or someone else's), the noun that is its object, and sometimes a number the scene states.
Every refusal is a ``Reason``: a sentence the GM can say, with the ``kind`` that gave it
(``impossible_act("I lift the church over my head")``: "no one could move that"; asked, it is none).
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from pipelines.numbers import NUMBER, number_value
from pipelines.speech import first_name

from .scene_facts import _DETERMINERS, _NOT_AN_ACT, _SELF, Word, clauses, find, is_question, kinds_file, names, noun_phrase, own_act, words
from .scene_state import gone_things, vocab

__all__ = ["Reason", "impossible_act", "impossible_in_scene", "impossible_without_magic", "impossible_power", "impossible_in_era", "magic_act",
           "named_spell", "kinds_file", "acts_on_gone"]


class Reason(str):
    """What the GM says ("no one could move that"), with the ``kind`` of impossibility that said it."""

    kind: str = ""

    def __new__(cls, text: str, kind: str) -> "Reason":
        made = super().__new__(cls, text)
        made.kind = kind
        return made


def kinds(of_type: str | None = None) -> list[dict]:
    return [k for k in kinds_file()["kinds"] if of_type is None or k["type"] == of_type]


def _says(line: str, phrases: Iterable[str]) -> bool:
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
_QUANTITY = re.compile(rf"\b((?:{NUMBER}[\s-]+)+)({'|'.join(_UNITS)})\b", re.I)


# "many tons of wet grain", "hundreds of tons of masonry": no number, but well past any lift
_MANY_TONS = 5001.0  # pounds: what "many tons" is taken to weigh at the least (said back as "many tons")
_VAGUE_TONS = re.compile(r"\b(?:many|several|some|a few|hundreds of|thousands of)\s+(?:tons?|tonnes?)\b", re.I)


def _stated(scene: str, quantity: str, near: list[str], of: Iterable[str] | None = None) -> list[float]:
    """The distances (feet) or weights (pounds) the scene states in a sentence with one of ``near``
    (a weight names itself: "a forty-ton locomotive"). With ``of`` (the things the line lifts), a
    weight counts only in a sentence that names one of them, or when the scene names none of them
    elsewhere: "I lift the crate" is not the forty-ton engine's weight; "lifts the engine" of a
    "forty-ton locomotive" the scene calls nothing else is."""
    out = []
    sentences = re.findall(r"[^.!?;]+", scene)
    named_elsewhere = bool(of) and any(_says(x, of) for x in sentences)
    for sentence in sentences:
        vague = quantity == "weight" and _VAGUE_TONS.search(sentence)
        weighed = vague or (quantity == "weight" and any(m.group(2).lower() in _WEIGHTS for m in _QUANTITY.finditer(sentence)))
        if not weighed and not any(find(words(sentence), w) for w in near):
            continue
        if of and named_elsewhere and not _says(sentence, of):
            continue
        for m in _QUANTITY.finditer(sentence):
            if re.match(r"[\s,]*(?:deep|down(?!\s+(?:the|a|that|this)\b)|high|tall|up|long|below|above|overhead)\b", sentence[m.end():], re.I):
                continue  # a depth or a height is no width to cross or distance to shoot
            if (m.group(2).lower() in _WEIGHTS) == (quantity == "weight") and (value := number_value(m.group(1))) > 0:
                out.append(value * _UNITS[m.group(2).lower()])
        if vague:
            out.append(_MANY_TONS)
    return out


_STAND_INS = {"it", "them", "this", "that", "thing", "whole", "one", "lot"}  # "lift it", "the whole loaded thing": the scene's heavy thing


def _lifted(acts: list[tuple[tuple[Word, ...], int, int]]) -> list[str] | None:
    """The things the acts (``_acts``) lift, by name (``None`` when they lift only "it" or "the whole thing")."""
    heads = [noun_phrase(clause, i + 1)[0] for clause, i, _ in acts]
    named = [h for h in heads if h and h not in _STAND_INS]
    return named or None


def _amount(value: float, quantity: str) -> str:
    if quantity == "weight" and value == _MANY_TONS:
        return "many tons"
    if quantity == "weight":
        return f"{value / 2000:g} tons" if value >= 2000 else f"{value:,.0f} pounds"
    return f"{value / 5280:g} miles" if value >= 5280 * 1.5 else "a mile" if value >= 5280 else f"{value:,.0f} feet"


# ---- a journey the time the scene gives cannot hold: "sixty miles before dawn, on foot" ------------
_HOURS = {"second": 1 / 3600, "minute": 1 / 60, "hour": 1}
_IN_TIME = re.compile(rf"\bin\s+(?:about\s+|under\s+|only\s+|just\s+|less than\s+)?((?:{NUMBER}[\s-]+)+)(second|minute|hour)s?\b", re.I)
_TO_CLOCK = re.compile(rf"\b((?:{NUMBER}[\s-]+)+)(minute|hour)s?\s+(?:to|before|till|until)\b", re.I)
_NAMED = {"midnight": 0, "dawn": 6, "sunrise": 6, "daybreak": 6, "noon": 12, "midday": 12, "dusk": 18, "sunset": 18, "sundown": 18,
          "nightfall": 18, "mid-morning": 10, "mid-afternoon": 15, "late afternoon": 16.5}
# "a ten-day ride away", "six days' hard ride to the north", "two weeks' sail"
_JOURNEY = re.compile(rf"\b((?:{NUMBER}[\s-]+)+)(day|week)s?['’]?[\s-]+(?:hard\s+|long\s+|good\s+)?(?:ride|walk|journey|march|drive|sail|travel|trek)\b", re.I)
_IN_TIME_SAID = re.compile(r"\b(?:before|by|tonight|today|in time|be back|get back|make it back)\b", re.I)  # the line claims a deadline
# "sundown, three hours away", "the train leaves twenty minutes from now"
_AWAY_TIME = re.compile(rf"\b((?:{NUMBER}[\s-]+)+)(second|minute|hour)s?\s+(?:away|off|from now|left|to go|hence)\b", re.I)
_CLOCK = re.compile(r"\b(\d{1,2})[:.](\d{2})\b|\bat\s+(\w+)(?:\s+o'clock|\s+sharp)\b|\b(" + "|".join(_NAMED) + r")\b", re.I)


def _hours_left(scene: str, deadline: str = "") -> float | None:
    """The time the scene gives: "in about a minute", "ten minutes to noon", or from one clock time
    it states to a later one ("8:50 ... sails at nine sharp", "past midnight ... at dawn")."""
    spans = [number_value(m[1]) * _HOURS[m[2].lower()] for m in (*_IN_TIME.finditer(scene), *_TO_CLOCK.finditer(scene), *_AWAY_TIME.finditer(scene))]
    if spans:
        return min(spans)
    times = _clock_times(scene)
    if len(times) == 1 and deadline:  # the scene says when it is, the line by when: "mid-afternoon" ... "before sundown"
        times += _clock_times(deadline)[:1]
    if len(times) < 2:
        return None
    named = all(t == int(t) and t in _NAMED.values() for t in times[:2])  # dawn to sundown is 12 hours, not 0
    return ((times[1] - times[0]) % (24 if named else 12) or None)


def _clock_times(text: str) -> list[float]:
    times = []
    for m in _CLOCK.finditer(text):
        if m[1]:
            times.append(int(m[1]) % 12 + int(m[2]) / 60)
        elif m[3] and (hour := number_value(m[3])):
            times.append(hour % 12)
        elif named := m[4] or (m[3] if m[3] and m[3].lower() in _NAMED else None):  # "at midnight sharp"
            times.append(float(_NAMED[named.lower()]))
    return times


def _too_far(kind: dict, line: str, scene: str, actor: str | None) -> str | None:
    """The travel kind's reason when the line's journey needs more speed than its way of going has."""
    hours = _hours_left(scene, line) if _acts(kind, line, actor) else None
    miles = [d / 5280 for d in _stated(scene, "distance", kind["scene_words"]) if d >= 1320] if hours else []
    days = [number_value(m[1]) * (7 if m[2].lower() == "week" else 1) for m in _JOURNEY.finditer(scene)] if hours else []
    if not miles and days and hours and min(days) * 24 > 3 * hours and _IN_TIME_SAID.search(line):  # "a ten-day ride away", back by dawn
        return Reason(f"no one makes a journey of {min(days):g} days in {_time_said(hours)}", kind["id"])
    if not miles:
        return None
    how = next((m for m in kind["speeds"] if _says(line, kind["speeds"][m]["words"])), "foot")
    mph = next(v for up_to, v in kind["speeds"][how]["mph"] if hours <= up_to)
    if min(miles) / hours <= mph:
        return None
    return Reason(kind["reason"].format(amount=_amount(min(miles) * 5280, "distance"), time=_time_said(hours), how=kind["speeds"][how]["said"]), kind["id"])


def _time_said(hours: float) -> str:
    return re.sub(r"^1 minutes", "1 minute", f"{hours * 60:.0f} minutes" if hours < 2 else f"{hours:g} hours")


def impossible_in_scene(line: str, scene: str, actor: str | None = None, blind_in_dark: bool = False) -> str | None:
    """Why the act cannot succeed in the scene as it stands: a number the scene states past any
    body (a gap too wide to jump, a target too far to shoot, a weight too great to lift), a thing
    the scene plainly says is gone (``scene_state``), or reading in a dark the scene says is total
    when ``blind_in_dark`` (the actor needs a light). ``None`` when the scene does not say.

        impossible_in_scene("I jump across", "The chasm is two hundred feet across.")  # "no one jumps 200 feet"
    """
    scene = " ".join((scene or "").split())
    if not scene:
        return None
    for kind in kinds("measure"):
        acts = _acts(kind, line, actor)
        if not acts or (kind.get("with") and not _says(line, kind["with"])):
            continue
        stated = _stated(scene, kind["quantity"], kind["scene_words"], _lifted(acts) if kind["quantity"] == "weight" else None)
        named = [v for k, v in (kind.get("limits") or {}).items() if _says(line, [k])]
        limit = min(named) if named else kind["limit"]
        if stated and min(stated) > limit:
            return Reason(kind["reason"].format(amount=_amount(min(stated), kind["quantity"])), kind["id"])
    for kind in kinds("travel"):
        if why := _too_far(kind, line, scene, actor):
            return why
    if gone := acts_on_gone(line, scene, actor):
        return Reason(gone, "scene_gone")
    if blind_in_dark:
        for kind in kinds("dark"):
            if _says(scene, kind["scene_phrases"]) and _acts(kind, line, actor):
                return Reason(kind["reason"], kind["id"])
    return None


def acts_on_gone(line: str, scene: str, actor: str | None = None) -> str | None:
    """Why the line cannot work: it acts on a thing the scene plainly says is gone, as the direct
    object of a verb that needs the thing whole (or the place it moves across, or the dead it asks).

        acts_on_gone("I walk across the rope bridge.", "The rope bridge snapped an hour ago.")
        # "the scene says the bridge snapped"
    """
    things = gone_things(scene) if scene.strip() else {}
    if not things or is_question(line):
        return None
    said = vocab()
    for clause in clauses(line):
        for group, preps in (("uses", ()), ("moves", said["move_preps"]), ("speaks", ())):
            for verb in said[group]:
                for i in find(clause, verb):
                    j = i + len(verb.split())
                    if preps:
                        if j >= len(clause) or clause[j].low not in preps:
                            continue
                        while j + 1 < len(clause) and clause[j + 1].low in preps:  # "climbs up onto the wagon"
                            j += 1
                        j += 1
                    head, _ = noun_phrase(clause, j)
                    if group == "uses" and verb in said["from_verbs"]:  # "draw a bucket of water from the well": the well is what it needs
                        head = next((noun_phrase(clause, k + 1)[0] for k in range(j, len(clause)) if clause[k].low == "from"), head)
                    thing = next((t for t in things if names(head, t)), None)
                    if thing is None or not own_act(clause, i, actor):
                        continue
                    dead = things[thing].endswith(("dead", "buried", "killed", "slain", "murdered"))
                    away = dead or re.search(r"\b(?:gone|missing|left|rode)\b", things[thing])  # the dead and the departed do not answer
                    if (bool(away) if group == "speaks" else not dead) or (dead and verb in ("ride", "mount", "saddle")):
                        return said["reason"].format(fact=things[thing])
    return None


# ---- magic and powers the sheet does not give ------------------------------------------------------
_SPELL_WORD = re.compile(r"[A-Z][\w'’-]*$")


def named_spell(line: str, actor: str | None = None, game_spells: Iterable[str] = ()) -> str | None:
    """The spell the line casts as the speaker's (or ``actor``'s) own act: a spell the kinds know
    ("fireball"), or a name written as one ("casts Mend the Flesh"); ``None`` for "cast my line".

        named_spell("Brisa kneels and casts Cure Wounds.", "Brisa Tallowmere")  # "Cure Wounds"
    """
    known = [*kinds("magic")[0]["spells"], *(s.lower() for s in game_spells)]  # the game's own: pf2e's "casts heal"
    for clause in clauses(line):
        for i in find(clause, "cast"):
            j = i + 1
            while j < len(clause) and clause[j].low in ("a", "an", "the", "my", "his", "her", "their", "one", "some", "on"):
                j += 1
            spell = next((s for s in sorted(known, key=len, reverse=True) if find(clause[j:j + len(s.split())], s)), None)
            if spell is None and any("spell" in w.lemmas for w in clause[j + 1:j + 3]):
                spell = "spell"  # "casts a healing spell", "cast a quick little spell"
            if spell is None and j < len(clause) and _SPELL_WORD.match(clause[j].text) and clause[j].low != "i":
                k = j + 1  # a title-case run, with "of"/"the" inside: "Mend the Flesh", "Ray of Frost"
                while k < len(clause) and (_SPELL_WORD.match(clause[k].text) or (clause[k].low in ("of", "the") and k + 1 < len(clause) and _SPELL_WORD.match(clause[k + 1].text))):
                    k += 1
                spell = " ".join(w.text for w in clause[j:k])
            if spell and (_claimed(clause, i, actor, line) if actor else own_act(clause, i)):
                return spell if spell[0].isupper() else spell.title()
    return None


def magic_act(line: str, actor: str | None = None, game_spells: Iterable[str] = ()) -> str | None:
    """What magic the line works as the speaker's (or ``actor``'s) own act ("a spell", "telepathy"...), or ``None``.

        magic_act("I cast fireball into the middle of them")   # "a spell"
        magic_act("I cast my line into the river")               # None
        magic_act("Jester runs up and casts Cure Wounds.")       # None: Jester's act, not the speaker's
    """
    if named_spell(line, actor, game_spells):
        return "a spell"
    for clause in clauses(line):
        for what, phrases in kinds("magic")[0]["phrases"].items():
            if any(own_act(clause, i, actor) for p in phrases for i in find(clause, p)):
                return what
    return None


def impossible_without_magic(line: str, actor: str | None, without_magic: list[str] | tuple[str, ...],
                             game_spells: Iterable[str] = ()) -> str | None:
    """Why the act cannot work when ``actor`` is one of those whose sheets give no magic and the
    line works magic as their own act (a spell the kinds or the game know, named in any case)."""
    if not actor or actor not in without_magic:
        return None
    what = magic_act(line, actor, game_spells)
    return Reason(kinds("magic")[0]["reason"].format(actor=first_name(actor), what=what), "magic") if what else None


def _claimed(clause: tuple[Word, ...], i: int, actor: str, line: str) -> bool:
    """The deed at ``i`` is the actor's own, done or claimed ("Ilya flies up", "she can breathe
    underwater", "Brisa kneels, lays her hands on him and casts"), not asked, wished, denied or
    someone else's ("the arrow flies", "Tomás casts")."""
    if any(w.low in _UNSURE or w.low.endswith("n't") for w in clause[:i]):
        return False
    first = first_name(actor).lower()
    for k in range(i - 1, -1, -1):
        w = clause[k]
        if w.low in _SELF or w.low in (first, "he", "she"):
            return True
        if k and clause[k - 1].low in _PREPOSITIONS:
            continue  # "kneels beside Tomás and casts": the one beside is no subject
        if w.low in _OTHERS or w.low == "it" or (w.text[0].isupper() and not w.low.endswith(("'s", "s'"))):
            return False
    opener = words(line)[:1]  # no subject in this clause: the line's own ("Brisa kneels beside him, lays ...")
    return i == 0 or bool(opener) and (opener[0].low in _SELF or opener[0].low == first)


# unlike ``own_act``, "can" is a claim ("she can breathe underwater") and "him"/"her" are objects ("stares at him and reads")
_UNSURE = _NOT_AN_ACT - {"can", "must", "be", "been", "being", "or", "may"}
_OTHERS = {"you", "they", "someone", "somebody", "everyone", "people"}
_PREPOSITIONS = {"beside", "to", "with", "at", "on", "near", "for", "over", "by", "behind", "past", "toward", "towards", "from", "under", "around"}


def _someone_elses_power(line: str, actor: str, sheets: dict[str, dict], known: Iterable[str] = ()) -> str | None:
    """A spell or power of the game (``known``) or another sheet at the table, named as written
    (capitalised: "throws a Bolt of holy fire"), worked as the actor's own act with whatever verb."""
    mine = {s.lower() for s in sheets.get(actor, {}).get("spells", [])}
    listed = [*known, *(s for name, sheet in sheets.items() if name != actor for s in sheet.get("spells", []))]
    theirs = {s for s in listed if s.lower() not in mine}
    for spell in sorted(theirs, key=len, reverse=True):
        for clause in clauses(line):
            at = [k for k in range(len(clause)) if " ".join(w.text for w in clause[k:k + len(spell.split())]) == spell]
            if at and at[0] > 0 and _claimed(clause, at[0], actor, line):
                return spell
    return None


def impossible_power(line: str, actor: str | None, sheets: dict[str, dict], known: Iterable[str] = ()) -> str | None:
    """Why the act cannot work: it casts a spell the actor's sheet does not list, or works a power
    (flight, invisibility, reading minds, breathing water, healing by prayer) that nothing on the
    sheet gives. ``sheets``: {name: {"spells": [...], "has": everything the sheet says}}."""
    sheet = sheets.get(actor or "")
    if sheet is None:
        return None
    first = first_name(actor)
    spell = named_spell(line, actor) or _someone_elses_power(line, actor, sheets, known)
    if spell and spell.lower() not in {s.lower() for s in sheet["spells"]}:
        return Reason(f"{first}'s sheet has no {spell}" + (f" (spells: {', '.join(sheet['spells'])})" if sheet["spells"] else ""), "spell")
    has = " ".join(sheet["has"].lower().split())
    for power in kinds_file()["powers"]:
        if any(g in has for g in power["granted_by"]) or _says(line, power.get("unless", [])):
            continue
        if power.get("with") and not _says(line, power["with"]):
            continue
        if any(_claimed(c, i, actor, line) for c in clauses(line) for p in power["phrases"] for i in find(c, p)):
            return Reason(f"{first} has no {power['what']}", "power")
    return None


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
    kind, scene_words = kinds("era")[0], words(scene or "")
    for invention in kind["inventions"]:
        if invention["year"] <= year or any(find(scene_words, w) for w in invention["words"]):
            continue
        # what this act uses ("calls X in Prescott on the telephone"), not the next act; or the thing
        # as the act's own verb, said by its subject ("Lottie radios the depot", "I'll phone him")
        used = [clause[i + 1:][: next((k for k, w in enumerate(clause[i + 1:]) if w.low in ("and", "then", "so")), None)] for clause, i, _ in _acts(kind, line)]
        if any(find(u, w) for u in used for w in invention["words"]) or any(
                k and (c[k - 1].low in _SELF or c[k].low.endswith(("s", "ed")) and c[k].low != w and (
                    c[k - 1].low == "and" or c[k - 1].text[0].isupper() and c[k - 1].low not in _DETERMINERS))
                and own_act(c, k, named=True) for c in clauses(line) for w in invention["words"] if " " not in w for k in find(c, w)):
            return Reason(kind["reason"].format(what=invention["what"], when=year if years else era or year), "era")
    return None
