"""Adjudication: how hard a check is (with a short reason), the roll, and what the result means.

Each rule system reads dice its own way:

- ``d20`` (dnd5e): d20 + modifier ≥ DC; advantage rolls 2d20 and keeps the higher.
- ``degrees`` (pf2e): four degrees — beat the DC by 10 for a critical success, miss by 10
  for a critical failure; a natural 20 / 1 moves the degree one step up / down.
- ``percentile`` (coc7e): d100 ≤ skill; hard needs half, extreme a fifth; 01 is a
  critical, 100 (or 96+ with a skill under 50) a fumble; bonus/penalty dice.
- ``trait`` (swade): trait die (+ Wild Die) + modifiers vs TN 4, a raise per 4 over;
  a Wild Card's double 1 is a critical failure.
"""
from __future__ import annotations

import random
import re

from pydantic import BaseModel

from .characters import RollPlan
from .dice import BadDice, Roll, die_size, natural, percentile, roll, trait_roll
from .table import RollRecord, Scenario, Secret

__all__ = ["Difficulty", "choose_difficulty", "make_roll", "player_roll", "judge", "roll_hint", "DND_LADDER", "PF2_LEVEL_DC"]

DND_LADDER = [(5, "very easy"), (10, "easy"), (15, "medium"), (20, "hard"), (25, "very hard"), (30, "nearly impossible")]
PF2_LEVEL_DC = [14, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35, 36, 38, 39, 40, 42, 44, 46, 48, 50]
PF2_ADJUST = [(-5, "incredibly easy"), (-2, "easy"), (0, "standard"), (2, "hard"), (5, "very hard"), (10, "incredibly hard")]
COC_LEVELS = ["regular", "hard", "extreme"]
COC_DIVISOR = {"regular": 1, "hard": 2, "extreme": 5}
SWADE_TN = 4

# What a player's words say about how hard the task is. Small and general on purpose: the
# scenario's secrets carry the real numbers; these only nudge a default up or down one step.
_HARDER = re.compile(r"\b(quickly|hurr(y|ied|iedly)|rush(ing)?|in the dark|while (running|climbing|falling)|under fire|blind(ly|folded)?|one[- ]handed|desperate(ly)?|in a hurry)\b", re.I)
_EASIER = re.compile(r"\b(carefully|slowly|take my time|taking my time|methodical(ly)?|patiently|thoroughly|with (a|the) (rope|light|torch|lantern|tools?|help))\b", re.I)
_ADVANTAGE = re.compile(r"\b(with advantage|advantage|bonus die)\b", re.I)
_DISADVANTAGE = re.compile(r"\b(with disadvantage|disadvantage|penalty die)\b", re.I)


class Difficulty(BaseModel):
    """How hard one check is, and why, in the system's own terms."""

    system: str
    target: int | None = None  # dnd5e/pf2e DC; swade TN
    level: str | None = None  # coc7e: regular / hard / extreme
    modifier: int = 0  # swade: situational modifier to the roll
    advantage: int = 0  # dnd5e +1 advantage / -1 disadvantage; coc7e bonus (+) / penalty (-) dice
    reason: str = ""
    secret: str | None = None  # id of the scenario secret this check is for

    def label(self, plan: RollPlan | None = None) -> str | None:
        """``DC 15``, ``Hard (30)`` (with the character's target), ``TN 4 (-2)``."""
        if self.system == "percentile":
            level = self.level or "regular"
            if plan is not None and plan.value is not None:
                return f"{level.capitalize()} ({plan.value // COC_DIVISOR[level]})"
            return level.capitalize()
        if self.system == "trait":
            return f"TN {self.target}" + (f" ({self.modifier:+d})" if self.modifier else "")
        return f"DC {self.target}" if self.target is not None else None


def _matching_secret(scenario: Scenario | None, check_id: str, text: str, revealed: set[str]) -> Secret | None:
    if scenario is None:
        return None
    words = text.lower()
    by_skill = [s for s in scenario.secrets if check_id in s.checks and s.id not in revealed]
    keyed = [s for s in by_skill if any(k.lower() in words for k in s.keywords)]
    if keyed:
        return keyed[0]
    unkeyed = [s for s in by_skill if not s.keywords]
    return unkeyed[0] if unkeyed else None


def _step(text: str) -> tuple[int, str]:
    """-1 (easier), 0, +1 (harder) from the player's words, with the words as the reason."""
    hard, easy = _HARDER.search(text), _EASIER.search(text)
    if hard and not easy:
        return 1, f"'{hard.group(0)}' makes it harder"
    if easy and not hard:
        return -1, f"'{easy.group(0)}' makes it easier"
    return 0, ""


def _edge(text: str) -> int:
    adv, dis = bool(_ADVANTAGE.search(text)), bool(_DISADVANTAGE.search(text))
    return 0 if adv == dis else (1 if adv else -1)


def _nearest(ladder: list[tuple[int, str]], value: int) -> int:
    return min(range(len(ladder)), key=lambda i: abs(ladder[i][0] - value))


def choose_difficulty(system: str, check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
    """The difficulty of ``check_id`` for an action described by ``text``, with a one-line reason.

    A matching scenario secret sets the number; otherwise the scenario's default (or the
    system's usual middle) is nudged one step by the player's own words.
    """
    revealed = revealed or set()
    secret = _matching_secret(scenario, check_id, text, revealed)
    shift, shift_why = _step(text)
    edge = _edge(text)
    edge_why = "" if not edge else {1: "advantage", -1: "disadvantage"}[edge] if system in ("d20", "degrees") else ({1: "a bonus die", -1: "a penalty die"}[edge] if system == "percentile" else "")
    base = secret.difficulty if secret else (scenario.difficulty if scenario and scenario.difficulty is not None else None)
    source = f"the scene sets it for '{secret.id.replace('_', ' ')}'" if secret else ("the scene's usual difficulty" if base is not None else "")

    if system == "d20":
        if check_id == "death_save":
            return Difficulty(system=system, target=10, reason="death saves are always DC 10")
        if check_id == "initiative":
            return Difficulty(system=system, target=None, advantage=edge, reason="initiative sets the turn order; no DC")
        dc = int(base) if base is not None and str(base).lstrip("-").isdigit() else 15
        idx = _nearest(DND_LADDER, dc)
        if shift and not secret:
            idx = max(0, min(len(DND_LADDER) - 1, idx + shift))
            dc = DND_LADDER[idx][0]
        why = [f"{DND_LADDER[_nearest(DND_LADDER, dc)][1]} task", source or "a typical challenge", shift_why if not secret else "", edge_why]
        return Difficulty(system=system, target=dc, advantage=edge, reason="; ".join(w for w in why if w), secret=secret.id if secret else None)

    if system == "degrees":
        level = scenario.level if scenario else 1
        level_dc = PF2_LEVEL_DC[max(0, min(len(PF2_LEVEL_DC) - 1, level))]
        dc = int(base) if base is not None and str(base).lstrip("-").isdigit() else level_dc
        why_base = source or f"level-{level} DC"
        if shift and not secret:
            idx = 2 + shift
            dc += PF2_ADJUST[idx][0]
            why_base += f", {PF2_ADJUST[idx][1]} ({PF2_ADJUST[idx][0]:+d}): {shift_why}"
        return Difficulty(system=system, target=dc, reason="; ".join(w for w in (why_base, edge_why) if w), secret=secret.id if secret else None)

    if system == "percentile":
        level = str(base).lower() if base is not None and str(base).lower() in COC_LEVELS else "regular"
        why = [source or "an ordinary attempt"]
        if shift and not secret:
            if shift > 0 and level != "extreme":
                level = COC_LEVELS[COC_LEVELS.index(level) + 1]
                why.append(shift_why)
            elif shift < 0:
                edge = max(edge, 1) if level == "regular" else edge
                level = COC_LEVELS[max(0, COC_LEVELS.index(level) - 1)]
                why.append(shift_why)
        if edge_why:
            why.append(edge_why)
        return Difficulty(system=system, level=level, advantage=edge, reason=f"{level} difficulty: " + "; ".join(why), secret=secret.id if secret else None)

    # trait (swade): TN 4 always; difficulty is a modifier to the roll
    mod = int(base) if base is not None and str(base).lstrip("-").isdigit() else 0
    why = [source or "standard TN 4"]
    if shift and not secret:
        mod += -2 * shift
        why.append(shift_why)
    return Difficulty(system=system, target=SWADE_TN, modifier=mod, reason="; ".join(why), secret=secret.id if secret else None)


def make_roll(plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
    """Roll the dice ``plan`` calls for (advantage, bonus dice and the Wild Die included)."""
    if plan.system in ("d20", "degrees"):
        return roll(plan.expression(difficulty.advantage if plan.system == "d20" else 0), rng)
    if plan.system == "percentile":
        return percentile(bonus=max(0, difficulty.advantage), penalty=max(0, -difficulty.advantage), rng=rng)
    return trait_roll(plan.die or "d4", plan.modifier + difficulty.modifier, wild=plan.wild, rng=rng)


def roll_hint(plan: RollPlan) -> str:
    """What a player types under ``--player-rolls``."""
    if plan.system in ("d20", "degrees"):
        return "the number on your d20 (1-20)" + (f"; the GM adds {plan.modifier:+d}" if plan.modifier else "")
    if plan.system == "percentile":
        return "your d100 result (1-100)"
    return f"your trait die{' and Wild Die' if plan.wild else ''} totals after explosions, e.g. '7 3'"


def player_roll(plan: RollPlan, difficulty: Difficulty, typed: str) -> Roll:
    """A roll the player made at the table, typed in; impossible numbers are a ``BadDice``."""
    numbers = [int(n) for n in re.findall(r"-?\d+", typed)]
    if not numbers:
        raise BadDice(f"{typed!r} is not a roll; type {roll_hint(plan)}")
    if plan.system in ("d20", "degrees"):
        face = numbers[0]
        if not 1 <= face <= 20:
            raise BadDice(f"{face} cannot come up on a d20; type a number from 1 to 20")
        total = face + plan.modifier
        expr = plan.expression()
        return Roll(expression=expr, total=total, breakdown=f"{expr} ({face}){f' {plan.modifier:+d}' if plan.modifier else ''} = {total}", faces=[face])
    if plan.system == "percentile":
        value = numbers[0]
        if not 1 <= value <= 100:
            raise BadDice(f"{value} cannot come up on a d100; type a number from 1 to 100")
        return Roll(expression="1d100", total=value, breakdown=f"d100 (typed): {value}", faces=[value])
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
    return Roll(expression=plan.expression(), total=total, breakdown=f"typed {' / '.join(map(str, dice))}; keep {best}{f' {mod:+d}' if mod else ''} = {total}", faces=[d for d in dice])


def judge(plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
    """What the roll means: (outcome words, success?)."""
    nat = natural(result) if plan.system in ("d20", "degrees") else None
    if plan.system == "d20":
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
    if plan.system == "degrees":
        dc = difficulty.target or 15
        degree = 2 if result.total >= dc + 10 else 1 if result.total >= dc else -1 if result.total > dc - 10 else -2
        if nat == 20:
            degree = {-2: -1, -1: 1, 1: 2, 2: 2}[degree]
        elif nat == 1:
            degree = {2: 1, 1: -1, -1: -2, -2: -2}[degree]
        words = {2: "critical success", 1: "success", -1: "failure", -2: "critical failure"}[degree]
        return words, degree > 0
    if plan.system == "percentile":
        value = plan.value or 0
        r = result.total
        if r == 1:
            achieved = 4
        elif r == 100 or (value < 50 and r >= 96):
            achieved = -1
        elif r <= value // 5:
            achieved = 3
        elif r <= value // 2:
            achieved = 2
        elif r <= value:
            achieved = 1
        else:
            achieved = 0
        names = {4: "critical success", 3: "extreme success", 2: "hard success", 1: "regular success", 0: "failure", -1: "fumble"}
        needed = {"regular": 1, "hard": 2, "extreme": 3}[difficulty.level or "regular"]
        ok = achieved >= needed
        if achieved > 0 and not ok:
            return f"failure ({names[achieved]}, needed {difficulty.level})", False
        return names[achieved], ok
    tn = difficulty.target or SWADE_TN
    if plan.wild and len(result.faces) >= 2 and result.faces[0] == 1 and result.faces[1] == 1:
        return "critical failure (snake eyes)", False
    if result.total < tn:
        return "failure", False
    raises = (result.total - tn) // 4
    return ("success" if raises == 0 else f"success with {raises} raise{'s' if raises > 1 else ''}"), True


def record(character: str, plan: RollPlan, difficulty: Difficulty, result: Roll, by: str = "gm") -> RollRecord:
    """The roll as the session keeps it."""
    outcome, ok = judge(plan, difficulty, result)
    target = difficulty.target
    if plan.system == "percentile" and plan.value is not None:
        target = plan.value // COC_DIVISOR[difficulty.level or "regular"]
    return RollRecord(
        character=character, check=plan.check, check_name=plan.check_name, expression=result.expression,
        total=result.total, breakdown=result.breakdown, target=target, target_label=difficulty.label(plan),
        outcome=outcome, success=ok, modifier_why=plan.why, difficulty_why=difficulty.reason,
        secret=difficulty.secret, by=by,
    )
