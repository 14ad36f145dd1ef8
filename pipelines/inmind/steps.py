"""The InMind model steps (Algorithm 1): build a profile, then one step per Stage-2 task.

They are registered steps like the MOE ones (``inmind_profile``, ``inmind_identify``,
``inmind_reflection``, ``inmind_trace``, ``inmind_roles``): a factory takes the step's
configuration and returns ``run(state)``, here over an ``InMindState`` holding the model and
the task's text fields, and ``chain`` keeps each step's record. Their prompts are
``pipelines/prompts/inmind_<name>.txt`` with ``{field}`` placeholders, read like the MOE
prompts (``prompts_dir`` / ``VGM_PROMPTS`` override them). The long part (profile + game log)
comes first and the question last, so a prefix-caching server reuses the game log across a
task's settings.

The functions (``build_profile``, ``rank_players`` ...) run one step alone with a model and
the fields, and return its answer; each runs with a scripted model in a test.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ..llm import ChatModel, Message, Parsed, Usage, complete_json
from ..state import StepLog, StepRecord
from ..steps import chain, make_step, prompt_text, step


def messages_for(name: str, options: dict[str, Any] | None = None, **fields: object) -> list[Message]:
    """The shared system prompt plus one user message from ``prompts/inmind_<name>.txt``."""
    text = prompt_text(f"inmind_{name}", options).format(**{k: str(v) for k, v in fields.items()})
    return [{"role": "system", "content": prompt_text("inmind_system", options)}, {"role": "user", "content": text.strip()}]


def chained_game(*, summary: str, round_text: str, mission: int) -> str:
    """The game as a dynamic task sees it with limited memory: its summary of earlier rounds, then this round."""
    text = summary.strip() or "(this is the first round; nothing to summarise yet)"
    return prompt_text("inmind_chained").format(summary=text, round=round_text, mission=mission).strip()


class ProfileAnswer(BaseModel):
    profile: str


class Ranking(BaseModel):
    ranking: list[str] = Field(default_factory=list)


class Fills(BaseModel):
    summary: str = ""
    fills: dict[str, str | int | list[int] | list[str] | None] = Field(default_factory=dict)


class RoleMap(BaseModel):
    summary: str = ""
    roles: dict[str, str | None] = Field(default_factory=dict)


class ProfileResult(BaseModel):
    """Stage 1's output: the final profile and the one after each watched game."""

    profile: str = ""
    history: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=lambda: Usage(calls=0))
    parse_ok: bool = True


@dataclass
class InMindState(StepLog):
    """What an InMind step works on: the model, the task's fields (profile, game, ...) and its answer."""

    model: ChatModel
    fields: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)  # prompts_dir
    answer: Any = None  # a Parsed answer (ProfileResult for the profile step)
    steps: list[StepRecord] = field(default_factory=list)
    record: StepRecord | None = None
    completed: bool = False


def ranking_of(candidates: list[str]) -> type[BaseModel]:
    """A ranking whose items can only be the candidates' labels, so a grammar-constrained model cannot answer with role names."""
    return create_model("Ranking", __base__=Ranking, ranking=(list[Literal[tuple(candidates)]], Field(default_factory=list)))  # type: ignore[valid-type]


def _keep(state: InMindState, name: str, parsed: Parsed) -> InMindState:
    record = state.step_record(name)
    record.raw, record.parse_ok, record.error, record.usage = parsed.raw, parsed.parse_ok, parsed.error, parsed.usage
    record.parsed = parsed.value.model_dump() if isinstance(parsed.value, BaseModel) else parsed.value
    state.answer = parsed
    return state


def _task_step(name: str, prompt: str, schema: Any, prompt_fields: Any, default_tokens: int):
    """A Stage-2 step: one JSON answer to ``prompt`` with the fields ``prompt_fields(fields)`` gives."""

    def factory(max_tokens: int = default_tokens):
        async def run(state: InMindState) -> InMindState:
            answer_shape = schema(state.fields) if callable(schema) and not isinstance(schema, type) else schema
            msgs = messages_for(prompt, state.options, **prompt_fields(state.fields))
            parsed = await complete_json(state.model, msgs, answer_shape, step=name, max_tokens=max_tokens)
            return _keep(state, name, parsed)

        return run

    factory.__name__ = name
    factory.__doc__ = f"The ``{prompt}`` prompt as one step (answer in ``state.answer``)."
    return step(name)(factory)


@step("inmind_profile")
def profile_step(max_tokens: int = 600):
    """Stage 1: fold the observer-mode games (``fields["games"]``) into one profile, one game at a time."""

    async def run(state: InMindState) -> InMindState:
        result = ProfileResult()
        for game in state.fields["games"]:
            msgs = messages_for("profile", state.options, game=game, profile=result.profile or "(empty)")
            parsed = await complete_json(state.model, msgs, ProfileAnswer, step="inmind_profile", max_tokens=max_tokens)
            result.usage = result.usage + parsed.usage
            if parsed.value is not None and parsed.value.profile.strip():
                result.profile = parsed.value.profile.strip()
            else:
                result.parse_ok = False
                if parsed.raw.strip() and not parsed.raw.lstrip().startswith("{"):
                    result.profile = parsed.raw.strip()  # free text still describes the subject
            result.history.append(result.profile)
        record = state.step_record("inmind_profile")
        record.parsed, record.parse_ok, record.usage = result.profile, result.parse_ok, result.usage
        state.answer = result
        return state

    return run


identify_step = _task_step("inmind_identify", "identify", lambda f: ranking_of(f["candidates"]),
                           lambda f: {"profile": f["profile"] or "(no profile)", "game": f["game"],
                                      "candidates": ", ".join(f["candidates"])}, 200)
reflection_step = _task_step("inmind_reflection", "reflection", Fills,
                             lambda f: {**f, "profile": f["profile"] or "(no profile)", "keys": ", ".join(f["keys"])}, 400)
trace_step = _task_step("inmind_trace", "trace", Fills,
                        lambda f: {**f, "profile": f["profile"] or "(no profile)", "knowledge": f["knowledge"] or "none",
                                   "keys": ", ".join(f["keys"])}, 500)
roles_step = _task_step("inmind_roles", "roles", RoleMap, lambda f: {**f, "profile": f["profile"] or "(no profile)"}, 400)


async def run_step(name: str, model: ChatModel, fields: dict[str, Any], **args: Any) -> Any:
    """Run one registered InMind step with ``model`` on ``fields``; its answer (``state.answer``)."""
    state = await chain(make_step(name, args))(InMindState(model=model, fields=fields))
    return state.answer


async def build_profile(model: ChatModel, observer_games: list[str], *, max_tokens: int = 600) -> ProfileResult:
    """Stage 1: fold the observer-mode games into one profile, one game at a time (accumulating)."""
    return await run_step("inmind_profile", model, {"games": list(observer_games)}, max_tokens=max_tokens)


async def rank_players(model: ChatModel, *, profile: str, game: str, candidates: list[str], max_tokens: int = 200) -> Parsed:
    """Player identification: rank the (anonymised) players by fit to the profile."""
    return await run_step("inmind_identify", model, {"profile": profile, "game": game, "candidates": candidates},
                          max_tokens=max_tokens)


async def fill_reflection(model: ChatModel, *, profile: str, game: str, seat: int, role: str, roles: str, masked: str, keys: list[str], max_tokens: int = 400) -> Parsed:
    """Reflection alignment: recover the masked player references in the post-game review."""
    fields = {"profile": profile, "game": game, "seat": seat, "role": role, "roles": roles, "masked": masked, "keys": keys}
    return await run_step("inmind_reflection", model, fields, max_tokens=max_tokens)


async def fill_trace(
    model: ChatModel, *, profile: str, game: str, seat: int, role: str, knowledge: str, mission: int, prior: str, masked: str, keys: list[str], max_tokens: int = 500
) -> Parsed:
    """Trace attribution: recover the masked player references in one round's strategy trace."""
    fields = {"profile": profile, "game": game, "seat": seat, "role": role, "knowledge": knowledge, "mission": mission,
              "prior": prior, "masked": masked, "keys": keys}
    return await run_step("inmind_trace", model, fields, max_tokens=max_tokens)


async def infer_roles(model: ChatModel, *, profile: str, game: str, perspective: str, ask: str, mission: int, max_tokens: int = 400) -> Parsed:
    """Role inference: the full seat-to-role mapping after a mission."""
    fields = {"profile": profile, "game": game, "perspective": perspective, "ask": ask, "mission": mission}
    return await run_step("inmind_roles", model, fields, max_tokens=max_tokens)
