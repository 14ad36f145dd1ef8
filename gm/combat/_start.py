"""Starting a fight: combatants from sheets and stat blocks, initiative, surprise, the first turn."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from ..systems import Sheet, parse_character, system_of
from ._combat import Combat, pack_rules
from ._common import can_act, event
from ._data import BLOCKS, Encounter, FoeRef, Gear, encounter_for, find_monster, load_encounter, monster_block, party_gear
from ._model import CombatError, Combatant, rules_for

__all__ = ["start_combat", "start_encounter", "combatant_from_sheet", "monster"]

GEAR_KEYS = set(Gear.model_fields)


def _pack(pack: Any):
    return pack_rules(pack) if isinstance(pack, str) else pack


def combatant_from_sheet(sheet: Sheet | dict, pack: Any, gear: Gear | dict | None = None) -> Combatant:
    """A player character in a fight, from a sheet (or its mapping; ``attacks:`` etc. may ride along).

    Weapons come from ``gear``, else the shipped gear of a ready character, else a plain weapon.
    """
    ruleset = _pack(pack)
    system = system_of(ruleset)
    if isinstance(sheet, dict):
        data = dict(sheet)
        extra = {k: data.pop(k) for k in list(data) if k in GEAR_KEYS}
        if extra and gear is None:
            try:
                gear = Gear.model_validate(extra)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise CombatError(f"sheet of {data.get('name', '?')!r}: key {'.'.join(map(str, first['loc']))!r}: {first['msg']}") from None
        sheet = parse_character(data, ruleset)
    if isinstance(gear, dict):
        gear = Gear.model_validate(gear)
    gear = gear or party_gear(ruleset.name, sheet.name)
    return rules_for(system).build_pc(sheet, ruleset, gear)


def monster(pack: Any, monster_id: str, name: str | None = None) -> Combatant:
    """A foe from a shipped stat block (``monster("dnd5e", "goblin", "Goblin 1")``)."""
    ruleset = _pack(pack)
    key, block = find_monster(ruleset.name, monster_id)
    return rules_for(system_of(ruleset)).build_foe(block, name or block.name, key, ruleset)


def _foes(ruleset, foes: Iterable[Any], distance: int) -> list[Combatant]:
    out: list[Combatant] = []
    system = system_of(ruleset)
    for item in foes:
        if isinstance(item, Combatant):
            out.append(item)
            continue
        if isinstance(item, tuple(BLOCKS.values())):
            c = rules_for(system).build_foe(item, item.name, item.name.lower().replace(" ", "_"), ruleset)
            c.position = distance
            out.append(c)
            continue
        ref = FoeRef(monster=item) if isinstance(item, str) else FoeRef.model_validate(item) if isinstance(item, dict) else item
        for i in range(ref.count):
            base = ref.name or monster_block(ruleset.name, ref.monster).name
            c = monster(ruleset, ref.monster, f"{base} {i + 1}" if ref.count > 1 else base)
            c.position = ref.distance if ref.distance is not None else distance
            if ref.morale:
                c.morale = ref.morale
            out.append(c)
    return out


def _unique(combatants: list[Combatant]) -> dict[str, Combatant]:
    seen: dict[str, Combatant] = {}
    for c in combatants:
        name, n = c.name, 2
        while name in seen:
            name, n = f"{c.name} {n}", n + 1
        c.name = name
        seen[name] = c
    return seen


def start_combat(pack: Any, party_sheets: Iterable[Any], foes: Iterable[Any], rng: random.Random | None = None, *,
                 seed: int | None = None, distance: int = 30, ambush: bool = False, sanity: bool = True,
                 gear: dict[str, Gear | dict] | None = None) -> Combat:
    """Open a fight: the party at 0 ft, the foes at ``distance``; initiative; the first turn begins.

    Args:
        pack: a pack name (``"dnd5e"``) or a loaded pack.
        party_sheets: ``Sheet``s, sheet mappings, or ready ``Combatant``s.
        foes: monster ids (``"goblin"``), ``{monster, count, name, distance}`` mappings, stat
            blocks or ``Combatant``s.
        rng: the dice; None draws them from the fight's seed.
        ambush: dnd5e: the foes hide first; whoever misses them is surprised for a turn.
        sanity: coc7e: the party rolls Sanity for each horror it sees.
        gear: weapons per character name, over the shipped gear.

    Raises:
        CombatError: an unknown monster or an unusable sheet, in one line.
    """
    ruleset = _pack(pack)
    system = system_of(ruleset)
    rules = rules_for(system)
    party: list[Combatant] = []
    for item in party_sheets:
        if isinstance(item, Combatant):
            party.append(item)
            continue
        name = item.get("name") if isinstance(item, dict) else item.name
        party.append(combatant_from_sheet(item, ruleset, (gear or {}).get(name)))
    if not party:
        raise CombatError("a fight needs at least one character; give the party's sheets")
    enemies = _foes(ruleset, foes, distance)
    if not enemies:
        raise CombatError("a fight needs at least one foe; name a monster from gm/data/monsters/")
    combat = Combat(pack=ruleset.name, system=system, combatants=_unique(party + enemies), **({"seed": seed} if seed is not None else {}))
    rng = combat.rng(rng)
    events = rules.roll_initiative(combat, rng)
    combat.order = sorted(combat.combatants, key=lambda n: rules.sort_key(combat.combatants[n]))
    events += rules.opening(combat, rng, ambush=ambush, sanity=sanity)
    events.append(event(combat, "GM", "order", "Initiative: " + combat.order_text().split(": ", 1)[1]))
    first = combat.current
    events += rules.start_turn(combat, first, rng)
    first.acted_round = 1
    combat._emit(events)
    if not can_act(first):
        combat._emit([event(combat, first, "turn", f"{first.name} cannot act this turn")])
        combat.next_turn(rng)
    else:
        combat._emit([event(combat, first, "turn", f"{first.name}'s turn ({first.hp_text()})")])
    return combat


def start_encounter(encounter: str | Path | Encounter | Any, party_sheets: Iterable[Any], rng: random.Random | None = None, **kwargs: Any) -> Combat:
    """Open the fight an encounter file describes (an id, a path, an ``Encounter`` or a scenario)."""
    if isinstance(encounter, Encounter):
        enc = encounter
    elif isinstance(encounter, (str, Path)):
        enc = load_encounter(encounter)
    else:
        enc = encounter_for(encounter)
        if enc is None:
            raise CombatError(f"scenario {getattr(encounter, 'id', encounter)!r} has no encounter; add gm/data/encounters/<id>.yaml")
    options = {"distance": enc.distance, "ambush": enc.ambush, "sanity": enc.sanity, **kwargs}
    return start_combat(enc.ruleset, party_sheets, [f.model_dump() for f in enc.foes], rng, **options)
