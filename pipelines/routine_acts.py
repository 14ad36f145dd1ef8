"""Routine acts: a line that only looks after gear, passes idle time, walks somewhere plain or offers a courtesy.

"I load the revolver, holster it and lock the office door behind me", "Keth waxes his bowstring
and checks his arrows", "Pip tunes his lute and hums": no game rolls for these when nothing
presses. The nearest example lines hear their nouns (a revolver sits among shooting lines, a lute
among performances) and call a check. Here every clause of the line, outside anything said, must
open with such a verb, and neither the line nor the scene may speak of haste or danger: loading a
gun with the posse riding in, or tuning a lute for the duke's court, is left to the vote.

On CRD3's 56,135 player turns (the DM's last twelve turns as the scene) it holds for 17 ("I pocket
it.", "We'll set up a proper camp.", "I go to the bar."), and the DM called a roll after none. The
courtesies ("I tip my hat to the goblins", "bows to the queen") hold for one more ("He smiles at you."),
no roll called either.

    routine_only("Keth waxes his bowstring and checks his arrows", "camp in a dry hollow")  # True
    routine_only("I load the rifle and fire at the wolf", "")                               # False
"""
from __future__ import annotations

import re

from .speech import narrated

__all__ = ["routine_only", "ROUTINE"]

# "my", "the old", "the fletching on my": what comes between the verb and the gear
_OWN = (r"(?:(?:my|his|her|their|the|its|a|an|this|that)\s+)?(?:[\w'’]+\s+){0,2}?"
        r"(?:(?:on|of|in)\s+(?:my|his|her|their|the|its)\s+(?:\w+\s+)?)?")
_GEAR = (r"(?:revolver|pistol|rifle|gun|shotgun|carbine|colt|winchester|musket|crossbow|bow|bowstring|string|arrows?|bolts?|"
         r"quiver|blade|sword|knife|dagger|axe|spear|weapons?|ammunition|ammo|rounds|cartridges|shells|cylinder|gear|kit|pack|"
         r"bag|satchel|saddlebags?|straps?|buckles?|boots|armou?r|mail|shield|lantern|lamp|pipe|tools|instruments?|lute|fiddle|"
         r"guitar|harmonica|banjo|flute|notes|notebook|journal|bedroll|tent|camp|things|belongings|holster|belt|horse|mount|mule|pony|"
         r"watch|pocket watch|clock|fletching|hat|coat|cloak|gloves|collar|tie|cravat|spectacles|glasses|"
         r"camera|plates?|plate holders?|film|flash powder|powder|tripod|tobacco|waterskins?|canteens?|flasks?|water ?bottles?|skins)")
# what the rest of the party does meanwhile, when that is idle
_IDLE_OTHERS = (r"(?:stretch|stretches|rest|rests|eat|eats|sleep|sleeps|wait|waits|sit|sits|chat|chats|talk|talks|doze|dozes|smoke|smokes|"
                r"make camp|makes camp|set up camp|sets up camp|catch their breath|catches (?:his|her) breath)")
# whom a courtesy is for, in a few words that ask nothing ("the goblins", "old Mother Kell", not "the guard so he lets me pass")
_WHOM = r"(?!.*\b(?:so|until|till|hoping|because|while|unless|if|to get|to make|in order)\b)(?:[\w'’-]+\s*){1,6}"
# each kind of routine clause, by its opening verb
ROUTINE: dict[str, str] = {
    "gear": r"(?:load|loads|loading|unload|unloads|holster|holsters|sheathe|sheathes|sheath|sheaths|clean|cleans|oil|oils|wax|waxes|"
            r"polish|polishes|sharpen|sharpens|hone|hones|whet|whets|tune|tunes|restring|restrings|string|strings|mend|mends|"
            r"darn|darns|pack|packs|unpack|unpacks|repack|repacks|stow|stows|buckle|buckles|unbuckle|unbuckles|lace|laces|"
            r"tighten|tightens|adjust|adjusts|brush|brushes|curry|curries|feed|feeds|water|waters|unsaddle|unsaddles|"
            r"check|checks|count|counts|fill|fills|refill|refills|trim|trims|light|lights|wind|winds|hang|hangs|lay|lays|"
            r"set|sets|spread|spreads|roll|rolls)\s+(?:up\s+|out\s+|down\s+|on\s+|off\s+|over\s+)?" + _OWN + _GEAR + r"\b"
            r"|(?:holster|holsters|sheathe|sheathes|pocket|pockets|stow|stows|shoulder|shoulders)\s+(?:it|them)\b"
            r"|(?:feed|feeds|water|waters|brush|brushes|curry|curries|unsaddle|unsaddles)\s+(?:down\s+)?(?:it|them|him|her)\b"
            # the animals taken to water or grass: "leads the mules down to the spring to drink"
            r"|(?:lead|leads|walk|walks|take|takes)\s+(?:the|my|his|her|their|our)\s+(?:\w+\s+)?(?:horses?|mules?|mounts?|pony|ponies|team|oxen|"
            r"camels?|donkeys?)\s+(?:down\s+|over\s+|back\s+)?to\s+(?:the\s+)?(?:\w+\s+)?(?:water|drink|spring|stream|creek|river|trough|well|"
            r"pond|stables?|paddock|corral|pasture|grass)\b",
    "door": r"(?:lock|locks|bolt|bolts|bar|bars|shut|shuts|close|closes|latch|latches)\s+(?:the|his|her|my|their|a)\s+(?:\w+\s+)?"
            r"(?:door|doors|gate|shutters?|window)\b"
            r"|(?:tie|ties|tether|tethers|hitch|hitches|stable|stables)\s+(?:up\s+)?(?:my|his|her|their|the)\s+(?:\w+\s+)?(?:horse|horses|mount|mounts|mule|mules|pony|ponies|team)\b",
    # going somewhere plain: "walk down the track to the village", "pushes through the batwing doors"
    "go": r"(?:walk|walks|stroll|strolls|wander|wanders|head|heads|go|goes|push|pushes|step|steps|amble|ambles|make|makes)\s+"
          r"(?:(?:my|his|her|their|our)\s+way\s+)?(?:through|into|in|out|down|up|along|across|over to|over|to|back to|inside|outside)\s+"
          r"(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?(?:door|doors|doorway|room|hall|street|road|track|lane|path|village|town|saloon|inn|tavern|"
          r"shop|store|bar|stairs|corridor|yard|square|market|kitchen|parlou?r|lobby|office|station|platform|church|chapel|camp|house)\b",
    # a courtesy with nothing asked: "I tip my hat to the goblins", "bows to the queen", "salutes the captain"
    "greet": r"(?:(?:tip|tips|doff|doffs|touch|touches|lift|lifts|raise|raises)\s+(?:my|his|her|their)\s+(?:\w+\s+)?"
             r"(?:hat|cap|bonnet|helm|helmet|glass|mug|tankard|cup|stein)(?:\s+(?:to|at|toward|towards)\s+" + _WHOM + r")?"
             r"|(?:bow|bows|curtsy|curtsies|curtsey|curtseys|nod|nods|wave|waves|wink|winks|smile|smiles|grin|grins)"
             r"(?:\s+(?:deeply|politely|low|slightly|back|briefly|warmly))?\s+(?:back\s+)?(?:to|at|toward|towards|before)\s+" + _WHOM + r""
             r"|(?:salute|salutes|greet|greets)\s+" + _WHOM + r"(?:\s+(?:warmly|politely|back))?)$",
    "idle": r"(?:hum|hums|humming|whistle|whistles|whistling|rest|rests|sit|sits|settle|settles|stretch|stretches|doze|dozes|"
            r"yawn|yawns|practise|practises|practice|practices|rehearse|rehearses|sip|sips|eat|eats|smoke|smokes|puff|puffs|"
            r"wash|washes|shave|shaves|kneel|kneels|splash|splashes)\b"
            # the others' rest as the time it happens in: "While the others stretch their legs, ..."
            r"|while\s+(?:the\s+others|the\s+rest(?:\s+of\s+(?:us|them|the\s+\w+))?|everyone(?:\s+else)?|they|we)\s+" + _IDLE_OTHERS + r"\b",
}
_CLAUSE = re.compile(r"\s*(?:[,;:.!]|\band\b|\bthen\b|\bafter that\b)\s*", re.I)
_SUBJECT = re.compile(r"^(?:i|he|she|they|we|you)\s+", re.I)
_NAME = re.compile(r"^(?:[A-Z][\w'’.-]*\s+){1,3}")
_ADVERB = re.compile(r"^(?:(?:carefully|quietly|slowly|calmly|idly|absently|also|just|first|then|methodically|patiently|"
                     r"finally|briefly|softly|lazily)\s+)+", re.I)
_ROUTINE = tuple(re.compile(rf"^(?:{pattern})", re.I) for pattern in ROUTINE.values())
# haste or danger, in the line or the scene: then even a routine act may be a race
_PRESSURE = re.compile(r"\b(?:hurry|hurries|hurried|hurriedly|quick|quickly|fast|rush|rushes|rushed|seconds?|any moment|in time|"
                       r"before (?:it|they|he|she|the|anyone|someone|we|i)|while (?:the|they|he|she)(?!\s+(?:others|rest)?\s*" + _IDLE_OTHERS + r")|under fire|charg\w+|attack\w*|"
                       r"ambush\w*|bearing down|closing in|closes in|coming for|pursu\w+|chasing|chased|gunfire|shots? (?:ring|rang|crack)|"
                       r"fight|fighting|brawl|battle|duel|bullets?|flood\w*|collaps\w+|sinking|screams?|"
                       r"(?:for|to impress|in front of|before) (?:the|a|an) (?:crowd|court|audience|duke|king|queen|judges?)|"
                       r"audience|crowd|contest|competition|wager|bet)\b", re.I)


def _clauses(act: str) -> list[str]:
    return [c for c in _CLAUSE.split(act) if c and c.strip()]


def routine_only(line: str, scene: str = "") -> bool:
    """Whether every clause of the line, outside anything said, is a routine act (gear kept up, a
    door shut, idle time), with no haste or danger in the line or the scene. A line that speaks is
    never routine here: talk has its own rules."""
    act = " ".join(narrated(line).split())
    if act != " ".join(line.split()) or _PRESSURE.search(act):
        return False
    clauses = _clauses(act)
    if not clauses:
        return False
    kinds = set()
    for clause in clauses:
        body = _ADVERB.sub("", _SUBJECT.sub("", clause.strip()))
        named = _ADVERB.sub("", _NAME.sub("", body))  # "Keth waxes his bowstring"; "Load the gun" stays whole first
        kind = next((k for k, pattern in zip(ROUTINE, _ROUTINE) if pattern.match(body) or pattern.match(named)), None)
        if kind is None:
            return False
        kinds.add(kind)
    # a scene in a hurry makes upkeep a race; a hat tipped is a courtesy even by a fast river
    return kinds == {"greet"} or not _PRESSURE.search(scene)
