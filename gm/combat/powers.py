"""Casting in Call of Cthulhu, Pathfinder 2e and Savage Worlds: each game's price for magic.

The data is ``rulesets/packs/spells/powers.yaml`` (D&D 5e spells are ``gm.combat.spells``):

- coc7e: a spell costs magic points (an investigator has POW / 5) and Sanity (rolled on
  casting); too few magic points and it cannot be cast. Losing 5 or more Sanity at once is
  marked; Sanity 0 is permanent insanity.
- pf2e: a spell takes a slot of its rank (cantrips are free and grow with level), and its
  actions (2 here); damage against a basic save (DC 10 + level + 2 + key attribute): critical
  success none, success half, failure full, critical failure double.
- swade: an arcane skill roll (Faith, Spellcasting ...) against 4; success spends the power's
  points, failure 1; a raise does more.

    caster = combatant_from_sheet(margaret, "coc7e")      # spells: [Mend the Flesh] on her sheet
    cast_power(None, caster, "Mend the Flesh", [eddie])
"""
from __future__ import annotations

import math
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ._cast_targets import choose_targets, read_book
from ._common import event, spend
from ._model import CombatError, Combatant, CombatEvent, rules_for
from ..dice import natural, roll, trait_roll

__all__ = ["PowerBook", "power_book", "find_power", "caster_fields", "cast_power", "pf2e_slots", "POWERS_FILE"]

POWERS_FILE = Path(__file__).resolve().parents[2] / "rulesets" / "packs" / "spells" / "powers.yaml"
ARCANE = ("faith", "spellcasting", "psionics", "focus", "weird_science")
PACK_OF = {"percentile": "coc7e", "degrees": "pf2e", "trait": "swade"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CocSpell(_Strict):
    name: str
    magic_points: int = Field(ge=0)
    sanity: str
    heal: str | None = None
    damage: str | None = None
    about: str = ""


class Pf2Spell(_Strict):
    name: str
    rank: int = Field(ge=0, le=10)
    traditions: list[str] = Field(min_length=1)
    actions: int = Field(ge=1, le=3)
    save: str | None = None
    damage: str | None = None
    heal: str | None = None
    per_rank: str | None = None
    missiles: int | None = None
    about: str = ""


class SwadePower(_Strict):
    name: str
    power_points: int = Field(ge=1)
    damage: str | None = None
    raise_damage: str | None = None
    heal: int | None = None
    raise_heal: int | None = None
    condition: str | None = None
    about: str = ""


class PowerBook(_Strict):
    coc7e: dict[str, CocSpell]
    pf2e: dict[str, Pf2Spell]
    pf2e_casters: dict[str, tuple[str, str]]
    swade: dict[str, SwadePower]


@cache
def power_book() -> PowerBook:
    """The shipped spells and powers, read and checked once (a mistake is one line naming the key)."""
    return read_book(POWERS_FILE, PowerBook, "spells and powers")


def find_power(pack: str, name: str) -> tuple[str, Any]:
    """A spell or power of ``pack`` by id or name; one line naming the ones the pack has otherwise."""
    table = getattr(power_book(), pack)
    key = re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")
    if key not in table:
        raise CombatError(f"no spell {name!r} in {pack}; it has {', '.join(s.name for s in table.values())}")
    return key, table[key]


def pf2e_slots(level: int) -> dict[int, int]:
    """A full caster's slots by rank: ranks up to half the level (rounded up), 3 each, 2 in a rank just gained."""
    top = math.ceil(level / 2)
    return {r: (2 if r == top and level % 2 else 3) for r in range(1, top + 1)}


def _pf2e_class(sheet: Any) -> str | None:
    words = set(re.findall(r"[a-z]+", f"{sheet.concept} {sheet.notes}".lower()))
    return next((k for k in power_book().pf2e_casters if k in words), None)


def caster_fields(sheet: Any, pack: str) -> dict[str, Any]:
    """Combatant fields for a caster of ``pack``: its spells and what it pays with."""
    spells = [find_power(pack, s)[0] for s in getattr(sheet, "spells", [])]
    if not spells:
        return {}
    if pack == "coc7e":
        mp = sheet.characteristics.get("power", 0) // 5
        return {"spells": spells, "magic_points": mp, "magic_points_max": mp}
    if pack == "swade":
        return {"spells": spells, "power_points": 10, "power_points_max": 10}
    klass = _pf2e_class(sheet)
    key = power_book().pf2e_casters[klass][1] if klass else "charisma"
    mod = sheet.attributes.get(key, 0)
    slots = pf2e_slots(sheet.level) if klass else {}
    return {"spells": spells, "slots": dict(slots), "slots_max": dict(slots), "spell_dc": 10 + sheet.level + 2 + mod,
            "focus_points": 1 if klass else None, "focus_points_max": 1 if klass else None,  # every caster class starts with a focus pool of 1
            "spell_attack": sheet.level + 2 + mod, "spell_mod": mod}


def problems(sheet: Any, pack: str) -> list[str]:
    """``spells:`` lines a sheet gets wrong: unknown ones, a pf2e spell outside the class's tradition or rank."""
    out = []
    klass = _pf2e_class(sheet) if pack == "pf2e" and sheet.spells else None
    for name in sheet.spells:
        try:
            _, spell = find_power(pack, name)
        except CombatError as exc:
            out.append(f"spells: {exc}")
            continue
        if pack == "pf2e":
            if klass is None:
                out.append(f"spells: {spell.name} on a sheet whose concept names no casting class (bard, cleric, wizard ...)")
                continue
            tradition = power_book().pf2e_casters[klass][0]
            if tradition not in spell.traditions:
                out.append(f"spells: {spell.name} is {' and '.join(spell.traditions)}; a {klass} casts {tradition} spells")
            elif spell.rank > max(pf2e_slots(sheet.level), default=0):
                out.append(f"spells: {spell.name} is rank {spell.rank}; a level {sheet.level} {klass} casts up to rank {max(pf2e_slots(sheet.level))}")
    if pack == "swade" and sheet.spells and not any(s in sheet.skills for s in ARCANE):
        out.append(f"spells: powers need an arcane skill ({', '.join(ARCANE)}); the sheet has none")
    return out


def _known(caster: Combatant, pack: str, name: str) -> tuple[str, Any]:
    if not caster.spells:
        raise CombatError(f"{caster.name} casts no spells: their sheet lists none")
    key, spell = find_power(pack, name)
    if key not in caster.spells:
        have = ", ".join(getattr(power_book(), pack)[s].name for s in caster.spells)
        raise CombatError(f"{caster.name} does not have {spell.name}; their sheet lists {have}")
    return key, spell


def _heal(combat, t: Combatant, amount: int, rolls, what: str) -> list[CombatEvent]:
    healed = rules_for(t.system).heal(combat, t, max(0, amount))
    return [e.model_copy(update={"rolls": rolls, "text": e.text + f" ({what})"}) for e in healed]


def _hurt(combat, t: Combatant, amount: int, rolls, what: str, rng) -> list[CombatEvent]:
    return rules_for(t.system).hurt(combat, t, max(0, amount), "", rolls=rolls, via=what, rng=rng)


def _coc(combat, caster, spell, targets, rng) -> list[CombatEvent]:
    if (caster.magic_points or 0) < spell.magic_points:
        raise CombatError(f"{spell.name} costs {spell.magic_points} magic points and {caster.name} has {caster.magic_points or 0}")
    caster.magic_points -= spell.magic_points
    lost = roll(spell.sanity, rng)
    before = caster.sanity or 0
    caster.sanity = max(0, before - lost.total)
    out = [event(combat, caster, "cast", f"{caster.name} casts {spell.name}: {spell.magic_points} magic points ({caster.magic_points} left) "
                 f"and {lost.total} Sanity ({caster.sanity} left)", rolls=[lost])]
    if caster.sanity == 0:
        caster.add("permanently insane")
        out.append(event(combat, caster, "sanity", f"{caster.name} has no Sanity left: permanently insane"))
    elif lost.total >= 5:
        out.append(event(combat, caster, "sanity", f"{caster.name} lost {lost.total} Sanity at once: the Keeper calls for an INT roll"))
    for t in targets:
        if spell.heal:
            r = roll(spell.heal, rng)
            out += _heal(combat, t, r.total, [r], spell.name)
        if spell.damage:
            r = roll(spell.damage, rng)
            out += _hurt(combat, t, r.total, [r], spell.name, rng)
    return out


def _rank_dice(spell: Pf2Spell, rank: int) -> tuple[str | None, str | None]:
    extra = max(0, rank - max(1, spell.rank))
    grow = "".join(f"+{spell.per_rank}" for _ in range(extra)) if spell.per_rank else ""
    return (spell.damage + grow if spell.damage else None), (spell.heal + grow if spell.heal else None)


def _pf2e(combat, caster, key, spell, targets, slot, rng) -> list[CombatEvent]:
    from ..systems.degrees import DEGREES, degree

    if spell.rank == 0:
        rank = max(1, math.ceil(caster.level / 2))  # a cantrip is heightened to half the level
        paid = "a cantrip"
    else:
        rank = slot or min((r for r, n in caster.slots.items() if n > 0 and r >= spell.rank), default=0)
        if not rank or caster.slots.get(rank, 0) <= 0:
            left = ", ".join(f"rank {r} {caster.slots.get(r, 0)}/{n}" for r, n in sorted(caster.slots_max.items())) or "none"
            raise CombatError(f"{caster.name} has no slot of rank {spell.rank} or higher left for {spell.name} (left: {left}); daily preparations restore them")
        if rank < spell.rank:
            raise CombatError(f"{spell.name} is rank {spell.rank}; it cannot go in a rank {rank} slot")
    if combat is not None:
        spend(caster, spell.actions, f"casting {spell.name} ({spell.actions} actions)")
    if spell.rank:
        caster.slots[rank] -= 1
        paid = f"a rank {rank} slot ({caster.slots[rank]} left)"
    out = [event(combat, caster, "cast", f"{caster.name} casts {spell.name} with {paid}")]
    damage, heal = _rank_dice(spell, rank)
    for t in targets:
        if heal:
            r = roll(heal, rng)
            out += _heal(combat, t, r.total, [r], spell.name)
        elif spell.missiles:
            rolls = [roll(spell.damage, rng) for _ in range(spell.missiles)]
            out += _hurt(combat, t, sum(r.total for r in rolls), rolls, f"{spell.missiles} shards of {spell.name}", rng)
        elif damage and spell.save:
            mod = int(t.checks.get(spell.save, 0))
            s = roll(f"1d20{mod:+d}" if mod else "1d20", rng)
            step = degree(s.total, caster.spell_dc or 10, natural(s))
            d = roll(damage, rng)
            amount = {2: 0, 1: d.total // 2, -1: d.total, -2: d.total * 2}[step]
            out.append(event(combat, t, "save", f"{t.name}'s basic {spell.save} save against {spell.name}: {s.total} vs DC {caster.spell_dc}, {DEGREES[step]}",
                             rolls=[s], hit=step > 0))
            if amount:
                out += _hurt(combat, t, amount, [d], spell.name, rng)
    return out


def _swade(combat, caster, spell, targets, rng) -> list[CombatEvent]:
    from ..dice import die_size

    if (caster.power_points or 0) < spell.power_points:
        raise CombatError(f"{spell.name} costs {spell.power_points} power points and {caster.name} has {caster.power_points or 0}")
    skill = next((s for s in ARCANE if s in caster.checks and str(caster.checks[s]) != "d4-2"), None)
    if skill is None:
        raise CombatError(f"{caster.name} has no arcane skill to cast {spell.name} with")
    if combat is not None:
        spend(caster, 1, f"casting {spell.name}")
    sides, step = die_size(str(caster.checks[skill]))
    r = trait_roll(f"d{sides}", step - min(caster.wounds, 3), wild=caster.wild_card, rng=rng)
    ok = r.total >= 4
    raised = ok and r.total >= 8
    cost = spell.power_points if ok else 1
    caster.power_points -= cost
    out = [event(combat, caster, "cast", f"{caster.name} casts {spell.name}: {skill.replace('_', ' ').title()} {r.total} vs 4, "
                 + ("success with a raise" if raised else "success" if ok else "failure") + f"; {cost} power point{'s' if cost != 1 else ''} ({caster.power_points} left)",
                 rolls=[r], hit=ok)]
    if not ok:
        return out
    for t in targets:
        if spell.heal:
            out += rules_for(t.system).heal(combat, t, spell.raise_heal if raised and spell.raise_heal else spell.heal)
        if spell.damage:
            d = roll(_explode(spell.raise_damage if raised and spell.raise_damage else spell.damage), rng)
            out += _hurt(combat, t, d.total, [d], spell.name, rng)
        if spell.condition:
            t.add(spell.condition, rounds=1, tick="end", source=caster.name)  # +2 Toughness (gm.combat.trait.hurt) to the end of its next turn
            out.append(event(combat, t, "condition", f"{t.name} is {spell.condition} ({spell.name})", target=t))
    return out


def _explode(expr: str) -> str:
    return re.sub(r"(\d*)d(\d+)", lambda m: f"{m.group(1) or 1}d{m.group(2)}e{m.group(2)}", expr)


def cast_power(combat, caster: Combatant, name: str, targets: list[Any] | None = None, slot: int | None = None,
               rng: random.Random | None = None) -> list[CombatEvent]:
    """Cast a spell or power the caster has, paying as its game says; ``combat`` None outside a fight.

    Raises:
        CombatError: not on the sheet, too few magic / power points, no slot: nothing is paid.
    """
    rng = rng or random.Random()
    pack = PACK_OF.get(caster.system)
    if pack is None:
        raise CombatError(f"{caster.system} spells are cast with gm.spells")
    key, spell = _known(caster, pack, name)
    harmful = bool(getattr(spell, "damage", None)) and not getattr(spell, "heal", None)
    chosen = choose_targets(combat, caster, harmful, list(targets or []), spell.name)
    if pack == "coc7e":
        return _coc(combat, caster, spell, chosen, rng)
    if pack == "pf2e":
        return _pf2e(combat, caster, key, spell, chosen, slot, rng)
    return _swade(combat, caster, spell, chosen, rng)
