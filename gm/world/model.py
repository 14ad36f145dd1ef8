"""The world a scene happens in: who is here and what they know, where things are, what is true.

The GM answers a question from this record instead of letting a model invent (and later
contradict) the answer; outcomes change it (``gm.world.state``) and it is saved with the
session, so a resumed game remembers who holds the reliquary.
"""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["Knowledge", "Npc", "Thing", "Exit", "Place", "Fact", "World", "world_problem"]

_OPPOSITE = {"open": {"closed", "locked"}, "closed": {"open"}, "locked": {"unlocked", "open"},
             "unlocked": {"locked"}, "taken": {"hidden"}, "found": {"hidden"}, "broken": {"whole"}}


def _key(text: str) -> str:
    """A name as compared: lower case, no leading article, single spaces, no possessive."""
    text = " ".join(str(text).lower().replace("’", "'").split())
    return re.sub(r"^(?:the|a|an|old|young) ", "", text).removesuffix("'s")


def _find(items: list, name: str, names) -> Any:
    """The item called ``name``: whole name or alias first, then one unique word of a name."""
    want = _key(name)
    if not want:
        return None
    for item in items:
        if want in {_key(n) for n in names(item)}:
            return item
    hits = [item for item in items if any(want in (w, w.rstrip("s")) or want.rstrip("s") == w.rstrip("s")
                                          for n in names(item) for w in _key(n).split() if len(w) > 2)]
    return hits[0] if len(hits) == 1 else None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Knowledge(_Strict):
    """One thing an NPC can tell: free, only after a check of ``checks`` succeeds, or ``never``."""

    topic: str
    answer: str
    keywords: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)  # empty: told to anyone who asks
    never: bool = False  # the NPC never tells, whatever the roll
    difficulty: int | str | None = None

    @property
    def free(self) -> bool:
        return not self.checks and not self.never


class Npc(_Strict):
    """Someone the GM plays, with how they talk and what they know."""

    name: str
    aliases: list[str] = Field(default_factory=list)
    role: str = ""
    present: bool = True  # in the scene now (an absent NPC cannot answer)
    alive: bool = True
    disposition: str = "neutral"
    voice: str = ""
    knows: list[Knowledge] = Field(default_factory=list)


class Thing(_Strict):
    """An object that can be found, held, opened or broken. ``where`` is a place or a holder."""

    name: str
    aliases: list[str] = Field(default_factory=list)
    where: str = ""
    states: list[str] = Field(default_factory=list)  # locked, broken, open, taken, hidden, fixed (cannot be carried)
    description: str = ""


class Exit(_Strict):
    to: str
    way: str = ""  # "north", "up the broken stair"
    distance: str = ""  # "thirty feet", "two miles"


class Place(_Strict):
    name: str
    aliases: list[str] = Field(default_factory=list)
    description: str = ""
    exits: list[Exit] = Field(default_factory=list)


class Fact(_Strict):
    """Something true in the world; ``public`` facts may be told to the players."""

    text: str
    about: list[str] = Field(default_factory=list)
    source: Literal["scenario", "reader", "decided", "outcome"] = "scenario"
    turn: int | None = None
    public: bool = True  # False: the GM's own notes, kept in mind but not volunteered


class World(_Strict):
    """Everything the GM holds true about the scene. Every key is optional in a scenario's ``world:``."""

    era: str = ""
    time: str = ""
    here: str = ""
    places: list[Place] = Field(default_factory=list)
    things: list[Thing] = Field(default_factory=list)
    npcs: list[Npc] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)

    def npc(self, name: str) -> Npc | None:
        """The NPC called ``name`` (whole name, alias or a unique part such as the first name), any case."""
        return _find(self.npcs, name, lambda n: [n.name, *n.aliases])

    def thing(self, name: str) -> Thing | None:
        return _find(self.things, name, lambda t: [t.name, *t.aliases])

    def place(self, name: str) -> Place | None:
        return _find(self.places, name, lambda p: [p.name, *p.aliases])

    def holder_of(self, thing: str) -> str | None:
        """Who holds ``thing`` (an NPC or character name), or None when it lies somewhere or is unknown."""
        found = self.thing(thing)
        if found is None or not found.where or self.place(found.where) is not None:
            return None
        return found.where

    def give(self, thing: str, to: str) -> Thing:
        """``to`` now holds ``thing`` (added when the world did not list it)."""
        found = self.thing(thing)
        if found is None:
            found = Thing(name=thing)
            self.things.append(found)
        found.where = to
        return found

    def set_state(self, thing: str, state: str, on: bool = True) -> Thing:
        """Add (or with ``on=False`` remove) a state; opening a thing also ends closed and locked."""
        found = self.thing(thing) or self.give(thing, "")
        state = state.strip().lower()
        if on:
            found.states = [s for s in found.states if s not in _OPPOSITE.get(state, set())]
            if state not in found.states:
                found.states.append(state)
        else:
            found.states = [s for s in found.states if s != state]
        return found

    def add_fact(self, text: str, about: list[str] | None = None, source: str = "decided",
                 turn: int | None = None, public: bool = True) -> Fact:
        """Store a fact once: the same text again returns the stored one, so a decision is never made twice."""
        same = " ".join(text.lower().split())
        for fact in self.facts:
            if " ".join(fact.text.lower().split()) == same:
                return fact
        fact = Fact(text=text.strip(), about=list(about or []), source=source, turn=turn, public=public)
        self.facts.append(fact)
        return fact

    def npcs_present(self) -> list[Npc]:
        return [n for n in self.npcs if n.present and n.alive]

    def described(self, text: str) -> str | None:
        """The NPC here a line points at by what the scene says of them, not by name: "asks the old guy mending
        nets" is Jonah ("mending nets alone, sits Jonah Whitlock"), "the woman with the clipboard" the supervisor.
        The one whose sentences (and role) share the most of the line's telling words, when no other ties."""
        here = self.npcs_present()
        if len(here) < 2:
            return None
        told = {n.name: _telling(" ".join([n.role, *(f.text for f in self.facts if n.name in f.about)])) for n in here}
        common = set.intersection(*told.values()) if told else set()
        words = _telling(text)
        shared = sorted(((len((told[n] - common) & words), n) for n in told), reverse=True)
        best, runner = shared[0], shared[1]
        return best[1] if best[0] > runner[0] else None

    def public_facts(self) -> list[Fact]:
        return [f for f in self.facts if f.public]


def _item_name(data: Any) -> str:
    if isinstance(data, dict):
        for key in ("name", "topic", "to", "text"):
            if isinstance(data.get(key), str):
                text = data[key]
                return f" ({text if len(text) <= 40 else text[:39] + '…'})"
    return ""


def world_problem(data: Any) -> str | None:
    """None when ``data`` is a valid ``world:`` mapping, else one line naming the item and the key.

    e.g. ``world.npcs[0] (Maren).knows[1] (where the reliquary is): key 'answer': Field required``.
    """
    try:
        World.model_validate(data)
        return None
    except ValidationError as exc:
        first = exc.errors()[0]
        where, node, key = "world", data, ""
        loc = list(first["loc"]) or [""]
        for i, part in enumerate(loc):
            if isinstance(part, int) and isinstance(node, list) and part < len(node):
                node = node[part]
                where += f"[{part}]{_item_name(node)}"
            elif i < len(loc) - 1 and isinstance(node, dict) and isinstance(node.get(part), (dict, list)):
                node = node[part]
                where += f".{part}"
            else:
                key = str(part)
                break
        what = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        return f"{where}: key {key!r}: {what}" if key else f"{where}: {what}"


_PLAIN = set("""the and that this with from into onto over under about what when where which while their there them they then
than your yours have has had was were been being just also some more most very much many other others here asks ask asked
tell tells told says said look looks looking goes down walks wanders guy man woman lady fellow bloke chap person folk people
girl boy kid sits sitting stands standing old young""".split())


def _telling(text: str) -> set[str]:
    """A text's words that can tell one person from another: four letters or more, not plain, a plural as its singular."""
    words = re.findall(r"[a-z]{4,}", text.lower())
    return {w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in words if w not in _PLAIN}
