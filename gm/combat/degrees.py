"""Pathfinder 2e combat (mechanic ``degrees``): three actions, the multiple attack penalty, degrees of success.

- Initiative: Perception (d20 + modifier); on a tie the foes go first, then by name.
- Three actions a turn (fewer when slowed or stunned); a fourth is refused. Strike, Stride,
  Step, Stand, Demoralize, Trip, Grapple and Flee each cost one; a melee Strike out of reach
  Strides first (and pays for it).
- The multiple attack penalty: the 1st / 2nd / 3rd+ attack of a turn takes 0 / -5 / -10
  (agile 0 / -4 / -8); Trip and Grapple count as attacks. It resets each turn.
- Degrees of success: beat the DC (AC) by 10 for a critical success, miss by 10 for a critical
  failure; natural 20 / 1 move one step. A critical Strike doubles the damage.
- Conditions with values: frightened N (status penalty to checks and DCs, -1 at the end of
  each of its turns), sickened N, slowed N, stunned N; off-guard (-2 AC), prone (off-guard, -2
  to attack), grabbed / restrained (off-guard, immobilised).
- 0 HP: a monster dies; a character is unconscious and dying 1 (2 from a critical) plus
  wounded; recovery checks (flat DC 10 + dying) at the start of its turn; dying 4 is death.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Literal

from ..dice import Roll, natural, roll
from ..systems.degrees import DEGREES, degree
from ._base import (caster_fields, cast_action, BONUS_ACTIONS, DEFAULT_SKILLS, INTERRUPT_USES_TURN, ITEM_TABLES, NIGHT, RANGE_FEET, REORDER_EACH_ROUND,  # noqa: F401 - the protocol's defaults
                    contest_plan, damage, damage_roll, heal, health, hp_text, initiative_text, may_interrupt, new_round,
                    opening, roll_initiative)
from ._base import end_turn as _end_turn
from ._common import approach, dice, distance, event, move, pick_attack, spend, tick
from ._model import Attack, CombatError, Combatant, CombatEvent
from ._opposed import Contestant, ContestRoll, OpposedResult
from .d20 import contest_side

if TYPE_CHECKING:
    from ._combat import Combat

SYSTEM = "degrees"
TARGETED = {"attack", "strike", "demoralize", "trip", "grapple"}
INITIATIVE_ROLL = "Perception for initiative"
FREE_ACTIONS: set[str] = set()  # every Stride and Step costs one of the three actions
ACTIONS_PER_TURN = 3
MAP = (0, -5, -10)
MAP_AGILE = (0, -4, -8)
OFF_GUARD = ("off-guard", "prone", "grabbed", "restrained", "unconscious", "paralyzed")


def multiple_attack_penalty(attacks_made: int, agile: bool = False) -> int:
    """The penalty of the next attack after ``attacks_made`` this turn: 0, -5, -10 (agile 0, -4, -8)."""
    steps = MAP_AGILE if agile else MAP
    return steps[min(attacks_made, 2)]


def status_penalty(c: Combatant) -> int:
    """Status penalties do not stack: the worst of frightened and sickened."""
    return max(c.value("frightened"), c.value("sickened"))


def effective_ac(c: Combatant) -> int:
    return (c.ac or 10) - status_penalty(c) - (2 if c.has(*OFF_GUARD) else 0)


# ---------------------------------------------------------------- building


def build_pc(sheet, pack, gear=None) -> Combatant:
    """A character from a pf2e sheet; Strikes from ``gear`` (or one trained weapon)."""
    checks = {cid: sheet.plan(pack, cid).modifier for cid in pack.checks}
    strength, dex = sheet.attributes.get("strength", 0), sheet.attributes.get("dexterity", 0)
    con = sheet.attributes.get("constitution", 0)
    hp = sheet.hp or 8 + (8 + con) * sheet.level
    attacks = list(gear.attacks) if gear and gear.attacks else [
        Attack(name="Weapon", bonus=sheet.level + 2 + max(strength, dex), damage=f"1d8{strength:+d}" if strength else "1d8", damage_type="slashing")]
    return Combatant(name=sheet.name, side="party", controller="player", system=SYSTEM, hp=hp, max_hp=hp,
                     ac=sheet.ac or 10 + dex + sheet.level + 2, speed=(gear.speed if gear and gear.speed else 25),
                     init_mod=checks.get("perception", 0), attacks=attacks, checks=checks, level=sheet.level, con_mod=con,
                     **caster_fields(sheet, pack.name))


def build_foe(block, name: str, monster_id: str, pack) -> Combatant:
    """An NPC from a pf2e stat block: listed Perception, saves and skills; attribute modifiers for the rest."""
    checks: dict[str, Any] = {}
    for cid, check in pack.checks.items():
        checks[cid] = block.attributes.get(check.ability, 0) if check.ability else 0
    checks.update(block.saves)
    checks.update(block.skills)
    checks["perception"] = block.perception
    return Combatant(name=name, side="foes", controller="gm", system=SYSTEM, monster=monster_id, hp=block.hp, max_hp=block.hp,
                     ac=block.ac, speed=block.speed or 25, init_mod=block.perception, attacks=block.attacks, checks=checks,
                     level=block.level, morale=block.morale)


# ---------------------------------------------------------------- the round


def sort_key(c: Combatant) -> tuple:
    """Higher initiative first; on a tie the foes act before the party, then by name."""
    return (-(c.initiative or 0), 0 if c.side == "foes" else 1, c.name)


def start_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """Three actions (less slowed / stunned), the multiple attack penalty back to 0, a recovery check if dying."""
    out = tick(combat, c, "start")
    c.attacks_made = 0
    c.moved = 0
    c.move_budget = 0
    if c.status == "down" and c.value("dying"):
        out += recovery_check(combat, c, rng)
    actions = ACTIONS_PER_TURN - c.value("slowed")
    stunned = c.value("stunned")
    if stunned:
        lost = min(stunned, max(0, actions))
        actions -= lost
        left = stunned - lost
        if left:
            c.condition("stunned").value = left
        else:
            c.drop("stunned")
        out.append(event(combat, c, "condition", f"{c.name} is stunned and loses {lost} action{'s' if lost != 1 else ''}"))
    c.actions_left = max(0, actions)
    return out


def end_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """Frightened goes down by 1; durations that end now end."""
    out = _end_turn(combat, c, rng)
    f = c.condition("frightened")
    if f is not None:
        f.value = (f.value or 1) - 1
        if f.value <= 0:
            c.drop("frightened")
            out.append(event(combat, c, "condition", f"{c.name} is no longer frightened"))
        else:
            out.append(event(combat, c, "condition", f"{c.name}'s fright eases to frightened {f.value}"))
    return out


# ---------------------------------------------------------------- strikes and damage


def strike(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """One Strike (1 action): d20 + bonus + MAP - status penalties vs AC, read in four degrees."""
    t = combat.get(action.target)
    atk = pick_attack(a, action.attack, distance(a, t))
    out = _close_in(combat, a, t, atk)
    spend(a, 1, f"a Strike with {atk.name}")
    if atk.kind == "ranged" and atk.range and distance(a, t) > atk.range[0] * 6:
        raise CombatError(f"{t.name} is {distance(a, t)} ft away, beyond six range increments of {atk.name}; Stride closer")
    penalty = multiple_attack_penalty(a.attacks_made, atk.agile)
    mods, why = penalty, ([f"MAP {penalty}"] if penalty else [])
    if status_penalty(a):
        mods -= status_penalty(a)
        why.append(f"status -{status_penalty(a)}")
    if a.has("prone"):
        mods -= 2
        why.append("prone -2")
    if atk.kind == "ranged" and atk.range and distance(a, t) > atk.range[0]:
        steps = (distance(a, t) - 1) // atk.range[0]
        mods -= 2 * steps
        why.append(f"range -{2 * steps}")
    a.attacks_made += 1
    total_bonus = atk.bonus + mods
    r = roll(f"1d20{total_bonus:+d}" if total_bonus else "1d20", rng)
    ac = effective_ac(t)
    step = degree(r.total, ac, natural(r))
    ac_why = f"AC {ac}" + (f" ({t.ac} {ac - (t.ac or 10):+d})" if ac != t.ac else "")
    out.append(event(combat, a, "attack", f"{a.name} Strikes {t.name} with {atk.name}: {r.total} vs {ac_why}, {DEGREES[step]}"
                     + (f" ({', '.join(why)})" if why else ""), target=t, rolls=[r], hit=step > 0))
    if step > 0:
        expr = f"({atk.damage})*2" if step == 2 else atk.damage
        d = dice(expr, rng)
        out += hurt(combat, t, d.total, crit=step == 2, rolls=[d], via=atk.name + (" (critical: double damage)" if step == 2 else ""))
        if atk.on_hit and t.status == "up":
            if t.add(atk.on_hit.condition, atk.on_hit.value, atk.on_hit.rounds, source=a.name):
                out.append(event(combat, t, "condition", f"{t.name} is {atk.on_hit.condition}" + (f" {atk.on_hit.value}" if atk.on_hit.value else "")))
    return out


def _close_in(combat: "Combat", a: Combatant, t: Combatant, atk: Attack) -> list[CombatEvent]:
    """A melee Strike out of reach Strides first, which costs an action of its own."""
    if atk.kind != "melee" or distance(a, t) <= max(atk.reach, 5):
        return []
    if a.has("grabbed", "restrained", "immobilized"):
        raise CombatError(f"{a.name} cannot move (grabbed or restrained) and {t.name} is out of reach")
    if a.actions_left < 2:
        raise CombatError(f"{t.name} is {distance(a, t)} ft away: Stride then Strike needs 2 actions and {a.name} has {a.actions_left}")
    spend(a, 1, "a Stride")
    a.move_budget = a.moved + a.speed
    return approach(combat, a, t, atk.reach)


def hurt(combat: "Combat", t: Combatant, amount: int, damage_type: str = "", *, crit: bool = False,
         rolls: list[Roll] | None = None, via: str = "", rng: random.Random | None = None) -> list[CombatEvent]:
    """Damage; at 0 HP a monster dies and a character is dying 1 (2 on a critical) plus wounded."""
    src = f" from {via}" if via else ""
    soaked = min(t.temp_hp, amount)
    t.temp_hp -= soaked
    taken = amount - soaked
    if t.status == "down":
        if not taken:
            return [event(combat, t, "damage", f"{t.name} takes no damage{src}", target=t, rolls=rolls or [], amount=0)]
        if t.value("dying") == 0 and t.is_player:  # stable at 0 HP: damage starts dying again
            t.add("dying", value=min(4, 1 + t.value("wounded")))
        else:
            d = t.condition("dying")
            if d is not None:
                d.value = min(4, (d.value or 0) + (2 if crit else 1))
        out = [event(combat, t, "damage", f"{t.name} takes {taken} damage{src} while down (dying {t.value('dying')})", target=t, rolls=rolls or [], amount=taken)]
        return out + _maybe_dead(combat, t)
    t.hp = max(0, t.hp - taken)
    text = f"{t.name} takes {taken} damage{src} ({t.hp_text()})"
    if t.hp == 0 and taken > 0:
        if not t.is_player:
            t.status = "dead"
            text += f"; {t.name} is slain"
        else:
            t.status = "down"
            t.add("unconscious")
            t.add("dying", value=min(4, (2 if crit else 1) + t.value("wounded")))
            text += f"; {t.name} falls unconscious, dying {t.value('dying')}"
    return [event(combat, t, "damage", text, target=t, rolls=rolls or [], amount=taken), *_maybe_dead(combat, t)]


def _maybe_dead(combat: "Combat", t: Combatant) -> list[CombatEvent]:
    if t.value("dying") >= 4:
        t.status = "dead"
        return [event(combat, t, "death", f"{t.name} reaches dying 4 and dies")]
    return []


def recovery_check(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """Flat check, DC 10 + dying: critical success -2, success -1, failure +1, critical failure +2."""
    dying = c.value("dying")
    dc = 10 + dying
    r = roll("1d20", rng)
    step = degree(r.total, dc, natural(r))
    change = {2: -2, 1: -1, -1: 1, -2: 2}[step]
    value = max(0, dying + change)
    out = [event(combat, c, "recovery", f"{c.name}'s recovery check: {r.total} vs DC {dc}, {DEGREES[step]} (dying {dying} → {value})", rolls=[r], hit=step > 0)]
    if value == 0:
        c.drop("dying")
        c.add("wounded", value=c.value("wounded") + 1)
        out.append(event(combat, c, "recovery", f"{c.name} is stable but unconscious (wounded {c.value('wounded')})"))
    else:
        c.condition("dying").value = min(4, value)
        out += _maybe_dead(combat, c)
    return out


def revive(t: Combatant) -> str:
    """Healing wakes a character at 0 HP; having been dying leaves them one step more wounded."""
    if t.status != "down" or t.hp <= 0:
        return ""
    if t.has("dying"):
        t.add("wounded", value=t.value("wounded") + 1)
    t.drop("dying", "unconscious")
    t.status = "up"
    return f" and wakes (wounded {t.value('wounded')})"


def save(combat: "Combat", c: Combatant, check: str, dc: int, rng: random.Random, advantage: int = 0) -> list[CombatEvent]:
    """A saving throw (Fortitude, Reflex, Will) against a DC, in four degrees."""
    name = combat.ruleset.checks[check].name if check in combat.ruleset.checks else check
    mod = int(c.checks.get(check, 0)) - status_penalty(c)
    r = roll(f"1d20{mod:+d}" if mod else "1d20", rng)
    step = degree(r.total, dc, natural(r))
    return [event(combat, c, "save", f"{c.name} makes a {name} save: {r.total} vs DC {dc}, {DEGREES[step]}", rolls=[r], hit=step > 0)]


# ---------------------------------------------------------------- other actions


def _skill_vs_dc(combat, a, t, skill, defense, rng, attack_trait):
    """A skill action against a defence DC (10 + modifier - status penalty), with MAP when it is an attack."""
    penalty = multiple_attack_penalty(a.attacks_made) if attack_trait else 0
    if attack_trait:
        a.attacks_made += 1
    mod = int(a.checks.get(skill, 0)) + penalty - status_penalty(a)
    dc = 10 + int(t.checks.get(defense, 0)) - status_penalty(t)
    r = roll(f"1d20{mod:+d}" if mod else "1d20", rng)
    step = degree(r.total, dc, natural(r))
    names = combat.ruleset.checks
    what = f"{names[skill].name if skill in names else skill} {r.total} vs {t.name}'s {names[defense].name if defense in names else defense} DC {dc}"
    return step, r, what + (f" (MAP {penalty})" if penalty else "")


def demoralize(combat, a, action, rng):
    """Intimidation vs Will DC (30 ft): frightened 1, or 2 on a critical success."""
    t = combat.get(action.target)
    if distance(a, t) > 30:
        raise CombatError(f"{t.name} is {distance(a, t)} ft away; Demoralize reaches 30 ft")
    spend(a, 1, "Demoralize")
    step, r, what = _skill_vs_dc(combat, a, t, "intimidation", "will", rng, attack_trait=False)
    text = f"{a.name} demoralizes {t.name}: {what}, {DEGREES[step]}"
    if step > 0:
        value = 2 if step == 2 else 1
        t.add("frightened", value=value, source=a.name)
        text += f"; {t.name} is frightened {t.value('frightened')}"
    return [event(combat, a, "demoralize", text, target=t, rolls=[r], hit=step > 0)]


def trip(combat, a, action, rng):
    """Athletics vs Reflex DC (an attack: MAP applies): prone; a critical adds 1d6; a critical failure trips you."""
    t = combat.get(action.target)
    out = _close_in(combat, a, t, Attack(name="Trip", damage="0"))
    spend(a, 1, "Trip")
    step, r, what = _skill_vs_dc(combat, a, t, "athletics", "reflex", rng, attack_trait=True)
    out.append(event(combat, a, "trip", f"{a.name} tries to trip {t.name}: {what}, {DEGREES[step]}", target=t, rolls=[r], hit=step > 0))
    if step > 0:
        t.add("prone", source=a.name)
        out.append(event(combat, t, "condition", f"{t.name} is knocked prone"))
        if step == 2:
            out += hurt(combat, t, dice("1d6", rng).total, "bludgeoning", via="the fall")
    elif step == -2:
        a.add("prone")
        out.append(event(combat, a, "condition", f"{a.name} falls prone"))
    return out


def grapple(combat, a, action, rng):
    """Athletics vs Fortitude DC (an attack: MAP applies): grabbed; restrained on a critical."""
    t = combat.get(action.target)
    out = _close_in(combat, a, t, Attack(name="Grapple", damage="0"))
    spend(a, 1, "Grapple")
    step, r, what = _skill_vs_dc(combat, a, t, "athletics", "fortitude", rng, attack_trait=True)
    out.append(event(combat, a, "grapple", f"{a.name} grapples {t.name}: {what}, {DEGREES[step]}", target=t, rolls=[r], hit=step > 0))
    if step > 0:
        cond = "restrained" if step == 2 else "grabbed"
        t.add(cond, source=a.name, rounds=2, tick="end")
        out.append(event(combat, t, "condition", f"{t.name} is {cond} until the end of {a.name}'s next turn"))
    elif step == -2:
        a.add("prone")
        out.append(event(combat, a, "condition", f"{a.name} is thrown prone"))
    return out


def stride(combat, a, action, rng):
    """Move up to Speed (1 action): ``to`` a combatant, or away from the foes."""
    if a.has("grabbed", "restrained", "immobilized"):
        raise CombatError(f"{a.name} is held and cannot Stride; Escape first")
    spend(a, 1, "a Stride")
    a.move_budget = a.moved + a.speed
    to = action.options.get("to") or action.target
    feet = int(action.options.get("distance", a.speed))
    return move(combat, a, feet, combat.get(to) if to else None)


def step(combat, a, action, rng):
    spend(a, 1, "a Step")
    a.move_budget = a.moved + 5
    to = action.options.get("to") or action.target
    return move(combat, a, 5, combat.get(to) if to else None)


def stand(combat, a, action, rng):
    if not a.has("prone"):
        raise CombatError(f"{a.name} is not prone")
    spend(a, 1, "Stand")
    a.drop("prone")
    return [event(combat, a, "stand", f"{a.name} stands up")]


def flee(combat, a, action, rng):
    if a.has("grabbed", "restrained", "immobilized"):
        raise CombatError(f"{a.name} is held and cannot flee")
    spend(a, 1, "fleeing")
    a.status = "fled"
    return [event(combat, a, "flee", f"{a.name} flees the fight")]


ACTIONS = {"attack": strike, "strike": strike, "stride": stride, "move": stride, "step": step, "stand": stand,
           "demoralize": demoralize, "trip": trip, "grapple": grapple, "flee": flee, "cast": cast_action}


# ---------------------------------------------------------------- what the fight and the tactics read

# From ._base: hp_text, initiative_text (the Perception rolled), contest_plan.


def reach_left(c: Combatant) -> int:
    """How far ``c`` can go before a Strike: one Stride, if two actions are left and it is not held."""
    return c.speed if c.actions_left >= 2 and not c.has("grabbed", "restrained") else 0


def longest_range(atk: Attack) -> int:
    """The farthest a ranged Strike reaches: six range increments."""
    return atk.range[0] * 6


def worth_striking(c: Combatant, atk: Attack) -> bool:
    """Not once the multiple attack penalty reaches -10 (-8 with an agile weapon is still worth it)."""
    return multiple_attack_penalty(c.attacks_made, atk.agile) > -10


# ---------------------------------------------------------------- opposed rolls


def contest(a: Contestant, b: Contestant, rng: random.Random, ties: Literal["skill", "defender", "attacker"] = "skill") -> OpposedResult:
    """``a`` rolls against ``b``'s DC (10 + modifier); meeting it succeeds, the degree is reported."""
    ra = contest_side(a.model_copy(update={"passive": False, "advantage": 0}), rng)
    dc = 10 + b.plan.modifier + b.modifier
    rb = ContestRoll(who=b.who, check=b.plan.check, check_name=f"{b.plan.check_name} DC", total=dc,
                     breakdown=f"DC 10 {b.plan.modifier + b.modifier:+d} = {dc}")
    step = degree(ra.total, dc, natural(ra.roll) if ra.roll else None)
    ra.level, ra.level_name = step, DEGREES[step]
    winner = a.who if step > 0 else b.who
    text = f"{a.who}'s {ra.check_name} {ra.total} vs {b.who}'s {rb.check_name} {dc}: {DEGREES[step]}"
    return OpposedResult(system=SYSTEM, a=ra, b=rb, winner=winner, tie=ra.total == dc, raises=1 if step == 2 else 0,
                         rule="meeting the DC succeeds; 10 over is critical", text=text)


# ---------------------------------------------------------------- rest (outside a fight)


def rest(c: Combatant, hours: float, rng: random.Random) -> list[CombatEvent]:
    """A night heals the Constitution modifier (at least 1) times the level and the daily preparations give back
    every slot and the Focus Points; ten minutes or more is a Refocus (1 Focus Point)."""
    if hours >= NIGHT:
        healed = min(c.max_hp - c.hp, max(1, c.con_mod) * c.level) if c.hp > 0 or c.status == "up" else 0
        c.hp += max(0, healed)
        c.slots = dict(c.slots_max)
        if c.focus_points_max is not None:
            c.focus_points = c.focus_points_max
        c.conditions = [x for x in c.conditions if x.name in ("doomed", "drained")]
        what = [f"{healed} HP back ({c.hp}/{c.max_hp} HP)" if healed else f"{c.hp}/{c.max_hp} HP"] + (["every spell slot"] if c.slots_max else []) + (
            [f"Focus Points ({c.focus_points}/{c.focus_points_max})"] if c.focus_points_max is not None else [])
        return [event(None, c, "rest", f"{c.name} rests for the night and makes the daily preparations: {', '.join(what)}")]
    if hours >= 1 / 6 and c.focus_points_max is not None and (c.focus_points or 0) < c.focus_points_max:
        c.focus_points = (c.focus_points or 0) + 1
        return [event(None, c, "rest", f"{c.name} refocuses: 1 Focus Point ({c.focus_points}/{c.focus_points_max})")]
    return [event(None, c, "rest", f"{c.name} rests; slots come back only with the daily preparations after a night's rest")] if c.slots_max else []
