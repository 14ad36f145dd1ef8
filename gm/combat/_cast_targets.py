"""What gm.spells and gm.powers share: reading a pack data file and choosing whom a casting touches.

It sits below both so gm.spells can read the power book (to know every castable name) while
gm.powers casts with the same target rule, without the two modules importing each other.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rulesets import FileProblem, read_model_file

from ._model import CombatError, Combatant

__all__ = ["read_book", "choose_targets"]


def read_book(path: Path, model: type[BaseModel], what: str) -> Any:
    """A pack data file read into ``model``; a mistake is one ``CombatError`` line naming the file, line and key."""
    try:
        return read_model_file(path, model, what=what)
    except FileProblem as exc:
        raise CombatError(str(exc)) from None


def choose_targets(combat, caster: Combatant, harmful: bool, names: list[Any], what: str) -> list[Combatant]:
    """The creatures named (names in a fight, Combatants outside one); else the nearest enemy for
    harm in a fight, the caster for help."""
    found = [n if isinstance(n, Combatant) else combat.get(n) for n in names if n is not None] if combat else [
        n for n in names if isinstance(n, Combatant)]
    if found:
        return found
    if harmful and combat is not None:
        near = combat.nearest_enemy(caster)
        if near is None:
            raise CombatError(f"{caster.name} has no enemy left standing for {what}")
        return [near]
    if harmful:
        raise CombatError(f"name whom {caster.name} casts {what} at")
    return [caster]
