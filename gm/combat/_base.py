"""The combat rules every system starts from: the protocol's defaults, written once.

A rules module (``d20``, ``degrees``, ``percentile``, ``trait``) imports from here what it
keeps as is and defines only what its game does differently. A default that must reach a
system's own piece (its ``hurt``, its ``damage_roll``, its ``revive``) finds it through
``combat.rules``, so a new rule is written once and every system gets it.

``PROTOCOL`` names everything ``Combat``, the tactics and the opening read from a rules
module; ``tests/combat/test_base.py`` holds every module to it.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ..dice import Roll, roll
from ..systems import RollPlan
from ._common import dice, event, move, move_left, spend, tick
from ._model import Attack, CombatError, Combatant, CombatEvent, rules_for

if TYPE_CHECKING:
    from ._combat import Combat

PROTOCOL = (
    "SYSTEM", "ACTIONS", "TARGETED", "FREE_ACTIONS", "REORDER_EACH_ROUND", "INTERRUPT_USES_TURN", "DEFAULT_SKILLS", "RANGE_FEET",
    "INITIATIVE_ROLL", "build_pc", "build_foe", "roll_initiative", "sort_key", "new_round", "opening", "start_turn", "end_turn",
    "may_interrupt", "hurt", "damage", "damage_roll", "heal", "revive", "save", "health", "hp_text", "initiative_text",
    "reach_left", "longest_range", "worth_striking", "contest_plan", "contest", "ITEM_TABLES", "BONUS_ACTIONS", "rest",
)

FREE_ACTIONS = {"move"}  # movement needs no action, only feet
REORDER_EACH_ROUND = False  # the order is rolled once
TARGETED = {"attack"}  # the actions aimed at someone (the nearest enemy when no one is named)
INTERRUPT_USES_TURN = False  # no one acts out of turn
DEFAULT_SKILLS: dict[str, str] = {}  # an attack rolls its own bonus, not a skill
RANGE_FEET = 1  # stat block ranges are in feet
INITIATIVE_ROLL = "initiative"  # what the log says is rolled: "Keth rolls Perception for initiative: 14"
ITEM_TABLES = False  # the item tables of gm.combat.items (dnd5e's potions, weapons, ammunition) are not this game's
BONUS_ACTIONS = False  # no bonus action on a turn (a bonus-action spell is dnd5e's)
NIGHT = 8.0  # hours: a night's rest (dnd5e's long rest, pf2e's daily preparations)


# ---------------------------------------------------------------- the round


def roll_initiative(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    """d20 + the initiative modifier each (the systems that deal cards or read DEX replace this)."""
    out = []
    for c in combat.combatants.values():
        r = roll(f"1d20{c.init_mod:+d}" if c.init_mod else "1d20", rng)
        c.initiative, c.init_roll = r.total, r.breakdown
        out.append(event(combat, c, "initiative", f"{c.name} rolls {combat.rules.INITIATIVE_ROLL}: {r.total}", rolls=[r]))
    return out


def sort_key(c: Combatant) -> tuple:
    """Higher initiative first; a tie goes to the higher tie-breaker (``init_mod``), then by name."""
    return (-(c.initiative or 0), -c.init_mod, c.name)


def new_round(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    """Nothing happens between rounds."""
    return []


def opening(combat: "Combat", rng: random.Random, *, ambush: bool = False, sanity: bool = True) -> list[CombatEvent]:
    """Nothing happens before the first turn."""
    return []


def end_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """Durations that end now end; what is left of the turn is gone."""
    out = tick(combat, c, "end")
    c.actions_left = 0
    return out


def may_interrupt(combat: "Combat", c: Combatant) -> bool:
    """No one acts out of turn."""
    return False


# ---------------------------------------------------------------- harm and help


def damage_roll(c: Combatant, expr: str, rng: random.Random) -> Roll:
    """The roll of a damage expression the GM names (a trap's ``2d6``): below 0 counts as 0."""
    return dice(expr, rng)


def damage(combat: "Combat", t: Combatant, amount: int | str, rng: random.Random, *, damage_type: str = "",
           source: str = "GM") -> list[CombatEvent]:
    """Hurt ``t`` outside an attack (a trap, a fall, a spell): a number, or dice rolled by the system's ``damage_roll``."""
    rules = rules_for(t.system)
    if isinstance(amount, str):
        r = rules.damage_roll(t, amount, rng)
        return rules.hurt(combat, t, r.total, damage_type, rolls=[r], via=source, rng=rng)
    return rules.hurt(combat, t, max(0, int(amount)), damage_type, via=source, rng=rng)


def revive(t: Combatant) -> str:
    """What healing does to someone down, beyond the hit points (the system's own words); nothing by default."""
    return ""


def heal(combat: "Combat", t: Combatant, amount: int) -> list[CombatEvent]:
    """Hit points back up to the maximum; the system's ``revive`` says what else changes (``combat`` may be None: out of a fight)."""
    if t.status in ("dead", "fled"):
        raise CombatError(f"{t.name} is {t.status}; healing cannot reach them")
    t.hp = min(t.max_hp, t.hp + max(0, amount))
    text = f"{t.name} regains {amount} HP ({t.hp_text()})"
    return [event(combat, t, "heal", text + rules_for(t.system).revive(t), amount=amount)]


# ---------------------------------------------------------------- other actions


def move_action(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """Movement (no action): ``to`` a combatant, or ``distance`` feet away from the foes."""
    to = action.options.get("to") or action.target
    feet = int(action.options.get("distance", a.move_budget - a.moved))
    return move(combat, a, feet, combat.get(to) if to else None)


def caster_fields(sheet, pack: str) -> dict:
    """A sheet's spells and what it pays for them, as Combatant fields (``gm.combat.powers``; dnd5e uses ``gm.combat.spells``)."""
    from . import powers

    return powers.caster_fields(sheet, pack)


def cast_action(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """Cast a spell or power from the sheet (``options``: ``spell``, ``targets``, ``slot``), paid as the game says (``gm.combat.powers``)."""
    from . import powers

    spell = action.options.get("spell") or action.attack
    if not spell:
        raise CombatError(f"cast which spell? {a.name}'s sheet lists {', '.join(a.spells) or 'none'}")
    targets = [action.target, *action.options.get("targets", [])] if action.target else list(action.options.get("targets", []))
    return powers.cast_power(combat, a, spell, targets, action.options.get("slot"), rng)


def flee(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """Leave the fight (an action)."""
    spend(a, 1, "fleeing")
    a.status = "fled"
    return [event(combat, a, "flee", f"{a.name} flees the fight")]


# ---------------------------------------------------------------- what the fight and the tactics read


def health(c: Combatant) -> float:
    """How whole a combatant is, 0 to 1: the tactics pick on the weakest and flee when low."""
    return c.hp / c.max_hp if c.max_hp else 0.0


def hp_text(c: Combatant) -> str:
    """Health as hit points: ``31/31 HP``, ``12/31 HP +5 temp``."""
    temp = f" +{c.temp_hp} temp" if c.temp_hp else ""
    return f"{c.hp}/{c.max_hp} HP{temp}"


def initiative_text(c: Combatant) -> str:
    """The initiative as the order shows it: the number rolled (or DEX), ``-`` before any."""
    return "-" if c.initiative is None else f"{c.initiative:g}"


reach_left = move_left  # how far a creature can still go before it attacks


def longest_range(atk: Attack) -> int:
    """The farthest a ranged attack reaches (its last range band)."""
    return max(atk.range)


def worth_striking(c: Combatant, atk: Attack) -> bool:
    """Another attack this turn is always worth making."""
    return True


def contest_plan(c: Combatant, check_id: str, name: str) -> RollPlan:
    """The roll a combatant makes in a contest: d20 + its modifier for the check."""
    raw = c.checks.get(check_id)
    return RollPlan(system=c.system, check=check_id, check_name=name, modifier=int(raw or 0), why=f"{name} {int(raw or 0):+d}")


# ---------------------------------------------------------------- rest (outside a fight)


def rest(c: Combatant, hours: float, rng: random.Random) -> list[CombatEvent]:
    """Rest gives nothing back (``gm.combat.rest`` calls this for the living)."""
    return []


def regain(c: Combatant, field: str, amount: int, what: str) -> list[CombatEvent]:
    """Up to ``amount`` of the points ``field`` back, never above ``field``'s maximum, in one line
    (``Hosea Pike regains 5 power points (6/10)``); nothing when the sheet has no such points."""
    now, top = getattr(c, field), getattr(c, f"{field}_max")
    if now is None or top is None:
        return []
    back = min(amount, max(0, top - now))
    setattr(c, field, now + back)
    now += back
    text = (f"{c.name}'s {what}s are full ({now}/{top})" if back <= 0
            else f"{c.name} regains {back} {what}{'s' if back != 1 else ''} ({now}/{top})")
    return [event(None, c, "rest", text)]
