"""``percentile`` (coc7e): d100 ≤ skill; hard needs half, extreme a fifth.

01 is a critical, 100 (or 96+ with a skill under 50) a fumble; bonus / penalty dice roll extra
tens dice and keep the best / worst. The sheet: characteristics and skill percentages.
"""
from __future__ import annotations

import random
import re
from typing import ClassVar

from pydantic import Field, field_validator

from ..dice import BadDice, Roll, percentile
from ..table import Scenario
from ._base import Difficulty, RollPlan, Sheet, abbr, ability_key, check_def, typed_numbers
from ._cues import read_cues

SYSTEM = "percentile"
LEVELS = ["regular", "hard", "extreme"]
DIVISOR = {"regular": 1, "hard": 2, "extreme": 5}
EDGE_WORDS = {1: "a bonus die", -1: "a penalty die"}
DERIVED = {"idea": "intelligence", "know": "education"}  # 7e: Idea rolls use INT, Know rolls use EDU
SUCCESS_LEVELS = {4: "critical success", 3: "extreme success", 2: "hard success", 1: "regular success", 0: "failure", -1: "fumble"}


class Coc7eSheet(Sheet):
    """Call of Cthulhu 7e: characteristics and skills as percentages (roll d100 under)."""

    system: ClassVar[str] = SYSTEM
    characteristics: dict[str, int]
    skills: dict[str, int] = Field(default_factory=dict)
    luck: int | None = Field(None, ge=0, le=99)
    sanity: int | None = Field(None, ge=0, le=99)
    hp: int | None = None

    @field_validator("characteristics", "skills")
    @classmethod
    def _percent(cls, value: dict[str, int]) -> dict[str, int]:
        for key, pct in value.items():
            if not 0 <= pct <= 99 + 100:  # characteristics may pass 99 (SIZ/EDU after aging); skills cap at 99 by play
                raise ValueError(f"{key} is {pct}; percentages run 0-199")
        return value

    def check_keys(self) -> dict[str, list[str]]:
        return {"skills": list(self.skills)}

    def ability_fields(self) -> list[str]:
        return ["characteristics"]

    def _base(self, ruleset, check) -> tuple[int, str]:
        formula = getattr(check, "base_formula", None)
        if formula:
            m = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:([*/])\s*(\d+))?\s*", formula)
            key = ability_key(ruleset, m.group(1)) if m else None
            if m and key in self.characteristics:
                value = self.characteristics[key]
                if m.group(2) == "/":
                    value //= int(m.group(3))
                elif m.group(2) == "*":
                    value *= int(m.group(3))
                return value, f"base {formula}"
        if check.base is not None:
            return check.base, "base value"
        return 0, "no value on the sheet"

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = check_def(ruleset, check_id)
        if check_id in self.skills:
            value, why = self.skills[check_id], "from the sheet"
        elif check_id in self.characteristics:
            value, why = self.characteristics[check_id], "characteristic"
        elif check.ability == check_id and check_id in self.characteristics:
            value, why = self.characteristics[check.ability], "characteristic"
        elif check_id in DERIVED and DERIVED[check_id] in self.characteristics:
            value, why = self.characteristics[DERIVED[check_id]], f"{DERIVED[check_id].upper()[:3]}"
        elif check_id in ("luck",) and self.luck is not None:
            value, why = self.luck, "Luck"
        elif check_id in ("sanity", "san") and self.sanity is not None:
            value, why = self.sanity, "Sanity"
        else:
            value, why = self._base(ruleset, check)
        return RollPlan(system=self.system, check=check_id, check_name=check.name, value=value, why=f"{check.name} {value}% ({why})")

    def summary(self, ruleset) -> str:
        chars = " ".join(f"{abbr(ruleset, k).upper()} {v}" for k, v in self.characteristics.items())
        return f"{super().summary(ruleset)} ({chars})"


sheet = Coc7eSheet


def choose_difficulty(check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
    """Regular, hard or extreme (the scene's, or regular), one level up for hurried words.

    Careful words step the level down; at regular there is no lower level, so they earn a
    bonus die instead.
    """
    cues = read_cues(check_id, text, scenario, revealed)
    base = str(cues.base).lower() if cues.base is not None else None
    level = base if base in LEVELS else "regular"
    edge = cues.edge
    why = [cues.source or "an ordinary attempt"]
    if cues.nudge > 0 and level != "extreme":
        level = LEVELS[LEVELS.index(level) + 1]
        why.append(cues.shift_why)
    elif cues.nudge < 0:
        edge = max(edge, 1) if level == "regular" else edge
        level = LEVELS[max(0, LEVELS.index(level) - 1)]
        why.append(cues.shift_why)
    if cues.edge:
        why.append(EDGE_WORDS[cues.edge])
    return Difficulty(system=SYSTEM, level=level, advantage=edge, reason=f"{level} difficulty: " + "; ".join(why), secret=cues.secret_id)


def expression(plan: RollPlan, advantage: int = 0) -> str:
    """Always ``1d100``; bonus and penalty dice show in the roll's own expression."""
    return "1d100"


def make_roll(plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
    """d100 with the difficulty's bonus (+) or penalty (-) dice."""
    return percentile(bonus=max(0, difficulty.advantage), penalty=max(0, -difficulty.advantage), rng=rng)


def roll_hint(plan: RollPlan) -> str:
    """What a player types under ``--player-rolls``."""
    return "your d100 result (1-100)"


def player_roll(plan: RollPlan, difficulty: Difficulty, typed: str) -> Roll:
    """The d100 result the player read off their dice."""
    value = typed_numbers(typed, roll_hint(plan))[0]
    if not 1 <= value <= 100:
        raise BadDice(f"{value} cannot come up on a d100; type a number from 1 to 100")
    return Roll(expression="1d100", total=value, breakdown=f"d100 (typed): {value}", faces=[value])


def success_level(rolled: int, value: int) -> int:
    """4 critical, 3 extreme, 2 hard, 1 regular success, 0 failure, -1 fumble."""
    if rolled == 1:
        return 4
    if rolled == 100 or (value < 50 and rolled >= 96):
        return -1
    if rolled <= value // 5:
        return 3
    if rolled <= value // 2:
        return 2
    if rolled <= value:
        return 1
    return 0


def judge(plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
    """The success level in words; a success below the level asked for is a failure that says so."""
    achieved = success_level(result.total, plan.value or 0)
    needed = {"regular": 1, "hard": 2, "extreme": 3}[difficulty.level or "regular"]
    ok = achieved >= needed
    if achieved > 0 and not ok:
        return f"failure ({SUCCESS_LEVELS[achieved]}, needed {difficulty.level})", False
    return SUCCESS_LEVELS[achieved], ok


def label(difficulty: Difficulty, plan: RollPlan | None = None) -> str | None:
    """``Hard``, or ``Hard (30)`` with the character's target number."""
    level = difficulty.level or "regular"
    if plan is not None and plan.value is not None:
        return f"{level.capitalize()} ({plan.value // DIVISOR[level]})"
    return level.capitalize()


def target(plan: RollPlan, difficulty: Difficulty) -> int | None:
    """The number to roll under: the skill, halved for hard, a fifth for extreme."""
    if plan.value is None:
        return difficulty.target
    return plan.value // DIVISOR[difficulty.level or "regular"]
