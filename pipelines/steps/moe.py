"""The MOE steps of Tachikuma section 5: pre-char, char, skill, the one-shot template, and the GM's words.

Each factory returns ``async def run(state) -> state``. Model answers are read leniently
(a bare list for an object, "name" for "character") and then constrained: characters must be
at the table, skills must resolve in the pack; anything else is dropped and recorded.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_validator

from ..records import Check
from ..state import PipelineState, StepRecord
from ._conversation import (
    ask,
    candidates,
    checks_schema,
    dedupe,
    names_schema,
    prompt_text,
    resolve_character,
    resolve_skill,
    roster,
)
from ._registry import step

ZCOT_TOKENS = 160  # room for the reasoning a zero-shot CoT step writes first


class NamesAnswer(BaseModel):
    """``{"characters": [...]}``, or a bare list of names."""

    characters: list[Any] = []
    reasoning: Any = None

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        if isinstance(value, list):
            return {"characters": value}
        if isinstance(value, str):
            return {"characters": [value]}
        if isinstance(value, dict) and "characters" not in value:
            for key in ("names", "character", "actors", "present"):
                if key in value:
                    found = value[key]
                    return {"characters": found if isinstance(found, list) else [found], "reasoning": value.get("reasoning")}
        return value


class ChecksAnswer(BaseModel):
    """``{"checks": [{"character", "skill"}, ...]}``, or a bare list / a single check."""

    checks: list[dict[str, Any]] = []
    reasoning: Any = None

    @model_validator(mode="before")
    @classmethod
    def _shapes(cls, value: Any) -> Any:
        if isinstance(value, list):
            return {"checks": [v for v in value if isinstance(v, dict)]}
        if isinstance(value, dict) and "checks" not in value:
            if {"character", "skill"} & value.keys():
                return {"checks": [value]}
            for key in ("answers", "answer", "check"):
                if key in value:
                    found = value[key]
                    return {"checks": found if isinstance(found, list) else [found], "reasoning": value.get("reasoning")}
        return value


def _name_of(item: Any) -> Any:
    if isinstance(item, dict):
        return item.get("name") or item.get("character")
    return item


def _instruction(state: PipelineState, prompt: str, zcot: bool, **fields: Any) -> str:
    text = prompt_text(prompt, state.options).format(candidates=", ".join(candidates(state.instance)), **fields)
    if zcot:
        text += "\n" + prompt_text("zcot", state.options)
    return text


def _read_names(answer: NamesAnswer | None, state: PipelineState, record: StepRecord, keep_unknown: bool) -> list[str]:
    names: list[str] = []
    for item in (answer.characters if answer else []):
        raw = _name_of(item)
        canon = resolve_character(raw, state.instance)
        if canon is None and keep_unknown and isinstance(raw, str) and raw.strip():
            canon = raw.strip()  # an NPC: fine for "who is present"
        if canon is None:
            record.dropped.append(f"character {raw!r}")
        elif canon not in names:
            names.append(canon)
    return names


def _read_checks(answer: ChecksAnswer | None, state: PipelineState, record: StepRecord) -> list[Check]:
    checks: list[Check] = []
    for item in (answer.checks if answer else []):
        who = resolve_character(item.get("character") or item.get("name"), state.instance)
        skill = resolve_skill(item.get("skill") or item.get("check"), state.pack)
        if who is None:
            record.dropped.append(f"character {item.get('character') or item.get('name')!r}")
        elif skill is None:
            record.dropped.append(f"skill {item.get('skill') or item.get('check')!r}")
        else:
            checks.append(Check(character=who, skill=skill))
    return dedupe(checks)


async def _names_step(state: PipelineState, name: str, prompt: str, zcot: bool, max_tokens: int, *, allowed: list[str], most: int | None, keep_unknown: bool) -> list[str]:
    answer, record = await ask(
        state, name, _instruction(state, prompt, zcot), NamesAnswer,
        strict_schema=names_schema(allowed, zcot, most=most), max_tokens=max_tokens + (ZCOT_TOKENS if zcot else 0),
    )
    names = _read_names(answer, state, record, keep_unknown=keep_unknown)
    state.steps.append(record)
    return names


async def _checks_step(state: PipelineState, name: str, prompt: str, zcot: bool, max_tokens: int, *, allowed: list[str], most: int | None, **fields: Any) -> tuple[list[Check], StepRecord]:
    answer, record = await ask(
        state, name, _instruction(state, prompt, zcot, **fields), ChecksAnswer,
        strict_schema=checks_schema(allowed, skill_ids(state.pack), zcot, most=most), max_tokens=max_tokens + (ZCOT_TOKENS if zcot else 0),
    )
    state.steps.append(record)
    return _read_checks(answer, state, record), record


@step("pre_char")
def pre_char(zcot: bool = False, prompt: str = "pre_char", max_tokens: int = 96):
    """Step 1 of TBS: who (characters or NPCs) is present in the current scene."""

    async def run(state: PipelineState) -> PipelineState:
        # NPCs are welcome here, so the names are free text (no enum)
        state.present = await _names_step(state, "pre_char", prompt, zcot, max_tokens, allowed=[], most=12, keep_unknown=True)
        return state

    return run


@step("char")
def char(zcot: bool = False, prompt: str = "char", max_tokens: int = 64, max_characters: int = 3):
    """Step 2 of TBS: which character(s) act next and need a check; only table characters count.

    Args:
        max_characters: the most names the server may return (most MOE calls name one
            character; a small model otherwise lists the whole table).
    """

    async def run(state: PipelineState) -> PipelineState:
        state.actors = await _names_step(state, "char", prompt, zcot, max_tokens, allowed=candidates(state.instance), most=max_characters, keep_unknown=False)
        return state

    return run


@step("skill")
def skill(zcot: bool = False, prompt: str = "skill", max_tokens: int = 128, only_actors: bool = True, max_checks: int = 3):
    """Step 3 of TBS: which of the pack's checks each acting character rolls.

    Args:
        max_checks: the most checks when no char step named the actors.
        only_actors: keep only checks for the characters the char step named (when it named any).
    """

    async def run(state: PipelineState) -> PipelineState:
        actors = state.actors or []
        allowed = actors or candidates(state.instance)
        checks, record = await _checks_step(state, "skill", prompt, zcot, max_tokens, allowed=allowed, most=len(actors) or max_checks,
                                            actors=", ".join(allowed) or "the acting character")
        if only_actors and actors:
            for check in [c for c in checks if c.character not in actors]:
                record.dropped.append(f"character {check.character!r} (not an actor)")
            checks = [c for c in checks if c.character in actors]
        state.checks = checks
        return state

    return run


@step("template")
def template(zcot: bool = False, prompt: str = "template", max_tokens: int = 128, max_checks: int = 3):
    """The one-prompt baseline: log + characters + checks list → checks.

    Args:
        max_checks: the most checks the server may return (see ``char``'s max_characters).
    """

    async def run(state: PipelineState) -> PipelineState:
        state.checks, _ = await _checks_step(state, "template", prompt, zcot, max_tokens, allowed=candidates(state.instance), most=max_checks)
        return state

    return run


def skill_ids(pack: Any) -> list[str]:
    """Check ids a server may constrain answers to; none (free text) when the pack has open families like ``lore:<topic>``."""
    return [] if getattr(pack, "families", None) else list(pack.checks)


def describe_checks(checks: list[Check], pack: Any) -> str:
    """"Jester: Perception, Nott: Stealth" using the pack's display names."""
    if not checks:
        return "no check (the scene simply continues)"
    parts = []
    for check in checks:
        try:
            label = pack.check(check.skill).name
        except Exception:
            label = check.skill
        parts.append(f"{check.character}: {label}")
    return ", ".join(parts)


@step("gm_utterance")
def gm_utterance(prompt: str = "gm", max_tokens: int = 160):
    """The +gm variants: the GM asks for the predicted checks, in a GM's voice (free text)."""

    async def run(state: PipelineState) -> PipelineState:
        text, record = await ask(
            state, "gm_utterance", prompt_text(prompt, state.options).format(checks=describe_checks(state.checks, state.pack)),
            None, max_tokens=max_tokens,
        )
        state.utterance = text or None
        state.steps.append(record)
        return state

    return run
