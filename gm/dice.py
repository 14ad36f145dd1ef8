"""Dice for every pack, on the ``d20`` library: one call, a total, and a breakdown a player can read.

- ``roll("1d20+5")``, ``roll("2d20kh1+3")`` (advantage), ``roll("1d8e8")`` (exploding):
  plain d20 expressions.
- ``percentile(bonus=1)``: Call of Cthulhu's d100 with bonus/penalty tens dice.
- ``trait_roll("d8", modifier=1, wild=True)``: Savage Worlds' exploding trait die, with the
  exploding d6 Wild Die for Wild Cards (keep the higher).

Every roll takes an optional ``random.Random`` so a seeded session re-rolls identically
after a resume.
"""
from __future__ import annotations

import random
import re
import threading
from contextlib import contextmanager

import d20
import d20.expression
from pydantic import BaseModel, Field

from rulesets import VgmError

__all__ = ["Roll", "BadDice", "roll", "percentile", "trait_roll", "die_size", "natural"]

MAX_DICE = 100
MAX_SIDES = 1000


class BadDice(VgmError):
    """A dice expression that cannot be rolled."""


class Roll(BaseModel):
    """One roll: what was rolled, the number, and the human breakdown."""

    expression: str
    total: int
    breakdown: str
    faces: list[int] = Field(default_factory=list)  # the kept natural dice, for nat-20 / snake-eyes rules

    def __str__(self) -> str:
        return self.breakdown


_rng_lock = threading.Lock()


@contextmanager
def _using(rng: random.Random | None):
    """Let d20 draw from ``rng``.

    d20 draws from the ``random`` module global and takes no generator argument, so for a
    seeded roll we swap its module reference for our ``Random`` for the duration (under a lock).
    """
    if rng is None:
        yield
        return
    with _rng_lock:
        saved = d20.expression.random
        d20.expression.random = rng
        try:
            yield
        finally:
            d20.expression.random = saved


_SIZE = re.compile(r"(\d*)d(\d+|%)", re.IGNORECASE)


def _check_bounds(expr: str) -> None:
    for count, sides in _SIZE.findall(expr):
        if count and int(count) > MAX_DICE:
            raise BadDice(f"{expr!r} rolls {count} dice; roll at most {MAX_DICE} at once")
        if sides != "%" and (int(sides) < 1 or int(sides) > MAX_SIDES):
            raise BadDice(f"{expr!r} has a d{sides}; dice have 1 to {MAX_SIDES} sides")


def _kept_faces(node) -> list[int]:
    """The kept natural faces in a d20 result tree (for nat-1/nat-20 and snake-eyes rules)."""
    if isinstance(node, d20.Dice):
        return [v.number for die in node.values if die.kept for v in die.values if v.kept]
    faces: list[int] = []
    for child in getattr(node, "children", []) or []:
        if getattr(child, "kept", True):
            faces.extend(_kept_faces(child))
    return faces


def roll(expr: str, rng: random.Random | None = None) -> Roll:
    """Roll a d20-syntax expression (``1d20+5``, ``2d20kh1``, ``4d6kh3``, ``1d6e6``)."""
    text = (expr or "").strip()
    if not text:
        raise BadDice("empty dice expression; write one like 1d20+5 or 2d20kh1")
    _check_bounds(text)
    try:
        with _using(rng):
            result = d20.roll(text, allow_comments=False)
    except d20.TooManyRolls:
        raise BadDice(f"{text!r} would roll too many dice; make it smaller") from None
    except d20.RollSyntaxError:
        raise BadDice(f"cannot read dice {text!r}; write e.g. 1d20+5, 2d20kh1 (advantage), 1d8e8 (exploding)") from None
    except d20.RollValueError as exc:
        raise BadDice(f"cannot roll {text!r}: {exc}") from None
    except d20.RollError as exc:
        raise BadDice(f"cannot roll {text!r}: {exc}") from None
    return Roll(expression=text, total=int(result.total), breakdown=_plain(str(result)), faces=_kept_faces(result.expr))


def _plain(breakdown: str) -> str:
    """d20 marks up for Discord (``**crit**``, ``~~dropped~~``, backticks); keep it readable in a terminal."""
    return breakdown.replace("`", "").replace("**", "").replace("~~", "~")


def natural(r: Roll) -> int | None:
    """The single kept d20 face of a check roll, if there is exactly one."""
    return r.faces[0] if len(r.faces) == 1 else None


def percentile(bonus: int = 0, penalty: int = 0, rng: random.Random | None = None) -> Roll:
    """Call of Cthulhu d100: one units die and 1 + |bonus - penalty| tens dice.

    Bonus and penalty dice cancel one for one. With bonus dice the lowest result counts, with
    penalty dice the highest; tens 00 with units 0 reads 100.
    """
    net = bonus - penalty
    extra = abs(net)
    if extra > 2:
        raise BadDice(f"{extra} {'bonus' if net > 0 else 'penalty'} dice; Call of Cthulhu allows at most 2")
    units = roll("1d10", rng).total % 10  # a d10's 10 reads 0
    tens = [roll("1d%", rng).total for _ in range(1 + extra)]
    results = [100 if t == 0 and units == 0 else t + units for t in tens]
    total = (min if net > 0 else max)(results)
    label = "" if net == 0 else f" ({extra} {'bonus' if net > 0 else 'penalty'})"
    tens_txt = ", ".join(f"{t:02d}" for t in tens)
    expr = "1d100" if net == 0 else f"1d100 with {extra} {'bonus' if net > 0 else 'penalty'} di{'e' if extra > 1 else 'e'}"
    breakdown = f"d100{label}: tens [{tens_txt}] + units {units} = {total}"
    return Roll(expression=expr, total=total, breakdown=breakdown, faces=[total])


_DIE = re.compile(r"^\s*d(4|6|8|10|12)\s*([+-]\s*\d+)?\s*$", re.IGNORECASE)


def die_size(die: str) -> tuple[int, int]:
    """``"d8"`` → (8, 0); ``"d12+2"`` → (12, 2). Savage Worlds trait dice only."""
    m = _DIE.match(str(die))
    if not m:
        raise BadDice(f"trait die {die!r} is not one of d4, d6, d8, d10, d12 (optionally +N, e.g. d12+1)")
    return int(m.group(1)), int((m.group(2) or "0").replace(" ", ""))


def trait_roll(die: str, modifier: int = 0, wild: bool = True, rng: random.Random | None = None) -> Roll:
    """Savage Worlds trait roll: the exploding trait die (and exploding d6 Wild Die), keep the higher, add modifiers."""
    sides, step_bonus = die_size(die)
    mod = modifier + step_bonus
    trait = roll(f"1d{sides}e{sides}", rng)
    parts = [f"trait d{sides}: {trait.breakdown}"]
    best = trait.total
    faces = [trait.faces[0] if trait.faces else trait.total]
    if wild:
        wild_die = roll("1d6e6", rng)
        parts.append(f"wild d6: {wild_die.breakdown}")
        faces.append(wild_die.faces[0] if wild_die.faces else wild_die.total)
        best = max(best, wild_die.total)
    total = best + mod
    mod_txt = f" {'+' if mod >= 0 else '-'} {abs(mod)}" if mod else ""
    expr = f"d{sides}{'+' + str(step_bonus) if step_bonus else ''}{' + wild d6' if wild else ''}{f' {mod - step_bonus:+d}' if mod - step_bonus else ''}"
    breakdown = f"{'; '.join(parts)}; keep {best}{mod_txt} = {total}"
    return Roll(expression=expr, total=total, breakdown=breakdown, faces=faces)
