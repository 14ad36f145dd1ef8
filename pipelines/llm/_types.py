"""What every model backend takes and returns, so pipelines never care which one runs."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from rulesets import VgmError

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


class ModelError(VgmError):
    """A fault the user can fix (bad model string, missing key, server down).

    ``str(error)`` is one line that says what is wrong and how to fix it; the CLI prints it
    without a traceback.
    """


class Usage(BaseModel):
    """Token and time accounting for one call (or a sum of calls)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens the server reused from its prefix cache
    latency_s: float = 0.0
    cache_hit: bool = False  # answered from our own response cache, no model call
    calls: int = 1

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            latency_s=self.latency_s + other.latency_s,
            cache_hit=self.cache_hit and other.cache_hit,
            calls=self.calls + other.calls,
        )


class Reply(BaseModel):
    """A model's answer to one request."""

    text: str
    usage: Usage = Usage()
    model: str = ""
    step: str | None = None


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers a list of chat messages. Every backend implements this."""

    name: str

    async def complete(
        self,
        messages: list[Message],
        *,
        step: str | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> Reply: ...
