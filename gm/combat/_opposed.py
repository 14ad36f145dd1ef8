"""Opposed rolls, in a fight or out of one: Stealth vs Perception, grapples, CoC skill contests.

One call, ``opposed(system, a, b, rng)``: ``a`` acts, ``b`` resists; the result names the
winner (or None), carries both rolls with their breakdowns, and says which tie rule decided.

=============  ===============================================================================
system         how it is decided
=============  ===============================================================================
``d20``        both roll d20 + modifier, higher wins; a tie keeps things as they are (``b``
               wins). A passive score (10 + modifier, ±5 for advantage) is a DC: ``a`` wins
               by meeting it.
``degrees``    ``a`` rolls against ``b``'s DC (10 + modifier); meeting it succeeds, the degree
               of success is reported.
``percentile`` both roll d100; the higher success level wins. Equal levels go to the higher
               skill (``ties="skill"``), to ``b`` (``"defender"``: a Dodge) or to ``a``
               (``"attacker"``: fighting back); both failing is no winner.
``trait``      ``a`` needs at least 4; ``b`` must meet or beat ``a``'s total (ties to ``b``);
               raises count from the loser's total.
=============  ===============================================================================
"""
from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel

from ..dice import Roll, natural, percentile, trait_roll
from ..systems import RollPlan
from ..systems.degrees import DEGREES, degree
from ..systems.percentile import SUCCESS_LEVELS, success_level
from ._model import CombatError, Combatant

__all__ = ["Contestant", "ContestRoll", "OpposedResult", "opposed", "contestant", "beats_passive", "percentile_winner"]


class Contestant(BaseModel):
    """One side of a contest: who, which check, and what they roll (a ``RollPlan``)."""

    who: str
    plan: RollPlan
    passive: bool = False  # d20: use the passive score (10 + modifier) instead of a roll
    advantage: int = 0  # d20: +1 / -1; percentile: bonus (+) / penalty (-) dice
    modifier: int = 0  # a situational modifier (swade wound penalty, pf2e status penalty ...)


class ContestRoll(BaseModel):
    """What one side got: the roll (None for a passive score or a DC), the total, its level."""

    who: str
    check: str
    check_name: str
    total: int
    roll: Roll | None = None
    level: int | None = None  # percentile success level (4 critical ... -1 fumble); pf2e degree
    level_name: str = ""
    value: int | None = None  # percentile: the skill
    breakdown: str

    def __str__(self) -> str:
        return f"{self.who} ({self.check_name}) {self.breakdown}"


class OpposedResult(BaseModel):
    """Who won a contest, and both rolls with their breakdowns."""

    system: str
    a: ContestRoll
    b: ContestRoll
    winner: str | None
    tie: bool = False
    raises: int = 0  # swade: raises over the loser; pf2e: 1 for a critical success
    rule: str = ""  # the rule that decided it, in words
    text: str = ""

    @property
    def rolls(self) -> list[Roll]:
        return [r for r in (self.a.roll, self.b.roll) if r is not None]

    @property
    def breakdowns(self) -> list[str]:
        return [self.a.breakdown, self.b.breakdown]

    def line(self) -> str:
        return f"{self.text} [{self.a}; {self.b}]"

    def __str__(self) -> str:
        return self.line()


def beats_passive(total: int, passive: int) -> bool:
    """A check against a passive score wins by meeting it, as against any DC (5e)."""
    return total >= passive


def contestant(who: Combatant | Any, check: str, pack=None, *, passive: bool = False, advantage: int = 0, modifier: int = 0) -> Contestant:
    """A side of a contest from a ``Combatant`` or a character ``Sheet`` (which needs the ``pack``).

    ``check`` is a check id or any name the pack resolves ("Perception", "Fighting (Brawl)").
    """
    if isinstance(who, Combatant):
        check_id = pack.resolve(check) if pack is not None else check
        name = pack.checks[check_id].name if pack is not None and check_id in pack.checks else check_id
        raw = who.checks.get(check_id)
        if who.system == "percentile":
            plan = RollPlan(system=who.system, check=check_id, check_name=name, value=int(raw or 0), why=f"{name} {raw or 0}%")
        elif who.system == "trait":
            from ..dice import die_size

            sides, step = die_size(str(raw or "d4-2"))
            plan = RollPlan(system=who.system, check=check_id, check_name=name, die=f"d{sides}", modifier=step,
                            wild=who.wild_card, why=f"{name} {raw or 'd4-2 (unskilled)'}")
        else:
            plan = RollPlan(system=who.system, check=check_id, check_name=name, modifier=int(raw or 0), why=f"{name} {int(raw or 0):+d}")
        return Contestant(who=who.name, plan=plan, passive=passive, advantage=advantage, modifier=modifier)
    if pack is None:
        raise CombatError(f"a contest for the sheet of {getattr(who, 'name', who)!r} needs the pack to read it")
    check_id = pack.resolve(check)
    return Contestant(who=who.name, plan=who.plan(pack, check_id), passive=passive, advantage=advantage, modifier=modifier)


def percentile_winner(level_a: int, level_b: int, value_a: int, value_b: int,
                      ties: Literal["skill", "defender", "attacker"] = "skill") -> tuple[str | None, str]:
    """CoC 7e: ``"a"``, ``"b"`` or None for a contest of success levels, and the rule that decided it.

    A fumble counts as a failure. Both failing: no one. A higher level wins. Equal levels go to
    the attacker (fighting back), the defender (dodging), or the higher skill (a skill
    contest; equal skills are a draw).
    """
    la, lb = max(level_a, 0), max(level_b, 0)
    if la == 0 and lb == 0:
        return None, "both failed: no one wins"
    if la != lb:
        return ("a" if la > lb else "b"), "higher success level wins"
    if ties == "attacker":
        return "a", "equal levels go to the attacker (fighting back)"
    if ties == "defender":
        return "b", "equal levels go to the defender (dodging)"
    if value_a != value_b:
        return ("a" if value_a > value_b else "b"), "equal levels: the higher skill wins"
    return None, "equal levels and equal skills: a draw (roll again, or nothing changes)"


def _system(system: Any) -> str:
    from ..systems import MECHANICS, system_of

    if isinstance(system, str) and system in MECHANICS:
        return system
    name = system_of(system)
    if name not in MECHANICS:
        raise CombatError(f"no opposed rolls for {system!r}; use a system ({', '.join(MECHANICS)}) or a pack that plays one")
    return name


def _d20_side(c: Contestant, rng: random.Random) -> ContestRoll:
    mod = c.plan.modifier + c.modifier
    if c.passive:
        total = 10 + mod + 5 * max(-1, min(1, c.advantage))
        edge = {1: " + 5 (advantage)", -1: " - 5 (disadvantage)"}.get(max(-1, min(1, c.advantage)), "")
        return ContestRoll(who=c.who, check=c.plan.check, check_name=f"passive {c.plan.check_name}", total=total,
                           breakdown=f"passive 10 {mod:+d}{edge} = {total}")
    expr = c.plan.expression(max(-1, min(1, c.advantage)))
    if c.modifier:
        expr += f"{c.modifier:+d}"
    from ..dice import roll

    r = roll(expr, rng)
    return ContestRoll(who=c.who, check=c.plan.check, check_name=c.plan.check_name, total=r.total, roll=r, breakdown=r.breakdown)


def _percentile_side(c: Contestant, rng: random.Random) -> ContestRoll:
    r = percentile(bonus=max(0, c.advantage), penalty=max(0, -c.advantage), rng=rng)
    value = max(0, (c.plan.value or 0) + c.modifier)
    level = success_level(r.total, value)
    return ContestRoll(who=c.who, check=c.plan.check, check_name=c.plan.check_name, total=r.total, roll=r, level=level,
                       level_name=SUCCESS_LEVELS[level], value=value, breakdown=f"{r.breakdown} vs {value}%: {SUCCESS_LEVELS[level]}")


def _trait_side(c: Contestant, rng: random.Random) -> ContestRoll:
    r = trait_roll(c.plan.die or "d4", c.plan.modifier + c.modifier, wild=c.plan.wild, rng=rng)
    snake = c.plan.wild and len(r.faces) >= 2 and r.faces[0] == 1 and r.faces[1] == 1
    return ContestRoll(who=c.who, check=c.plan.check, check_name=c.plan.check_name, total=r.total, roll=r,
                       level=-1 if snake else None, level_name="snake eyes" if snake else "", breakdown=r.breakdown + (" (snake eyes)" if snake else ""))


def opposed(system: Any, a: Contestant, b: Contestant, rng: random.Random | None = None,
            ties: Literal["skill", "defender", "attacker"] = "skill") -> OpposedResult:
    """Resolve a contest between ``a`` (who acts) and ``b`` (who resists); see the module table.

    Args:
        system: a mechanic (``"d20"``) or a pack (``"dnd5e"``, a loaded pack).
        ties: percentile only: equal success levels go to the higher skill, the defender or the attacker.
    """
    rng = rng or random.Random()
    system = _system(system)
    if system == "d20":
        ra, rb = _d20_side(a, rng), _d20_side(b, rng)
        tie = ra.total == rb.total
        if b.passive:
            won = beats_passive(ra.total, rb.total)
            rule = "meeting a passive score is enough"
        else:
            won = ra.total > rb.total
            rule = "a tie leaves things as they were" if tie else "higher total wins"
        winner = a.who if won else b.who
        text = f"{a.who}'s {ra.check_name} {ra.total} vs {b.who}'s {rb.check_name} {rb.total}: {winner} wins" + (f" ({rule})" if tie else "")
        return OpposedResult(system=system, a=ra, b=rb, winner=winner, tie=tie, rule=rule, text=text)
    if system == "degrees":
        ra = _d20_side(a.model_copy(update={"passive": False, "advantage": 0}), rng)
        dc = 10 + b.plan.modifier + b.modifier
        rb = ContestRoll(who=b.who, check=b.plan.check, check_name=f"{b.plan.check_name} DC", total=dc,
                         breakdown=f"DC 10 {b.plan.modifier + b.modifier:+d} = {dc}")
        step = degree(ra.total, dc, natural(ra.roll) if ra.roll else None)
        ra.level, ra.level_name = step, DEGREES[step]
        winner = a.who if step > 0 else b.who
        text = f"{a.who}'s {ra.check_name} {ra.total} vs {b.who}'s {rb.check_name} {dc}: {DEGREES[step]}"
        return OpposedResult(system=system, a=ra, b=rb, winner=winner, tie=ra.total == dc, raises=1 if step == 2 else 0,
                             rule="meeting the DC succeeds; 10 over is critical", text=text)
    if system == "percentile":
        ra, rb = _percentile_side(a, rng), _percentile_side(b, rng)
        side, rule = percentile_winner(ra.level, rb.level, ra.value or 0, rb.value or 0, ties)
        winner = a.who if side == "a" else b.who if side == "b" else None
        tie = max(ra.level, 0) == max(rb.level, 0)
        text = f"{a.who}'s {ra.check_name} ({ra.level_name}) vs {b.who}'s {rb.check_name} ({rb.level_name}): " + (f"{winner} wins" if winner else "no winner")
        if tie and winner is not None or winner is None:
            text += f" ({rule})"
        return OpposedResult(system=system, a=ra, b=rb, winner=winner, tie=tie, rule=rule, text=text)
    if system == "trait":
        ra, rb = _trait_side(a, rng), _trait_side(b, rng)
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
        return OpposedResult(system=system, a=ra, b=rb, winner=winner, tie=tie, raises=raises, rule=rule, text=text)
    raise CombatError(f"no opposed rolls for system {system!r}")  # pragma: no cover - _system checked it
