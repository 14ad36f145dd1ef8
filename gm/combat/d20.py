"""D&D 5e combat (mechanic ``d20``): initiative, attacks against AC, damage, saves, death saves, rests.

- Initiative: d20 + DEX modifier; ties go to the higher modifier, then by name.
- One action a turn (the Attack action makes ``attacks_per_action`` attacks) plus movement.
- Attack: d20 + bonus ≥ AC hits; natural 20 always hits and is a critical hit (every damage
  die rolled twice), natural 1 always misses. Advantage / disadvantage from the player's
  words and from conditions (prone, restrained, poisoned, hidden, dodging, ranged with an enemy
  adjacent or beyond normal range, pack tactics); any of each cancel to a straight roll.
- Damage: temporary HP first; immunity → 0, resistance → half (rounded down), vulnerability → double.
- 0 HP: a monster dies; a character falls unconscious and makes death saves at the start of
  each turn (10+ succeeds, natural 20 → up with 1 HP, natural 1 → two failures; three
  successes → stable, three failures → dead). Damage while down is a failure (two on a
  critical); damage of at least the maximum HP beyond 0 kills outright.
- Conditions with durations in the bearer's turns; short rests spend Hit Dice, long rests restore.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Literal

from ..dice import Roll, natural, roll
from ._base import (DEFAULT_SKILLS, INITIATIVE_ROLL, INTERRUPT_USES_TURN, NIGHT, RANGE_FEET, REORDER_EACH_ROUND,  # noqa: F401 - the protocol's defaults
                    contest_plan, damage, damage_roll, heal, health, hp_text, initiative_text, longest_range, may_interrupt,
                    move_action, new_round, reach_left, roll_initiative, sort_key, worth_striking)
from ._base import end_turn as _end_turn
from ._common import INCAPACITATED, approach, average, dice, distance, double_dice, event, pick_attack, spend, tick
from . import items as _items  # noqa: I001 - items and spells build on this package; read when used
from . import spells as _spells
from ._model import Attack, CombatError, Combatant, CombatEvent
from ._opposed import Contestant, ContestRoll, OpposedResult, beats_passive, contestant, opposed

if TYPE_CHECKING:
    from ._combat import Combat

SYSTEM = "d20"
FREE_ACTIONS = {"move", "stand"}  # movement needs no action, only feet
TARGETED = {"attack", "grapple"}
ABILITY_SAVES = ("strength_save", "dexterity_save")
ITEM_TABLES = True  # the pack's potions, weapons and ammunition (gm.combat.items)
BONUS_ACTIONS = True  # a turn has a bonus action (a bonus-action spell)
_ATTACKED_WITH_ADVANTAGE = ("restrained", "stunned", "paralyzed", "unconscious", "blinded", "petrified")
_OWN_DISADVANTAGE = ("poisoned", "frightened", "blinded", "restrained", "prone")


def _mod(score: int) -> int:
    return (score - 10) // 2


def _die(hit_die: str) -> int:
    return int(hit_die.lower().lstrip("1").lstrip("d") or 8)


# ---------------------------------------------------------------- building


def build_pc(sheet, pack, gear=None) -> Combatant:
    """A character from a dnd5e sheet; weapons from ``gear`` (or one plain weapon by STR/DEX)."""
    checks = {cid: sheet.plan(pack, cid).modifier for cid in pack.checks if cid != "death_save"}
    score = lambda a: sheet.abilities.get(a, 10)  # noqa: E731
    dex, con, strength = _mod(score("dexterity")), _mod(score("constitution")), _mod(score("strength"))
    hit_die = (gear.hit_die if gear and gear.hit_die else "d8")
    size = _die(hit_die)
    hp = sheet.hp or size + con + (sheet.level - 1) * (size // 2 + 1 + con)
    carried = _items.item_fields(sheet)  # weapons, armour, ammunition and potions the sheet lists
    attacks = carried.pop("attacks", None) or (list(gear.attacks) if gear and gear.attacks else [
        Attack(name="Weapon", bonus=sheet.proficiency_bonus + max(strength, dex), damage=f"1d8{max(strength, dex):+d}", damage_type="slashing")])
    worn = carried.pop("ac", None)
    return Combatant(
        name=sheet.name, side="party", controller="player", system=SYSTEM, hp=hp, max_hp=hp, ac=sheet.ac or worn or 10 + dex,
        speed=(gear.speed if gear and gear.speed else 30), init_mod=checks.get("initiative", dex), attacks=attacks, checks=checks,
        level=sheet.level, hit_die=hit_die, hit_dice=sheet.level, con_mod=con, passive_perception=10 + checks.get("perception", 0),
        attacks_per_action=(gear.attacks_per_action if gear and gear.attacks_per_action else 1),
        **_spells.caster_fields(sheet), **carried,
    )


def build_foe(block, name: str, monster_id: str, pack) -> Combatant:
    """An NPC from a dnd5e stat block: ability modifiers for every check, listed saves and skills over them."""
    mods = {a: _mod(s) for a, s in block.abilities.items()}
    checks: dict[str, Any] = {}
    for cid, check in pack.checks.items():
        if cid == "death_save":
            continue
        checks[cid] = mods.get(check.ability, 0) if check.ability else 0
    checks.update(block.saves)
    checks.update(block.skills)
    return Combatant(
        name=name, side="foes", controller="gm", system=SYSTEM, monster=monster_id, hp=block.hp, max_hp=block.hp, ac=block.ac,
        speed=block.speed or 30, init_mod=checks.get("initiative", mods.get("dexterity", 0)), attacks=block.attacks, checks=checks,
        resistances=block.resistances, vulnerabilities=block.vulnerabilities, immunities=block.immunities,
        condition_immunities=block.condition_immunities, morale=block.morale,
        passive_perception=block.passive_perception or 10 + checks.get("perception", 0),
        attacks_per_action=block.multiattack, pack_tactics=block.pack_tactics,
    )


# ---------------------------------------------------------------- the round


def opening(combat: "Combat", rng: random.Random, *, ambush: bool = False, sanity: bool = True) -> list[CombatEvent]:
    """Before the first turn: foes lying in ambush may surprise the party."""
    return _ambush(combat, rng) if ambush else []


def _ambush(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    """Surprise: the foes' lowest Stealth against each character's passive Perception."""
    out, totals = [], []
    for c in combat.standing("foes"):
        mod = int(c.checks.get("stealth", 0))
        r = roll(f"1d20{mod:+d}" if mod else "1d20", rng)
        totals.append(r.total)
        out.append(event(combat, c, "stealth", f"{c.name} lies in wait: Stealth {r.total}", rolls=[r]))
    if not totals:
        return out
    lowest = min(totals)
    for c in combat.standing("party"):
        passive = c.passive_perception or 10 + int(c.checks.get("perception", 0))
        if beats_passive(lowest, passive):
            c.add("surprised", rounds=1, tick="end")
            out.append(event(combat, c, "surprise", f"{c.name} is surprised (passive Perception {passive} vs Stealth {lowest}) and loses the first turn"))
        else:
            out.append(event(combat, c, "surprise", f"{c.name} spots the ambush (passive Perception {passive} vs Stealth {lowest})"))
    return out


def start_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """A fresh action and movement; the dying roll their death save; durations that end now end."""
    out = tick(combat, c, "start")
    c.attacks_made = 0
    c.moved = 0
    c.move_budget = 0 if c.has("grappled", "restrained") else c.speed
    c.actions_left = 1
    c.bonus_left, c.cast_this_turn = 1, []
    if c.status == "down" and not c.stable:
        out += death_save(combat, c, rng)
    return out


def end_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """As every system; a held creature saves again (``spells.repeat_saves``); surprise lasts one turn only."""
    out = _end_turn(combat, c, rng) + _spells.repeat_saves(combat, c, rng)  # Hold Person: a save each turn's end
    c.bonus_left = 0
    if c.has("surprised"):
        c.drop("surprised")
        out.append(event(combat, c, "condition", f"{c.name} is no longer surprised"))
    return out


# ---------------------------------------------------------------- attacks


def _edge(combat: "Combat", a: Combatant, t: Combatant, atk: Attack, options: dict) -> tuple[int, list[str]]:
    """Net advantage (+1, 0, -1) and the reasons, as the table would say them."""
    adv: list[str] = []
    dis: list[str] = []
    asked = int(options.get("advantage", 0) or 0)
    if asked > 0:
        adv.append("asked")
    elif asked < 0:
        dis.append("asked")
    if a.has("hidden", "invisible"):
        adv.append("unseen")
    dis += [f"{a.name} is {n}" for n in _OWN_DISADVANTAGE if a.has(n)]
    near = distance(a, t) <= 5
    if t.has("prone"):
        (adv if near else dis).append(f"{t.name} is prone")
    adv += [f"{t.name} is {n}" for n in _ATTACKED_WITH_ADVANTAGE if t.has(n)]
    if t.has("dodging"):
        dis.append(f"{t.name} is dodging")
    if t.has("invisible"):
        dis.append(f"{t.name} is unseen")
    if t.has("guided"):
        adv.append(f"{t.name} is lit by a Guiding Bolt")
    if atk.kind == "ranged":
        if any(distance(a, o) <= 5 and not o.has(*INCAPACITATED) for o in combat.enemies_of(a)):
            dis.append("an enemy is adjacent")
        if atk.range and distance(a, t) > atk.range[0]:
            dis.append("beyond normal range")
    if a.pack_tactics and any(distance(o, t) <= 5 and not o.has(*INCAPACITATED) for o in combat.allies_of(a)):
        adv.append("pack tactics")
    net = (1 if adv else 0) - (1 if dis else 0)
    why = ([f"advantage: {', '.join(adv)}"] if net > 0 else [f"disadvantage: {', '.join(dis)}"] if net < 0 else
           ["advantage and disadvantage cancel"] if adv and dis else [])
    return net, why


def _use_attack(a: Combatant, what: str = "an attack") -> None:
    """The Attack action makes ``attacks_per_action`` attacks (Extra Attack, Multiattack); the last one uses up the action."""
    if not (0 < a.attacks_made < a.attacks_per_action):
        if a.actions_left < 1:
            spend(a, 1, what)  # says there is no action left
        a.attacks_made = 0
    a.attacks_made += 1
    if a.attacks_made >= a.attacks_per_action:
        a.actions_left -= 1


def _take_action(a: Combatant, what: str) -> None:
    """Any other action; an Attack action begun this turn already was the action."""
    if 0 < a.attacks_made < a.attacks_per_action:
        a.attacks_made = a.attacks_per_action
        a.actions_left -= 1
    spend(a, 1, what)


def attack(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """One attack roll against AC, and its damage."""
    t = combat.get(action.target)
    atk = pick_attack(a, action.attack, distance(a, t))
    _use_attack(a, f"an attack with {atk.name}")
    out = approach(combat, a, t, atk.reach) if atk.kind == "melee" else []
    if atk.kind == "ranged" and atk.range and distance(a, t) > max(atk.range):
        raise CombatError(f"{t.name} is {distance(a, t)} ft away, beyond {atk.name}'s long range of {max(atk.range)} ft; move closer")
    if atk.ammo and atk.ammo in a.ammo:  # counted: a shot spends an arrow, a throw the javelin
        if a.ammo[atk.ammo] <= 0:
            raise CombatError(f"{a.name} has no {atk.ammo.replace('_', ' ')} left for {atk.name}; pick another weapon")
        a.ammo[atk.ammo] -= 1
        a.spent[atk.ammo] = a.spent.get(atk.ammo, 0) + 1  # lying on the field: half the arrows, every javelin can be gathered after
    net, why = _edge(combat, a, t, atk, action.options)
    d20 = "1d20" if net == 0 else "2d20kh1" if net > 0 else "2d20kl1"
    r = roll(f"{d20}{atk.bonus:+d}" if atk.bonus else d20, rng)
    nat = natural(r)
    rolls, total = [r], r.total
    if a.has("blessed"):  # Bless: a d4 more, rolled on its own so the d20 still reads natural 1s and 20s
        b = roll("1d4", rng)
        rolls.append(b)
        total += b.total
        why.append(f"blessed +{b.total}")
    ac = (t.ac or 10) + (2 if t.has("shield of faith") else 0)
    hit = nat == 20 or (nat != 1 and total >= ac)
    crit = nat == 20 or (hit and distance(a, t) <= 5 and t.has("paralyzed", "unconscious"))
    verdict = "critical hit" if crit else "hit" if hit else ("miss (natural 1)" if nat == 1 else "miss")
    a.drop("hidden")
    t.drop("guided")
    out.append(event(combat, a, "attack", f"{a.name} attacks {t.name} with {atk.name}: {total} vs AC {ac}, {verdict}"
                     + (f" ({'; '.join(why)})" if why else ""), target=t, rolls=rolls, hit=hit))
    if hit:
        d = dice(double_dice(atk.damage) if crit else atk.damage, rng)
        out += hurt(combat, t, d.total, atk.damage_type, crit=crit, rolls=[d], via=atk.name, rng=rng)
        if atk.on_hit and t.status == "up":
            out += _rider(combat, a, t, atk, rng)
    return out


def _rider(combat: "Combat", a: Combatant, t: Combatant, atk: Attack, rng: random.Random) -> list[CombatEvent]:
    rider = atk.on_hit
    if rider.save and rider.dc:
        saved = save(combat, t, rider.save, rider.dc, rng)
        if saved[-1].hit:
            return saved
        out = saved
    else:
        out = []
    if t.add(rider.condition, rider.value, rider.rounds, source=a.name):
        out.append(event(combat, t, "condition", f"{t.name} is {rider.condition} ({atk.name})", target=t))
    return out


def hurt(combat: "Combat", t: Combatant, amount: int, damage_type: str = "", *, crit: bool = False,
         rolls: list[Roll] | None = None, via: str = "", rng: random.Random | None = None) -> list[CombatEvent]:
    """Damage by the 5e rules (``_harm``), then a caster concentrating on a spell saves to keep it."""
    before = t.hp + t.temp_hp
    out = _harm(combat, t, amount, damage_type, crit=crit, rolls=rolls, via=via)
    if t.concentrating:
        out += _spells.concentration_check(combat, t, before - t.hp - t.temp_hp, rng)
    return out


def _harm(combat: "Combat", t: Combatant, amount: int, damage_type: str = "", *, crit: bool = False,
          rolls: list[Roll] | None = None, via: str = "") -> list[CombatEvent]:
    """Damage after immunity / resistance / vulnerability and temporary HP; 0 HP by the 5e rules."""
    why = ""
    kind = damage_type.lower()
    if kind and kind in t.immunities:
        amount, why = 0, f", {t.name} is immune to {kind}"
    elif kind and kind in t.resistances:
        amount, why = amount // 2, f", halved: {t.name} resists {kind}"
    elif kind and kind in t.vulnerabilities:
        amount, why = amount * 2, f", doubled: {t.name} is vulnerable to {kind}"
    soaked = min(t.temp_hp, amount)
    t.temp_hp -= soaked
    taken = amount - soaked
    if soaked:
        why += f", {soaked} absorbed by temporary HP"
    label = f"{amount} {kind + ' ' if kind else ''}damage"
    src = f" from {via}" if via else ""
    out: list[CombatEvent] = []
    if t.status == "down":  # hit while dying
        if taken >= t.max_hp:
            t.status = "dead"
            out.append(event(combat, t, "damage", f"{t.name} takes {label}{src}{why} while down and dies", target=t, rolls=rolls or [], amount=taken))
            return out
        if taken:
            t.stable = False
            t.death_failures = min(3, t.death_failures + (2 if crit else 1))
        out.append(event(combat, t, "damage", f"{t.name} takes {label}{src}{why} while down: {t.death_failures} death save failure{'s' if t.death_failures != 1 else ''}",
                         target=t, rolls=rolls or [], amount=taken))
        if t.death_failures >= 3:
            t.status = "dead"
            out.append(event(combat, t, "death", f"{t.name} dies"))
        return out
    before = t.hp
    t.hp = max(0, t.hp - taken)
    text = f"{t.name} takes {label}{src}{why} ({t.hp_text()})"
    if t.hp == 0 and taken > 0:
        if not t.is_player or t.side == "foes":
            t.status = "dead"
            text += f"; {t.name} falls"
        elif taken - before >= t.max_hp:
            t.status = "dead"
            text += f"; the blow kills {t.name} outright"
        else:
            t.status = "down"
            t.stable = False
            t.death_successes = t.death_failures = 0
            t.add("unconscious")
            text += f"; {t.name} falls unconscious and is dying"
    out.append(event(combat, t, "damage", text, target=t, rolls=rolls or [], amount=taken))
    return out


def death_save(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """DC 10, no modifier: natural 20 → up with 1 HP; natural 1 → two failures; three of a kind ends it."""
    r = roll("1d20", rng)
    nat = natural(r)
    if nat == 20:
        c.hp, c.status, c.stable = 1, "up", False
        c.death_successes = c.death_failures = 0
        c.drop("unconscious")
        return [event(combat, c, "death_save", f"{c.name}'s death save: natural 20, back up with 1 HP", rolls=[r], hit=True)]
    if nat == 1:
        c.death_failures += 2
    elif r.total >= 10:
        c.death_successes += 1
    else:
        c.death_failures += 1
    ok = r.total >= 10
    text = f"{c.name}'s death save: {r.total}, {'success' if ok else 'failure' if nat != 1 else 'natural 1, two failures'} ({c.death_successes} success{'es' if c.death_successes != 1 else ''}, {c.death_failures} failure{'s' if c.death_failures != 1 else ''})"
    out = [event(combat, c, "death_save", text, rolls=[r], hit=ok)]
    if c.death_failures >= 3:
        c.death_failures = 3
        c.status = "dead"
        out.append(event(combat, c, "death", f"{c.name} dies"))
    elif c.death_successes >= 3:
        c.stable = True
        out.append(event(combat, c, "death_save", f"{c.name} is stable (unconscious at 0 HP)"))
    return out


def revive(t: Combatant) -> str:
    """Healing a dying character brings them back up, death saves forgotten."""
    if t.status != "down" or t.hp <= 0:
        return ""
    t.status, t.stable = "up", False
    t.death_successes = t.death_failures = 0
    t.drop("unconscious")
    return " and is back on their feet"


def save(combat: "Combat", c: Combatant, check: str, dc: int, rng: random.Random, advantage: int = 0) -> list[CombatEvent]:
    """A saving throw: d20 + the save's modifier ≥ DC. Paralysed / stunned / unconscious fail STR and DEX saves."""
    name = combat.ruleset.checks[check].name if check in combat.ruleset.checks else check
    if check in ABILITY_SAVES and c.has("paralyzed", "stunned", "unconscious", "petrified"):
        return [event(combat, c, "save", f"{c.name} fails the {name} automatically (cannot move) vs DC {dc}", hit=False)]
    edge = advantage
    if check == "dexterity_save":
        edge += 1 if c.has("dodging") else 0
        edge -= 1 if c.has("restrained") else 0
    edge = max(-1, min(1, edge))
    mod = int(c.checks.get(check, 0))
    d20 = "1d20" if edge == 0 else "2d20kh1" if edge > 0 else "2d20kl1"
    r = roll(f"{d20}{mod:+d}" if mod else d20, rng)
    rolls, total = [r], r.total
    if c.has("blessed"):
        b = roll("1d4", rng)
        rolls.append(b)
        total += b.total
    ok = total >= dc
    return [event(combat, c, "save", f"{c.name} makes a {name}: {total} vs DC {dc}, {'success' if ok else 'failure'}", rolls=rolls, hit=ok)]


# ---------------------------------------------------------------- other actions


def dodge(combat, a, action, rng):
    _take_action(a, "Dodge")
    a.add("dodging", rounds=1, tick="start")
    return [event(combat, a, "dodge", f"{a.name} takes the Dodge action: attacks against them have disadvantage until their next turn")]


def dash(combat, a, action, rng):
    _take_action(a, "Dash")
    a.move_budget += a.speed if a.move_budget else 0
    return [event(combat, a, "dash", f"{a.name} dashes ({a.move_budget - a.moved} ft of movement left)")]


def disengage(combat, a, action, rng):
    _take_action(a, "Disengage")
    a.add("disengaged", rounds=1, tick="end")
    return [event(combat, a, "disengage", f"{a.name} disengages and can move away safely this turn")]


def stand(combat, a, action, rng):
    if not a.has("prone"):
        raise CombatError(f"{a.name} is not prone")
    cost = a.speed // 2
    if a.move_budget - a.moved < cost:
        raise CombatError(f"{a.name} needs {cost} ft of movement to stand up and has {a.move_budget - a.moved}")
    a.moved += cost
    a.drop("prone")
    return [event(combat, a, "stand", f"{a.name} stands up (half their movement)")]


def flee(combat, a, action, rng):
    _take_action(a, "fleeing")
    if a.move_budget == 0:
        raise CombatError(f"{a.name} cannot move (grappled or restrained), so cannot flee")
    a.status = "fled"
    return [event(combat, a, "flee", f"{a.name} flees the fight")]


def hide(combat, a, action, rng):
    """Stealth against each enemy's passive Perception (meeting it is enough, as against a DC)."""
    _take_action(a, "Hide")
    mod = int(a.checks.get("stealth", 0))
    r = roll(f"1d20{mod:+d}" if mod else "1d20", rng)
    watchers = combat.enemies_of(a)
    seen_by = [o.name for o in watchers if not beats_passive(r.total, o.passive_perception or 10)]
    if seen_by:
        return [event(combat, a, "hide", f"{a.name} tries to hide: Stealth {r.total}, but {', '.join(seen_by)} still see them", rolls=[r], hit=False)]
    a.add("hidden", source="Hide")
    return [event(combat, a, "hide", f"{a.name} hides: Stealth {r.total} beats every passive Perception; their next attack has advantage", rolls=[r], hit=True)]


def grapple(combat, a, action, rng):
    """Athletics against the target's better of Athletics / Acrobatics; a tie leaves things as they are."""
    t = combat.get(action.target)
    _use_attack(a, "a grapple")
    out = approach(combat, a, t, 5)
    defend = max(("athletics", "acrobatics"), key=lambda k: int(t.checks.get(k, 0)))
    result = opposed(SYSTEM, contestant(a, "athletics", combat.ruleset), contestant(t, defend, combat.ruleset), rng)
    won = result.winner == a.name
    if won:
        t.add("grappled", source=a.name)
    out.append(event(combat, a, "grapple", f"{a.name} grapples {t.name}: {result.text}" + (f"; {t.name} is grappled" if won else ""),
                     target=t, rolls=result.rolls, hit=won))
    return out


def escape(combat, a, action, rng):
    """Break a grapple: the better of Athletics / Acrobatics against the grappler's Athletics."""
    cond = a.condition("grappled")
    if cond is None:
        raise CombatError(f"{a.name} is not grappled")
    _take_action(a, "escaping a grapple")
    holder = combat.combatants.get(cond.source)
    if holder is None or not holder.standing:
        a.drop("grappled")
        return [event(combat, a, "escape", f"{a.name} slips free")]
    own = max(("athletics", "acrobatics"), key=lambda k: int(a.checks.get(k, 0)))
    result = opposed(SYSTEM, contestant(a, own, combat.ruleset), contestant(holder, "athletics", combat.ruleset), rng)
    if result.winner == a.name:
        a.drop("grappled")
        a.move_budget = a.speed
    return [event(combat, a, "escape", f"{a.name} tries to escape {holder.name}: {result.text}", target=holder, rolls=result.rolls, hit=result.winner == a.name)]


def cast_action(combat, a, action, rng):
    """Cast a spell from the sheet (``options``: ``spell``, ``slot``, ``targets``); see ``gm.combat.spells``."""
    spell = action.options.get("spell") or action.attack
    if not spell:
        raise CombatError(f"cast which spell? {a.name}'s sheet lists {', '.join(a.spells) or 'none'}")
    targets = [action.target, *action.options.get("targets", [])] if action.target else list(action.options.get("targets", []))
    if action.options.get("again"):  # a lasting spell strikes again (Spiritual Weapon), no slot
        return _spells.strike_again(combat, a, spell, targets, rng)
    return _spells.cast(combat, a, spell, targets, action.options.get("slot"), rng)


def use_action(combat, a, action, rng):
    """Use up a consumable (``options``: ``item``; a Potion of Healing), on oneself or ``target``; see ``gm.combat.items``."""
    item = action.options.get("item") or action.attack or "potion of healing"
    return _items.use_item(combat, a, item, combat.get(action.target) if action.target else None, rng)


ACTIONS = {"attack": attack, "cast": cast_action, "use": use_action, "grapple": grapple, "escape": escape, "dodge": dodge, "dash": dash, "disengage": disengage,
           "hide": hide, "move": move_action, "stand": stand, "flee": flee}


# ---------------------------------------------------------------- rests (outside a fight)


def rest(c: Combatant, hours: float, rng: random.Random) -> list[CombatEvent]:
    """A night is a long rest; an hour or more a short rest that spends Hit Dice until the hit points are full."""
    if hours >= NIGHT:
        try:
            return long_rest(c)
        except CombatError as exc:
            return [event(None, c, "rest", str(exc))]
    if hours < 1:
        return [event(None, c, "rest", f"{c.name} catches their breath (a short rest takes an hour)")]
    return short_rest(c, c.hit_dice, rng)


def short_rest(c: Combatant, hit_dice: int = 1, rng: random.Random | None = None) -> list[CombatEvent]:
    """Spend up to ``hit_dice`` Hit Dice: each heals its roll + CON modifier (at least 0)."""
    if c.status == "dead":
        raise CombatError(f"{c.name} is dead; a rest will not help")
    out = []
    for _ in range(max(0, hit_dice)):
        if c.hit_dice <= 0 or c.hp >= c.max_hp:
            break
        r = dice(f"1{c.hit_die}{c.con_mod:+d}" if c.con_mod else f"1{c.hit_die}", rng or random.Random())
        c.hit_dice -= 1
        c.hp = min(c.max_hp, c.hp + r.total)
        if c.hp > 0 and c.status == "down":
            c.status, c.stable = "up", False
            c.drop("unconscious")
        out.append(CombatEvent(round=0, actor=c.name, kind="rest", text=f"{c.name} spends a Hit Die and regains {r.total} HP ({c.hp_text()}, {c.hit_dice} Hit Dice left)",
                               rolls=[r], amount=r.total, by="player" if c.is_player else "gm"))
    if not out:
        out.append(CombatEvent(round=0, actor=c.name, kind="rest", text=f"{c.name} rests but spends no Hit Die ({c.hit_dice} left, {c.hp_text()})"))
    if c.pact and c.slots != c.slots_max:  # a warlock's pact slots come back on a short rest
        c.slots = dict(c.slots_max)
        out.append(CombatEvent(round=0, actor=c.name, kind="rest", text=f"{c.name}'s pact magic slots are back"))
    return out


def long_rest(c: Combatant) -> list[CombatEvent]:
    """All HP back, temporary HP gone, half the level in Hit Dice back (at least 1); needs at least 1 HP."""
    if c.status == "dead" or c.hp <= 0:
        raise CombatError(f"{c.name} needs at least 1 HP to benefit from a long rest; heal them first")
    spent = c.slots != c.slots_max
    c.slots = dict(c.slots_max)  # every spell slot back
    _spells.end_concentration(None, c)
    back = min(c.level - c.hit_dice, max(1, c.level // 2))
    c.hit_dice += max(0, back)
    c.hp, c.temp_hp = c.max_hp, 0
    c.death_successes = c.death_failures = 0
    c.stable = False
    c.conditions = [x for x in c.conditions if x.name == "exhaustion"]
    out = [CombatEvent(round=0, actor=c.name, kind="rest", text=f"{c.name} finishes a long rest: {c.hp_text()}, {c.hit_dice} Hit Dice")]
    if spent:
        slots = ", ".join(f"{_spells.ordinal(lvl)} {n}/{n}" for lvl, n in sorted(c.slots_max.items()))
        out.append(CombatEvent(round=0, actor=c.name, kind="rest", text=f"{c.name}'s spell slots are back ({slots})"))
    return out


def expected_damage(c: Combatant, atk: Attack) -> float:
    return average(atk.damage)


# ---------------------------------------------------------------- what the fight and the tactics read

# From ._base: hp_text, initiative_text, reach_left, longest_range (the long range), worth_striking, contest_plan.


# ---------------------------------------------------------------- opposed rolls


def contest_side(c: Contestant, rng: random.Random) -> ContestRoll:
    """One side's d20 roll, or its passive score (10 + modifier, ±5 for advantage)."""
    mod = c.plan.modifier + c.modifier
    if c.passive:
        total = 10 + mod + 5 * max(-1, min(1, c.advantage))
        edge = {1: " + 5 (advantage)", -1: " - 5 (disadvantage)"}.get(max(-1, min(1, c.advantage)), "")
        return ContestRoll(who=c.who, check=c.plan.check, check_name=f"passive {c.plan.check_name}", total=total,
                           breakdown=f"passive 10 {mod:+d}{edge} = {total}")
    expr = c.plan.expression(max(-1, min(1, c.advantage)))
    if c.modifier:
        expr += f"{c.modifier:+d}"
    r = roll(expr, rng)
    return ContestRoll(who=c.who, check=c.plan.check, check_name=c.plan.check_name, total=r.total, roll=r, breakdown=r.breakdown)


def contest(a: Contestant, b: Contestant, rng: random.Random, ties: Literal["skill", "defender", "attacker"] = "skill") -> OpposedResult:
    """Both roll d20 + modifier, higher wins, a tie keeps things as they are; ``a`` wins by meeting a passive score."""
    ra, rb = contest_side(a, rng), contest_side(b, rng)
    tie = ra.total == rb.total
    if b.passive:
        won = beats_passive(ra.total, rb.total)
        rule = "meeting a passive score is enough"
    else:
        won = ra.total > rb.total
        rule = "a tie leaves things as they were" if tie else "higher total wins"
    winner = a.who if won else b.who
    text = f"{a.who}'s {ra.check_name} {ra.total} vs {b.who}'s {rb.check_name} {rb.total}: {winner} wins" + (f" ({rule})" if tie else "")
    return OpposedResult(system=SYSTEM, a=ra, b=rb, winner=winner, tie=tie, rule=rule, text=text)
