"""The records every layer passes around: a table log turn, a skill check, a MOE instance.

They are the schema (pydantic v2): files validate on load, and a bad record fails with the
field that is wrong.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Turn(BaseModel):
    """One line of a table log. The Game Master speaks as ``GM``."""

    model_config = ConfigDict(frozen=True)

    speaker: str
    text: str

    def __str__(self) -> str:
        return f"{self.speaker}: {self.text}"


class Check(BaseModel):
    """One skill check: who rolls, and which of the rule set's check ids."""

    model_config = ConfigDict(frozen=True)

    character: str
    skill: str

    def __str__(self) -> str:
        return f"{self.character} → {self.skill}"


class MoeInstance(BaseModel):
    """A MOE question (Tachikuma 3.1): the log so far, and the checks the GM called next.

    ``characters`` optionally lists the player characters at the table (and their aliases
    can be given as ``"Nott|Nott the Brave"``); ``source`` says where the instance came from
    (episode, line), so splits can be made by episode. ``gm_reply`` is the real GM's line
    that called the checks, where the source has it: the human reference a rating study
    sets beside generated GM utterances (Tachikuma 6.2).
    """

    id: str
    ruleset: str
    context: list[Turn]
    answers: list[Check] = Field(default_factory=list)
    characters: list[str] | None = None
    source: str | None = None
    gm_reply: str | None = None

    @field_validator("id", "ruleset")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value
