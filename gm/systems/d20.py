"""``d20`` (dnd5e): d20 + modifier ≥ DC; advantage rolls 2d20 and keeps the higher.

The sheet: six ability scores → modifiers; proficiency (and expertise, which doubles it) by
level. Death saves are always DC 10 with natural 20 / 1 rules; initiative has no DC.
"""
from __future__ import annotations

import random
from typing import ClassVar

from pydantic import Field, field_validator

from ..dice import BadDice, Roll, natural, roll
from ..table import Scenario
from ._base import Difficulty, RollPlan, Sheet, abbr, check_def, typed_numbers
from ._cues import read_cues

SYSTEM = "d20"
LADDER = [(5, "very easy"), (10, "easy"), (15, "medium"), (20, "hard"), (25, "very hard"), (30, "nearly impossible")]
EDGE_WORDS = {1: "advantage", -1: "disadvantage"}


def _mod(score: int) -> int:
    return (score - 10) // 2


class Dnd5eSheet(Sheet):
    """D&D 5e: six ability scores; proficiency in skills and saves, expertise doubles it."""

    system: ClassVar[str] = SYSTEM
    level: int = Field(1, ge=1, le=20)
    abilities: dict[str, int]
    proficiencies: list[str] = Field(default_factory=list)
    expertise: list[str] = Field(default_factory=list)
    hp: int | None = None
    ac: int | None = None
    items: dict[str, int] = Field(default_factory=dict)  # weapons, armour, potions, ammunition carried and how many (gm.items)

    @field_validator("abilities")
    @classmethod
    def _scores(cls, value: dict[str, int]) -> dict[str, int]:
        for key, score in value.items():
            if not 1 <= score <= 30:
                raise ValueError(f"{key} is {score}; ability scores run 1-30")
        return value

    @property
    def proficiency_bonus(self) -> int:
        return 2 + (self.level - 1) // 4

    def check_keys(self) -> dict[str, list[str]]:
        return {"proficiencies": self.proficiencies, "expertise": self.expertise}

    def ability_fields(self) -> list[str]:
        return ["abilities"]

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = check_def(ruleset, check_id)
        ability = check.ability
        parts: list[str] = []
        modifier = 0
        if ability and ability in self.abilities:
            modifier = _mod(self.abilities[ability])
            parts.append(f"{abbr(ruleset, ability).upper()} {modifier:+d}")
        if check_id in self.expertise:
            modifier += 2 * self.proficiency_bonus
            parts.append(f"expertise +{2 * self.proficiency_bonus}")
        elif check_id in self.proficiencies:
            modifier += self.proficiency_bonus
            parts.append(f"proficiency +{self.proficiency_bonus}")
        return RollPlan(system=self.system, check=check_id, check_name=check.name, modifier=modifier, why=", ".join(parts) or "no modifier")

    def summary(self, ruleset) -> str:
        scores = " ".join(f"{abbr(ruleset, a).upper()} {s}" for a, s in self.abilities.items())
        return f"{super().summary(ruleset)} (level {self.level}; {scores})"


sheet = Dnd5eSheet


def _nearest(value: int) -> int:
    return min(range(len(LADDER)), key=lambda i: abs(LADDER[i][0] - value))


def choose_difficulty(check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
    """A DC off the 5e ladder (the scene's, or medium 15), one rung up or down for the player's words."""
    cues = read_cues(check_id, text, scenario, revealed)
    if check_id == "death_save":
        return Difficulty(system=SYSTEM, target=10, reason="death saves are always DC 10")
    if check_id == "initiative":
        return Difficulty(system=SYSTEM, target=None, advantage=cues.edge, reason="initiative sets the turn order; no DC")
    dc = cues.number(15)
    if cues.nudge:
        idx = max(0, min(len(LADDER) - 1, _nearest(dc) + cues.nudge))
        dc = LADDER[idx][0]
    why = [f"{LADDER[_nearest(dc)][1]} task", cues.source or "a typical challenge", cues.shift_why if not cues.secret else "", EDGE_WORDS.get(cues.edge, "")]
    return Difficulty(system=SYSTEM, target=dc, advantage=cues.edge, reason="; ".join(w for w in why if w), secret=cues.secret_id)


def expression(plan: RollPlan, advantage: int = 0) -> str:
    """``1d20+5``; ``2d20kh1+5`` with advantage, ``2d20kl1+5`` with disadvantage."""
    dice = "1d20" if advantage == 0 else ("2d20kh1" if advantage > 0 else "2d20kl1")
    return f"{dice}{plan.modifier:+d}" if plan.modifier else dice


def make_roll(plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
    """The d20 (two, keep one, with advantage or disadvantage) plus the modifier."""
    return roll(plan.expression(difficulty.advantage), rng)


def roll_hint(plan: RollPlan) -> str:
    """What a player types under ``--player-rolls``."""
    return "the number on your d20 (1-20)" + (f"; the GM adds {plan.modifier:+d}" if plan.modifier else "")


def player_roll(plan: RollPlan, difficulty: Difficulty, typed: str) -> Roll:
    """The face the player rolled on their d20; the GM adds the modifier."""
    face = typed_numbers(typed, roll_hint(plan))[0]
    if not 1 <= face <= 20:
        raise BadDice(f"{face} cannot come up on a d20; type a number from 1 to 20")
    total = face + plan.modifier
    expr = plan.expression()
    return Roll(expression=expr, total=total, breakdown=f"{expr} ({face}){f' {plan.modifier:+d}' if plan.modifier else ''} = {total}", faces=[face])


def judge(plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
    """Success iff the total meets the DC; a death save's natural 20 / 1 are special."""
    nat = natural(result)
    if plan.check == "death_save":
        if nat == 20:
            return "critical success (natural 20: back up with 1 hit point)", True
        if nat == 1:
            return "critical failure (natural 1: counts as two failures)", False
    if difficulty.target is None:
        return f"rolled {result.total}", None
    ok = result.total >= difficulty.target
    tail = " (natural 20)" if nat == 20 else " (natural 1)" if nat == 1 else ""
    return ("success" if ok else "failure") + tail, ok


def label(difficulty: Difficulty, plan: RollPlan | None = None) -> str | None:
    """``DC 15``; None when the check has no DC (initiative)."""
    return f"DC {difficulty.target}" if difficulty.target is not None else None


def target(plan: RollPlan, difficulty: Difficulty) -> int | None:
    """The number the session records as the roll's target: the DC."""
    return difficulty.target
