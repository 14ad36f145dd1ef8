"""Savage Worlds (SWADE) combat (mechanic ``trait``): the action deck, Shaken, wounds, Bennies, soaking.

- Initiative: a card each from a 54-card action deck (two jokers) every round; highest first
  (A high; ties by suit ♠ ♥ ♦ ♣). A joker acts first or any time it likes (it may interrupt),
  and adds +2 to its trait and damage rolls that round. After a round in which a joker was
  dealt, the whole deck is reshuffled; an empty deck is reshuffled too.
- Trait rolls: the trait die (and the Wild Die for Wild Cards, keep the higher), both
  exploding; -1 per wound (at most -3); snake eyes on a Wild Card is a critical failure.
- Attacks: Fighting against the target's Parry, Shooting against 4 (-2 medium, -4 long range);
  a raise (4 over) adds a d6 to the damage. A failed attack may be rerolled with a Benny.
- Damage against Toughness (armour piercing takes armour off): a success Shakes (a Shaken
  target Shaken again takes a wound), each raise is a wound. Extras are out at one wound;
  Wild Cards take up to 3 and are incapacitated by the 4th. A Wild Card may spend a Benny to
  soak: Vigor, each success and raise removes a wound (all of them: no Shaken either).
- Shaken: at the start of its turn a Spirit roll removes it (the turn goes on); failing, a
  Benny removes it, or the turn is lost. Bennies are spent by themselves (to soak, to shake
  off Shaken, and for NPC Wild Cards to reroll a missed attack) unless ``auto_bennies`` is off.
"""
from __future__ import annotations

import math
import random
import re
from typing import TYPE_CHECKING, Any, Literal

from ..dice import Roll, die_size, roll, trait_roll
from ..systems import RollPlan
from ..systems.trait import SwadeSheet
from ._base import (caster_fields, BONUS_ACTIONS, FREE_ACTIONS, ITEM_TABLES, INITIATIVE_ROLL, cast_action, damage, end_turn, flee, longest_range, move_action, opening,  # noqa: F401 - the protocol's defaults
                    reach_left, regain, revive, worth_striking)
from ._common import approach, distance, event, pick_attack, spend, tick
from ._model import Attack, CombatError, Combatant, CombatEvent
from ._opposed import Contestant, ContestRoll, OpposedResult, contestant, opposed

if TYPE_CHECKING:
    from ._combat import Combat

SYSTEM = "trait"
REORDER_EACH_ROUND = True
TARGETED = {"attack", "grapple"}
INTERRUPT_USES_TURN = True  # a joker who acted out of turn is passed over when the order reaches it
DEFAULT_SKILLS = {"melee": "fighting", "ranged": "shooting"}  # an attack without a skill rolls these
RANGE_FEET = 6  # stat block ranges are in tabletop inches
TN = 4
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["♣", "♦", "♥", "♠"]  # low to high, for ties
JOKERS = ["Black Joker", "Red Joker"]
DECK = [f"{rank}{suit}" for rank in RANKS for suit in SUITS] + JOKERS


def is_joker(card: str | None) -> bool:
    return bool(card) and card in JOKERS


def card_value(card: str) -> int:
    """A card's place in the order: jokers on top, then rank (A high), then suit."""
    if card in JOKERS:
        return 100 + JOKERS.index(card)
    return RANKS.index(card[:-1]) * 4 + SUITS.index(card[-1])


def wound_penalty(c: Combatant) -> int:
    return -min(c.wounds, 3)


def _die(c: Combatant, check: str) -> tuple[str, int]:
    """(trait die, modifier) for a check; unskilled is d4-2."""
    sides, step = die_size(str(c.checks.get(check, "d4-2")))
    return f"d{sides}", step


def _sync(c: Combatant) -> None:
    c.hp = 0 if c.status != "up" else max(0, c.max_hp - c.wounds)


# ---------------------------------------------------------------- building


def _checks(sheet, pack) -> dict[str, str]:
    out = {}
    for cid in pack.checks:
        plan = sheet.plan(pack, cid)
        out[cid] = (plan.die or "d4") + (f"{plan.modifier:+d}" if plan.modifier else "")
    return out


def _derived(attrs: dict[str, str], skills: dict[str, str]) -> tuple[int, int]:
    vigor, _ = die_size(attrs.get("vigor", "d6"))
    fighting = skills.get("fighting")
    parry = 2 + (die_size(fighting)[0] // 2 if fighting else 0)
    return parry, 2 + vigor // 2


def build_pc(sheet, pack, gear=None) -> Combatant:
    """A character from a swade sheet; weapons from ``gear`` (or fists, Str damage)."""
    parry, tough = _derived(sheet.attributes, sheet.skills)
    attacks = list(gear.attacks) if gear and gear.attacks else [Attack(name="Fists", skill="fighting", damage="str")]
    max_hp = 4 if sheet.wild_card else 1
    return Combatant(name=sheet.name, side="party", controller="player", system=SYSTEM, hp=max_hp, max_hp=max_hp,
                     parry=sheet.parry if sheet.parry is not None else parry, toughness=sheet.toughness or tough,
                     speed=(gear.speed if gear and gear.speed else 6) * 6, attacks=attacks, checks=_checks(sheet, pack),
                     wild_card=sheet.wild_card, bennies=(gear.bennies if gear and gear.bennies is not None else 3),
                     **caster_fields(sheet, pack.name))


def build_foe(block, name: str, monster_id: str, pack) -> Combatant:
    """A foe from a swade stat block; Wild Cards get 2 Bennies unless it says otherwise."""
    sheet = SwadeSheet.model_validate({"name": name, "ruleset": pack.name, "wild_card": block.wild_card,
                                       "attributes": block.attributes, "skills": block.skills})
    parry, tough = _derived(block.attributes, block.skills)
    max_hp = 4 if block.wild_card else 1
    return Combatant(name=name, side="foes", controller="gm", system=SYSTEM, monster=monster_id, hp=max_hp, max_hp=max_hp,
                     parry=block.parry if block.parry is not None else parry,
                     toughness=block.toughness if block.toughness is not None else tough + block.armor, armor=block.armor,
                     speed=(block.speed or 6) * 6, attacks=block.attacks, checks=_checks(sheet, pack), wild_card=block.wild_card,
                     bennies=block.bennies if block.bennies is not None else (2 if block.wild_card else 0), morale=block.morale)


# ---------------------------------------------------------------- the deck and the round


def _shuffle(combat: "Combat", rng: random.Random) -> None:
    held = {c.card for c in combat.combatants.values() if c.card}
    combat.deck = [card for card in DECK if card not in held]
    rng.shuffle(combat.deck)
    combat.discard = []


def deal(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    """A card to everyone still in the fight; a joker means a reshuffle after this round."""
    out = []
    for c in combat.combatants.values():
        if c.card:
            combat.discard.append(c.card)
            c.card = None
    if combat.reshuffle:
        combat.reshuffle = False
        _shuffle(combat, rng)
        out.append(event(combat, "GM", "shuffle", "A joker came up last round: the action deck is reshuffled"))
    for c in combat.combatants.values():
        if c.status != "up":
            c.initiative = -1
            continue
        if not combat.deck:
            _shuffle(combat, rng)
            out.append(event(combat, "GM", "shuffle", "The action deck ran out and is reshuffled"))
        c.card = combat.deck.pop(0)
        c.initiative = card_value(c.card)
        c.init_roll = c.card
        if is_joker(c.card):
            combat.reshuffle = True
        out.append(event(combat, c, "deal", f"{c.name} is dealt {c.card}" + (": acts when they like, +2 to trait and damage rolls this round" if is_joker(c.card) else "")))
    return out


def roll_initiative(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    if not combat.deck and not combat.discard:
        _shuffle(combat, rng)
    return deal(combat, rng)


def sort_key(c: Combatant) -> tuple:
    """Higher card first (jokers, then rank, then suit ♠ ♥ ♦ ♣); no ties are possible between cards."""
    return (-(c.initiative if c.initiative is not None else -1), c.name)


def new_round(combat: "Combat", rng: random.Random) -> list[CombatEvent]:
    return deal(combat, rng)


def may_interrupt(combat: "Combat", c: Combatant) -> bool:
    """A joker may act at any point of the round, once."""
    return is_joker(c.card) and c.acted_round != combat.round and c.status == "up"


def health(c: Combatant) -> float:
    if c.status != "up":
        return 0.0
    if not c.wild_card:
        return 0.2 if c.shaken else 1.0
    return (3 - c.wounds) / 3 * (0.5 if c.shaken else 1.0)


def _spirit(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    die, step = _die(c, "spirit")
    bonus = 2 if is_joker(c.card) else 0
    r = trait_roll(die, step + wound_penalty(c) + bonus, wild=c.wild_card, rng=rng)
    if r.total >= TN:
        c.shaken = False
        return [event(combat, c, "unshake", f"{c.name} shakes it off: Spirit {r.total} vs 4", rolls=[r], hit=True)]
    out = [event(combat, c, "unshake", f"{c.name} stays Shaken: Spirit {r.total} vs 4", rolls=[r], hit=False)]
    if c.bennies and c.auto_bennies:
        c.bennies -= 1
        c.shaken = False
        out.append(event(combat, c, "benny", f"{c.name} spends a Benny to shake it off ({c.bennies} left)"))
    return out


def start_turn(combat: "Combat", c: Combatant, rng: random.Random) -> list[CombatEvent]:
    out = tick(combat, c, "start")
    c.moved, c.move_budget, c.attacks_made = 0, c.speed, 0
    c.actions_left = 1 if c.status == "up" else 0
    c.drop("defending")
    if c.status == "up" and c.shaken:
        out += _spirit(combat, c, rng)
        if c.shaken:
            c.actions_left = 0
    return out


# ---------------------------------------------------------------- attacks and damage


def _damage_expr(a: Combatant, atk: Attack) -> str:
    """``str+d6`` → ``1d8e8+1d6e6``: the Strength die and every weapon die explode."""
    expr = atk.damage.lower().replace(" ", "")
    if "str" in expr:
        sides, step = die_size(str(a.checks.get("strength", "d4")))
        expr = expr.replace("str", f"1d{sides}e{sides}" + (f"{step:+d}" if step else ""))
    expr = re.sub(r"(?<![\de])(\d*)d(\d+)(?![\de])", lambda m: f"{m.group(1) or 1}d{m.group(2)}e{m.group(2)}", expr)
    return expr


def _trait(a: Combatant, check: str, mod: int, rng: random.Random) -> Roll:
    die, step = _die(a, check)
    return trait_roll(die, step + mod, wild=a.wild_card, rng=rng)


def _snake_eyes(a: Combatant, r: Roll) -> bool:
    return a.wild_card and len(r.faces) >= 2 and r.faces[0] == 1 and r.faces[1] == 1


def attack(combat: "Combat", a: Combatant, action, rng: random.Random) -> list[CombatEvent]:
    """Fighting vs Parry or Shooting vs 4; a raise adds a d6 to the damage; a Benny rerolls a miss."""
    t = combat.get(action.target)
    atk = pick_attack(a, action.attack, distance(a, t))
    spend(a, 1, f"an attack with {atk.name}")
    out = approach(combat, a, t, atk.reach) if atk.kind == "melee" else []
    mods, why = wound_penalty(a), ([f"wounds {wound_penalty(a)}"] if a.wounds else [])
    if is_joker(a.card):
        mods += 2
        why.append("joker +2")
    mods += int(action.options.get("modifier", 0))
    if atk.kind == "melee":
        tn = (t.parry or 2) + (4 if t.has("defending") else 0)
        tn_text = f"Parry {tn}"
    else:
        tn, tn_text = TN, "TN 4"
        dist = distance(a, t)
        bands = atk.range or [72, 144, 288]
        if dist > bands[-1]:
            raise CombatError(f"{t.name} is {dist} ft away, beyond {atk.name}'s long range of {bands[-1]} ft; move closer")
        step = next(i for i, band in enumerate(bands) if dist <= band)
        if step:
            mods -= 2 * step
            why.append(f"{['short', 'medium', 'long'][min(step, 2)]} range -{2 * step}")
    check = atk.skill or ("fighting" if atk.kind == "melee" else "shooting")
    r = _trait(a, check, mods, rng)
    rolls = [r]
    reroll = action.options.get("benny_reroll")
    if (r.total < tn or _snake_eyes(a, r)) and a.bennies and (reroll or (reroll is None and not a.is_player and a.wild_card)):
        a.bennies -= 1
        again = _trait(a, check, mods, rng)
        rolls.append(again)
        why.append(f"a Benny rerolls ({a.bennies} left)")
        if again.total > r.total or _snake_eyes(a, r):
            r = again
    snake = _snake_eyes(a, r)
    hit = not snake and r.total >= tn
    raises = (r.total - tn) // 4 if hit else 0
    verdict = "critical failure (snake eyes)" if snake else "miss" if not hit else ("hit" + (" with a raise" if raises == 1 else f" with {raises} raises" if raises else ""))
    out.append(event(combat, a, "attack", f"{a.name} attacks {t.name} with {atk.name}: {r.total} vs {tn_text}, {verdict}" + (f" ({', '.join(why)})" if why else ""),
                     target=t, rolls=rolls, hit=hit))
    if hit:
        expr = _damage_expr(a, atk) + ("+1d6e6" if raises else "") + ("+2" if is_joker(a.card) else "")
        d = roll(expr, rng)
        out += hurt(combat, t, d.total, rolls=[d], via=atk.name + (" (raise: +d6)" if raises else ""), ap=atk.ap, rng=rng)
    return out


def soak(combat: "Combat", t: Combatant, wounds: int, rng: random.Random) -> tuple[int, list[CombatEvent]]:
    """Spend a Benny: Vigor (with the current wound penalty); each success and raise cancels a wound."""
    t.bennies -= 1
    die, step = _die(t, "vigor")
    r = trait_roll(die, step + wound_penalty(t) + (2 if is_joker(t.card) else 0), wild=t.wild_card, rng=rng)
    saved = 0 if r.total < TN or _snake_eyes(t, r) else 1 + (r.total - TN) // 4
    left = max(0, wounds - saved)
    text = f"{t.name} spends a Benny to soak: Vigor {r.total}, " + (f"cancels {min(saved, wounds)} of {wounds} wound{'s' if wounds != 1 else ''}" if saved else "soaks nothing") + f" ({t.bennies} Bennies left)"
    return left, [event(combat, t, "soak", text, rolls=[r], hit=saved > 0)]


def hurt(combat: "Combat", t: Combatant, amount: int, damage_type: str = "", *, crit: bool = False, rolls: list[Roll] | None = None,
         via: str = "", ap: int = 0, rng: random.Random | None = None) -> list[CombatEvent]:
    """Damage against Toughness: success → Shaken (or a wound if already Shaken), each raise a wound."""
    rng = rng or combat.rng()
    tough = (t.toughness or 4) + (2 if t.has("protected") else 0) - min(ap, t.armor)  # protection: +2 (gm.combat.powers)
    src = f" from {via}" if via else ""
    ap_text = f" (AP {ap})" if ap and t.armor else ""
    margin = amount - tough
    rolls = rolls or []
    if margin < 0:
        return [event(combat, t, "damage", f"{amount} damage{src} against {t.name}'s Toughness {tough}{ap_text}: no effect", target=t, rolls=rolls, amount=0)]
    wounds = margin // 4
    if wounds == 0 and not t.shaken:
        t.shaken = True
        return [event(combat, t, "damage", f"{amount} damage{src} against {t.name}'s Toughness {tough}{ap_text}: Shaken", target=t, rolls=rolls, amount=0)]
    if wounds == 0:
        wounds = 1
    out = [event(combat, t, "damage", f"{amount} damage{src} against {t.name}'s Toughness {tough}{ap_text}: {wounds} wound{'s' if wounds != 1 else ''}", target=t, rolls=rolls, amount=wounds)]
    if t.wild_card and t.bennies and t.auto_bennies:
        wounds, more = soak(combat, t, wounds, rng)
        out += more
        if wounds == 0:
            return out
    t.shaken = True
    if not t.wild_card:
        t.status = "down"
        t.wounds = 1
        out.append(event(combat, t, "damage", f"{t.name} is out of the fight (incapacitated)", target=t))
    else:
        t.wounds += wounds
        if t.wounds > 3:
            t.wounds = 3
            t.status = "down"
            t.add("incapacitated")
            out.append(event(combat, t, "damage", f"{t.name} takes more than three wounds and is incapacitated", target=t))
        else:
            out.append(event(combat, t, "damage", f"{t.name} is Shaken with {t.wounds} wound{'s' if t.wounds != 1 else ''} ({wound_penalty(t)} to trait rolls)", target=t))
    _sync(t)
    return out


def damage_roll(c: Combatant, expr: str, rng: random.Random) -> Roll:
    """A damage expression the GM names, its dice exploding (``str`` is ``c``'s Strength die)."""
    return roll(_damage_expr(c, Attack(name="damage", damage=expr)), rng)


def heal(combat: "Combat", t: Combatant, amount: int) -> list[CombatEvent]:
    """Healing takes off ``amount`` wounds; an incapacitated character with a wound gone is back up."""
    if t.status in ("dead", "fled"):
        raise CombatError(f"{t.name} is {t.status}; healing cannot reach them")
    t.wounds = max(0, t.wounds - max(0, amount))
    if t.status == "down" and t.wild_card:
        t.status = "up"
        t.drop("incapacitated")
    _sync(t)
    return [event(combat, t, "heal", f"{t.name} is healed of {amount} wound{'s' if amount != 1 else ''} ({t.hp_text()})", amount=amount)]


def save(combat: "Combat", c: Combatant, check: str, dc: int, rng: random.Random, advantage: int = 0) -> list[CombatEvent]:
    """A trait roll against a target number (``dc``, usually 4), with the wound penalty."""
    r = _trait(c, check, wound_penalty(c) + (2 if is_joker(c.card) else 0), rng)
    ok = r.total >= dc and not _snake_eyes(c, r)
    name = combat.ruleset.checks[check].name if check in combat.ruleset.checks else check
    return [event(combat, c, "save", f"{c.name} rolls {name}: {r.total} vs TN {dc}, {'success' if ok else 'failure'}", rolls=[r], hit=ok)]


# ---------------------------------------------------------------- other actions


def defend(combat, a, action, rng):
    spend(a, 1, "Defend")
    a.add("defending", tick="start", rounds=1)
    return [event(combat, a, "defend", f"{a.name} defends: +4 Parry until their next turn")]


def grapple(combat, a, action, rng):
    """Athletics against Athletics: the target is Entangled; with a raise, Bound."""
    t = combat.get(action.target)
    spend(a, 1, "a grapple")
    out = approach(combat, a, t, 5)
    result = opposed(SYSTEM, contestant(a, "athletics", combat.ruleset, modifier=wound_penalty(a)),
                     contestant(t, "athletics", combat.ruleset, modifier=wound_penalty(t)), rng)
    won = result.winner == a.name
    if won:
        t.add("bound" if result.raises else "entangled", source=a.name)
    out.append(event(combat, a, "grapple", f"{a.name} grapples {t.name}: {result.text}" + (f"; {t.name} is {'bound' if result.raises else 'entangled'}" if won else ""),
                     target=t, rolls=result.rolls, hit=won))
    return out


ACTIONS: dict[str, Any] = {"attack": attack, "grapple": grapple, "defend": defend, "move": move_action, "flee": flee, "cast": cast_action}


# ---------------------------------------------------------------- what the fight and the tactics read


def hp_text(c: Combatant) -> str:
    """Health as Shaken and wounds: ``Shaken, 1 wound``."""
    return f"{'Shaken, ' if c.shaken else ''}{c.wounds} wound{'s' if c.wounds != 1 else ''}"


def initiative_text(c: Combatant) -> str:
    """The action card dealt, ``-`` before the deal."""
    return c.card or "-"


# From ._base: reach_left (its Pace), longest_range (long range, at -4), worth_striking.


# ---------------------------------------------------------------- opposed rolls


def contest_plan(c: Combatant, check_id: str, name: str) -> RollPlan:
    """The roll a combatant makes in a contest: its trait die (and the Wild Die for a Wild Card); unskilled d4-2."""
    raw = c.checks.get(check_id)
    sides, step = die_size(str(raw or "d4-2"))
    return RollPlan(system=SYSTEM, check=check_id, check_name=name, die=f"d{sides}", modifier=step,
                    wild=c.wild_card, why=f"{name} {raw or 'd4-2 (unskilled)'}")


def contest_side(c: Contestant, rng: random.Random) -> ContestRoll:
    r = trait_roll(c.plan.die or "d4", c.plan.modifier + c.modifier, wild=c.plan.wild, rng=rng)
    snake = c.plan.wild and len(r.faces) >= 2 and r.faces[0] == 1 and r.faces[1] == 1
    return ContestRoll(who=c.who, check=c.plan.check, check_name=c.plan.check_name, total=r.total, roll=r,
                       level=-1 if snake else None, level_name="snake eyes" if snake else "", breakdown=r.breakdown + (" (snake eyes)" if snake else ""))


def contest(a: Contestant, b: Contestant, rng: random.Random, ties: Literal["skill", "defender", "attacker"] = "skill") -> OpposedResult:
    """``a`` needs at least 4; ``b`` must meet or beat ``a``'s total (ties to ``b``); raises count from the loser's total."""
    ra, rb = contest_side(a, rng), contest_side(b, rng)
    if ra.level == -1:
        winner, raises, rule = b.who, 0, "snake eyes: the actor fails"
    elif ra.total < 4:
        winner, raises, rule = b.who, 0, "the actor needs at least 4"
    elif rb.total >= ra.total:
        winner, raises, rule = b.who, (rb.total - ra.total) // 4, "the defender wins by meeting the actor's total"
    else:
        winner, raises, rule = a.who, (ra.total - rb.total) // 4, "the actor beat the defender's total"
    tie = ra.total == rb.total
    tail = f" with {raises} raise{'s' if raises != 1 else ''}" if raises else ""
    text = f"{a.who}'s {ra.check_name} {ra.total} vs {b.who}'s {rb.check_name} {rb.total}: {winner} wins{tail}" + (f" ({rule})" if tie or ra.total < 4 or ra.level == -1 else "")
    return OpposedResult(system=SYSTEM, a=ra, b=rb, winner=winner, tie=tie, raises=raises, rule=rule, text=text)


def rest(c: Combatant, hours: float, rng: random.Random) -> list[CombatEvent]:
    """Five power points back for every hour of rest, up to the maximum (core rules, "Recharging")."""
    return regain(c, "power_points", 5 * math.floor(hours), "power point")
