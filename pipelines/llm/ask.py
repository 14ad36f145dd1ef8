"""One question to one model, for ``vgm ask`` and quick looks from Python."""
from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from ._types import Usage
from .resolve import get_model
from .structured import complete_json, extract_json
from .tokens import estimate_cost


class Answer(BaseModel):
    """The model's text, the JSON in it when there is some, and what the call cost."""

    model: str
    answer: str
    value: Any = None  # the JSON value found in the answer (tolerantly parsed), if any
    parse_ok: bool = False
    usage: Usage
    cost_usd: float | None = None  # list-price estimate; 0 for local models and cache hits


def ask(
    prompt: str,
    model: str | None = None,
    *,
    system: str | None = None,
    structured: bool = False,
    max_tokens: int = 512,
    base_url: str | None = None,
    cache: bool = True,
    timeout: float | None = None,
) -> Answer:
    """Ask ``prompt``; with ``structured`` the server is told to answer in JSON."""
    chat = get_model(model, base_url=base_url, cache=cache, timeout=timeout)
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]

    async def run() -> Answer:
        if structured:
            parsed = await complete_json(chat, messages, Any, max_tokens=max_tokens, step="ask")
            return Answer(model=chat.name, answer=parsed.raw, value=parsed.value, parse_ok=parsed.parse_ok, usage=parsed.usage)
        reply = await chat.complete(messages, step="ask", max_tokens=max_tokens)
        value, ok = _json_in(reply.text)
        return Answer(model=chat.name, answer=reply.text, value=value, parse_ok=ok, usage=reply.usage)

    answer = asyncio.run(run())
    answer.cost_usd = estimate_cost(answer.usage, chat.name)
    return answer


def _json_in(text: str) -> tuple[Any, bool]:
    if not any(c in text for c in "{["):
        return None, False
    try:
        value, _ = extract_json(text)
    except Exception:  # json_repair gives up on some inputs
        return None, False
    return value, isinstance(value, (dict, list)) and bool(value)
