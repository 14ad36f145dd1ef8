"""``trait`` (swade): trait die (+ Wild Die) + modifiers vs TN 4, a raise per 4 over.

Both dice explode; a Wild Card keeps the higher, and a Wild Card's double 1 (snake eyes) is a
critical failure. Difficulty is a modifier to the roll, never a different TN. The sheet: a die
type per attribute and skill.
"""
from __future__ import annotations

import random
from typing import ClassVar

from pydantic import Field, field_validator

from ..dice import BadDice, Roll, die_size, trait_roll
from ..table import Scenario
from ._base import Difficulty, RollPlan, Sheet, check_def, typed_numbers
from ._cues import read_cues

SYSTEM = "trait"
TN = 4
CORE = ("athletics", "common_knowledge", "notice", "persuasion", "stealth")  # core skills start at d4


class SwadeSheet(Sheet):
    """Savage Worlds: a die type per attribute and skill; Wild Cards roll the Wild Die too."""

    system: ClassVar[str] = SYSTEM
    wild_card: bool = True
    attributes: dict[str, str]
    skills: dict[str, str] = Field(default_factory=dict)
    toughness: int | None = None
    parry: int | None = None

    @field_validator("attributes", "skills")
    @classmethod
    def _dice(cls, value: dict[str, str]) -> dict[str, str]:
        for key, die in value.items():
            try:
                die_size(str(die))
            except BadDice:
                raise ValueError(f"{key} is {die!r}; use d4, d6, d8, d10, d12 or d12+N") from None
        return {k: str(v) for k, v in value.items()}

    def check_keys(self) -> dict[str, list[str]]:
        return {"skills": list(self.skills)}

    def ability_fields(self) -> list[str]:
        return ["attributes"]

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = check_def(ruleset, check_id)
        modifier, why = 0, ""
        if check_id in self.skills:
            die, why = self.skills[check_id], f"{check.name} {self.skills[check_id]}"
        elif check.kind != "skill" and check.ability:  # attribute rolls, and Soak (Vigor) / Fear (Spirit)
            die = self.attributes.get(check.ability, "d4")
            why = f"{check.name} {die}" if check.ability == check_id else f"{check.name}: {ruleset.ability_name(check.ability)} {die}"
        elif getattr(check, "core", False) or check_id in CORE:
            die, why = "d4", f"{check.name} d4 (core skill)"
        else:
            die, modifier, why = "d4", -2, f"{check.name} unskilled d4-2"
        return RollPlan(system=self.system, check=check_id, check_name=check.name, die=die, modifier=modifier, wild=self.wild_card, why=why)

    def summary(self, ruleset) -> str:
        attrs = " ".join(f"{k.capitalize()} {v}" for k, v in self.attributes.items())
        return f"{super().summary(ruleset)} ({'Wild Card; ' if self.wild_card else ''}{attrs})"


sheet = SwadeSheet


def choose_difficulty(check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
    """TN 4 always; the scene's modifier (or none), -2 / +2 more for hurried / careful words."""
    cues = read_cues(check_id, text, scenario, revealed)
    mod = cues.number(0)
    why = [cues.source or "standard TN 4"]
    if cues.nudge:
        mod += -2 * cues.nudge
        why.append(cues.shift_why)
    return Difficulty(system=SYSTEM, target=TN, modifier=mod, reason="; ".join(why), secret=cues.secret_id)


def expression(plan: RollPlan, advantage: int = 0) -> str:
    """``1d8 + wild d6 -2``: the trait die, the Wild Die for a Wild Card, and the modifier."""
    sides, bonus = die_size(plan.die or "d4")
    mod = plan.modifier + bonus
    return f"1d{sides}{' + wild d6' if plan.wild else ''}{f' {mod:+d}' if mod else ''}"


def make_roll(plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
    """The exploding trait die (and Wild Die), keep the higher, plus sheet and situational modifiers."""
    return trait_roll(plan.die or "d4", plan.modifier + difficulty.modifier, wild=plan.wild, rng=rng)


def roll_hint(plan: RollPlan) -> str:
    """What a player types under ``--player-rolls``."""
    return f"your trait die{' and Wild Die' if plan.wild else ''} totals after explosions, e.g. '7 3'"


def player_roll(plan: RollPlan, difficulty: Difficulty, typed: str) -> Roll:
    """The totals the player read off their exploding dice; a die cannot stop on its top face."""
    numbers = typed_numbers(typed, roll_hint(plan))
    sides, step = die_size(plan.die or "d4")
    want = 2 if plan.wild else 1
    dice = numbers[:want]
    if len(dice) < want:
        raise BadDice(f"{typed!r}: type {roll_hint(plan)}")
    for value, size in zip(dice, [sides, 6]):
        # An exploding die never stops on its top face, so 6 or 12 cannot be a d6's total.
        if value < 1 or value % size == 0:
            raise BadDice(f"{value} cannot be the total of an exploding d{size}; type {roll_hint(plan)}")
    mod = plan.modifier + difficulty.modifier + step
    best = max(dice)
    total = best + mod
    return Roll(expression=plan.expression(), total=total, breakdown=f"typed {' / '.join(map(str, dice))}; keep {best}{f' {mod:+d}' if mod else ''} = {total}", faces=list(dice))


def judge(plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
    """Snake eyes on a Wild Card fails critically; otherwise success at the TN and a raise per 4 over."""
    tn = difficulty.target or TN
    if plan.wild and len(result.faces) >= 2 and result.faces[0] == 1 and result.faces[1] == 1:
        return "critical failure (snake eyes)", False
    if result.total < tn:
        return "failure", False
    raises = (result.total - tn) // 4
    return ("success" if raises == 0 else f"success with {raises} raise{'s' if raises > 1 else ''}"), True


def label(difficulty: Difficulty, plan: RollPlan | None = None) -> str | None:
    """``TN 4``, or ``TN 4 (-2)`` with a situational modifier."""
    return f"TN {difficulty.target}" + (f" ({difficulty.modifier:+d})" if difficulty.modifier else "")


def target(plan: RollPlan, difficulty: Difficulty) -> int | None:
    """The number the session records as the roll's target: the TN."""
    return difficulty.target
