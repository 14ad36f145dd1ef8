"""The run's actors. Standard library only at import: an actor's process starts in well under a second.

* ``RunServices`` (one per run, on the driver's node): request slots per endpoint pool, leased
  across the whole cluster, and read-only lookups in the driver's response cache.
* ``ServerRegistry`` and ``NodeServer``: one llama.cpp server per node for ``local`` models.
"""
from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
import uuid
from typing import Any


class _Pool:
    """The slots of one endpoint pool: ``busy[i]`` of ``limits[i]`` in use."""

    def __init__(self, limits: list[int], lease_s: float) -> None:
        self.limits = list(limits)
        self.busy = [0] * len(limits)
        self.peak = [0] * len(limits)
        self.served = [0] * len(limits)
        self.lease_s = lease_s
        self.leases: dict[str, tuple[int, float]] = {}
        self.turn = 0

    def take(self) -> tuple[int, str] | None:
        now = time.monotonic()
        for lease, (i, deadline) in list(self.leases.items()):
            if deadline < now:  # held by a worker that died: reclaimed
                del self.leases[lease]
                self.busy[i] -= 1
        free = [i for i in range(len(self.limits)) if self.busy[i] < self.limits[i]]
        if not free:
            return None
        # least busy for its limit first; ties in turn, so equal endpoints share evenly
        self.turn += 1
        i = min(free, key=lambda j: (self.busy[j] / self.limits[j], (j - self.turn) % len(self.limits)))
        self.busy[i] += 1
        self.peak[i] = max(self.peak[i], self.busy[i])
        self.served[i] += 1
        lease = uuid.uuid4().hex
        self.leases[lease] = (i, now + self.lease_s)
        return i, lease

    def give_back(self, lease: str) -> bool:
        held = self.leases.pop(lease, None)
        if held is None:
            return False
        self.busy[held[0]] -= 1
        return True


class RunServices:
    """One async actor per run, on the driver's node.

    ``acquire(pool, limits, lease_s)`` waits for a free slot on the least busy endpoint of a
    pool and returns ``(endpoint index, lease)``; ``release(pool, lease)`` gives it back (a
    lease of a worker that died is reclaimed after ``lease_s``). ``get(key)`` reads the
    driver's SQLite cache read-only: workers never open it, and never write it.
    """

    def __init__(self, cache_path: str | None = None) -> None:
        self.cache_path = cache_path
        self.pools: dict[str, _Pool] = {}
        self._db: sqlite3.Connection | None = None
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def acquire(self, pool: str, limits: list[int], lease_s: float) -> tuple[int, str]:
        changed = self._condition()
        async with changed:
            state = self.pools.setdefault(pool, _Pool(limits, lease_s))
            while True:
                got = state.take()
                if got is not None:
                    return got
                try:
                    await asyncio.wait_for(changed.wait(), timeout=1.0)  # also wakes to reclaim stale leases
                except TimeoutError:
                    pass

    async def release(self, pool: str, lease: str) -> None:
        changed = self._condition()
        async with changed:
            state = self.pools.get(pool)
            if state is not None and state.give_back(lease):
                changed.notify()

    async def stats(self) -> dict[str, dict[str, list[int]]]:
        """Per pool: requests served, most in flight at once, and the limit, per endpoint."""
        return {name: {"served": list(p.served), "peak": list(p.peak), "limit": list(p.limits)} for name, p in self.pools.items()}

    async def get(self, key: str) -> dict | None:
        if not self.cache_path:
            return None
        try:
            if self._db is None:
                self._db = sqlite3.connect(f"file:{self.cache_path}?mode=ro", uri=True, check_same_thread=False)
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else None
        except (sqlite3.Error, ValueError, TypeError, RecursionError):
            return None  # a miss: the model is asked


class ServerRegistry:
    """Finds or starts the ``NodeServer`` actor of a node (owned here, so they stop with the run)."""

    def __init__(self) -> None:
        self.servers: dict[tuple[str, str], Any] = {}

    def server(self, node_id: str, target: str) -> Any:
        key = (node_id, target)
        if key not in self.servers:
            import ray
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            there = NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)
            self.servers[key] = ray.remote(num_cpus=0, max_concurrency=64)(NodeServer).options(scheduling_strategy=there).remote(target)
        return self.servers[key]


class NodeServer:
    """One llama.cpp server on this node for a local model, started on the first request."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._lock = threading.Lock()

    def base_url(self) -> tuple[str, int, str]:
        """``(base URL, slots, cache identity)``; the server is started (or restarted) as needed."""
        from pipelines.llm import ModelError
        from pipelines.llm.resolve import _local_cache_id, local_model_path
        from pipelines.llm.serve import ServerConfig, server_for

        from ._connect import where_am_i

        with self._lock:
            try:
                path = local_model_path(self.target)
                config = ServerConfig.for_model(path)
                server = server_for(config)
            except ModelError as exc:
                raise ModelError(f"node {where_am_i()}: {exc}{' on that node' if 'vgm models install' in str(exc) else ''}") from None
            return f"{server.base_url}/v1", config.parallel, _local_cache_id(self.target, path)
