"""What an act's outcome says, decided from data before any model words it.

A 0.5B model asked to narrate "Locksmith: fumble" wrote "the door is locked with a chainsaw";
asked to word "Eddie searches the cottage but finds no key to the padlock." it keeps to it. So
the content of a reply to an act is chosen here, as one or two plain sentences (a plan): the act
retold (``gm.retell``), its outcome and degree, what it touched in the world (the thing, place or
NPC the line names, from ``gm.world``), what the rolls revealed or met (the secret, its
``on_fail``), and for a refusal the reason the decision recorded. Nothing here is invented: a
search that earns no secret finds nothing more, a failed lock "holds", a failed plea leaves
its listener unswayed.

    plan = plan_act("Eddie", "I search the cottage for a key to the padlock", "roll", False, world=world)
    plan.said()  # "Eddie searches the cottage but finds no key to the padlock."
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lemminflect import getAllLemmas

from pipelines.speech import is_talk

from .retell import base_action, told_by

__all__ = ["ActPlan", "plan_act", "degree_of", "touched"]


@dataclass
class ActPlan:
    """The content a reply to an act must carry: ``facts`` said in order, one to three sentences."""

    facts: list[str]
    kind: str  # done / found / nothing / failed / refused
    success: bool | None = None
    touched: list[str] = field(default_factory=list)  # world names the act reached (thing, place, NPC)
    found: str = ""  # what the rolls revealed or met, word for word from the scenario
    why: str = ""  # a refusal's reason, as the decision recorded it

    def said(self) -> str:
        return " ".join(f.strip() for f in self.facts if f.strip())


# families of acts by their verbs, first match wins: what a failure of each means at the table
_SNEAK = {"sneak", "slip", "creep", "hide", "tiptoe", "steal", "skulk", "lurk"}
_SEARCH = {"search", "look", "examine", "inspect", "feel", "check", "study", "watch", "spot", "scan", "peer", "listen",
           "rummage", "hunt", "comb", "probe", "observe", "track", "sniff", "scour", "eye", "glance", "find", "investigate"}
_READ = {"read", "decipher", "translate", "skim", "leaf", "page"}
_OPEN = {"pick", "unlock", "open", "force", "pry", "prise", "jimmy", "break", "kick", "smash", "bash", "shoulder", "cut", "saw"}
_GESTURE = {"tip", "bow", "wave", "salute", "nod", "wink", "smile", "grin", "curtsy", "doff", "tap"}
_PLEA = {"offer", "bribe", "persuade", "convince", "beg", "plead", "bargain", "haggle", "charm", "flatter", "promise", "coax",
         "threaten", "intimidate", "lie", "bluff", "con", "trick", "reassure", "calm", "negotiate", "sweet-talk", "order"}
_MOVE = {"climb", "jump", "leap", "swim", "wade", "cross", "run", "balance", "squeeze", "crawl", "vault", "scale", "dash",
         "sprint", "dive", "swing", "clamber", "edge", "scramble", "walk", "go", "head", "step"}
_GIVE = {"hand", "give", "pass", "toss", "offer", "show", "present", "slide"}
# "a way around", "a path across": when the search is for a way, a success is finding it
_A_WAY = re.compile(r"^(?:a|an|any|some)\s+(?:way|path|route|gap|opening|chance|foothold|handhold|spot|place)\b", re.I)
# what a search is for: "for a key to the padlock", "feeling for a catch", "spot a way around the gate"
_SOUGHT = re.compile(r"(?:,\s*)?\b(?:(?:feeling|looking|searching|hunting|checking|groping|fishing|rummaging)\s+for|for|spot|find)\s+"
                     r"(.+?)(?=$|,|\s(?:on|in|at|under|along|behind|beneath|inside|near|by|among|across|while|if)\b)", re.I)
_DEGREE = re.compile(r"\b(critical success|critical failure|fumble|extreme success|hard success)\b", re.I)


def degree_of(verdict: str) -> str:
    """``"Eddie's Locksmith roll: fumble."`` → ``"fumble"``; ``""`` when the roll was plain."""
    found = _DEGREE.search(verdict or "")
    return found.group(1).lower() if found else ""


def _lemmas(action: str) -> list[str]:
    from lemminflect import getAllLemmas

    out = []
    for word in re.findall(r"[a-z'-]+", action.lower()):
        lemma = (getAllLemmas(word, upos="VERB").get("VERB") or [word])[0]
        out.append(lemma)
    return out


def _family(action: str) -> str:
    words = _lemmas(action)
    head = words[0] if words else ""
    for name, verbs in (("sneak", _SNEAK), ("open", _OPEN), ("read", _READ), ("search", _SEARCH)):
        if head in verbs:
            return name
    if head in _GESTURE:
        return "gesture"
    if head in _PLEA:
        return "plea"
    for name, verbs in (("search", _SEARCH), ("open", _OPEN), ("read", _READ)):  # "wade over ... feeling for a catch"
        if any(w in verbs for w in words[1:]):
            return name
    if head in _GIVE:
        return "give"
    return "move" if head in _MOVE else "other"


def _names_of(item: Any) -> list[str]:
    return [n for n in [getattr(item, "name", ""), *getattr(item, "aliases", [])] if n]


def _bare(name: str) -> str:
    return re.sub(r"^(?:the|a|an)\s+", "", name.strip(), flags=re.I)


def touched(line: str, world: Any) -> list[Any]:
    """The NPCs, things and places of ``world`` the line names (by name or alias), NPCs first."""
    if world is None:
        return []
    low, out = line.lower(), []
    for group in (world.npcs, world.things, world.places):
        for item in group:
            if any(re.search(rf"\b{re.escape(_bare(n).lower())}(?:'s|’s)?\b", low) for n in _names_of(item) if len(_bare(n)) > 2):
                out.append(item)
    return out


def _no(sought: str) -> str:
    """``"a catch"`` → ``"no catch"``; ``"the key"`` → ``"no sign of the key"``; ``"footprints"`` → ``"no footprints"``;
    ``"anything odd"`` → ``"nothing odd"``."""
    words = sought.split()
    if words and words[0].lower() in ("anything", "something", "anyone", "someone", "anybody", "somebody"):
        return ("nobody " if words[0].lower().endswith(("one", "body")) else "nothing ") + " ".join(words[1:])  # "anything that doesn't belong"
    if words and words[0].lower() in ("a", "an", "any", "some"):
        return "no " + " ".join(words[1:])
    if words and words[0].lower() in ("the", "that", "this", "those", "these", "his", "her", "their", "my", "our", "your"):
        return "no sign of " + sought
    return "no " + sought


def _cut(action: str) -> str:
    """The act without its purpose or manner clause ("... if he lets them through", "... while he
    deals", "..., testing each step") or its examples ("..., like the reliquary")."""
    action = re.split(r",?\s+(?:if|so that|so|while|until|because|in case|hoping|to see if)\s+|,\s+\w+ing\b|,\s+(?:like|such as|say)\s+", action)[0]
    return " ".join(action.split()).strip(" ,")


def _last_act(action: str) -> str:
    """The last of a chain of acts, what the outcome is about, without "try to": "kneel by the cot,
    wash the bite and try to work out what is wrong" → "work out what is wrong". Told alone with the
    scene, it does not parrot the player's whole line back."""
    pieces = re.split(r",\s*(?:and\s+|then\s+)?|\s+(?:and|then)\s+", action)
    acts = [p for p in pieces if p and "VERB" in getAllLemmas(p.split()[0].lower()) and getAllLemmas(p.split()[0].lower())["VERB"][0] == p.split()[0].lower()]
    last = action[action.rindex(acts[-1]):] if len(acts) > 1 else action
    return re.sub(r"^(?:try|attempt|start|begin) to\s+", "", last) or action


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip()
    return text[0].upper() + text[1:] + ("" if text[-1] in ".!?\"”" else ".") if text else ""


def _described(item: Any, who: str = "they") -> str:
    """A thing's or place's public description as a sentence ("The assay office is ..."), else ""."""
    desc = getattr(item, "description", "") or ""
    if not desc or "hidden" in (getattr(item, "states", None) or []):
        return ""
    name = item.name if item.name.lower().startswith("the ") else f"the {item.name}"
    if _bare(desc).lower().startswith(_bare(item.name).lower()):
        return _sentence(f"{who} {'see' if who == 'they' else 'sees'} {desc}")  # "the assay office next door, with the vault..." names itself
    return _sentence(f"{name} is {desc}")


def _called(npc: Any) -> str:
    """How the table calls an NPC: a one-word alias ("Nettlejaw", "Ruth"), else the full name."""
    return next((a for a in npc.aliases if re.fullmatch(r"[A-Z][\w'’-]+", a)), npc.name)


def _group(line: str, npcs: list[Any]) -> str:
    """Whom a gesture or a plea is aimed at: the NPC named, else "the goblins" after to/at."""
    if npcs:
        return _called(npcs[0])
    found = re.search(r"\b(?:to|at|toward|towards)\s+(the\s+[a-z]+s)\b", line, re.I)
    return found.group(1) if found else ""


def _case(name: str, line: str, npcs: list[Any], success: bool, found: str, touched_names: list[str]) -> ActPlan:
    """A rolled plea the retelling finds no act in ("I offer Snik a piece of cheese"): how it was taken."""
    who = _group(line, npcs)
    to = f" to {who}" if who else ""
    if success:
        lead = f"{name} makes their case{to}, and {who} {'are' if who.endswith('s') else 'is'} won over" if who else f"{name} makes their case, and the words land"
    else:
        lead = f"{name} makes their case{to}, but {who} {'are' if who.endswith('s') else 'is'} not swayed" if who else f"{name} makes their case, but the words fall flat"
    facts = [_sentence(lead), *([_sentence(found)] if found else [])]
    return ActPlan(facts, "found" if success and found else "done" if success else "failed", success, touched_names, found)


def plan_act(name: str, line: str, decision: str, success: bool | None, *, found: str = "", why: str = "",
             world: Any = None, recall: bool = False, implausible: bool = False, degree: str = "") -> ActPlan | None:
    """The content of the reply to an act, or None when the line is no act (a question, words
    spoken, a rules command): those are answered elsewhere."""
    text = " ".join(line.split())
    if re.match(r"^/|^I make an? [\w' ]+ check$", text):
        return None
    rolled = decision == "roll" and success is not None
    action = base_action(text, name)
    # a question is answered elsewhere ("I watch Maren's face. Is she lying?": what the watching reads is the open
    # narration's), unless it is a plea and rolled: how "Care to set some of it down with a preacher?" was taken is the reply
    if text.rstrip(" \"'”’").endswith("?") and (action or not rolled):
        return None
    items = touched(text, world)
    npcs = [i for i in items if hasattr(i, "knows")]
    touched_names = [i.name for i in items]
    if not action and rolled:
        return _case(name, text, npcs, success, found, touched_names)  # "I offer Snik some cheese": a plea, rolled
    if not action or (decision == "no_roll" and is_talk(text)):
        return None
    act = _cut(action)
    if decision == "impossible":
        reason = f": {why}" if why else "; nothing here allows it"
        return ActPlan([_sentence(f"{name} cannot {act}{reason}")], "refused", None, touched_names, why=why)
    act = _last_act(act)
    family = _family(action)
    sought_match = _SOUGHT.search(action) if family in ("search", "sneak") else None
    sought, plain = "", act
    if sought_match:
        head = sought_match.group(0).strip(" ,").split()[0].lower()
        sought = _cut(action[sought_match.start(1):]) if head in ("spot", "find") else sought_match.group(1)
        plain = _cut(f"{action[:sought_match.start()]} {action[sought_match.end():]}".strip(" ,"))
        if head in ("spot", "find"):
            plain = f"look for {sought}"
    if decision == "no_roll" or success is None:
        facts = [_sentence(told_by(name, act))]
        if family == "give" and npcs:
            facts.append(_sentence(f"{_called(npcs[0])} takes it"))
        return ActPlan(facts, "done", None, touched_names)
    if success:
        if found:
            return ActPlan([_sentence(told_by(name, plain)), _sentence(found)], "found", True, touched_names, found)
        if recall:
            return None  # lore the dice earned but the scenario does not hold: the open narration tells it
        if family == "search" and sought and not _A_WAY.match(sought):
            facts = [_sentence(told_by(name, plain) + " carefully"), _sentence(f"there is {_no(sought)} here")]
            return ActPlan(facts, "nothing", True, touched_names)
        facts = [_sentence(told_by(name, act))]
        if implausible:
            facts = [_sentence(f"{name} gets further than anyone could expect, but not all the way")]
        elif family == "gesture" and (who := _group(text, npcs)):
            facts.append(_sentence(f"{who} {'seem' if who.endswith('s') else 'seems'} to take it well"))
        elif family == "plea" and (who := _group(text, npcs)):
            facts.append(_sentence(f"{who} {'are' if who.endswith('s') else 'is'} won over"))
        elif family == "search" and not sought:
            thing = next((d for i in items if (d := _described(i))), "")
            facts.append(thing or "Nothing more is there to find.")
        else:
            place = next((d for i in items if not hasattr(i, "knows") and (d := _described(i, name))), "")
            if place:
                facts.append(place)
        if degree in ("critical success", "extreme success"):
            facts.append("It could hardly have gone better.")
        return ActPlan(facts[:2] + facts[2:3], "done", True, touched_names)
    # a failure: what this kind of act meets when it does not work
    if recall:
        return ActPlan([_sentence(f"{name} searches their memory, but nothing useful comes back")], "failed", False, touched_names, found)
    who = _group(text, npcs)
    if family == "search" and sought_match and plain.startswith("look for "):
        lead = _sentence(f"{told_by(name, plain)} but finds none")
    elif family == "search":
        miss = f"finds {_no(sought)}" if sought else ("notices nothing out of place" if npcs else "finds nothing of note")
        lead = _sentence(f"{told_by(name, plain)} but {miss}")
    elif family == "read":
        lead = _sentence(f"{told_by(name, act)} but can make nothing of it")
    elif family == "open":
        thing = next((i.name for i in items if world is not None and i in world.things), "")
        named = re.search(r"\b(padlock|lock|chain|door|hatch|gate|chest|lid|window|shutter|bar|bolt|box|drawer)s?\b", act, re.I)
        holds = f"the {_bare(thing)}" if thing else f"the {named.group(1).lower()}" if named else "it"
        lead = _sentence(f"{name} tries to {act}, but {holds} holds")
    elif family == "sneak":
        lead = _sentence(f"{name} tries to {act}, but is noticed")
    elif family in ("gesture", "plea", "give") and who:
        verb = ("are" if who.endswith("s") else "is")
        lead = _sentence(f"{told_by(name, act)}, but {who} {verb} not {'impressed' if family == 'gesture' else 'swayed'}")
    elif family == "move":
        lead = _sentence(f"{name} tries to {act}, but does not make it")
    else:
        lead = _sentence(f"{name} tries to {act}, but it does not work")
    facts = [lead]
    if found:
        facts.append(_sentence(found))
    if degree in ("fumble", "critical failure"):
        facts.append("It could hardly have gone worse.")
    return ActPlan(facts, "failed", False, touched_names, found)
