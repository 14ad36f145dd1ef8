"""Simulated raters hitting a running app over HTTP: many at once, each rating its own items in order.

Used by the load test and ``bench/rating_load.py``. Traffic goes only to the given loopback URL,
the number of requests is fixed in advance, and every request has a timeout.
"""
from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

import httpx
import numpy as np


@dataclass
class LoadResult:
    submitted: int
    failed: int
    seconds: float
    latencies: list[float] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.latencies, q)) if self.latencies else float("nan")

    @property
    def per_second(self) -> float:
        return self.submitted / self.seconds if self.seconds else 0.0


async def _send(client: httpx.AsyncClient, method: str, path: str, **kwargs) -> httpx.Response:
    """One request, retried twice on a dropped connection. Safe for submits too: storing the same
    (rater, item) again replaces the row, so a retry can never make a duplicate."""
    for attempt in range(3):
        try:
            return await client.request(method, path, **kwargs)
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.ConnectError):
            if attempt == 2:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


async def _rater(client: httpx.AsyncClient, token: str, count: int, result: LoadResult, seed: int) -> None:
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(count):
        got = await _send(client, "GET", "/api/rate/next", headers=headers)
        got.raise_for_status()
        item = got.json()["item"]
        if item is None:
            return
        body = {"item_id": item["id"]}
        if item["kind"] == "ab":
            body["choice"] = rng.choice(["a", "b", "tie"])
        else:
            body.update(naturalness=rng.randint(1, 5), groundedness=rng.randint(1, 5), factual=rng.randint(1, 5))
        start = time.perf_counter()
        resp = await _send(client, "POST", "/api/rate/submit", json=body, headers=headers)
        result.latencies.append(time.perf_counter() - start)
        if resp.status_code == 200:
            result.submitted += 1
        else:
            result.failed += 1


async def simulate_raters(url: str, tokens: list[str], total: int, timeout: float = 30.0) -> LoadResult:
    """All raters at once; ``total`` ratings split as evenly as possible among them."""
    if not url.startswith(("http://127.", "http://localhost", "http://[::1]")):
        raise ValueError("load tests only target this machine (127.0.0.1 / localhost)")
    share, extra = divmod(total, len(tokens))
    result = LoadResult(0, 0, 0.0)
    limits = httpx.Limits(max_connections=len(tokens) + 4)
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:
        start = time.perf_counter()
        await asyncio.gather(*(_rater(client, tok, share + (k < extra), result, k) for k, tok in enumerate(tokens)))
        result.seconds = time.perf_counter() - start
    return result
