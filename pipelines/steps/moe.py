"""The MOE steps of Tachikuma section 5: pre-char, char, skill, the one-shot template, and the GM's words.

Each factory returns ``async def run(state) -> state``. Model answers are read leniently
(a bare list for an object, "name" for "character") and then constrained: characters must be
at the table, skills must resolve in the pack; anything else is dropped and recorded.

Two ways of prompting, picked by the ``prompting`` option (``vgm moe compare --prompting``):

* ``assisted`` (what a library caller gets when the option is absent): the shared system
  prompt lists the pack's checks most-frequent-in-training first, candidates come most recent
  speaker first, and answers are capped (3 checks, 3 characters) — help a small model needs.
* ``faithful`` (the default of ``vgm moe compare`` and ``vgm reproduce``): only what the
  paper's prompts give — the step instructions in the paper's words (``faithful_*.txt``), the
  pack's checks in the pack's own order, the characters in the cast's own order, and no cap
  on how many answers come back beyond what the prompt asks for (JSON schemas keep their
  name/id enums, which only forbid names that are not at the table or not in the rules).
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_validator

from ..records import Check
from ..state import PipelineState, StepRecord
from ._conversation import (
    _object,
    ask,
    candidates,
    checks_schema,
    dedupe,
    enum_or_string,
    format_log,
    names_schema,
    prompt_text,
    resolve_character,
    resolve_skill,
    roster,
)
from ._registry import step
from rulesets import VgmError

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


def faithful(state: PipelineState) -> bool:
    """True when the run asked for the paper's prompts only (``prompting="faithful"``)."""
    return state.options.get("prompting") == "faithful"


def cast_order(instance: Any) -> list[str]:
    """The table's characters in the cast's own order: the ``characters`` list, then speakers as they first spoke."""
    return list(dict.fromkeys(roster(instance).values()))


def table_candidates(state: PipelineState) -> list[str]:
    """Who may be named: cast order when faithful, most recent speaker first when assisted."""
    return cast_order(state.instance) if faithful(state) else candidates(state.instance)


def _prompt(state: PipelineState, name: str) -> str:
    """A step's prompt text; the ``faithful_<name>`` wording when faithful and one exists."""
    if faithful(state):
        try:
            return prompt_text(f"faithful_{name}", state.options)
        except VgmError:
            pass
    return prompt_text(name, state.options)


def faithful_prefix(state: PipelineState) -> list[dict[str, str]]:
    """System (the rules and their checks, in the pack's order) and the table log with the cast in its own order."""
    pack = state.pack
    title = getattr(pack, "title", None) or getattr(pack, "name", None) or state.instance.ruleset
    system = _prompt(state, "system").format(ruleset=title, menu=pack.check_menu(zh=state.options.get("lang") == "zh"))
    log = _prompt(state, "log").format(
        log=format_log(state.instance, int(state.options.get("max_log_chars", 6000))),
        characters=", ".join(cast_order(state.instance)) or "(not listed)",
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": log}]


def _prepare(state: PipelineState) -> None:
    """Start the faithful conversation before the first model step (assisted uses the shared one)."""
    if faithful(state) and not state.messages:
        state.messages = faithful_prefix(state)


def _names_schema(state: PipelineState, allowed: list[str], zcot: bool, most: int | None) -> dict[str, Any]:
    if faithful(state):  # no cap: as many names as the model gives
        return _object({"characters": {"type": "array", "items": enum_or_string(allowed), "minItems": 1}}, zcot)
    return names_schema(allowed, zcot, most=most)


def _checks_schema(state: PipelineState, allowed: list[str], zcot: bool, most: int | None) -> dict[str, Any]:
    skills = skill_ids(state.pack)
    if faithful(state):
        item = {"type": "object", "properties": {"character": enum_or_string(allowed), "skill": enum_or_string(skills)},
                "required": ["character", "skill"]}
        return _object({"checks": {"type": "array", "items": item, "minItems": 1}}, zcot)
    return checks_schema(allowed, skills, zcot, most=most)


def _instruction(state: PipelineState, prompt: str, zcot: bool, **fields: Any) -> str:
    text = _prompt(state, prompt).format(candidates=", ".join(table_candidates(state)), **fields)
    if zcot:
        text += "\n" + _prompt(state, "zcot")
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


def _read_checks(answer: ChecksAnswer | None, state: PipelineState, record: StepRecord, keep_repeats: bool = False) -> list[Check]:
    """Resolved checks; repeats are removed when assisted and kept when faithful (the paper's p counts every tuple)."""
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
    return checks if keep_repeats else dedupe(checks)


async def _names_step(state: PipelineState, name: str, prompt: str, zcot: bool, max_tokens: int, *, allowed: list[str], most: int | None, keep_unknown: bool) -> list[str]:
    _prepare(state)
    answer, record = await ask(
        state, name, _instruction(state, prompt, zcot), NamesAnswer,
        strict_schema=_names_schema(state, allowed, zcot, most), max_tokens=max_tokens + (ZCOT_TOKENS if zcot else 0),
    )
    return _read_names(answer, state, record, keep_unknown=keep_unknown)


async def _checks_step(state: PipelineState, name: str, prompt: str, zcot: bool, max_tokens: int, *, allowed: list[str], most: int | None, **fields: Any) -> tuple[list[Check], StepRecord]:
    _prepare(state)
    answer, record = await ask(
        state, name, _instruction(state, prompt, zcot, **fields), ChecksAnswer,
        strict_schema=_checks_schema(state, allowed, zcot, most), max_tokens=max_tokens + (ZCOT_TOKENS if zcot else 0),
    )
    return _read_checks(answer, state, record, keep_repeats=faithful(state)), record


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
        state.actors = await _names_step(state, "char", prompt, zcot, max_tokens, allowed=table_candidates(state), most=max_characters, keep_unknown=False)
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
        allowed = actors or table_candidates(state)
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
        state.checks, _ = await _checks_step(state, "template", prompt, zcot, max_tokens, allowed=table_candidates(state), most=max_checks)
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
    """The +gm variants: the GM asks for the predicted checks, in a GM's voice (free text).

    Args:
        prompt: ``gm`` (ask for the checks found so far), or ``gm_nomoe`` (the no-MOE
            condition of the paper's Fig. 5: the GM answers the table with no checks given).
    """

    async def run(state: PipelineState) -> PipelineState:
        _prepare(state)
        text, record = await ask(
            state, "gm_utterance", _prompt(state, prompt).format(checks=describe_checks(state.checks, state.pack)),
            None, max_tokens=max_tokens,
        )
        state.utterance = text or None
        return state

    return run
