"""What a scene says no longer stands, and a line that acts on it anyway.

A writer states a fact in the scene and a player acts as if it were not so:

    scene: "The rope bridge across the gorge snapped an hour ago."   line: "I walk across the rope bridge."
    scene: "Both of her lifeboats were smashed to kindling."          line: "Margaret starts lowering a lifeboat."
    scene: "The defenders filled the well with rubble."              line: "Keth draws water from the well."
    scene: "The cell has no window."                                 line: "I climb out through the window."

No roll makes those work. Earlier rules (``impossible_acts``) each knew one such fact in one
wording (a bridge that is down, a ledger that was burned, gear that was taken) and each blind
set of cases worded its facts past them. This reader is general instead: any thing that is the
subject of a ruin verb ("snapped", "collapsed", "was smashed", "is gone"), the object of one
("sold its only elephant", "filled it with stones"), or named after "no"/"without", is marked;
a line that names that thing with an article, as the thing it acts on, is refused. It stays out
of the way of acts that fit a ruined thing: looking at it, searching or clearing the wreck,
mending it, going through or past it, anything about its remains, and questions.

Nouns are matched by lemma (``lemminflect``: "lifeboats" is "lifeboat") and by compound
("boat" names the "rowboat"), so the line need not repeat the scene's word exactly.
"""
from __future__ import annotations

import re
from functools import lru_cache

from lemminflect import getAllLemmas, getInflection, getLemma

__all__ = ["gone_things", "acts_on_gone", "is_question"]


def is_question(text: str) -> bool:
    """The line ends in a question mark (inside a closing quote too): asking is not doing."""
    return text.rstrip("\"'”’ ").endswith("?")


# ---- the scene side: which things no longer stand, and how --------------------------------------------
# Verbs whose subject (intransitive or passive) or object (active) is ruined, lost or dead. Each is
# inflected with lemminflect, so "snaps", "snapped" and "snapping" all count.
_RUIN_LEMMAS = ("destroy smash shatter wreck splinter snap sever collapse demolish raze scuttle dismantle melt "
                "sink sell steal confiscate pawn kill drown dissolve crumble topple die").split()
# Forms that only ruin with their particle or phrase ("burned down", not "the candle burns").
_RUIN_PHRASES = (r"burn(?:s|ed|t)? (?:down|up|out|away|to (?:the ground|ash(?:es)?|cinders|a crisp))|"
                 r"(?:was|were|been|is|are) (?:burned|burnt)|(?:burned|burnt) (?:up )?(?:in|on|into) (?:the |a )?(?:[\w-]+ ){0,2}"
                 r"(?:stove|fire|furnace|fireplace|flames|hearth|brazier|grate|kiln|boiler|incinerator|pyre|bonfire)|"
                 r"cave[sd]? in|caved-in|fell in|gave way|give way|gives way|"
                 # "the piano was gutted last winter": its insides are gone (a fish "gutted and cleaned" is still a fish)
                 r"(?:was|were|been) gutted(?=\s*(?:[:;,.]|by (?:fire|flames|looters|thieves)|last|years|long ago|in the))|"
                 r"(?:blown|blew|blow|blows) (?:up|apart|to (?:bits|pieces))|"
                 r"(?:torn|tore|tear|tears|pulled|pull|pulls) down|"
                 r"(?:filled|fill|fills)(?= (?:[\w'’]+ ){0,3}?(?:in\b|(?:to the (?:brim|top) )?with (?:stones|rubble|rocks|earth|sand|dirt|gravel|concrete|cement|mortar|debris)))|"
                 r"(?:bricked|walled) up|put (?:(?:him|her|it|them) )?(?:down(?!\s+(?:for|in|on|onto|at|by|beside|next|gently|softly|carefully|to|as)\b)|out of (?:its|his|her|their) misery)|"
                 r"(?:went|go|goes|fell|falls) (?:overboard|over the side)|(?:washed|swept|carried) away|"
                 r"reduced to (?:ash(?:es)?|rubble|splinters|kindling|cinders)|"
                 r"(?:lies|lay|lie|stands|stood|is|was|are|were|left) in (?:ruins|pieces)|"
                 r"(?:to|into) (?:pieces|splinters|kindling|matchwood|ash(?:es)?|rubble|smithereens)|"
                 r"no longer (?:stands|exists|works|runs|there)|(?:went|left|rode off|sailed|is|are|was|were) (?:away )?with (?:him|her|them)|"
                 r"(?:is|was|are|were|now|long|already|lies|lay|lie|lying) (?:gone|missing|dead|destroyed|wrecked|ruined|sunk|collapsed)|"
                 r"(?:lies|lay|lie|lying|rests|rested|sits) (?:on|at) the (?:bottom of the (?:river|lake|sea|ocean|harbou?r|pond|canal|bay)"
                 r"(?: (?:bottom|bed|floor))?|(?:river|lake|sea|ocean|harbou?r|pond|canal|bay) (?:bottom|bed|floor))\b")


@lru_cache(maxsize=1)
def _ruin_pattern() -> re.Pattern:
    # past forms only: "the merchant sells lanterns" and "the ship is sinking" ruin nothing yet
    forms = {form for lemma in _RUIN_LEMMAS for tag in ("VBD", "VBN") for form in getInflection(lemma, tag=tag)}
    words = "|".join(sorted(forms, key=len, reverse=True))
    return re.compile(rf"\b(?:{_RUIN_PHRASES}|{words})\b", re.I)


_AUX = r"(?:was|were|is|are|been|being|be|has|have|had|got|get|gets|now|all|already|long|just|finally|both|since|then|once)"
_DETERMINERS = {"the", "a", "an", "his", "her", "their", "its", "my", "our", "your", "this", "that", "these", "those", "every",
                "each", "both", "all", "some", "any", "only", "whole", "entire", "one", "two", "three", "no", "either"}
_FUNCTION = {"and", "or", "but", "nor", "of", "in", "on", "at", "to", "from", "by", "with", "for", "into", "onto", "across", "over",
             "under", "through", "around", "near", "beside", "behind", "between", "along", "past", "up", "down", "off", "out",
             "above", "below", "beneath", "against", "toward", "towards", "upon", "within", "without", "inside", "outside",
             "when", "after", "before", "since", "while", "as", "where", "because", "until", "though", "although", "so", "than",
             "who", "which", "that", "whose", "whom", "there", "here", "it", "they", "he", "she", "we", "you", "i", "them", "him",
             "is", "are", "was", "were", "be", "been", "has", "have", "had", "not", "now", "then", "just", "yet", "still",
             "ago", "back", "last", "yesterday", "today", "tonight", "morning", "night", "hour", "hours", "day", "days", "week", "weeks",
             "month", "months", "year", "years", "minute", "minutes", "moment", "earlier", "once", "long", "even"}
_BOUNDARY = _FUNCTION | _DETERMINERS  # where a noun phrase's run of words ends
_QUANTIFIED = re.compile(r"\b(?:both|all|each|one|two|three|some|most|none|any|either|neither|the rest) of\b", re.I)
_PREPOSITIONS = {"of", "in", "on", "at", "to", "from", "by", "with", "for", "into", "onto", "across", "over", "under", "through",
                 "around", "near", "beside", "behind", "between", "along", "past", "above", "below", "beneath", "against",
                 "toward", "towards", "upon", "within", "inside", "outside", "during", "after", "before", "since", "like"}
# "windowless", "roofless", "moonless": the thing before -less is not there. Stems here (and in
# _ABSTRACT below: "restless", "timeless") name no thing the scene lacks ("a spotless floor" has a spot to stand on).
_LACKING = re.compile(r"\b([a-z]{3,})less\b", re.I)
_LESS_NOT_LACKING = {"care", "spot", "count", "reck", "tire", "relent", "ruth", "thought", "price", "name", "age",
                     "bound", "bottom", "head", "heart", "spine", "wire", "seam", "breath", "speech", "expression",
                     "noise", "colour", "color", "taste", "effort", "track", "path", "fault", "flaw", "blame",
                     "guilt", "shape", "form", "weight", "self", "god", "friend", "home", "land", "penni", "pity", "clue", "power"}
# "no" before these names no thing: "no one", "no longer", "no sign of", "no way across"
_ABSTRACT = {"one", "longer", "more", "matter", "doubt", "idea", "time", "choice", "way", "sign", "signs", "trace", "traces",
             "reason", "answer", "reply", "response", "need", "hope", "chance", "sense", "sound", "word", "words", "mercy",
             "patience", "interest", "intention", "memory", "other", "less", "further", "mistake", "telling",
             "question", "help", "use", "point", "harm", "sleep", "rest", "end", "luck", "love", "fear", "shame",
             "attention", "notice", "mind", "wind", "breeze", "movement", "motion", "life", "light", "sight", "trouble",
             "thing", "things", "bit", "lot", "part", "kind", "sort", "stuff", "fact", "plan", "deal", "system", "systems",
             "like", "anything", "something", "nothing", "everything", "shit", "problem", "worries", "ones"}
_MODAL = re.compile(r"\s*(?:can|could|will|would|may|might|should|must|dares?|is able|was able)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _only_verb(word: str) -> bool:
    """lemminflect knows the word, but not as a noun: "poisoned", "hanging", "otherwise" (so it is no noun's head)."""
    lemmas = getAllLemmas(word.lower())
    return bool(lemmas) and "NOUN" not in lemmas


def _inflected_verb(word: str) -> bool:
    """An inflected verb form ("fell", "needs", "went"): where a noun phrase ends in a clause."""
    word = word.lower()
    lemmas = getAllLemmas(word)
    plural = any(noun != word for noun in lemmas.get("NOUN", ()))  # "boats", "paddles" are nouns first
    return any(verb != word for verb in lemmas.get("VERB", ())) and not plural


def _is_thing(head: str | None) -> bool:
    """A phrase's head that can name a thing: a noun, not an abstract word ("no doubt") or a verb ("locked")."""
    return bool(head) and head not in _ABSTRACT and not _only_verb(head) and not _inflected_verb(head)


def _head(words: list[str]) -> str | None:
    """The head of a noun phrase read left to right: its last word before a verb or a name.

    A name is no head here: a character named in the scene is not a thing that was ruined."""
    head = None
    for i, word in enumerate(words):
        bare = word.lower().strip("'’")
        if word.endswith(("'s", "’s", "s'", "s’")):  # "the asylum's grand staircase": the possessor is no head
            head = None
            continue
        if bare in _FUNCTION or bare in _DETERMINERS or (head and (_only_verb(bare) or _inflected_verb(bare) or word[0].isupper())):
            break
        if word[0].isupper() and i > 0:  # "the page Hosea needs": a name starts a clause
            break
        head = None if word[0].isupper() else bare
    return head


def _phrases(span: str) -> list[str]:
    """Heads of the noun phrases in a span that are not inside a prepositional phrase."""
    span = _QUANTIFIED.sub(" ", span)
    words = _WORD.findall(span)
    heads, i = [], 0
    while i < len(words):
        low = words[i].lower()
        if low in _PREPOSITIONS:  # "across the gorge", "in the night": skip the preposition's noun phrase
            i += 1
            while i < len(words) and words[i].lower() in _DETERMINERS:
                i += 1
            while i < len(words) and words[i].lower() not in _BOUNDARY:
                i += 1
            continue
        if low in _FUNCTION or (low in _DETERMINERS and low != "no"):
            i += 1
            continue
        run = []
        while i < len(words) and words[i].lower() not in _BOUNDARY:
            run.append(words[i])
            i += 1
            if len(run) > 1 and (_inflected_verb(run[-1]) or run[-1][0].isupper()):  # "candle stub fell": a verb ends it
                i -= 1
                run.pop()
                break
        if not run:  # a lone verb or name between phrases
            i += 1
            continue
        head = _head(run)
        if _is_thing(head):
            heads.append(head)
    return heads


def _object(after: str) -> list[str]:
    """The noun phrase(s) an active ruin verb takes: "sold its only elephant in Tulsa" → elephant."""
    words = _WORD.findall(after)[:8]
    heads, run = [], []
    for word in words + ["."]:
        low = word.lower()
        if low in ("and", ".") or low in _PREPOSITIONS or low in _FUNCTION:
            head = _head(run)
            if _is_thing(head):  # not "...and locked it"
                heads.append(head)
            run = []
            if low != "and":
                break
            continue
        if low in _DETERMINERS:
            continue
        run.append(word)
    return heads


_SENTENCES = re.compile(r"[^.;!?]+")
_CLAUSE_START = re.compile(r".*(?:[,:—–]|\b(?:when|after|because|while|where|until|since|though|although|but|so|as|which|who|whose|that))\s+", re.I)
# a ruin word used as an adjective, before its noun: "a drowned sailor", "the stolen lot"
_ATTRIBUTIVE = re.compile(r"\s+(?!(?:an?|the|his|her|their|its|my|our|your|this|that|it|them|to|into|in|on|at|by|of|under|over|off|out|up|down|away|"
                          r"and|or|but|when|after|before|while|as|since|last|yesterday|years?|months?|weeks?|days?|hours?|ago|long|"
                          r"with|from|during|through|overnight|now|too|beyond|under|so|then|because|where|completely|entirely|"
                          r"utterly|apart|together|again|once|twice|\w+ly)\b)[a-z]", re.I)
_PARTIAL = re.compile(r"^\s+(?:up )?to (?:its|his|her|their|the) (?!bottom|floor|depths|seabed|riverbed)", re.I)  # "sunk to its axles" is stuck, not lost
# "took" ruins only what it takes from someone: "took all their gear", "took Brisa's dagger" (not "took the road")
_TOOK = re.compile(r"\b(?:took|confiscated|seized|impounded|pocketed)(?:\s+away)?(?=\s+(?:all\s+|every\s+)?(?:his|her|their|your|my|our|its|[A-Z][a-z]+'s)\b)", re.I)
# left somewhere else: "left her rifle back at the livery", "his revolver is still back at the hotel"
# beasts that ran off: gone from under the rider, though they may yet be followed, called or caught
_BEASTS = r"(horses?|mules?|mounts?|ponies|pony|camels?|oxen|donkeys?|mares?|geldings?|stallions?|steeds?"
_BOLTED = re.compile(r"\b" + _BEASTS + r")\s+(?:\w+\s+){0,2}?"
                     r"(?:bolted|ran off|ran away|fled|stampeded|scattered|broke loose|broke free)\b", re.I)
_DRIVEN_OFF = re.compile(r"\b(?:ran|run|drove|driven|rustled|stole|stolen|took|taken|led|spirited|made)\s+off\s+(?:with\s+)?(?:every|all|all of|the|their|his|her|our)\s+"
                         r"(?:\w+\s+)?" + _BEASTS + r"|cattle|herd)\b", re.I)
_AFTER_BOLTED = re.compile(r"\b(?:follow|follows|track|tracks|trail|trails|chase|chases|catch|catches|round up|rounds up|go after|goes after|"
                           r"whistle|whistles|call|calls|lure|lures|coax|coaxes|wait|waits)\b", re.I)
_BEAST = re.compile(_BEASTS + r")", re.I)  # one word for a beast: "horse", "mules"
# riding off on the mount the line does not name: "swings up into the saddle and gallops after them"
_RIDES_OFF = re.compile(r"\b(?:swing|swings|swung|climb|climbs|vault|vaults|leap|leaps|jump|jumps|hop|hops)\s+(?:up\s+)?(?:into|onto|in)\s+"
                        r"(?:the|his|her|their|my)\s+saddle\b|\bmounts?\s+up\b|\b(?:gallop|gallops|galloping)\b", re.I)
_OTHER_MOUNT = re.compile(r"\b(?:another|fresh|spare|borrowed|borrows?|steals?|stolen|buys?|hires?|(?:takes?|grabs?|catches?|picks?) (?:a|one|the \w+'s)|stage|stagecoach|wagon|buggy|train|on foot|"
                          r"(?:his|her|their|my)\s+(?:\w+\s+)?(?:horse|mule|mount|mare|pony)\s+(?:is|was)\s+(?:fine|unhurt|safe))\b", re.I)
_AWAY = re.compile(r"\b(?:behind|back (?:at|in|on|home)|at home|miles (?:away|back))\b", re.I)
_LEFT = re.compile(r"\b(?:left|forgot|forgotten)(?=\s+(?:all\s+)?(?:his|her|their|your|my|our|its|[A-Z][a-z]+'s)\b)", re.I)
_IS_AWAY = re.compile(r"\b(?:is|are|was|were|lies|lie|sits|sit|hangs|hang|remains|remain|stays|stay)\s+(?:still\s+|safely\s+)?"
                      r"(?:back (?:at|in|on|home)|at home|left behind)\b", re.I)
_PRONOUN = re.compile(r"^\s*(?:it|them)\b", re.I)
# a thing whose parts the scene scatters: "...drove the rowboat onto the rocks, and its planks are strewn along the tideline"
_STREWN = re.compile(r"\b(?:its|their)\s+(?:\w+\s+)?(?:planks|timbers|boards|pieces|fragments|shards|splinters|wreckage|remains|staves|"
                     r"spars|parts|bits)\s+(?:are|were|lie|lay|now lie|float|floated|litter|littered)\s+(?:\w+\s+)?"
                     r"(?:strewn|scattered|everywhere|all over|littering|floating|washed|adrift|across|along|over)\b", re.I)


def gone_things(scene: str) -> dict[str, str]:
    """Each thing the scene says is ruined, lost, dead or absent → the scene's words for how.

        gone_things("The rope bridge across the gorge snapped an hour ago.")  # {"bridge": "snapped"}
    """
    things: dict[str, str] = {}
    previous = ""
    for sentence in _SENTENCES.findall(" ".join(scene.split())):
        for m in _ruin_pattern().finditer(sentence):
            how = m.group(0).lower()
            after = sentence[m.end():]
            before = sentence[:m.start()]
            aux = re.search(rf"\b{_AUX}\s*$", before, re.I)
            if " " not in how and not aux and _ATTRIBUTIVE.match(after) or _PARTIAL.match(after):
                continue
            active = re.match(r"\s+(?:the|a|an|his|her|their|its|my|our|your|this|that|these|those|every|all|both|it|them)\b", after, re.I)
            heads = []
            if active and not aux and not how.startswith(("is ", "was ", "are ", "were ", "now ", "long ", "already ")):
                if _PRONOUN.match(after):  # "found the well poisoned and filled it with stones"
                    if not re.search(r"\band\s*$", before):
                        continue  # "where bandits scuttled it": the doers are not what was ruined, and "it" is named elsewhere
                    heads = _phrases(before)[-1:]
                else:
                    heads = _object(after)
            if re.match(r"put (?:him|her|it|them) ", how):  # "Jericho broke a leg and Dutch had to put him down": the beast
                earlier = re.split(r"(?:,|;|\band\b|\bso\b|\bthen\b)(?!.*(?:,|;|\band\b|\bso\b|\bthen\b))", before, maxsplit=1)
                if len(earlier) < 2:
                    continue  # "the sheriff put him down": who was put down is not named here
                heads = _phrases(earlier[0])[:1]  # named in an earlier clause, not the one who did it
                how = re.sub(r"^put \w+ ", "put ", how)
            if not heads and re.search(r"\b(?:who|which|that)\s*$", before, re.I):  # "his mare, Sorrel, who lies dead"
                heads = _phrases(re.sub(r"\b(?:who|which|that)\s*$", "", before))[-1:]
            if not heads:
                clause = _CLAUSE_START.sub("", before) if not re.match(r"^\s*(?:and|,)", after) else before
                heads = _phrases(re.sub(rf"(?:\b{_AUX}\s+)+$", "", clause.strip(), flags=re.I))[-2:]
            if how.endswith(("collapse", "collapsed", "collapses")) and _ALIVE.search(sentence) or _SURVIVED.search(sentence):
                continue
            for head in heads:
                things.setdefault(head, how)
        for m in _STREWN.finditer(sentence):
            for head in _phrases(sentence[:m.start()].strip() or previous)[-1:]:  # "...onto the rocks; its planks are strewn"
                things.setdefault(head, "strewn")
        for m in re.finditer(r"\b(?:no|without(?: a| an| any)?)\s+((?:[a-z][\w'’-]*\s+){0,2}?[a-z][\w'’-]*)(?=\s*(?:[,.;:]|$|\b(?:and|or|to|in|on|at|for|with|of|is|are|was|were|left|here|there|anywhere|aboard|nearby|inside)\b|" + _MODAL.pattern[3:] + "))", sentence, re.I):
            words = m.group(1).split()
            head = _head(words)
            rest = sentence[m.end():]
            if head and head not in _ABSTRACT and not _MODAL.match(rest) and not _only_verb(head):
                things.setdefault(head, "not there")
        for m in _LACKING.finditer(sentence):  # "a windowless cell": no window; "a roofless chapel": no roof
            stem = m.group(1).lower()
            if stem not in _ABSTRACT and stem not in _LESS_NOT_LACKING and getAllLemmas(stem, upos="NOUN"):
                things.setdefault(stem, "not there")
        for m in _BOLTED.finditer(sentence):  # "the party's horses bolted in the storm": no mount to ride
            things.setdefault(_lemma(m.group(1).lower()), "bolted")
        for m in _DRIVEN_OFF.finditer(sentence):  # "the rustlers ran off every horse in town, Dutch's included"
            things.setdefault(_lemma(m.group(1).lower()), "taken")
        for m in _TOOK.finditer(sentence):  # "the guards took all their gear, Pip's lute included"
            for head in _object(sentence[m.end():]):
                things.setdefault(head, "taken")
        if _AWAY.search(sentence):  # "she left her rifle back at the livery": not at hand
            for m in _LEFT.finditer(sentence):
                for head in _object(sentence[m.end():]):
                    things.setdefault(head, "left behind")
            for m in _IS_AWAY.finditer(sentence):
                for head in _phrases(_CLAUSE_START.sub("", sentence[:m.start()]))[-1:]:
                    things.setdefault(head, "left behind")
        previous = sentence
    for thing, how in list(things.items()):  # "his mare, Sorrel, who lies dead", "his horse Biscuit was shot": the name is the beast
        named = rf"\b{re.escape(thing)},\s+([A-Z][a-z]+),"
        if _BEAST.fullmatch(thing):
            named += rf"|\b{re.escape(thing)}\s+([A-Z][a-z]+)\b(?!['’])"  # a beast's name needs no commas; "the wagon Lottie drove" is not her
        for name in re.findall(named, scene):
            name = name if isinstance(name, str) else next(n for n in name if n)
            things.setdefault(name, how)
    return things


# ---- the line side: does it act on such a thing? --------------------------------------------------------
# Acts that fit a ruined thing: looking, searching, clearing, mending, going round or through it.
_NOT_USE = re.compile(r"\b(?:look|looks|looking|peer|peers|glance|glances|stare|stares|gaze|gazes|watch|watches|examine|examines|"
                      r"inspect|inspects|study|studies|search|searches|searching|sift|sifts|comb|combs|check|checks|"
                      r"find|finds|locate|locates|look for|looks for|hunt for|hunts for|ask|asks|tell|tells|talk|talks|describe|describes|"
                      r"remember|remembers|recall|recalls|wonder|wonders|think|thinks|mourn|mourns|bury|buries|salvage|salvages|"
                      r"gather|gathers|collect|collects|clear|clears|dig|digs|shift|shifts|repair|repairs|mend|mends|fix|fixes|"
                      r"rebuild|rebuilds|replace|replaces|rig|rigs|buy|buys|borrow|borrows|recover|recovers|retrieve|retrieves|"
                      r"point|points|curse|curses|kick|kicks|step over|steps over|climb over|climbs over|hide|hides|"
                      r"dive|dives|fish|fishes|grope|gropes|fetch|fetches|sketch|sketches|photograph|photographs|mark|marks|note|notes|"
                      r"say|says|said|swear|swears|claim|claims|insist|insists|pretend|pretends|bluff|bluffs|lie|lies|"
                      r"explain|explains|mention|mentions|promise|promises|wish|wishes|hope|hopes|wave|waves|show|shows)\b", re.I)
# a dead man or beast is carried, searched and buried; only a living use of him cannot work
_LIVING_USE = re.compile(r"\b(?:ride|rides|riding|saddles?(?!\s+(?:off|from|bags?|blanket)\b)|mount|mounts|spur|spurs|hitch|hitches|harness|harnesses|whistle for|"
                         r"whistles for|call|calls|order|orders|question|questions|wake|wakes|hire|hires|pay|pays|follow|follows)\b", re.I)
_DEAD = ("kill", "drown", "dead", "put down", "put out of", "is dead", "was dead", "are dead", "were dead", "long dead")
# "the ledger was burned, but a scrap of the last page survived": part of it is still there
_SURVIVED = re.compile(r"\b(?:survived|survives|scraps?|fragments?|remains of|half-burned|half-burnt|partly|still (?:usable|works|intact|holds|stands)|"
                       r"except|salvaged|saved)\b", re.I)
# a person who "collapsed, coughing" fell down alive; a staircase that collapsed is gone
_ALIVE = re.compile(r"\b(?:coughing|gasping|groaning|moaning|breathing|unconscious|senseless|exhausted|wounded|bleeding|fainted|"
                    r"to (?:his|her|their) knees|in a heap|sobbing|weeping|shaking)\b", re.I)
_NEGATED = re.compile(r"\b(?:not|no|never|without|nor)\b|n't\b", re.I)
_STATEMENT = re.compile(r"\b(?:there'?s|there is|there are|there was|there were|here'?s|here is|it'?s|that'?s|this is)\b", re.I)  # says, not does
_QUOTED = re.compile(r"[\"“][^\"”]*[\"”]|(?<!\w)'[^']*'(?!\w)")  # what a character says is talk, not an act on the thing
_REMAINS = re.compile(r"\b(?:wreck|wreckage|ruin|ruins|remains|remnant|remnants|pieces|piece|splinters|shards|fragments|ash|ashes|"
                      r"rubble|debris|stump|stumps|end|ends|halves|half|body|corpse|carcass|what'?s left|what is left|"
                      r"where|used to|once|old|former|another|new|other|spare|second|different)\b", re.I)
_PASSING = re.compile(r"\b(?:through|past|behind|beside|under|beneath|near|by|around|toward|towards|to|from|out of|away from|"
                      r"next to|against|over)\s*$", re.I)
_OUT_THE = re.compile(r"\bout\s+(?:the|a|an)\s+(?:[\w'’-]+\s+){0,2}$", re.I)  # "jump out the windows" (not "get out my tools")
_ARTICLE = re.compile(r"\b(?:the|a|an|his|her|their|its|my|our|your|this|that)\s+(?:[\w'’-]+\s+){0,2}$", re.I)


def _lemma(word: str) -> str:
    word = word.lower()
    return getLemma(word, upos="NOUN")[0] if word.isalpha() else word


def _names(thing: str, word: str) -> bool:
    """The line's word names the scene's thing: the same lemma, or one ends the other's compound
    ("boat" and "rowboat", "stair" and "staircase")."""
    if thing[0].isupper() or word[0].isupper():  # a name is the same name or none
        return thing == word
    a, b = _lemma(thing), _lemma(word)
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) < 4 or len(long_) - len(short) < 3:
        return False
    rest = long_[:-len(short)] if long_.endswith(short) else long_[len(short):] if long_.startswith(short) else ""
    return bool(rest) and bool(getAllLemmas(rest))  # "row"+"boat", "stair"+"case"; not "uni"+"form"


def acts_on_gone(line: str, scene: str) -> str | None:
    """Why the line cannot work, when it acts on a thing the scene says is ruined, lost or absent.

        acts_on_gone("I walk across the rope bridge.", "The rope bridge snapped an hour ago.")
        # "the scene says the bridge snapped"
    """
    text = _QUOTED.sub(lambda m: " " * len(m.group(0)), " ".join(line.split()))
    if not text.strip() or is_question(line.strip()) or not scene.strip():
        return None
    things = gone_things(scene)
    if not things:
        return None
    for m in _WORD.finditer(text):
        word = m.group(0)
        if word.endswith(("'s", "’s", "s'", "s’")):  # "the horses' tracks": the tracks are acted on
            continue
        thing = next((t for t in things if _names(t, word.strip("'’"))), None)
        if thing is None:
            continue
        before = text[:m.start()]
        clause = re.split(r"[,;:.!?]|\b(?:and|then|but)\b", before)[-1]
        if not (_ARTICLE.search(before) or thing[0].isupper()) or not re.search(r"[A-Za-z]", _ARTICLE.sub("", clause)):
            continue  # a thing named with its article, that something is done to ("The book is out" says, not does)
        how = things[thing]
        if _fits_what_is_left(how, clause, before, text[m.end():]):
            continue
        return _said(thing, how)
    if _RIDES_OFF.search(text) and not _OTHER_MOUNT.search(text):  # "swings up into the saddle and gallops": the one mount there was
        for thing, how in things.items():
            if _BEAST.fullmatch(thing) and how != "not there":
                return _said(thing, how)
    return None


def _fits_what_is_left(how: str, clause: str, before: str, after: str) -> bool:
    """The line's act on the thing is one that its state allows: said, denied or asked about, a
    look or a search, its remains, getting it back or going for it, passing by or through it
    (except through what is not there: "no window" cannot be climbed through), and for the dead,
    anything but a living use."""
    dead = getLemma(how.split()[-1], upos="VERB")[0] in _DEAD or how.startswith(_DEAD)
    lead = _ARTICLE.sub("", before).rstrip()  # the words before the thing's article
    if how == "not there" and _LOOK_THROUGH.search(lead):
        return False  # a look out of a window there is none of sees nothing: unlike a look at a wreck
    return bool(_NEGATED.search(clause) or _STATEMENT.search(clause) or _NOT_USE.search(clause)
                or (dead and not _LIVING_USE.search(clause))
                or _REMAINS.search(clause + " " + after[:12]) or re.match(r"\s+back\b", after)
                or (not dead and re.search(r"\bfor$", lead)) or (how == "bolted" and _AFTER_BOLTED.search(clause))
                or (how != "not there" and (_PASSING.search(lead) or _OUT_THE.search(before))))


_LOOK_THROUGH = re.compile(r"\b(?:look|looks|looking|peer|peers|peering|gaze|gazes|glance|glances|stare|stares|see|sees|watch|watches|"
                           r"squint|squints)\s+(?:out(?:\s+of)?|through)$", re.I)
_BY_ITSELF = {"snap", "collapse", "crumble", "topple", "sink", "melt", "drown", "dissolve", "shatter", "splinter", "die", "bolt"}
# how the scene's words read after "the X was/were ...": "snapped" stays, "went overboard" is "lost overboard"
_SAID_AS = (("left behind", "left elsewhere"), ("went with", "taken away"), ("left with", "taken away"), ("rode off with", "taken away"),
            ("sailed with", "taken away"), ("with ", "taken away"), ("strewn", "wrecked"), ("went over", "lost overboard"), ("fell over", "lost overboard"), ("go over", "lost overboard"),
            ("washed", "swept away"), ("swept", "swept away"), ("carried", "swept away"), ("fill", "filled in"),
            ("brick", "walled up"), ("wall", "walled up"), ("put", "put down"), ("cave", "caved in"), ("fell in", "caved in"),
            ("gave", "collapsed"), ("give", "collapsed"), ("blow", "blown up"), ("blew", "blown up"), ("torn", "torn down"),
            ("tore", "torn down"), ("tear", "torn down"), ("pull", "torn down"), ("reduced", "reduced to ruin"),
            ("no longer", "gone"), ("to ", "smashed"), ("into ", "smashed"), ("on the", "sunk"), ("at the", "sunk"))


def _said(thing: str, how: str) -> str:
    """"the scene says the bridge snapped" / "the scene says there is no window"."""
    plural = thing.endswith("s") and not thing.endswith("ss")
    the = "" if thing[0].isupper() else "the "  # "the bridge", but "Sorrel"
    if how == "not there":
        return f"the scene says there {'are' if plural else 'is'} no {thing}"
    how = re.sub(r"^(?:is|was|are|were|now|long|already|been|lies|lay|lie|lying) ", "", how)
    for start, said in _SAID_AS:
        if how.startswith(start):
            how = said
            break
    if how.startswith(("burn", "burnt")):
        how = "burned"
    elif " " not in how and how not in ("dead", "gone", "missing"):
        lemma = getLemma(how, upos="VERB")[0]
        tense = "VBD" if lemma in _BY_ITSELF else "VBN"  # "the bridge snapped", "the lute was smashed"
        how = getInflection(lemma, tag=tense)[0]
        if tense == "VBD":
            return f"the scene says {the}{thing} {how}"
    return f"the scene says {the}{thing} {'were' if plural else 'was'} {how}"
