"""The InMind game session (seed 3.1): ``<mode, role assignment, rounds, reflection>``.

A round is one mission (``taskN`` in the released data): its utterances ``U_z`` (players and
system), the observable state ``G_z`` (proposals, votes, mission result) and the subject's
strategy trace ``S_z`` (one note per proposal attempt). Both the released InMind-Avalon files
and our own Avalon logs become this one record, so every task builder reads one shape.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rulesets import VgmError

Mode = Literal["observer", "participant"]
SYSTEM = "system"


class InMindDataError(VgmError):
    """A session file (released InMind-Avalon JSON, or one of our Avalon logs) that does not make a session."""


class Utterance(BaseModel):
    """One line of the table: a player's speech (``speaker`` = seat as text) or a system line."""

    speaker: str
    text: str
    attempt: int | None = None  # proposal attempt within the mission (1 = first leader)

    @property
    def is_system(self) -> bool:
        return self.speaker == SYSTEM


class Proposal(BaseModel):
    attempt: int
    leader: int
    team: list[int]
    final: bool = True  # the confirmed team (False: the leader's first pick)
    forced: bool = False  # the fifth-proposal round: a rejection hands evil the game


class Vote(BaseModel):
    attempt: int
    approve: list[int] = Field(default_factory=list)
    reject: list[int] = Field(default_factory=list)
    approved: bool


class MissionResult(BaseModel):
    mission: int
    success: bool
    success_cards: int | None = None
    fail_cards: int | None = None


class GameState(BaseModel):
    """``G_z``: what anyone at the table could see happen in this round."""

    proposals: list[Proposal] = Field(default_factory=list)
    votes: list[Vote] = Field(default_factory=list)
    mission: MissionResult | None = None
    early_assassination: bool = False


class StrategyNote(BaseModel):
    """One entry of the subject's strategy trace, written after a proposal attempt."""

    attempt: int
    text: str


class Round(BaseModel):
    """One mission: ``E_z = <U_z, G_z, S_z>``."""

    mission: int
    utterances: list[Utterance] = Field(default_factory=list)
    state: GameState = Field(default_factory=GameState)
    strategy: list[StrategyNote] = Field(default_factory=list)

    @property
    def trace(self) -> str:
        return "\n".join(note.text for note in self.strategy)


class EndPhase(BaseModel):
    """How the game ended: the identification phase (assassination) and the winner."""

    how: Literal["early_assassination", "three_successes", "three_failures", "unknown"] = "unknown"
    utterances: list[Utterance] = Field(default_factory=list)
    assassin_target: int | None = None
    assassination_hit: bool | None = None
    winner: Literal["good", "evil"] | None = None


class Session(BaseModel):
    """One annotated game, ``G = <mode, A, {E_z}, F>``."""

    id: str
    source: str = ""
    mode: Mode
    subject_seat: int
    subject_role: str  # canonical role id of the seat the subject played or watched
    subject_knowledge: str = ""  # the role's night knowledge, as the subject saw it
    roles: dict[int, str]  # seat -> canonical role id (the assignment A)
    rounds: list[Round]
    end: EndPhase = Field(default_factory=EndPhase)
    reflection: str = ""  # the post-game reflective summary F
    language: Literal["zh", "en"] = "zh"

    @property
    def seats(self) -> list[int]:
        return sorted(self.roles)

    @property
    def traces(self) -> list[StrategyNote]:
        return [note for rnd in self.rounds for note in rnd.strategy]

    def summary(self) -> dict[str, object]:
        """One row for listings (``vgm inmind import``): who the subject was, how much was annotated, how it ended."""
        return {
            "id": self.id, "mode": self.mode, "language": self.language, "subject_seat": self.subject_seat,
            "subject_role": self.subject_role, "missions": len(self.rounds),
            "proposals": sum(len({p.attempt for p in r.state.proposals}) for r in self.rounds),
            "traces": len(self.traces), "reflection_chars": len(self.reflection), "end": self.end.how, "winner": self.end.winner,
        }
