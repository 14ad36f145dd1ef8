"""What every system's combat rules share: events, durations, distance and movement, dice helpers.

Every roll goes through ``gm.dice.roll`` (the ``d20`` library), so its breakdown can be shown.
"""
from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Iterable

from ..dice import Roll, roll
from ._model import Attack, CombatError, Combatant, CombatEvent

if TYPE_CHECKING:
    from ._combat import Combat

INCAPACITATED = ("incapacitated", "stunned", "paralyzed", "unconscious", "petrified", "surprised")
_DICE = re.compile(r"(\d*)d(\d+)", re.IGNORECASE)


def event(combat: "Combat", actor: Combatant | str, kind: str, text: str, *, target: Combatant | str | None = None,
          rolls: Iterable[Roll] = (), hit: bool | None = None, amount: int | None = None) -> CombatEvent:
    """One log line; the GM rolls for NPCs (``by="gm"``), players for their characters."""
    who = actor if isinstance(actor, Combatant) else combat.combatants.get(actor) if combat else None
    name = actor.name if isinstance(actor, Combatant) else actor
    tname = target.name if isinstance(target, Combatant) else target
    return CombatEvent(round=combat.round if combat else 0, actor=name, kind=kind, text=text, target=tname,
                       rolls=list(rolls), by="player" if who is not None and who.is_player else "gm", hit=hit, amount=amount)


def tick(combat: "Combat", c: Combatant, when: str) -> list[CombatEvent]:
    """Count down the durations that end at the ``start`` / ``end`` of ``c``'s turn; say what wore off."""
    out = []
    for cond in list(c.conditions):
        if cond.tick == when and cond.rounds is not None:
            cond.rounds -= 1
            if cond.rounds <= 0:
                c.conditions.remove(cond)
                out.append(event(combat, c, "condition", f"{c.name} is no longer {cond.name}"))
    return out


def move_left(c: Combatant) -> int:
    """How far ``c`` can still go this turn (feet of movement not yet spent)."""
    return max(0, c.move_budget - c.moved)


def can_act(c: Combatant) -> bool:
    """Up, not incapacitated, and with an action left this turn."""
    return c.status == "up" and not c.has(*INCAPACITATED) and c.actions_left > 0


def distance(a: Combatant, b: Combatant) -> int:
    return abs(a.position - b.position)


def in_reach(a: Combatant, b: Combatant, attack: Attack) -> bool:
    return distance(a, b) <= max(attack.reach, 5)


def approach(combat: "Combat", mover: Combatant, target: Combatant, reach: int = 5) -> list[CombatEvent]:
    """Move ``mover`` next to ``target`` within its movement left, or say why it cannot."""
    gap = distance(mover, target) - reach
    if gap <= 0:
        return []
    left = mover.move_budget - mover.moved
    if gap > left:
        why = "it cannot move (grappled or restrained)" if mover.move_budget == 0 else f"{left} ft of movement is left this turn"
        raise CombatError(f"{target.name} is {distance(mover, target)} ft from {mover.name} and {why}; move closer (dash) or use a ranged attack")
    step = gap if target.position > mover.position else -gap
    mover.position += step
    mover.moved += gap
    return [event(combat, mover, "move", f"{mover.name} moves {gap} ft to {target.name}", target=target)]


def move(combat: "Combat", mover: Combatant, feet: int, toward: Combatant | None = None) -> list[CombatEvent]:
    """Move up to ``feet`` (within what is left), toward a combatant or away from the foes (negative)."""
    left = mover.move_budget - mover.moved
    feet = max(0, min(abs(feet), left))
    if feet == 0:
        raise CombatError(f"{mover.name} has no movement left this turn; dash, or end the turn")
    if toward is not None:
        gap = max(0, distance(mover, toward) - 5)
        feet = min(feet, gap)
        sign = 1 if toward.position > mover.position else -1
        where = f"toward {toward.name}"
    else:
        foes = [c for c in combat.enemies_of(mover)]
        centre = sum(c.position for c in foes) / len(foes) if foes else mover.position + 1
        sign = -1 if centre > mover.position else 1
        where = "away from the foes"
    mover.position += sign * feet
    mover.moved += feet
    return [event(combat, mover, "move", f"{mover.name} moves {feet} ft {where}", target=toward)]


def pick_attack(c: Combatant, name: str | None, dist: int) -> Attack:
    """The attack named, else the best one for this distance (melee when adjacent, ranged when not)."""
    if not c.attacks:
        raise CombatError(f"{c.name} has no attacks; give the sheet or stat block an 'attacks' list")
    if name:
        found = c.attack(name)
        if found is None:
            raise CombatError(f"{c.name} has no attack {name!r}; it has {', '.join(a.name for a in c.attacks)}")
        return found
    loaded = [a for a in c.attacks if not a.ammo or c.ammo.get(a.ammo, 1) > 0] or c.attacks  # out of arrows: the sword
    melee = [a for a in loaded if a.kind == "melee"]
    ranged = [a for a in loaded if a.kind == "ranged" and (not a.range or dist <= max(a.range))]
    near = [a for a in melee if dist <= max(a.reach, 5)]
    pool = near or (ranged if dist > 5 else []) or melee or ranged or loaded
    return max(pool, key=lambda a: (average(a.damage), a.bonus))


def average(expr: str, extra: dict[str, str] | None = None) -> float:
    """The mean of a damage expression such as ``2d6e6+1d4-1`` (tactics only; ``str``/``db`` read through ``extra``)."""
    text = expr.lower().replace(" ", "")
    for key, value in (extra or {}).items():
        text = text.replace(key, value if value.startswith(("+", "-")) else f"+{value}")
    total = 0.0
    for sign, term in re.findall(r"([+-]?)([^+-]+)", text):
        m = re.fullmatch(r"(\d*)d(\d+)(?:e\d+)?", term)
        value = int(m.group(1) or 1) * (int(m.group(2)) + 1) / 2 if m else float(term) if term.isdigit() else 0.0
        total += -value if sign == "-" else value
    return total


def double_dice(expr: str) -> str:
    """dnd5e critical hit: every die in the expression rolled twice (``1d8+3`` → ``2d8+3``)."""
    return _DICE.sub(lambda m: f"{2 * int(m.group(1) or 1)}d{m.group(2)}", expr)


def max_dice(expr: str) -> str:
    """Every die at its maximum (``1d8+1d4`` → ``8+4``), for CoC extreme damage."""
    return _DICE.sub(lambda m: str(int(m.group(1) or 1) * int(m.group(2))), expr)


def dice(expr: str, rng: random.Random) -> Roll:
    """A damage roll; a total below 0 counts as 0 (the breakdown keeps the real arithmetic)."""
    r = roll(expr, rng)
    if r.total < 0:
        r = r.model_copy(update={"total": 0, "breakdown": r.breakdown + " → 0"})
    return r


def spend(c: Combatant, n: int = 1, what: str = "that") -> None:
    """Take ``n`` actions from this turn, or say none are left."""
    if c.actions_left < n:
        left = f"{c.actions_left} action{'s' if c.actions_left != 1 else ''} left" if c.actions_left else "no action left"
        raise CombatError(f"{c.name} has {left} this turn and {what} needs {n}; end the turn")
    c.actions_left -= n
