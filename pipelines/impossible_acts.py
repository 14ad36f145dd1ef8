"""Acts no roll can make succeed, told by the words themselves.

Nearest-neighbour retrieval over example lines hears the *topic* of a line, not whether it
could happen: "I lift the loaded ore wagon over my head" sits beside ordinary Athletics lines.
Some impossible acts are plain from their wording in any game: moving a building, walking on
water, holding one's breath for a day, photographing the past. This module names those, so the
rules decide what they can and the vote never rolls them.

The patterns stay narrow on purpose. On 41,114 real player utterances from 30 Critical Role
episodes (where people do try wild things, with magic) they fire on 1, a line quoting
"walk on water" as a figure of speech, where a roll would not follow anyway. Acts that magic
makes possible in some games (flying, teleporting, turning someone into a frog) are refused
only for a character whose sheet gives no magic (``magic_act``; the GM passes who has none), and
otherwise left to the vote.

    impossible_act("I hoist the whole assay office onto my back")   # "no one could move that"
    impossible_act("I hoist the crate onto my back")                 # None

Two facts a scene can state are read too: how wide a gap is, and how far off something is. A
jump across a gap wider than anyone jumps, or a shot at a target past any weapon's reach, is
refused (``impossible_in_scene``); without a stated distance the vote decides. So is a thing
the scene's year (or the game's usual era) does not have yet: a cell phone in 1926
(``impossible_in_era``).
"""
from __future__ import annotations

import re

from .scene_state import acts_on_gone, is_question as _is_question
from .speech import first_name, without_quotes

__all__ = ["impossible_act", "impossible_in_scene", "magic_act", "impossible_without_magic", "impossible_in_era", "INVENTIONS", "IMPOSSIBLE_ACTS", "MAGIC_ACTS",
           "JUMP_LIMIT_FT", "SHOT_LIMIT_FT"]

# Things no person lifts, carries or throws, whatever they roll.
_HUGE = (r"(?:building|house|cottage|barn|church|chapel|temple|tower|lighthouse|castle|fortress|train|"
         r"locomotive|ship|galleon|standing stone|monolith|menhir|mountain|hill|office|shop|store|saloon|"
         r"bank|inn|tavern|bridge|span|mansion|manor|warehouse|mill|windmill)s?")
# Things a strong person can heave at one end (to free a wheel), but never hold overhead or throw.
_HEAVY = r"(?:wagon|cart|carriage|stagecoach|coach|boulder)s?"
# ...and a motor car, which no one holds overhead either (thrown, it is only put "into reverse")
_HEAVY_OVERHEAD = r"(?:wagon|cart|carriage|stagecoach|coach|boulder|car|automobile|motorcar|truck|lorry|tractor|sedan|roadster)s?"
_THROW = r"(?:throw|throws|toss|tosses|hurl|hurls|fling|flings)"
_MOVE = (r"(?:lift|lifts|pick up|picks up|hoist|hoists|heave|heaves|carry|carries|throw|throws|toss|tosses|hurl|"
         r"hurls|raise|raises|uproot|uproots|tip over|tips over)")
# the object right after the verb: an article and up to two describing words ("the whole stone"),
# never a preposition, so "throw dynamite in houses" is not moving a house
_OBJECT = r"(?:the |a |an |that |this |his |her |their |my )?(?:(?!in |into |at |to |on |for |with )\w+ ){0,2}"
_SOMEONES = r"(?:my|his|her|their)"
# ...and the huge thing must end the object ("throw open the tavern door" moves a door)
_ENDS = r"(?=\s*(?:$|[.,!?;:]|(?:over|onto|on|off|into|up|down|across|at|to|from|and|with|so|while|before|until|like|above|back)\b))"

# up to 80 characters that do not speak of a piece that survived the fire ("a scrap that didn't burn")
_UNBURNED = r"(?:(?!\b(?:scrap|fragment|corner|unburned|unburnt|survived|left)\b).){0,80}"

IMPOSSIBLE_ACTS: tuple[tuple[str, str], ...] = (
    ("no one could move that", rf"\b{_MOVE} {_OBJECT}{_HUGE}\b{_ENDS}"),
    ("no one could move that", rf"\b{_HUGE} (?:onto|on|over) {_SOMEONES} (?:back|head|shoulders?)\b"),
    ("no one could move that", rf"\b(?:tip|tips|topple|topples|push|pushes|shove|shoves|knock|knocks|pull|pulls) {_OBJECT}{_HUGE} (?:over|down)\b"),
    ("no one could lift that so high", rf"\b(?:{_MOVE}|{_THROW}) {_OBJECT}{_HEAVY_OVERHEAD} (?:\w+ ){{0,2}}(?:over|above) {_SOMEONES} head\b"),
    ("no one could throw that", rf"\b{_THROW} {_OBJECT}{_HEAVY}\b{_ENDS}"),
    ("no one flies by flapping their arms", rf"\bflap(?:s|ping)? {_SOMEONES} arms\b"),
    ("water and air do not hold a person up",
     r"\b(?:walk|walks|run|runs|sprint|sprints|dash|dashes)\b(?: \w+){0,2} (?:on|across) (?:the )?(?:surface of (?:the )?)?"
     r"(?:water|waves|sea|ocean|lake|bay|river|air|clouds?|sky)\b"),
    ("no one holds their breath that long",
     rf"\bhold(?:s|ing)? {_SOMEONES} breath (?:(?:for|until) (?:an? |the |a whole |one |two |three |several )?(?:hour|hours|day|days|week|night|year)\b"
     r"|until (?:dawn|sunrise|morning|tomorrow|nightfall|sundown|the \w+ (?:comes|arrives|rolls in)))"),
    # "holds his breath on the bottom until the soldiers leave at dawn"
    ("no one holds their breath that long",
     rf"\bhold(?:s|ing)? {_SOMEONES} breath\b[^.;!?]{{0,60}}?\buntil [^.;!?]{{0,40}}?\b(?:at|by|come|before) (?:dawn|sunrise|morning|nightfall|sundown)\b"),
    # "holds his breath until the guards give up and leave, three days later"
    ("no one holds their breath that long",
     rf"\bhold(?:s|ing)? {_SOMEONES} breath\b[^.;!?]{{0,80}}?\b(?:an? |one |two |three |four |five |six |several |many |\d+ )(?:hours?|days?|weeks?|nights?)\b"),
    # "dives down and searches the shrine, staying under for a good hour"
    ("no one holds their breath that long",
     r"\b(?:stay|stays|staying|remain|remains|remaining|swim|swims|swimming|stay down|stays down)\s+(?:under|underwater|down|beneath the (?:water|surface|waves))"
     r"\s+(?:for\s+)?(?:a good |a whole |an entire |about an? |nearly an? |over an? |an? |the whole |all )?(?:hour|hours|day|days|night|afternoon|morning)\b"),
    # "grows his hand back", "by morning the two fingers should have grown back": no body regrows what it lost
    ("no lost hand or limb grows back",
     r"\b(?:grow|grows|growing|grew|grown|regrow|regrows|regrowing|regrew|regrown)\s+(?:(?:his|her|their|my|the|its|your|two|three|a|an|all)\s+)?(?:\w+\s+)?"
     r"(?:hand|hands|arm|arms|leg|legs|foot|feet|finger|fingers|thumb|toes?|eye|eyes|ear|ears|limb|limbs)\s+back\b"
     r"|\b(?:hand|hands|arm|arms|leg|legs|foot|feet|finger|fingers|thumb|toes?|eye|eyes|ear|ears|limb|limbs)\s+(?:should\s+|will\s+|would\s+|to\s+)?(?:have\s+)?(?:grow|grown|grew|grows)\s+back\b"),
    # "walks straight through the stone wall like a ghost": no body passes through solid matter
    ("no body passes through solid stone or iron",
     r"\b(?:walk|walks|walking|step|steps|stepping|pass|passes|passing|phase|phases|phasing|drift|drifts|float|floats|melt|melts)\s+"
     r"(?:straight\s+|right\s+|clean\s+)?through\s+(?:the\s+|a\s+|that\s+)?(?:solid\s+|stone\s+|brick\s+|iron\s+|thick\s+)*"
     r"(?:wall|walls|portcullis|bulkhead|solid rock|bedrock|bars)\b(?=[^.;!?]{0,30}\blike a (?:ghost|spirit|shade|phantom)\b|\s*(?:$|[.,;!?]))"),
    ("nothing living outruns that", r"\b(?:outrun|outruns) (?:a |the )?(?:bullet|lightning|light)\b"),
    ("no hand is quicker than a bullet",
     r"\b(?:catch|catches|catching|snatch|snatches|snatching|grab|grabs|pluck|plucks|seize|seizes)\s+(?:the|a|that|each|every|both)\s+"
     r"(?:\w+\s+)?bullets?\b(?:\s+\w+){0,3}?\s+(?:out of (?:the )?(?:mid-?)?air|in (?:mid-?)?(?:air|flight)|mid-?air|as it (?:flies|comes))"),
    ("that is too far for any body",
     r"\b(?:swim|swims|jump|jumps|leap|leaps) (?:all the way )?(?:across|over) (?:the )?(?:whole |entire )?(?:ocean|atlantic|pacific|continent)\b"),
    ("that is too far for any body", r"\b(?:jump|jumps|leap|leaps) (?:\w+ ){0,3}(?:to|onto) the (?:moon|sun|clouds|stars)\b"),
    ("the past cannot be reached", r"\b(?:travel back in time|go back in time|turn back time|stop time|rewind time)\b"),
    # "goes back to last night, before the rain": a time as where one goes ("back to last night's camp" is a place)
    ("the past cannot be reached",
     r"\b(?:go|goes|going|went|travel|travels|travelling|traveling|step|steps|slip|slips|head|heads)\s+back\s+to\s+"
     r"(?:last\s+(?:night|week|month|year|winter|summer|spring|autumn|fall)|yesterday|the\s+(?:day|night|week|morning|evening)\s+before|"
     r"(?:(?:a|an|one|two|three|four|five|six|ten|twenty|a few|several|\d+)\s+)(?:hours?|days?|weeks?|months?|years?)\s+(?:ago|earlier))\b"
     r"(?!(?:\s+(?:morning|afternoon|evening|night))?['’]s)"),
    ("the past cannot be reached", r"\b(?:photograph|photo|picture) of (?:\w+ ){0,4}(?:the way it looked|in the past|last (?:week|year|month))\b"),
    ("a body does not fit through a keyhole",
     rf"\b(?:squeeze|squeezes|slip|slips|crawl|crawls|climb|climbs|wriggle|wriggles) (?:{_SOMEONES} (?:whole )?(?:body|self) )?(?:\w+ )?through (?:the |a )?keyhole\b"),
    # scale: a river, a ceiling, a rockfall, a motor car are past any body's strength (a cart
    # freed from a ditch by hand is not: it is left to the vote)
    ("no one could move that by hand",
     rf"\b(?:{_MOVE}|drag|drags|haul|hauls|pull|pulls|tow|tows) {_OBJECT}(?:{_HUGE}|(?:car|truck|automobile|motorcar|lorry|tractor|bus)s?)\b"
     rf"(?: \w+){{0,6}} (?:with {_SOMEONES} bare hands|barehanded|bare-handed|single-handed)"),
    ("no one holds back a river",
     r"\b(?:hold|holds|holding|push|pushes|dam|dams) back (?:the )?(?:whole |entire )?(?:river|sea|ocean|tide|flood|waterfall|current)\b"),
    ("no one holds back a river", r"\b(?:river|sea|ocean|tide|waterfall)\b(?: itself)? (?:stops|stop|ceases) (?:flowing|moving|running)\b"),
    ("no one could hold that up",
     r"\b(?:hold|holds|holding|prop|props|propping|brace|braces) up the (?:whole|entire) (?:ceiling|roof|cavern|mine|tunnel|building|bridge|mountain)\b"),
    ("no one could hold that up",
     r"\bholds? the (?:whole|entire) (?:ceiling|roof|cavern|tunnel|building|bridge|mountain) up\b"),
    ("no one could move that",
     r"\b(?:shove|shoves|push|pushes|move|moves|clear|clears|heave|heaves) (?:the )?(?:whole|entire) (?:rockfall|landslide|avalanche|rock ?slide|cave-in|hillside|cliff)\b"),
    ("no one holds their breath that long",
     rf"\bhold(?:s|ing)? {_SOMEONES} breath\b(?: \w+){{0,12}} (?:for|all) (?:the |a )?(?:whole|entire) (?:day|night|week)\b"),
    # "holds his breath on the bottom all afternoon", "for twenty minutes": the record is a few minutes, for anyone
    ("no one holds their breath that long",
     rf"\bhold(?:s|ing)? {_SOMEONES} breath\b(?: [\w'’]+){{0,12}}? (?:all (?:morning|afternoon|evening|day|night|week)|"
     r"for (?:ten|fifteen|twenty|thirty|forty|fifty|sixty|ninety|a hundred|[1-9]\d+) (?:whole )?minutes)\b"),
    # one breath, then a long stay or a long way under water: "takes a big breath, dives down and spends the next hour searching"
    ("no one holds their breath that long",
     r"(?=.*\b(?:dive|dives|diving|underwater|under\s+water|down\s+there|the\s+bottom|lakebed|seabed|riverbed|submerged|beneath\s+the\s+(?:water|surface|waves))\b)"
     r"\b(?:take|takes|taking|gulp|gulps|draw|draws|suck|sucks)\s+(?:in\s+)?(?:one\s+|a\s+)?(?:deep\s+|big\s+|long\s+|last\s+)?(?:gulp\s+of\s+air|lungful|breath)\b"
     r"[^.;!?]{0,100}?\b(?:(?:the\s+next|an|a\s+full|a\s+whole)\s+hour|for\s+hours|all\s+(?:morning|afternoon|evening|day|night)|"
     r"(?:for\s+)?(?:ten|fifteen|twenty|thirty|forty|fifty|sixty|[1-9]\d+)\s+(?:whole\s+)?minutes|underwater\s+all\s+the\s+way\s+to\s+(?-i:[A-Z]))"),
    ("no one outruns a train on foot",
     r"\b(?:outrun|outruns|beat|beats|overtake|overtakes|outrace|outraces)\b(?: \w+){0,6} (?:train|express|locomotive)\b(?: \w+){0,6} on foot\b"),
    ("no one outruns a train on foot",
     r"\bon foot\b(?: \w+){0,3} (?:and )?(?:beat|beats|outrun|outruns|overtake|overtakes) (?:it|the (?:train|express|locomotive))\b"),
    ("no shot goes through a hill",
     r"\b(?:shoot|shoots|fire|fires|firing|shooting)\b(?: \w+){0,2} through (?:the |a |that )?(?:whole )?(?:ridge|hill|hillside|mountain|mountainside|cliff|rock face|boulder)\b"),
    ("no horse or wheel climbs a sheer wall",
     r"\b(?:ride|rides|riding|drive|drives|driving|gallop|gallops|spur|spurs|steer|steers)\b(?: \w+){0,4} (?:straight |right )?up "
     r"(?:the |a |that )?(?:sheer |vertical |bare )?(?:cliff face|cliff|cliffs|rock face|rock wall|wall|walls)\b(?! ?(?:path|trail|road|track|stairs?|steps))"),
    ("no one walks through a solid wall",
     rf"\b(?:walk|walks|step|steps|pass|passes)\b(?: straight| right)? through (?:the |a )?(?:\w+ ){{0,2}}(?:wall|walls|bricks|stone){_ENDS}"),
    # looking through a wall, not through a crack or a keyhole in it
    ("no eye sees through a solid wall",
     r"\b(?:look|looks|looking|see|sees|seeing|peer|peers|peering|stare|stares|staring|gaze|gazes)\b(?: straight| right)? through "
     r"(?:the |a |that )?(?:\w+ )?(?:wall|walls|floor|floorboards|ceiling|bricks|stone|closed door|locked door)\b"
     r"(?![^.!?]{0,20}\b(?:crack|gap|hole|keyhole|chink|knothole|slit|window|grate))"),
    # "the whole thing", when the line has named it: a ceiling, a rockfall
    ("no one could move that",
     r"\b(?:ceiling|roof|rockfall|landslide|avalanche|rock ?slide|slide|cave-in)\b.{0,80}\b(?:hold|holds|holding|shove|shoves|push|pushes|move|moves|lift|lifts)"
     r" the (?:whole|entire) (?:thing|lot) (?:back )?(?:up|aside|away|over|off|back)\b"),
    # a whole train or ship dragged to a stop: no rope, horse or back holds forty tons ("stop the train" by its brake is fine)
    ("no one could move that",
     r"\b(?:drag|drags|dragging|pull|pulls|pulling|haul|hauls|hauling|tow|tows)\b(?: \w+){0,2} (?:the )?(?:whole|entire) "
     r"(?:train|locomotive|ship|galleon|steamer|riverboat)\b"),
    # burned writing read from its ash: ash holds no words (searching the ashes for a scrap that did not burn is left to the vote)
    ("ash holds no writing",
     rf"\b(?:ash|ashes|cinders)\b{_UNBURNED}"
     r"\b(?:piece|pieces|piecing|put|puts) (?:\w+ ){0,3}(?:back )?together\b"),
    ("ash holds no writing",
     r"\b(?:read|reads|reading) (?:\w+ ){0,4}(?:from|in|out of) (?:the |its |their )?(?:ash|ashes|cinders)\b"),
    ("ash holds no writing",
     rf"\b(?:ash|ashes|cinders)\b{_UNBURNED}"
     r"\b(?:and|to) (?:read|reads) (?:what|the (?:letter|letters|words|page|pages|note|notes)|it|them)\b"),
    # ...or one of the things no one lifts: "gets his shoulder under the fallen tower and heaves the whole thing upright"
    ("no one could move that",
     rf"\b{_HUGE}\b.{{0,80}}\b(?:{_MOVE}|push|pushes|shove|shoves|tip|tips|right|rights) the (?:whole|entire) (?:thing|lot)\b"),
)
_COMPILED = tuple((why, re.compile(pattern, re.I)) for why, pattern in IMPOSSIBLE_ACTS)


def impossible_act(line: str) -> str | None:
    """Why ``line`` cannot succeed however the dice fall, or ``None`` when its words do not say."""
    text = " ".join(line.split())
    return next((why for why, pattern in _COMPILED if pattern.search(text)), None)


# ---- one fact a scene can state: how wide the gap is ------------------------------------------
# The longest jump any of the four systems lets a body make without magic is 20-30 feet (D&D 5e:
# a running long jump covers the Strength score in feet, 20 at the human peak; Pathfinder 2e: a
# Long Jump is capped at the jumper's Speed, 25-30 feet; the world record is 29 feet). A little
# more leaves room for a boost a sheet may carry, so a gap the scene says is wider than this
# cannot be jumped however the dice fall. (It was 60 until two blind sets' 40- and 60-foot gaps
# were rolled and jumped.)
JUMP_LIMIT_FT = 35

_UNITS_FT = {"foot": 1, "feet": 1, "ft": 1, "yard": 3, "yards": 3, "metre": 3.28, "metres": 3.28, "meter": 3.28,
             "meters": 3.28, "m": 3.28, "mile": 5280, "miles": 5280, "km": 3281, "kilometre": 3281, "kilometres": 3281}
_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBERS.update({"a": 1, "an": 1, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                 "eighty": 80, "ninety": 90, "half a": 0.5, "a quarter": 0.25, "a quarter of a": 0.25})
_COUNT = r"(?P<n>\d[\d,]*(?:\.\d+)?|half a|a quarter(?: of a)?|" + "|".join(sorted((w for w in _NUMBERS if " " not in w), key=len, reverse=True)) + ")"
# "three hundred feet away", "half a mile wide", "200 yards across": a width, not a height or a walk
# "three hundred feet", "half a mile", then at most one word before what the distance is
_TENS = r"(?:\d+|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
# a number as written: "forty", "a hundred and fifty", "2,000", "two-" (as in "two-ton"); its unit follows
_AMOUNT = _COUNT + r"(?:[\s-]+(?P<mult>hundred|thousand)(?:\s+and\s+(?P<rest>" + _TENS + r"))?)?[\s-]+"
_MEASURE = _AMOUNT + r"(?:(?:good|full|long|short|bare|scant|clear|solid)\s+)?(?P<unit>" + "|".join(_UNITS_FT) + r")\b[\s,]*(?:\w+\s+){0,1}"
_GAP = re.compile(_MEASURE + r"(?:away|across|wide|apart|off)\b"
                  # "a fifty-foot gap", "a 40 ft chasm": the width said before what it measures
                  r"|" + _AMOUNT.replace("(?P<", "(?P<h_") + r"(?P<h_unit>" + "|".join(_UNITS_FT) + r")[\s-]+(?:wide[\s-]+)?"
                  r"(?:gap|gorge|chasm|ravine|crevasse|rift|gulf|breach|span)\b"
                  # "a gap of fifty feet"
                  r"|\b(?:gap|gorge|chasm|ravine|crevasse|rift|gulf|breach|span)\s+of\s+(?:some\s+|about\s+|nearly\s+|almost\s+|over\s+|more than\s+)?"
                  + _AMOUNT.replace("(?P<", "(?P<g_") + r"(?P<g_unit>" + "|".join(_UNITS_FT) + r")\b", re.I)
_JUMP = re.compile(r"\b(?:jump|jumps|jumping|leap|leaps|leaping|vault|vaults|spring|springs|springing)\b", re.I)
_ACROSS = re.compile(r"\b(?:across|over|to the (?:far|other)|the (?:whole |entire )?(?:gorge|canyon|chasm|gap|ravine|river|rift|crevasse|abyss|gulf))\b", re.I)


def _group(match: re.Match, name: str) -> str:
    """A group of a ``_MEASURE`` match, also where a pattern holds it more than once (as ``h_<name>``, ``g_<name>``, ``t_<name>``, ``u_<name>``)."""
    found = match.groupdict()
    return next((found[k] for k in (name, f"h_{name}", f"g_{name}", f"t_{name}", f"u_{name}") if found.get(k)), "")


def _feet(match: re.Match) -> float:
    return _count(match) * _UNITS_FT[_group(match, "unit").lower()]


def _count(match: re.Match) -> float:
    """The number a ``_MEASURE``-like match gives: "forty", "a hundred and fifty", "2,000"."""
    count = _group(match, "n").lower().replace(",", "")
    value = _NUMBERS[count] if count in _NUMBERS else float(count)
    value *= {"hundred": 100, "thousand": 1000}.get(_group(match, "mult").lower(), 1)
    rest = _group(match, "rest").lower()  # "a hundred and fifty"
    value += _NUMBERS[rest] if rest in _NUMBERS else float(rest or 0)
    return value


def _said(feet: float) -> str:
    miles = feet / 5280
    return {0.5: "half a mile", 1: "a mile"}.get(miles, f"{miles:g} miles") if miles >= 0.5 else f"{feet:.0f} feet"


def impossible_in_scene(line: str, scene: str, actor: str | None = None, blind_in_dark: bool = False) -> str | None:
    """Why the act cannot succeed in the scene as it stands: a jump across a gap wider than anyone
    jumps, a shot at something farther than the weapon reaches, drawing or using a thing the
    scene says was taken, reading writing the scene says was burned, crossing by a bridge or
    ladder the scene says is down, or acting on any other thing the scene says is ruined, lost or
    not there (``scene_state``), or speaking or wielding a weapon when the scene says ``actor`` is
    gagged, tied up or blindfolded, or firing a gun or bow the scene says ``actor`` has emptied, or
    using a password or a tongue the scene says no one knows, or breaking by hand through a foot of
    steel or stone, or words put to someone the scene says is dead, out cold or gone, or (when
    ``blind_in_dark``: the actor needs a light) reading in a dark the scene says is total, or acting
    "before" a departure, an execution or a ruin the scene says already happened, or a breath held
    past what anyone holds, or one body at two places at the same hour, or a tongue the actor never
    learned, or water from a dry well, or bringing round the long dead, or paying money the scene
    says the actor does not have.
    ``None`` when the line is none of these, or the scene does not say.

        impossible_in_scene("I jump the gorge", "The far side is two hundred feet away.")  # "no one jumps 200 feet"
    """
    text, scene = " ".join(line.split()), " ".join(scene.split())
    if _JUMP.search(text) and _ACROSS.search(text):
        widest = max((_feet(m) for m in _GAP.finditer(scene)), default=0.0)
        if widest > JUMP_LIMIT_FT:
            return f"no one jumps {_said(widest)}"
    return (_out_of_range(text, scene) or _too_far(text, scene) or _taken(text, scene, actor) or _burned(text, scene)
            or _way_gone(text, scene) or _too_heavy(text, scene) or _wire_down(text, scene) or acts_on_gone(text, scene)
            or _held_back(text, scene, actor) or _unknown(text, scene) or _not_learned(text, scene, actor) or _too_thick(text, scene)
            or _no_listener(text, scene) or _already_done(text, scene) or _breath_too_short(text, scene) or _two_places(text, scene)
            or _no_lock(text, scene) or _rope_too_short(text, scene) or _drawn_from_dry(text, scene) or _breath_till_clear(text, scene)
            or _wakes_the_dead(text, scene) or _short_of_money(text, scene, actor) or (_reads_in_dark(text, scene) if blind_in_dark else None))


# ---- how far off the thing the act needs is: an arm's reach, a jump onto it, a chase, a day's ride ----
# A distance counts for the act only when the sentence that gives it names what the line acts on
# ("the satchel lies on a ledge ninety feet of empty air from her"; "grab the satchel").
REACH_LIMIT_FT = 15        # an arm, a lean and a long tool; D&D's and Pathfinder's reach weapons give 10 ft
HIGH_JUMP_LIMIT_FT = 15    # D&D's high jump is 3 + Str modifier feet, and a hand reaches half a body higher
# a way up that is not the legs alone
_CLIMBED_TO = re.compile(r"\b(?:ladder|rope|grapnel|grappling hook|stairs|steps|ledge|handholds?|footholds?|boost|boosts|shoulders|crate|crates|"
                         r"barrel|barrels|cart|wagon|pole|vault|vaults|springboard|magic|spell)\b", re.I)
_UPWARD = re.compile(r"\b(?:up|upward|upwards|to the top|onto the (?:roof|top)|on top)\b", re.I)
_DOWNWARD = re.compile(r"\b(?:down|off|from)\b", re.I)
CATCH_LIMIT_FT = 1320      # a train or a boat under way, a quarter mile off, is past any runner or swimmer
DAY_LIMIT_FT = {"car": 400 * 5280, "ride": 100 * 5280, "foot": 40 * 5280}  # a long day at the wheel, a hard day's ride, a forced march
_FAR = re.compile(_MEASURE + r"(?:away|across|wide|apart|off|out|distant|ahead|behind|beyond|from|of (?:empty |open |thin )?(?:air|space|water)|"
                  r"(?:to the )?(?:north|south|east|west)(?:east|west)?(?:ward)?|(?:down|up)(?:stream|river| the (?:line|track|tracks|road|river|coast)))\b", re.I)
_MILES = re.compile(r"\bmiles (?:away|off|out|ahead|down|up|behind|beyond|distant|from)\b", re.I)
_SENTENCE = re.compile(r"[^.;!?]+")
_WHOLE_SENTENCE = re.compile(r"[^.!?]+")  # a sentence with its clauses: "Dutch is locked in a cell; the sheriff took his Colt"
THROW_LIMIT_FT = 300       # a stone or a javelin; the longest thrown-weapon range in D&D is 120 ft, a record throw a few hundred
_HIGH = re.compile(_MEASURE + r"(?:above|overhead|up|high|tall|off the ground|in the air)\b"
                   r"|\b(?:rises|rise|rising|stands|towers|soars|looms|climbs)\s+(?:a\s+|some\s+|fully\s+)?(?:sheer\s+|full\s+|good\s+)?" + _MEASURE.replace("(?P<", "(?P<h_"), re.I)
_DEEP = re.compile(_MEASURE + r"(?:deep|down|below|beneath|under (?:the )?water)\b", re.I)
_CARRIED = re.compile(r"\b(?:drag|drags|dragging|carry|carries|carrying|haul|hauls|hauling|lug|lugs|lugging)\b", re.I)  # taken there first
_THROWN = re.compile(r"\b(?:throw|throws|throwing|toss|tosses|hurl|hurls|fling|flings|lob|lobs)\b(?=[^.;!?]*\b(?:across|at|to|over|into)\b)", re.I)
_CONTENT = re.compile(r"[a-z]{4,}")
_FAR_STOP = {"that", "this", "with", "from", "into", "onto", "over", "across", "away", "their", "there", "where", "what", "when",
             "then", "than", "them", "they", "your", "yours", "just", "some", "feet", "yards", "miles", "mile", "foot", "yard",
             "about", "still", "while", "tries", "try", "trying", "wants", "want", "going", "before", "after", "straight",
             "right", "back", "down", "side", "other", "whole", "empty", "open", "along", "through", "toward", "towards"}
_REACH = re.compile(r"\b(?:grab|grabs|grabbing|snatch|snatches|reach|reaches|reaching|touch|touches|pluck|plucks|seize|seizes|"
                    r"pick up|picks up|take hold of|takes hold of|catch hold of|catches hold of)\b", re.I)
_GOES_FIRST = re.compile(r"\b(?:climb|climbs|climbing|walk|walks|go|goes|run|runs|cross|crosses|swim|swims|ride|rides|rappel|rappels|"
                         r"descend|descends|fly|flies|rope|ropes|pole|poles|hook|hooks|lasso|whip|net|grappl\w*|magic|spell|"
                         r"mage hand|arrow|shoots?|row|rows|sail|sails|make my way|makes (?:his|her|their) way)\b", re.I)
_ONTO = re.compile(r"\b(?:onto|on to|aboard|to|into|over to|across to)\b", re.I)
_CHASE = re.compile(r"\b(?:on foot|run|runs|running|sprint|sprints|sprinting|chase|chases|chasing|swim|swims|swimming|dash|dashes)\b", re.I)
_CATCH = re.compile(r"\b(?:catch|catches|catching|reach|reaches|overtake|overtakes|board|boards|swing aboard|swings aboard|jump aboard|jumps aboard|climb aboard|climbs aboard)\b", re.I)
_UNDER_WAY = re.compile(r"\b(?:train|express|locomotive|steamer|steamboat|riverboat|ship|ferry|boat|barge|stagecoach|stage|coach)\b", re.I)
_TRAVEL = re.compile(r"\b(?:ride|rides|riding|gallop|gallops|walk|walks|walking|run|runs|hike|hikes|march|marches|travel|travels|"
                     r"drive|drives|get there|gets there|make|makes|reach|reaches|arrive|arrives|head|heads|floors?)\b", re.I)
_TODAY = re.compile(r"\b(?:before|by)\s+(?:(?:the\s+)?(?:sundown|sunset|nightfall|dark|dusk|noon|midday|tonight|midnight|evening|supper|"
                    r"lunch|the end of the day|this evening|the sun (?:sets|goes down)))\b", re.I)
_MOUNTED = re.compile(r"\b(?:ride|rides|riding|gallop|gallops|horse|mount|saddle|saddles|drive|drives|wagon|buggy)\b", re.I)
_MOTOR = re.compile(r"\b(?:car|cars|ford|automobile|motorcar|truck|roadster|sedan|floors? it|floors the|step on it|drive|drives|driving)\b", re.I)


# a leap off a height, landing unhurt: a fall of more than this breaks any body (D&D: 1d6 per 10 ft, up to 20d6);
# into water a little more, as cliff divers do
FALL_LIMIT_FT, WATER_FALL_LIMIT_FT = 100, 200
_LEAP_OFF = re.compile(r"\b(?:jump|jumps|jumping|leap|leaps|leaping|step|steps|dive|dives|diving|throw|throws|hurl|hurls)\s+"
                       r"(?:(?:himself|herself|myself|themselves)\s+)?(?:off|from|over|down)\b", re.I)
_LANDS = re.compile(r"\b(?:land|lands|landing)\s+(?:on\s+(?:his|her|my|their)\s+feet|safely|lightly|softly|unhurt|unharmed|in a crouch|neatly)\b"
                    r"|\b(?:unhurt|unharmed|unscathed|without a scratch|walks? away|strolls? away)\b", re.I)
_WATER = re.compile(r"\b(?:water|sea|lake|river|pool|bay|harbou?r|surf|waves)\b", re.I)
_DROP = re.compile(_MEASURE + r"(?:drop|drops|down|below|beneath|deep|high|tall|straight down|to the (?:rocks|ground|floor|water|river|sea|street|bottom))\b"
                   r"|\b(?:drops?|falls?|plunges?)\s+(?:away\s+)?(?:a\s+|some\s+|fully\s+)?(?:sheer\s+)?" + _MEASURE.replace("(?P<", "(?P<h_"), re.I)
# words made out at a distance no ear reaches: talk carries a few hundred feet on a still night, a shout farther
HEAR_LIMIT_FT = 600
_LISTENS = re.compile(r"\b(?:listen|listens|listening|overhear|overhears|overhearing|eavesdrop|eavesdrops|eavesdropping|"
                      r"(?:make|makes|hear|hears|catch|catches) out what|(?:hear|hears|catch|catches) what)\b", re.I)
_EAR_AID = re.compile(r"\b(?:ear trumpet|spell|magic|telepathy|clairaudience|microphone|radio|telephone|wire|familiar|lip[- ]?read\w*)\b", re.I)
# reading writing at a distance no eye resolves, without a glass
READ_LIMIT_FT = 300
_READS_AFAR = re.compile(r"\b(?:read|reads|reading|make out|makes out)\b", re.I)
_OPTICS = re.compile(r"\b(?:spyglass|telescope|binoculars|field glasses|opera glasses|scope|glass|lens)\b", re.I)


_GAP_WORDS = re.compile(r"\b(?:gorge|chasm|canyon|ravine|gap|abyss|crevasse|drop|far (?:side|wall|bank|ledge|edge|shore|end)|other side|across|"
                        r"empty air|open air|thin air|water|river|lake|sea|bay|out on)\b", re.I)
_GOES_TO = re.compile(r"\b(?:run|runs|walk|walks|go|goes|ride|rides|swim|swims|row|rows|climb|climbs|sprint|sprints|dash|dashes|head|heads|"
                      r"paddle|paddles|sail|sails)\b(?: \w+){0,2} (?:to|toward|towards|after|out to|up to|over to|down to)\b", re.I)


# bars "a hand's width apart" or "four inches apart" let no body through, not even a halfling's
_SQUEEZE = re.compile(r"\b(?:squeeze|squeezes|squeezing|slip|slips|slipping|wriggle|wriggles|fit|fits|crawl|crawls|worm|worms|slide|slides)\b"
                      r"(?: \w+){0,4}? (?:between|through|past) (?:the |those |these )?(?:\w+ )?(?:bars|grate|grating|grille|railings)\b", re.I)
# an opening the scene says is a few fingers or inches wide: an arrow slit, a crack, a vent
_SQUEEZE_OUT = re.compile(r"\b(?:squeeze|squeezes|squeezing|slip|slips|slipping|wriggle|wriggles|crawl|crawls|worm|worms|climb|climbs|fit|fits|"
                          r"get|gets)\b(?: \w+){0,3}? (?:out |in )?through (?:the |that |this |an? )?(?:\w+ )?(?P<hole>slit|crack|gap|hole|vent|(?:drain|sewer|stove|water)?pipe|"
                          r"chimney|flue|grate|grating|grille|duct|loophole|window|hatch|opening|chink|keyhole|drain)\b", re.I)
_TOO_NARROW = re.compile(r"\b(?:two|three|four|a|one|few) fingers? (?:wide|across|broad)\b|\b(?:a |one )?hand'?s?[ -](?:width|breadth)\b|"
                         r"\b(?:two|three|four|five|six|[1-6])[ -]inch(?:es)? (?:wide|across)\b|\b(?:two|three|four|five|six|[1-6])[ -]inch(?:es)?\b(?= (?:slit|crack|gap|opening))|"
                         r"\btoo (?:narrow|small) for (?:a|any) (?:body|man|person|child)\b"
                         r"|\b(?:the )?size of (?:a|an) (?:shoebox|shoe box|cigar box|book|brick|fist|hand|saucer|plate|dinner plate|letterbox|"
                         r"mail ?slot|postcard|playing card|matchbox|loaf)\b", re.I)
_NARROW_BARS = re.compile(r"\b(?:bars|grate|grating|grille|railings)\b[^.;]{0,80}?\b(?:(?:a |one )?(?:hand'?s?|palm'?s?|finger'?s?)[ -](?:width|breadth)|"
                          r"(?:two|three|four|five|six|[1-6]) inch(?:es)?|inches apart|too (?:narrow|close|tight)|"
                          r"(?:only |just |no more than )?(?:a|one|two|three) fingers? (?:fit|fits|will fit|can fit|could fit|goes|go|wide))\b"
                          r"|\b(?:close-set|narrow-set|tight-set)\s+(?:\w+\s+)?(?:bars|grate|grating|grille|railings)\b", re.I)


# a coach, train or boat the scene says left long ago cannot be boarded, chased or not
_BOARD = re.compile(r"\b(?:hop|hops|hopping|climb|climbs|jump|jumps|leap|leaps|leaping|swing|swings|get|gets|step|steps)"
                    r"(?: \w+){0,4}? (?:on ?board|aboard|on|onto|into)\b"
                    r"|\b(?:board|boards|boarding|catch|catches|catching)\b", re.I)
_OUT_OF_SIGHT = re.compile(r"\b(?:out of sight|over the horizon|beyond sight)\b", re.I)  # a rider may yet catch it
_LONG_GONE = re.compile(r"\blong gone\b"
                        r"|\b(?:left|departed|pulled out|pulled away|sailed|set off|set sail|cast off|rolled out|steamed out|steamed off)\b"
                        r"[^.;]{0,40}?\b(?:an hour|hours|a day|days|yesterday|last night|this morning|long|"
                        r"(?:twenty|thirty|forty|fifty|[2-5][0-9])(?:[- ]\w+)? minutes) ago\b", re.I)


# far enough ahead that only a horse or a motor closes the gap: minutes gone, or a speck on the horizon
_AHEAD_ON_FOOT = re.compile(r"\b(?:left|departed|pulled out|pulled away|set off|rolled out|steamed out|steamed off|drove off|sailed)\b"
                            r"[^.;]{0,40}?\b(?:ten|fifteen|twenty|thirty|forty|fifty|[1-5][0-9]) minutes ago\b"
                            r"|\b(?:on|over) the horizon\b|\bout of sight\b", re.I)


def _naming(text: str, scene: str, after: re.Match | None) -> list[str]:
    """The scene's sentences that name what the line acts on (its words after ``after``)."""
    target = text[after.end():] if after else text
    words = {w for w in _CONTENT.findall(target.lower()[:80]) if w not in _FAR_STOP}
    # "after the train" names the scene's "4:15 express": a vehicle under way is named by any word for one
    vehicle = bool(_UNDER_WAY.search(target[:80]))
    return [sentence for sentence in _SENTENCE.findall(scene)
            if words & set(_CONTENT.findall(sentence.lower())) or (vehicle and _UNDER_WAY.search(sentence))]


def _distances_for(text: str, scene: str, after: re.Match | None, gap: bool = False) -> list[float]:
    """Distances the scene gives in sentences that name what the line acts on (the words after
    ``after``); with ``gap``, only sentences that also put a gap or water in between (a lamp
    twenty feet off is walked to and picked up; a satchel across a gorge is not)."""
    found = []
    for sentence in _naming(text, scene, after):
        if gap and not _GAP_WORDS.search(sentence):
            continue
        found += [_feet(m) for m in _FAR.finditer(sentence)]
        if _MILES.search(sentence) and not _FAR.search(sentence):
            found.append(5280.0)  # "now miles down the line": at least one
    return found


def _asked(text: str, at: re.Match) -> bool:
    """The sentence holding ``at`` is a question ("what if something grabs you from the shore?")."""
    end = re.search(r"[.!?]", text[at.end():])
    return end is not None and end.group(0) == "?"


def _too_far(text: str, scene: str) -> str | None:
    """Grabbing, jumping onto, catching or riding to something the scene puts out of reach, landing
    unhurt from a height past any body, or reading writing farther off than any eye resolves."""
    if _is_question(text):
        return None
    if _SQUEEZE.search(text) and _NARROW_BARS.search(scene):
        return "no body fits between bars that close"
    if (hole := _SQUEEZE_OUT.search(text)) and any(_TOO_NARROW.search(sentence) and re.search(rf"\b{hole.group('hole')}", sentence, re.I)
                                                   for sentence in _SENTENCE.findall(scene)):
        return f"no body fits through a {hole.group('hole').lower()} that narrow"
    if (jump := _JUMP.search(text)) and (onto := _ONTO.search(text, jump.end())) and not _GOES_TO.search(text) and not _asked(text, jump):
        near = min(_distances_for(text, scene, onto), default=0.0)
        if near > JUMP_LIMIT_FT:
            return f"no one jumps {_said(near)}"
        if _UPWARD.search(text, jump.start()) and not _DOWNWARD.search(text):
            up = min((_feet(m) for sentence in _naming(text, scene, jump) for m in _HIGH.finditer(sentence)), default=0.0)
            if up > HIGH_JUMP_LIMIT_FT:
                return f"no one jumps {_said(up)} up"
    # "runs at the wall, jumps up, grabs the edge of the roof": a standing leap to a height the scene gives
    if (jump := _JUMP.search(text)) and _UPWARD.search(text, jump.start()) and not _DOWNWARD.search(text) and not _asked(text, jump) \
            and not _CLIMBED_TO.search(text):
        up = min((_feet(m) for sentence in _naming(text, scene, jump) for m in _HIGH.finditer(sentence)), default=0.0)
        if up > HIGH_JUMP_LIMIT_FT:
            return f"no one jumps {_said(up)} up"
    if (reach := _REACH.search(text)) and not _GOES_FIRST.search(text) and not _asked(text, reach):
        near = min(_distances_for(text, scene, reach, gap=True), default=0.0)
        if near > REACH_LIMIT_FT:
            return f"no arm reaches {_said(near)}"
        named = _naming(text, scene, reach)
        up = min((_feet(m) for sentence in named for m in _HIGH.finditer(sentence)), default=0.0)
        if up > REACH_LIMIT_FT:
            return f"no arm reaches {_said(up)} up"
        down = min((_feet(m) for sentence in named for m in _DEEP.finditer(sentence)), default=0.0)
        if down > REACH_LIMIT_FT:
            return f"no arm reaches {_said(down)} down"
    if (throw := _THROWN.search(text)) and not _asked(text, throw) and not _GOES_FIRST.search(text) and not _CARRIED.search(text):
        near = min(_distances_for(text, scene, throw), default=0.0)
        if near > THROW_LIMIT_FT:
            return f"no arm throws {_said(near)}"
    if (board := _BOARD.search(text)) and (vehicle := _UNDER_WAY.search(text[board.end():])):
        named = _naming(text, scene, board)
        if any(_LONG_GONE.search(sentence) for sentence in named):
            return f"the {vehicle.group(0).lower()} left long ago"
        if not _MOUNTED.search(text) and any(_OUT_OF_SIGHT.search(sentence) for sentence in named):
            return f"the {vehicle.group(0).lower()} is already out of sight"
    if (chase := _CHASE.search(text)) and _CATCH.search(text, chase.start()) and (vehicle := _UNDER_WAY.search(text, chase.start())) \
            and not _MOUNTED.search(text):  # "runs after the stage until she catches it"
        near = min(_distances_for(text, scene, chase), default=0.0)
        if near > CATCH_LIMIT_FT:
            return f"no one on foot catches it {_said(near)} off"
        if any(_LONG_GONE.search(sentence) or _AHEAD_ON_FOOT.search(sentence) for sentence in _naming(text, scene, chase)):
            return f"no one on foot catches a {vehicle.group(0).lower()} that far ahead"
    if (leap := _LEAP_OFF.search(text)) and _LANDS.search(text, leap.end()):
        wet = bool(_WATER.search(text))
        drop = max((_feet(m) for sentence in _SENTENCE.findall(scene) for m in _DROP.finditer(sentence)), default=0.0)
        if drop > (WATER_FALL_LIMIT_FT if wet else FALL_LIMIT_FT):
            return f"no one lands unhurt from {_said(drop)}"
    if (read := _READS_AFAR.search(text)) and not _OPTICS.search(text) and not _GOES_FIRST.search(text):
        near = min(_distances_for(text, scene, read), default=0.0)
        if near > READ_LIMIT_FT:
            return f"no eye reads writing {_said(near)} off"
    if (ear := _LISTENS.search(text)) and not _EAR_AID.search(text) and not _GOES_FIRST.search(text):
        near = min(_distances_for(text, scene, ear), default=0.0)
        if near > HEAR_LIMIT_FT:
            return f"no ear makes out words {_said(near)} off"
    if (travel := _TRAVEL.search(text)) and _TODAY.search(text):
        how, legs = _travels_by(text), _legs(text)
        near = min(_distances_for(text, scene, travel), default=0.0) * legs
        if near > DAY_LIMIT_FT[how]:
            return f"no {_TRAVELLER[how]} covers {_said(near)}{_BOTH_WAYS[legs]} {_TODAY.search(text).group(0).lower()}"
    # "the capital, a ten-day ride away" reached "tonight" and back "before they open the cells in the morning"
    if _TRAVEL.search(text) and (soon := _OVERNIGHT.search(text)):
        days = max((_count(m) for sentence in _naming(text, scene, None) for m in _DAYS_AWAY.finditer(sentence)), default=0.0)
        if days >= 2:
            return f"a {days:g}-day journey is not made {soon.group(0).lower()}"
    if (travel := _TRAVEL.search(text)) and _IN_TIME.search(text) and (minutes := _minutes_left(text, scene)) is not None:
        how, legs = _travels_by(text), _legs(text)
        near = min(_distances_for(text, scene, travel), default=0.0) * legs
        if near > SPEED_LIMIT_MPH[how] * 5280 * minutes / 60:
            return f"no {_TRAVELLER[how]} covers {_said(near)}{_BOTH_WAYS[legs]} in {_said_minutes(minutes)}"
    return None


_TRAVELLER = {"car": "motor car", "ride": "horse", "foot": "one on foot"}
# there and back: "drive to Arkham, pick up the professor and bring him here before midnight"
_ROUND_TRIP = re.compile(r"\b(?:there and back|and back (?:here|again)|round trip|return trip|(?:bring|brings|bringing|fetch|fetches|get|gets|have|has)\s+"
                         r"(?:him|her|them|it|\w+(?:\s+\w+)?)\s+(?:back\s+)?here|(?:come|comes|get|gets|be|ride|rides|drive|drives|head|heads|"
                         r"return|returns|race|races|hurry|hurries)\s+back\s+(?:here|with)\b)", re.I)


_BOTH_WAYS = {1: "", 2: " there and back"}


def _legs(text: str) -> int:
    """2 when the line goes somewhere and comes back before the deadline, else 1."""
    return 2 if _ROUND_TRIP.search(text) else 1


def _travels_by(text: str) -> str:
    """How the line goes: by ``car``, on a horse or a wagon (``ride``), or on ``foot``."""
    return "car" if _MOTOR.search(text) else "ride" if _MOUNTED.search(text) else "foot"


# ---- how long there is: "it is 11:50 p.m." and "sails at midnight", "within half an hour" --------
# Faster than any road car of the games' eras keeps up, a horse at a gallop, a runner
SPEED_LIMIT_MPH = {"car": 100, "ride": 30, "foot": 15}
_IN_TIME = re.compile(r"\b(?:before|in time|catch|catches|make it|makes it|flat|by (?:midnight|noon|\d)|in (?:half an hour|an hour|"
                      r"\w+ minutes|\w+ hours))\b", re.I)
_WITHIN = re.compile(r"\b(?:within|in|inside|under|less than)\s+(?:the next\s+)?(?:(?P<half>half an hour)|" + _AMOUNT + r"(?P<unit>minutes?|hours?))\b", re.I)
_CLOCK_NOW = re.compile(r"\b(?:it is|it's|it is now|now|the time is|the clock (?:reads|says|shows))\s+(?:almost\s+|nearly\s+|just\s+(?:past|after)\s+)?"
                        r"(?P<h>\d{1,2})[:.](?P<m>\d{2})\s*(?P<ap>[ap])?", re.I)
_CLOCK_DUE = re.compile(r"\bat\s+(?:(?P<midnight>midnight)|(?P<noon>noon)|(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<ap>[ap])\.?\s*m\b"
                        # "at nine", after the scene's own clock: the next nine o'clock
                        r"|(?P<bare>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(?!\s+(?:of|in|on|at|to|from|miles?|feet|yards|men|horses|\w+s\b)))", re.I)


def _clock(hour: str, minute: str | None, half: str | None) -> int:
    """Minutes after midnight of "11:50 p.m." (no a.m./p.m.: as written)."""
    h = int(hour) % 12 + (12 if (half or "").lower() == "p" else 0) if half else int(hour)
    return h * 60 + int(minute or 0)


_CLOCK_WORDS = re.compile(r"\b(?:it is|it's|it is now|now)\s+(?:almost\s+|nearly\s+|just\s+(?:past|after)\s+)?(?P<h>one|two|three|four|five|six|seven|"
                          r"eight|nine|ten|eleven|twelve)(?:\s+o'clock)?\s+(?P<part>in the (?:morning|afternoon|evening)|at night|(?P<ap>[ap])\.?\s*m\b)", re.I)


def _minutes_left(text: str, scene: str) -> float | None:
    """The least time the line or the scene gives to get there: "within half an hour", or from the
    clock the scene reads to the hour something happens ("it is 11:50 p.m." … "at midnight")."""
    found = [30.0 if m.group("half") else _minutes(m)
             for m in (*_WITHIN.finditer(text), *_WITHIN.finditer(scene))]
    if (now := _CLOCK_NOW.search(scene) or _CLOCK_WORDS.search(scene)) and (due := _CLOCK_DUE.search(scene, now.end())):
        hour = str(_NUMBERS.get(now.group("h").lower(), now.group("h")))
        part = now.groupdict().get("part") or ""  # "in the evening": p.m.; "in the morning": a.m.
        half = now.group("ap") or ("a" if "morning" in part else "p" if part else None)
        start = _clock(hour, now.groupdict().get("m"), half)
        if due.group("bare"):
            due_at = _NUMBERS[due.group("bare").lower()] % 12 * 60  # whichever of its a.m. and p.m. comes next
            found.append(float(min((due_at - start) % 1440, (due_at + 720 - start) % 1440)))
        else:
            end = 0 if due.group("midnight") else 720 if due.group("noon") else _clock(due.group("h"), due.group("m"), due.group("ap"))
            found.append(float((end - start) % 1440))
    return min(found) if found else None


def _minutes(match: re.Match) -> float:
    """The minutes a ``_AMOUNT`` + ``minutes|hours`` match gives: "twenty minutes", "an hour"."""
    return _count(match) * (60 if _group(match, "unit").lower().startswith("hour") else 1)


def _said_minutes(minutes: float) -> str:
    return f"{minutes:g} minutes" if minutes < 60 else f"{minutes / 60:g} hour{'s' if minutes != 60 else ''}"


_DAYS_AWAY = re.compile(_COUNT + r"[\s-]+days?['’]?[\s-]+(?:hard\s+)?(?:ride|riding|journey|march|walk|travel|sail|sailing|drive|trek)\b", re.I)
_OVERNIGHT = re.compile(r"\b(?:tonight|overnight|by (?:dawn|morning|sunrise|daybreak|nightfall|sundown|tomorrow)|before (?:dawn|morning|sunrise|daybreak|"
                        r"nightfall|sundown|they \w+ (?:\w+ ){0,3}in the morning)|in (?:an|one|a single) (?:hour|night|afternoon|evening))\b", re.I)


# ---- how heavy the thing is: a weight the scene gives, or a vehicle it names -------------------------
# "forty tons of iron lie on their side", "a two-ton anchor": no back lifts that. D&D's lift limit is
# 30 × Strength pounds (600 lb at Strength 20), so 1,500 lb is past any sheet.
LIFT_LIMIT_LB = 1500
_UNITS_LB = {"ton": 2000, "tons": 2000, "tonne": 2205, "tonnes": 2205, "pound": 1, "pounds": 1, "lb": 1, "lbs": 1, "hundredweight": 112}
_WEIGHT = re.compile(_AMOUNT + r"(?P<unit>" + "|".join(_UNITS_LB) + r")\b", re.I)
_UNCOUNTED_TONS = re.compile(r"\b(?:many|several|countless|untold|(?:dozens|scores|hundreds|thousands) of)\s+(?:tons|tonnes)\b|\b(?:tons|tonnes)\s+of\s+(?!fun|time|money|people|questions|ways)", re.I)
# lifting, not pushing: a loaded wagon is shoved out of a rut, never raised
_LIFT = re.compile(r"\b(?:lift|lifts|lifting|hoist|hoists|carry|carries|hurl|hurls|throw|throws|toss|tosses)\b|"
                   r"\b(?:heave|heaves|heaving|raise|raises|pick|picks|shoulder|shoulders|right|rights|haul|hauls|hold|holds)\b"
                   r"(?:\s+\w+){0,4}?\s+(?:up|over|above|overhead|upright|aloft)\b"
                   # righting a thing is lifting one side of it: "pushes the whole barge back upright"
                   r"|\b(?:push|pushes|shove|shoves|tip|tips|flip|flips|roll|rolls|lever|levers|turn|turns)\b"
                   r"(?:\s+\w+){0,4}?\s+(?:upright|right side up|the right way up)\b", re.I)
# carried, not just lifted: D&D's carrying capacity is 15 × Strength pounds (300 at Strength 20), and
# no strongman walks far under more than a few hundred; a stair or a ford with half a ton is past anyone
CARRY_LIMIT_LB = 800
_CARRY = re.compile(r"\b(?:carry|carries|carrying|lug|lugs|lugging|tote|totes|toting|shoulder|shoulders|shouldering)\b", re.I)
_HELPED = re.compile(r"\b(?:with (?:the )?help|together|between (?:us|them)|all of us|the others|a team|a mule|oxen|ox|horses?|winch|block and tackle|"
                     r"pulleys?|lever|crane|dolly|hand ?truck|cart|rollers|spell|magic|enlarge)\b(?!,? (?:and all|too))", re.I)
_VEHICLE = r"(?:car|cars|automobile|motorcar|roadster|sedan|truck|lorry|tractor|bus|locomotive|engine|wagon|carriage|stagecoach|coach)"
_CARRY_VEHICLE = re.compile(r"\b(?:carry|carries|carrying|hoist|hoists|hoisting|shoulder|shoulders|lift|lifts|lifting)\s+(?:up\s+)?(?:the|a|that|this|his|her|their)\s+"
                            r"(?:[\w'’-]+\s+){0,2}?(?P<vehicle>" + _VEHICLE[3:-1] + r")\b(?=[^.!?]{0,60}\b(?:onto|on|over|across|up|to|and carries|and carry|on (?:her|his|their|my) back)\b)", re.I)
_OVERHEAD = re.compile(r"\b(?:lift|lifts|hoist|hoists|raise|raises|pick|picks|heave|heaves)\s+(?:the|a|an|his|her|their|that)\s+"
                       r"(?:\w+\s+){0,2}?(?P<thing>[A-Za-z-]+)\s+(?:up\s+)?(?:over|above)\s+(?:my|his|her|their)\s+head", re.I)


def _too_heavy(text: str, scene: str) -> str | None:
    """Lifting or heaving what the scene says weighs tons, or holding overhead a thing the scene calls a car or a wagon."""
    if _is_question(text) or not _LIFT.search(text):
        return None
    every = _WHOLE_SENTENCE.findall(scene)
    sentences = [s for s in every if set(_CONTENT.findall(s.lower())) & (set(_CONTENT.findall(text.lower())) - _FAR_STOP)] or every
    heaviest = max((_count(m) * _UNITS_LB[_group(m, "unit").lower()] for s in sentences for m in _WEIGHT.finditer(s)), default=0.0)
    if heaviest < 4000 and (tons_of := next((m for s in sentences if (m := _UNCOUNTED_TONS.search(s))), None)):
        return f"no one lifts {tons_of.group(0).strip().lower().removesuffix(' of')}"  # "many tons of wet grain": past any back
    if heaviest > LIFT_LIMIT_LB:
        tons = heaviest / 2000
        return f"no one lifts {tons:g} tons" if tons >= 1 else f"no one lifts {heaviest:,.0f} pounds"
    if heaviest > CARRY_LIMIT_LB and _CARRY.search(text) and not _HELPED.search(text):
        return f"no one carries {heaviest:,.0f} pounds" if heaviest < 2000 else f"no one carries {heaviest / 2000:g} tons"
    if (vehicle := _CARRY_VEHICLE.search(text)) and not _HELPED.search(text):
        return f"no one carries a {vehicle.group('vehicle').lower()}"
    if (over := _OVERHEAD.search(text)) and re.search(rf"\b{re.escape(over.group('thing'))}\b(?:[\s-]+\w+){{0,2}}?[\s-]+{_VEHICLE}\b", scene, re.I):
        return "no one holds a vehicle over their head"
    return None


# ---- a message way that is down: the wire cut, the telephone line dead -----------------------------
# each way the scene can say it, and whether the line was once there ("down") or never was ("none")
_WIRE_DOWN = (
    (re.compile(r"\b(?P<way>telegraph|telephone|phone|wire|wires|lines?)\b(?:\s+(?:line|lines|wire|wires|poles|cable))?[^.;]{0,30}?"
                r"\b(?:is|are|was|were|has been|have been|had been|now|lies|lie|hangs?)\s+(?:\w+\s+)?(?:cut|down|dead|severed|torn down|pulled down|out|burned|broken)\b", re.I), "down"),
    (re.compile(r"\b(?:cut|cutting|cuts|severed|severing|tore down|tearing down|pulled down|pulling down|burned|burning)\s+(?:the|its|their)\s+"
                r"(?P<way>telegraph|telephone|phone)\s+(?:wire|wires|line|lines|poles|cable)", re.I), "down"),
    (re.compile(r"\b(?P<way>telegraph|telephone|phone)\s+(?:line|lines|wire|wires|poles|cable)\s+(?:down|dead)\b", re.I), "down"),  # "brought the lines down"
    (re.compile(r"\b(?P<way>telegraph|telephone|phone)\b[^.;]{0,30}?\b(?:has never|never|does not|doesn't|did not) (?:reached|reach|come|came|run|ran)\b", re.I), "none"),
    (re.compile(r"\b(?:no|without a|without any)\s+(?P<way>telegraph|telephone|phone)\b(?!\s+(?:call|calls|message|answer))", re.I), "none"),
    # "no town, wire or station in sight": a wire among the things the scene says are not there
    (re.compile(r"\b(?:no|without)\s+(?:[a-z]+,\s+){1,4}(?:or\s+|and\s+)?(?P<way>wires?|telegraph|telephone|phone)\b(?!\s+(?:fence|cutters))", re.I), "none"),
)
_WIRED = {"telegraph": re.compile(r"\b(?:wires?\s+(?:the|a|to|him|her|them|ahead|for|back|word|\w+ in)|wiring|telegraph|telegraphs|telegraphing|"
                                   r"telegram|send (?:a |the )?(?:wire|cable)|sends (?:a |the )?(?:wire|cable)|cables? (?:the|him|her|them|ahead)|"
                                   r"taps? out (?:a |the )?message|at the key)\b", re.I),
          "telephone": re.compile(r"\b(?:telephone|telephones|phone|phones|ring|rings) (?:up |the |him|her|them|ahead|for|\w+ (?:station|office|sheriff|police|marshal|exchange))|"
                                   r"\b(?:dial|dials|(?:picks? up|cranks?|lifts?|grabs?|uses?) the (?:telephone|phone|receiver))\b", re.I)}
_MENDED = re.compile(r"\b(?:splice|splices|splicing|mend|mends|repair|repairs|fix|fixes|patch|patches|rig|rigs|restring|restrings)\b", re.I)


def _wire_down(text: str, scene: str) -> str | None:
    """Sending word by a telegraph or a telephone whose line the scene says is cut, down or never laid."""
    if _is_question(text) or _MENDED.search(text):
        return None
    for pattern, state in _WIRE_DOWN:
        for m in pattern.finditer(scene):
            way = m.group("way").lower()
            kinds = ("telegraph",) if way == "telegraph" else ("telephone",) if way in ("telephone", "phone") else ("telegraph", "telephone")
            for kind in kinds:
                if _WIRED[kind].search(text):
                    return f"the {kind} line is down" if state == "down" else f"there is no {kind} line here"
    return None


# ---- bound hands: the scene says the actor is tied up, so no weapon is drawn or fired ------------
_BOUND = re.compile(r"\b(?:hog-?tied|trussed(?: up)?|bound hand and foot|tied hand and foot|handcuffed|in (?:manacles|shackles|irons|chains)|"
                    r"(?:wrists|hands|arms)(?: and (?:ankles|feet|legs))? (?:\w+ )?(?:are |were )?(?:bound|tied|lashed|manacled|shackled|chained|cuffed))\b", re.I)
_HANDS = re.compile(r"\b(?:draw|draws|grab|grabs|snatch|snatches|shoot|shoots|fire|fires|aim|aims|swing|swings|stab|stabs|throw|throws|"
                    r"punch|punches|load|loads|cock|cocks|pick up|picks up|reach for|reaches for|wield|wields)\b", re.I)
# working at the bonds themselves
_AT_BONDS = re.compile(r"\b(?:rope|ropes|bonds|knots?|cords?|manacles?|shackles?|cuffs?|chains?|irons|free|loose|loosen|loosens|wriggle|wriggles|"
                       r"slip|slips|twist|twists|saw|saws|chew|chews|gnaw|gnaws|teeth|mouth)\b", re.I)




# ---- an empty weapon: the scene says the actor's gun clicked empty or the quiver is spent -----------
_EMPTY = re.compile(r"\b(?:gun|guns|pistol|revolver|colt|six-?gun|six-?shooter|rifle|winchester|carbine|shotgun|derringer|cylinder|chambers?|magazine)\b"
                    r"[^.;]{0,40}?\b(?:clicked|clicks|clicking|is|was|are|were|ran|runs|went|goes|sits|hangs|now)\s+(?:\w+\s+)?(?:empty|dry)\b"
                    r"|\bout of (?:ammunition|ammo|bullets|cartridges|shells|rounds|shot|arrows|bolts)\b"
                    r"|\b(?:fired|spent|used|loosed|shot)\s+(?:his|her|their|its|the)\s+(?:very\s+)?last\s+(?:bullet|round|cartridge|shell|arrow|bolt)\b"
                    r"|\b(?:quiver|cartridge belt|bandolier|ammunition belt|gun ?belt)\s+(?:is|was|hangs|lies)\s+(?:\w+\s+)?empty\b"
                    r"|\bempty\s+(?:quiver|revolver|pistol|gun|rifle|shotgun|colt|cylinder|chambers?|magazine)\b", re.I)
_FIRES = re.compile(r"\b(?:shoot|shoots|shooting|fire|fires|firing|pull|pulls|squeeze|squeezes)\b(?!\s+(?:a|his|her|their|my)\s+(?:look|glance|question))"
                    r"|\b(?:put|puts|send|sends|pump|pumps|sink|sinks)\s+(?:a|an|one|two|three|another)\s+(?:bullet|round|slug|shot|arrow|bolt)\b"
                    r"|\b(?:nock|nocks|looses?|lets?\s+fly|takes?\s+a\s+shot|empties)\b", re.I)
# reloading first, or picking up another weapon: then the shot may be had
_RELOADS = re.compile(r"\b(?:reload|reloads|reloading|load|loads|loading|thumbs?\s+(?:in\s+)?(?:a|some|fresh|new|two|three)|"
                      r"fresh|new|spare|other|another|second|backup|borrowed|dead man|grab|grabs|snatch|snatches|pick up|picks up|"
                      r"scoop|scoops|fetch|fetches|retrieve|retrieves|belt|bandolier|box of|cartridges|shells)\b", re.I)


# ---- eyes covered: the scene says the actor is blindfolded or hooded, so nothing is read or seen ---
_BLIND = re.compile(r"\b(?:blindfold|blindfolds|blindfolded|struck blind|is blind|are blind|blinded)\b"
                    r"|\b(?:hood|sack|bag|sackcloth)\s+(?:\w+\s+)?(?:over|on|covering)\s+(?:his|her|their)\s+(?:head|face|eyes)\b"
                    r"|\beyes\s+(?:are\s+|were\s+)?(?:bandaged|covered|bound|taped)\b", re.I)
_SIGHT = re.compile(r"\b(?:read|reads|reading|spot|spots|spotting|watch|watches|watching|see|sees|seeing|look|looks|looking|"
                    r"examine|examines|examining|study|studies|studying|describe|describes|sketch|sketches|"
                    r"scan|scans|scanning|glance|glances|peer|peers|squint|squints|note|notes)\b", re.I)
# working at the blindfold, or going by ear, touch or count
_AROUND_BLIND = re.compile(r"\b(?:blindfold|hood|sack|bag|rub|rubs|shake|shakes|pull|pulls|push|pushes|tug|tugs|slip|slips|"
                           r"listen|listens|hear|hears|feel|feels|count|counts|smell|smells|sniff|sniffs|by ear|by touch|"
                           r"by feel|memori[sz]e|memori[sz]es)\b", re.I)


# someone else looking ("they were looking at our coin"), or owning up to the dark ("I can't see it")
_OTHERS_SEE = re.compile(r"\b(?:they|people|someone|everyone|you|we|can't|cannot|can not|couldn't|don't|doesn't)\b(?:\s+\w+){0,2}?\s+"
                         + _SIGHT.pattern.removeprefix(r"\b"), re.I)


# ---- what no one at the table knows: a password never heard, a tongue none of them speaks ---------
_NO_ONE_KNOWS = re.compile(r"\b(?:no one|nobody|none of (?:you|them|us|the party|the group)|neither of (?:you|them|us)|"
                           r"no living (?:scholar|soul|man|person|one))\b[^.;]{0,60}?\b(?:knows?|has heard|have heard|heard|"
                           r"has ever heard|have ever heard|speaks?|can speak|can read|reads?|has cracked|has read|understands?|"
                           r"remembers?|was told|were told|has learned|has learnt)\b", re.I)
_SECRETS = ("password", "watchword", "countersign", "combination", "code", "cipher", "language", "tongue", "dialect", "script",
            "name", "identity")
_WHO_UNKNOWN = re.compile(r"\bwho (?:he|she|they|it) (?:is|are|was|were)\b|\bwhat (?:he|she|they) (?:is|are) called\b", re.I)
_SECRET = re.compile(r"\b(?P<thing>" + "|".join(_SECRETS) + r")s?\b", re.I)
_USES_KNOWN = re.compile(r"\b(?:tell|tells|say|says|give|gives|speak|speaks|chat|chats|talk|talks|converse|converses|read|reads|"
                         r"remember|remembers|recall|recalls|write|writes|scrawl|scrawls|"
                         r"dial|dials|enter|enters|whisper|whispers|answer|answers|recite|recites|use|uses|translate|translates|"
                         r"decode|decodes|decipher|deciphers|spin|spins|fluently|instantly|perfectly)\b", re.I)
# finding it out, or trying a guess or a bluff: acts with a chance
_SEEKS = re.compile(r"\b(?:guess|guesses|try|tries|trying|attempt|attempts|bluff|bluffs|pretend|pretends|fake|fakes|mumble|mumbles|"
                    r"learn|learns|find out|finds out|figure|figures|work out|works out|study|studies|ask|asks|listen|listens|"
                    r"overhear|overhears|copy|copies|gesture|gestures|sign|signs|mime|mimes|point|points|pick|picks|crack|cracks)\b", re.I)


def _unknown(text: str, scene: str) -> str | None:
    """Using a password, a code or a tongue the scene says no one present knows ("the gate guard
    demands the night's password; nobody in the party has heard it")."""
    if _is_question(text) or _SEEKS.search(text) or not _USES_KNOWN.search(text) or not (used := _SECRET.search(text)):
        return None
    thing = used.group("thing").lower()
    named = re.compile(rf"\b{thing}s?\b", re.I)
    sentences = _SENTENCE.findall(scene)
    for i, sentence in enumerate(sentences):  # "...demands the password. Nobody in the party has heard it."
        said_of = named.search(sentence) or (thing in ("name", "identity") and _WHO_UNKNOWN.search(sentence))  # "no one knows who he is"
        if _NO_ONE_KNOWS.search(sentence) and (said_of or (i and re.search(r"\b(?:it|them)\b", sentence, re.I)
                                                            and named.search(sentences[i - 1]))):
            return f"no one here knows the {thing}"
    return None


# "a warning in Aklo, a tongue Marisol has never learned"; "a script no living scholar has ever deciphered"
_NEVER_LEARNED = re.compile(r"\b(?P<who>[A-Z][a-z]+|no one|nobody|no living (?:scholar|soul|man|person|one)|none of (?:you|them|us|the party))\s+"
                            r"(?:(?:in|of|among|at)\s+(?:the\s+|this\s+|your\s+)?\w+\s+)?(?:has|have|had)\s+(?:never|ever|yet to)\s+(?:\w+\s+)?(?:learned|learnt|learn|deciphered|decipher|read|studied|translated|spoken)\b"
                            r"|\b(?:never been|yet to be|not been)\s+(?:deciphered|translated|read)\b|\bundeciphered\b", re.I)
_WRITTEN = re.compile(r"\b(?:language|tongue|dialect|script|writing|glyphs|runes|letters|cipher)\b", re.I)
_TONGUE_NAME = re.compile(r"\b(?:in|speak|speaks|only)\s+(?P<name>[A-Z][a-z]+)\b|\b(?P<name2>[A-Z][a-z]+),\s+(?:a|an|the)\s+(?:\w+\s+)?(?:tongue|language|script|dialect)\b")
_READS_OUT = re.compile(r"\b(?:read|reads|reading|translate|translates|recite|recites)\b", re.I)  # the writing itself, not talk near it
_READS_OR_SPEAKS = re.compile(r"\b(?:read|reads|reading|translate|translates|recite|recites|sound|sounds|speak|speaks|preach|preaches|"
                              r"sermon|talk|talks|tell|tells|explain|explains|address|addresses|give|gives)\b", re.I)


def _not_learned(text: str, scene: str, actor: str | None = None) -> str | None:
    """Reading or speaking a tongue or script the scene says the actor (or anyone) never learned."""
    if _is_question(text) or _SEEKS.search(text) or not _READS_OR_SPEAKS.search(text):
        return None
    said = set(_CONTENT.findall(text.lower())) - _FAR_STOP
    for sentence in _WHOLE_SENTENCE.findall(scene):
        if not (never := _NEVER_LEARNED.search(sentence)) or not _WRITTEN.search(sentence):
            continue
        who = never.group("who") or ""
        named = bool(who) and not re.match(r"(?:no|nobody|none)\b", who, re.I)  # "a tongue Marisol has never learned"
        if named and (not actor or who.lower() != first_name(actor).lower()):
            continue  # another character's gap, not this one's
        names = {n.lower() for m in _TONGUE_NAME.finditer(sentence) for n in m.groups() if n}
        things = set(_CONTENT.findall(sentence[:never.start()].lower())) - _FAR_STOP - {"language", "tongue", "script", "dialect", "covered", "carved"}
        if names & said or (things & said and _READS_OUT.search(text)):
            return f"{who} never learned it" if named else "no one here can read or speak it"
    return None


# ---- a door or wall the scene says is feet of steel or stone: no body breaks it ----------------
_SOLID = r"(?:steel|iron|stone|granite|rock|concrete|bronze|masonry)"
# "a foot of solid steel", "a two-foot-thick iron door", "the iron vault door is two feet thick"
_THICK = re.compile(_AMOUNT + r"(?P<unit>foot|feet|inch|inches|yard|yards)[\s-]+(?:thick\s+)?of\s+(?:solid\s+|reinforced\s+|tempered\s+)?" + _SOLID + r"\b"
                    r"|" + _AMOUNT.replace("?P<", "?P<t_") + r"(?P<t_unit>foot|feet|inch|inches|yard|yards)[\s-]+thick[\s-]+(?:solid\s+|reinforced\s+)?" + _SOLID + r"\b"
                    r"|\b" + _SOLID + r"\b[^.;]{0,40}?\b(?:is|are|was|were|stands?)\s+" + _AMOUNT.replace("?P<", "?P<u_")
                    + r"(?P<u_unit>foot|feet|inch|inches|yard|yards)[\s-]+thick\b", re.I)
_BREAKS_BY_BODY = re.compile(r"\b(?:kick|kicks|kicking|punch|punches|shoulder|shoulders|smash|smashes|break|breaks|batter|batters|"
                             r"bash|bashes|ram|rams|force|forces|rip|rips|tear|tears|charge|charges|barge|barges)\b"
                             r"[^.;!?]{0,30}?\b(?:door|doors|wall|walls|vault|gate|hatch|bulkhead)\b", re.I)
_TOOLS = re.compile(r"\b(?:dynamite|explosives?|charges?|powder|cannon|battering ram|drill|torch|acetylene|pick|pickaxe|sledge|"
                    r"sledgehammer|crowbar|jack|key|keys|combination|spell|magic|thermite)\b", re.I)


def _too_thick(text: str, scene: str) -> str | None:
    """Kicking in or shouldering through a door or wall the scene says is a foot of steel or stone."""
    if _is_question(text) or not _BREAKS_BY_BODY.search(text) or _TOOLS.search(text):
        return None
    inches = [_count(m) * (12 if _group(m, "unit").lower().startswith(("foot", "feet")) else 36 if _group(m, "unit").lower().startswith("yard") else 1)
              for m in _THICK.finditer(scene)]
    return "no body breaks through that much steel or stone" if inches and max(inches) >= 6 else None


# ---- no one to hear it: the one spoken to is dead, out cold or gone away --------------------------
# "The night clerk lies dead behind the desk" / "The ogre is out cold" / "Professor Whitcombe left for
# Cairo last Tuesday": asking, telling or persuading them cannot work; waking them first, or magic, can.
_SPEAKS_TO = re.compile(r"\b(?i:ask|asks|asking|question|questions|questioning|interrogate|interrogates|tell|tells|persuade|persuades|"
                        r"convince|convinces|(?:talk|talks|speak|speaks|chat|chats|bargain|bargains|plead|pleads|reason|reasons)\s+(?:to|with)|"
                        r"beg|begs|threaten|threatens|charm|charms|bribe|bribes|haggle with|haggles with)\s+"
                        r"(?P<who>(?i:him|her|them)\b|(?i:the)\s+[a-z-]+(?:\s+[a-z-]+)?|[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)")
_NO_EARS = (r"(?:lies|lay|lying|is|was|are|were|falls?|fell|drops?|dropped|slumps?|slumped|now)\s+(?:\w+\s+)?(?:dead|lifeless|unconscious|senseless|"
            r"out cold|in a coma|comatose)\b|(?:was|were|has been|had been)\s+(?:\w+\s+)?(?:killed|murdered|shot dead|hanged|buried|knocked (?:out|cold|senseless))\b"
            r"|\bdied\b|(?:left|sailed|departed|set off|set out|took the \w+)\s+(?:\w+\s+)?(?:for|to)\s+[A-Z]"
            r"|(?:is|are|was|were)\s+(?:away|abroad|out of town)\b|has gone (?:away|abroad|to [A-Z])")
_AFTER_WHO = {"who", "what", "where", "when", "why", "how", "which", "whether", "if", "about", "to", "for", "and", "but", "the", "a", "an",
              "his", "her", "their", "that", "this", "again", "once", "gently", "quietly", "politely", "softly"}
_DEAD_WHO = re.compile(r"\b(?:corpse|body|bodies|dead man|dead woman|dead men|skeleton|skull|cadaver|remains)\b", re.I)
# the dead are reached only by magic or a séance; shaking them rouses no one
_DEAD_REACHED = r"spell|cast|casts|speak with dead|s[ée]ance|ouija|medium|necromancy|ritual"
# the distant are reached by word sent, or when they come back
_WORD_SENT = (r"telegram|telegraph|wire|wires|letter|write|writes|telephone|phone|call|calls|message|send|sends|"
              r"when (?:he|she|they) (?:wakes|comes|returns|gets back)")
_REACH_DEAD = re.compile(rf"\b(?:{_DEAD_REACHED})\b", re.I)
_SENDS_WORD = re.compile(rf"\b(?:{_WORD_SENT})\b", re.I)
# the senseless are also woken first: any of the above, or a shake, a slap, salts, a prayer
_ROUSE = re.compile(r"\b(?:wake|wakes|waking|rouse|rouses|revive|revives|reviving|slap|slaps|shake|shakes|smelling salts|splash|splashes|"
                    rf"heal|heals|cure|cures|pray|prays|{_DEAD_REACHED}|{_WORD_SENT})\b", re.I)


def _no_listener(text: str, scene: str) -> str | None:
    """Words put to someone the scene says is dead, out cold or gone away, without first rousing
    or reaching them another way."""
    if _is_question(text) or _REACH_DEAD.search(text):
        return None
    def named(phrase: str) -> str:  # "the piano player where" -> "piano player"
        words = re.sub(r"^the\s+", "", phrase, flags=re.I).split()
        return " ".join(words[:2]) if len(words) > 1 and words[1].lower() not in _AFTER_WHO else words[0]

    told = without_quotes(text)
    for m in _SPEAKS_TO.finditer(told):
        who = m.group("who")
        if who.lower() in ("him", "her", "them"):  # the one the line named before: "kneels by the clerk and asks him"
            phrases = [named(p) for p in re.findall(r"\bthe\s+[a-z-]+(?:\s+[a-z-]+)?", told[: m.start()], re.I)][-1:]
            if lone := _lone_dead(scene):  # "I shake him by the shoulders and ask him": the one body the scene has
                phrases.append(lone)
        else:
            phrases = [named(who)]
        for phrase in phrases:
            noun = phrase.split()[-1]
            if _DEAD_WHO.fullmatch(noun):
                return f"the {phrase.lower()} cannot answer"
            # the one named is the subject of the state (not "the innkeeper's son died")
            said = re.search(rf"\b{re.escape(noun)}\b(?!['’]s)(?:[\s,]+[\w'’-]+){{0,6}}?[\s,]+(?:{_NO_EARS})", scene, re.I)
            if said:
                state = said.group(0).lower()
                how = ("is dead" if re.search(r"dead|lifeless|killed|murdered|hanged|buried|died", state)
                       else "is out cold" if re.search(r"unconscious|senseless|cold|coma|knocked", state) else "is not here")
                if how == "is out cold" and _ROUSE.search(text) or how == "is not here" and _SENDS_WORD.search(text):
                    continue  # woken first, or reached by wire or letter; the dead are neither
                return f"the {phrase.lower()} {how}" if noun[0].islower() else f"{phrase} {how}"
    return None


_NO_OTHER = r"(?!(?:the|a|an|he|she|they|it|who|says|said)\b)"  # no other noun or speaker between the one named and the state
_ONE_DEAD = re.compile(r"\b(?:a|an|the)\s+(?P<who>[a-z]+)\s+(?:who\s+)?(?:" + _NO_OTHER + r"[\w'’-]+\s+){0,6}?(?:was killed|was murdered|was shot|lies dead|lay dead|is dead|"
                       r"has been dead|had been dead|died)\b|\b(?:a|an|the)\s+(?P<who2>[a-z]+)\s+(?:" + _NO_OTHER + r"[\w'’,-]+\s+){0,10}?(?:cold and stiff|stiff and cold)\b", re.I)


_SOMEONE_ALIVE = re.compile(r"\b(?:dying|unconscious|breathing|alive|wounded|bleeding|groaning|moaning|stirs|stirring)\b", re.I)


def _lone_dead(scene: str) -> str | None:
    """The one dead person a scene names ("a courier who was killed by an arrow yesterday"), when it names one and no one alive and hurt."""
    if _SOMEONE_ALIVE.search(scene):
        return None
    found = {m.group("who") or m.group("who2") for m in _ONE_DEAD.finditer(scene)}
    return found.pop() if len(found) == 1 else None


# "works on him with first aid to bring him round": no first aid wakes the dead
_REVIVES = re.compile(r"\b(?:bring|brings|bringing)\s+(?:him|her|them)\s+(?:round|around|to|back)\b|\b(?:revive|revives|reviving|resuscitate|resuscitates|"
                      r"first aid|cpr|wake|wakes|waking|rouse|rouses|rousing)\b"
                      # "breathes into him until he comes back"
                      r"|\b(?:until|till|til)\s+(?:he|she|they)\s+(?:comes?|wakes?|starts?\s+breathing|breathes?)\s*(?:back|round|around|to|up)?\b", re.I)
_LONG_DEAD = re.compile(r"\b(?:cold and stiff|stiff and cold|dead since|been dead|dead for|days dead|hours dead|rigor mortis|stiff as a board|"
                        r"(?:killed|died|drowned|hanged|shot)\s+(?:\w+\s+){0,5}?(?:yesterday|last night|days? ago|hours ago|last week))\b", re.I)


def _wakes_the_dead(text: str, scene: str) -> str | None:
    """First aid or a shake to bring round someone the scene says is long dead."""
    if _is_question(text) or not _REVIVES.search(text) or _REACH_DEAD.search(text) or not _LONG_DEAD.search(scene) or _SOMEONE_ALIVE.search(scene):
        return None
    return "no one brings the dead round"


# ---- no light to read by: "the cellar is pitch black; the only lantern was smashed" ----------------
_DARK = re.compile(r"\b(?:no light (?:at all|whatsoever|anywhere|of any kind)|pitch[- ](?:black|dark)|(?:total|utter|complete|absolute) darkness|lightless|moonless|black as pitch|"
                   r"(?:absolutely|completely|totally|utterly) (?:black|dark)|(?:lantern|lamp|torch|candle)s? (?:has |have |had )?(?:just )?(?:gone|went) out|"
                   r"(?:carries|carry|has|have|with) no (?:light|lantern|torch|lamp|candle)s?)\b", re.I)
_READS = re.compile(r"\b(?:read|reads|reading|make out|makes out|decipher|deciphers|deciphering|"
                    r"(?:study|studies|examine|examines|look at|looks at|check|checks)\s+(?:the|a|his|her|their|my)\s+(?:\w+\s+)?"
                    r"(?:map|letter|note|writing|page|pages|inscription|sign|signpost|label|book|diary|journal|ledger|words|handwriting))\b", re.I)
_BRINGS_LIGHT = re.compile(r"\b(?:light|lights|lit|lighting|strike|strikes|striking|match|matches|lantern|torch|candle|lamp|flashlight|"
                           r"glow|glowing|moonlight|starlight|dawn|daylight|fire|flame|flames|outside|window|later|tomorrow|morning)\b", re.I)
# reading that is done by touch: raised letters, carving, the marks felt out ("finds the ledger by touch, flips it open
# and reads" finds by touch but reads by sight)
_READS_BY_TOUCH = re.compile(r"\b(?:read|reads|reading|make out|makes out|decipher|deciphers)\b[^.!?]{0,40}?\b(?:by touch|by feel|with (?:his|her|their|my) "
                             r"(?:fingers|fingertips|hands))\b|\b(?:feel|feels|feeling|trace|traces|tracing|run|runs|running)\b[^.!?]{0,40}?"
                             r"\b(?:letters|carving|carvings|carved|raised|grooves|engrav\w+|runes|embossed|braille|indentations?)\b", re.I)


def _reads_in_dark(text: str, scene: str) -> str | None:
    """Reading where the scene says it is pitch dark, bringing no light to read by."""
    if _is_question(text) or not _DARK.search(scene) or not _READS.search(text) or _BRINGS_LIGHT.search(text) or _READS_BY_TOUCH.search(text):
        return None
    return "it is too dark to read anything without a light"


def _said_of(actor: str, scene: str, state: re.Pattern) -> bool:
    """The scene puts ``state`` on the actor: in a sentence naming them (by first name), or in
    the sentence after one that does ("...in a cage; a gag across her mouth")."""
    named = re.compile(rf"\b{re.escape(first_name(actor))}\b")
    sentences = [m.group(0) for m in _SENTENCE.finditer(scene)]
    return any(state.search(sentence) and (named.search(sentence) or (i and named.search(sentences[i - 1])))
               for i, sentence in enumerate(sentences))


# ---- a gag: the scene says the actor's mouth is stopped, so no words get out --------------------
_GAG = re.compile(r"\b(?:gag|gags|gagged)\b(?<!running gag)|\bmouths?\s+(?:is\s+|are\s+)?(?:taped|stuffed|bound|sewn|tied)\b", re.I)
_SPEAKS = re.compile(r"\b(?:speech|speak|speaks|speaking|say|says|saying|tell|tells|telling|shout|shouts|shouting|yell|yells|yelling|"
                     r"call|calls|calling|cry|cries|crying|scream|screams|screaming|sing|sings|singing|whisper|whispers|ask|asks|"
                     r"plead|pleads|beg|begs|talk|talks|talking|argue|argues|bluff|bluffs|lie to|lies to|order|orders|urge|urges|"
                     r"preach|preaches|recite|recites|chant|chants|pray aloud|prays aloud|harangue|harangues)\b", re.I)
# working at the gag itself, or saying it some other way than aloud
_AROUND_GAG = re.compile(r"\b(?:gag|spit|spits|chew|chews|loosen|loosens|work|works|hum|hums|mumble|mumbles|mmph|muffled|grunt|grunts|"
                         r"write|writes|scrawl|scrawls|sign|signs|signal|signals|gesture|gestures|nod|nods|point|points|mouth|mouths|wink|winks)\b", re.I)


# A state the scene puts on the actor, the acts it stops, the acts that work around it, and what the GM says.
# Each is held in a sentence naming the actor (by first name) or the one after it (``_said_of``).
_LAME = re.compile(r"\b(?:leg|ankle|knee|foot|hip)\s+(?:is|was|has been|had been|got)\s+(?:\w+\s+)?(?:broken|shattered|smashed|crushed|snapped)\b"
                   r"|\bbroken\s+(?:leg|ankle|hip)\b|\b(?:leg|ankle)\s+(?:is\s+)?in\s+a\s+splint\b", re.I)
_ON_LEGS = re.compile(r"\b(?:run|runs|running|sprint|sprints|sprinting|dash|dashes|race|races|jump|jumps|leap|leaps|vault|vaults|"
                      r"kick|kicks|charge|charges|chase|chases|climb|climbs|dance|dances)\b", re.I)
_AROUND_LAME = re.compile(r"\b(?:crutch|crutches|hobble|hobbles|limp|limps|limping|carried|carry|carries|horse|ride|rides|riding|wagon|"
                          r"cart|good leg|one leg|hop|hops|crawl|crawls|drag|drags|cane|stick)\b", re.I)
_HELD_BACK: tuple[tuple[re.Pattern, re.Pattern, re.Pattern, str], ...] = (
    # "bound in a cage, a leather gag buckled across her mouth": no speech verb, no quoted words
    (_GAG, re.compile(_SPEAKS.pattern + r"|[\"“]", re.I), _AROUND_GAG, "{who} is gagged: no words get out"),
    # "hogtied in the back of the wagon": no weapon grabbed, drawn or fired
    (_BOUND, _HANDS, _AT_BONDS, "{who} is tied up: no hand is free for that"),
    # "Dutch's Colt clicked empty on his last shot": no shot without a reload or another weapon first
    (_EMPTY, _FIRES, _RELOADS, "{who} has nothing left to shoot"),
    # "Dutch's leg was broken in the fall and is splinted": no running, jumping or kicking on it
    (_LAME, _ON_LEGS, _AROUND_LAME, "{who}'s leg is broken: it will not carry that"),
    # "Eddie is blindfolded in the back of the car": nothing read or watched; listening, counting turns,
    # working at the cloth and a fight (D&D's blinded still swings, at disadvantage) are left
    (_BLIND, _SIGHT, re.compile(_AROUND_BLIND.pattern + "|" + _OTHERS_SEE.pattern, re.I), "{who} cannot see: the eyes are covered"),
)


def _held_back(text: str, scene: str, actor: str | None) -> str | None:
    """Why the actor cannot do this: the scene gags, binds, blinds or empties the gun of the one
    acting (``_HELD_BACK``), and the line does that stopped act without working around it."""
    if not actor or _is_question(text):
        return None
    for state, act, around, why in _HELD_BACK:
        if act.search(text) and not around.search(text) and _said_of(actor, scene, state):
            return why.format(who=first_name(actor))
    return None


# ---- the third fact: what the scene says is gone --------------------------------------------
# "His bow, quiver and all his gear were taken" / "the sheriff took her revolver" / "Pip's lute was
# smashed on the rocks" / "her candle stub fell into the cistern and sank": what the scene names
# there is not at hand, so drawing, lighting or playing it cannot work ("I ask for my bow back" can).
_LIST = r"(?P<items>(?:(?:his|her|their|your|my|the|all|and|of)\s+|[a-z'’]+,?(?:\s+|(?=[.;])|$)){1,8}?)"
_GONE_WORDS = ("taken", "confiscated", "stolen", "seized", "removed", "smashed", "broken", "shattered", "destroyed",
               "crushed", "lost", "ruined", "sunk", "swept away", "washed away", "sent", "shipped", "carried off", "sold",
               "swallowed", "eaten", "gobbled up", "melted down")
_TAKEN_PASSIVE = re.compile(_LIST + r"(?:were|was|have been|has been|had been|got|is|are)\s+(?:all\s+)?(?P<how>" + "|".join(_GONE_WORDS) + r")\b"
                            r"(?!\s+(?:by surprise|aback|ill|prisoner|captive|with|up|out|off|apart|down|open)\b)(?!(?<=taken)\s+in\b)", re.I)
_TAKEN_ACTIVE = re.compile(r"\b(?P<how>took|confiscated|stole|seized|sold|(?:takes|confiscates|steals|seizes|sells)(?=\s+(?:away\s+)?(?:his|her|their|its|your|my)\b))\s+(?:away\s+)?"
                           + _LIST.replace("{1,8}?", "{1,10}?") + r"(?=[.;,]|$|(?:and|but|yet|though|leaving|from|at|in|to|for|when|before|after|off|away|included|yesterday|today)\b)", re.I)
# a thing that fell or went where no one reaches it: "fell into the black cistern and sank out of reach"
_SANK = re.compile(_LIST + r"(?:fell|dropped|slipped|tumbled|went|rolled)\s+(?:\w+\s+){0,5}?(?:and\s+)?(?P<how>sank|sunk|vanished|was lost|were lost|"
                   r"out of reach|overboard|over the side|swept away|washed away)\b", re.I)
_USE = re.compile(r"\b(?:(?:climb|climbs|climbing|get|gets|hop|hops|swing|swings|step|steps|jump|jumps)\s+(?:up\s+)?(?:on|onto|aboard|into|in)|"
                  r"row|rows|rowing|paddle|paddles|sail|sails|launch|launches|draw|draws|drawing|nock|nocks|fire|fires|firing|shoot|shoots|shooting|swing|swings|ready|readies|load|loads|"
                  r"pull out|pulls out|take out|takes out|get out(?! of)|gets out(?! of)|whip out|whips out|use|uses|using|with|"
                  r"light|lights|lighting|play|plays|playing|strum|strums|strumming|on (?:my|his|her|their)|"
                  r"pick up|picks up|picking up|grab|grabs|snatch|snatches|lift|lifts|hold up|holds up|ride|rides|riding|mount|mounts|"
                  r"(?:take|takes|taking)(?=(?:\s+[\w'’]+){1,4}?\s+(?:off|out of|from|down from)\b)|unhook|unhooks|open|opens|opening|read|reads|reading|leaf through|leafs through|page through|pages through|"
                  r"saddle|saddles)\b", re.I)
_NOT_ITEMS = {"his", "her", "their", "your", "my", "the", "all", "and", "of", "gear", "things", "belongings", "everything", "there", "here",
              "possessions", "kit", "equipment", "stuff", "weapons", "a", "an", "you", "he", "she", "they", "we", "it", "i",
              "him", "them", "us", "me", "one", "two", "for", "that", "this", "these", "those", "who", "which", "what",
              "have", "has", "had", "been", "being", "some", "any", "was", "were", "is", "are", "not", "now", "then",
              "just", "also", "already", "both", "most", "last", "night", "day", "everyone", "everybody", "someone", "people",
              "every", "included", "too", "its", "only", "week", "month", "year", "next", "first", "other", "another", "same",
              "more", "many", "much", "few", "little", "hour", "ago", "yesterday", "today", "morning", "evening", "earlier", "later",
              "visitor", "visitors", "guest", "guests", "party", "hand", "hands", "arm", "arms", "head", "face", "foot", "feet",
              "shoulder", "shoulders", "wrist", "wrists", "finger", "fingers", "breath", "time", "place", "turn", "seat", "leave"}
_GONE_SAID = {"took": "taken", "takes": "taken", "confiscated": "taken", "confiscates": "taken", "stole": "taken",
              "steals": "taken", "stolen": "taken", "seized": "taken", "seizes": "taken", "removed": "taken",
              "sank": "lost", "sunk": "lost", "vanished": "lost", "was lost": "lost", "were lost": "lost",
              "out of reach": "lost", "overboard": "lost", "over the side": "lost", "sent": "sent away", "shipped": "sent away",
              "sold": "sold", "sells": "sold", "swallowed": "swallowed", "eaten": "eaten", "gobbled up": "eaten",
              "melted down": "melted down",
              "carried off": "taken"}


def _gone_items(scene: str) -> dict[str, str]:
    """Each thing the scene says is gone (its words, possessives dropped) → how: taken, smashed, lost..."""
    items: dict[str, str] = {}
    for m in (*_TAKEN_PASSIVE.finditer(scene), *_TAKEN_ACTIVE.finditer(scene), *_SANK.finditer(scene)):
        how = m.group("how").lower()
        for word in m.group("items").split():
            word = re.sub(r"['’]s?$", "", word.lower().strip(","))
            if word not in _NOT_ITEMS and len(word) >= 3:
                items.setdefault(word, _GONE_SAID.get(how, how))
    return items


# "only their shirts and breeches are left": every tool, weapon and pouch is gone
_STRIPPED = re.compile(r"\bonly (?:their|his|her|the|my|our) (?:\w+ )?(?:shirts?|clothes|breeches|smallclothes|underclothes|nightshirts?|shifts?|rags)"
                       r"(?: and (?:\w+ )?(?:breeches|trousers|shirts?|boots|shoes|smallclothes))? (?:are|is|were|was|remain|remains) (?:left|theirs)"
                       r"|\bstripped (?:of (?:everything|all (?:their|his|her) (?:gear|belongings|possessions|things))|to (?:their|his|her) (?:shirts?|smallclothes|underclothes))"
                       r"|\b(?:took|taken) everything (?:they|he|she) (?:had|carried|owned)\b", re.I)
# what a prisoner still has about them
_STILL_HAD = re.compile(r"^\W*(?:(?:my|his|her|their|the|a|an)\s+)?(?:\w+\s+)?(?:shirt|shirts|breeches|trousers|boots?|shoes?|hair|hairpin|pin|teeth|hands?|"
                        r"fingers?|fists?|bare|shoelaces?|laces?|buttons?|buckles?|straw|bones?|spoon|stones?|rocks?|chains?|bucket|plank|bed|"
                        r"blanket|cot|bowl|cup|wits|voice)\b", re.I)
# a weapon the act needs without naming it: "nocks an arrow and shoots" needs the bow the guards took
_NEEDS_WEAPON = {
    "bow": re.compile(r"\b(?:nock|nocks|nocking|arrows?|looses?|loosing|draws? back)\b", re.I),
    "crossbow": re.compile(r"\b(?:bolts?|cranks?|winds? the string)\b", re.I),
    "gun": re.compile(r"\b(?:shoot|shoots|shooting|fire|fires|firing|fans? the hammer|draws? and fires|bullets?|rounds?)\b", re.I),
}
_WEAPON_KIND = {"bow": "bow", "longbow": "bow", "shortbow": "bow", "quiver": "bow", "arrows": "bow",
                "crossbow": "crossbow", "revolver": "gun", "pistol": "gun", "gun": "gun", "guns": "gun", "rifle": "gun",
                "colt": "gun", "shotgun": "gun", "derringer": "gun", "winchester": "gun", "carbine": "gun", "sidearm": "gun"}
# any weapon named in the line: then the act uses that one, not the one taken
_ANY_WEAPON = re.compile(r"\b(?:bow|longbow|shortbow|crossbow|sling|revolver|pistol|gun|rifle|colt|shotgun|derringer|winchester|carbine|"
                         r"sidearm|musket|blunderbuss|wand|staff|javelin|dagger|knife|sword|axe|spear|rock|stone|spell|cantrip)s?\b", re.I)


def _taken(text: str, scene: str, actor: str | None = None) -> str | None:
    """The line draws, lights, plays or uses a thing the scene says was taken, broken or lost,
    or shoots in a way only that weapon allows (arrows nocked when the bow the scene says was
    taken from ``actor``, by name, in the same sentence)."""
    if _is_question(text) or re.search(r"\b(?:(?:get|gets|ask|asks|want|wants|demand|demands|buy|buys|win|wins|take|takes)\b[^.!?]{0,30}?\bback|find|finds|search|searches|look for|looks for|recover|retrieve|steal|fish|fishes|dive|dives|mend|mends|repair|repairs|fix|fixes|pieces)\b", text, re.I):
        return None
    items = _gone_items(scene)
    if not items:
        return None
    for use in _USE.finditer(text):
        after = re.findall(r"[a-z]+", text[use.end():].lower())[:4]  # "draws his longbow", "with my revolver"
        hits = [item for word in after for item in items if (word.endswith(item) or f"{word}s" == item) and word not in _NOT_ITEMS]
        if hits:
            hit = hits[-1]  # the noun ends the phrase: "thieves' tools", "tallow candle stub"
            return f"the {hit} {'were' if hit.endswith('s') and not hit.endswith('ss') else 'was'} {items[hit]}"
    if _STRIPPED.search(scene) and (use := _USE.search(text)) and not _STILL_HAD.search(text[use.end():]):
        return "everything but their clothes was taken"
    if actor and not _ANY_WEAPON.search(text):
        owner = re.compile(rf"\b{re.escape(first_name(actor))}\b", re.I)
        for item, how in items.items():
            kind = _WEAPON_KIND.get(item)
            if not kind or not _NEEDS_WEAPON[kind].search(text):
                continue
            # the owner named anywhere in the sentence: "Dutch is locked in a cell; the sheriff took his Colt"
            if any(re.search(rf"\b{item}\b", x, re.I) and owner.search(x) for x in _WHOLE_SENTENCE.findall(scene)):
                return f"the {item} {'were' if item.endswith('s') else 'was'} {how}"
    return None


# ---- the other fact: how far off the target is ------------------------------------------------
# Twice the longest range the rules give each kind of weapon, so no sheet's bonus reaches past it:
# a longbow's long range in D&D 5e is 600 ft; a revolver's is a few hundred; no rifle of the
# Old West, of the 1920s or of a fantasy world hits anything a mile off, let alone further.
SHOT_LIMIT_FT = {"handgun": 600, "bow": 1200, "any": 5280}
_HANDGUN = re.compile(r"\b(?:pistol|revolver|colt|six[- ]?(?:gun|shooter)|derringer|sidearm|handgun)\b|(?<![\w.])\.(?:22|32|38|44|45)\b", re.I)
_BOW = re.compile(r"\b(?:bow|longbow|shortbow|crossbow|sling|arrow|bolt|javelin|throw|throws|hurl|hurls)\b", re.I)
_SHOT = re.compile(r"\b(?:shoot|shoots|shooting|snipe|snipes|fire at|fires at|firing at|take a shot|takes a shot|put one|puts one|"
                   r"plug|plugs|plugging|picks? off|picking off|"
                   r"(?:squeeze|squeezes|squeezing|get|gets|let|lets|loose|looses|snap|snaps|fire|fires|pop|pops) off (?:a |one |two |a few )?(?:shot|shots|round|rounds)|"
                   r"(?:put|puts|sink|sinks|send|sends) (?:a|an) (?:bullet|round|slug|arrow|bolt|shaft)|loose an arrow|looses an arrow)\b", re.I)
_DISTANT = re.compile(_MEASURE + r"(?:away|off|out|distant|downrange|across|downriver|upriver|downstream|upstream|ahead|"
                      r"down the (?:road|river|valley|track|line|coast)|up the (?:road|river|valley|track|line|coast))\b", re.I)


def _out_of_range(text: str, scene: str) -> str | None:
    """A shot the scene puts out of reach: every distance it states is past the weapon's limit
    (the nearest one counts, so "the town is two miles off; the bandit is thirty feet away" is in range)."""
    if not _SHOT.search(text):
        return None
    distances = [_feet(m) for m in _DISTANT.finditer(scene)]
    if not distances:
        return None
    kind = "handgun" if _HANDGUN.search(text) else "bow" if _BOW.search(text) else "any"
    nearest = min(distances)
    if nearest <= SHOT_LIMIT_FT[kind]:
        return None
    weapon = {"handgun": "no handgun", "bow": "no bow or throw", "any": "no shot"}[kind]
    return f"{weapon} reaches {_said(nearest)}"


# ---- acts only magic can do ---------------------------------------------------------------------
# Possible for a wizard, a cleric or a Savage Worlds huckster; impossible for a rogue, a gunslinger
# or a 1920s investigator, whatever they roll. The GM knows from each sheet who has magic.
_SPELLS = ("fireball|magic missile|lightning bolt|cure wounds|healing word|sleep|charm person|hold person|invisibility|fly|"
           "teleport|counterspell|misty step|mage hand|eldritch blast|fire ?bolt|ray of frost|thunderwave|burning hands|"
           "detect magic|identify|polymorph|revivify|raise dead|resurrection|dimension door|wish|banishment|bless|bane|"
           "sanctuary|guidance|prestidigitation|thaumaturgy|suggestion|haste|web|darkness|silence|sacred flame|heal|"
           "speak with dead|scrying|true seeing|shield of faith|hex|hellish rebuke|entangle|faerie fire|moonbeam|"
           "spiritual weapon|scorching ray|shatter|acid splash|chill touch|shocking grasp|vicious mockery|electric arc|"
           "produce flame|daze|harm|bolt|blast|deflection|boost trait|lower trait|mind reading|telekinesis")
MAGIC_ACTS: tuple[tuple[str, str], ...] = (
    ("a spell", rf"\bcast(?:s|ing)? (?:a |an |the |my |his |her |their |one )?(?:\w+ ){{0,2}}(?:spell|spells|cantrip|hex|curse|ritual|incantation)\b"),
    ("a spell", rf"\bcast(?:s|ing)? (?:a |an )?(?:{_SPELLS})\b"),
    # a spell thrown like a stone: "throw a fireball into the middle of their shield wall"
    ("a spell", r"\b(?:throw|throws|hurl|hurls|fling|flings|lob|lobs|launch|launches|shoot|shoots|conjure|conjures|unleash|unleashes)"
                r" (?:a |an |my |his |her |their )?(?:fireballs?|magic missiles?|lightning bolts?|eldritch blasts?|fire ?bolts?|"
                r"rays? of frost|scorching rays?)\b"),
    ("magic", r"\b(?:with|using|use|uses|by) (?:my |his |her |their )?(?:magic|magical powers?|sorcery|witchcraft|psychic powers?|psionics?|mind powers?)\b"),
    ("magic", r"\b(?:my|his|her|their) (?:psychic|psionic|telepathic|magic|magical|arcane|mystic) (?:powers?|gifts?|abilities)\b"),
    # fire or lightning out of bare hands: "hurls a bolt of lightning from his hand", "fire shoots from her fingertips"
    ("magic", r"\b(?:hurl|hurls|throw|throws|shoot|shoots|fire|fires|launch|launches|send|sends|unleash|unleashes|conjure|conjures|summon|summons)"
              r" (?:a |an )?(?:\w+ )?(?:bolt|ball|blast|arc|jet|stream|wave|gout|burst|fork)s? of (?:lightning|fire|flame|flames|frost|ice|force|energy|thunder)\b"),
    ("magic", r"\b(?:lightning|fire|flames?|frost|sparks) (?:\w+ ){0,2}(?:from|out of) (?:my|his|her|their) (?:bare )?(?:hand|hands|fingers|fingertips|palm|palms|eyes)\b(?![-'’])"),
    # weather at one's word: "calls down lightning on the boat", "conjures a gust of wind to turn the fire"
    ("commanding the weather",
     r"\b(?:call|calls|calling|summon|summons|summoning|conjure|conjures|conjuring)\s+(?:up\s+|down\s+)?(?:a\s+|an\s+|the\s+|some\s+)?(?:\w+\s+)?"
     r"(?:lightning|thunder|thunderbolts?|storms?|gales?|gusts?|winds?|rain|fog|mist|hail|tornado|whirlwind|blizzard|earthquake|tidal wave)\b"
     r"|\b(?:command|commands|commanding|order|orders|ordering|bid|bids|will|wills)\s+the\s+(?:wind|winds|storm|rain|sea|waves|river|clouds|lightning|fire|flames)\s+to\b"),
    ("telepathy", r"\btelepathically\b|\b(?:with|using|by) telepathy\b"),
    ("telepathy", r"\bread(?:s|ing)? (?:his|her|their|its|(?:the )?\w+(?:'s|’s)) (?:mind|thoughts)\b"),
    ("telepathy", r"\breach(?:es|ing)? (?:out )?(?:into|to) (?:his|her|their|its|\w+(?:'s|’s)) (?:mind|thoughts)\b"),
    ("telepathy", r"\breach(?:es|ing)? out (?:to \w+ )?with (?:my|his|her|their) mind\b"),
    ("teleporting", r"\bteleport(?:s|ing)? (?:to|into|out|away|across|behind|over|back|us|me|him|her|them|myself|himself|herself)\b"),
    ("turning someone into a beast",
     r"\bturns? (?:him|her|them|it|the \w+|(?:all )?(?:the )?(?:\w+ ){0,2}\w+) into (?:a |an )?(?:frogs?|toads?|newts?|mice|mouse|rats?|pigs?|chickens?|sheep|goats?|stone|statues?)\b"),
    # asking a beast for an answer: only a spell makes it talk back ("asks the rattlesnake which way they rode")
    ("speaking with animals",
     r"\b(?:ask|asks|asking|question|questions|questioning|interrogate|interrogates)\s+(?:the|that|this|a|his|her|my)\s+(?:\w+\s+)?"
     r"(?:horse|mare|mule|dog|hound|cat|crow|raven|owl|snake|rattlesnake|sidewinder|rat|wolf|fox|bird|cow|goat|pig|frog|toad|fish|lizard|spider)"
     r"\s+(?:which|where|what|who|whom|when|why|how|if|whether|about)\b"),
    # a limb cut off, set back on as good as new
    ("making a severed limb whole",
     r"\b(?:stitch|stitches|sew|sews|put|puts|attach|attaches|reattach|reattaches|graft|grafts|splint|splints)\s+(?:the|his|her|their)\s+"
     r"(?:severed\s+|cut-off\s+)?(?:arm|leg|hand|foot|head|finger|fingers)\s+back\s+on\b"),
    # healing by prayer or a laying on of hands: a miracle, for one who works them
    ("a healing miracle",
     r"\b(?:calls?|calling|prays?|praying)\s+(?:on|to|upon)\s+(?:the lord|god|the gods|the saints?|heaven|the almighty|\w+)\s+(?:to|and)\s+"
     r"(?:heal|heals|cure|cures|mend|mends|close|closes|save|saves)\b"
     r"|\b(?:lays?|laying|puts?|places?)\s+(?:her|his|their|my)\s+hands\s+on\b[^.!?]{0,60}?\b(?:heal|heals|healed|cure|cures|cured|mend|mends)\b"
     # "prays the bullet out", "prays the fever away"
     r"|\b(?:pray|prays|praying|will|wills|sing|sings|chant|chants)\s+(?:the|a|that|his|her|their)\s+(?:\w+\s+)?(?:bullet|ball|slug|arrowhead|fever|poison|venom|sickness|"
     r"illness|infection|wound|bleeding|plague|pox|curse)\s+(?:out|away|clean|closed|shut)\b"),
    # a miracle called for by name: "calls down a healing miracle like the preacher does"
    ("a miracle", r"\b(?:call|calls|calling|invoke|invokes|invoking|channel|channels|channelling|channeling|perform|performs|performing)\s+"
                  r"(?:down\s+)?(?:a|an|the|his|her|their|my|one)\s+(?:\w+\s+)?miracles?\b"),
    ("raising the dead",
     r"\b(?:bring|brings|bringing|pray|prays|praying|sing|sings|singing|call|calls|calling|will|wills) (?:him|her|them|it|the \w+|\w+) (?:\w+ ){0,2}back to life\b"
     r"|\b(?:raise|raises|raising) (?:(?:him|her|them|the \w+|\w+) from )?the dead\b|\bresurrect(?:s|ing)? (?:him|her|them|the \w+|\w+)\b"),
)
_MAGIC = tuple((what, re.compile(pattern, re.I)) for what, pattern in MAGIC_ACTS)


def magic_act(line: str) -> str | None:
    """What magic the line works ("a spell", "telepathy"...), or ``None`` when it works none.

        magic_act("I cast fireball into the middle of them")   # "a spell"
        magic_act("I cast my line into the river")               # None
    """
    text = " ".join(line.split())
    for what, pattern in _MAGIC:
        for m in pattern.finditer(text):
            before, after = text[: m.start()], text[m.end():]
            asked = re.match(r"[^.!?]*\?", after)  # "Can you bring dead people back to life?" asks, it does not act
            denied = re.search(r"(?:\bnot|\bnever|n't|\bcannot)\s+(?:\w+\s+){0,2}$", before, re.I)  # "He didn't bring anything back"
            if not asked and not denied:
                return what
    return None


def impossible_without_magic(line: str, actor: str | None, without_magic: list[str] | tuple[str, ...]) -> str | None:
    """Why the act cannot work when ``actor`` is one of those whose sheets give no magic and the
    line works some; ``None`` otherwise (a caster's spell is left to the vote)."""
    if not actor or actor not in without_magic:
        return None
    what = magic_act(line)
    return f"{first_name(actor)} has no magic for {what}" if what else None


# ---- things the scene's year does not have yet -----------------------------------------------
# (pattern, the year it came into ordinary hands, what the GM says). Only things no one mistakes for
# something older: "computer" was a clerk in 1925 and a "plane" is a carpenter's tool or another
# world, so neither is here; nor "helicopter", which players use for a move ("a helicopter
# flourish", CRD3). On 56,135 CRD3 turns with D&D's era the rest fire on 59, all table talk
# (sponsor reads, "Google", "TV", "look in the camera").
INVENTIONS: tuple[tuple[str, int, str], ...] = (
    (r"(?:cell|mobile|smart|car) ?phones?|cellphones?|iphones?|(?:my|his|her|their|your) phone|text(?:s|ed|ing)? (?:him|her|them|me|us)", 1985,
     "there are no mobile phones"),
    (r"laptops?|(?:personal|home|desktop) computers?", 1977, "there are no computers"),
    (r"(?:at|on|into) (?:the |a |his |her |their |my )?(?:\w+ )?computers?|computers? (?:terminal|screen|keyboard|records?|files?|search)|"
     r"databases?", 1951, "there are no computers"),
    (r"internet|e-?mails?|googl(?:e|es|ed|ing)|online|wi-?fi|web ?search", 1993, "there is no internet"),
    (r"social media|facebook|twitter|instagram|tiktok", 2004, "there is no social media"),
    (r"gps|sat-?nav", 1995, "there is no GPS"),
    (r"televisions?|tv", 1939, "there is no television"),
    (r"cctv|security cameras?|camcorders?|video cameras?", 1970, "there are no video cameras"),
    (r"flashlights?|electric torch(?:es)?", 1899, "there are no electric torches"),
    # Edison's street lighting began in 1882; a saloon or a farmhouse switch waited years longer
    (r"electric (?:lights?|lamps?|bulbs?|lighting)|light ?bulbs?|light ?switch(?:es)?|(?:flips?|flicks?|switch(?:es)?|turns?) on the (?:overhead )?lights?|"
     r"(?:flips?|flicks?|hits?) the light ?switch", 1885, "there is no electric light"),
    (r"caller ?id|call(?:er)? display", 1987, "there is no caller ID"),
    (r"answering machines?|voice ?mails?", 1971, "there are no answering machines"),
    (r"fax(?:es|ed)?|fax machines?", 1964, "there are no fax machines"),
    (r"telephones?|phones?", 1877, "there are no telephones"),
    (r"telegrams?|telegraph(?:s|ed|ing)?|wire ahead", 1844, "there is no telegraph"),
    (r"automobiles?|motor ?cars?|(?:tow|pickup|motor) trucks?|lorr(?:y|ies)", 1886, "there are no motor cars"),
    (r"penicillin|antibiotics?", 1942, "there are no antibiotics"),
    (r"photocop\w*|xerox\w*", 1959, "there are no photocopiers"),
    (r"(?:cassette|tape|reel-to-reel|wire) recorders?|cassettes?|(?:audio ?)?tapes? (?:recorders?|recordings?)|walkman", 1935,
     "there are no tape recorders"),
    (r"credit cards?|debit cards?", 1950, "there are no credit cards"),
    (r"tasers?|stun guns?", 1974, "there are no stun guns"),
    (r"luminol", 1937, "there is no luminol"),
    (r"metal detectors?", 1931, "there are no metal detectors"),
    (r"ballpoints?|ballpoint pens?", 1938, "there are no ballpoint pens"),
    # testing it, not naming it ("vials of our DNA", said in jest at a fantasy table)
    (r"dna (?:tests?|testing|match\w*|samples?|analys\w+|profil\w*|evidence|results?|fingerprint\w*)|"
     r"(?:match|matches|matching|test|tests|testing|analy[sz]e|analy[sz]es|compare|compares|sequence|sequences)\s+(?:the\s+|a\s+|his\s+|her\s+|their\s+)?dna|"
     r"genetic (?:tests?|testing|fingerprint\w*|profil\w*|match\w*)", 1986, "there is no DNA testing"),
    (r"x-?rays?", 1895, "there are no X-rays"),
    (r"radar", 1935, "there is no radar"),
    (r"digital cameras?|(?:little |small |tiny )?(?:screen|display|lcd) (?:on|of) (?:the back of )?(?:the |my |his |her |their )?cameras?|"
     # "flip the camera round and check the little screen on the back"
     r"cameras?\b[^.!?]{0,60}\b(?:(?:little|small|tiny|lcd|digital) (?:screen|display)|(?:screen|display) on (?:the|its) back)|"
     r"cameras?(?:'s|’s) (?:little |small )?(?:screen|display)|"
     # looking back at the pictures in the camera itself: film shows nothing until it is developed
     r"(?:shots|photos|photographs|pictures|images|snaps|frames) (?:on|in) (?:the |my |his |her |their )?cameras?(?! bag| case| strap)", 1975,
     "there are no digital cameras"),
    (r"polaroids?|instant (?:colou?r )?(?:cameras?|photos?|photographs?|prints?|snaps?)", 1948, "there are no instant cameras"),
    (r"cameras?", 1839, "there are no cameras"),
)
# Things a fantasy table also names for its magic ("I'll radio back up to the top", a Sending spell
# in CRD3), so only a scene that states its year rules them out, never a pack's era.
DATED_ONLY: tuple[tuple[str, int, str], ...] = (
    (r"walkie-?talkies?|two-way radios?|(?:radio|radios|radioed|radioing) (?:the|them|him|her|ahead|back|for|in|to)|"
     r"(?:on|off|up|at|into|over|by) the radio|the radio (?:set|receiver|and)|radio sets?|wireless sets?", 1915,
     "there is no radio to call on"),
    (r"(?:aero|air|bi)planes?", 1903, "there are no aeroplanes"),  # "it's like an airplane" (CRD3)
    # "we've got night vision" is darkvision at a fantasy table (CRD3, 3 turns)
    (r"night[- ]vision(?: goggles| scopes?)?|thermal (?:goggles|scopes?|cameras?|imaging)", 1960, "there is no night vision"),
)
_INVENTED = tuple((re.compile(rf"\b(?:{pattern})\b", re.I), year, name) for pattern, year, name in INVENTIONS)
_INVENTED_DATED = tuple((re.compile(rf"\b(?:{pattern})\b", re.I), year, name) for pattern, year, name in DATED_ONLY)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
# a year spoken of as already known: remembered, read about, heard of
_KNOWN = re.compile(r"\b(?:remember|remembers|remembering|recall|recalls|recalling|read|reads|reading|heard|hears|knows|knew|learned|learnt|"
                    r"recollects?|memory|memories)\b", re.I)


def impossible_in_era(line: str, scene: str, era_year: int | None = None, era: str = "") -> str | None:
    """Why a thing the line uses does not exist yet: the latest year the scene states, else the
    game's usual era (a pack's ``rules.era``), is before it came about. A question is not an act,
    and a thing the scene itself mentions exists there, whatever the year.

        impossible_in_era("I call a tow truck on my cell phone", "1926, a farm road")  # "there are no mobile phones in 1926"
    """
    text = " ".join(line.split())
    years = [int(y) for y in _YEAR.findall(scene or "")]
    year = max(years) if years else era_year
    if year is None or _is_question(text):
        return None
    for pattern, invented, name in (*_INVENTED, *(_INVENTED_DATED if years else ())):
        if invented > year and pattern.search(text) and not pattern.search(scene or ""):
            return f"{name} in {year if years else era or year}"
    later = [int(y) for y in _YEAR.findall(text) if int(y) > year]
    if later and years and _KNOWN.search(text):
        return f"{min(later)} has not happened yet in {year}"  # "remembers reading about the crash of October 1929" in 1925
    return None


# ---- the fourth fact: writing the scene says went into the fire ------------------------------------
_FIRE = r"(?:stove|fire|furnace|fireplace|flames|hearth|brazier|grate|kiln|boiler|incinerator|forge|pyre|bonfire)"
_BURNED_SCENE = (
    re.compile(r"\b(?:throw|threw|throws|thrown|tossed|tosses|fed|feeds|put|puts|dropped|drops|shoved|shoves|pushed|pushes|flung|flings)"
               r"\s+(?:(?:the|his|her|their|a|an|old|whole|all|every|[a-z]+'s|\d+)\s+){0,3}(?P<item>[a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:into|to|on|onto)\s+(?:the\s+|a\s+)?"
               r"(?:[\w-]+\s+){0,2}" + _FIRE + r"\b", re.I),
    re.compile(r"\b(?P<item>[a-z]+)\s+(?:was|were|has been|had been|have been)\s+(?:burned|burnt|reduced to ashes?)\b", re.I),
    re.compile(r"\b(?:burned|burnt|burns)\s+(?:the|his|her|their)\s+(?:\w+\s+){0,2}?(?P<item>[a-z]+)\b", re.I),
    re.compile(r"\b(?P<item>[a-z]+(?:\s+[a-z'’]+){0,4}?)\s+(?:was|were|had been|has been)\s+(?:[a-z]+\s+){0,6}?(?:and\s+)?(?:burned|burnt)\s+"
               r"(?:up\s+)?(?:in|on|into)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+){0,2}" + _FIRE + r"\b", re.I),
)
_SURVIVED = re.compile(r"\b(?:scraps?|fragments?|corners?|unburned|unburnt|survived|half-burned|partly burned|what'?s left|(?:the|its|their) remains|what remains|charred pages?)\b", re.I)
_READ = re.compile(r"\b(?:read|reads|reading|skim|skims|study|studies|page through|pages through|leaf through|leafs through|"
                   r"flip through|flips through|look through|looks through)\b", re.I)


def _burned(text: str, scene: str) -> str | None:
    """The line reads writing the scene says was burned (a ledger fed to the stove), unless the
    scene or the line speaks of a piece that survived."""
    if not _READ.search(text) or _SURVIVED.search(text) or _SURVIVED.search(scene):
        return None
    for pattern in _BURNED_SCENE:
        for m in pattern.finditer(scene):
            for item in reversed(m.group("item").lower().split()):  # "last letter": the noun is last
                stem = item[:-1] if item.endswith("s") and not item.endswith("ss") else item  # "all his letters" → "the last letter"
                if item not in _NOT_ITEMS and len(item) >= 3 and re.search(rf"\b{re.escape(stem)}s?\b", text, re.I):
                    return f"the {item} {'were' if item.endswith('s') and not item.endswith('ss') else 'was'} burned to ash"
    return None


# ---- the fifth fact: the way across is down -------------------------------------------------------
# "The rope bridge was cut last night", "the ladder burned with the barn", "they cut the ferry
# cable": walking that bridge or climbing that ladder cannot work. Another way over is an act
# for the dice ("I climb down the cut rope", "we rig a new line"), so only the named way counts.
_WAYS = (r"bridge|footbridge|ladder|stairs|staircase|stairway|steps|walkway|catwalk|gangplank|gangway|plank|"
         r"ferry|cable car|lift|elevator|zip ?line")
_WAY_DOWN = (r"cut|severed|snapped|parted|collapsed|fallen|fell|burned|burnt|burned down|destroyed|smashed|broken|washed away|swept away|"
             r"gone|down|blown|blown up|pulled up|drawn up|raised|torn down|in pieces|in ruins")
_WAY_GONE = (
    re.compile(rf"\b(?P<way>{_WAYS})\b(?:\s+(?:to|of|across|over|from|at|on|down|up)\b[^.;,]{{0,40}}?)?\s+"
               rf"(?:was|were|has been|had been|is|are|now|lies|lay|hangs?|hung)\s+(?:now\s+|already\s+|all\s+)?(?:{_WAY_DOWN})\b", re.I),
    # "the toll bridge's cables were cut": what holds it up is down, so it is
    re.compile(rf"\b(?P<way>{_WAYS})(?:'s|’s)\s+(?:\w+\s+)?(?:cables?|ropes?|supports?|span|planks|pilings?|chains?|piers?|timbers)\s+"
               rf"(?:was|were|has been|had been|have been|is|are|now|lies|lie)\s+(?:now\s+|already\s+|all\s+)?(?:{_WAY_DOWN})\b", re.I),
    re.compile(rf"\b(?:cut|severed|burned|burnt|destroyed|smashed|wrecked|blew up|pulled up|drew up|tore down)\s+"
               rf"(?:the|their|its|that|this)\s+(?:\w+\s+)?(?P<way>{_WAYS})\b", re.I),
    re.compile(rf"\b(?P<way>{_WAYS})(?:\s+(?:across|over|to|of|from|at|on|down|up)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?\s+"
               r"(?:collapsed|gave way|fell|broke|snapped|parted|burned|burnt|went down|came down)\b", re.I),
)
_CROSS = (r"(?:walk|walks|walking|cross|crosses|crossing|run|runs|running|go|goes|going|head|heads|hurry|hurries|step|steps|skip|skips|"
          r"trot|trots|jog|jogs|dash|dashes|stroll|strolls|ascend|ascends|descend|descends|scramble|scrambles|"
          r"stride|strides|climb|climbs|climbing|ride|rides|riding|drive|drives|lead|leads|take|takes|use|uses|board|boards)")
_AGAIN = re.compile(r"\b(?:rebuild|rebuilds|repair|repairs|mend|mends|fix|fixes|rig|rigs|tie|ties|lash|lashes|splice|splices|"
                    r"what'?s left|remains|pieces|halves|end of|swing|swings|new)\b", re.I)


def _way_gone(text: str, scene: str) -> str | None:
    """The line crosses or climbs by a bridge, ladder or stair the scene says is cut, burned or down."""
    if _is_question(text) or _AGAIN.search(text):
        return None
    downed = {m.group("way").lower() for pattern in _WAY_GONE for m in pattern.finditer(scene)}
    for way in sorted(downed, key=len, reverse=True):
        if re.search(rf"\b{_CROSS}\b(?:\s+\w+){{0,3}}?\s+(?:the|that|this)\s+(?:\w+\s+)?{re.escape(way)}\b", text, re.I):
            return f"the {way} {'are' if way in ('stairs', 'steps') else 'is'} down"
    return None


# ---- the sixth fact: it already happened ------------------------------------------------------------
# "stops the courier before he rides out" when he "rode out at dawn yesterday"; "argues for the pardon
# before the sentence is carried out" when the boy "was hanged at dawn". Each kind: what the line
# hopes to forestall, and how the scene tells that it is done.
_DONE_WHEN = r"(?:ago|yesterday|at dawn|at daybreak|this morning|last night|last week|earlier|already|since)"
_ALREADY = (
    ("they are already gone", re.compile(r"\b(?:ride|rides|rode|sail|sails|set sail|sets sail|cast|casts) (?:off|out|away)\b|\b(?:leave|leaves|depart|departs|"
                        r"gets? away|get off|gets off|pulls? out|steams? (?:out|off)|drives? off|sets? off|sets? sail|sails|takes? off|escapes?|goes)\b", re.I),
     re.compile(r"\b(?:rode|sailed|cast off|set sail|departed|left|pulled out|steamed (?:out|off)|got away|took off|drove off|set off|slipped away)\b"
                r"[^.;]{0,60}?\b" + _DONE_WHEN + r"\b|\b(?:already|long) (?:left|gone|departed|sailed)\b", re.I)),
    ("the sentence was already carried out", re.compile(r"\b(?:sentence|execution|hanging|noose|(?:hang|hangs|execute|executes|shoot|shoots) (?:him|her|them)|"
                                r"(?:is|are) (?:hanged|hung|executed))\b", re.I),
     re.compile(r"\b(?:was|were|has been|had been|have been)\s+(?:already\s+)?(?:hanged|hung|executed|beheaded|put to death|shot by firing squad)\b"
                r"[^.;]{0,40}?\b" + _DONE_WHEN + r"\b|\b" + _DONE_WHEN + r"\b[^.;]{0,40}?\b(?:hanged|hung|executed|beheaded)\b", re.I)),
    ("it is already wrecked", re.compile(r"\b(?:explodes?|blows?(?: up)?|collapses?|burns? down|sinks?|caves? in|goes? up in flames)\b", re.I),
     re.compile(r"\b(?:exploded|blew up|collapsed|burned down|burnt down|sank|caved in|went up in flames)\b[^.;]{0,60}?\b" + _DONE_WHEN + r"\b"
                r"|\b" + _DONE_WHEN + r"\b[^.;]{0,40}?\b(?:exploded|blew up|collapsed|burned down|burnt down|sank|caved in)\b", re.I)),
)
_BEFORE = re.compile(r"\b(?:before|ere)\s+(?:he|she|they|it|the\s+[\w'’-]+(?:\s+[\w'’-]+)?|[A-Z][\w'’-]+)\s+(?:can\s+|could\s+|gets?\s+to\s+|is\s+|are\s+)?"
                     r"(?P<rest>[^.!?]{0,40})", re.I)


def _already_done(text: str, scene: str) -> str | None:
    """The line acts "before" a ship sails, a man hangs or a boiler blows, and the scene says that is done."""
    if _is_question(text):
        return None
    for before in _BEFORE.finditer(text):
        for what, hoped, done in _ALREADY:
            if hoped.match(before.group("rest")) or hoped.search(before.group(0)[:60]):
                if any(done.search(sentence) for sentence in re.split(r"(?<=[.;!?])\s+", scene)):
                    return what
    return None


# ---- the seventh fact: how long the way underwater is ------------------------------------------------
# D&D's longest held breath is 1 + Con modifier minutes (6 at Con 20); CoC and Savage Worlds allow
# less. A way under water the scene says takes longer, with no air on it, drowns anyone who tries.
BREATH_LIMIT_MIN = 10
_HOLDS_BREATH = re.compile(r"\b(?:hold|holds|holding|fill|fills|filling)\s+(?:my|his|her|their|a|one)\s+(?:breath|lungs)\b"
                           r"|\b(?:take|takes|taking|draw|draws|drawing|gulp|gulps|suck|sucks)\s+(?:in\s+)?(?:a|one|my|his|her|their)\s+(?:\w+\s+)?(?:breath|lungful|gulp of air)\b"
                           r"|\b(?:underwater|under water|beneath the water|below the surface)\b", re.I)
_LONG_UNDER = re.compile(_AMOUNT + r"(?P<unit>minutes?|hours?)[\s-]+(?:\w+\s+){0,2}?"
                         r"(?:swim|crawl|dive|passage|wade|way|tunnel)\b[^.;]{0,60}?\b(?:water|flooded|submerged|underwater)\b", re.I)
# "an hour's swim" through a flooded tunnel: the time said before the way, the water anywhere in the sentence
_SWIM_TIME = re.compile(_AMOUNT + r"(?P<unit>minutes?|hours?)['’]?s?[\s-]+(?:\w+\s+)?(?:swim|crawl|dive|wade)\b", re.I)
_WET = re.compile(r"\b(?:water|flooded|submerged|underwater|sunken)\b", re.I)
# air that will not be breathable for a while: "it will take a good twenty minutes to clear"
_UNTIL_CLEAR = re.compile(r"\b(?:until|till|til|'til|for as long as)\b", re.I)
_FOUL = re.compile(r"\b(?:gas|smoke|fumes|vapou?rs?|spores|miasma|water|flood)\b", re.I)
_CLEAR_TIME = re.compile(r"(?:a good\s+|at least\s+|fully\s+)?" + _AMOUNT.replace("(?P<", "(?P<t_") + r"(?P<t_unit>minutes?|hours?)\s+(?:to|before it|before they|till it|until it)\s+"
                         r"(?:\w+\s+)?(?:clear|clears|drain|drains|thin|thins|lift|lifts|settle|settles|recede|recedes|go down|goes down)\b", re.I)
_NO_AIR = re.compile(r"\bno (?:air|air pockets?|pockets? of air|place to breathe|room to breathe|surface)\b", re.I)
_AIR_BROUGHT = re.compile(r"\b(?:air (?:tank|bladder|hose|pipe)|diving (?:suit|helmet|bell)|reed|breathing|water ?breathing|spell|potion|"
                          r"gills|rebreather)\b", re.I)


def _breath_too_short(text: str, scene: str) -> str | None:
    """Going the whole way on one breath where the scene says the way under water takes longer than
    anyone holds it, with no air on the way."""
    if _is_question(text) or not _HOLDS_BREATH.search(text) or _AIR_BROUGHT.search(text) or not _NO_AIR.search(scene):
        return None
    for m in _LONG_UNDER.finditer(scene):
        minutes = _minutes(m)
        if minutes > BREATH_LIMIT_MIN:
            return f"no one holds their breath for {_said_minutes(minutes)}"
    for sentence in _SENTENCE.findall(scene):
        for m in _SWIM_TIME.finditer(sentence):
            if _WET.search(sentence) and (minutes := _minutes(m)) > BREATH_LIMIT_MIN:
                return f"no one holds their breath for {_said_minutes(minutes)}"
    return None


def _breath_till_clear(text: str, scene: str) -> str | None:
    """Holding a breath "until it clears" where the scene says gas, smoke or water will take longer than anyone holds it."""
    if _is_question(text) or not _HOLDS_BREATH.search(text) or not _UNTIL_CLEAR.search(text) or _AIR_BROUGHT.search(text):
        return None
    for sentence in _WHOLE_SENTENCE.findall(scene):
        if not _FOUL.search(sentence):
            continue
        for m in _CLEAR_TIME.finditer(sentence):
            if (minutes := _minutes(m)) > BREATH_LIMIT_MIN:
                return f"no one holds their breath for {_said_minutes(minutes)}"
    return None


# ---- money the scene says the actor does not have: "Lottie has three dollars and change to her name" ----
_CURRENCY = r"(?:dollars?|bucks|gold(?: pieces| coins| crowns)?|gp|silver(?: pieces| coins)?|sp|pounds|guineas|crowns|marks|coins)"
_HAS_ONLY = re.compile(r"\b(?P<who>[A-Z][a-z]+|you|he|she|they)\s+(?:has|have|had|holds|carries)\s+(?:only\s+|just\s+|barely\s+)?"
                       + _AMOUNT.replace("(?P<", "(?P<t_") + r"(?P<t_unit>" + _CURRENCY + r")\b", re.I)
_PAYS = re.compile(r"\b(?:pay|pays|paying|slap|slaps|put|puts|lay|lays|count|counts|hand|hands|offer|offers|plunk|plunks|toss|tosses|post|posts|"
                   r"buy|buys|bribe|bribes)\b[^.!?]{0,40}?" + _AMOUNT.replace("(?P<", "(?P<u_") + r"(?P<u_unit>" + _CURRENCY + r")\b", re.I)
_MORE_MONEY = re.compile(r"\b(?:borrow|borrows|borrowed|loan|loaned|win|wins|won|owe|owes|promise|promises|pledge|pledges|i\.?o\.?u|later|tomorrow|"
                         r"when (?:i|we|he|she) (?:get|gets))\b", re.I)


def _short_of_money(text: str, scene: str, actor: str | None = None) -> str | None:
    """Paying out far more than the scene says the actor has ("has three dollars" … "slaps five
    hundred dollars on the desk"), when the line gets no more first."""
    if _is_question(text) or _MORE_MONEY.search(text) or not (paid := _PAYS.search(without_quotes(text) or text)):
        return None
    for has in _HAS_ONLY.finditer(scene):
        who = has.group("who")
        if who[0].isupper() and actor and who.lower() != first_name(actor).lower():
            continue
        if _count(has) * 2 < _count(paid) and has.group("t_unit")[:3].lower() == paid.group("u_unit")[:3].lower():
            return f"the scene says {who if who[0].isupper() else 'they'} {has.group(0).split(None, 1)[1]}"
    return None


# ---- a source the scene says is dry: "the well went dry two summers ago" ---------------------------
_WATER_SOURCE = (r"(?:wells?|springs?|cisterns?|creek|creekbed|stream|streambed|brook|river|riverbed|pond|pool|fountain|pump|trough|"
                 r"canteens?|waterskins?|water ?skins?|flasks?|water barrels?|barrels?|tanks?|reservoir|oasis|waterhole|water hole|jug|jugs|bottle)")
_NOT_QUITE = r"(?!half|nearly|almost|mostly|partly|part|near|running|going)"  # "half empty" still holds water
_RUN_DRY = re.compile(r"\b(?:went|gone|go|goes|run|ran|runs|been|is|was|are|were|lies|lay|stands|stood|long|now|bone|dusty)[\s-]+(?:" + _NOT_QUITE + r"\w+\s+)?(?P<dry>dry)\b"
                      r"|\b(?P<dried>dried)\s+(?:up|out)\b|\b(?:is|was|are|were|been|sits|sat|lies|lay|hangs|hung)\s+(?:" + _NOT_QUITE + r"\w+\s+)?(?P<empty>empty)\b"
                      r"|\b(?P<empty2>empty)\s+" + _WATER_SOURCE, re.I)
_VESSEL = re.compile(r"(?:canteen|waterskin|water ?skin|flask|water barrel|barrel|tank|jug|bottle)", re.I)
_DRINK = r"drink|drinks|drinking|sip|sips|gulp|gulps|swig|swigs|quench|quenches"
_DRINKS = re.compile(rf"\b(?:{_DRINK}|pour|pours|splash|splashes)\b", re.I)
_DRY_SOURCE = re.compile(r"\b" + _WATER_SOURCE + r"\b", re.I)
_TAKES_WATER = re.compile(rf"\b(?:{_DRINK}|fill|fills|filling|refill|refills|top up|tops up)\b"
                          r"|\b(?:draw|draws|drawing|haul|hauls|hauling|bring|brings|fetch|fetches|get|gets|pull|pulls|scoop|scoops)\s+(?:up\s+)?"
                          r"(?:some\s+|fresh\s+|the\s+|a\s+(?:bucket|pail|cup)\s+of\s+)?water\b(?![\s-]*(?:hole|skin))"
                          r"|\bwaters?\s+(?:the|my|his|her|our|their)\s+(?:\w+\s+)?(?:horses?|mules?|oxen|camels?|ponies|animals|stock|cattle|team)\b", re.I)
_FOR_WATER = re.compile(r"\b(?:look|looks|looking|search|searches|dig|digs|digging|check|checks|peer|peers|dowse|dowses|hope|hopes|hoping|pray|prays|wish|wishes|"
                        r"wonder|wonders|rain|rains|refill(?:ed)? by|no water|any water|if there'?s)\b", re.I)


def _drawn_from_dry(text: str, scene: str) -> str | None:
    """Water drawn, drunk or filled from a well, spring or flask the scene says is dry or empty."""
    if _is_question(text) or not _TAKES_WATER.search(text) or _FOR_WATER.search(text):
        return None
    clauses = (c for sentence in _SENTENCE.findall(scene) for c in re.split(r",|\b(?:but|while|whereas|yet|though|although)\b|\band\b(?=\s+(?:the|a|an|his|her|their|its|our|my)\b)", sentence))
    for clause in clauses:  # "the creek bed is dry, but a spring bubbles up": the spring is not
        if not (dry := _RUN_DRY.search(clause)):
            continue
        for m in _DRY_SOURCE.finditer(clause):
            noun = m.group(0).lower().rstrip("s")
            if _VESSEL.fullmatch(noun) and not _DRINKS.search(text):
                continue  # an empty canteen is filled at the spring: only a drink from it cannot be had
            if re.search(rf"\b{re.escape(noun)}s?\b", text, re.I):
                return f"the scene says the {noun} is {'empty' if dry.group('empty') or dry.group('empty2') else 'dry'}"
    return None


# ---- the eighth fact: two places far apart -------------------------------------------------------
# "keeps watch on the inn's door and at the same time picks the lock across town": one body, one place
_AT_ONCE = re.compile(r"\b(?:at the same time|simultaneously|at the very same (?:moment|time)|both at once|in two places)\b", re.I)
_APART = re.compile(r"\b(?:across town|on the other side of (?:town|the city|the river)|(?:an?|half an|\w+) (?:hour|hours|day|days)['’]s? (?:walk|ride|march|drive|journey)"
                    r"(?: away)?|miles? (?:away|apart|off)|far side of)\b", re.I)
_HELPERS = re.compile(r"\b(?:while|whilst)\s+(?:\w+\s+)?(?:[A-Z]\w+|he|she|they|the others?|someone|my \w+)\s+\w+s\b|\b(?:someone else|the others|a friend|an accomplice|"
                      r"(?:my|his|her|their) (?:partner|accomplice|friend|familiar))\b", re.I)


_AT_IT = r"while (?:he|she|they|i|we)(?:'s|’s|'re|’re|'m|’m| is| are| am) at it"
# "...and keeps watch at the south gate too", "...and takes notes at the library meeting as well"
_ALSO = re.compile(rf"\b(?:at the same time|simultaneously|as well|too|also|both|{_AT_IT})\b", re.I)
# the two things happen at once: "both begin at midnight", "at the same hour", "all night"
_SAME_TIME = re.compile(r"\b(?:both|at the same (?:hour|time|moment)|all (?:night|evening|day|afternoon|morning)|the whole (?:night|evening|day)|"
                        rf"{_AT_IT}|simultaneously)\b", re.I)
# the scene's two places far apart: "half a mile apart with the whole town between them", "on the far side of the city"
_APART_SCENE = re.compile(r"\b(?:apart|across (?:town|the city)|(?:far|other|opposite) (?:side|end)s? of|opposite ends)\b", re.I)


def _two_places(text: str, scene: str) -> str | None:
    """One character doing two things "at the same time", one of them at a place the line and the
    scene both put far off ("across town"), or one act at each of two places the scene sets far
    apart, the second done "too" or "as well"."""
    if _is_question(text) or _HELPERS.search(text):
        return None
    if _AT_ONCE.search(text) and _APART.search(text) and _APART.search(scene):
        return "no one is in two places at once"
    if not _ALSO.search(text) or not re.search(r"\band\b", text, re.I):
        return None
    first, second = (set(_CONTENT.findall(half.lower())) - _FAR_STOP for half in re.split(r"\band\b", text, maxsplit=1, flags=re.I))
    for sentence in _SENTENCE.findall(scene):
        if not (_APART_SCENE.search(sentence) or _APART.search(sentence)) or not (_SAME_TIME.search(sentence) or _SAME_TIME.search(text)):
            continue  # "two gates half a mile apart" alone: one is checked, then the other
        parts = [set(_CONTENT.findall(p.lower())) - _FAR_STOP for p in re.split(r"\band\b|,", sentence) if p.strip()]
        here = [i for i, words in enumerate(parts) if words & first]
        there = [i for i, words in enumerate(parts) if words & second]
        if any(a != b for a in here for b in there):
            return "no one is in two places at once"
    return None


# ---- the ninth fact: no lock to pick, no rope long enough -------------------------------------------
_NO_LOCK = re.compile(r"\bno (?:[\w-]+,?\s+){0,4}?(?:keyhole|lock)s?\b|\bwithout (?:a |any )?(?:keyhole|lock)\b|\bkeyhole-?less\b", re.I)
_PICKS = re.compile(r"\b(?:pick|picks|picking|work|works|working|jimmy|jimmies|tease|teases)\s+(?:on\s+|at\s+)?(?:the|its|that|this)\s+(?:\w+\s+)?lock\b"
                    r"|\b(?:lock ?picks?|thieves['’]? tools|picklocks?)\b", re.I)


def _no_lock(text: str, scene: str) -> str | None:
    """Picking a lock on a door the scene says has no keyhole or lock (one opened by a word, a lever or magic)."""
    if _is_question(text) or not _PICKS.search(text) or not _NO_LOCK.search(scene):
        return None
    return "there is no lock to pick"


_ROPE_LENGTH = re.compile(_AMOUNT + r"(?P<unit>foot|feet|ft|yard|yards|metre|metres|meter|meters)[\s-]+(?:[\w-]+\s+){0,2}?"
                          r"(?:rope|ropes|coil|line|lariat|lasso|cord|chain)\b", re.I)
_ROPE_ACROSS = re.compile(r"\b(?:throw|throws|throwing|fling|flings|toss|tosses|hurl|hurls|cast|casts|swing|swings|whirl|whirls|lob|lobs|sling|slings)\b"
                          r"[^.!?]{0,80}?\b(?:across|over|to the (?:far|other)|on the (?:far|other)|to snag|to catch|the far side|the other side)\b", re.I)
_ROPE_WORD = re.compile(r"\b(?:rope|line|lariat|lasso|grapnel|grappling hook|cord)\b", re.I)


def _rope_too_short(text: str, scene: str) -> str | None:
    """Throwing a rope across a gap the scene says is wider than the longest rope it says they have."""
    if _is_question(text) or not _ROPE_ACROSS.search(text) or not _ROPE_WORD.search(text):
        return None
    ropes = [_feet(m) for m in _ROPE_LENGTH.finditer(scene)]
    widest = max((_feet(m) for m in _GAP.finditer(scene)), default=0.0)
    if ropes and widest > max(ropes) + REACH_LIMIT_FT:
        return f"a {max(ropes):g}-foot rope does not reach across {_said(widest)}"
    return None
