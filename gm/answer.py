"""Content first: what a reply to a question must say, chosen from the world before any model speaks.

A small model asked "Ruth, when did you last see your father?" invents ("she was not alive");
given the answer to word, it words it. So the GM picks the content here, from data, and the
model only says it (``gm.narration`` checks the reply carries it, else says it plainly):

- **talk** to an NPC: what that NPC knows on the topic (``Knowledge``), told freely, only after a
  check of its family, or never; else what the scene says on it, in their voice; else "I don't
  know". Nobody dead or gone answers.
- **ask** the GM: the world's facts (the scene's sentences, what was found or decided since),
  or, for "what did we find earlier?", what this table said and found.
- **ooc**: a request for hidden facts out of character is "for your characters to find out".

A question the world has no answer for gets none here: the narration decides it once and
``remember_decided`` stores it as a fact, so the same question gets the same answer later.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from pipelines.english import parse
from pipelines.numbers import SMALL
from pipelines.speech import first_name

from .kinds import asked_thing, kind_of

__all__ = ["Answer", "FAR_FROM", "answers_to_parts", "choose_answer", "content_keys", "joined", "NAME_ASKED", "remember_decided", "OOC_REFUSAL", "STATS_REFUSAL", "is_recall", "content_words", "hint", "asks_hint", "own_business"]

Embed = Callable[[list[str]], np.ndarray]

OOC_REFUSAL = "That's for your characters to find out in the game; ask or look in character."
# out of character, the player's own business the world cannot answer: how a rule works, a break at the table
RULES_REPLY = "That's a rules question: /sheet shows what each of your checks rolls; how a rule works is as the game's rulebook has it."
BREAK_REPLY = "Take your time; the game waits for you."
_BREAK = re.compile(r"\b(?:break|snack|pizza|bathroom|brb|be right back|afk|coffee)\b", re.I)


def own_business(text: str) -> str:
    """The reply to an out-of-character line about the player's own game that no sheet line answers."""
    return BREAK_REPLY if _BREAK.search(text) else RULES_REPLY
# the foes' numbers are the GM's side of the screen: "OOC: how many hit points do goblins have?"
STATS_REFUSAL = "That stays behind the GM's screen; you'll see how tough they are when it comes to a fight."
_STATS = re.compile(r"\b(?:hp|hit points?|ac|armou?r class|saving throws?|stats|stat block|challenge rating|"
                    r"resistances?|immunit(?:y|ies))\b", re.I)  # not "save me the roll", "level with me"
# cosine similarity (MiniLM) a knowledge topic or a fact must reach to answer the question
TOPIC_MATCH = 0.5  # "who else has a key to this chapel?" reaches 0.47 on "the chapel and its saint": the word, not the topic
FACT_MATCH = 0.38
KEYWORD_BONUS = 0.1  # a knowledge topic's own keyword said in the question
ABOUT_THEM = 0.08  # for "where were you?", a sentence of the one asked gains this, one of someone else loses it
NPC_FACT_MATCH = 0.38  # a scene sentence an NPC says for want of knowledge must be plainly on the question
_RECALL = re.compile(r"\bwhat (?:was|were) (?:the|his|her|their|that|its) (?:\w+\s+){0,2}?(?:name|password|word|phrase|number|price|sum|amount|"
                     r"bounty|reward|date|riddle|answer)\b|\b(?:earlier|before|again|remind|remember|recall|(?:did|['’]d) (?:i|we|you|they|he|she|[A-Z][\w'’-]+) (?:find|get|take|see|say|learn|hear|pick|give|hand|pay|buy|sell|tell|ask|promise|trade|have|hold|show|play|win|lose|draw|offer|want|leave|put|tie|stash|hide|park|stable|lock|bury)|"
                     r"(?:found|took|picked up|learned|heard) (?:earlier|before|back)|what was it|what did .{1,30} (?:say|tell|find))\b", re.I)
# what an out-of-character line asks about that is the player's own business, not the world's hidden facts
_RULES_TALK = re.compile(r"\b(?:hp|hit points?|ac|armou?r class|spell slots?|slots?|rules?|modifier|bonus|sheet|level|dice|roll|"
                         r"initiative|turn order|whose turn|save|saving throw|proficien\w*|skill list|inventory|break|snack|pizza|bathroom|"
                         r"mechanic\w*|flavou?r|wild (?:card|die)|trait rolls?|equipment|gear|kit|actions?|reactions?|bennies|benny|hero points?|"
                         r"luck|inspiration|conditions?)\b|\bdo i (?:have|carry|own)\b", re.I)
# a question of how the game works, not of the scene: "rules question:", "how do bennies work?", "is that a crit fail?"
_RULES_ASKED = re.compile(r"\brules? question\b|\brules?[- ]wise\b|\bmechanically\b|\bjust flavou?r\b|\b(?:character )?sheet\b|\bhow (?:does|do|would) (?:[\w'’-]+\s+){1,4}?work\b|\bcrit(?:ical)?\s*(?:fail\w*|success\w*|hit)\b|"
                          r"\bin (?:pf2e?|5e|d&d|dnd|coc|call of cthulhu|savage worlds|swade|pathfinder)\b", re.I)
# what an out-of-character question after the hidden side of the scene says
_SEEKS_HIDDEN = re.compile(r"\b(?:secrets?|secretly|hidden|hide|hides|hiding|really|actually|truth|true|truly|real|lie|lies|lying|"
                           r"cheat\w*|spoil\w*|answer|solution|solve|twist|culprit|killer|murderer|villain|traps?|trick|"
                           r"going on|up to|plan|plans|the roll|skip|straight|honest\w*|behind (?:it|this|that|all)|afraid|fear\w*|"
                           r"want|wants|motive|who did|whodunn?it|guilty|clue|clues)\b", re.I)
# "ask her to wait by the stove": a favour asked, not a question
_ASKS_A_DEED = re.compile(r"\bask(?:s|ed)?\s+(?:him|her|them|(?:the\s+)?[\w'’]+(?:\s+[A-Z][\w'’]+)?)\s+to\s+(?!tell\b|say\b|explain\b|describe\b|show\b)[a-z]+", re.I)
_REMIND_ME = re.compile(r"\b(?:remind|tell|show|give|let|excuse|pardon)\s+me\b", re.I)  # "tell me" asks; it is not what is asked of
_ASKS = re.compile(r"\b(?:ask|asks|asked|inquire|inquires|question|questions)\b", re.I)  # "I ask Ruth about her father"
_PLAYER_LINE = re.compile(r"^(?:[A-Z][\w'’.-]*\s?){1,4}: ")  # "Ilya Thorncastle: I look over the pews" (the table's record of a player's line)
_HOW_MUCH = re.compile(r"\b(?:how (?:far|high|tall|deep|long|wide|many|much|old|big|heavy|close|near)|what year|which year|how many)\b", re.I)
# what a "how far is the lighthouse" asks about: the noun after the verb
_SUBJECT = re.compile(r"\bhow \w+(?: away| off| down| up)? (?:is|are|was|were|does|do|did)\s+(?:the|a|an|that|this|those|these|it|we|i)?\s*(\w+)", re.I)
_WORDS = "|".join(w for w in SMALL if w != "zero")  # one, two ... nineteen, twenty ... ninety (pipelines.numbers)
_HAS_NUMBER = re.compile(rf"\d|\b(?:{_WORDS}|hundred|thousand|dozen|half|quarter|a few|several|"
                         r"(?:ankle|knee|waist|chest|shoulder|neck|head|man)[- ](?:deep|high|tall))\b", re.I)  # "knee-deep" answers "how deep"
_SPAN = re.compile(r"\b(?:feet|foot|ft|yards?|yds|miles?|mi|km|metres?|meters?|paces|fathoms?|leagues?|(?:ankle|knee|waist|chest|shoulder|neck|head)[- ](?:deep|high))\b", re.I)
_DURATION = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|several|a couple of|an?)\s+"
                       r"(?:(?:long|whole|full)\s+)?(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|winters?|summers?)\b|"
                       r"\b(?:ago|since|yesterday|last (?:night|week|month|year|winter|spring|summer|autumn|fall))\b", re.I)
_WHEN = re.compile(r"\b\d{1,2}[:.]\d{2}\b|o'clock|quarter (?:to|past)|half past|\b(?:dawn|dusk|sunrise|sunset|sunup|midnight|noon|"
                   r"morning|evening|tonight|tomorrow|yesterday|first light|daybreak|nightfall|monday|tuesday|wednesday|thursday|"
                   r"friday|saturday|sunday)\b", re.I)
# "when can I have it back?", "when will the coach come?": a time ahead, not one gone by
_WILL = re.compile(r"\bwhen (?:can|will|would|shall|should|is|are|does|do)\b|\bwhen'(?:s|ll)\b", re.I)
_AHEAD = re.compile(r"\b\d{1,2}[:.]\d{2}\b|o'clock|quarter (?:to|past)|half past|\b(?:dawn|dusk|sunrise|sunset|sundown|sunup|midnight|noon|"
                    r"morning|evening|tonight|tomorrow|today|first light|daybreak|nightfall|monday|tuesday|wednesday|thursday|friday|"
                    r"saturday|sunday|next (?:week|month|year))\b|\bin (?:\d+|an?|one|two|three|four|five|six|seven|a few|several)\s+"
                    r"(?:minutes?|hours?|days?|weeks?)\b", re.I)
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_DATE = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
                   r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_MONEY = re.compile(r"\b(?:bits?|cents?|dollars?|gold|silver|copper|coins?|gp|sp|cp|shillings?|pence|crowns?|marks?|pounds?)\b|\$\d[\d,]*", re.I)
_COUNT = re.compile(rf"\d|\b(?:{_WORDS}|dozen|hundred|a pair|both|a few|several)\b", re.I)
# a number of things (not a unit): "six crossbowmen", "two rooms", "eleven pine coffins"
# (no word between them that only joins: "one hand and smiles" counts no smiles)
_JOINING = r"(?:and|or|but|with|at|in|on|of|to|for|from|by|the|an?|this|that|which|who|as|like|was|is|has|us|always|yes|thus)\b"
_COUNTED = re.compile(rf"\b(?:\d+|{_WORDS}|"
                      rf"a dozen|dozens|a hundred|a few|several|a pair of|both)\s+(?:of (?:the|my|his|her|their|our|its|those|these)\s+)?(?:(?!{_JOINING})[a-z-]+\s+){{0,2}}?(?!(?:feet|foot|ft|yards?|miles?|"
                      r"metres?|meters?|paces|fathoms?|leagues?|inches|seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|"
                      rf"times|degrees|percent|o'clock)\b)(?!{_JOINING})([a-z-]{{2,}}(?:s|men|people|folk|children|sheep|deer|cattle|geese|mice))\b", re.I)
# the words for people and beasts counted: "six crossbowmen", "eleven bodies", "four shod horses" (for riders), the foes a table counts
_BEINGS = re.compile(r"(?:[a-z-]*(?:men|man|folk|folks|people)|persons|souls|women|guards?|soldiers|troops|warriors|fighters|riders|bandits|"
                     r"outlaws|thieves|robbers|raiders|pirates|smugglers|sailors|crew|hands|deputies|players|gamblers|drinkers|patrons|"
                     r"customers|guests|diners|travell?ers|passengers|pilgrims|monks|priests|nuns|acolytes|cultists|worshipp?ers|villagers|"
                     r"farmers|miners|workers|labou?rers|servants|children|kids|boys|girls|dead|bodies|corpses|survivors|wounded|prisoners|"
                     r"captives|hostages|goblins|orcs|kobolds|gnolls|bugbears|hobgoblins|figures|strangers|knights|mercenaries|sentries|"
                     r"archers|families|cowboys|cowhands|old-timers|elders|officers|clerks|visitors|mourners|dancers|musicians|"
                     r"onlookers|spectators|townsfolk|locals|men-at-arms|thugs|toughs|ruffians|brigands|highwaymen|zombies|skeletons|"
                     r"ghouls|horses|mounts|mules|ponies|wolves|dogs|hounds|rats|bats|spiders|crows|ravens|beasts|creatures)", re.I)
# a cause or a purpose: "why did the miller close the sluice?" is answered by "...because the reeve's men were coming"
_CAUSE = re.compile(r"\b(?:because|since|so that|so as to|in order to|for fear|ever since|owing to|due to|on account of|blames?|blamed|"
                    r"the reason|afraid (?:of|that)|to keep|to stop|to hide|to protect|to pay)\b", re.I)
_WHY_CAUSE = 0.35  # for a why, a text with a cause gains this and one without loses it: restating the question is near in words only

_STUFF = (r"stone|wood|iron|bronze|brass|copper|silver|gold|steel|bone|glass|clay|jade|marble|granite|oak|pine|leather|cloth|silk|"
          r"wool|soapstone|steatite|obsidian|ivory|tin|lead|pewter|crystal|rope|planks?|barrels?|bricks?|timber|canvas|hide|horn|"
          r"basalt|sandstone|slate|wicker|reeds?|straw|wax|paper|parchment|porcelain|ceramic|driftwood|logs?")
_MATERIAL = re.compile(rf"\b(?:made|carved|built|cut|forged|cast|hewn|woven|fashioned)\s+(?:out\s+)?(?:of|from|in)\b|"
                       rf"\bof\s+(?:[a-z-]+\s+){{0,2}}(?-i:{_STUFF})\b|\b(?-i:{_STUFF}|wooden|oaken|golden|stony)\b", re.I)  # "Silver Spur" is a name

_MEASURES = (  # (what the question asks, what a text that answers it states): the answer's type
    (re.compile(r"\bhow long\b", re.I), re.compile(f"{_SPAN.pattern}|{_DURATION.pattern}", re.I)),
    (re.compile(r"\bhow (?:high|tall|deep|far|wide|close|near)\b|\bhow .{0,12}\b(?:up|down|away)\b", re.I), _SPAN),
    (re.compile(r"\bwhat time\b", re.I), _WHEN),
    (re.compile(r"\bwhat year\b|\bwhich year\b", re.I), re.compile(r"\b1[0-9]{3}\b|\b20[0-9]{2}\b")),
    (re.compile(r"\bwhat (?:is|was|'s) the (?:\w+\s+)?(?:number|phone number|address|room number|combination)\b|\bwhich number\b", re.I),
     re.compile(r"\b\d{2,}(?:[-:]\d+)?\b")),  # "what was the number on that matchbook?": digits
    (re.compile(r"\bhow much\b|\b(?:charge|cost|costs|price|fare|pay|toll|buy-in|fee|wage|reward|bounty|offer|offered|worth)\b", re.I), _MONEY),
    (re.compile(r"\bhow many\b", re.I), _COUNT),
    (re.compile(r"\b(?:what|which) date\b|\bdated\b|\bwhat day of\b", re.I), _DATE),
    (re.compile(r"\bwhen\b|\bsince when\b|\bwhat day\b", re.I), re.compile(f"{_WHEN.pattern}|{_DURATION.pattern}", re.I)),
    # "what's the gate made of?", "what is the idol carved out of?": a text that says what it is made of
    (_MADE_OF := re.compile(r"\b(?:made|carved|built|cut|forged|cast|hewn|woven|fashioned|put together)\s+(?:out\s+)?(?:of|from)\b|\bwhat material\b", re.I),
     _MATERIAL),
    (_WHY := re.compile(r"\bwhy\b|\bhow come\b|\bwhat for\b|\bwhat made (?:him|her|them|you|it)\b", re.I), _CAUSE),
    # "who gave the library this folio?": a sentence that names someone (a capitalised word past its first)
    (re.compile(r"\bwho(?:m|se)?\b|\bwhat (?:is|was|'s) (?:the|his|her|their) (?:\w+\s+)?name\b|\bthe name\b", re.I), re.compile(r"(?<=\w[\s,'‘\"“])(?:Dr\.\s|Mr\.\s|Mrs\.\s)?(?!(?:January|February|March|April|May|June|July|August|September|October|"
                                                 r"November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b)"
                                                 r"[A-Z][a-z'’-]{2,}(?:\s+[A-Z][a-z'’-]{2,})*")),
)
_STOP = set("""a an the of to in on at by for with and or but is are was were be been it its this that these those i you he she
    we they me him her us them my your his our their what who whom whose where when why how which do does did can could would
    should will shall may might must have has had there here then than so if not no yes any some all as from into about up
    down out over under again very just also too tell say said ask know""".split())


@dataclass
class Answer:
    """What a reply must carry. ``content`` is a plain sentence (the fallback says it as is);
    ``quote`` the NPC's own words for it; ``final`` means no model: said exactly so."""

    kind: str  # npc | npc_ack | npc_unknown | npc_refuses | npc_gated | npc_gone | fact | recall | ooc
    content: str
    speaker: str = ""
    quote: str = ""
    keys: list[str] = field(default_factory=list)
    gated_checks: list[str] = field(default_factory=list)  # a check of this family must succeed before it is told
    final: bool = False
    voice: str = ""  # who the speaker is and how they talk (role; voice notes), for the words
    rest: str = ""  # the questions of the line the world leaves unanswered, left to the model after ``content``

    def spoken(self) -> str:
        """The reply when the model's words are unusable: the content, in the NPC's voice where there is one."""
        if self.quote and self.speaker:
            quote = self.quote.strip()
            quote = quote[0].upper() + quote[1:] if quote else quote
            quote = quote if quote.endswith((".", "!", "?")) else quote + "."
            return f'{self.speaker} says, "{quote}"'
        return self.content


_HINT = re.compile(r"\b(?:hints?|nudge|stuck|(?:where|what) (?:should|do|can) (?:i|we) (?:go|do|try|look)|what now|any ideas?)\b", re.I)


def asks_hint(text: str) -> bool:
    """Whether an out-of-character line asks for a nudge ("can you drop a hint?", "I'm stuck")."""
    return _HINT.search(text) is not None


def hint(world: Any, table_said: Sequence[str] = ()) -> str:
    """A GM's nudge out of character: someone present who knows more than the table has asked, or a
    thing in view nobody has touched; never a secret, its trigger, or what the thing holds."""
    said = " ".join(table_said).lower()
    for npc in getattr(world, "npcs", []) or []:
        if getattr(npc, "alive", True) and getattr(npc, "present", True) and any(
                k.answer.lower()[:40] not in said for k in getattr(npc, "knows", []) or [] if not k.never):
            return f"A nudge: {npc.name} may know more than anyone has asked so far."
    for thing in getattr(world, "things", []) or []:
        if "hidden" not in thing.states and thing.name.lower() not in said:
            return f"A nudge: nobody has looked closely at the {thing.name.removeprefix('the ')} yet."
    return "A nudge: look around you, and ask the people here what they know."


def content_keys(text: str, limit: int = 4, asked: str = "") -> list[str]:
    """The words a reply must share with the content to carry it: numbers first, then names, then rare words.

    Given the question, what it asks for comes first and alone when the content states it: "how long has the
    river been high?" is carried by "six" (of "six days"), not by the river's width that shares the sentence."""
    typed = _asked_span(text, asked) if asked else ""
    if typed and _WORDS_ASKED.search(asked) and _QUOTED.fullmatch(typed):  # the password's own words, each of them
        return [w.strip("'’‘\"“”") for w in typed.split()][:limit]
    if typed and _HOLDS_ASKED.search(asked):
        return content_keys(typed, limit)  # what a thing holds: its names and rare words
    if typed and _span_keys(typed):
        return _span_keys(typed)[:limit]
    words = re.findall(r"[A-Za-z][\w'’-]*|\d+(?:[.,]\d+)?", text)
    numbers = [w for w in words if w[0].isdigit()]
    numbers += [w for w in words if w.lower() in _NUMBER_WORDS]
    names = [w for i, w in enumerate(words) if w[0].isupper() and i > 0 and w.lower() not in _STOP]
    rare = sorted(dict.fromkeys(w.lower() for w in words if w.lower() not in _STOP and len(w) >= 5), key=len, reverse=True)  # ties: first said
    out: list[str] = []
    for w in [*numbers, *names, *rare]:
        if w.lower() not in {o.lower() for o in out}:
            out.append(w)
    return out[:limit]


_LASTS = re.compile(r"\b(?:been|ago|since|take|takes|took|last|lasts|lasted|wait|waited|until|till|stay|stayed|gone|away)\b", re.I)


def _asked_span(text: str, asked: str) -> str:
    """The words of ``text`` of the kind the question asks for (a span for "how far", a time for "when", a count for
    "how many", a name for "who"), or "" when the question asks for no such kind or the text states none. Of several,
    the one whose neighbourhood shares most words with the question ("how many are boarded?" → "seven are boarded")."""
    for question, stated in _MEASURES:
        if not question.search(asked):
            continue
        if question.pattern.startswith(r"\bwhen") and _WILL.search(asked):
            stated = _AHEAD  # "when can I have it back?" is told by "at sundown", not by "yesterday"
        if question.pattern.startswith(r"\bhow long") and _LASTS.search(asked):
            # "how long has it been?" asks for a time, not a length; "how long till the stage?" for when, if said
            stated = _WHEN if re.search(r"\b(?:till|until)\b", asked, re.I) and _WHEN.search(text) else _DURATION
        found = [m for m in stated.finditer(text) if re.search(r"[A-Za-z0-9]", m.group(0))]
        if question.pattern.startswith(r"\bhow many"):
            found = list(_COUNTED.finditer(text)) + [m for m in re.finditer(_HAS_NUMBER, text)]
        if not found:
            continue  # "how many steps up?" is no span asked: the next kind that fits
        words = content_words(asked)
        best = max(found, key=lambda m: (len(words & content_words(text[max(0, m.start() - 30):m.end() + 30])), -m.start()))
        # a unit takes the number before it: "feet" → "60 feet"
        head = re.search(rf"(?:{_NUMBER_RE})[\s-]+(?:[a-z]+\s+)?$", text[max(0, best.start() - 25):best.start()], re.I)
        return (head.group(0) if head else "") + best.group(0)
    quoted = _QUOTED.search(text) if _WORDS_ASKED.search(asked) else None
    if quoted:  # "what was the password?": the quoted words
        return quoted.group(0)
    held = _HOLDS.search(text) if _HOLDS_ASKED.search(asked) else None
    return re.split(r"[;.]", text[held.end():])[0] if held else ""  # "what's in the barrel?": what it is full of


_NUMBER_RE = (r"\d+(?:[.,/]\d+)?|half an?|a half|a quarter|a hundred|a thousand|a dozen|one|two|three|four|five|six|seven|eight|nine|"
              r"ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|a few|several|an?")


def _span_keys(span: str) -> list[str]:
    """The key words of a stated measure or name: its numbers when it has any, else its content words."""
    words = [w.rstrip("'’-") for w in re.findall(r"[A-Za-z][\w'’-]*|\d+(?:[.,]\d+)?", span)]
    numbers = [w for w in words if w[0].isdigit() or w.lower() in _NUMBER_WORDS]
    return numbers or [w for w in words if w.lower() not in _STOP] or words


_SPAN_ASKED = re.compile(r"\bhow (?:long|far|deep|high|tall|wide|old)\b", re.I)  # a span is of something: a sum or a count may go by another name
_MEASURE_WORDS = set("long far many much high tall deep wide old big heavy close near often soon away".split())
_NUMBER_WORDS = set("""one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty
    hundred thousand dozen half""".split())


def is_recall(line: str) -> bool:
    """A question about what happened at this table before ("what did we find earlier?")."""
    return bool(_RECALL.search(line))


def _whole_quotes(said: list[str]) -> list[str]:
    """The table's sentences with a quote split across sentences made whole again, and joined to the sentence before it
    that says who speaks ("Meska turns the scale and sniffs." + "\"Forty gold. Not a copper more.\""): a recalled offer
    keeps who made it."""
    out: list[str] = []
    open_quote, joined = False, 0
    for s in said:
        starts = s.lstrip()[:1] in "\"“" and not _PLAYER_LINE.match(s)
        if out and joined < 8 and not _PLAYER_LINE.match(s) and (
                open_quote or (starts and not _PLAYER_LINE.match(out[-1]) and out[-1].count('"') + out[-1].count("“") == 0)):
            out[-1], joined = f"{out[-1]} {s}", joined + 1  # a quote left open never swallows a player's turn or a whole scene
        else:
            out.append(s)
            joined = 0
        marks = out[-1].count('"') + out[-1].count("“") + out[-1].count("”")
        open_quote = marks % 2 == 1
    return out


def _pairs(text: str) -> set[tuple[str, str]]:
    """Two content words said one after the other: "next door", "lighthouse keeper", "Devil Reef"."""
    words = [w for w in re.findall(r"[a-z0-9']+", text.lower())]
    return {(a, b) for a, b in zip(words, words[1:]) if a not in _STOP and b not in _STOP and len(a) > 2 and len(b) > 2}


def content_words(text: str) -> set[str]:
    """The words of a text that carry its content: no function words, none under three letters."""
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in _STOP and len(w) > 2}


def _measure_bonus(question: str, texts: Sequence[str], npc: Any = None) -> list[float]:
    """A little for a text of the type of answer asked for: a span for "how high", a time for "when", a name for
    "who" (not the name of the one asked: "Armitage, who gave this?" is answered by someone else's name)."""
    plain = [_without_name(t, npc) for t in texts] if npc is not None else list(texts)
    kinds = [(asked, stated) for asked, stated in _MEASURES if asked.search(question)]
    fits = [[0.15 if (_AHEAD if _WILL.search(question) and asked.pattern.startswith(r"\bwhen") else stated).search(t) else 0.0
             for t in plain] for asked, stated in kinds]
    if fits:  # "How long have we got? When was the last train?": the first kind asked that some text states
        k = next((i for i, f in enumerate(fits) if any(f)), 0)
        if kinds[k][0] is _WHY and any(fits[k]):  # a why is not answered by the sentence that only restates what was asked
            return [_WHY_CAUSE if f else -_WHY_CAUSE for f in fits[k]]
        return fits[k]
    if _HOLDS_ASKED.search(question):  # "what's in the open barrel?": a text that says what something holds
        return [0.15 if _HOLDS.search(t) else 0.0 for t in texts]
    if _WORDS_ASKED.search(question):  # "what was the password?": the words someone said, in quotes
        return [0.15 if _QUOTED.search(t) else 0.0 for t in texts]
    if _READS_ASKED.search(question):  # "what does it say?" of writing: the words written
        return [0.15 * bool(_WRITTEN.search(t)) + 0.05 * bool(_READS.search(t)) for t in texts]
    if _HAPPENED_ASKED.search(question):  # "what happened to the bridge?": a text that tells a deed, not a measure
        return [0.1 if _DEED.search(t) else 0.0 for t in texts]
    return [0.0] * len(texts)


_WORDS_ASKED = re.compile(r"\b(?:password|pass ?word|watchword|countersign|the word|phrase|riddle|motto|code word|what (?:was|were) the words)\b", re.I)
_QUOTED = re.compile(r"(?<![\w])['‘\"“][A-Za-z][^'’\"”]{1,40}['’\"”](?![\w])")
_READS_ASKED = re.compile(r"\bwhat (?:does|did|do) (?:it|they|that|this|the \w+(?: \w+)?) (?:say|read)\b|\bwhat(?:'s| is) (?:written|carved|painted|"
                          r"scratched|chalked)\b", re.I)
_READS = re.compile(r"\b(?:reads?|inscription|inscribed|written|carved|painted|chalked|scrawled|letters|words)\b")
_WRITTEN = re.compile(r"[\"“'][A-Z][^\"”']{3,}[\"”']|\b[A-Z]{3,}(?:\s+[A-Z]{2,}){1,}\b")  # the words themselves: quoted or in capitals
_HAPPENED_ASKED = re.compile(r"\bwhat (?:happened|went on|went wrong|did (?:you|he|she|they) see)\b|\bwhat (?:did|do) you (?:see|hear|notice)\b", re.I)
_DEED = re.compile(r"\b(?!(?:was|were|had|has|used|tired|red|bed|shed|need|seed|feed|speed|bleed)\b)[a-z]{2,}ed\b|\b(?:saw|cut|took|broke|fell|"
                   r"burnt|burned|came|went|ran|rode|stole|left|threw|hit|shot|struck|drove|brought|caught|heard|found|lost|set|put|tore)\b", re.I)
_HOLDS_ASKED = re.compile(r"\bwhat(?:'s|’s| is| was| are| were)? (?:in|inside|on|under|within)\b|\bwhat (?:does|did) (?:it|the \w+) (?:hold|contain)\b", re.I)
_HOLDS = re.compile(r"\b(?:full of|filled with|packed with|stuffed with|heaped with|piled with|crammed with|holds?|holding|contains?|"
                    r"containing|inside (?:is|are|lies|lie)|in it)\b|\b(?:inside|contents?|in it)\s*:", re.I)  # "Saddlebag contents: ..."


def _best(question: str, texts: Sequence[str], embed: Embed | None, extra: Sequence[float] = ()) -> tuple[int, float]:
    """The text nearest the question: MiniLM cosine, plus a little for the content words they share.

    With no ``embed`` given, the world's texts (the same scene sentences every turn) come from the
    vector store's memo (``embed_cached``) and only the question is embedded afresh."""
    if not texts:
        return -1, 0.0
    if embed is None:
        from pipelines.embeddings import embed as minilm
        from pipelines.vector_store import embed_cached

        scores = embed_cached(list(texts)) @ minilm([question])[0]
    else:
        vectors = embed([question, *texts])
        scores = vectors[1:] @ vectors[0]
    asked, pairs = content_words(question), _pairs(question)
    # a little for each word shared, more for two said together ("next door", "lighthouse keeper")
    bonus = np.array([0.05 * min(2, len(asked & content_words(t))) + (0.08 if pairs & _pairs(t) else 0.0) for t in texts]) + (
        np.array(extra) if len(extra) else 0.0)
    total = scores + bonus
    best = int(total.argmax())
    return best, float(total[best])


# small talk asks after someone's day ("Busy day?", "Slow night?", "Cold night, isn't it?", "How's business?"): their news answers it
_DAY_TALK = re.compile(r"\b(?:busy|slow|quiet|long|rough|hard|big|strange|lively|dead|cold|wet|fine|lovely|nasty|foul|miserable|bitter|raw|"
                       r"grim|stormy|windy|hot|warm|nice|fair|chilly|damp|foggy|bleak|dreary|filthy)\s+(?:day|night|morning|evening|afternoon|week|shift|crowd|weather)\b|"
                       r"\b(?:some|quite some|what|such)\s+(?:\w+\s+)?weather\b|\bkeeping busy\b|\bgood\s+(?:crowd|week|shift)\b", re.I)  # "good evening" greets
_HOW_GOES = re.compile(r"\bhow(?:['’]s| is| are| goes)\s+(?:business|things|trade|the day|the night|it going|tricks|the weather)\b", re.I)
_WELLBEING = re.compile(r"\bhow\s*(?:are|['’]re|r)\s+(?:you|u|ya)\b(?:\s+(?:doing|holding up|keeping|feeling|getting on|getting by|today|tonight|this (?:morning|evening)))?\s*(?:[?,.!]|$)|"
                        r"\bhow (?:have|ha['’]?) you been\b|\b(?:are )?you (?:all right|alright|okay|ok)\s*\?", re.I)
_SMALL_TALK = re.compile(rf"{_DAY_TALK.pattern}|{_HOW_GOES.pattern}|{_WELLBEING.pattern}|"
                         r"\b(?:what['’]s new|any news|what['’]s the news|anything happen(?:ing|ed)?)\b", re.I)


_GREETING = re.compile(r"\b(?:hello|hi|hey|hail|ahoy|greetings|good (?:morning|evening|afternoon|day|night|morrow)|howdy|evening|evenin['’]?|mornin['’]?|"
                       r"g['’]day|well met|bows?|tips? (?:my|his|her) (?:hat|cap)|nods? to|waves? (?:to|at))\b", re.I)
# courtesies an NPC answers in a word, whatever the scene: an apology, thanks, a greeting, a promise made to them
_PROMISED = "I hope so."  # a promise made to them, answered only when nothing is asked with it
_COURTESIES = (
    # sympathy first: "I'm so very sorry about your father" is no apology
    (re.compile(r"\bsorry (?:about|for|to hear about) (?:your|her|his|their)\b(?! (?:floor|rug|door|things|time))|\bsorry to hear\b|"
                r"\b(?:condolences|my sympathies)\b", re.I), "Thank you."),
    (re.compile(r"\b(?:sorry|apologi[sz]e|apologies|forgive me|pardon me|my fault)\b", re.I), "No harm done."),
    (re.compile(r"\b(?:thank|thanks|thank you|much obliged|grateful)\b", re.I), "You're welcome."),
    (re.compile(r"\b(?:we'll|we will|i'll|i will|i promise|we promise|don't worry|do not worry|stay close|stay behind|keep you safe)\b", re.I),
     _PROMISED),
    (_DAY_TALK, "Aye, that it is."),  # small talk no news answers: "Cold night to be out, isn't it?"
    (_HOW_GOES, "Can't complain."),
    (_WELLBEING, "I'm getting by."),
    (_GREETING, "Well met."),
)


# what an NPC says for want of an answer, or to be polite: no word on anything asked later
_COURTESY_WORDS = {words for _, words in _COURTESIES} | {
    "I'd rather not say. Not to strangers.", "I don't know. I couldn't tell you that.", "That is not something I will talk about.",
    "Not that I know of.",
    "I've told you what I can. Leave it there."}
_FAVOUR = re.compile(r"\b(?:asks?|tells?|begs?)\s+(?:him|her|them|[A-Z][\w'’-]+)\s+to\b|"
                     r"\b(?i:please|could you|can you|would you|will you|won't you|let (?:me|us)|allow (?:me|us))\b")


def _voice(npc: Any) -> str:
    """Who the NPC is and how they talk, for the model's words: their role, then their voice notes."""
    return "; ".join(x for x in (getattr(npc, "role", ""), getattr(npc, "voice", "")) if x)


def _acknowledged(npc: Any, said: str, kind: str = "npc_ack") -> Answer | None:
    """An NPC spoken to with no question answers a courtesy in a word ("Sorry for dripping on your
    floor" → "No harm done."), so the player hears the one they spoke to rather than the scene again.
    Small talk that asks what nothing in the world answers ("Howdy, Sheriff. Quiet night?") gets the
    same word, as an answer (``kind`` "npc"): a greeting with a question sways no one, so no roll."""
    if not (getattr(npc, "alive", True) and getattr(npc, "present", True)):
        return None
    # a promise answered "I hope so" is a courtesy only when nothing is asked ("I'll turn them back. Will you lift the barrier?" pleads)
    courtesies = _COURTESIES if kind == "npc_ack" else [c for c in _COURTESIES if c[1] != _PROMISED]
    reply = next((words for pattern, words in courtesies if pattern.search(said)), None)
    if reply is None or _FAVOUR.search(said):  # a favour asked waits for what comes of it, not a word of thanks
        return None
    voice = _voice(npc)
    # its own kind: a courtesy leaves the decision alone ("Evening! Her ladyship ordered two dozen tapers" is still a lie)
    return Answer(kind, f"{npc.name} answers: {reply}", speaker=npc.name, quote=reply, keys=content_keys(reply), voice=voice)


def _npc_answer(npc: Any, question: str, world: Any, found_checks: Sequence[str], embed: Embed | None, hidden: Sequence[str] = ()) -> Answer | None:
    """What an NPC says to the question: what they know, what the scene says near them, or that they don't know."""
    name = npc.name
    if not getattr(npc, "alive", True):
        return Answer("npc_gone", _gone(f"No answer comes: {name} is dead.", npc, world), speaker=name, final=True)
    if not getattr(npc, "present", True):
        return Answer("npc_gone", _gone(f"No answer comes: {name} is not here.", npc, world), speaker=name, final=True)
    voice = _voice(npc)
    told = _npc_knowledge(npc, question, world, found_checks, embed, hidden)
    if told is not None:
        told.voice = voice
    return told


_GONE_WORDS = re.compile(r"\b(?:dead|died|killed|slain|murdered|drowned|buried|body|corpse|lies still|lifeless|left|gone|away|"
                         r"missing|vanished|disappeared|rode|sailed|poled|not (?:be )?(?:expected )?back|won't (?:be )?(?:back|return)|until|since)\b", re.I)


def _gone(said: str, npc: Any, world: Any) -> str:
    """Why no answer comes, told from the scene: the first public sentence that names them (or the one after it, of
    "he" or "she") and says they are dead or gone."""
    facts = [f.text for f in getattr(world, "facts", []) or [] if getattr(f, "public", True) and getattr(f, "source", "") != "decided"]
    for i, text in enumerate(facts):
        if not _names(text, npc):
            continue
        after = facts[i + 1] if i + 1 < len(facts) and re.match(r"(?:he|she|his|her)\b", facts[i + 1], re.I) else ""
        for told in (text, after):
            if told and _GONE_WORDS.search(told) and told not in said:
                return f"{said} {told}"
    return said


_ASKED_OF = re.compile(r"^[^?]*?\b(?:asks?|asking|inquires?|wonders?|wants to know)\b\s+(?:[\w'’.-]+\s+){0,5}?"
                       r"(?=(?:whether|if|what|what's|when|where|why|how|who|whom|whose|which|about)\b)", re.I)


def _asks_the_gm(text: str, kind: str) -> bool:
    """A line that does something and then asks what the world plainly says ("Tomás pops the glovebox. Whose name is on the
    registration?"), or asks a question put to no one ("Pip squints at the writing. What does it say?")."""
    plain = " ".join(re.sub(r"[\"“][^\"”]*[\"”]?", " ", text).split())  # a question in quotes is said to someone in the scene
    asked = the_question(plain, context=False)
    if not asked.rstrip(" \"”'").endswith("?") or (asked == plain and kind != "talk"):
        return False
    return kind == "talk" or is_recall(asked) or any(a.search(asked) for a, _ in _MEASURES) or bool(
        _HOLDS_ASKED.search(asked) or _READS_ASKED.search(asked))


def the_question(line: str, context: bool = True) -> str:
    """The words of a line that ask: past a narrated lead-in ("Marisol greets the old shrine keeper and asks whether
    there's been trouble" → "whether there's been trouble"), and of several sentences the ones that end in "?"."""
    asked = _ASKED_OF.sub("", line, count=1)
    parts = [p for p in re.split(r"(?<=[.!?])\s+", asked.strip()) if p]
    questions = [p for p in parts if p.rstrip(" \"”'").endswith("?")]
    if len(parts) > 1 and questions and parts[-2] in questions and not re.search(r"[.!?][\"”']?$", parts[-1].strip()) \
            and re.match(r"(?:for|from|about|with|or|maybe|like|in|on|at|near|by)\b", parts[-1].strip(), re.I):
        questions.append(parts[-1])  # "any telegrams come in today? for a mister smith maybe": typed on, still the question
    if context and questions and len(" ".join(questions).split()) <= 8 and re.search(r"\b(?:it|that|this|them|those|he|she|him|her)\b", " ".join(questions), re.I) \
            and not re.search(r"\b(?:the|that|this|those)\s+(?!(?:was|is|were|are)\b)[a-z]{3,}", " ".join(questions), re.I):
        return asked  # "Margaret sketches the symbol from memory. What did it look like?": "it" is named before
    return " ".join(questions) if questions and len(questions) < len(parts) else asked


def _npc_knowledge(npc: Any, question: str, world: Any, found_checks: Sequence[str], embed: Embed | None, hidden: Sequence[str]) -> Answer | None:
    name = npc.name
    knows = list(getattr(npc, "knows", []) or [])
    held = [k for k in knows if k.checks and not set(k.checks) & set(found_checks)]
    if _PRESSED.search(question) and held:  # "is there anything you haven't told us?" of one who holds something back
        return Answer("npc_gated", f"{name} holds something back.", speaker=name, quote="I've told you what I can. Leave it there.",
                      gated_checks=list(held[0].checks))
    if asked_name := _YOUR_NAME.search(question):  # "you the keeper? what's your name?": they give it, and answer the rest
        bare = _bare_name(name)
        rest = re.sub(r"^[\s,;:.?!]*(?:and|also|so)?\b[\s,]*", "", question[:asked_name.start()] + " " + question[asked_name.end():]).strip()
        more = _npc_knowledge(npc, rest, world, found_checks, embed, hidden) if _SEEKS.search(rest) else None
        said = f"{bare}. {more.quote}" if more is not None and more.quote and more.kind == "npc" else f"{bare}."
        return Answer("npc", f"{name} gives their name.", speaker=name, quote=said, keys=[bare.split()[-1], *(more.keys if more and more.kind == "npc" else [])])
    if named := NAME_ASKED.search(question):
        role = next(g for g in named.groups() if g)
        told = _whose_name(npc, role, world)
        if told is not None:
            return told
        if _PERSON_END.search(role):  # a bartender the world never names: not known here, so decided (``GameMaster``)
            return Answer("npc_unknown", f"{name} does not know.", speaker=name, quote="I don't know. I couldn't tell you that.")
    small_talk = _small_talk_only(question)
    if small_talk:  # "Cold night to be out, isn't it?" asks after nothing kept back: it neither opens nor refuses it
        knows = [k for k in knows if k.free]
    if knows:
        # the topic says what it is about; a free answer's own words say it too ("what's the game?" → "a good memory for
        # cards"), matched on their own so a long answer does not blur a plain topic
        keys = [" ".join([k.topic, *k.keywords]) for k in knows] + [k.answer for k in knows if k.free]
        owner = list(range(len(knows))) + [i for i, k in enumerate(knows) if k.free]
        asked = _without_name(the_question(question), npc)
        # a keyword the scenario gives, said in the question, counts for its topic: "what are the stakes?" → the game
        said = [KEYWORD_BONUS if any(re.search(rf"\b{re.escape(w)}\b", asked, re.I) for w in k.keywords) else 0.0 for k in knows]
        said += [0.0] * (len(keys) - len(said))
        at, score = _best(asked, keys, embed, [m + s for m, s in zip(_measure_bonus(asked, keys), said)])
        at = owner[at] if at >= 0 else at
        if at >= 0 and not _asks_as_topic(asked, knows[at].topic):
            at = -1  # "any visitors lately?" is not answered by when she last saw him, though both are of her father
        if at >= 0 and score >= TOPIC_MATCH:
            item = knows[at]
            if item.never:
                return Answer("npc_refuses", f"{name} will not speak of that.", speaker=name, quote="That is not something I will talk about.")
            if item.checks and not set(item.checks) & set(found_checks):
                return Answer("npc_gated", f"{name} is not ready to tell that.", speaker=name,
                              quote="I'd rather not say. Not to strangers.", gated_checks=list(item.checks))
            quote = _in_their_words(item.answer, npc, world, own=True)
            return Answer("npc", item.answer, speaker=name, quote=quote, keys=content_keys(quote, asked=asked))
    asked = _without_name(the_question(question), npc)  # "Mira, what happened to the captain?" asks of the captain, not of Mira
    # the map and the things said as a GM would ("Main Street: the dusty main street of Copper Flats.") are no one's
    # words: an NPC says one only of the place or thing asked after
    told = [f for f in _facts(world, hidden) if not (getattr(f, "derived", False) and ":" in f.text)
            or any(re.search(rf"\b{re.escape(name)}\b", asked, re.I) for name in getattr(f, "about", []) or [])]
    # a number or span answers "how long have you worn that badge?" only when it is of the badge: "won every
    # hand for three nights" is a duration of something else
    subject = content_words(asked) - _npc_words(npc) - _TITLES - _MEASURE_WORDS if _SPAN_ASKED.search(asked) else set()

    def of_it(text: str) -> bool:
        return not subject or bool(subject & content_words(text))

    only = None
    if _SMALL_TALK.search(asked):  # "Evening, Lou. Slow night?": the night's news the scene tells, "the cops raided the place at ten"
        recent = [f for f in told if _RECENTLY.search(f.text) and not _describes(f.text, npc)]
        if recent:
            told, only = recent, recent[_best(asked, _keys(recent), embed)[0]].text
    if _HOW_MUCH.search(asked):  # "Orrin, how much is the toll?" is told by the sum painted on the gatepost
        numbered = [i for i in _numbered(asked, [f.text for f in told], _keys(told)) if of_it(told[i].text) and _measure_bonus(asked, [told[i].text])[0] > 0] or [
            i for i, f in enumerate(told) if of_it(f.text) and _HAS_NUMBER.search(f.text) and _measure_bonus(asked, [f.text])[0] > 0]
        told = [told[i] for i in numbered] or told
        only = told[0].text if len(numbered) == 1 else None  # the one sum of the kind asked the scene states is the answer
    facts = [f.text for f in told]
    measure = [m if of_it(f) else 0.0 for m, f in zip(_measure_bonus(asked, facts, npc), facts)]
    # their own description is rarely what is asked; what they saw, heard or know is what a witness is asked for,
    # and what the scene says they know most of all ("Clementine knows he is a Pinkerton")
    # ... unless the question asks of what that description holds ("how his brother died" of "who lost his younger
    # brother on Cutter's Reef")
    asked_words = content_words(asked) - _npc_words(npc)
    plain = [not m and not asked_words & content_words(f) for f, m in zip(facts, measure)]
    own = [0.3 if _knows(f, npc) else 0.1 if _witnessed(f, npc) else -0.2 if _describes(f, npc) and p
           else -0.08 if _names(f, npc) and p else 0.0 for f, p in zip(facts, plain)]
    if _MEASURES[-1][0].search(asked):  # "who's the man in the city suit?" is not answered by a sentence that names no one
        own = [o - 0.15 if not m else o for o, m in zip(own, measure)]
    about = _named_things(asked, world, npc)  # "where the lighthouse keeper went", "the raid at Dry Fork": what it is of
    near = [0.08 if about and about & _named_things(f, world, npc) else 0.0 for f in facts]
    if re.search(r"\b(?:you|your|yours|yourself|u|ya)\b", asked, re.I):  # "so yselde, where were you last night?": of her
        near = [n + _of_them(f, npc, world) for n, f in zip(near, facts)]
    at, score = _best(asked, _keys(told), embed, [m + o + n for m, o, n in zip(measure, own, near)])
    if at >= 0 and (score >= NPC_FACT_MATCH or facts[at] == only) and (when := _another_day(asked, facts[at])):
        # "anybody bring a horse in today?" of "shod a grey mare last Tuesday": not today, and no more is asked
        return Answer("npc_unknown", f"{name} says not {when}.", speaker=name, quote=f"Not {when}, no.", keys=[when])
    if at >= 0 and (score >= NPC_FACT_MATCH or facts[at] == only):
        quote = _in_their_words(facts[at], npc, world)
        if _names(quote.split(",")[0], npc):  # "Sheriff Tull, leaning on the bar, finds his whiskey very interesting": what they do, told
            return Answer("npc", facts[at], speaker=name, keys=content_keys(facts[at], asked=asked))
        return Answer("npc", facts[at], speaker=name, quote=quote, keys=content_keys(quote, asked=asked))
    if not small_talk and not _SEEKS.search(question) and _ASKS_WHETHER.match(the_question(asked, context=False).split("?")[0].split(". ")[-1]):
        # "hi! is the well water safe to drink?" of nothing they know: they cannot say, rather than greet back
        return Answer("npc_unknown", f"{name} cannot say.", speaker=name, quote="I couldn't say.")
    if not _SEEKS.search(question) or small_talk:
        return None  # "Can you help me carry these?", "Want some bread?", "How are you holding up?": not a want of facts
    theirs = _told_of_them(npc, asked, world, embed)
    if theirs is not None:
        return theirs
    if _focus(asked):  # "seen any strangers lately?" of nothing they know of strangers
        return Answer("npc_unknown", f"{name} knows of none.", speaker=name, quote=NOT_THAT_I_KNOW)
    return Answer("npc_unknown", f"{name} does not know.", speaker=name, quote="I don't know. I couldn't tell you that.")


_YOUR_NAME = re.compile(r"\bwhat(?:['’]?s| is) (?:your|ur|yer) name\b|\bwho (?:are|r) (?:you|u|ya)\s*\?|\b(?:your|ur|yer) name\s*\?", re.I)


def _bare_name(name: str) -> str:
    """The name someone gives for themselves: "Desk Sergeant Patrick Dolan" says "Patrick Dolan"."""
    words = name.split()
    return " ".join(words[-2:]) if len(words) > 2 else name


def _whose_name(npc: Any, role: str, world: Any) -> Answer | None:
    """"whats the sergeant's name?" put to someone: their own name when they are the one so called, else the name of the
    one here so called; None when no one is (the question is then answered like any other)."""
    people = [n for n in getattr(world, "npcs", []) or [] if getattr(n, "alive", True)]
    called = next((n for n in [npc, *people] if _mentions_role(" ".join([n.name, getattr(n, "role", "") or ""]), role)), None)
    if called is None:
        return None
    bare = _bare_name(called.name)
    quote = f"{bare}." if called is npc else f"That's {bare}."
    return Answer("npc", f"The {role} is {called.name}.", speaker=npc.name, quote=quote, keys=[bare.split()[-1]])


def _told_of_them(npc: Any, asked: str, world: Any, embed: Embed | None) -> Answer | None:
    """What others freely tell of this NPC, they know of themselves: the sheriff's "Vane rode in three weeks back"
    answers "Mr. Vane, how long you been in town?" in Vane's own words ("I rode in three weeks back")."""
    mine = _npc_words(npc)
    items = [k for other in getattr(world, "npcs", []) or [] if other is not npc for k in getattr(other, "knows", []) or []
             if k.free and mine & {w.lower() for w in [*k.keywords, *re.findall(r"[A-Za-z][\w'’-]+", k.topic)]}]
    if not items:
        return None
    answers = [k.answer for k in items]
    typed = _measure_bonus(asked, answers, npc)
    at, score = _best(asked, answers, embed, typed)
    only = [i for i, t in enumerate(typed) if t > 0]  # "how long?" and the one length of time told of them
    if at < 0 or (score < NPC_FACT_MATCH and only != [at]):
        return None
    quote = _in_their_words(answers[at], npc, world, own=True)
    return Answer("npc", answers[at], speaker=npc.name, quote=quote, keys=content_keys(quote, asked=asked))


# pressing for what is kept back: "anything you haven't told us?", "what aren't you saying?", "are you hiding something?"
# (said of "you": "we haven't said too much" presses no one)
_KEPT = r"(?:told|telling|said|saying|been honest)"
_PRESSED = re.compile(rf"\b(?:you|y'all)\s+(?:haven['’]t|have not|aren['’]t|are not|weren['’]t)\s+{_KEPT}\b|"
                      rf"\b(?:haven['’]t|aren['’]t|weren['’]t)\s+(?:you|y'all)\s+{_KEPT}\b|"
                      r"\b(?:you|you['’]re|you are|are you|you['’]ve been|have you been)\s+(?:hiding\s+(?:something|anything)|holding\s+(?:something\s+|anything\s+)?back|"
                      r"keeping\s+(?:something|anything)\s+from)\b", re.I)
# a question after a fact ("what...", "do you know...", "have you seen..."); "can you help me?" asks for a deed
# a question of whether something is so ("is the well water safe?", "does the ferry run at night?"); "can you help me?" is a favour
_ASKS_WHETHER = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have|had|should|will)\s+(?!(?:you|ya|u)\s+(?:help|give|take|show|lend|"
                           r"let|get|bring|carry|fetch|open|tell)\b)\S", re.I)
_SEEKS = re.compile(r"\b(?:what|who|whom|whose|where|when|why|how|which)\b|\b(?:you|ya|y'all) (?:got|have|had|know|knew|seen|saw|heard)\b|\b(?:do|did|does|have|has|had)\s+(?:you|he|she|they|anyone|anybody)"
                    r"\s+(?:ever\s+)?(?:know|knew|see|seen|saw|hear|heard|remember|recall|notice|noticed|meet|met)\b|"
                    r"\b(?:is|are|was|were) (?:there|it|he|she|they)\b|\bany(?:thing|one|body)?\s+\w+[^.!?]*\?", re.I)  # "any telegrams come in today?"


# what an "any ...?" question is after: "did he have any visitors lately?" is answered only by word of visitors
_ANY_OF = re.compile(r"\bany\s+(?:(?:other|more|new|strange|odd|unusual|recent|fresh|real)\s+)?([a-z][a-z'’-]{2,})\b", re.I)
_NO_FOCUS = {"idea", "ideas", "luck", "chance", "good", "better", "way", "more", "longer", "time", "sign", "signs", "word", "news",
             "of", "at", "in", "on", "to", "for", "the", "one", "thing", "things", "kind", "sort", "reason", "use", "point"}
NOT_THAT_I_KNOW = "Not that I know of."
# a topic put as a question word answers only that question: "when she last saw her father" tells when, not whether
# he had visitors, nor where he is
_TOPIC_ASKS = {"when": re.compile(r"\bwhen\b|\bwhat (?:time|day|night|hour|happened|became)\b|\bhow long\b|\b(?:see|saw|seen|heard from)\b|\bsince\b", re.I),
               "where": re.compile(r"\bwhere\b|\bwhich way\b|\bwhat (?:place|direction)\b|\bheaded\b", re.I),
               "who": re.compile(r"\bwho(?:m|se)?\b|\bwhat (?:man|woman|name)\b|\banyone\b|\banybody\b|\bsomeone\b", re.I),
               "why": re.compile(r"\bwhy\b|\bhow come\b|\bwhat for\b|\breason\b", re.I)}


# the day a question asks of, or a text tells of: today, yesterday, or a day before those
_TODAY = re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening)|just now|an hour ago)\b", re.I)
_YESTERDAY = re.compile(r"\b(?:yesterday|last night)\b", re.I)
_DAYS_BEFORE = re.compile(r"\b(?:last (?:week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
                          r"(?:on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|(?:\w+|\d+) (?:days|weeks|months|years) ago|"
                          r"a (?:week|month|year|fortnight) ago)\b", re.I)


def _day_of(text: str) -> tuple[str, str] | None:
    """Which day a text is of ("today", "yesterday", "before") and its words for it; None when it says no day."""
    for label, said in (("today", _TODAY), ("yesterday", _YESTERDAY), ("before", _DAYS_BEFORE)):
        if m := said.search(text):
            return label, m.group(0).lower()
    return None


def _another_day(asked: str, fact: str) -> str:
    """The words of the day asked of ("today"), when the fact tells of another day ("last Tuesday"); else ""."""
    wanted, told = _day_of(asked), _day_of(fact)
    return wanted[1] if wanted and told and wanted[0] in ("today", "yesterday") and told[0] != wanted[0] else ""


def _asks_as_topic(question: str, topic: str) -> bool:
    """Whether the question asks what a topic put as a question word tells ("when she last saw her father")."""
    word = re.match(r"\s*(when|where|who|why)\b", topic, re.I)
    if word is None:
        return True
    said = word.group(1).lower()
    # when someone was last seen tells where they went as well: "where is your father?" → "he walked out to the lighthouse"
    return bool(_TOPIC_ASKS[said].search(question) or (said == "when" and _TOPIC_ASKS["where"].search(question)))


def _focus(question: str) -> str:
    """The thing an "any ...?" question asks after ("any visitors", "any strange ships"), or ""."""
    m = _ANY_OF.search(question)
    return m.group(1).lower() if m and m.group(1).lower() not in _NO_FOCUS else ""


def _small_talk_only(line: str) -> bool:
    """Whether every question the line asks is small talk ("Evening, Miss Quist. Cold night to be out, isn't it?")."""
    asked = [p for p in re.split(r"(?<=[.!?])\s+", the_question(line, context=False)) if p.strip()]
    return bool(asked) and all(_SMALL_TALK.search(p) for p in asked)


# what tells of the day so far: "since sunrise he has dug bullets out of five cowhands", "rolled in at noon", "a rough night"
_RECENTLY = re.compile(r"\b(?:today|tonight|this (?:morning|evening|afternoon|week)|since (?:sunrise|sunup|dawn|noon|morning|daybreak)|"
                       r"at (?:noon|dawn|dusk|midnight|sunrise|sunset|\w+ o['’]clock)|last night|all (?:day|night|morning|evening)|"
                       r"(?:has|had) been an? (?:\w+ )?(?:night|day|morning|week)|just (?:now|arrived|rolled in|come in))\b", re.I)


def _npc_words(npc: Any) -> set[str]:
    return {w.lower() for n in [npc.name, *getattr(npc, "aliases", [])] for w in re.findall(r"[A-Za-z][\w'’-]+", n)
            if len(w) > 2 and w.lower() not in _STOP} - _TITLES


def _without_name(question: str, npc: Any) -> str:
    words = _npc_words(npc)
    return " ".join(w for w in question.split() if w.strip(",.!?:;\"'").lower() not in words) or question


_PERCEIVED = (r"(?:saw|seen|sees|watched|watches|noticed|notices|heard|hears|spotted|spots|knows|knew|remembers|remembered|"
              r"recalls|recalled|keeps|kept|counted|found|shows|showed|says|said|swears|swore|overheard|witnessed|glimpsed|caught)")


def _knows(text: str, npc: Any) -> bool:
    """The scene says outright what the NPC knows or remembers ("He knows that wolves took two sheep")."""
    names = "|".join(re.escape(w) for w in _npc_words(npc)) or "(?!)"
    return bool(re.search(rf"\b(?:{names}|she|he)\s+(?:[a-z]+ly\s+)?(?:knows|knew|remembers|remembered|recalls)\b", text, re.I))


def _witnessed(text: str, npc: Any) -> bool:
    """The sentence tells what the NPC saw, heard, knows or keeps ("Gull saw the keeper row out", "she saw three
    figures", "Her ledger shows two barges"): their own word on it."""
    names = "|".join(re.escape(w) for w in _npc_words(npc)) or "(?!)"
    return bool(re.search(rf"\b(?:{names}|she|he|they)\s+(?:[a-z]+ly\s+|had\s+|has\s+|once\s+)?{_PERCEIVED}\b|"
                          rf"\b(?:{names})['’]s\s+(?:[a-z]+\s+)?(?:{_PERCEIVED}|{_RECORDS})\b|\b(?:her|his|their)\s+(?:[a-z]+\s+)?{_PERCEIVED}\b", text, re.I))


# what someone wrote down or worked out is their word on it: "Thorne's findings: drowned, about midnight Sunday"
_RECORDS = r"(?:findings|notes|report|records|ledger|logbook|log|diary|journal|account|testimony|reckoning|guess|verdict)"


_SUBJECT_VERB = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}
_NOT_VERBS = {"always", "perhaps", "sometimes", "as", "this", "its", "thus", "plus", "less", "unless", "across", "us", "was"}


def _in_their_words(sentence: str, npc: Any, world: Any = None, own: bool = False) -> str:
    """A scene sentence about an NPC as they would say it: their name and their pronoun as its subject become "I",
    their possessive "my" ("Gull saw the keeper row out" → "I saw the keeper row out"; "Her ledger shows" → "My
    ledger shows"). Pronouns are theirs only when the scene calls them so, and in a scene sentence only when it names
    them or opens with them (``own``: what they know, written of them: "she has no key" → "I have no key");
    objects ("hit him") are left alone."""
    names = sorted({n for n in [npc.name, *getattr(npc, "aliases", []), " ".join(w for w in npc.name.split() if w.lower().rstrip(".") not in _TITLES)]
                    if n} | {w for w in npc.name.split() if len(w) > 2 and w.lower().rstrip(".") not in _TITLES and w[0].isupper()}, key=len, reverse=True)
    # a report of their words ("she says she last saw it on the altar") is the words themselves, and says who they are
    told_so = re.match(rf"^(?:(she|he)|{'|'.join(re.escape(n) for n in names)})\s+(?:says|said|claims|insists|swears|admits)\s+(?:that\s+)?",
                       sentence, re.I)
    text = re.sub(r",?\s+and that\s+", ", and ", sentence[told_so.end():]) if told_so else sentence  # "..., and that she cannot say"
    for n in names:  # "..., sits Jonah Whitlock, a weathered man of sixty who lost his brother on the reef" → "I lost my brother..."
        told = re.search(rf"\b{re.escape(n)},\s+(?:an?|the)\s+[^,;]*?\bwho\s+(?P<rest>[a-z][^;]+)$", text)
        if told:
            text = "I " + told.group("rest")
            break
    for n in names:  # "The ferryman, Jeb Crowley, a one-eyed man in a bearskin coat, charges two bits" → "I charge two bits"
        text = re.sub(rf"^(?:(?:the|an?|its|his|her|their)\s+[\w\s'’-]*?,\s+)?{re.escape(n)}(?:\s*,[^,;.]*?)*,\s+(?=[a-z]+(?:s|ed)\b)", "I ", text,
                      count=1, flags=re.I)
    for n in names:
        text = re.sub(rf"(?:\b(?:the)\s+)?\b{re.escape(n)}['’]s\b", "my", text)
        text = re.sub(rf"(^|[,;:]\s+|\b(?:and|then|but|that|when|ago|night|morning|yesterday|today)\s+)(?:the\s+)?{re.escape(n)}\b(?=\s+[a-z])",
                      lambda m: m.group(1) + "I", text)
    pronoun = _pronoun_of(npc, world) or (told_so.group(1) or "").lower() if told_so else _pronoun_of(npc, world)
    subject, possessive = ("she", "her") if pronoun == "she" else ("he", "his")
    # "two nights ago she saw" is the goatherd's own sight; "by a man who signed himself" is someone else's
    other = re.search(r"\b(?:a|an|the|one|another|some)\s+(?:[a-z]+\s+)?(?:man|fellow|boy|gentleman|stranger|(?P<she>woman|girl|lady))\b", sentence, re.I)
    # ... but "he watched a woman board the barge" is the dockmaster's: a woman is no "he"
    other = other if other is None or (pronoun == "she") == bool(other.group("she")) or "stranger" in other.group(0).lower() else None
    if pronoun and (own or told_so or text != sentence or not other):
        text = re.sub(rf"\b{subject}\b", "I", text, flags=re.I)
        text = re.sub(rf"\b{possessive}\b(?=\s+[a-z])(?!\s+(?:and|to|in|at|on|with|from|by|for|as|when|that|then)\b)", "my", text, flags=re.I)
        text = re.sub(rf"\b{'herself' if pronoun == 'she' else 'himself'}\b", "myself", text, flags=re.I)
    text = re.sub(r"\bI\s+(?:([a-z]+ly|often|always|never|still|usually|sometimes|also|just|only|once|rarely|seldom)\s+)?([a-z]+)\b", _agree, text)
    text = re.sub(r"(^|[.!?]\s+)my\b", lambda m: m.group(1) + "My", text)
    return text[:1].upper() + text[1:]


def _agree(m: re.Match) -> str:
    adverb, verb = m.group(1), m.group(2)
    low = verb.lower()
    if low in _SUBJECT_VERB:
        verb = _SUBJECT_VERB[low]
    elif low.endswith("s") and not low.endswith("ss") and low not in _NOT_VERBS and len(low) > 3:
        verb = verb[:-3] + "y" if low.endswith("ies") else verb[:-2] if re.search(r"(?:ch|sh|x|ss|o)es$", low) else verb[:-1]
    return "I " + (f"{adverb} " if adverb else "") + verb


def _of_them(text: str, npc: Any, world: Any) -> float:
    """How much a sentence is about the NPC asked of themselves: one that names them or opens on their pronoun
    ("Last night she was at the Duke's Rest") gains; one whose "he" or "she" is someone else the sentence names
    ("Mattias Kell, snores against the wall; he spent last night in the cells") loses."""
    pronoun = _pronoun_of(npc, world)
    other = [n for n in getattr(world, "npcs", []) or [] if n is not npc and _names(text, n)]
    if _names(text, npc) or (pronoun and not other and re.search(rf"^(?:[\w'’,]+\s+){{0,4}}?{pronoun}\b", text, re.I)):
        return ABOUT_THEM
    return -ABOUT_THEM if other and not _names(text, npc) else 0.0


def _pronoun_of(npc: Any, world: Any) -> str:
    """"she" or "he" as their role says (a daughter, a widow), else as the scene first calls the NPC after naming
    them; "" when neither says."""
    role = (getattr(npc, "role", "") or "").lower()
    if re.search(r"(?:woman|wife|widow|girl|mother|sister|daughter|lady|ess|maid)\b", role):
        return "she"
    if re.search(r"\b(?:man|husband|boy|father|brother|son|lord|king|monk|priest)\b", role):
        return "he"
    words = [w for w in npc.name.split() if len(w) > 2 and w.lower().rstrip(".") not in _TITLES] or [npc.name]
    text = " ".join(f.text for f in getattr(world, "facts", []) or [] if getattr(f, "source", "") != "decided")
    for w in words:
        at = re.search(rf"\b{re.escape(w)}\b", text)
        if at:
            found = re.search(r"\b(she|her|herself|he|his|him|himself)\b", text[at.end():at.end() + 200], re.I)
            if found:
                return "she" if found.group(1).lower().startswith(("she", "her")) else "he"
    return ""


def _named_things(text: str, world: Any, npc: Any = None) -> set[str]:
    """The people, places and things of the world a text names (not the NPC who answers), and its proper names
    past the first word: what a question is about, and what a sentence is about."""
    own = _npc_words(npc) | set(re.findall(r"[a-z]{4,}", (getattr(npc, "role", "") or "").lower())) if npc is not None else set()
    low = f" {text.lower()} "
    out = set()
    for item in [*(getattr(world, "npcs", []) or []), *(getattr(world, "places", []) or []), *(getattr(world, "things", []) or [])]:
        words = {w.lower() for n in [item.name, *getattr(item, "aliases", []), getattr(item, "role", "") or ""]
                 for w in re.findall(r"[A-Za-z][\w'’-]+", n) if len(w) > 3} - _TITLES - _STOP - own
        out |= {w for w in words if re.search(rf"\b{re.escape(w)}s?\b", low)}
    out |= {w.lower() for w in re.findall(r"(?<=\s)[A-Z][a-z][\w'’-]+", text) if w.lower() not in own | _TITLES | _STOP}
    return out


def _describes(text: str, npc: Any) -> bool:
    """The sentence introduces the NPC ("Bessa Quill, the boat's cook, stirs a pot"): no one says that of themselves."""
    names = "|".join(re.escape(w) for w in sorted(_npc_words(npc), key=len, reverse=True)) or "(?!)"
    return bool(re.search(rf"\b(?:{names})\b(?:\s+[A-Z][\w'’-]+)*\s*,\s+(?:an?\s|the\s|his\s|her\s|[a-z]+-[a-z]+|[a-z]+ly\b|[a-z]+ and [a-z]+,)", text, re.I))


def _names(text: str, npc: Any) -> bool:
    return bool(_npc_words(npc) & {w.lower() for w in re.findall(r"[A-Za-z][\w'’-]+", text)})


_TITLES = {"mr", "mrs", "ms", "dr", "doctor", "sir", "lady", "lord", "captain", "sheriff", "brother", "sister", "father",
           "mother", "old", "young", "the", "professor", "deputy", "sergeant", "master", "mistress", "miss"}


def _facts(world: Any, hidden: Sequence[str] = ()) -> list[Any]:
    """What may be told: the world's public facts, and its map and things as sentences, less any that
    would give away a hidden text (an exit to the cellar the secret tunnel starts from)."""
    facts = [f for f in getattr(world, "facts", []) or [] if getattr(f, "text", "").strip() and getattr(f, "public", True)]
    told = {" ".join(f.text.lower().split()) for f in facts}
    derived = [_Said(text, [name], derived=True) for name, text in _map_sentences(world) if " ".join(text.lower().split()) not in told]
    secret = [set(content_words(h)) for h in hidden]  # the scene's own sentences are public as written; only what is derived is checked
    # (two words shared with a secret hold it back, unless the scene says them openly: "the lighthouse door is fifty yards
    # away" shares them with the wet prints that lead to it, but the scene itself speaks of the lighthouse door)
    public = {w for f in facts for w in content_words(f.text)}
    def holds_back(words: set[str], secret_words: set[str]) -> bool:
        shared = words & secret_words
        return _gives_away(words, secret_words) or (len(shared) >= 2 and not shared <= public)
    derived = [f for f in derived if not any(holds_back(set(content_words(f.text)), h) for h in secret)]
    # a long sentence's clauses stand alone too: "..., and someone has been digging under the assay office next door"
    # answers "what's next door?" better than the gambler and the sheriff it begins with
    parts = [_Said(c, list(getattr(f, "about", []) or []), derived=True) for f in facts for c in _clauses(f.text)]
    return facts + derived + parts


def _plain_notes(world: Any, question: str, hidden: Sequence[str]) -> list[Any]:
    """The GM's own notes that state a plain measure the question asks for ("High tide is at 11:40 tonight." for
    "when is high tide?"): a GM tells a tide table when asked; never a note near a secret or a hidden thing."""
    typed = next((stated for asked, stated in _MEASURES[:-1] if asked.search(question)), None)
    if typed is None:
        return []
    asked = content_words(question)
    secret = [set(content_words(h)) for h in hidden]
    unseen = {w for t in getattr(world, "things", []) or [] if "hidden" in t.states for w in content_words(t.name)}
    return [_Said(f.text, list(getattr(f, "about", []) or [])) for f in getattr(world, "facts", []) or []
            if not getattr(f, "public", True) and typed.search(f.text) and asked & content_words(f.text)
            and not content_words(f.text) & unseen
            and not any(_gives_away(content_words(f.text), h) for h, t in zip(secret, hidden) if " ".join(t.split()) != " ".join(f.text.split()))]


def _gives_away(words: set[str], secret: set[str]) -> bool:
    """A note tells much of a secret: two of its words and a third of them ("high tide" alone is a tide table)."""
    shared = len(words & secret)
    return shared >= 2 and shared * 3 >= len(secret)


def _clauses(sentence: str) -> list[str]:
    """The clauses of a sentence that joins several (", and ", "; "), each five words or more; none for a simple one."""
    parts = [p.strip(" ,;") for p in re.split(r",\s+(?:and|but|while)\s+|;\s+|,\s+(?=[a-z]+\s+(?:has|have|is|are|was|were)\b)", sentence)]
    parts = [p for p in parts if len(p.split()) >= 5]
    return [p[0].upper() + p[1:] + ("" if p.endswith((".", "!", "?")) else ".") for p in parts] if len(parts) > 1 else []


@dataclass
class _Said:
    text: str
    about: list[str]
    derived: bool = False  # from the map or the things, not the scene's own words: ranks a little lower


_NOW = re.compile(r"\bwhat (?:year|time|day|month|season|hour)\b|\bwhich year\b|\bhow late\b|\bis it (?:day|night|morning|evening)\b", re.I)


def _now_sentences(world: Any, question: str) -> list[Any]:
    """The world's year and time of day as sentences, for "what year is it?" and "what time is it?" only (the
    scene's first sentence says them among much else)."""
    if not _NOW.search(question):
        return []
    era, time = getattr(world, "era", "") or "", getattr(world, "time", "") or ""
    out = [f"The year is {era}." if re.search(r"\b1[0-9]{3}\b|\b20[0-9]{2}\b", era) else f"It is {era}."] if era else []
    out += [f"It is {time} now." if len(time.split()) <= 3 else f"{_cap(time)}."] if time else []
    return [_Said(x, []) for x in out]


def _map_sentences(world: Any) -> list[tuple[str, str]]:
    """The places, their ways out and the things in view, said as a GM would ("The assay office is out the side door
    and next door, twenty feet away.")."""
    out = []
    for place in getattr(world, "places", []) or []:
        if place.description and place.name != getattr(world, "here", None):  # where the party stands is the scene itself
            out.append((place.name, f"{_cap(place.name)}: {place.description}."))
        for way in place.exits:
            how = ", ".join(x for x in (way.way, f"{way.distance} away" if way.distance else "") if x)
            out.append((way.to, f"{_cap(way.to)} is {how}." if how else f"A way leads from {place.name} to {way.to}."))
    for thing in getattr(world, "things", []) or []:
        if "hidden" in thing.states or not (thing.description or thing.where):
            continue
        # a sentence, not the world file's shape: "The lamp is in the lamp room: the great lamp, unlit for four nights.";
        # a thing an NPC holds is theirs ("Sheriff Tull has Tull's whiskey."), not in them
        holder = world.npc(thing.where) if thing.where and hasattr(world, "npc") else None
        told = thing.description or ", ".join(thing.states)
        head = f"{holder.name} has {thing.name}" if holder else f"{_cap(thing.name)}{f' is in {thing.where}' if thing.where else ''}"
        out.append((thing.name, f"{head}{f': {told}' if told else ''}."))
    return out


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _keys(facts: Sequence[Any]) -> list[str]:
    """What each fact is matched on: its text and what it is about (a decided fact keeps the question it answered)."""
    return [" ".join([f.text, *(getattr(f, "about", []) or [])]) for f in facts]


def choose_answer(intent: Any, world: Any, *, table_said: Sequence[str] = (), found_checks: Sequence[str] = (),
                  hidden: Sequence[str] = (), asker: str = "", embed: Embed | None = None) -> Answer | None:
    """The content of the reply to a question, or None when the line is no question the world can answer.

    Args:
        intent: the line's reading (``gm.intent.Intent``): its kind, the NPC addressed, whether it asks.
        world: the scene's ``gm.world.World`` (its NPCs and facts, revealed secrets and outcomes included).
        table_said: what was said and found at this table, oldest first (recall answers from it).
        found_checks: the checks that succeeded this turn (a gated knowledge item opens to its family).
        hidden: texts not yet found (secrets): a fact that would give one away is never an answer.
        asker: the character asking: "what did I give?" is about their own lines first.
    """
    kind, text = getattr(intent, "kind", "act"), getattr(intent, "text", "")
    if kind == "ooc" and _BREAK.search(text) and not _SEEKS_HIDDEN.search(text):  # "OOC: quick bathroom break"
        return Answer("ooc", BREAK_REPLY, final=True)
    if kind == "ooc" and _HINT.search(text):  # "can you drop a hint?": where to look next, never what is hidden there
        return Answer("ooc", hint(world, table_said), final=True)
    if kind == "ooc":  # "(OOC) how many hit points do I have?" is the player's own business: answered as usual
        own = _RULES_TALK.search(text) and re.search(r"\b(?:my|do i|can i|am i|i have|should i|do we|can we|i get|i['’]?m|i am)\b", text, re.I) or (
            _RULES_ASKED.search(text) and (re.search(r"\brules? question\b", text, re.I) or not _SEEKS_HIDDEN.search(text)))  # how the game works
        if own:
            return None
        if _STATS.search(text):  # another's numbers, not the player's own: "how many hit points do goblins have?"
            return Answer("ooc", STATS_REFUSAL, final=True)
        # "GM, how wide is the river?" is a plain question the public world answers; anything after what is hidden,
        # or that the world does not answer, is for the characters to find out
        typed = next((stated for asked, stated in _MEASURES[:-1] if asked.search(text)), None)
        plain = None if _SEEKS_HIDDEN.search(text) or typed is None else choose_answer(
            intent.model_copy(update={"kind": "ask"}) if hasattr(intent, "model_copy") else intent, world,
            hidden=hidden, embed=embed)
        told = plain is not None and plain.kind == "fact" and typed is not None and typed.search(plain.content)
        return plain if told else Answer("ooc", OOC_REFUSAL, final=True)
    recalled = _their_words_before(text, world, table_said, embed) if kind in ("talk", "ask") else None
    if recalled is not None:
        return recalled
    if kind == "talk" and getattr(intent, "npc", None):
        npc = world.npc(intent.npc) if world is not None else None
        # "my blade" is the asker's: "Ilya's longsword ... will be ready at sundown"; "any wires for me?": for Dutch Calloway
        mine = re.sub(r"\bmy\b", f"{first_name(asker)}'s", text) if asker and first_name(asker) else text
        mine = re.sub(r"\bme\b(?=[^\"“”]*$)", asker, mine) if asker and not _REMIND_ME.search(mine) else mine
        asked = getattr(intent, "question", False) or text.rstrip().endswith("?") or (_ASKS.search(text) and not _ASKS_A_DEED.search(text))
        if npc is not None and asked:
            return _npc_answer(npc, mine, world, found_checks, embed, hidden) or _acknowledged(npc, text, kind="npc")
        if npc is not None and not (getattr(npc, "alive", True) and getattr(npc, "present", True)):
            return _npc_answer(npc, mine, world, found_checks, embed, hidden)
        return _acknowledged(npc, text) if npc is not None else None
    if kind == "talk" and not getattr(intent, "npc", None) and not getattr(intent, "question", False) and not text.rstrip().endswith("?"):
        here = [n for n in getattr(world, "npcs", []) or [] if getattr(n, "alive", True) and getattr(n, "present", True)]
        if here and _GREETING.search(text):  # "Good morning, gentlemen of the bridge!": the first one here answers for the company
            return _acknowledged(here[0], text)
    if kind in ("act", "move", "use", "talk") and _asks_the_gm(text, kind):
        kind = "ask"  # "Eddie sweeps his flashlight over the stack. How many crates are down here?": the question is answered
    if kind != "ask":
        return None
    each = answers_to_parts(intent, world, table_said=table_said, found_checks=found_checks, hidden=hidden, asker=asker, embed=embed)
    if each and all(a for _, a in each):  # "what's the gate made of? how high is it": each part answered on its own; else
        return joined([a for _, a in each])  # the line is answered whole, as one question (a part may need the other's words)
    # the scene's facts and what this table was told since, together: "what did Pip hand over?" needs no "earlier"
    said = _whole_quotes([s for s in table_said if s.strip()])
    # what was said and done here; a player's own question ("Ilya: I ask Hilda what Tobin looks like") is no
    # answer to anything, and what the GM said comes a little before what a player did
    # the GM's retelling of what a player tried ("Tomás opens the cold stove") is the attempt, not what came of it
    retold = {x for i, x in enumerate(said) if not _PLAYER_LINE.match(x) and _retells(x, said[:i])}
    # nor is a courtesy ('Maren says, "Well met."') an answer to anything asked later
    courtesies = {x for x in said if (q := _QUOTE.findall(x)) and all(w.strip() in _COURTESY_WORDS for w in q)}
    gm_said = [x for x in said if not _PLAYER_LINE.match(x) and x not in retold and x not in courtesies]
    done = [x for x in said if _PLAYER_LINE.match(x) and not (x.rstrip().endswith("?") or _ASKS.search(x.split(":", 1)[1]))]
    # a player's own question is no answer, but what the GM said to it is ("We ask the innkeeper which room...")
    put = [x for x in said if _PLAYER_LINE.match(x) and x not in done]
    all_gm, whole = gm_said, text  # the recall below narrows both; what it does not answer is asked of everything
    if is_recall(text) and (gm_said or done):  # asked about the table's past: what it was told first
        text = the_question(text)  # "Brisa creeps upstairs. Which door was the merchant's again?": what it asks
        # "what did I give?", "what I won": the asker's own doings ("remind me", "tell me again" ask no such thing)
        own_ask = re.sub(r"\b(?:remind|tell|show|give|let) me\b", "", the_question(text), flags=re.I)
        if asker and re.search(r"\b(?:did|do|have|had) i\b|\bwhat i\b|\b(?:me|my)\b", own_ask, re.I):
            # "what did I give?" is about the asker's own doings: their lines, and what the GM told them of it
            named = re.match(r"^\s*([A-Z][\w'’-]+)(?:\s+(?:asking|asks|says))?\s*:", text)  # "Lottie asking: what did I win?"
            me = named.group(1) if named else first_name(asker)
            mine = [x for x in done if x.startswith(f"{asker}:") or x.startswith(f"{me}")]
            # what the GM said to them, or of them, or in answer to their own line ("Keth studies the mud" → "Three sets of prints")
            heard = {x for i, x in enumerate(said) if not _PLAYER_LINE.match(x) and (re.search(rf"\b(?:{re.escape(me)}|you)\b", x, re.I)
                                                                                   or _answers_to(said, i) in mine)}
            own = ([x for x in gm_said if x in heard], mine)
            gm_said, done = own if any(own) else (gm_said, done)
            bar = 0.15 if any(own) else FACT_MATCH - 0.1  # among one's own doings the nearest is the answer
        else:
            bar = FACT_MATCH - 0.1
        asks_deed = _ASKS_DEED.search(text) is not None
        # a question put is no deed done: "what did I give the chief?" is not "what is the riddle?", though both name him
        put = [] if asks_deed and not re.search(r"\b(?:say|ask)\b", text, re.I) else put
        if _TOLD_BY_ANOTHER.search(text):  # "what did the toll-keeper tell us?": what was said to the table, never a player's line
            done, put = [], []
        pool = gm_said + done + put
        # what was found, seen, heard or said is what the GM told of it: a player's own line says only what they tried
        told_of = 0.0 if asks_deed else 0.12 if _OUTCOME_ASKED.search(text) else 0.08  # "what did I give?": the deed
        deed = 0.1 if asks_deed else 0.0  # ... as the player said it ("where'd we leave the horses?")
        verb = _verb_forms(text)
        # and the later word stands: what the GM said last of it outranks an earlier telling
        late = {x: 0.04 * i / max(1, len(said) - 1) + (_later_in_telling(said, i) if content_words(text) & content_words(x) else 0.0)
                for i, x in enumerate(said)}
        players = {w for x in said if _PLAYER_LINE.match(x) for w in x.split(":", 1)[0].split()}  # their names name no answer
        typed = _measure_bonus(text, [" ".join(w for w in x.split() if w.strip(",.;:'’s") not in players) for x in pool])
        # "what was the bounty?" is answered by a sum, "what was his name?" by a name
        typed = [t or -0.1 for t in typed] if any(typed) else typed  # and not by a line that states none when one does
        # a reply is matched with the question a player put to get it: "The Gull's Reckoning? Berth nine." answers
        # "what was the barge called?" because it answered "has the smugglers' barge come in?"
        asked_for = {x: _answers_to(said, said.index(x)) for x in gm_said if x in said}
        keys = [f"{asked_for[x].split(':', 1)[1].strip()} {x}" if asked_for.get(x) in put else x for x in gm_said] + done + put
        at, score = _best(text, keys, embed, [t + told_of + (0.05 if verb and verb.search(x) else 0.0) + late.get(x, 0.0) for t, x in zip(typed, gm_said)]
                          + [t + late.get(x, 0.0) + (deed if x in done else 0.0) for t, x in zip(typed[len(gm_said):], done + put)])
        if at >= 0 and score >= bar:
            picked = pool[at]
            if picked in put:
                picked = _what_came_of(picked, said, text, embed) or picked
            elif picked in done and not asks_deed:
                picked = _what_came_of(picked, said, text, embed) or picked  # what they tried → what the GM said came of it
            elif picked in gm_said and picked in said:
                picked = _settled(picked, said, text, embed)
            told = _retold(picked)
            return Answer("recall", told, keys=content_keys(told, asked=text))
    gm_said, text = all_gm, whole
    told = _facts(world, hidden) + _plain_notes(world, text, hidden) + _now_sentences(world, text)
    facts, keys = [f.text for f in told] + gm_said, _keys(told) + gm_said
    kinds = ["fact"] * len(told) + ["recall"] * len(gm_said)
    made = [getattr(f, "derived", False) for f in told] + [False] * len(gm_said)
    if _MADE_OF.search(text):  # "what's the assay office made of?" is told by a stuff named with it, else decided
        thing = re.search(r"(?:['’]s|\bis|\bwas|\bare|\bwere)\s+(?:the|that|this|these|those|his|her|their|its|your|our)\s+([^?.!,]{2,40}?)\s+"
                          r"(?:made|built|carved|forged|cast|put together)\b", text, re.I)
        head = asked_thing(thing.group(1)).split()[-1].lower().rstrip("s") if thing else ""  # "the chain on the door": a chain
        of_it = [i for i, f in enumerate(facts) if _MATERIAL.search(f) and (not head or re.search(rf"\b{re.escape(head)}(?:s|es)?\b", f, re.I))]
        if not of_it:
            return None  # not answered by its distance, nor by the stuff of the bar beside it
        facts, keys, kinds, made = ([xs[i] for i in of_it] for xs in (facts, keys, kinds, made))
    named = NAME_ASKED.search(text)
    if named:  # "what's the bartender's name?" is told by a sentence of the bartender, not of the sheriff at the bar
        role = next(g for g in named.groups() if g)
        npcs = [f"{n.name}, {getattr(n, 'role', '') or ''}" for n in getattr(world, "npcs", []) or [] if getattr(n, "alive", True)]
        if npc := next((x for x in npcs if _mentions_role(x, role)), None):  # one the scene lists by that calling
            return Answer("fact", f"The {role} is {npc.split(',')[0]}.", keys=[npc.split(',')[0]])
        of_role = [i for i, f in enumerate(facts) if _mentions_role(f, role)]
        facts, keys, kinds, made = ([xs[i] for i in of_role] for xs in (facts, keys, kinds, made))
    if _HOW_MUCH.search(text):  # "how far is the lighthouse?" is answered by a fact with a number about it, or decided
        numbered = _numbered(text, facts, keys)
        facts, keys, kinds, made = ([xs[i] for i in numbered] for xs in (facts, keys, kinds, made))
    at, score = _best(text, keys, embed, [m - 0.05 * d for m, d in zip(_measure_bonus(text, facts), made)])
    # the one age or weight the scene states answers "how old is that giant statue?" of "the Colossus", however named
    sure = len(facts) == 1 and any(asked.search(text) and said.search(facts[0]) for asked, said in _TYPED)
    if at >= 0 and (score >= FACT_MATCH or sure):
        said = _as_said(facts[at]) if made[at] else facts[at]
        return Answer(kinds[at], said, keys=content_keys(said, asked=text))
    return None


# "how far is it from the door to the altar?", "how far is the back door from the assay office?": a distance between two
FAR_FROM = re.compile(r"\bhow far (?:is it|away is|is)\s+(?:from (?P<from>(?:the|that|this|your|our)\s+[^?.!,]{2,40}?)\s+to (?P<to>(?:the|that|this|your|our)\s+"
                       r"[^?.!,]{2,40}?)|(?P<to2>(?:the|that|this|your|our)\s+[^?.!,]{2,40}?)\s+from (?P<from2>(?:the|that|this|your|our)\s+[^?.!,]{2,40}?))"
                       r"\s*[?.!]*\s*$", re.I)
# "what's the name of the bartender?", "what's the ship's name?": the name of one thing or person, asked by what it is
NAME_ASKED = re.compile(r"\bwhat(?:['’]?s| is| was) (?:the )?name of (?:the|this|that|your|our|their|his|her) ([a-z][\w-]+)(?!['’]s)\b|"
                         r"\bwhat(?:['’]?s| is| was) (?:the|this|that|your|our) ([a-z][\w-]+)['’]?s name\b", re.I)
_PERSON_END = re.compile(r"(?:er|or|man|men|keep|maid|ess|ist|ian|ant|ent|wife|boy|girl|hand|smith|lord|lady)s?$", re.I)


def _mentions_role(text: str, role: str) -> bool:
    """Whether a text speaks of the one asked after by what they are: "bartender" in "the bartender", or a word
    for the same calling ("barman", "barkeep": both words for a person, of one stem); "the bar" is no bartender."""
    role = role.lower().rstrip("s")
    for word in re.findall(r"\b[a-z][a-z-]+\b(?!['’])", text.lower()):  # "the keeper's daughter" is no keeper
        word = word.rstrip("s")
        if word == role or (len(role) > 3 and word[:3] == role[:3] and _PERSON_END.search(word) and _PERSON_END.search(role)):
            return True
    return False


_ASKS_ON = re.compile(r"\?\s*|,?\s+and\s+(?=(?:how|what|whats|where|who|when|which|whose|is|are|was|were|does|do|did|can|could)\b)", re.I)
_OPENS_ASKING = re.compile(r"^(?:how|what|whats|wheres|hows|whos|where|who|when|which|whose|is|are|was|were|does|do|did|can|could|any)\b|"
                           r"^(?:what|where|how|who)['’]s\b", re.I)


def joined(answers: Sequence[Answer | None], rest: Sequence[str] = ()) -> Answer | None:
    """The answers to the parts of one line as one answer (those there are; None when there are none), with the
    questions left unanswered (``rest``) for the model to take up after them."""
    found = [a for a in answers if a is not None]
    if not found:
        return None
    said = list(dict.fromkeys(a.content for a in found))
    # "Six hobgoblins stand guard, and two more with longbows pace the wall" holds "Two more with longbows pace the wall"
    content = " ".join(x for x in said if not any(x != y and x.lower().rstrip(".") in y.lower() for y in said))
    # several answers are said as they stand: worded by the model, one part came back wrong ("forty feet away" for the
    # world's fifty yards) beside the other right, and the guard, needing only some answer's words, let it through
    return Answer(found[0].kind, content, keys=list(dict.fromkeys(k for a in found for k in a.keys)), final=len(said) > 1 or bool(rest),
                  rest=" ".join(rest))


def answers_to_parts(intent: Any, world: Any, **given: Any) -> list[tuple[str, Answer | None]]:
    """Each question of a line that asks the GM several things, with the world's answer to it (``choose_answer``'s
    keywords in ``given``); [] for a line that asks one, or asks after the table's past ("what was the password
    again, and who told us?" is answered from what was said, whole)."""
    text = getattr(intent, "text", "")
    parts = [] if is_recall(text) else _questions(text)
    return [(q, choose_answer(_as_asked(intent, q), world, **given)) for q in parts] if len(parts) > 1 else []


# "how tall is it", "how tall is it, roughly": the part ends on a pronoun for what the part before asked of
_IT_AT_END = re.compile(r"\b(?:it|that)(?P<tail>,?\s*(?:roughly|about|exactly|more or less|again|do you think|d['’]?you reckon)?)\s*$", re.I)


def _questions(text: str) -> list[str]:
    """The separate questions of a line that asks the GM several ("How far is it to the altar, and how deep is the
    water by it?", "what's the gate made of? how high is it"), each with a question mark; one question is one part."""
    plain = " ".join(re.sub(r"[\"“][^\"”]*[\"”]?", " ", text).split())  # words in quotes are said to someone
    parts = [p.strip(" ,;.!") for sentence in re.split(r"(?<=[.!])\s+", plain) for p in _ASKS_ON.split(sentence) if p and p.strip(" ,;.!")]
    parts = [re.sub(r"^(?:and|also|so|oh|ok|okay|plus|but)\b[\s,]*", "", p, flags=re.I) for p in parts]  # "...? and what's the table made of"
    asking = [p for p in parts if _OPENS_ASKING.match(p)]
    if len(asking) < 2:
        return [text]
    out = []
    for i, p in enumerate(asking):
        # "...made of? how high is it": "it" is what the part before asked of ("How far is the lighthouse from the
        # cottage, and how tall is it?": the lighthouse, its first noun phrase with "the"), or the act before named
        before = asking[i - 1] if i else plain[:plain.find(p)]
        doc = parse(before) if _IT_AT_END.search(p) else None
        named = [c.text for c in (doc.noun_chunks if doc is not None else []) if c[0].lower_ == "the"]
        if doc is not None and not named:  # the parse may miss it ("what was the reliquary made of": "reliquary" read as a word of kind)
            named = [m.group(0) for m in re.finditer(r"\bthe\s+[a-z'’-]{3,}(?:\s+(?!(?:made|is|was|are|were|from|to|of|in|on|at|and|or|by|"
                                                      r"with|for)\b)[a-z'’-]{3,})?", before, re.I)][:1]
        out.append(_IT_AT_END.sub(lambda m: named[0] + m.group("tail"), p, count=1) if named else p)
    return [f"{p}?" for p in out]


def _as_asked(intent: Any, question: str) -> Any:
    """The same reading, asking one question of several."""
    return intent.model_copy(update={"text": question, "kind": "ask"}) if hasattr(intent, "model_copy") else intent


def _as_said(entry: str) -> str:
    """A catalogue line of the world said as a GM says it: "The lighthouse door: the lighthouse's iron door, chained
    from the inside." → "The lighthouse's iron door, chained from the inside." (the name is in what follows)."""
    name, _, said = entry.partition(": ")
    if not said or re.search(r"\b(?:is|are|was|were)\b", name) or not content_words(name) & content_words(said):
        return entry  # "The lamp is in the lamp room: the great lamp, ...": where it is, said already
    return _cap(said.strip())


SAID_MATCH = 0.35  # how near an NPC's earlier words must be to "what did they say about X" to be what they said of it
_ABOUT = re.compile(r"\b(?:about|of|regarding|concerning)\s+([^?.!]+?)\s*(?:again|earlier|before)?\s*(?:[?.!]|$)", re.I)
_QUOTE = re.compile(r"[\"“]([^\"”]{3,})[\"”]")


def _their_words_before(question: str, world: Any, table_said: Sequence[str], embed: Embed | None) -> Answer | None:
    """"What did Ruth tell us about her father?": what that NPC said at this table, word for word, or
    plainly that they have said nothing of it yet. Never a fresh answer in their voice (that would
    be news, not a memory) and never a scene sentence (the table heard no one say it). ``None`` when
    the line asks no such thing, names no NPC of the scene, or nothing of theirs was quoted."""
    asked = _TOLD_BY_ANOTHER.search(question)
    npc = next((n for n in getattr(world, "npcs", []) if _names(question[asked.start():], n)), None) if asked else None
    if npc is None:
        return None
    names = "|".join(re.escape(w) for w in sorted(_npc_words(npc), key=len, reverse=True))
    # each of their quotes, with the question put to get it: "does your father keep a logbook?" is what
    # "four nights ago, at dusk" was said about
    quotes, put_to_them = [], []
    for i, line in enumerate(table_said):
        if not _PLAYER_LINE.match(line) and re.search(rf"\b(?:{names})\b", line, re.I):
            put = _answers_to(table_said, i).split(":", 1)[-1].strip()
            for q in _QUOTE.finditer(line):
                if q.group(1).strip() in _COURTESY_WORDS:
                    continue  # "Well met." answered a greeting: it is no word on anything asked later
                quotes.append(q.group(1).strip())
                put_to_them.append(put or q.group(1))
    topic = _ABOUT.search(question[asked.end():])
    about = topic.group(1).strip() if topic else ""
    if not quotes:
        spoke = any(not _PLAYER_LINE.match(x) and not _QUOTE.search(x) and re.search(rf"\b(?:{names})\b\s+(?:[\w'’]+\s+){{0,3}}?(?:says|said|tells|answers|answered|replies|replied)\b", x, re.I)
                    for x in table_said)
        if not spoke:  # "what did Tull say just now?" of a sheriff who has said nothing: no fresh words in his mouth
            return Answer("recall", f"{npc.name} has not said anything{' about ' + about if about else ''} yet.", final=True)
        return None  # their words told, not quoted ("Hilda says Tobin is a wiry man"): the table's record is read as a whole
    if not about:
        return Answer("recall", f'{npc.name} said, "{quotes[-1]}"', keys=content_keys(quotes[-1]), final=True)
    # the words themselves, or the question that got them, whichever is nearer
    by_words, by_question = _best(about, quotes, embed), _best(about, put_to_them, embed)
    at, score = max(by_words, by_question, key=lambda pick: pick[1])
    if score >= SAID_MATCH:
        return Answer("recall", f'{npc.name} said, "{quotes[at]}"', keys=content_keys(quotes[at], asked=about), final=True)
    return Answer("recall", f"{npc.name} has not said anything about {about} yet.", final=True)


# "what did the toll-keeper tell us again?", "what'd Hilda say about the ford?": someone else's words, not the asker's own
_TOLD_BY_ANOTHER = re.compile(r"\bwhat\s*(?:['’]d|\s(?:did|has|had))\s+(?!i\b|we\b|you\b)(?:[\w'’.-]+\s+){1,3}?"
                              r"(?:tell|say|mention|tells|says|told|said)\b|"
                              r"\bwhat\s+(?!i\b|we\b|you\b|was\b|is\b)(?:[\w'’.-]+\s+){1,3}?(?:said|told|mentioned)\b", re.I)  # "remind me what Maren said"

# the attempt itself answers: what was done, said, or handed over ("what did I give the chief?" is the button in my own line)
_ASKS_DEED = re.compile(r"\b(?:what|where|which)\s*(?:['’]d|\s(?:did|do|was|were|had))\s+(?:i|we|you)\s+(?:do|doing|try|trying|say|ask|"
                        r"give|giving|hand|handing|offer|offering|pay|paying|trade|trading|show|showing|promise|promising|leave|leaving|"
                        r"left|bring|bringing|put|putting|tie|tied|stash|stashed|hide|hid|park|parked|stable|stabled)\b", re.I)
_OUTCOME_ASKED = re.compile(r"\b(?:find|found|discover\w*|get|got|learn\w*|hear|heard|see|saw|seen|say|said|tell|told|"
                            r"answer\w*|reveal\w*|word|riddle|name)\b", re.I)
_IRREGULAR = {"find": "found", "get": "got", "see": "saw|seen", "say": "said", "tell": "told", "hear": "heard", "give": "gave|given",
              "take": "took|taken", "buy": "bought", "pay": "paid", "sell": "sold", "hand": "handed", "leave": "left", "bring": "brought"}


def _answers_to(said: Sequence[str], i: int) -> str:
    """The player's line a GM sentence follows (the attempt it tells the outcome of), or ""."""
    return next((said[j] for j in range(i - 1, -1, -1) if _PLAYER_LINE.match(said[j])), "")


def _stems(text: str) -> set[str]:
    return {re.sub(r"(?:es|s|ed|ing)$", "", w) for w in content_words(text)}


def _retells(sentence: str, before: Sequence[str]) -> bool:
    """Whether a GM sentence says again what the last player's line before it tried: most of its words are that line's."""
    line = next((x for x in reversed(before) if _PLAYER_LINE.match(x)), None)
    words = _stems(sentence)
    return line is not None and bool(words) and len(words & _stems(line.split(":", 1)[1])) >= 0.6 * len(words)


def _later_in_telling(said: Sequence[str], i: int) -> float:
    """A little for the GM's later words on the same player's line: what the GM said last of an attempt settles it."""
    if _PLAYER_LINE.match(said[i]):
        return 0.0
    start = next((j for j in range(i, -1, -1) if _PLAYER_LINE.match(said[j])), -1)
    end = next((j for j in range(i + 1, len(said)) if _PLAYER_LINE.match(said[j])), len(said))
    span = end - start - 2  # GM lines in this telling, less one
    return 0.1 * (i - start - 1) / span if span > 0 else 0.0


def _settled(picked: str, said: Sequence[str], question: str, embed: Embed | None) -> str:
    """The GM's last word on it in the same telling: a later line there that answers the question about as well
    ("turns up only dust" ... "under the last bale Nadia finds a tin box") settles what was found."""
    i = said.index(picked)
    later = []
    for j, x in enumerate(said[i + 1:], i + 1):
        if _PLAYER_LINE.match(x):
            break
        if not _retells(x, said[:j]):
            later.append(x)
    if not later:
        return picked
    bar = max(0.25, _best(question, [picked], embed)[1] - 0.25)
    fits = [j for j, x in enumerate(later) if _best(question, [x], embed)[1] >= bar]
    return later[fits[-1]] if fits else picked


def _what_came_of(line: str, said: Sequence[str], question: str, embed: Embed | None) -> str | None:
    """The GM's words after a player's line and before the next one (what came of the attempt), the one nearest the
    question with the last a little ahead: "Nadia sifts the straw" → "Under the last bale Nadia finds a tin box"."""
    start = said.index(line) + 1 if line in said else len(said)
    after = []
    for i, x in enumerate(said[start:], start):
        if _PLAYER_LINE.match(x):
            break
        if not _retells(x, said[:i]):
            after.append(x)
    if not after:
        return None
    at, _ = _best(question, after, embed)
    return _settled(after[at], said, question, embed)


def _verb_forms(question: str) -> re.Pattern | None:
    """The forms of the verb a "what did X <verb>" question asks about: find → find|finds|found|finding."""
    asked = re.search(r"\b(?:did|does|do|has|have|had)\s+(?:[\w'’.-]+\s+){1,3}?([a-z]+)\b", question, re.I)
    if asked is None:
        return None
    verb = asked.group(1).lower()
    if verb in _STOP and verb not in _IRREGULAR:
        return None
    forms = [verb, verb + "s", verb + "es", verb + "ed", verb + "d", verb + "ing", *_IRREGULAR.get(verb, "").split("|")]
    return re.compile(r"\b(?:" + "|".join(re.escape(f) for f in forms if f) + r")\b", re.I)


_DIMENSION = ((re.compile(r"\bhow (?:tall|high)\b", re.I), re.compile(r"^\W*(?:tall|high)\b", re.I)),
              (re.compile(r"\bhow deep\b", re.I), re.compile(r"^\W*deep\b", re.I)),
              (re.compile(r"\bhow wide\b", re.I), re.compile(r"^\W*(?:wide|across)\b", re.I)),
              (re.compile(r"\bhow long\b", re.I), re.compile(r"^\W*long\b", re.I)))
# which way a span runs, by the word after its unit: "sixty feet tall", "fifty yards away", "ten feet down", "knee-deep"
_SPAN_RUNS = re.compile(r"^\W*(?:(?P<high>tall|high|up|above|overhead|aloft|in height)|(?P<deep>deep|down|below|beneath|under|in depth)|"
                        r"(?P<wide>wide|across|broad|in width)|(?P<long>long|in length)|(?P<far>away|off|distant|from|beyond|ahead|behind|"
                        r"along|out|further|farther|past|north|south|east|west|upstream|downstream|to the)|)\b", re.I)
_ASKED_RUN = (("high", re.compile(r"\bhow (?:tall|high)\b|\bhow far (?:up|above)\b|\bto the top\b", re.I)),
              ("deep", re.compile(r"\bhow deep\b|\bhow far (?:down|below)\b|\bto the bottom\b|\bhow far\b.{0,30}\b(?:drop|fall)\b", re.I)),
              ("wide", re.compile(r"\bhow wide\b|\bhow broad\b", re.I)),
              ("long", re.compile(r"\bhow long\b", re.I)),
              ("far", re.compile(r"\bhow (?:far|close|near)\b", re.I)))
_RUNS_WITH = {"high": {"high"}, "deep": {"deep"}, "far": {"far"}, "wide": {"wide", "long"}, "long": {"long", "wide", "deep"}}
# "how old is the lighthouse?" is told by an age or a year, "how heavy is the chest?" by a weight; a count of nights is neither
_AGE = re.compile(r"\b(?:years?|winters?|summers?|centur(?:y|ies)|decades?|generations?|age[ds]?|built|founded|since|birthday|"
                  r"teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b|\b(?:in|since|from|circa)\s+1\d{3}\b", re.I)
_WEIGHT = re.compile(r"\b(?:pounds?|lbs?|stone|tons?|tonnes?|kilos?|kilograms?|ounces?|oz|hundredweight|weighs?|weight|heavy)\b", re.I)
_TYPED = ((re.compile(r"\bhow old\b", re.I), _AGE), (re.compile(r"\bhow heavy\b|\bhow much does .{1,30} weigh\b", re.I), _WEIGHT))


def _runs_as_asked(asked: str | None, fact: str) -> bool:
    """Whether a fact's spans can measure the way the question asks (``asked``, from ``_ASKED_RUN``): "fifty yards
    away" tells no height and "sixty feet tall" no distance. A span that names no way ("a sixty-foot drop",
    "thirty feet of rope") can tell any."""
    spans = list(re.finditer(_SPAN, fact))
    if asked == "high" and re.search(r"\b(?:storeys?|stories|storied|floors)\b", fact, re.I):
        return True  # "three storeys of grey stone"
    if asked is None or asked == "long":  # "how long" may ask a time as well
        return True
    if not spans:
        return False  # "how tall is the lighthouse?" is not told by "four nights"
    ways = []
    for m in spans:
        built_in = re.search(r"[- ](deep|high|tall)$", m.group(0), re.I)  # "knee-deep", "man-high"
        run = _SPAN_RUNS.match(fact[m.end():m.end() + 16])
        # ... or by the verb before its number: "rises 35 feet from a dry moat", "drops sixty feet to the sea"
        verb = re.search(r"\b(?:(?P<high>rises?|rising|towers?|towering|climbs?|soars?)|(?P<deep>drops?|dropping|falls?|"
                         r"plunges?|sinks?|descends?|goes down))\s+(?:some\s+|about\s+|nearly\s+|over\s+|a good\s+)?\S+\s*$",
                         fact[max(0, m.start() - 30):m.start()], re.I)
        way = ({"tall": "high"}.get(built_in.group(1).lower(), built_in.group(1).lower()) if built_in
               else verb.lastgroup if verb else run.lastgroup if run else None)
        ways.append(way)
    return any(way is None or way in _RUNS_WITH[asked] for way in ways)


def _numbered(text: str, facts: Sequence[str], keys: Sequence[str]) -> list[int]:
    """The facts that can answer "how far / how many / how much": a number about the thing asked of ("how many
    goblins": a number of goblins, not a gate forty feet off), measuring the way asked ("how tall": not "fifty
    yards away"; "how old": an age, not "four nights"); in a terse scene that never names it again ("Grey stone,
    60 feet tall"), a number with the dimension asked ("how tall" → "tall"), never another thing's distance."""
    # "how many are standing at the gate?" counts whatever stands there; "how many guards" counts guards
    subject = re.search(r"\bhow many (\w+)", text, re.I) or _SUBJECT.search(text)
    about = subject.group(1).lower().rstrip("s") if subject and subject.group(1).lower() not in _STOP else ""
    pronoun = None if about else re.search(r"\bhow \w+ (?:is|was|are|were) (?:it|that|this|they|those)\b", text, re.I)
    if pronoun:  # "i lean over the well with my torch. how deep is it?": "it" is the thing the act before names
        named = re.findall(r"\b(?:the|that|this)\s+(?:[a-z-]+\s+)?([a-z-]{3,})\b", text[:pronoun.start()], re.I)
        about = named[-1].lower().rstrip("s") if named and named[-1].lower() not in _STOP else ""
    count = re.compile(rf"(?:\d+|{_HAS_NUMBER.pattern[3:]})\s+(?:of (?:the|my|his|her|their|our|its|those|these)\s+)?(?:[\w-]+\s+)?{re.escape(about)}", re.I) if re.search(r"\bhow many\b", text, re.I) and about else None
    typed = next((stated for asked, stated in _TYPED if asked.search(text)), None)
    way = next((way for way, pattern in _ASKED_RUN if pattern.search(text)), None)

    def fits(f: str) -> bool:
        return _runs_as_asked(way, f) and (typed is None or bool(typed.search(f)))
    between = FAR_FROM.search(text)  # "how far is it from the door to the altar?" is told of the door or the altar
    ends = {w for g in ("to", "from", "to2", "from2") if between and between.group(g) for w in content_words(between.group(g))}
    numbered = [i for i, f in enumerate(facts) if _HAS_NUMBER.search(f) and (not about or about in keys[i].lower())
                and (count is None or count.search(f)) and fits(f) and (not ends or ends & content_words(f))]
    if not numbered and typed is not None:  # "how old is that giant statue?" of "the Colossus, raised four centuries ago"
        # (a lighthouse's age is no saloon's: a fact of another kind of thing is not it)
        asked_kind = kind_of(about) if about else None
        aged = [i for i, f in enumerate(facts) if typed.search(f) and _HAS_NUMBER.search(f)
                and not (asked_kind and (subject := _of_subject(f)) and kind_of(subject) not in (None, asked_kind))]
        numbered = aged if len(aged) == 1 else []  # the one age the scene states is the answer; of several, none is sure
    if not numbered and count is not None and (_BEINGS.fullmatch(about + "s") or _BEINGS.fullmatch(about)):
        # "how many guards?" of "six crossbowmen", "how many dead?" of "eleven bodies": people and beasts go by many
        # names, so a count of them answers by meaning; "how many rooms?" is never told by "two boats"
        return [i for i, f in enumerate(facts) if any(_BEINGS.fullmatch(m.group(1)) for m in _COUNTED.finditer(f))]
    if not numbered and re.search(r"\bhow much\b", text, re.I):  # "how much is the reward?" of "offers 25 gold pieces": a sum
        numbered = [i for i, f in enumerate(facts) if re.search(rf"(?:{_NUMBER_RE})\s+(?:[a-z]+\s+)?(?:{_MONEY.pattern})|\$\d", f, re.I)]
    dimension = next((said for asked, said in _DIMENSION if asked.search(text)), None)
    if not numbered and dimension is not None:  # ... but "The lighthouse is 65 feet tall" tells no keeper's height
        numbered = [i for i, f in enumerate(facts) if any(dimension.search(f[m.end():m.end() + 12]) for m in re.finditer(_SPAN, f))
                    and _of_subject(f) in ("", about)]
    return numbered


def _of_subject(fact: str) -> str:
    """The thing a sentence is about when it opens by naming it as its subject ("The lighthouse is 65 feet tall" →
    "lighthouse"), singular; "" for a terse note ("Grey stone, 60 feet tall, top floor collapsed") or a pronoun."""
    doc = parse(fact)
    first = next(iter(doc.noun_chunks), None) if doc is not None else None
    subject = first.root if first is not None and first.start == 0 and first.root.dep_ in ("nsubj", "nsubjpass") else None
    named = subject is not None and (subject.pos_ == "PROPN" or (subject.pos_ == "NOUN" and first[0].lower_ in ("the", "that", "this")))
    return subject.lower_.rstrip("s") if named else ""


def _retold(said: str) -> str:
    """A record of the table said as a GM recalls it: "Brisa Tallowmere: I wade to the altar (Investigation: failure)"
    → "Brisa wades to the altar; the Investigation roll was a failure." A GM's own words stay as they were."""
    if not _PLAYER_LINE.match(said):
        return said
    who, line = said.split(": ", 1)
    rolled = re.search(r"\s*\(([^()]*:[^()]*)\)\s*$", line)
    line = line[:rolled.start()] if rolled else line
    from .retell import third_person

    done = third_person(first_name(who), line).rstrip(".")
    how = "; ".join(f"the {c.strip()} roll was a {o.strip()}" for c, o in (p.split(":", 1) for p in rolled.group(1).split(";"))) if rolled else ""
    return f"{done}{'; ' + how if how else ''}."


def answers_without_dice(answer: Answer, intent: Any) -> bool:
    """A question the world answers outright needs no roll: what an NPC tells anyone (or never tells),
    who is gone, what this table was told, and a number, a name, what a thing holds or what writing says when the
    scene states it. An NPC who does not know may still be talked round or lied to: that roll stands."""
    if answer.kind in ("npc", "npc_refuses", "npc_gone", "recall", "ooc"):
        return True
    text = the_question(getattr(intent, "text", ""), context=False)
    return answer.kind == "fact" and bool(_HOW_MUCH.search(text) or any(a.search(text) for a, _ in _MEASURES)
                                          or (_HOLDS_ASKED.search(text) and _HOLDS.search(answer.content))
                                          or (_READS_ASKED.search(text) and _WRITTEN.search(answer.content)))


def remember_decided(world: Any, question: str, reply: str, turn: int) -> Any:
    """A fact the world lacked, decided by the narration: stored, so asking again gets the same answer.
    For "how far / how many" the sentence that gives a number; else the one sharing most of the question's words."""
    said = [x for x in re.split(r"(?<=[.!?])\s+", reply.strip()) if len(x.split()) >= 4]
    if _HOW_MUCH.search(question):
        said = [x for x in said if _HAS_NUMBER.search(x)]
    asked = content_words(question)
    sentence = max(said, key=lambda x: len(asked & content_words(x)), default="")
    if sentence and world is not None and hasattr(world, "add_fact"):
        return world.add_fact(sentence, about=[question.strip()], source="decided", turn=turn)
    return None
