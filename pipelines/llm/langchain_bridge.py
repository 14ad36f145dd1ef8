"""Bring any LangChain chat model: ``from_langchain(chat) -> ChatModel``.

The LangChain model then gets what every backend gets from the one client: bounded
concurrency, timeouts, retries, the response cache and the usage log. Structured output
goes through ``complete_json``'s prompt-and-parse path (the schema is written into the
prompt), since LangChain models differ in how (and whether) they take a response format.
"""
from __future__ import annotations

from typing import Any

from ._types import Message, ModelError, Usage
from .client import ClientModel, Retryable
from .tokens import count_tokens


class LangChainModel(ClientModel):
    """A LangChain ``BaseChatModel`` behind our client."""

    structured = "none"
    hint = "see the LangChain model's own settings"

    def __init__(self, chat: Any, *, name: str | None = None, cache_id: str | None = None, **options: Any) -> None:
        label = getattr(chat, "model_name", None) or getattr(chat, "model", None) or type(chat).__name__
        options.setdefault("cache_id", cache_id or f"langchain:{type(chat).__name__}:{label}")
        super().__init__(name or f"langchain:{label}", **options)
        self.chat = chat

    async def _request(self, messages: list[Message], params: dict[str, Any], timeout: float) -> tuple[str, Usage]:
        from langchain_core.messages import convert_to_messages

        try:
            answer = await self.chat.ainvoke(convert_to_messages([(m["role"], m["content"]) for m in messages]))
        except (ValueError, TypeError) as exc:  # a malformed request: retrying will not help
            raise ModelError(f"{self.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        except Exception as exc:  # noqa: BLE001 - providers raise their own types for busy/down
            raise Retryable(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no detail'}") from None
        text = answer.content if isinstance(answer.content, str) else "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in answer.content
        )
        meta = getattr(answer, "usage_metadata", None) or {}
        details = meta.get("input_token_details") or {}
        usage = Usage(prompt_tokens=int(meta.get("input_tokens") or 0), completion_tokens=int(meta.get("output_tokens") or 0),
                      cached_tokens=int(details.get("cache_read") or 0))
        if not meta:
            usage.prompt_tokens, usage.completion_tokens = count_tokens(messages), count_tokens(text)
        return text, usage


def from_langchain(chat: Any, **options: Any) -> LangChainModel:
    """Wrap a LangChain chat model so pipelines can use it like any model string.

    Args:
        chat: any ``BaseChatModel`` (ChatOpenAI, ChatAnthropic, ChatOllama, a fake, ...).
        options: client settings (``concurrency``, ``timeout``, ``retries``, ``cache``, ``cache_id``).
    """
    return LangChainModel(chat, **options)
