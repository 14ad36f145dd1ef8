"""Tolerant JSON answers: strip fences, repair small breakage, validate, re-ask once.

A small model often wraps JSON in prose or a code fence, or stops mid-object. We repair
with ``json-repair`` rather than by hand, validate with pydantic, and when validation still
fails we show the model the error once. A final failure is recorded (``parse_ok=False``),
never raised, so one bad answer cannot sink a batch.
"""
from __future__ import annotations

import json
import re
from typing import Any, Generic, TypeVar

import json_repair
from pydantic import BaseModel, TypeAdapter, ValidationError

from ._types import ChatModel, Message, Usage

T = TypeVar("T")

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)


class Parsed(BaseModel, Generic[T]):
    """A structured answer: the value when it validated, and always the raw text."""

    value: T | None = None
    raw: str = ""
    parse_ok: bool = False
    repaired: bool = False  # the raw text was not valid JSON as sent
    error: str | None = None
    usage: Usage = Usage(calls=0)


def extract_json(text: str) -> tuple[Any, bool]:
    """Best-effort JSON value from a model's text; returns (value, repaired)."""
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    candidate = candidate.strip()
    try:
        return json.loads(candidate), bool(fenced)
    except json.JSONDecodeError:
        pass
    start = min((i for i in (candidate.find("{"), candidate.find("[")) if i >= 0), default=-1)
    if start > 0:
        candidate = candidate[start:]
    value = json_repair.loads(candidate)
    return value, True


def parse_as(text: str, schema: Any) -> tuple[Any, bool, str | None]:
    """Parse ``text`` into ``schema`` (a pydantic model or any type TypeAdapter takes)."""
    adapter = TypeAdapter(schema)
    try:
        value, repaired = extract_json(text)
    except Exception as exc:  # json_repair gives up on some inputs
        return None, True, f"no JSON found ({exc})"
    if value in ("", None) and text.strip():
        return None, True, "no JSON found in the answer"
    try:
        return adapter.validate_python(value), repaired, None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "answer"
        return None, repaired, f"{where}: {first.get('msg')}"


def json_schema_of(schema: Any) -> dict[str, Any]:
    return TypeAdapter(schema).json_schema()


async def complete_json(
    model: ChatModel,
    messages: list[Message],
    schema: Any,
    *,
    step: str | None = None,
    max_tokens: int = 512,
    temperature: float = 0.0,
    retry: bool = True,
    use_schema: bool = True,
) -> Parsed:
    """Ask for JSON matching ``schema``; repair, validate, re-ask once with the error.

    The schema goes to the backend as structured output (llama.cpp turns it into a
    grammar, OpenAI into a response format). A backend that turned out to support neither
    (``model.structured_mode(schema) == "none"``) gets the schema written into the last message.
    Returns a ``Parsed`` whose ``usage`` sums every call made.
    """
    js = json_schema_of(schema) if use_schema else None
    mode = model.structured_mode(js) if hasattr(model, "structured_mode") else getattr(model, "structured", None)
    if js is not None and mode == "none":
        messages = with_schema_hint(messages, js)
    reply = await model.complete(messages, step=step, max_tokens=max_tokens, temperature=temperature, json_schema=js)
    usage = reply.usage
    value, repaired, error = parse_as(reply.text, schema)
    raw = reply.text
    if error is not None and retry:
        follow_up = list(messages) + [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": f"That answer could not be read ({error}). Reply again with only valid JSON in the requested shape."},
        ]
        again = await model.complete(follow_up, step=step, max_tokens=max_tokens, temperature=temperature, json_schema=js)
        usage = usage + again.usage
        value, repaired, error = parse_as(again.text, schema)
        raw = again.text
        repaired = True
    log = getattr(model, "usage_log", None)
    if log is not None and hasattr(log, "write"):
        log.write({"model": getattr(model, "name", ""), "step": step, "event": "parse", "parse_ok": error is None, "repaired": repaired, "error": error})
    return Parsed(value=value, raw=raw, parse_ok=error is None, repaired=repaired, error=error, usage=usage)


def with_schema_hint(messages: list[Message], schema: dict[str, Any]) -> list[Message]:
    """The messages with 'answer with JSON matching <schema>' added to the last one."""
    hint = "\n\nAnswer with JSON only, matching this JSON schema: " + json.dumps(schema, separators=(",", ":"))
    last = dict(messages[-1])
    last["content"] = str(last.get("content", "")) + hint
    return [*messages[:-1], last]
