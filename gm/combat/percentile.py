"""Call of Cthulhu 7e combat (mechanic ``percentile``): fighting back or dodging, firearms, major wounds, Sanity, Luck, pushing.

- Order: by DEX, highest first (a firearm readied beforehand adds 50); ties go to the higher
  combat skill, then by name. No roll.
- One action a turn. A melee attack is an opposed roll: the target dodges (equal success
  levels go to the dodger) or fights back (equal levels go to the attacker; if the defender
  wins, the defender deals the damage). Both failing: no harm done. Once a target has dodged
  or fought back this round, later attackers get a bonus die (outnumbered).
- Firearms cannot be dodged: regular difficulty within the weapon's base range, hard to twice
  it, extreme to four times it; point-blank (within a fifth of DEX in feet) gives a bonus die.
- Damage: the weapon's dice plus the damage bonus (``db``) in melee. An extreme success does
  the maximum; an impaling weapon (all bullets) then rolls its dice again. Armour subtracts.
- HP: a single wound of half the maximum HP or more is a major wound (CON roll or fall
  unconscious); 0 HP with a major wound is dying (a CON roll each turn or death), without
  one unconscious; a single wound above the maximum HP kills. Monsters die at 0.
- Sanity loss rolls in ``success/failure`` notation (``1/1d6``; a fumble loses the maximum; 5 or
  more lost at once calls for an INT roll: success means a bout of temporary insanity).
- Luck spent point for point to turn a failed roll into a success; a roll pushed once (not
  combat, Sanity or Luck rolls), with a failed push bringing a dire consequence.
"""
from __future__ import annotations

import math
import random
import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from ..dice import Roll, percentile, roll
from ..systems import RollPlan
from ..systems.percentile import SUCCESS_LEVELS, Coc7eSheet, success_level
from ._base import (caster_fields, cast_action, BONUS_ACTIONS, FREE_ACTIONS, ITEM_TABLES, INITIATIVE_ROLL, INTERRUPT_USES_TURN, REORDER_EACH_ROUND, TARGETED, damage, damage_roll, end_turn, flee,  # noqa: F401 - the protocol's defaults
                    heal, health, hp_text, initiative_text, may_interrupt, move_action, new_round, reach_left, sort_key,
                    regain, worth_striking)
from ._common import approach, dice, distance, event, max_dice, pick_attack, spend, tick
from ._model import Attack, CombatError, Combatant, CombatEvent
from ._opposed import Contestant, ContestRoll, OpposedResult, opposed, percentile_winner

if TYPE_CHECKING:
    from ._combat import Combat

SYSTEM = "percentile"
DEFAULT_SKILLS = {"melee": "fighting_brawl", "ranged": "firearms_handgun"}  # an attack without a skill rolls these
RANGE_FEET = 3  # stat block ranges are in yards
NEEDED = {"regular": 1, "hard": 2, "extreme": 3}
NO_PUSH = ("sanity", "luck")


def damage_bonus(strength: int, size: int) -> tuple[str, int]:
    """Damage bonus and Build from STR + SIZ (the 7e table)."""
    total = strength + size
    for top, db, build in ((64, "-2", -2), (84, "-1", -1), (124, "0", 0), (164, "+1d4", 1), (204, "+1d6", 2)):
        if total <= top:
            return db, build
    extra = (total - 205) // 80 + 2
    return f"+{extra}d6", extra + 1


def _mov(chars: dict[str, int]) -> int:
    dex, strength, size = chars.get("dexterity", 50), chars.get("strength", 50), chars.get("size", 50)
    if dex < size and strength < size:
        return 7
    if dex > size and strength > size:
        return 9
    return 8


def _percent_checks(sheet, pack) -> dict[str, int]:
    return {cid: int(sheet.plan(pack, cid).value or 0) for cid in pack.checks}


def _best_combat(checks: dict[str, int], attacks: list[Attack]) -> int:
    return max([int(checks.get(a.skill or "", 0)) for a in attacks] or [0])


# ---------------------------------------------------------------- building


def build_pc(sheet, pack, gear=None) -> Combatant:
    """An investigator from a coc7e sheet; weapons from ``gear`` (or bare fists)."""
    chars = sheet.characteristics
    checks = _percent_checks(sheet, pack)
    hp = sheet.hp or (chars.get("constitution", 50) + chars.get("size", 50)) // 10
    db, build = damage_bonus(chars.get("strength", 50), chars.get("size", 50))
    attacks = list(gear.attacks) if gear and gear.attacks else [Attack(name="Fists", skill="fighting_brawl", damage="1d3+db")]
    ready = any(a.ready for a in attacks)
    dex = chars.get("dexterity", 50)
    return Combatant(name=sheet.name, side="party", controller="player", system=SYSTEM, hp=hp, max_hp=hp,
                     speed=(gear.speed if gear and gear.speed else _mov(chars) * 5), initiative=None,
                     init_mod=_best_combat(checks, attacks), attacks=attacks, checks={**checks, "dex_initiative": dex + (50 if ready else 0)},
                     luck=sheet.luck, sanity=sheet.sanity, damage_bonus=db, build=build,
                     response=gear.response if gear else None, **caster_fields(sheet, pack.name))


def build_foe(block, name: str, monster_id: str, pack) -> Combatant:
    """A foe from a coc7e stat block (skills not listed take the rules' base values)."""
    chars = block.characteristics
    sheet = Coc7eSheet.model_validate({"name": name, "ruleset": pack.name, "characteristics": chars, "skills": block.skills})
    checks = _percent_checks(sheet, pack)
    hp = block.hp or max(1, (chars.get("constitution", 50) + chars.get("size", 50)) // 10)
    db, build = damage_bonus(chars.get("strength", 50), chars.get("size", 50))
    ready = any(a.ready for a in block.attacks)
    dex = chars.get("dexterity", 50)
    return Combatant(name=name, side="foes", controller="gm", system=SYSTEM, monster=monster_id, hp=hp, max_hp=hp,
                     armor=block.armor, speed=(block.speed or _mov(chars)) * 5, init_mod=_best_combat(checks, block.attacks),
                     attacks=block.attacks, checks={**checks, "dex_initiative": dex + (50 if ready else 0)},
                     damage_bonus=block.damage_bonus if block.damage_bonus is not None else db,
                     build=block.build if block.build is not None else build, morale=block.morale, sanity_loss=block.sanity_loss)


# ---------------------------------------------------------------- the round


def roll_initiative(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    """No roll in 7e: DEX sets the order (+50 with a firearm readied)."""
    out = []
    for c in combat.combatants.values():
        c.initiative = c.checks.get("dex_initiative", c.checks.get("dexterity", 50))
        c.init_roll = f"DEX {c.initiative}"
        out.append(event(combat, c, "initiative", f"{c.name} acts on DEX {c.initiative:g}"))
    return out


def opening(combat: "Combat", rng: random.Random, *, ambush: bool = False, sanity: bool = True) -> list[CombatEvent]:
    """Before the first turn: seeing each kind of horror once costs the party a Sanity roll."""
    return _sanity(combat, rng) if sanity else []


def _sanity(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    out: list[CombatEvent] = []
    seen: dict[str, Combatant] = {}
    for foe in combat.standing("foes"):
        if foe.sanity_loss and foe.monster not in seen:
            seen[foe.monster or foe.name] = foe
    for foe in seen.values():
        for pc in combat.standing("party"):
            if pc.sanity is not None:
                out += sanity_roll(pc, foe.sanity_loss, rng, combat, source=f"the sight of {foe.name}")
    return out


def start_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    out = tick(combat, c, "start")
    c.moved, c.move_budget, c.actions_left, c.attacks_made = 0, c.speed, 1, 0
    if c.status == "down" and c.has("dying"):
        r, level = _roll(c.checks.get("constitution", 50), rng)
        if level >= 1:
            out.append(event(combat, c, "dying", f"{c.name} clings to life: CON {r.total} vs {c.checks.get('constitution', 50)}, {SUCCESS_LEVELS[level]}", rolls=[r], hit=True))
        else:
            c.status = "dead"
            out.append(event(combat, c, "death", f"{c.name} fails the CON roll ({r.total}) and dies", rolls=[r], hit=False))
    return out


def _roll(value: int, rng: random.Random, bonus: int = 0, penalty: int = 0) -> tuple[Roll, int]:
    net = bonus - penalty
    r = percentile(bonus=max(0, min(2, net)), penalty=max(0, min(2, -net)), rng=rng)
    return r, success_level(r.total, value)


# ---------------------------------------------------------------- attacks


def _damage_expr(a: Combatant, atk: Attack, melee: bool) -> tuple[str, str]:
    """(full damage, weapon dice only): ``db`` becomes the attacker's damage bonus (melee only)."""
    db = a.damage_bonus.strip() if melee else "0"
    if not db.startswith(("+", "-")):
        db = "+" + db
    weapon = re.sub(r"\s*\+\s*db\b", "", atk.damage, flags=re.I)
    full = re.sub(r"\s*\+\s*db\b", db, atk.damage, flags=re.I) if "db" in atk.damage.lower() else atk.damage
    return full, weapon


def _wound(combat: "Combat", a: Combatant, t: Combatant, atk: Attack, level: int, rng: random.Random, melee: bool) -> list[CombatEvent]:
    """Roll the damage of a hit: normal, or extreme (maximum; impaling rolls the weapon again)."""
    full, weapon = _damage_expr(a, atk, melee)
    impales = atk.impale or atk.kind == "ranged"
    if level >= 3:
        expr = f"{max_dice(full)}+{weapon}" if impales else max_dice(full)
        how = "extreme success: " + ("impales (maximum, then the weapon again)" if impales else "maximum damage")
    else:
        expr, how = full, ""
    d = dice(expr, rng)
    return hurt(combat, t, d.total, rolls=[d], via=atk.name + (f", {how}" if how else ""), rng=rng)


def _response(t: Combatant, options: dict) -> str:
    want = options.get("response") or t.response
    if t.has("unconscious", "surprised", "stunned") or t.status != "up":
        return "none"
    if want in ("dodge", "fight_back", "none"):
        return want
    fight = max([int(t.checks.get(a.skill or "", 0)) for a in t.attacks if a.kind == "melee"] or [0])
    return "fight_back" if fight > int(t.checks.get("dodge", 0)) else "dodge"


def attack(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """A melee attack against a dodge or a fight-back, or a shot (see ``shoot``)."""
    t = combat.get(action.target)
    atk = pick_attack(a, action.attack, distance(a, t))
    if atk.kind == "ranged":
        return shoot(combat, a, t, atk, action.options, rng)
    spend(a, 1, f"an attack with {atk.name}")
    out = approach(combat, a, t, atk.reach)
    names = combat.ruleset.checks
    skill = atk.skill or "fighting_brawl"
    value = int(a.checks.get(skill, 0))
    bonus = int(action.options.get("bonus", 0)) + (1 if t.responses else 0)
    penalty = int(action.options.get("penalty", 0))
    extra = " (outnumbered: a bonus die)" if t.responses else ""
    response = _response(t, action.options)
    plan_a = RollPlan(system=SYSTEM, check=skill, check_name=names[skill].name if skill in names else skill, value=value)
    if response == "none":
        r, level = _roll(value, rng, bonus, penalty)
        hit = level >= 1
        out.append(event(combat, a, "attack", f"{a.name} attacks {t.name} with {atk.name}: {r.total} vs {value}, {SUCCESS_LEVELS[level]}; {t.name} cannot respond{extra}",
                         target=t, rolls=[r], hit=hit))
        return out + (_wound(combat, a, t, atk, level, rng, True) if hit else [])
    if response == "dodge":
        defend, dname = "dodge", "Dodge"
    else:
        melee = [x for x in t.attacks if x.kind == "melee"] or t.attacks
        defend_attack = max(melee, key=lambda x: int(t.checks.get(x.skill or "", 0)))
        defend = defend_attack.skill or "fighting_brawl"
        dname = names[defend].name if defend in names else defend
    plan_b = RollPlan(system=SYSTEM, check=defend, check_name=dname, value=int(t.checks.get(defend, 0)))
    result = opposed(SYSTEM, Contestant(who=a.name, plan=plan_a, advantage=bonus - penalty), Contestant(who=t.name, plan=plan_b), rng,
                     ties="defender" if response == "dodge" else "attacker")
    t.responses += 1
    verb = "dodges" if response == "dodge" else "fights back"
    text = f"{a.name} attacks {t.name} with {atk.name}; {t.name} {verb}: {result.text}{extra}"
    hit = result.winner == a.name
    out.append(event(combat, a, "attack", text, target=t, rolls=result.rolls, hit=hit))
    if hit:
        out += _wound(combat, a, t, atk, result.a.level or 0, rng, True)
    elif result.winner == t.name and response == "fight_back":
        out += _wound(combat, t, a, defend_attack, min(result.b.level or 0, 2), rng, True)
    return out


def shoot(combat: "Combat", a: Combatant, t: Combatant, atk: Attack, options: dict, rng: random.Random) -> list[CombatEvent]:
    """A firearm: difficulty by range (base, x2 hard, x4 extreme), a bonus die at point-blank; no dodging."""
    spend(a, 1, f"a shot with {atk.name}")
    dist = distance(a, t)
    base = atk.range[0] if atk.range else 45
    if dist > 4 * base:
        raise CombatError(f"{t.name} is {dist} ft away, beyond {atk.name}'s extreme range of {4 * base} ft; move closer")
    level_needed = "regular" if dist <= base else "hard" if dist <= 2 * base else "extreme"
    point_blank = dist <= a.checks.get("dexterity", 50) // 5
    bonus = int(options.get("bonus", 0)) + (1 if point_blank else 0)
    penalty = int(options.get("penalty", 0))
    skill = atk.skill or "firearms_handgun"
    value = int(a.checks.get(skill, 0))
    r, level = _roll(value, rng, bonus, penalty)
    target = value // {"regular": 1, "hard": 2, "extreme": 5}[level_needed]
    ok = level >= NEEDED[level_needed]
    spent = 0
    if not ok and options.get("spend_luck") and a.luck and level != -1 and r.total - target <= a.luck:
        spent = r.total - target
        a.luck -= spent
        level, ok = NEEDED[level_needed], True
    why = [f"{level_needed} range ({dist} ft)"] + (["point-blank: a bonus die"] if point_blank else []) + ([f"{spent} Luck spent"] if spent else [])
    out = [event(combat, a, "attack", f"{a.name} shoots {t.name} with {atk.name}: {r.total} vs {target}, "
                 + (f"{SUCCESS_LEVELS[level]}" if ok else f"miss ({SUCCESS_LEVELS[level]})") + f" ({'; '.join(why)})", target=t, rolls=[r], hit=ok)]
    if ok:
        out += _wound(combat, a, t, atk, level, rng, False)
    return out


def hurt(combat: "Combat", t: Combatant, amount: int, damage_type: str = "", *, crit: bool = False,
         rolls: list[Roll] | None = None, via: str = "", rng: random.Random | None = None) -> list[CombatEvent]:
    """Armour, then HP: major wounds, unconscious or dying at 0, death from a wound above maximum HP."""
    src = f" from {via}" if via else ""
    armour = min(t.armor, amount)
    taken = amount - armour
    note = f" ({armour} stopped by armour)" if armour else ""
    rolls = rolls or []
    if taken > t.max_hp:
        t.hp, t.status = 0, "dead"
        return [event(combat, t, "damage", f"{t.name} takes {taken} damage{src}{note}: more than their maximum HP, a fatal wound", target=t, rolls=rolls, amount=taken)]
    if t.status == "down":
        t.major_wound = t.major_wound or taken >= math.ceil(t.max_hp / 2)
        t.add("dying")
        return [event(combat, t, "damage", f"{t.name} takes {taken} damage{src}{note} while down and is dying", target=t, rolls=rolls, amount=taken)]
    t.hp = max(0, t.hp - taken)
    text = f"{t.name} takes {taken} damage{src}{note} ({t.hp_text()})"
    out: list[CombatEvent] = []
    if not t.is_player:
        if t.hp == 0 and taken:
            t.status = "dead"
            text += f"; {t.name} goes down for good"
        return [event(combat, t, "damage", text, target=t, rolls=rolls, amount=taken)]
    major = taken >= math.ceil(t.max_hp / 2)
    if major:
        t.major_wound = True
        text += "; a major wound"
    out.append(event(combat, t, "damage", text, target=t, rolls=rolls, amount=taken))
    if t.hp == 0 and taken:
        t.status = "down"
        t.add("unconscious")
        if t.major_wound:
            t.add("dying")
            out.append(event(combat, t, "damage", f"{t.name} is at 0 HP with a major wound: unconscious and dying"))
        else:
            out.append(event(combat, t, "damage", f"{t.name} is at 0 HP: unconscious"))
    elif major:
        r, level = _roll(t.checks.get("constitution", 50), rng or combat.rng())
        if level < 1:
            t.status = "down"
            t.add("unconscious")
        out.append(event(combat, t, "major_wound", f"{t.name} rolls CON against the major wound: {r.total}, {SUCCESS_LEVELS[level]}"
                         + ("" if level >= 1 else "; falls unconscious"), rolls=[r], hit=level >= 1))
    return out


def revive(t: Combatant) -> str:
    """Any hit point back stops the dying (the wound stays major)."""
    if t.hp > 0 and t.has("dying"):
        t.drop("dying")
        return ", no longer dying"
    return ""


def save(combat: "Combat", c: Combatant, check: str, dc: int, rng: random.Random, advantage: int = 0) -> list[CombatEvent]:
    """CoC has no saving throws: a characteristic or skill roll at a level (``dc`` 1 regular, 2 hard, 3 extreme)."""
    value = int(c.checks.get(check, 0))
    r, level = _roll(value, rng, max(0, advantage), max(0, -advantage))
    ok = level >= max(1, min(3, dc))
    name = combat.ruleset.checks[check].name if check in combat.ruleset.checks else check
    return [event(combat, c, "save", f"{c.name} rolls {name}: {r.total} vs {value}, {SUCCESS_LEVELS[level]}", rolls=[r], hit=ok)]


def dodge(combat, a, action, rng):
    spend(a, 1, "dodging")
    a.response = "dodge"
    return [event(combat, a, "dodge", f"{a.name} will dodge attacks this round")]


ACTIONS = {"attack": attack, "dodge": dodge, "move": move_action, "flee": flee, "cast": cast_action}


# ---------------------------------------------------------------- what the fight and the tactics read

# From ._base: hp_text, initiative_text (DEX), reach_left, worth_striking.


def longest_range(atk: Attack) -> int:
    """The farthest a firearm reaches: four times its base range (extreme)."""
    return atk.range[0] * 4


# ---------------------------------------------------------------- opposed rolls


def contest_plan(c: Combatant, check_id: str, name: str) -> RollPlan:
    """The roll a combatant makes in a contest: d100 against its skill."""
    raw = c.checks.get(check_id)
    return RollPlan(system=SYSTEM, check=check_id, check_name=name, value=int(raw or 0), why=f"{name} {raw or 0}%")


def contest_side(c: Contestant, rng: random.Random) -> ContestRoll:
    r = percentile(bonus=max(0, c.advantage), penalty=max(0, -c.advantage), rng=rng)
    value = max(0, (c.plan.value or 0) + c.modifier)
    level = success_level(r.total, value)
    return ContestRoll(who=c.who, check=c.plan.check, check_name=c.plan.check_name, total=r.total, roll=r, level=level,
                       level_name=SUCCESS_LEVELS[level], value=value, breakdown=f"{r.breakdown} vs {value}%: {SUCCESS_LEVELS[level]}")


def contest(a: Contestant, b: Contestant, rng: random.Random, ties: Literal["skill", "defender", "attacker"] = "skill") -> OpposedResult:
    """Both roll d100; the higher success level wins; equal levels go by ``ties`` (see ``percentile_winner``)."""
    ra, rb = contest_side(a, rng), contest_side(b, rng)
    side, rule = percentile_winner(ra.level, rb.level, ra.value or 0, rb.value or 0, ties)
    winner = a.who if side == "a" else b.who if side == "b" else None
    tie = max(ra.level, 0) == max(rb.level, 0)
    text = f"{a.who}'s {ra.check_name} ({ra.level_name}) vs {b.who}'s {rb.check_name} ({rb.level_name}): " + (f"{winner} wins" if winner else "no winner")
    if tie and winner is not None or winner is None:
        text += f" ({rule})"
    return OpposedResult(system=SYSTEM, a=ra, b=rb, winner=winner, tie=tie, rule=rule, text=text)


# ---------------------------------------------------------------- Sanity, Luck and pushing (in a fight or out of one)


class SkillRoll(BaseModel):
    """One percentile roll as the table saw it: the skill, the level needed, the roll, what it achieved."""

    who: str
    skill: str
    value: int
    level: Literal["regular", "hard", "extreme"] = "regular"
    roll: Roll
    achieved: int
    pushed: bool = False
    luck_spent: int = 0
    consequence: str = ""

    @property
    def target(self) -> int:
        return self.value // {"regular": 1, "hard": 2, "extreme": 5}[self.level]

    @property
    def ok(self) -> bool:
        return self.achieved >= NEEDED[self.level]

    def line(self) -> str:
        extra = (" (pushed)" if self.pushed else "") + (f" ({self.luck_spent} Luck spent)" if self.luck_spent else "")
        return f"{self.who} — {self.skill}: {self.roll.breakdown} vs {self.target} → {SUCCESS_LEVELS[self.achieved]}{extra}{f'; {self.consequence}' if self.consequence else ''}"


def skill_roll(c: Combatant, skill: str, rng: random.Random | None = None, level: str = "regular", bonus: int = 0, penalty: int = 0) -> SkillRoll:
    """Roll a skill (or characteristic, ``luck``, ``sanity``) of a combatant at a difficulty level."""
    value = c.luck if skill == "luck" else c.sanity if skill == "sanity" else c.checks.get(skill)
    if value is None:
        raise CombatError(f"{c.name} has no {skill!r}; use a skill id of the pack")
    r, achieved = _roll(int(value), rng or random.Random(), bonus, penalty)
    return SkillRoll(who=c.name, skill=skill, value=int(value), level=level, roll=r, achieved=achieved)


def spend_luck(c: Combatant, result: SkillRoll) -> SkillRoll:
    """Turn a failed roll into a success by spending Luck, one point per point missed.

    Not on a fumble, a pushed roll, or a Luck or Sanity roll; not with too little Luck.
    """
    if result.ok:
        raise CombatError(f"{result.who}'s {result.skill} roll already succeeded; keep the Luck")
    if result.skill in NO_PUSH or result.pushed or result.achieved == -1:
        why = "a fumble" if result.achieved == -1 else "a pushed roll" if result.pushed else f"a {result.skill} roll"
        raise CombatError(f"Luck cannot be spent on {why}")
    cost = result.roll.total - result.target
    if c.luck is None or cost > c.luck:
        raise CombatError(f"{c.name} needs {cost} Luck to make it and has {c.luck or 0}")
    c.luck -= cost
    return result.model_copy(update={"achieved": NEEDED[result.level], "luck_spent": cost})


def push_roll(c: Combatant, result: SkillRoll, rng: random.Random | None = None, consequence: str = "something goes badly wrong") -> SkillRoll:
    """Push a failed roll once (not a fight, Sanity or Luck roll): roll again; failing again brings ``consequence``."""
    if result.ok:
        raise CombatError(f"{result.who}'s {result.skill} roll succeeded; there is nothing to push")
    if result.pushed:
        raise CombatError(f"{result.who}'s {result.skill} roll was already pushed; a roll is pushed once")
    if result.skill in NO_PUSH or result.skill.startswith(("fighting", "firearms")) or result.skill == "dodge":
        raise CombatError(f"a {result.skill} roll cannot be pushed (no pushing combat, Sanity or Luck rolls)")
    again = skill_roll(c, result.skill, rng, result.level)
    again.pushed = True
    if not again.ok:
        again.consequence = f"the pushed roll fails: {consequence}"
    return again


def parse_loss(loss: str) -> tuple[str, str]:
    """``"1/1d6"`` → (``"1"``, ``"1d6"``): the loss on a success and on a failure."""
    parts = [p.strip() for p in str(loss).split("/")]
    if len(parts) != 2 or not all(parts):
        raise CombatError(f"{loss!r} is not a Sanity loss; write success/failure like 0/1d6")
    return parts[0], parts[1]


def sanity_roll(c: Combatant, loss: str, rng: random.Random | None = None, combat: "Combat | None" = None, source: str = "") -> list[CombatEvent]:
    """A Sanity roll: lose the first part on a success, the second on a failure, the maximum on a fumble.

    Losing 5 or more at once calls for an INT roll; making it means a bout of temporary insanity.
    Sanity 0 is permanent insanity.
    """
    if c.sanity is None:
        raise CombatError(f"{c.name} has no Sanity to lose")
    rng = rng or random.Random()
    on_success, on_failure = parse_loss(loss)
    r, level = _roll(c.sanity, rng)
    expr = on_success if level >= 1 else (max_dice(on_failure) if level == -1 else on_failure)
    lost_roll = roll(expr, rng)
    lost = max(0, lost_roll.total)
    before = c.sanity
    c.sanity = max(0, c.sanity - lost)
    what = f" at {source}" if source else ""
    mk = (lambda kind, text, rolls, hit=None: event(combat, c, kind, text, rolls=rolls, hit=hit)) if combat else (
        lambda kind, text, rolls, hit=None: CombatEvent(round=0, actor=c.name, kind=kind, text=text, rolls=rolls, hit=hit, by="player" if c.is_player else "gm"))
    out = [mk("sanity", f"{c.name}'s Sanity roll{what} ({loss}): {r.total} vs {before}, {SUCCESS_LEVELS[level]}; loses {lost} ({c.sanity} left)", [r, lost_roll], level >= 1)]
    if c.sanity == 0:
        c.add("permanently insane")
        out.append(mk("sanity", f"{c.name} has no Sanity left: permanently insane", []))
    elif lost >= 5:
        ri, li = _roll(c.checks.get("intelligence", 50), rng)
        if li >= 1:
            c.add("temporarily insane", source=source or "Sanity loss")
        out.append(mk("sanity", f"{c.name} lost {lost} at once: INT {ri.total}, " + (
            "understands what they saw: a bout of temporary insanity" if li >= 1 else "the mind shuts it out: no insanity yet"), [ri], li >= 1))
    return out


def rest(c: Combatant, hours: float, rng: random.Random) -> list[CombatEvent]:
    """Magic points come back one an hour, up to the maximum (Keeper Rulebook, "Using Magic")."""
    return regain(c, "magic_points", math.floor(hours), "magic point")
