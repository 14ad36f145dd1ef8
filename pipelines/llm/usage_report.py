"""What the calls in a usage log cost, per model and step (``vgm models usage``)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rulesets import read_jsonl

from ._types import ModelError, Usage
from .cache import UsageLog
from .tokens import estimate_cost


class UsageRow(BaseModel):
    """Totals for one (model, step)."""

    model: str
    step: str | None
    calls: int
    cache_hits: int
    errors: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    latency_s: float
    parse_failures: int
    cost_usd: float | None


def _count(record: dict[str, Any], key: str, kind: type = int) -> Any:
    """A non-negative number from a log record; anything else (a string, true, -3) counts as 0."""
    value = record.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return kind(0)
    return kind(value) if abs(value) < 1e15 else kind(0)


def summarize_usage(path: str | Path | None = None) -> list[UsageRow]:
    """Read a usage log (default: the shared one) and total it per model and step.

    Cache hits count as calls but cost nothing; ``cost_usd`` is None for unpriced models.
    """
    log_path = Path(path) if path else UsageLog().path
    if not log_path.exists():
        raise ModelError(f"no usage log at {log_path}; it is written as models are called (VGM_USAGE_LOG sets the file)")
    totals: dict[tuple[str, str | None], dict] = defaultdict(lambda: {"calls": 0, "hits": 0, "errors": 0, "fails": 0, "usage": Usage(calls=0), "cost": 0.0})
    # Many processes append to one log: a line cut by a crash is skipped, the rest still counts.
    for record in read_jsonl(log_path, what="usage log", on_torn="ignore", on_bad="skip"):
        if not isinstance(record.get("model"), str) or not record["model"]:
            continue  # not a usage record (every record names its model)
        step = record.get("step")
        key = (str(record.get("model", "")), step if isinstance(step, str) else None)
        row = totals[key]
        event = record.get("event", "call")
        if event == "error":
            row["errors"] += 1
        elif event == "parse":
            row["fails"] += 0 if record.get("parse_ok") else 1
        else:
            usage = Usage(
                prompt_tokens=_count(record, "prompt_tokens"), completion_tokens=_count(record, "completion_tokens"),
                cached_tokens=_count(record, "cached_tokens"), latency_s=_count(record, "latency_s", float),
                cache_hit=record.get("cache_hit") is True,
            )
            row["calls"] += 1
            row["hits"] += int(usage.cache_hit)
            row["usage"] = row["usage"] + usage
            cost = estimate_cost(usage, key[0])
            row["cost"] = None if cost is None or row["cost"] is None else row["cost"] + cost
    if not totals:
        raise ModelError(f"{log_path}: no usage records in it; it is written as models are called (VGM_USAGE_LOG sets the file)")
    return [
        UsageRow(
            model=model, step=step, calls=r["calls"], cache_hits=r["hits"], errors=r["errors"],
            prompt_tokens=r["usage"].prompt_tokens, cached_tokens=r["usage"].cached_tokens,
            completion_tokens=r["usage"].completion_tokens, latency_s=round(r["usage"].latency_s, 3),
            parse_failures=r["fails"], cost_usd=None if r["cost"] is None else round(r["cost"], 6),
        )
        for (model, step), r in sorted(totals.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))
    ]
