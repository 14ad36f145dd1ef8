"""What a pipeline carries from step to step, and what it hands back.

A pipeline (Tachikuma section 5) is a chain of small steps over one ``PipelineState``: the
instance, its rule-set pack, the one conversation every model step extends, and the answers
found so far (who is present, who acts, which checks, the GM's words).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from .llm import ChatModel, Message, Usage
from .records import Check, MoeInstance


class StepRecord(BaseModel):
    """One step as it ran: the model's raw text, what we read from it, and its cost."""

    name: str
    raw: str | None = None
    parsed: Any = None
    parse_ok: bool = True
    usage: Usage = Field(default_factory=lambda: Usage(calls=0))
    dropped: list[str] = Field(default_factory=list)  # names/skills the answer gave that we could not resolve
    error: str | None = None


class PipelineResult(BaseModel):
    """What ``Pipeline.run`` returns for one instance."""

    checks: list[Check] = Field(default_factory=list)
    utterance: str | None = None
    decision: str | None = None  # adjudicate: "roll", "no_roll" or "impossible"
    steps: list[StepRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=lambda: Usage(calls=0))
    error: str | None = None

    @property
    def parse_ok(self) -> bool:
        """Every model step's answer could be read."""
        return all(s.parse_ok for s in self.steps)

    @property
    def dropped(self) -> int:
        return sum(len(s.dropped) for s in self.steps)


class StepLog:
    """What ``chain`` needs of a state: ``steps`` (the records kept), ``record`` (the running
    step's, which ``chain`` opens) and ``completed``; a step fills its record in through here."""

    steps: list[StepRecord]
    record: StepRecord | None

    def step_record(self, name: str) -> StepRecord:
        """The record of the step now running (the one ``chain`` opened), for the step to fill in.

        A step run on its own, outside a chain, gets a fresh record here that nothing keeps.
        """
        if self.record is None:
            self.record = StepRecord(name=name)
        return self.record


@dataclass
class PipelineState(StepLog):
    """The mutable state a chain of steps works on.

    ``messages`` is the single conversation: the shared prefix (rules + table log) first, then
    one instruction and one answer per model step, so later steps see earlier answers and a
    prefix-caching server computes the long part once.
    """

    instance: MoeInstance
    pack: Any
    model: ChatModel | None = None
    messages: list[Message] = field(default_factory=list)
    present: list[str] | None = None  # pre_char: who is in the scene
    actors: list[str] | None = None  # char: who acts next
    checks: list[Check] = field(default_factory=list)
    utterance: str | None = None
    decision: str | None = None  # adjudicate: "roll", "no_roll" or "impossible"
    steps: list[StepRecord] = field(default_factory=list)
    record: StepRecord | None = None  # the running step's record: ``chain`` opens it, the step fills it in
    options: dict[str, Any] = field(default_factory=dict)
    completed: bool = False  # a step may end the chain early
    error: str | None = None

    @property
    def usage(self) -> Usage:
        total = Usage(calls=0)
        for record in self.steps:
            total = total + record.usage
        return total

    def result(self) -> PipelineResult:
        return PipelineResult(checks=list(self.checks), utterance=self.utterance, decision=self.decision, steps=list(self.steps), usage=self.usage, error=self.error)
