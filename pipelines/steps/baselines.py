"""Steps that never call a model: the floor every MOE table shows (Tachikuma section 6).

``last_speaker`` guesses that whoever spoke last (not the GM) acts next; ``statistic_char``
guesses the character most often asked for checks in training data; ``statistic_skill`` gives
each acting character their most frequent skill. Training counts come in the ``stats``
option (a ``SkillStats``); without it they fall back to the pack's default check.
"""
from __future__ import annotations

from ..records import Check
from ..state import PipelineState, StepRecord
from ..statistic import SkillStats
from ._conversation import candidates, is_gm, resolve_character
from ._registry import step


def _stats(state: PipelineState) -> SkillStats:
    return state.options.get("stats") or SkillStats()


def _exclude(state: PipelineState):
    return state.instance if state.options.get("leave_one_out") else None


def last_non_gm_speaker(state: PipelineState) -> str | None:
    for turn in reversed(state.instance.context):
        if is_gm(turn.speaker):
            continue
        for part in reversed(turn.speaker.split("&")):
            found = resolve_character(part.strip(), state.instance)
            if found:
                return found
    return None


@step("last_speaker", needs_model=False)
def last_speaker():
    """The most recent non-GM speaker acts next."""

    async def run(state: PipelineState) -> PipelineState:
        who = last_non_gm_speaker(state)
        state.actors = [who] if who else []
        state.steps.append(StepRecord(name="last_speaker", parsed=state.actors))
        return state

    return run


@step("statistic_char", needs_model=False)
def statistic_char():
    """The table character asked for checks most often in training (ties: the latest speaker)."""

    async def run(state: PipelineState) -> PipelineState:
        names = candidates(state.instance)
        latest = last_non_gm_speaker(state)
        if latest in names:  # prefer the latest speaker on ties: put them first
            names = [latest] + [n for n in names if n != latest]
        who = _stats(state).top_character(state.instance.ruleset, names, exclude=_exclude(state)) or latest
        state.actors = [who] if who else []
        state.steps.append(StepRecord(name="statistic_char", parsed=state.actors))
        return state

    return run


@step("statistic_skill", needs_model=False)
def statistic_skill():
    """Each acting character gets the skill they were most often asked for in training."""

    async def run(state: PipelineState) -> PipelineState:
        stats = _stats(state)
        checks = []
        for who in state.actors or []:
            skill = stats.top_skill(state.instance.ruleset, who, pack=state.pack, exclude=_exclude(state))
            if skill:
                checks.append(Check(character=who, skill=skill))
        state.checks = checks
        state.steps.append(StepRecord(name="statistic_skill", parsed=[c.model_dump() for c in checks]))
        return state

    return run
