"""Rule-system mechanics: one module per way of reading dice, looked up by the pack's ``system``.

=============  ==========  ==========================================================
mechanic       packs       the dice
=============  ==========  ==========================================================
``d20``        dnd5e       d20 + modifier ≥ DC; advantage keeps the higher of 2d20
``degrees``    pf2e        d20 + modifier vs DC in four degrees; natural 20 / 1 shift one
``percentile`` coc7e       d100 ≤ skill; hard half, extreme a fifth; 01 critical, 100 fumble
``trait``      swade       trait die (+ Wild Die) vs TN 4, a raise per 4 over; snake eyes
=============  ==========  ==========================================================

Each mechanic module holds its character ``sheet``, how it chooses a difficulty, makes a roll,
reads a typed roll, and judges the result (the ``Mechanic`` protocol). The one call most code
needs::

    mechanic_for("dnd5e").judge(plan, difficulty, roll)

and the module-level ``choose_difficulty`` / ``make_roll`` / ``player_roll`` / ``judge`` /
``roll_hint`` / ``record`` do that lookup for you (by ``plan.system``).

A new pack on an existing mechanic is one pack file: it names its mechanic with ``system:``
(read from ``ruleset.system``, or ``rules: {system: ...}`` while the pack format has no such
key), or is listed in ``PACK_SYSTEMS``. A new mechanic is one module here plus one line in
``MECHANICS``.
"""
from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from ..dice import Roll
from ..table import RollRecord, Scenario
from . import d20, degrees, percentile, trait
from ._base import (
    MECHANICS,
    PACK_SYSTEMS,
    CharacterError,
    Difficulty,
    RollPlan,
    Sheet,
    UnknownMechanic,
    ability_key,
    system_of,
)
from ._sheets import DATA as CHARACTERS_DIR
from ._sheets import SHEET_CHECKS, find_character, load_character, parse_character, ready_characters

__all__ = [
    "Mechanic", "MECHANICS", "PACK_SYSTEMS", "mechanic_for", "system_of",
    "CharacterError", "UnknownMechanic", "Difficulty", "RollPlan", "Sheet",
    "SHEET_CHECKS", "find_character", "load_character", "parse_character", "ready_characters", "ability_key", "CHARACTERS_DIR",
    "choose_difficulty", "hardest", "make_roll", "player_roll", "judge", "roll_hint", "record",
]


@runtime_checkable
class Mechanic(Protocol):
    """One way of reading dice. A module with these names is one (see ``d20.py``)."""

    @property
    def sheet(self) -> type[Sheet]:
        """The character sheet shape of this mechanic's packs; its ``plan`` makes the ``RollPlan``."""
        ...

    def choose_difficulty(self, check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
        """How hard ``check_id`` is for the action ``text``, with a one-line reason."""
        ...

    def expression(self, plan: RollPlan, advantage: int = 0) -> str:
        """The dice as a player would write them."""
        ...

    def make_roll(self, plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
        """Roll the dice ``plan`` calls for at this difficulty."""
        ...

    def roll_hint(self, plan: RollPlan) -> str:
        """What a player types when they roll their own dice."""
        ...

    def player_roll(self, plan: RollPlan, difficulty: Difficulty, typed: str) -> Roll:
        """The roll a player typed in; impossible numbers are a ``BadDice``."""
        ...

    def judge(self, plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
        """What the roll means: (outcome words, success?)."""
        ...

    def label(self, difficulty: Difficulty, plan: RollPlan | None = None) -> str | None:
        """The difficulty as the table says it (``DC 15``, ``Hard (30)``, ``TN 4 (-2)``)."""
        ...

    def target(self, plan: RollPlan, difficulty: Difficulty) -> int | None:
        """The number the session records as the roll's target."""
        ...


# The registry: a mechanic's name → its module. A new mechanic is one line here.
# (The dict lives in ``_base``, which every mechanic module imports; it is filled here.)
MECHANICS.update({
    "d20": d20,
    "percentile": percentile,
    "degrees": degrees,
    "trait": trait,
})


def mechanic_for(system_or_pack: Any) -> Mechanic:
    """The mechanic for a system name (``"d20"``), a pack name (``"dnd5e"``) or a loaded pack.

    Raises:
        UnknownMechanic: nothing in ``MECHANICS`` fits; the message lists what does.
    """
    if isinstance(system_or_pack, str) and system_or_pack in MECHANICS:
        return MECHANICS[system_or_pack]
    system = system_of(system_or_pack)
    if system in MECHANICS:
        return MECHANICS[system]
    name = system_or_pack if isinstance(system_or_pack, str) else getattr(system_or_pack, "name", system_or_pack)
    raise UnknownMechanic(
        f"no dice mechanic for {name!r}{f' (system {system!r})' if system and system != name else ''}; "
        f"use a system ({', '.join(MECHANICS)}) or a pack that plays one ({', '.join(PACK_SYSTEMS)})"
    )


def choose_difficulty(system: str, check_id: str, text: str, scenario: Scenario | None = None, revealed: set[str] | None = None) -> Difficulty:
    """The difficulty of ``check_id`` for an action described by ``text``, with a one-line reason.

    A matching scenario secret sets the number; otherwise the scenario's default (or the
    system's usual middle) is nudged one step by the player's own words.
    """
    return mechanic_for(system).choose_difficulty(check_id, text, scenario, revealed)


def hardest(difficulty: Difficulty, why: str) -> Difficulty:
    """``difficulty`` at the hardest the system names, for an act the GM finds implausible but no
    rule or scene fact rules out: DC 30 in D&D, incredibly hard (+10) in Pathfinder, Extreme in
    Call of Cthulhu, a -4 modifier in Savage Worlds. Only the number moves; the edge stays."""
    system = difficulty.system
    change = ({"target": 30} if system == "d20" else {"target": (difficulty.target or 15) + 10} if system == "degrees"
              else {"level": "extreme"} if system == "percentile" else {"modifier": min(difficulty.modifier, 0) - 4})
    return difficulty.model_copy(update={**change, "reason": f"the hardest there is: {why}"})


def make_roll(plan: RollPlan, difficulty: Difficulty, rng: random.Random | None = None) -> Roll:
    """Roll the dice ``plan`` calls for (advantage, bonus dice and the Wild Die included)."""
    return mechanic_for(plan.system).make_roll(plan, difficulty, rng)


def roll_hint(plan: RollPlan) -> str:
    """What a player types under ``--player-rolls``."""
    return mechanic_for(plan.system).roll_hint(plan)


def player_roll(plan: RollPlan, difficulty: Difficulty, typed: str) -> Roll:
    """A roll the player made at the table, typed in; impossible numbers are a ``BadDice``."""
    return mechanic_for(plan.system).player_roll(plan, difficulty, typed)


def judge(plan: RollPlan, difficulty: Difficulty, result: Roll) -> tuple[str, bool | None]:
    """What the roll means: (outcome words, success?)."""
    return mechanic_for(plan.system).judge(plan, difficulty, result)


def record(character: str, plan: RollPlan, difficulty: Difficulty, result: Roll, by: str = "gm") -> RollRecord:
    """The roll as the session keeps it."""
    mechanic = mechanic_for(plan.system)
    outcome, ok = mechanic.judge(plan, difficulty, result)
    return RollRecord(
        character=character, check=plan.check, check_name=plan.check_name, expression=result.expression,
        total=result.total, breakdown=result.breakdown, target=mechanic.target(plan, difficulty), target_label=difficulty.label(plan),
        outcome=outcome, success=ok, modifier_why=plan.why, difficulty_why=difficulty.reason,
        secret=difficulty.secret, by=by,
    )
