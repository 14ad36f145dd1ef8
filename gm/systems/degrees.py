"""``degrees`` (pf2e): d20 + modifier against a DC, read in four degrees of success.

Beat the DC by 10 for a critical success, miss by 10 for a critical failure; a natural 20 / 1
moves the degree one step up / down. The dice, the typed roll and the label are the d20 ones
(no advantage in pf2e). The sheet: attribute modifiers and proficiency ranks (trained +2 …
legendary +8, plus level).
"""
from __future__ import annotations

import random
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from ..dice import Roll, natural, roll
from ..table import Scenario
from . import d20
from ._base import Difficulty, RollPlan, Sheet, abbr, check_def
from ._cues import read_cues

SYSTEM = "degrees"
LEVEL_DC = [14, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 40, 42, 44, 46, 48, 50]
ADJUST = [(-5, "incredibly easy"), (-2, "easy"), (0, "standard"), (2, "hard"), (5, "very hard"), (10, "incredibly hard")]
RANKS = {"untrained": 0, "trained": 2, "expert": 4, "master": 6, "legendary": 8}
DEGREES = {2: "critical success", 1: "success", -1: "failure", -2: "critical failure"}


class Pf2eSheet(Sheet):
    """Pathfinder 2e: attribute modifiers, and a proficiency rank per skill/save/Perception."""

    system: ClassVar[str] = SYSTEM
    level: int = Field(1, ge=1, le=20)
    attributes: dict[str, int]
    ranks: dict[str, Literal["untrained", "trained", "expert", "master", "legendary"]] = Field(default_factory=dict)
    hp: int | None = None
    ac: int | None = None

    @field_validator("attributes")
    @classmethod
    def _mods(cls, value: dict[str, int]) -> dict[str, int]:
        for key, mod in value.items():
            if not -5 <= mod <= 7:
                raise ValueError(f"{key} is {mod}; attribute modifiers run -5 to +7")
        return value

    def check_keys(self) -> dict[str, list[str]]:
        return {"ranks": list(self.ranks)}

    def ability_fields(self) -> list[str]:
        return ["attributes"]

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = check_def(ruleset, check_id)
        ability = check.ability
        modifier, parts = 0, []
        if ability and ability in self.attributes:
            modifier = self.attributes[ability]
            parts.append(f"{abbr(ruleset, ability).capitalize()} {modifier:+d}")
        rank = self.ranks.get(check_id, "untrained")
        if RANKS[rank]:
            bonus = self.level + RANKS[rank]
            modifier += bonus
            parts.append(f"{rank} +{bonus}")
        else:
            parts.append("untrained +0")
        return RollPlan(system=self.system, check=check_id, check_name=check.name, modifier=modifier, why=", ".join(parts))

    def summary(self, ruleset) -> str:
        attrs = " ".join(f"{abbr(ruleset, k).capitalize()} {v:+d}" for k, v in self.attributes.items())
        return f"{super().summary(ruleset)} (level {self.level}; {attrs})"


sheet = Pf2eSheet


def choose_difficulty(check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
    """The scene's DC or the party level's DC, adjusted (easy -2, hard +2) for the player's words."""
    cues = read_cues(check_id, text, scenario, revealed)
    level = cues.party_level
    dc = cues.number(LEVEL_DC[max(0, min(len(LEVEL_DC) - 1, level))])
    why_base = cues.source or f"level-{level} DC"
    if cues.nudge:
        bonus, words = ADJUST[2 + cues.nudge]
        dc += bonus
        why_base += f", {words} ({bonus:+d}): {cues.shift_why}"
    edge_why = d20.EDGE_WORDS.get(cues.edge, "")
    return Difficulty(system=SYSTEM, target=dc, reason="; ".join(w for w in (why_base, edge_why) if w), secret=cues.secret_id)


expression = d20.expression
roll_hint = d20.roll_hint
player_roll = d20.player_roll
label = d20.label
target = d20.target


def make_roll(plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
    """One d20 plus the modifier (pf2e has no advantage)."""
    return roll(plan.expression(0), rng)


def degree(total: int, dc: int, nat: int | None) -> int:
    """2 critical success, 1 success, -1 failure, -2 critical failure."""
    step = 2 if total >= dc + 10 else 1 if total >= dc else -1 if total > dc - 10 else -2
    if nat == 20:
        step = {-2: -1, -1: 1, 1: 2, 2: 2}[step]
    elif nat == 1:
        step = {2: 1, 1: -1, -1: -2, -2: -2}[step]
    return step


def judge(plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
    """The degree of success in words, and whether it is a success at all."""
    step = degree(result.total, difficulty.target or 15, natural(result))
    return DEGREES[step], step > 0
