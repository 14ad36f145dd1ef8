"""What the calls in a usage log cost, per model and step (``vgm models usage``)."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel

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


def summarize_usage(path: str | Path | None = None) -> list[UsageRow]:
    """Read a usage log (default: the shared one) and total it per model and step.

    Cache hits count as calls but cost nothing; ``cost_usd`` is None for unpriced models.
    """
    log_path = Path(path) if path else UsageLog().path
    if not log_path.is_file():
        raise ModelError(f"no usage log at {log_path}; it is written as models are called (VGM_USAGE_LOG sets the file)")
    totals: dict[tuple[str, str | None], dict] = defaultdict(lambda: {"calls": 0, "hits": 0, "errors": 0, "fails": 0, "usage": Usage(calls=0), "cost": 0.0})
    with open(log_path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash; the rest of the log still counts
            key = (str(record.get("model", "")), record.get("step"))
            row = totals[key]
            event = record.get("event", "call")
            if event == "error":
                row["errors"] += 1
            elif event == "parse":
                row["fails"] += 0 if record.get("parse_ok") else 1
            else:
                usage = Usage(
                    prompt_tokens=record.get("prompt_tokens", 0), completion_tokens=record.get("completion_tokens", 0),
                    cached_tokens=record.get("cached_tokens", 0), latency_s=record.get("latency_s", 0.0),
                    cache_hit=bool(record.get("cache_hit")),
                )
                row["calls"] += 1
                row["hits"] += int(usage.cache_hit)
                row["usage"] = row["usage"] + usage
                cost = estimate_cost(usage, key[0])
                row["cost"] = None if cost is None or row["cost"] is None else row["cost"] + cost
    return [
        UsageRow(
            model=model, step=step, calls=r["calls"], cache_hits=r["hits"], errors=r["errors"],
            prompt_tokens=r["usage"].prompt_tokens, cached_tokens=r["usage"].cached_tokens,
            completion_tokens=r["usage"].completion_tokens, latency_s=round(r["usage"].latency_s, 3),
            parse_failures=r["fails"], cost_usd=None if r["cost"] is None else round(r["cost"], 6),
        )
        for (model, step), r in sorted(totals.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))
    ]
