"""What a character carries, and how it changes hands: found, given, drunk, shot, thrown.

A Combatant keeps three counts: ``ammo`` and ``items`` (pack keys: arrows, javelins, potions; the
fight's rules spend them) and ``gear`` (everything else by name: weapons, armour, a Guild token
found in a pouch). ``carried`` reads the three as one list a player understands; ``put`` and
``take`` keep each thing in the count its rules read, and a weapon that changes hands takes its
attack with it (the new owner's attack is worked out from their own sheet).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from ._model import CombatError, Combatant, rules_for
from .items import attacks_from_items, find_item, words_of

__all__ = ["carried", "holding", "put", "take", "hand_over", "things_line", "ItemAct", "read_item_act", "asked_name", "used_up", "gather"]


def _pack_item(c: Combatant, name: str) -> tuple[str, str, Any] | None:
    """(kind, key, definition) when ``name`` is a thing the dnd5e pack's tables know (other games: None)."""
    if not rules_for(c.system).ITEM_TABLES:
        return None
    try:
        return find_item(name)
    except CombatError:
        return None


def _label(key: str, definition: Any) -> str:
    return getattr(definition, "name", None) or key.replace("_", " ").capitalize()


def carried(c: Combatant) -> dict[str, int]:
    """Everything ``c`` carries, by the name a player reads, with how many (nothing at 0)."""
    out = {name: n for name, n in c.gear.items() if n > 0}
    for table in (c.ammo, c.items):
        for key, n in table.items():
            if n > 0:
                found = _pack_item(c, key)
                out[_label(key, found[2]) if found else key.replace("_", " ").capitalize()] = n
    return out


def holding(c: Combatant, name: str) -> tuple[str, str] | None:
    """Which count holds the thing ``name`` asks for ("healing potion", "the key", "my javelins"):
    (``ammo`` / ``items`` / ``gear``, its key), or None when ``c`` carries none of it."""
    asked = words_of(name)
    if not asked:
        return None
    found = _pack_item(c, name)
    for table in ("ammo", "items"):
        counts = getattr(c, table)
        if found is not None and counts.get(found[1], 0) > 0:
            return table, found[1]
    for table in ("gear", "ammo", "items"):
        for key, n in getattr(c, table).items():
            if n > 0 and (_names(asked, words_of(key)) or (found is not None and words_of(key) == words_of(found[1]))):
                return table, key
    return None


def _names(asked: set[str], have: set[str]) -> bool:
    """Every word asked is one of the thing's words, or ends one ("sword" for Shortsword, "bow" for Shortbow)."""
    return all(any(w == h or (len(w) >= 3 and h.endswith(w)) for h in have) for w in asked)


def take(c: Combatant, name: str, n: int = 1) -> str:
    """Take ``n`` of ``name`` from ``c`` (its name as carried); a weapon gone takes its attack along.

    Raises:
        CombatError: ``c`` does not carry it (one line: "Brisa Tallowmere has no healing potion").
    """
    where = holding(c, name)
    if where is None:
        raise CombatError(f"{c.name} has no {asked_name(name)}")
    table, key = where
    found = _pack_item(c, key)
    label = key if table == "gear" else _label(key, found[2]) if found else key.replace("_", " ").capitalize()
    counts = getattr(c, table)
    counts[key] = max(0, counts[key] - n)
    if counts[key] == 0:
        del counts[key]
        if found is not None and found[0] == "weapon" and table == "gear":
            c.attacks = [a for a in c.attacks if words_of(a.name) != words_of(found[1])]
    return label


def put(c: Combatant, name: str, n: int = 1, sheet: Any = None) -> str:
    """Give ``c`` ``n`` of ``name``: pack ammunition and potions into the counts the fight spends,
    everything else into ``gear``; a weapon new to ``c`` becomes an attack worked out from ``sheet``."""
    found = _pack_item(c, name)
    if found is not None and found[0] == "consumable":
        table = c.ammo if found[2].ammunition else c.items
        table[found[1]] = table.get(found[1], 0) + n
        return _label(found[1], found[2])
    thrown = found is not None and found[0] == "weapon" and any(a.ammo == found[1] for a in c.attacks)
    if thrown:  # a javelin joins the javelins already counted
        c.ammo[found[1]] = c.ammo.get(found[1], 0) + n
        return found[1].replace("_", " ").capitalize()
    same = next((k for k in c.gear if words_of(k) == words_of(name)), None)
    label = same or " ".join(name.split())
    c.gear[label] = c.gear.get(label, 0) + n
    if found is not None and found[0] == "weapon" and sheet is not None and not any(words_of(a.name) == words_of(found[1]) for a in c.attacks):
        new = attacks_from_items(sheet.model_copy(update={"items": {found[1]: 1}}))
        c.attacks = [a for a in c.attacks if a.name != "Weapon"] + new  # the plain stand-in weapon gives way to a real one
        for atk in new:
            if atk.ammo == found[1]:  # a thrown weapon is counted as it is thrown
                c.ammo[found[1]] = c.ammo.get(found[1], 0) + c.gear.pop(label)
    return label


def hand_over(giver: Combatant, receiver: Combatant | None, name: str, n: int = 1, sheet: Any = None) -> str:
    """Move ``n`` of ``name`` from ``giver`` to ``receiver`` (None: someone who is not a character, an NPC).

    Raises:
        CombatError: the giver does not carry it; nothing moves.
    """
    label = take(giver, name, n)
    if receiver is not None:
        put(receiver, label, n, sheet)
    return label


def gather(c: Combatant, name: str | None = None) -> str | None:
    """After a fight, pick up what ``c`` shot or threw (``name``: only what it names, "my arrows"): half the
    arrows and bolts, rounded down (SRD 5.1, "Ammunition"), and every thrown weapon (a javelin lies
    whole where it fell; our reading, the SRD is silent). The line said, or None when nothing of it was spent."""
    asked = words_of(name or "")
    got = []
    for key, n in list(c.spent.items()):
        found = _pack_item(c, key)
        label = _label(key, found[2]) if found else key.replace("_", " ").capitalize()
        if asked and not any(_names({w}, words_of(key) | words_of(label)) for w in asked):
            continue
        back = n // 2 if found is not None and found[0] == "consumable" else n
        c.ammo[key] = c.ammo.get(key, 0) + back
        del c.spent[key]
        got.append(f"{back} of {n} {label.lower()}{'s' if n != 1 and not label.endswith('s') else ''}")
    return f"{c.name} gathers {', '.join(got)}" if got else None


def things_line(things: dict[str, int]) -> str:
    """``Shortsword, Shortbow, Arrows ×19, Potion of Healing`` (or ``nothing``)."""
    return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in things.items() if n > 0) or "nothing"


def used_up(item: str) -> bool:
    """``item`` names something the pack lets one drink or use up for an effect (a healing potion)."""
    try:
        kind, _, found = find_item(item)
    except CombatError:
        return False
    return kind == "consumable" and bool(getattr(found, "heal", None))


def asked_name(item: str) -> str:
    """The thing as the player named it, without "my", "the": "my healing potion" → "healing potion"."""
    return " ".join(w for w in item.split() if w.lower() not in ("my", "the", "a", "an", "his", "her", "their", "our", "your", "one"))


@dataclass
class ItemAct:
    """A line read as handing a thing to someone (``give``) or drinking / using one up (``use``)."""

    kind: Literal["give", "use", "gather"]
    item: str
    to: str | None = None  # give: the one it goes to; use: the one it is used on (None: oneself)


_GIVE = re.compile(r"\b(?:give|gives|hand|hands|pass|passes|lend|lends|offer|offers|slide|slides)\b\s+(?P<rest>.+)$", re.I)
_USE = re.compile(r"\b(?:drink|drinks|quaff|quaffs|down|downs|swig|swigs|use|uses|pour|pours|feed|feeds|administer|administers)\b\s+(?P<rest>.+)$", re.I)
_GATHER = re.compile(r"\b(?:gather|gathers|collect|collects|recover|recovers|retrieve|retrieves|pick(?:s)? up|fetch|fetches|round(?:s)? up)\b\s+(?:up\s+)?(?P<rest>.+)$", re.I)
_END = re.compile(r"\s*(?:[,;.!?]|\band\b|\bthen\b|\bso\b|\bwhile\b|\bbefore\b|\bafter\b).*$", re.I)


def _who(rest: str, names: list[str], actor: str) -> tuple[str | None, str]:
    """The first name in ``rest`` (not the actor), and ``rest`` without it and its "to" / "on" / "down ...'s throat"."""
    for name in sorted(names, key=len, reverse=True):
        if name == actor or actor.startswith(name + " "):
            continue
        m = re.search(rf"(?:\b(?:over\s+)?(?:to|on|for|down)\s+)?\b{re.escape(name)}(?:'s(?:\s+throat|\s+lips|\s+mouth)?)?\b", rest, re.I)
        if m:
            return name, (rest[:m.start()] + " " + rest[m.end():]).strip()
    return None, rest


# "I give Maren a little bow", "give him a nod": a courtesy, no thing handed over (not the shortbow)
_GESTURE = re.compile(r"^(?:a|an)\s+(?:[\w'’-]+\s+){0,2}?(?:bow|nod|wave|smile|grin|wink|salute|curtsy|curtsey|shrug|look|glance|"
                      r"stare|hug|kiss|pat|handshake|hand|thumbs[- ]up|tip of (?:the|my|his|her) hat)$", re.I)


def read_item_act(text: str, actor: str, names: list[str]) -> ItemAct | None:
    """``"I give the potion to Brisa"`` → give "the potion" to Brisa; ``"I hand Maren the key"`` → give "the key"
    to Maren; ``"I drink my healing potion"`` → use it. ``names`` are the people who could take it
    (characters and NPCs, full and first names). None when the line does neither."""
    if (m := _GIVE.search(text)) is not None:
        to, item = _who(m.group("rest"), names, actor)
        item = re.sub(r"^(?:over|back)\s+|\s+(?:over|back)$", "", _END.sub("", item).strip(), flags=re.I).strip()
        if to is not None and item and not re.match(r"(?:it|them|him|her|up|in|out)$", item, re.I) and not _GESTURE.match(re.sub(r"^(?:the|to)\s+", "", " ".join(item.split()), flags=re.I)):
            return ItemAct("give", item, to)
        return None
    if (m := _GATHER.search(text)) is not None:  # "I gather my arrows": what was shot or thrown, after the fight
        item = re.sub(r"\s*(?:[;.!?]|\bthen\b|\bbefore\b|\bafter\b).*$", "", m.group("rest"), flags=re.I).strip()
        return ItemAct("gather", item) if item else None  # "our arrows and javelins": each thing named
    if (m := _USE.search(text)) is not None:
        to, item = _who(_END.sub("", m.group("rest")), names, actor)
        item = re.sub(r"\s+(?:on|to)\s+(?:me|myself)$", "", item.strip(), flags=re.I).strip()
        return ItemAct("use", item, to) if item else None
    return None
