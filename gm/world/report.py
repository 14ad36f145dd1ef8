"""What the GM made of a scenario's world, in lines a scenario author can act on."""
from __future__ import annotations

import re
from typing import Any

from .model import Npc, World

__all__ = ["understood", "not_understood", "leaks"]

_WORD = re.compile(r"[a-z][a-z'-]{4,}")


def _told(npc: Npc) -> str:
    free = sum(k.free for k in npc.knows)
    behind = sorted({c for k in npc.knows if not k.never for c in k.checks})
    never = sum(k.never for k in npc.knows)
    parts = [f"{free} free"] + ([f"{len(npc.knows) - free - never} behind {'/'.join(behind)}"] if behind else [])
    return f"knows {len(npc.knows)} ({', '.join(parts + ([f'{never} never'] if never else []))})"


def understood(world: World) -> list[str]:
    """One line per thing the GM took from the scenario: era, here, NPCs, places and exits, things, facts."""
    lines = [f"era: {world.era or '—'}; time: {world.time or '—'}; here: {world.here or '—'}"]
    for npc in world.npcs:
        status = ", ".join(s for s, on in (("dead", not npc.alive), ("absent", npc.present is False and npc.alive)) if on)
        lines.append(f"NPC {npc.name}{f' ({status})' if status else ''}: {npc.role or 'no role'}; "
                     f"{npc.disposition}; voice: {npc.voice or '—'}; {_told(npc)}")
    for place in world.places:
        exits = "; ".join(f"{e.way or 'way'} to {e.to}" + (f" ({e.distance})" if e.distance else "") for e in place.exits)
        lines.append(f"place {place.name}: {exits or 'no exits'}")
    lines += [f"thing {t.name}: {t.where or 'nowhere said'}" + (f" [{', '.join(t.states)}]" if t.states else "") for t in world.things]
    public = len(world.public_facts())
    lines.append(f"facts: {len(world.facts)} ({public} the players may hear, {len(world.facts) - public} GM-only)")
    return lines


def leaks(world: World, scenario: Any) -> list[str]:
    """Free answers that carry most of a secret's distinctive words: they would tell the secret unrolled."""
    out = []
    for secret in getattr(scenario, "secrets", []):
        words = set(_WORD.findall(secret.text.lower()))
        for npc in world.npcs:
            for i, item in enumerate(npc.knows):
                shared = words & set(_WORD.findall(item.answer.lower()))
                if item.free and words and len(shared) >= max(3, len(words) // 2):
                    out.append(f"{npc.name}: knows[{i}] ({item.topic}) is told freely but carries secret "
                               f"{secret.id!r}; give it checks: {secret.checks} or never: true")
    return out


def not_understood(world: World, scenario: Any = None) -> list[str]:
    """Warnings: what the GM could not find (no NPC, no exits, no era...), and free answers that tell a secret."""
    out = []
    if not world.npcs:
        out.append("no NPC named in the scene; add npcs: or world.npcs")
    elif not world.npcs_present():
        out.append("no NPC is present and alive to talk to")
    out += [f"{n.name} knows nothing the GM can tell; add world.npcs[].knows so a question gets the same answer every time"
            for n in world.npcs_present() if not n.knows]
    if not world.places:
        out.append("no place found; add world.places")
    elif not any(p.exits for p in world.places):
        out.append("no exits found (\"a door to the north\", \"stairs lead down\"); add world.places[].exits")
    if not world.era:
        out.append("no era or year found; set world.era")
    if not world.facts:
        out.append("the scene gave no sentence the GM could use as a fact")
    return out + (leaks(world, scenario) if scenario is not None else [])
