"""Outcomes that change the world: a find, a foe down, a door opened, a thing taken.

Pure functions over a ``World``: each changes it in place and returns the facts it added
(``source="outcome"``), so the caller can log them and later replies can be checked against them.
"""
from __future__ import annotations

import re

from .model import Fact, Place, Thing, World

__all__ = ["found", "foe_down", "opened", "took", "gave", "used_up", "moved", "settle"]


def _named_in(world: World, text: str) -> list[Thing]:
    """The things whose name or alias ``text`` mentions, longest name first."""
    hits = sorted(((len(n), i) for i, t in enumerate(world.things) for n in [t.name, *t.aliases]
                   if n and re.search(rf"(?<![\w-]){re.escape(n.lower().removeprefix('the ').strip())}(?![\w-])", text.lower())),
                  key=lambda h: -h[0])
    return [world.things[i] for i in dict.fromkeys(i for _, i in hits)]


def found(world: World, what: str, by: str, turn: int | None = None) -> list[Fact]:
    """``by`` found ``what`` (a thing's name, or a secret's text): a carryable thing it names is now theirs.

    A thing with the state ``fixed`` (an altar, a chained door) is found where it is, never carried.
    """
    thing = world.thing(what)
    things = [thing] if thing is not None else _named_in(world, what)
    added = [] if thing is not None else [world.add_fact(what, [by], "outcome", turn)]
    for item in things:
        world.set_state(item.name, "found")
        if "fixed" in item.states:
            continue
        world.give(item.name, by)
        added.append(world.add_fact(f"{by} has {item.name}", [by, item.name], "outcome", turn))
    return added


def foe_down(world: World, name: str, dead: bool = False, turn: int | None = None) -> list[Fact]:
    """A foe is out of the fight; ``dead`` also makes an NPC of that name dead (they cannot answer)."""
    npc = world.npc(name)
    who = npc.name if npc else name
    if npc is not None and dead:
        npc.alive = False
    return [world.add_fact(f"{who} is {'dead' if dead else 'down'}", [who], "outcome", turn)]


def opened(world: World, thing: str, by: str | None = None, turn: int | None = None) -> list[Fact]:
    """``thing`` is open (no longer closed or locked)."""
    item = world.set_state(thing, "open")
    text = f"{item.name} is open" + (f", opened by {by}" if by else "")
    return [world.add_fact(text, [item.name, *([by] if by else [])], "outcome", turn)]


def took(world: World, thing: str, by: str, turn: int | None = None) -> list[Fact]:
    """``by`` took ``thing``: they hold it now."""
    item = world.give(thing, by)
    world.set_state(item.name, "taken")
    return [world.add_fact(f"{by} has {item.name}", [by, item.name], "outcome", turn)]


def gave(world: World, thing: str, by: str, to: str, turn: int | None = None) -> list[Fact]:
    """``by`` handed ``thing`` to ``to`` (a character or an NPC): ``to`` holds it now. The thing is
    marked ``carried`` (it is in someone's hands, not to be picked up again from the scene)."""
    item = world.give(thing, to)
    world.set_state(item.name, "carried")
    return [world.add_fact(f"{to} has {item.name}, given by {by}", [to, by, item.name], "outcome", turn)]


def used_up(world: World, thing: str, by: str, on: str | None = None, turn: int | None = None) -> list[Fact]:
    """``by`` drank or used up one ``thing`` (on ``on``, else themself): a fact, and the world's
    thing of that name, if ``by`` held it, is no longer held (it is gone)."""
    item = world.thing(thing)
    if item is not None and item.where == by:
        item.where = ""
        world.set_state(item.name, "used")
    text = f"{by} used {thing}" + (f" on {on}" if on and on != by else "")
    return [world.add_fact(text, [by, *([on] if on and on != by else [])], "outcome", turn)]


def moved(world: World, to: str, turn: int | None = None) -> list[Fact]:
    """The party is now at ``to`` (a known place, or a new one)."""
    place = world.place(to)
    world.here = place.name if place else to
    if place is None:
        world.places.append(Place(name=to))
    return [world.add_fact(f"The party is at {world.here}", [world.here], "outcome", turn)]


# an act that moves a thing or opens it, by its verb: what a successful (or unrolled) act leaves changed
_TAKE = re.compile(r"\b(?:take|takes|took|grab|grabs|pick(?:s|ed)? up|pocket|pockets|snatch|snatches|lift|lifts|pull(?:s)? out|"
                   r"pry|pries|prise|collect|collects|gather|gathers|keep|keeps|steal|steals)\b", re.I)
_OPEN = re.compile(r"\b(?:open|opens|opened|unlock|unlocks|unlocked|unbar|unbars|unchain|unchains|force(?:s)? open|kick(?:s)? (?:in|open)|"
                   r"break(?:s)? open|pick(?:s)? the lock)\b", re.I)


def settle(world: World, text: str, by: str, turn: int | None = None) -> list[Fact]:
    """What an act that worked changes: a thing it takes is now ``by``'s, a thing it opens is open.
    Only things the world knows, named in the act; "I take a deep breath" changes nothing."""
    added: list[Fact] = []
    named = [t for t in _named_in(world, text) if "hidden" not in t.states]
    if _OPEN.search(text):
        for thing in named[:1]:
            added += opened(world, thing.name, by, turn)
    elif _TAKE.search(text):
        for thing in named[:1]:
            if "fixed" not in thing.states:
                added += took(world, thing.name, by, turn)
    return added
