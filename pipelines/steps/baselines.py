"""Steps that never call a model: the floor every MOE table shows (Tachikuma section 6), and two bounds.

``last_speaker`` guesses that whoever spoke last (not the GM) acts next; ``statistic_char``
guesses the character most often asked for checks in training data; ``statistic_skill`` gives
each acting character their most frequent skill. Training counts come in the ``stats``
option (a ``SkillStats``); without it they fall back to the pack's default check.

Beside them: ``knn_skill`` lets the training instances whose contexts read most like this one
(packaged MiniLM embeddings) vote for the skill; ``oracle_char`` takes the gold characters,
an upper bound that separates "who acts" from "which check"; ``gold_checks`` takes the gold
checks whole, so a GM utterance can be written from them (the gold condition of Fig. 5).
"""
from __future__ import annotations

from ..records import Check
from ..state import PipelineState
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
        state.step_record("last_speaker").parsed = state.actors
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
        state.step_record("statistic_char").parsed = state.actors
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
        state.step_record("statistic_skill").parsed = [c.model_dump() for c in checks]
        return state

    return run


@step("oracle_char", needs_model=False)
def oracle_char():
    """The gold characters act (an upper bound on "who": with statistic_skill it isolates "which check")."""

    async def run(state: PipelineState) -> PipelineState:
        state.actors = list(dict.fromkeys(c.character for c in state.instance.answers))
        state.step_record("oracle_char").parsed = state.actors
        return state

    return run


@step("gold_checks", needs_model=False)
def gold_checks():
    """The gold checks themselves: the input of the gold-label GM utterance condition (``gold_gm``)."""

    async def run(state: PipelineState) -> PipelineState:
        state.checks = list(state.instance.answers)
        state.actors = list(dict.fromkeys(c.character for c in state.checks))
        state.step_record("gold_checks").parsed = [c.model_dump() for c in state.checks]
        return state

    return run


@step("knn_skill", needs_model=False)
def knn_skill(k: int = 1):
    """Each acting character gets the skill of the most similar training context (or the ``k`` most similar vote).

    Similarity is the cosine of embeddings of the last turns of the log (packaged MiniLM, or the
    multilingual e5 when the training contexts are Chinese: ``pipelines.embeddings``); votes are
    weighted by similarity, so with ``k=1`` the nearest instance decides. Leave-one-out runs
    never let an instance vote for itself. No neighbour (no training data of this rule set):
    the statistic skill.

    Args:
        k: how many neighbours vote (1, the default, is the issue's "the training instance whose context is most similar").
    """

    async def run(state: PipelineState) -> PipelineState:
        stats = _stats(state)
        index = stats.context_index(state.options.get("embedder"))
        neighbours = index.nearest(state.instance, k=max(1, k))
        votes: dict[str, float] = {}
        for rank, (similarity, other) in enumerate(neighbours):
            for skill in dict.fromkeys(c.skill for c in other.answers):
                # the nearest decides ties: a tiny bonus by rank
                votes[skill] = votes.get(skill, 0.0) + max(similarity, 0.0) + 1e-6 * (len(neighbours) - rank)
        skill = max(votes, key=lambda s: (votes[s], s)) if votes else None
        checks = []
        for who in state.actors or []:
            chosen = skill or stats.top_skill(state.instance.ruleset, who, pack=state.pack, exclude=_exclude(state))
            if chosen:
                checks.append(Check(character=who, skill=chosen))
        state.checks = checks
        state.step_record("knn_skill").parsed = {"checks": [c.model_dump() for c in checks],
                                                 "neighbours": [[o.id, round(sim, 3)] for sim, o in neighbours], "encoder": index.encoder}
        return state

    return run
