"""Words that name the kind of act outright, in any game: "shoot the rope", "hold my breath",
"stands his ground", "throws his weight on the sweep".

The nearest example lines hear a line's nouns ("Shoot the rope" sat among rope-climbing lines;
"pulls his collar over his mouth and charges through the fumes" among grabbing and healing
ones). When the line says what kind of act it is in so many words, that names the check: the
pack's checks for that kind (its ``concepts``), the one the vote ranks highest among them.
On *whether* to roll a cue is only a second opinion: it stands in for the needs-dice direction,
which the nearest lines' own share for rolling must still back (``adjudicate``'s ``dice_weight``).

A few cues name a kind of act only where the going is hard: "keeps riding" is an endurance roll
across a desert at noon and nothing on a town street, so it needs a hardship word in the line or
the scene (``HARDSHIP``). One cue names no kind at all, only effort (``EFFORT``): "spends the
afternoon going through the manifests" is a long task for the dice, whichever check the vote finds.
"""
from __future__ import annotations

import re
from typing import Any

from .speech import narrated

__all__ = ["CUES", "CUE_CONCEPTS", "HARDSHIP", "EFFORT", "cued_checks", "names_effort", "names_strength_only"]

_SELF = r"(?:my|his|her|their|your|our)"
_PLACES = (r"(?:river|rivers|stretch|country|land|lands|coast|woods|forest|hills|mountains|road|roads|trail|trails|valley|desert|"
           r"sea|seas|waters?|marsh|marshes|swamp|streets|range|plains|reefs?|channels?)\b")
# a search whose quarry is a trail: "searches the bank for the handcart's ruts", "hunts for hoofprints"
_SEEKS_TRACKS = (r"\b(?:search|searches|searching|hunt|hunts|hunting|look|looks|looking|cast|casts|casting)\b[^.!?]{0,40}?\b(?:for|after)\s+"
                 r"(?:the\s+|any\s+|a\s+|some\s+)?(?:[\w'’-]+\s+){0,2}?(?:tracks|prints|footprints|hoofprints|pawprints|ruts|spoor|drag marks)\b")
CUES: dict[str, str] = {
    # looking for a quarry's traces (finding them, not yet following them): Track where a game
    # reads it so, Spot Hidden in Call of Cthulhu (the pack's ``find_tracks`` concept)
    "find_tracks": _SEEKS_TRACKS,
    "shoot": r"\b(?:shoot|shoots|shooting)\b(?!\s+(?:(?:him|her|them|me|you|us)\s+)?(?:a\s+)?(?:\w+\s+)?(?:look|glance|smile|grin|question|wink))"
             r"|\b(?:fire|fires|firing)\s+(?:at|on|a shot|a round|both barrels)\b|\btakes?\s+a\s+shot\b",
    # a dive into water, not "dives into the cab" or "dives for cover"
    "swim": r"\b(?:swim|swims|swimming)\b|\btreads?\s+water\b|\b(?:dive|dives|diving)\s+(?:in\b(?!to)|after\b|(?:down|under)\s+(?:to|into|and|after)\b|"
            r"(?:under|beneath)\s+the\s+(?:water|surface|waves|ice)\b|(?:in)?to\s+(?:the\s+|a\s+)?(?:[\w-]+\s+)?(?:water|river|lake|sea|pool|pond|"
            r"torrent|current|waves|surf|stream|creek|canal|harbou?r|bay|well|depths|flood|rapids|millrace|cistern|moat)\b)",
    "boat": r"\b(?:steer|steers|steering|pole|poles|poling|row|rows|rowing|paddle|paddles|paddling)\b[^.!?]{0,40}?"
            r"\b(?:boat|raft|punt|skiff|canoe|barge|flatboat|keelboat|dinghy|launch|sweep|tiller|helm|oars?|current|rapids)\b"
            r"|\b(?:on|at|takes?|grabs?|works?)\s+the\s+(?:sweep|tiller|helm|oars)\b|\bthe\s+sweep\b",
    # "I'd wager they've seen less use", "I bet he's lying": a guess said aloud, not a stake
    "gamble": r"(?<!\bi'd )(?<!\bi’d )(?<!\bi'll )(?<!\bwould )\b(?:bet|bets|betting|wager|wagers|gamble|gambles|gambling|ante|antes)\b"
              r"(?!\s+(?:that\s+(?:he|she|they|it|you|we)\b|(?:he|she|they|it|you|we)(?:'s|’s|'re|’re|'ll|'d|'ve|\s+(?:is|are|was|were|will|would|can|could|has|have|had|"
              r"don't|doesn't|didn't|never|knows?|thinks?)\b)))|\bdeal\s+me(?:\s+in)?\b"
              r"|\bplays?\s+(?:him|her|them|cards|poker|faro|dice)\b|\bhand for hand\b|\b(?:push|pushes|put|puts|toss|tosses)\s+(?:in\s+)?(?:my|his|her|their)\s+stake\b|\b(?:a|another|the)\s+(?:hand|round|game)\s+of\s+(?:cards|poker|faro|dice|bones)\b",
    "endure": r"\bthrough\s+(?:the\s+|that\s+|this\s+)?(?:\w+\s+)?(?:fumes|smoke|gas|spores|stench|reek|miasma|vapou?rs?)\b"
              r"|\b(?:fight|fights|fighting|shake|shakes|throw|throws)\s+off\s+(?:the\s+)?(?:\w+\s+)?(?:venom|poison|disease|sickness|fever|toxin|drug|exhaustion|chill)\b"
              r"|\b(?:drain|drains|chug|chugs|down|downs|gulp|gulps|quaff|quaffs)\s+(?:the|a|his|her|my|their)\s+(?:\w+\s+)?(?:horn|tankard|flagon|bottle|mug|pint|stein|jug)\b"
              r"|\b(?:drink|drinks|drinking)\b[^.!?]{0,30}?\b(?:to keep up|keep(?:s|ing)? up with|keep(?:s|ing)? pace|match(?:es|ing)? (?:him|her|them)|under the table)\b"
              r"|\b(?:tankard|cup|pint|round|drink) for (?:tankard|cup|pint|round|drink)\b|\bdrinking (?:contest|match|duel|bout)\b",
    "resolve": rf"\b(?:stand|stands|standing|hold|holds|holding)\s+{_SELF}\s+ground\b"
               r"|\b(?:fight|fights|fighting|resist|resists|resisting|refuse|refuses|shake|shakes)\b[^.!?]{0,24}?"
               r"\b(?:the\s+)?(?:pull|urge|call|song|voice|whispers?|compulsion|fear|terror|dread|panic|charm|spell)\b"
               rf"|\bsteels?\s+(?:my|him|her|them|your|our)sel(?:f|ves)\b|\bsteel(?:s|ing)?\s+{_SELF}\s+(?:mind|nerves?|will|resolve|heart)\b|\bkeeps?\s+{_SELF}\s+(?:nerve|wits|sanity|composure)\b"
               r"|\bnot\s+to\s+(?:turn\s+and\s+)?(?:run|flee|bolt|scream|panic|faint|look\s+away)\b"
               r"|\b(?:won't|will not|refuse to|refuses to|do not|don't)\s+listen\b|\bshuts?\s+(?:it|them|the\s+(?:voice|voices|whispers?))\s+out\b"
               rf"|\b(?:plants?|planting)\s+{_SELF}\s+feet\b[^.!?]{{0,30}}?\b(?:not|n't|never)\s+(?:run|flee|bolt|budge|move)\b",
    # a forced march, a ride through the heat: the games' exhaustion rules (only where the going is hard)
    "march": r"\b(?:push|pushes|pushing|press|presses|pressing|soldier|soldiers|slog|slogs)\s+on\b"
             r"|\b(?:keep|keeps|keeping)\s+(?:on\s+)?(?:riding|walking|marching|trudging|hiking|rowing|going\s+(?:til|till|until)\b)",
    # calling up what one knows: Recall Knowledge, a History or Nature check, Common Knowledge
    "recall": r"\b(?:think|thinks|thinking)\s+back\b|\b(?:try|tries|trying)\s+to\s+(?:remember|recall)\b"
              # "What do I know about fords like this?": the player asks for what the character knows
              r"|\bwhat\s+(?:do|would|might)\s+(?:i|we)\s+(?:know|remember|recall)\s+(?:about|of)\b|\b(?:do|would)\s+(?:i|we)\s+know\s+anything\s+(?:about|of)\b"
              rf"|\b(?:know|knows|worked|works|run|ran|runs|fished|sailed|travelled|traveled|ridden|walked|hunted|trapped)\s+(?:this|these)\s+(?:\w+\s+)?{_PLACES}",
    # keeping one's feet where there is no room for them
    "balance": r"\b(?:walk|walks|walking|cross|crosses|crossing|inch|inches|inching|edge|edges|edging|tiptoe|tiptoes|run|runs|dance|dances|"
               r"scamper|scampers|scurry|scurries|shuffle|shuffles|shimmy|shimmies)"
               r"\s+(?:(?:along|across|over|out\s+(?:on|along)|onto|on|up|down|to)\s+)?(?:the|a|that|this)\s+(?:\w+\s+)?(?:wire|tightrope|high\s?wire|beam|rafters?|ridgepole|ridge|railing|rail|"
               r"ledge|parapet|plank|log|trunk|spar|yardarm|mast|boom|bowsprit|gunwale|rooftop|roof\s?ridge)\b"
               rf"|\bkeeps?\s+{_SELF}\s+(?:balance|footing|feet)\b|\barms\s+(?:out|spread|wide)\s+for\s+balance\b"
               # "scampers along it, arms out, to drop onto the deck": arms held out as one goes
               r"|,\s*(?:(?:his|her|their|my)\s+)?arms\s+(?:out|outstretched|spread|wide)\s*,",
    # looking for traces: a search, whoever's word for it
    "trace": r"\bfor\s+(?:any\s+)?(?:sign|signs|trace|traces|hint)\s+(?:of|that|it|he|she|they|someone|anyone)\b"
             # "searching the reeds for a boat", "search the desk for the key": a search, whatever the place's nouns
             r"|\b(?:search|searches|searching|comb|combs|combing|scour|scours|scouring)\s+(?:through\s+)?(?:the|a|an|this|that|his|her|their|every)\s+"
             r"(?:[\w'-]+\s+){0,3}?for\b",
    # looking hard at something: "I look closely at the stranger's hands", "scans the ridge" ("squints at the
    # sigil" is left out: it mostly opens a question of lore)
    "look": r"\b(?:look|looks|looking|stare|stares|staring|gaze|gazes)\s+(?:closely|carefully|hard|long|intently)\s+(?:at|into|over)\b"
            r"|\b(?:scan|scans|scanning)\s+(?:the|a|an|his|her|their)\b",
    # climbing: "starts up the pier, finding holds in the mossy stone"
    # ("climbs onto a water trough and speaks to the crowd": the climb is only the way to the act)
    "climb": r"\b(?:climb|climbs|climbing|scale|scales|scaling|clamber|clambers|clambering|shin|shins|shinny|shinnies)\s+(?:up|down|over|the|a|onto|to)\b"
             r"(?!\s+(?:(?:up|down|the|a)\s+)*(?:stairs|steps|staircase|stairway|ladder|ramp)\b)"  # a stair is a walk
             # onto furniture is a step up, not a climb ("climbs up on a table and starts preaching"; on CRD3's training
             # lines the DM called no check for getting up on a table, a bed, a cart or a platform)
             r"(?!\s+(?:up\s+)?(?:on|onto|on\s+top\s+of|up\s+on)?\s*(?:the|a|an|that|this|his|her|my|their|its)\s+(?:[\w'-]+\s+){0,2}?"
             r"(?:table|tables|bar|counter|chair|stool|bench|pew|pews|altar|desk|bed|crate|crates|barrel|barrels|cask|box|chest|trunk|cart|wagon|"
             r"stage|platform|dais|podium|pulpit|stump|log|bale|sofa|couch|step|steps)(?![\w'-]))"  # "the chest-high wall" is a wall
             r"(?![^.;!?]*?\b(?:and|to)\s+(?:\w+\s+){0,2}?(?:speak|speaks|talk|talks|preach|preaches|appeal|appeals|address|addresses|raise|raises|"
             r"work|works|patch|patches|fix|fixes|mend|mends|repair|repairs|jump|jumps|leap|leaps|shout|shouts|call|calls|remind|reminds|"
             r"plead|pleads|beg|begs|implore|implores|urge|urges|argue|argues|"
             r"tell|tells|wave|waves)\b)"
             r"|\b(?:finding|finds|find|feeling for)\s+(?:hand|foot)?holds\b|\bstarts?\s+up\s+the\s+(?:wall|pier|cliff|tower|rope|tree|face|rock|chimney|drainpipe)\b",
    # moving unseen: "keeping low and out of the light", "creeps up without a sound"
    # ("sneaks up and lifts the hat" names the lifting as its act: the approach is only the way there)
    "sneak": r"\b(?:sneak|sneaks|sneaking|creep|creeps|creeping|steal|steals|stealing)\s+(?:up|past|in|into|out|along|through|toward|towards|closer|around|round|after|behind|across|over|down)\b(?!\s+and\b)"
             r"|\b(?:keep|keeps|keeping|stay|stays|staying)\s+(?:to the shadows|in the shadows|out of (?:the )?(?:light|sight|view|lamplight|firelight|moonlight))\b"
             # low, on the move: "keeps low along the hedge"; not "keeps low and talks the mule calm" on a pitching deck
             r"|\b(?:keep|keeps|keeping|stay|stays|staying)\s+(?:low|down)\b(?=[^.;!?]*\b(?:creep|creeps|crawl|crawls|move|moves|moving|edge|edges|"
             r"slip|slips|work|works|making|makes|make|toward|towards|past|through|along|across|around|behind|closer|approach|approaches|"
             r"follow|follows|circle|circles|tail|tails|dart|darts|scuttle|scuttles|cross|crosses|head|heads|shadows?|out of (?:the )?(?:light|sight|view)|"
             r"unseen|unnoticed|quiet|quietly|silent|silently)\b)"
             r"|\bwithout\s+(?:being\s+(?:seen|heard|noticed|spotted)|a\s+sound|making\s+a\s+sound)\b"
             r"|\bwithout\s+(?:the|a|any|anyone|anybody|him|her|them)\s+(?:\w+\s+)?(?:noticing|seeing|hearing|spotting)\b"
             r"|\bfrom\s+(crate|cover|shadow|tree|barrel|bush|doorway|pillar)\s+to\s+\1\b",
    # a hand's quiet work: "lifts the key ring off his belt", "palms the token" (over any sneaking around it)
    "palm": r"\b(?:lift|lifts|lifting|palm|palms|palming|pocket|pockets|pocketing|swipe|swipes|pinch|pinches|filch|filches|slip|slips|slipping)\s+"
            r"(?:the|a|an|his|her|their|that|token|key)\b(?:\s+[\w'-]+){0,3}?\s+(?:right\s+)?(?:off|from|out of)\s+"
            r"(?:his|her|their|its|the\s+\w+(?:'s|’s)|the\s+(?:tray|table|counter|desk|plate|purse|pocket|belt))\b"
            r"|\b(?:pick|picks|picking)\s+(?:his|her|their|the \w+'s)\s+pocket\b"
            r"|\b(?:swap|swaps|swapping|switch|switches|switching)\s+(?:out\s+)?(?:his|her|their|the|its)\b[^.!?]{0,40}?\b(?:for|with)\s+(?:my|his|her|their|a|an|the)\b",
    # following a quarry's traces: "follow the blood and the churned snow", "tracks the deer"
    "track": r"\b(?:follow|follows|following|trail|trails|trailing)\s+(?:the\s+|its\s+|his\s+|her\s+|their\s+)?(?:[\w'’-]+\s+){0,2}?"
             r"(?:tracks|track|trail|prints|footprints|hoofprints|pawprints|ruts|spoor|blood|bloodstains|drag marks|droppings|sign)\b"
             r"|\b(?:track|tracks|tracking)\s+(?:it|him|her|them|the)\b"
             r"|\b(?:for|find|finds|see|sees)\s+(?:where|which way)\s+(?:the\s+|a\s+)?(?:\w+\s+){0,5}?(?:went|headed|ran|fled|rode|gone|led)\b"
             # living off the land: "scouts the washes for any sign of water" is wilderness lore, not a search
             r"|\b(?:scout|scouts|scouting|search|searches|searching|look|looks|looking|hunt|hunts|hunting|forage|forages|foraging|find|finds)\s+"
             r"(?:[\w'’-]+\s+){0,4}?for\s+(?:any\s+)?(?:sign\s+of\s+)?(?:water|a spring|springs|forage|edible \w+|game|shelter|firewood)\b",
    # brute strength: "braces her boots and heaves with all her strength", "puts his shoulder to the jammed gate"
    "force": rf"\bwith\s+all\s+{_SELF}\s+(?:might|strength|weight|brawn)\b|\b(?:puts?|putting|throws?|throwing)\s+{_SELF}\s+(?:whole\s+)?(?:weight|shoulder|back)\s+"
             r"(?:into|against|behind|to)\b|\b(?:heave|heaves|heaving|strain|strains|straining)\s+(?:at|on|against)\s+(?:the|a|that)\b",
    # begging a crowd or a captor: "pleads with the crowd to let the law try the boy"
    "persuade": r"\b(?:plead|pleads|pleading|implore|implores|imploring|beseech|beseeches|entreat|entreats)\s+(?:with\s+)?(?:the|him|her|them|his|their|that)\b"
                r"|\b(?:beg|begs|begging)\s+(?:the|him|her|them)\s+(?:\w+\s+)?(?:to|for|not)\b",
    # riding hard: "spurs his horse along the rim", "at a dead gallop"
    # taking hold of someone or what they hold: "twists the revolver out of the deacon's hand", "tackles him"
    "grapple": r"\b(?:wrest|wrests|wresting|wrench|wrenches|wrenching|twist|twists|twisting|pry|prys|pries|prying|tear|tears|tearing|"
               r"yank|yanks|yanking|snatch|snatches|snatching|grab|grabs|grabbing|rip|rips|ripping)\s+(?:the|his|her|their|its)\s+(?:[\w-]+\s+){0,2}?"
               r"(?:out\s+of|from|away\s+from)\s+(?:his|her|their|its|the\s+[\w-]+(?:'s|’s))\s+(?:\w+\s+)?(?:hand|hands|grip|grasp|fingers|fist|claws|hold)\b"
               r"|\b(?:disarm|disarms|disarming)\s+(?:him|her|them)\b"  # not "disarms the spring needle": a trap is the hand's work
               r"|\b(?:grapple|grapples|grappling|wrestle|wrestles|wrestling|tackle|tackles|tackling)\s+(?:him|her|them|it|the)\b"
               r"|\b(?:pin|pins|pinning)\s+(?:him|her|them|it|the\s+\w+)\s+(?:down|to\s+the)\b",
    "ride": r"\b(?:spur|spurs|spurring|whip|whips|whipping|kick|kicks|kicking)\s+(?:my|his|her|their|the)\s+(?:\w+\s+)?(?:horse|mount|mare|pony|stallion|gelding|mule|steed|camel)\b"
            r"|\bat\s+a\s+(?:full|hard|dead|flat|breakneck)\s+gallop\b|\bgallops?\s+(?:hard|flat out|after|to cut|to head)\b|\brides?\s+hard\b",
    # judging whether someone is honest: "trying to figure out whether the story holds water"
    "read_people": r"\b(?:whether|if)\s+(?:he|she|they|the|his|her|their|this|that)\b(?:\s+\w+){0,2}?\s+(?:is|are|was|were|'s)?\s*"
                   r"(?:lying|telling the truth|holds water|hold water|adds up|add up|on the level|hiding something|being straight|being honest|"
                   r"afraid|scared|frightened|nervous|bluffing|sincere|serious)\b"
                   r"|\b(?:size|sizes|sizing)\s+(?:him|her|them)\s+up\b|\b(?:read|reads|reading)\s+(?:his|her|their)\s+(?:face|eyes|expression)\b"
                   r"|\b(?:study|studies|studying|watch|watches|watching|search|searches|searching)\s+(?:his|her|their|the\s+[\w-]+(?:'s|’s))\s+(?:face|eyes|expression)\b",
}
# cues that stand for several shared kinds of act (the rest stand for the kind they are named after)
CUE_CONCEPTS: dict[str, tuple[str, ...]] = {
    "march": ("endure",),
    "recall": ("history", "nature", "religion", "arcane"),
    "trace": ("search", "look"),
}
# a concept a pack may leave out, and the one that stands for it then
CONCEPT_FALLBACK: dict[str, str] = {"find_tracks": "track"}
# cues that name their kind only where the going is hard, by the line's or the scene's words
HARDSHIP = re.compile(r"\b(?:heat|hot|sun|sunstroke|noon|desert|dust|drought|thirst|thirsty|no water|water(?:skins?)? (?:is|are|ran|run) (?:out|dry|low)|"
                      r"cold|freezing|frozen|snow|snowdrift|blizzard|ice|icy|sleet|gale|storm|rain|mud|swamp|exhausted|exhaustion|"
                      r"weary|tired|aching|wounded|fever|hungry|starving|forced march|miles|all day|all night|sundown|nightfall|"
                      r"jaw set|grits?\s+(?:his|her|their|my)\s+teeth)\b", re.I)
_HARD_GOING = {"march"}
# cues whose words are the act even when said aloud: a bet called at the table
_SAID_ACTS = {"gamble"}
# a long task, whatever its kind: the dice, if the vote gives rolling a fair share
EFFORT = re.compile(r"\b(?:spend|spends|spending)\s+(?:the|all|an|a|his|her|their|my|our)\s+(?:whole\s+|entire\s+|next\s+)?"
                    r"(?:afternoon|morning|evening|day|night|hour|hours|week)\b[^.!?]{0,40}?\b\w{2,}ing\b", re.I)
_CUES = tuple((concept, re.compile(pattern, re.I)) for concept, pattern in CUES.items())
_CUES_BY_NAME = dict(_CUES)


def cued_checks(line: str, pack: Any, scene: str = "") -> list[str]:
    """The pack's checks for every kind of act the line names outright, outside anything said
    (a bet is an act said aloud too; ``[]`` when it names none, or the pack has no checks for it). ``scene``: where it is said,
    for the cues that hold only where the going is hard."""
    concepts = getattr(pack, "concepts", {}) or {}
    act = narrated(line)
    found: list[str] = []
    for cue, pattern in _CUES:
        words = line if cue in _SAID_ACTS else act  # "Deal me in." said aloud joins the game
        if not pattern.search(words) or (cue in _HARD_GOING and not (HARDSHIP.search(act) or HARDSHIP.search(scene))):
            continue
        if cue == "trace" and re.search(_SEEKS_TRACKS, act, re.I):
            continue  # "searches the bank for the handcart's ruts" follows a trail
        if cue == "sneak" and _CUES_BY_NAME["palm"].search(act):
            continue  # lifting a key "without him noticing" is the hand's work, not the feet's
        for concept in CUE_CONCEPTS.get(cue, (cue,)):
            found += concepts.get(concept) or concepts.get(CONCEPT_FALLBACK.get(concept, concept), [])
    return list(dict.fromkeys(found))


def names_effort(line: str) -> bool:
    """Whether the line, outside anything said, sets out on a long task ("spends the afternoon
    going through the ledgers")."""
    return bool(EFFORT.search(narrated(line)))


def names_strength_only(line: str) -> bool:
    """Whether brute strength is the only kind of act the line names ("puts his shoulder to the
    vault door and heaves"). Impossible acts are mostly feats of strength, so that cue tells which
    check, never that the act can work; a swim or a climb named beside it still can."""
    act = narrated(line)
    return bool(_CUES_BY_NAME["force"].search(act)) and not any(p.search(act) for cue, p in _CUES if cue != "force")
