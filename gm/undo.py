"""What an undo took back, kept in the session: the turns and free rolls, with their dice.

``GameMaster.undo`` (the terminal's ``/undo``, the web host's button) puts the session back as
it was before the last input, so the story, the fight, the world and the dice counter are as
if it had not been played; what was taken back is not forgotten but listed in
``session.undone``, so a saved or resumed game shows that it was played and undone.
"""
from __future__ import annotations

from datetime import datetime, timezone

from .table import Session, TurnRecord

__all__ = ["taken_back", "undone_line"]


def taken_back(before: Session, after: Session, why: str = "undone") -> list[TurnRecord]:
    """The turns (and free rolls, as turns of their own) ``before`` has that ``after`` does not, marked ``why``."""
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    note = f"{why} by the table at {when}"
    out = [t.model_copy(update={"notes": [*t.notes, note]}, deep=True) for t in before.turns[len(after.turns):]]
    if before.pending_turn is not None and after.pending_turn is None:
        out.append(before.pending_turn.model_copy(update={"notes": [*before.pending_turn.notes, note]}, deep=True))
    for roll in before.free_rolls[len(after.free_rolls):]:
        who = roll.character or "someone"
        out.append(TurnRecord(player=who, character=roll.character, text=f"/roll {roll.expression}", rolls=[roll], notes=[note]))
    return out


def undone_line(turn: TurnRecord) -> str:
    """``Brisa: "I search the altar" (Brisa — Investigation: 1d20 (3) + 5 = 8 vs DC 15 → failure)``."""
    rolls = "; ".join(r.line() for r in turn.rolls)
    return f"{turn.character or turn.player}: \"{turn.text}\"" + (f" ({rolls})" if rolls else "")
