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

from ..dice import Roll
from ..systems import MECHANICS, RollPlan, system_of
from ._model import CombatError, Combatant, rules_for

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
        plan = rules_for(who.system).contest_plan(who, check_id, name)
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
    if isinstance(system, str) and system in MECHANICS:
        return system
    name = system_of(system)
    if name not in MECHANICS:
        raise CombatError(f"no opposed rolls for {system!r}; use a system ({', '.join(MECHANICS)}) or a pack that plays one")
    return name


def opposed(system: Any, a: Contestant, b: Contestant, rng: random.Random | None = None,
            ties: Literal["skill", "defender", "attacker"] = "skill") -> OpposedResult:
    """Resolve a contest between ``a`` (who acts) and ``b`` (who resists); see the module table.

    Each mechanic's rules module decides it (its ``contest``).

    Args:
        system: a mechanic (``"d20"``) or a pack (``"dnd5e"``, a loaded pack).
        ties: percentile only: equal success levels go to the higher skill, the defender or the attacker.
    """
    return rules_for(_system(system)).contest(a, b, rng or random.Random(), ties)
