"""Read a scenario into a World: its ``world:`` mapping as written, the prose for the rest.

Deterministic and quick (it runs at session start): patterns over a class of English wording
(names, measures, exits, years, dead or absent people) in the scene, the opening, the NPC
descriptions and the GM's notes. Secrets are never read. What it could not find is said by
``not_understood``, so an author knows what to write into ``world:``.
"""
from __future__ import annotations

import re
from typing import Any

from lemminflect import getAllLemmas

from .model import Exit, Fact, Npc, Place, World
from .parsed_people import parsed_people

__all__ = ["person_named", "read_world", "read_world_with_model", "merge", "sentences", "measures", "exits_in", "era_of"]

_NUM = (r"\d+(?:[.,]\d+)?|(?:a few|several|half an?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
        r"fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|hundred|a thousand|thousand)"
        r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine|hundred|thousand))*")
_LENGTH = r"feet|foot|ft|yards?|miles?|metres?|meters?|km|kilometres?|kilometers?|inches|paces|leagues?|fathoms?|strides"
_TIME = r"seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|winters?|summers?"
_MEASURE = re.compile(rf"\b(?:{_NUM})[- ](?:{_LENGTH}|{_TIME})\b(?:[- ](?:high|deep|long|wide|tall|away|across|below|"
                      rf"above|downstream|upstream|ahead|off|running|ago))?", re.I)
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b(?:\s*[ap]\.?m\.?)?", re.I)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_YEAR = re.compile(rf"\b(?:(?:{_MONTHS})\s+)?(?:1[0-9]{{3}}|20[0-9]{{2}})\b(?![.,]\d|\s*(?:feet|ft|miles?|yards?|gold|gp|dollars?|coins?|men|people|%))")
_DECADE = re.compile(r"\b(?:the\s+)?(?:1[0-9]|20)[0-9]0s\b|\b(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th))\s+century\b", re.I)
_DAYTIME = re.compile(r"\b(dawn|dusk|sunrise|sunset|midnight|noon|midday|morning|afternoon|evening|night|twilight)\b", re.I)
_PASSAGE = (r"doors?|doorway|gates?|stairs|stair|staircase|stairway|steps|ladder|path|road|trail|track|passage|corridor|"
            r"tunnel|hatch|trapdoor|bridge|archway|arch|window|lane|alley|street|ramp|shaft|chute")
_DIRS = (r"north(?:-?(?:east|west))?|south(?:-?(?:east|west))?|east|west|up|down|upward|downward|upstairs|downstairs|"
         r"below|above|downstream|upstream|inland|seaward")
_EXIT = re.compile(rf"\b(?P<way>{_PASSAGE})\b(?P<rest>[^,;.]*)", re.I)
_EXIT_DIR = re.compile(rf"\b(?P<dir>{_DIRS})\b", re.I)
_EXIT_TO = re.compile(r"(?=\b(?:to|toward|towards|into|onto)\s+(?P<to>(?:the|a|an)\s+[\w'’-]+(?:\s+[\w'’-]+){0,3}|[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*))")
_STOP = {"and", "with", "where", "which", "that", "by", "in", "at", "from", "for", "is", "lies", "stands", "but", "while", "when"}
_NAME = r"[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s+(?:of\s+)?[A-Z][\w'’-]*[a-z][\w'’-]*){0,3}"
_PLACE = re.compile(rf"\b(?:in|at|to|from|near|between|over|beyond|across|toward|towards|under|outside|inside|of|the|and)\s+(?:the\s+)?(?P<name>{_NAME})")
_PLACE_HEAD = re.compile(rf"^(?P<name>{_NAME}),\s+an?\s+(?:[\w-]+\s+){{0,3}}?(?:town|village|city|hamlet|port|fort|castle|keep|manor|"
                         r"inn|tavern|saloon|settlement|camp|island|valley|forest|wood|mine|farm|abbey|monastery|temple|shrine|station|outpost)\b")
_ORG = {"club", "guild", "company", "society", "order", "brotherhood", "sisterhood", "church", "army", "council", "gang", "crew"}
_KIN = set("""husband wife son daughter father mother brother sister nephew niece uncle aunt cousin grandfather grandmother
grandson granddaughter widow widower child friend lover fiance fiancee partner servant master mistress apprentice maid
butler captain keeper merchant gambler sheriff deputy priest priestess doctor innkeeper landlord landlady smith blacksmith
guard soldier sergeant mayor lord lady king queen prince princess knight chief boss leader rival employer clerk owner""".split())
_PERSON = re.compile(r"(?:\b(?P<owner>[A-Z][\w-]+)['’]s|\b(?i:his|her|their|its|the|a|an|our|my))\s+(?P<late>late\s+)?(?:[a-z-]+\s+){0,2}?"
                     rf"(?P<role>[a-z-]+),?\s+(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Prof|Rev|Capt|Sgt|St)\.\s+|(?:Brother|Sister|Father|Mother|Captain|Sheriff|"
                     r"Deputy|Doctor|Doc|Professor|Sergeant|Mayor|Reverend|Judge|Marshal|Master|Mistress|Miss|Madam|Madame|Widow|Lady|Lord|Sir|"
                     r"Auntie|Aunt|Uncle|Granny|Old)\s+)?[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?)")
_UNNAMED_DEAD = re.compile(r"(?:\b(?P<owner>[A-Z][\w-]+)['’]s|\b(?i:his|her|their|the))\s+(?:late|dead)\s+(?P<role>[a-z-]+)\b(?!,?\s+[A-Z])")
_DEAD = re.compile(r"\b(?:late|dead|died|killed|slain|murdered|drowned|buried|deceased|passed away|ghost of|body of|remains of)\b", re.I)
_ABSENT = re.compile(r"\b(?:missing|vanished|disappeared|absent|gone|away|not been seen|lost at sea|fled|left (?:town|the \w+))\b", re.I)
_ABBREV = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|St|Mt|Capt|Sgt|Lt|Col|Gen|Prof|Rev|No|vs|etc|[A-Z])\.$")  # "J. Carrow": an initial ends no sentence


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (a title such as ``Dr.`` does not end one)."""
    out: list[str] = []
    for piece in re.split(r"(?<=[.!?])\s+|(?<=[.!?][\"”’])\s+", " ".join((text or "").split())):
        piece = re.sub(r"^[-*•–—]\s+", "", piece)  # a list's mark is no word of it: "- Next train: Thursday."
        if out and _ABBREV.search(out[-1]):
            out[-1] += " " + piece
        elif piece:
            out.append(piece)
    return out


def _shouted(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) >= 0.6 * len(letters)


def _signs_joined(said: list[str]) -> list[str]:
    """A sign's lettering stays one fact with the sentence that shows it: "... a wanted poster: WANTED - VARRICK THE
    GULL, SMUGGLER." and "300 GP ALIVE, 100 GP DEAD." (its second line, cut off by the full stop) say the reward together."""
    out: list[str] = []
    for sentence in said:
        if out and _shouted(sentence) and _shouted(" ".join(out[-1].split()[-3:])):
            out[-1] += " " + sentence
        else:
            out.append(sentence)
    return out


def measures(text: str) -> list[str]:
    """Numbers with units and clock times: ``thirty feet``, ``12 feet high``, ``two miles downstream``, ``11:40``."""
    return [m.group(0) for m in _MEASURE.finditer(text)] + _CLOCK.findall(text)


def era_of(text: str) -> str:
    """``October 1925``, ``1879``, ``the 1920s`` or ``the 14th century``; "" when the prose names no time."""
    found = _YEAR.search(text) or _DECADE.search(text)
    return found.group(0) if found else ""


def _destination(rest: str) -> str:
    """Where a way leads: ``to the cellar``, ``onto the quay``, ``to Brackmoor`` (not ``to the north``)."""
    for found in _EXIT_TO.finditer(rest):
        words = found.group("to").split()
        if re.fullmatch(_DIRS, words[-1] if len(words) == 1 else words[1], re.I):
            continue
        kept = list(words)
        for i, word in enumerate(kept[1:], 1):
            if word.lower() in _STOP or re.fullmatch(r"(?:opens?|leads?|runs?|goes|winds?)", word.lower()):
                kept = kept[:i]
                break
        return " ".join(kept)
    return ""


def exits_in(text: str) -> list[Exit]:
    """Ways out a sentence names: ``a door to the north``, ``stairs lead down to the cellar``."""
    out = []
    for sentence in sentences(text):
        for found in _EXIT.finditer(sentence):
            rest = found.group("rest")
            direction, to = _EXIT_DIR.search(rest), _destination(rest)
            if not direction and not to:
                continue
            lengths = [m for m in measures(sentence) if re.search(_LENGTH, m, re.I)]
            way = " ".join(w for w in (found.group("way").lower(), direction.group("dir").lower() if direction else "") if w)
            out.append(Exit(to=to or (direction.group("dir").lower() if direction else ""), way=way,
                            distance=lengths[0] if lengths else ""))
    return out


def _places(text: str, people: set[str]) -> list[Place]:
    names: list[str] = []
    for sentence in sentences(text):
        head = _PLACE_HEAD.match(sentence)
        found = [head.group("name")] if head else []
        found += [m.group("name") for m in _PLACE.finditer(sentence)]
        for name in found:
            name = re.sub(r"['’]s$", "", name)
            if name.split()[-1].lower() in _ORG or name.split()[0] in people or name in names:
                continue
            names.append(name)
    return [Place(name=n) for n in names]


def _npc_from(npc: Any) -> Npc:
    """A scenario NPC: role from the first clause of the description, voice from the clauses after it."""
    text = " ".join((npc.description or "").split())
    head, *rest = re.split(r"\s*(?:,|;| — | - )\s*", text)
    voice = [c for c in rest if c and not _DEAD.search(c) and not _ABSENT.search(c)
             and not re.search(r"\b(?:at|in|on|behind|by|under|near)\s+(?:the|a|an|his|her|their)\b", c)]
    return Npc(name=npc.name, role=head, voice=", ".join(voice), alive=not _DEAD.search(text), present=not _ABSENT.search(text))


def _people(text: str, known: World, present: bool = True) -> list[Npc]:
    """People the prose names who are not on the NPC list (``Maren's nephew Corvin``, ``her late husband``).

    Someone the scene names is taken as present unless the words near them say dead or missing;
    ``present=False`` for the GM's notes, which speak of the world beyond the scene.
    """
    out: list[Npc] = []
    for sentence in sentences(text):
        for m in _PERSON.finditer(sentence):
            role, name = m.group("role").lower(), re.sub(r"['’]s$", "", m.group("name"))
            if role not in _KIN and not re.search(r"(?:ist|man|woman|ess|ian)$", role):
                continue
            if known.npc(name) or known.place(name) or any(n.name == name for n in out) or name in _MONTHS:
                continue
            near = sentence[m.end():m.end() + 60].strip(" ,")
            dead = bool(m.group("late") or _DEAD.match(near) or re.search(r"\b(?:is|was) (?:dead|killed|slain)", near) or _DEAD_AFTER.search(near))
            owner = f" of {m.group('owner')}" if m.group("owner") else ""
            out.append(Npc(name=name, role=role + owner, alive=not dead,
                           present=present and not dead and not _ABSENT.search(near[:45]) and not _GONE_AFTER.search(near)))
        for m in _UNNAMED_DEAD.finditer(sentence):
            name = f"{m.group('owner')}'s {m.group('role')}" if m.group("owner") else f"the {m.group('role')}"
            if not known.npc(name) and not any(n.name == name for n in out):
                out.append(Npc(name=name, role=m.group("role"), alive=False, present=False))
    return out


_TITLE = (r"(?:Captain|Capt\.|Brother|Sister|Father|Mother|Sheriff|Deputy|Doctor|Doc|Dr\.|Mr\.|Mrs\.|Ms\.|Miss|Professor|Prof\.|"
          r"Old|Lady|Lord|Sir|Sergeant|Sgt\.|Mayor|Reverend|Rev\.|Judge|Marshal|Master|Mistress|Widow|Granny|Uncle|Aunt)")
_GONE_AFTER = re.compile(r"^\W{0,3}(?:\w+\s+){0,3}?(?:left|went (?:down|off|away|out|across|over|up|into|to|for)|"
                         r"has(?:n't| not) (?:returned|come back|been seen)|never came back|is (?:away|out|gone|missing)|"
                         r"(?:has|had|have) gone|(?:has|had) been (?:away|gone|missing)|(?:herself|himself) is (?:away|gone|out)|poled (?:across|away|off)|(?:is|are) not (?:expected )?back|(?:won't|will not|isn't|is not) (?:be )?(?:back|return)|"
                         r"(?:was|is|went) missing|vanished|disappeared|set (?:out|off)|"
                         r"(?:was|were|has been|had been) (?:abducted|kidnapped|taken|carried off|dragged off|hauled off|arrested|"
                         r"snatched|spirited away|led away|sent away|called away)|"
                         r"(?:rode|sailed|drove|walked|headed|travell?ed|flew|took the \w+) (?:out|off|away|for|to|into|down|up|"
                         r"north|south|east|west|upriver|downriver|inland|home))\b", re.I)
_DEAD_AFTER = re.compile(r"^(?:['’]s\s+(?:grave|body|corpse|headstone|tomb|coffin|ghost)|\W{0,3}(?:\w+\s+){0,2}?"
                         r"(?:lies dead|lying dead|lay dead|(?:was |is )?found dead|is dead|was dead|died|was killed|was murdered|was slain|drowned|is buried|lies buried|"
                         r"was buried|passed away|lies still|is long dead|lies (?:face ?down|face up) in the \w+|"
                         r"(?:lies|sits|lay|is) (?:slumped|sprawled|crumpled)[^.;]{0,80}?\b(?:wound|blood|throat|knife|bolt|arrow|bullet)))\b", re.I)
# the next sentence says it of them: "Mayor Penn sits slumped over his desk. He has been dead for hours."
_DEAD_NEXT = re.compile(r"^[^.;!?]*[.;!?]\s+(?:he|she)\s+(?:has|had)\s+been\s+dead\b|^[^.;!?]*[.;!?]\s+(?:he|she)\s+(?:is|was)\s+(?:long\s+)?dead\b", re.I)
# what the rest of their sentence says: "..., poled across at dawn and will not be back before tomorrow"
_GONE_LATER = re.compile(r"^[^.;!?]*?\b(?:(?:will|would) not|won't|isn't|is not|not) (?:be )?(?:back|expected back|return(?:ing)?)\b", re.I)


def person_named(text: str, word: str) -> Npc | None:
    """Someone the prose names by ``word`` though no NPC list does ("Voss" → Captain Voss): the GM
    meets them when a player speaks to them. Dead or gone when the words right after a mention say so."""
    word = word.strip().split()[-1] if word.strip() else ""
    if not word or not word[0].isupper():
        return None
    mentions = list(re.finditer(rf"(?:\b{_TITLE}\s+)?(?:[A-Z][\w'’-]+\s+)?\b{re.escape(word)}\b(?:\s+{_PROPER})?", text))
    if not mentions:
        return None
    first = mentions[0].group(0)
    words = first.split()
    while len(words) > 1 and not re.fullmatch(_TITLE, words[0]) and words[0] != word and words[0].lower() in _COMMON_OPENERS:
        words = words[1:]
    titled = re.fullmatch(_TITLE, words[0]) or (len(words) > 2 and re.search(rf"\b[Tt]he {re.escape(words[0].lower())}\b", text))
    if titled and words[0] != word:  # "Doc Ellery's surgery ... The doc rode out", "the magister herself is away": the title names them
        mentions += list(re.finditer(rf"\bthe {re.escape(words[0].rstrip('.'))}\b(?!\s+(?-i:[A-Z]))", text, re.I))
    # past a clause about them (", who held the tower,"): what they do or what befell them
    after = [re.sub(r"^\s*,\s*(?:who|whose|whom|the|a|an|his|her|their|once)\b[^,;.]*,", "", text[m.end():m.end() + 140]) for m in mentions]
    before = [text[max(0, m.start() - 70):m.start()] for m in mentions]
    dead = any(_DEAD_AFTER.search(a) or _DEAD_NEXT.search(text[m.end():m.end() + 260]) for a, m in zip(after, mentions)) or any(
        _GRAVE_BEFORE.search(b) for b in before)
    gone = any(_GONE_AFTER.search(a) or _GONE_LATER.search(a) for a in after)
    return Npc(name=" ".join(words), alive=not dead, present=not (dead or gone))


_GRAVE_BEFORE = re.compile(r"\b(?:grave|tomb|headstone|gravestone|epitaph|memorial|cross|coffin|in memory of|here lies|"
                           r"(?:body|corpse|remains) of)\b[^.]*$|"
                           r"\b(?:body|corpse|remains|cadaver)\b[^.:;]{0,40}:\s*$", re.I)  # "measures the corpse on the table: Jed Harlan"
_COMMON_OPENERS = {"the", "a", "an", "his", "her", "their", "old", "young", "when", "then", "but", "and", "if", "as"}
# words that open a sentence and are no part of a name after them ("What Mortimer took...")
_OPENING_WORDS = {"what", "who", "whom", "whose", "why", "how", "whatever", "whoever", "this", "that", "these", "those", "its", "our", "my", "your"}


def _about(sentence: str, world: World) -> list[str]:
    """The names a sentence mentions (an NPC by any word of their name no other NPC shares), measures, years."""
    words = {n.name: {n.name, *n.aliases, *(w for w in n.name.split() if len(w) > 2 and w.lower() != "the")} for n in world.npcs}
    shared = {w for ws in words.values() for w in ws if sum(w in other for other in words.values()) > 1}
    names = [name for name, ws in words.items()
             if any(re.search(rf"\b{re.escape(w.rstrip('s'))}s?\b", sentence, re.I) for w in ws - shared)]
    names += [i.name for i in world.places + world.things if i.name.lower() in sentence.lower()]
    return list(dict.fromkeys(names + measures(sentence) + ([era_of(sentence)] if era_of(sentence) else [])))


def merge(first: World, second: World) -> World:
    """``first`` as written, with what it leaves out filled from ``second`` (NPCs, places and things matched by name)."""
    out = first.model_copy(deep=True)
    for key in ("era", "time", "here"):
        if not getattr(out, key):
            setattr(out, key, getattr(second, key))
    for npc in second.npcs:
        mine = out.npc(npc.name)
        if mine is None:
            out.npcs.append(npc.model_copy(deep=True))
            continue
        for field in type(npc).model_fields:
            if field not in mine.model_fields_set and field != "name":
                setattr(mine, field, getattr(npc, field))
    for kind, find in (("places", out.place), ("things", out.thing)):
        for item in getattr(second, kind):
            mine = find(item.name)
            if mine is None:
                getattr(out, kind).append(item.model_copy(deep=True))
            elif kind == "places" and not mine.exits:
                mine.exits = list(item.exits)
    for fact in second.facts:
        out.add_fact(fact.text, fact.about, fact.source, fact.turn, fact.public)
    return out


_PLACE_WORDS = set("""river hill hills street road lane library university college inn tavern saloon house hall church chapel
    temple shrine tower keep castle manor bridge crossing ford pass valley forest wood woods lake sea bay harbor harbour port
    docks dock station mine mountain mountains peak island isle club guild company territory county city town village
    market square gate gates abbey monastery farm ranch fort camp coast cove creek falls office bank hotel museum hospital
    mill quarry pier wharf quay well barn stable stables yard ridge reef mesa gorge canyon lighthouse cemetery graveyard""".split())
_WEEKDAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
_PROPER = r"[A-Z](?:[a-z]{0,2}['’]?[A-Z])?[a-z'’-]+(?:-[A-Z][a-z'’]+)*"  # Wren, O'Rourke, McAllister, Moreau-Kline
_CANDIDATE = re.compile(rf"(?:\b{_TITLE}\s+)?\b{_PROPER}(?:\s+{_PROPER}){{0,2}}")
# "The harbourmaster, Ilse Korvath,", "A shepherd girl, Wren,": who someone is, said before their name
_ROLE_BEFORE = re.compile(r"\b(?P<det>the|an?|his|her|their)\s+(?P<role>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*),\s*$", re.I)
_ROLE_IS = re.compile(r"\b(?P<det>the|his|her|their)\s+(?P<role>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s+(?:is|was)\s*$", re.I)
_PERSON_NOUN = re.compile(r"(?:master|mistress|keeper|keep|man|woman|er|or|ess|ist|ian|girl|boy|lad|lass|child|wife|widow)$")
_ACTS_AFTER = re.compile(r"^\s*,\s+(?:[a-z]+ly\s+)?[a-z]{2,}(?:s|ed)\b|^\s*,\s+(?:an?|the)\s")
# what after a name says it is someone: "Ysolde, a gnome with soot on her goggles", "Pike, who donated the folio",
# "Jeb tips his hat", "Olan left a note ... he went down"
_PERSON_AFTER = re.compile(r"^(?:['’]s\s+)?(?:,\s+(?:who|whose)\b|,\s+(?:an?|the)\s+[^,;.]{0,60}?\b(?:he|she|his|her|him|who)\b|"
                           r"\s+(?:[a-z]+\s+){0,6}?(?:his|her|he|she|himself|herself)\b|"
                           # a GM's note: "Brannigan Sallowby: old, white-bearded, rocking on his porch"
                           r":\s+(?!(?:an?|the)\s)[^.;:]{0,80}?\b(?:his|her|he|she|him)\b)")


def _named_people(text: str, known: World) -> list[Npc]:
    """People the prose names by a proper name without a role before it ("Ysolde, a gnome with soot on her goggles",
    "Professor Wendell Pike, who donated the folio, drowned"): a title, "who", or his/her right after the name tells a
    person from a place. Dead or gone as the words after their name say (``person_named``)."""
    out: list[Npc] = []
    unsure: list[tuple[Npc, str]] = []
    for sentence in sentences(text):
        for m in _CANDIDATE.finditer(sentence):
            words = re.sub(r"['’]s$", "", m.group(0)).split()  # "Mrs. Ida Bellweather's boarding house"
            if len(words) > 1 and m.start() == 0 and words[0].lower() in _COMMON_OPENERS | _STOP | _OPENING_WORDS:
                words = words[1:]  # "What Mortimer took from his pockets ...": a sentence's opening word is no part of the name
            # a title is one of the usual ones, or a word the scene also uses for them alone ("Magister Morrow ... the magister")
            own_title = len(words) > 2 and (re.search(rf"\b[Tt]he {re.escape(words[0].lower())}\b", text) is not None
                                            or _a_calling(words[0]))  # ... or a calling: "Dockmaster Benedek Haroun"
            titled = re.fullmatch(_TITLE, words[0]) is not None or own_title
            bare = [w for w in words[1 if own_title else 0:] if not re.fullmatch(_TITLE, w)]
            if not bare or bare[-1].lower() in _PLACE_WORDS or set(words) & (_WEEKDAYS | set(_MONTHS.split("|"))):
                continue
            if bare[0].lower() in _PRONOUNS:
                continue
            if m.start() == 0 and not titled and len(bare) == 1 and (bare[0].lower() in _COMMON_OPENERS | _STOP
                                                                    or not _DOES_AFTER.match(sentence[m.end():])):
                continue  # "Last night he saw...": a sentence's first word is a name only when it acts ("Cadoc tips his cap")
            before = sentence[:m.start()].rstrip()
            if re.search(r"\b(?:in|at|to|from|near|of the|the|into|across|toward|towards|an?)$", before, re.I) and not titled:
                continue
            after = sentence[m.end():]
            apposed = _APPOSITIVE.match(after)
            named = re.search(r"\b(?:named|called|calls?|nicknamed|dubbed|known as)$", before)  # "a toll-keeper named Orrin Vale"
            led = _ROLE_BEFORE.search(before)  # "The harbourmaster, Ilse Korvath," / "A shepherd girl, Wren, sits"
            led = led if led and led.group("role").split()[-1].lower() not in _PLACE_WORDS and (
                led.group("role").split()[-1].lower() in _TRADES or _PERSON_NOUN.search(led.group("role").lower())
                or led.group("det").lower() in ("his", "her", "their")) and _ACTS_AFTER.match(after) else None  # "Her steward, Tamas, waits"
            trade = apposed is not None and apposed.group("role").split()[-1].lower() in _TRADES  # "Bessa Quill, the boat's cook,"
            named_as = _ROLE_IS.search(before)  # "The barkeep is Cornelius Blaine", "The toll keeper is Hrolda Ironwhistle"
            named_as = named_as if named_as and (named_as.group("role").split()[-1].lower() in _TRADES
                                                 or _PERSON_NOUN.search(named_as.group("role").lower())) else None
            led = led or named_as
            said = (titled or named or led or trade or _PERSON_AFTER.search(after[:90]) or _GRAVE_BEFORE.search(before) or _LIFE_DATES.match(after)
                    or (len(bare) > 1 and _DOES_AFTER.match(after))  # "Sal Marchetti tends bar", "Mags O'Rourke, red-haired, runs the bar"
                    # "Abigail Crane's apartment. ... Abigail vanished": one name that acts, written whole elsewhere
                    or (len(bare) == 1 and _DOES_AFTER.match(after) and re.search(rf"\b{re.escape(bare[0])}\s+{_PROPER}", text)))
            if not said and not apposed:
                continue
            name = " ".join(words)
            taken = [{w.lower() for w in n.name.split()} for n in [*known.npcs, *out, *(c for c, _ in unsure)]]
            if known.place(name) or any({w.lower() for w in bare} <= t for t in taken):
                continue
            met = person_named(text, bare[0] if len(bare) > 1 else bare[-1])
            if met is None:
                continue
            # "Doc Ambrose Pell ... Doc Pell rode out"; but "Greta Kessler ... her husband, Karl Kessler, went to Fort Redd" is his
            kin = next((k for k in re.finditer(rf"\b(?!{re.escape(bare[0])}\b)([A-Z][a-z]+),?\s+{re.escape(bare[-1])}\b", text)
                        if not re.fullmatch(_TITLE, k.group(1)) and not _a_calling(k.group(1))), None) if len(bare) > 1 else None
            if len(bare) > 1 and not kin and (by_last := person_named(text, bare[-1])) is not None:
                met.alive, met.present = met.alive and by_last.alive, met.present and by_last.present
            met = met.model_copy(update={"role": led.group("role") if led else apposed.group("role") if apposed else "",
                                         "name": re.sub(r"['’]s$", "", met.name)})
            if _LIFE_DATES.match(after):
                met.alive = met.present = False
            if said:
                out.append(met)
            else:
                unsure.append((met, apposed.group("phrase")))
    # "Wenna, a stooped dyer with blue hands" is someone, "Gorsedd, a river town" somewhere: what the apposed words
    # are nearer in meaning (MiniLM), a person or a place or thing
    return out + [met for met, is_person in zip((m for m, _ in unsure), _people_by_meaning([p for _, p in unsure])) if is_person]


_NICKNAMED = re.compile(rf"(?:(?P<title>{_TITLE})\s+)?(?:(?P<first>[A-Z][\w'’-]+)\s+)?[\"“](?P<nick>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)[\"”]\s+(?P<last>[A-Z][\w'’-]+)")


def _nicknamed(text: str, known: World) -> list[Npc]:
    """People written with a nickname in quotes (Bram "Ledger" Oakes, Deputy "Cotton" Beale): called by either;
    dead or gone as the words after their surname say."""
    out: list[Npc] = []
    for m in _NICKNAMED.finditer(text or ""):
        name = " ".join(x for x in (m.group("title"), m.group("first"), m.group("last")) if x)
        if known.npc(name) or known.npc(m.group("nick")) or any(n.name == name for n in out):
            continue
        met = person_named(text, m.group("last")) or Npc(name=name)
        out.append(Npc(name=name, aliases=[m.group("nick")], alive=met.alive, present=met.present))
    return out


_QUOTED_NAME = re.compile(r"[\"“](?P<nick>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})[\"”]")
_CALLED_BEFORE = re.compile(r"(?:\b(?:known as|called|calls?|nicknamed|dubbed|goes by|answers to|(?:known|called) to \w+ as)|,)\s*$", re.I)
_CALLED_AFTER = re.compile(r"^\s+to\s+(?:the|his|her|their|everyone|everybody|all|friends|most)\b", re.I)


def _called_by(text: str, npcs: list[Npc]) -> None:
    """A nickname the prose gives after the name: 'Miss Harriet Lowe, known as "Hattie"', 'Hrolda Ironwhistle,
    whom every bargeman calls "Auntie Whistle"', 'Cornelius Blaine, "Corky" to the regulars': called by it too."""
    for sentence in sentences(text or ""):
        for m in _QUOTED_NAME.finditer(sentence):
            before, after = sentence[:m.start()], sentence[m.end():]
            if not (_CALLED_BEFORE.search(before) or _CALLED_AFTER.match(after)):
                continue
            named = [(before.rfind(w), n) for n in npcs for w in n.name.split() if len(w) > 2 and w[0].isupper() and
                     re.search(rf"\b{re.escape(w)}\b", before)]
            if named:
                npc = max(named, key=lambda x: x[0])[1]  # the nearest name before the quote
                nick = m.group("nick").rstrip(".")
                if nick not in npc.aliases and nick != npc.name:
                    npc.aliases.append(nick)
                npcs[:] = [n for n in npcs if n is npc or n.name != nick]  # "Uncle Bert", read as a name of its own, is them


# a note left on a door: "GONE TO DUNMERE FOR THE FAIR. BACK IN A TENDAY. - H.", "Gone to the coast until Firstday. - O.T."
_AWAY_NOTE = re.compile(r"\b(?:gone|away|out of town|back (?:in|on|at|by|before|after|soon)|closed|until|returning|return)\b"
                        r"[^\n]{0,160}?\s[-–—]\s*(?P<sig>(?:[A-Z]\.\s*){1,3}|[A-Z][a-z]+\b)", re.I)


def _away_by_note(text: str, npcs: list[Npc]) -> list[Npc]:
    """Whoever signed a note saying they are gone is not here: the one whose initials (or first name) the
    signature gives; someone the prose names only so ("The smithy of Hrolf Ironmantle") is met by it."""
    new: list[Npc] = []
    for m in _AWAY_NOTE.finditer(text or ""):
        sig = m.group("sig")
        letters = re.findall(r"[A-Z]", sig) if "." in sig or len(sig) == 1 else None

        def signed(name: str) -> bool:
            words = [w for w in name.split() if not re.fullmatch(_TITLE, w)]
            return [w[0] for w in words[:len(letters)]] == letters if letters else sig in words

        found = [n for n in [*npcs, *new] if signed(n.name)]
        if not found:
            named = [c.group(0) for c in re.finditer(rf"\b{_PROPER}(?:\s+{_PROPER}){{1,2}}", text) if signed(c.group(0))]
            found = [Npc(name=named[0])] if named else []
            new += found
        for npc in found[:1]:
            npc.present = False
    return new


_TRADE_VERB = r"(?:tends|keeps|runs|minds|mans|works|watches|guards|drives|rows|poles|pilots|captains|owns)"
_NOT_WORK = {"has", "was", "sits", "stands", "looks", "seems", "waits", "lies", "leans", "holds", "wears", "smells", "feels", "knows",
             "says", "tells", "wants", "does", "goes", "gets", "takes", "needs", "hopes", "fears", "hates", "likes", "loves", "thinks"}
_NOT_WORKED = {"through", "on", "at", "in", "for", "with", "over", "out", "off", "away", "around", "late", "hard", "alone", "here", "there",
               "from", "into", "onto", "by", "across", "under", "behind", "beside", "near", "toward", "towards", "like", "after", "up",
               "down", "along", "past", "without", "while", "and", "but", "the", "his", "her", "their", "its",
               "you", "him", "her", "them", "everyone", "everybody", "anyone", "nobody", "people", "passersby"}  # "watches you": no trade
_TRADE_SUFFIXES = ("keeper", "keep", "tender", "man", "woman", "master", "mistress", "er")


def _trade_aliases(text: str, npcs: list[Npc]) -> None:
    """What a trade stated by its work calls someone: "Sal tends bar" → the bartender, "keeps the gate" → the
    gatekeeper, "runs the ferry" → the ferryman (the thing worked and each usual suffix, as aliases)."""
    for npc in npcs:
        words = [w for w in re.findall(r"[\w'’-]+", npc.name) if len(w) > 2 and not re.fullmatch(_TITLE, w) and w[0].isupper()]
        if not words:
            continue
        said = "|".join(re.escape(w) for w in words)
        for m in re.finditer(rf"\b(?:{said})\b(?:,[^,;.]{{1,40}},)?\s+(?:[a-z]+ly\s+)?{_TRADE_VERB}\s+(?:the\s+|a\s+)?(?P<obj>[a-z]{{3,}})\b", text):
            obj = m.group("obj")
            if obj in _NOT_WORKED:
                continue  # "works through a ham sandwich": a preposition, not the thing worked
            new = [f"{obj}{end}" for end in _TRADE_SUFFIXES] + [f"{obj} {end}" for end in _TRADE_SUFFIXES[:2]]
            npc.aliases += [a for a in new if a not in npc.aliases]
            npc.role = npc.role or f"{obj}{'tender' if obj == 'bar' else 'keeper'}"
        # any other work they do to a thing: "Ruby Castellanos deals faro" → the faro dealer, the dealer
        for m in re.finditer(rf"\b(?:{said})\b\s+(?P<verb>[a-z]{{3,}}s)\s+(?:the\s+|a\s+)?(?P<obj>[a-z]{{3,}})\b", text):
            verb, obj = m.group("verb"), m.group("obj")
            if re.fullmatch(_TRADE_VERB, verb) or obj in _NOT_WORKED or verb in _NOT_WORK:
                continue
            stem = verb[:-2] if re.search(r"(?:sh|ch|ss|x)es$", verb) else verb[:-1]
            agent = stem + ("r" if stem.endswith("e") else "er")
            obj = (getAllLemmas(obj, upos="NOUN").get("NOUN") or [obj])[0]  # "deals cards" → the card dealer
            npc.aliases += [a for a in (f"{obj} {agent}", agent) if a not in npc.aliases]
        # a business under their name: "Moss & Son, Undertakers" → the undertaker
        for m in re.finditer(rf"\b(?:{said})(?:['’]s)?(?:\s*&\s*Sons?)?,?\s+(?P<trade>[A-Z][a-z]+(?:ers|ors|smiths|wrights|makers))\b", text):
            trade = m.group("trade").lower()[:-1]
            if trade not in npc.aliases:
                npc.aliases.append(trade)
            npc.role = npc.role or trade


_TRADES = _KIN | set("""bartender barkeep barmaid ferryman fisherman fisherwoman boatman porter stablehand groom cook
    hermit monk nun abbot acolyte scholar librarian archivist curator clerk scribe beggar peddler vendor shopkeeper alchemist
    healer herbalist hunter trapper miner farmer shepherd woodcutter watchman watchwoman lookout sentry jailer warden bailiff
    constable magistrate noble baron baroness duke duchess courier messenger sailor pilot bosun quartermaster tinker minstrel
    bard dealer croupier gambler thief smuggler outlaw bandit trader fence witch wizard mage druid cleric""".split())
# "The innkeeper polishes a glass", "an old fisherman mends his net": someone the scene gives only a trade
_ROLE_ONLY = re.compile(r"(?:^|[.;]\s+|,\s+|\band\s+)(?P<art>the|an?)\s+(?P<adj>(?:[a-z-]+\s+){0,2}?)(?P<role>[a-z-]+)\s+"
                        r"(?P<verb>[a-z]+(?:s|ed))\b", re.I)


def _unnamed_people(text: str, known: World) -> list[Npc]:
    """People the scene names only by a trade ("the innkeeper", "a one-eyed ferryman"), called so, present unless the
    words after say dead or gone; one per trade, and none where someone named already has that role."""
    out: list[Npc] = []
    roles = {w for n in known.npcs for w in re.findall(r"[a-z-]+", (n.role or "").lower())}
    for sentence in sentences(text):
        for m in _ROLE_ONLY.finditer(sentence):
            role = m.group("role").lower()
            if role not in _TRADES or role in roles or re.match(r",?\s+[A-Z]", sentence[m.end("role"):]):
                continue
            near = sentence[m.start("verb"):m.start("verb") + 60]
            dead = bool(_DEAD_AFTER.search(" " + near) or _DEAD.match(near))
            roles.add(role)
            out.append(Npc(name=f"the {role}", role=role, alive=not dead, present=not dead and not _GONE_AFTER.search(" " + near)))
    return out


_APPOSITIVE = re.compile(r",\s+(?P<phrase>(?:an?|the)\s+(?P<role>(?:[\w'’-]+\s+){0,2}?[\w'’-]+?)(?=\s+(?:with|who|in|at|from|of|by|on)\b|[,;.]|$)[^,;.]*)")
_PRONOUNS = {"he", "she", "it", "they", "we", "you", "i", "his", "her", "its", "their", "this", "that", "there", "here"}
_DOES_AFTER = re.compile(r"^(?:,[^,;.]{1,40},)?\s+(?:[a-z]+ly\s+)?[a-z]{2,}(?:s|ed)\b(?<!\bis)(?<!\bwas)(?<!\bhas)")
_LIFE_DATES = re.compile(r"^,?\s*\(?\d{3,4}\s*[-–—]\s*\d{3,4}")  # "Elen Penhale, 1790-1841": a name on a stone
_SOMEONE = ["a person", "a man", "a woman", "someone who works here"]
_SOMEWHERE = ["a place", "a town", "a building", "a thing", "an object"]


def _people_by_meaning(phrases: list[str], creatures: bool = False) -> list[bool]:
    """For each apposed phrase, whether it says who someone is rather than what a place or thing is
    (``creatures``: a creature counts, as a role does: "Gribbit Snaggle, a goblin"; never for a name: "the Gilded Goose")."""
    if not phrases:
        return []
    from pipelines.embeddings import embed
    from pipelines.vector_store import embed_cached

    people, places = embed_cached([*_SOMEONE, *(["a creature"] if creatures else [])]), embed_cached(_SOMEWHERE)
    said = embed(phrases)
    return [bool((people @ v).max() > (places @ v).max()) for v in said]


def _parsed(text: str, known: World, found: list[Npc]) -> list[Npc]:
    """People the parser finds that the patterns above missed, and the roles they left empty
    ("the herbwife, old Sefa Underbough": ``parsed_people``). Only someone with a role that names
    a person is added; dead or gone as the words after their name say (``person_named``)."""
    out: list[Npc] = []
    found_here = parsed_people(text, _people_by_meaning)
    # the tagger calls places people too ("Deadwater Crossing, Nebraska, 1868."): a name, or the role beside it, must
    # mean someone rather than somewhere ("Coyote Springs" is a place by its words, "Gus Halloran" a man)
    by_name = _people_by_meaning([n for n, _ in found_here])
    roles = iter(_people_by_meaning([r for _, r in found_here if r], creatures=True))
    by_role = [bool(r) and next(roles) for _, r in found_here]
    for (name, role), named_someone, role_someone in zip(found_here, by_name, by_role):
        if not (named_someone or role_someone):
            continue
        words = name.lower().split()
        # "Keeper Maud" found already is "Keeper Maud Ellery": the fuller name, the shorter kept to call her by
        shorter = [n for n in [*found, *out] if name.startswith(n.name + " ")]
        for npc in shorter:
            npc.aliases = [*npc.aliases, npc.name]
            npc.name = name
        # the same person again ("Vane" of "Silas Vane"), not kin who share the surname ("Tobin Ellery" is not Maud)
        same = [n for n in [*known.npcs, *found, *out] if words[-1] in (theirs := set(n.name.lower().split()))
                and (len(words) == 1 or len(theirs) == 1 or words[0] in theirs or theirs <= set(words))]
        if shorter or same:
            for npc in same:
                if not npc.role and role and npc in found:
                    npc.role = role
            continue
        # the tagger's person with no role beside the name counts when named in full: "Wenna Brightwater,
        # broad-shouldered and barefoot, is milking" (one word alone may be a boat or a town: "Hopeful")
        if (not role and len(words) < 2) or known.place(name):
            continue
        met = person_named(text, name.split()[-1]) or Npc(name=name)
        out.append(met.model_copy(update={"name": name, "role": role}))
    return out


# a title that is a calling: "Stationmaster Ingrid Halvorsen", "Caravan-master Zahra", "Proprietress Winifred Oakes"
_CALLING_TITLES = {"sheriff", "deputy", "doctor", "doc", "captain", "sergeant", "mayor", "judge", "marshal", "reverend", "professor",
                   "magnate", "proprietress", "proprietor", "constable", "warden", "abbot", "abbess", "prior", "chief", "foreman"}


_WORKPLACES = {"smithy": "smith", "forge": "smith", "bakery": "baker", "mill": "miller", "store": "storekeeper", "shop": "shopkeeper",
               "inn": "innkeeper", "tavern": "tavern keeper", "saloon": "saloon keeper", "stables": "stablemaster", "livery": "stablemaster",
               "farm": "farmer", "apothecary": "apothecary", "surgery": "doctor", "bookshop": "bookseller", "pawnshop": "pawnbroker"}
_CALLING_END = re.compile(r"(?:master|mistress|keeper|monger|smith|wright|maker|warden|herd|ess|man|woman)$")


def _a_calling(word: str) -> bool:
    """Whether a word before a name says what someone does: a trade, a title of office, or a long word with a calling's
    ending ("Stationmaster", "Proprietress"); "Hester" or "Norman" is a name."""
    word = word.lower()
    return word in _TRADES or word in _CALLING_TITLES or bool(_CALLING_END.search(word)) and len(word) > 7


def _titled_callings(text: str, npcs: list[Npc]) -> list[Npc]:
    """The role a title before a name gives, or a workplace under it, where the reader found none that names a person
    ("Stationmaster Ingrid Halvorsen, spectacles, a pencil behind her ear": the stationmaster, not "spectacles")."""
    for npc in npcs:
        words = npc.name.split()
        title = words[0] if len(words) > 1 and _a_calling(words[0]) and words[0][0].isupper() else None
        if title is None:
            said = "|".join(re.escape(w) for w in words if w[:1].isupper() and len(w) > 2)
            before = re.search(rf"([A-Z][a-z]+(?:-[a-z]+)?)\s+(?:{said})", text) if said else None
            title = before.group(1) if before and _a_calling(before.group(1)) and not re.fullmatch(_TITLE, before.group(1)) else None
        if title is None:  # a place of work under their name: "Stokes' smithy" → the smith
            surname = next((w for w in reversed(words) if w[:1].isupper() and len(w) > 2), "")
            place = re.search(rf"\b{re.escape(surname)}(?:['’]s?)\s+(?P<place>{'|'.join(_WORKPLACES)})\b", text) if surname else None
            title = _WORKPLACES[place.group("place")] if place else None
        last = (npc.role or "").split()[-1].lower() if npc.role else ""
        if title and not (last in _TRADES or last in _CALLING_TITLES or _PERSON_NOUN.search(last)):
            npc.role = title.lower()
    return npcs


def _kept_once(npcs: list[Npc]) -> list[Npc]:
    """One person found twice, by title and first name and by full name ("Caravan-master Zahra" is Zahra Ventillo),
    or twice by the same name, kept once with the other name as an alias."""
    def own(npc: Npc) -> set[str]:  # their name without a title before it: "Caravan-master Zahra" → {"zahra"}
        words = npc.name.split()
        words = words[1:] if len(words) > 1 and (_a_calling(words[0]) or re.fullmatch(_TITLE, words[0])) else words
        return {w.lower() for w in words if w[:1].isupper()}

    kept: list[Npc] = []
    for npc in npcs:
        mine = own(npc)
        # a fuller name of the same person among the others, or the same name kept already
        fuller = next((k for k in npcs if k is not npc and mine and mine < own(k)), None) or next(
            (k for k in kept if mine and mine == own(k)), None)
        if fuller is not None:
            fuller.aliases = list(dict.fromkeys([*fuller.aliases, *([npc.name] if npc.name != fuller.name else [])]))
            fuller.role = fuller.role or npc.role or (npc.name.split()[0].lower() if _a_calling(npc.name.split()[0]) else "")
            continue
        kept.append(npc)
    return kept


def _in_order_met(text: str, npcs: list[Npc]) -> list[Npc]:
    """The people the prose names, in the order it first names them: the one a scene opens on is the one it is about."""
    def first(npc: Npc) -> int:
        at = [m.start() for w in npc.name.split() if len(w) > 2 for m in [re.search(rf"\b{re.escape(w)}\b", text)] if m]
        return min(at) if at else len(text)
    return sorted(npcs, key=first)


def _from_prose(scenario: Any, written: World) -> World:
    public = " ".join([scenario.scene or "", scenario.opening or ""])
    notes = " ".join(scenario.notes or [])
    world = World(era=era_of(public), time=(_DAYTIME.search(public).group(1).lower() if _DAYTIME.search(public) else ""))
    world.npcs = [_npc_from(n) for n in scenario.npcs]
    known = merge(written, world)
    world.npcs += _people(" ".join([public, *(n.description for n in scenario.npcs)]), known)
    world.npcs += _people(notes, merge(known, world), present=False)
    world.npcs += _nicknamed(public, merge(known, world))
    world.npcs += _named_people(public, merge(known, world))
    world.npcs += _parsed(public, merge(known, world), world.npcs)
    world.npcs += _unnamed_people(public, merge(known, world))
    _trade_aliases(public, world.npcs)
    _called_by(public, world.npcs)
    world.npcs += _away_by_note(public, world.npcs)
    written_npcs = len(scenario.npcs)
    world.npcs[written_npcs:] = _in_order_met(public, _kept_once(_titled_callings(public, world.npcs[written_npcs:])))
    people = {w for n in known.npcs + world.npcs for w in n.name.split()}
    here = Place(name=scenario.title, description=(sentences(scenario.scene) or [""])[0], exits=exits_in(public))
    named = [p for p in _places(public, people) if World(places=[here]).place(p.name) is None]
    world.places = named if written.places else [here, *named]  # a written map has its own "here"
    world.here = "" if written.places else here.name
    seen = merge(written, world)
    for text, public_ in ((scenario.scene, True), (scenario.opening, True), (notes, False)):
        for sentence in (s for s in _signs_joined(sentences(text)) if len(s.split()) > 3):
            world.facts.append(Fact(text=sentence, about=_about(sentence, seen), source="reader", public=public_))
    return world


def read_world(scenario: Any) -> World:
    """The scenario's world: its ``world:`` mapping as written, filled in from the prose. Never raises on prose."""
    written = World.model_validate(getattr(scenario, "world", None) or {})
    world = merge(written, _from_prose(scenario, written))
    if not world.here and world.places:
        world.here = world.places[0].name
    return world


async def read_world_with_model(scenario: Any, model: Any) -> World:
    """``read_world`` with what a model reads from the same public prose merged in after it (never secrets)."""
    from pipelines.llm import complete_json

    base = read_world(scenario)
    prose = "\n".join([scenario.scene, scenario.opening, *(f"NPC {n.name}: {n.description}" for n in scenario.npcs)])
    messages = [{"role": "system", "content": "You read a tabletop RPG scene into JSON: era, time, places with exits "
                 "and distances, things and where they are, NPCs with role, voice, disposition, alive, present. "
                 "Use only what the text says."}, {"role": "user", "content": prose}]
    parsed = await complete_json(model, messages, World, step="world", max_tokens=1500)
    return merge(base, parsed.value) if parsed.parse_ok and parsed.value is not None else base
