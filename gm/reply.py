"""What the GM answers to one input, as every interface shows it (terminal, web, eval)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from pipelines.records import Check

from .table import PendingCheck, RollRecord

__all__ = ["GMReply"]


class GMReply(BaseModel):
    """What the GM answers to one input: the decision, dice rolled, and the words said."""

    player: str
    character: str | None = None
    decision: str = "no_roll"  # roll / no_roll / impossible / pending
    checks: list[Check] = Field(default_factory=list)
    rolls: list[RollRecord] = Field(default_factory=list)
    narration: str = ""
    difficulty: list[str] = Field(default_factory=list)  # one short reason per check
    pending: list[PendingCheck] = Field(default_factory=list)  # rolls the players still owe
    notes: list[str] = Field(default_factory=list)  # what the GM dropped or fell back on, and why
    steps: list[dict[str, Any]] = Field(default_factory=list)
    timing: dict[str, float | None] = Field(default_factory=dict)  # turn_s, decide_s, first_token_s
    fight: list[str] = Field(default_factory=list)  # what happened in the fight, each with its dice
    order: str = ""  # the initiative order while a fight goes on
    speaker: str | None = None  # the NPC who answers in this reply (a question put to them), when one does
    failed: str = ""  # a step that broke this turn (the GM went on without it); empty when none did

    def __str__(self) -> str:
        return self.as_text(verbose=True)

    def as_text(self, verbose: bool = False) -> str:
        """The reply as lines; the GM's notes (for the log) only when ``verbose``."""
        lines = [f"[check] {c.character} → {c.skill}" for c in self.checks if not self.rolls and not self.pending]
        if self.decision == "impossible":
            lines.append("[no roll] that cannot work")
        lines += [f"[roll] {r.line()}" for r in self.rolls] + [f"[fight] {f}" for f in self.fight]
        lines += [f"[order] {self.order}"] if self.order else []
        lines += [f"[why] {d}" for d in self.difficulty]
        lines += [f"[note] {n}" for n in self.notes] if verbose else []
        if self.narration:
            lines.append(f"GM: {self.narration}")
        return "\n".join(lines)
