"""The InMind model steps (Algorithm 1): build a profile, then one step per Stage-2 task.

Each step takes plain text (the evaluator renders sessions) and returns a ``Parsed`` answer, so
it runs alone with a scripted model. Prompts live in ``prompts/*.txt`` (``$name`` placeholders);
the long part (profile + game log) comes first and the question last, so a prefix-caching
server reuses the game log across a task's settings.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from string import Template

from typing import Literal

from pydantic import BaseModel, Field, create_model

from ..llm import ChatModel, Message, Parsed, Usage, complete_json

PROMPTS = Path(__file__).parent / "prompts"


@lru_cache(maxsize=None)
def prompt(name: str) -> Template:
    return Template((PROMPTS / f"{name}.txt").read_text(encoding="utf-8"))


def messages_for(name: str, **fields: object) -> list[Message]:
    """The shared system prompt plus one user message from ``prompts/<name>.txt``."""
    text = prompt(name).safe_substitute({k: str(v) for k, v in fields.items()})
    return [{"role": "system", "content": prompt("system").template.strip()}, {"role": "user", "content": text.strip()}]


def chained_game(*, summary: str, round_text: str, mission: int) -> str:
    """The game as a dynamic task sees it with limited memory: its summary of earlier rounds, then this round."""
    text = summary.strip() or "(this is the first round; nothing to summarise yet)"
    return prompt("chained").safe_substitute(summary=text, round=round_text, mission=mission).strip()


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


async def build_profile(model: ChatModel, observer_games: list[str], *, max_tokens: int = 600) -> ProfileResult:
    """Stage 1: fold the observer-mode games into one profile, one game at a time (accumulating)."""
    result = ProfileResult()
    for game in observer_games:
        parsed = await complete_json(model, messages_for("profile", game=game, profile=result.profile or "(empty)"), ProfileAnswer, step="inmind_profile", max_tokens=max_tokens)
        result.usage = result.usage + parsed.usage
        if parsed.value is not None and parsed.value.profile.strip():
            result.profile = parsed.value.profile.strip()
        else:
            result.parse_ok = False
            if parsed.raw.strip() and not parsed.raw.lstrip().startswith("{"):
                result.profile = parsed.raw.strip()  # free text still describes the subject
        result.history.append(result.profile)
    return result


def ranking_of(candidates: list[str]) -> type[BaseModel]:
    """A ranking whose items can only be the candidates' labels, so a grammar-constrained model cannot answer with role names."""
    return create_model("Ranking", __base__=Ranking, ranking=(list[Literal[tuple(candidates)]], Field(default_factory=list)))  # type: ignore[valid-type]


async def rank_players(model: ChatModel, *, profile: str, game: str, candidates: list[str], max_tokens: int = 200) -> Parsed:
    """Player identification: rank the (anonymised) players by fit to the profile."""
    msgs = messages_for("identify", profile=profile or "(no profile)", game=game, candidates=", ".join(candidates))
    return await complete_json(model, msgs, ranking_of(candidates), step="inmind_identify", max_tokens=max_tokens)


async def fill_reflection(model: ChatModel, *, profile: str, game: str, seat: int, role: str, roles: str, masked: str, keys: list[str], max_tokens: int = 400) -> Parsed:
    """Reflection alignment: recover the masked player references in the post-game review."""
    msgs = messages_for("reflection", profile=profile or "(no profile)", game=game, seat=seat, role=role, roles=roles, masked=masked, keys=", ".join(keys))
    return await complete_json(model, msgs, Fills, step="inmind_reflection", max_tokens=max_tokens)


async def fill_trace(
    model: ChatModel, *, profile: str, game: str, seat: int, role: str, knowledge: str, mission: int, prior: str, masked: str, keys: list[str], max_tokens: int = 500
) -> Parsed:
    """Trace attribution: recover the masked player references in one round's strategy trace."""
    msgs = messages_for(
        "trace", profile=profile or "(no profile)", game=game, seat=seat, role=role, knowledge=knowledge or "none", mission=mission, prior=prior, masked=masked, keys=", ".join(keys)
    )
    return await complete_json(model, msgs, Fills, step="inmind_trace", max_tokens=max_tokens)


async def infer_roles(model: ChatModel, *, profile: str, game: str, perspective: str, ask: str, mission: int, max_tokens: int = 400) -> Parsed:
    """Role inference: the full seat-to-role mapping after a mission."""
    msgs = messages_for("roles", profile=profile or "(no profile)", game=game, perspective=perspective, ask=ask, mission=mission)
    return await complete_json(model, msgs, RoleMap, step="inmind_roles", max_tokens=max_tokens)
