"""Models on the workers: what the driver ships, and the models workers build from it.

The driver turns each model string into a ``ModelPlan`` (checked on the driver, so a bad
string is one line before any task starts):

* ``scripted:<file>``: the file's text travels with the plan; every shard reads the script
  from its start (a script's replies cannot follow the order of a run split over machines).
* ``openai:<m>``: the endpoints (``--base-url`` pool, else ``OPENAI_BASE_URL``) and an
  ``EndpointPool`` actor that leases request slots, so no endpoint ever has more than its
  limit in flight, whichever workers ask.
* ``local`` / ``local:small`` / ``local:/x.gguf``: a ``ServerRegistry`` actor that starts one
  ``NodeServer`` actor per node on first use; it runs the llama.cpp server there, and every
  task on that node talks to it.

The response cache stays correct when shared: workers never open SQLite. They read through
a ``CacheReader`` actor on the driver's node (read-only) and keep new answers in memory;
each item carries its new rows back, and the driver writes them.
"""
from __future__ import annotations

import asyncio
import contextvars
import json
import os
import sqlite3
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipelines.llm.cache import ResponseCache, cache_disabled_by_env, good_entry, redact, shared_cache
from pipelines.llm.client import OpenAICompatModel, Retryable
from pipelines.llm.resolve import OPENAI_URL, parse_spec, split_credentials

from ._options import ClusterError, ClusterSpec, Endpoint


@dataclass
class ModelPlan:
    """A model string made ready for workers (picklable; actor handles travel as handles)."""

    spec: str
    kind: str
    target: str
    cache_id: str | None = None
    scripted_text: str | None = None
    urls: list[str] = field(default_factory=list)
    pool: Any = None
    servers: Any = None
    cache: Any = None  # CacheReader handle; None: answers are not cached
    api_key: str | None = None
    timeout: float | None = None
    concurrency: int = 8


class Resources:
    """The driver's actors for one run (made when first needed) and the cache it writes."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec
        self._pools: dict[tuple, Any] = {}
        self._servers = None
        self._reader = None
        self.cache: ResponseCache | None = None if cache_disabled_by_env() else shared_cache()

    def reader(self) -> Any:
        if self.cache is None:
            return None
        if self._reader is None:
            import ray
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            from ._connect import driver_node_id

            here = NodeAffinitySchedulingStrategy(node_id=driver_node_id(), soft=False)
            self._reader = ray.remote(num_cpus=0)(CacheReader).options(scheduling_strategy=here).remote(str(self.cache.path))
        return self._reader

    def pool(self, endpoints: list[Endpoint], lease_s: float) -> Any:
        key = tuple((e.url, e.limit) for e in endpoints)
        if key not in self._pools:
            import ray

            self._pools[key] = ray.remote(num_cpus=0, max_concurrency=10_000)(EndpointPool).remote([e.limit for e in endpoints], lease_s)
        return self._pools[key]

    def servers(self) -> Any:
        if self._servers is None:
            import ray

            self._servers = ray.remote(num_cpus=0)(ServerRegistry).remote(uuid.uuid4().hex[:8])
        return self._servers

    def write_rows(self, rows: list[tuple[str, str, dict]]) -> None:
        """The driver's half of the shared cache: rows the workers made, written here only."""
        if self.cache is None:
            return
        for key, model, value in rows:
            if good_entry(value):
                self.cache.put(key, model, value)


def plan_model(text: str | None, resources: Resources) -> ModelPlan:
    """Check a model string on the driver and make what workers need to build it."""
    from pipelines.llm.resolve import cache_identity

    parsed = parse_spec(text)
    spec = resources.spec
    timeout = _timeout()
    if parsed.kind == "scripted":
        from pipelines.llm import ScriptedModel
        from rulesets import read_text

        ScriptedModel.from_file(parsed.target)  # a missing or malformed script is one line here
        return ModelPlan(parsed.text, "scripted", parsed.target, scripted_text=read_text(parsed.target, what="scripted model file"))
    if parsed.kind == "openai":
        endpoints = list(spec.endpoints)
        if not endpoints:
            endpoints = [Endpoint((os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/"), spec.endpoint_concurrency)]
        key = os.environ.get("OPENAI_API_KEY")
        if not key and any(e.url == OPENAI_URL for e in endpoints):
            raise ClusterError("OPENAI_API_KEY is not set; export it, or give --base-url for OpenAI-compatible servers such as vLLM")
        lease_s = (timeout or 300.0) + 60.0
        return ModelPlan(parsed.text, "openai", parsed.target, cache_id=cache_identity(parsed.text, base_url=endpoints[0].url),
                         urls=[e.url for e in endpoints], pool=resources.pool(endpoints, lease_s), cache=resources.reader(),
                         api_key=key, timeout=timeout, concurrency=sum(e.limit for e in endpoints))
    try:
        cache_id = cache_identity(parsed.text)  # the weights' hash: the same on every node
    except Exception:  # noqa: BLE001 - a .gguf only the workers have: they name it
        cache_id = None
    return ModelPlan(parsed.text, "local", parsed.target, cache_id=cache_id, servers=resources.servers(), cache=resources.reader(),
                     timeout=timeout)


def _timeout() -> float | None:
    """``$VGM_TIMEOUT`` seconds per model request (None: the client's default), read on the driver."""
    raw = os.environ.get("VGM_TIMEOUT", "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise ClusterError(f"VGM_TIMEOUT={raw!r} is not a number; set e.g. VGM_TIMEOUT=300 or unset it") from None


# ---- actors ---------------------------------------------------------------------------------------

class CacheReader:
    """Answers cache lookups from the driver's SQLite file, read-only, on the driver's node."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def get(self, key: str) -> dict | None:
        try:
            if self._db is None:
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            value = json.loads(row[0]) if row else None
        except (sqlite3.Error, ValueError, TypeError, RecursionError):
            return None  # a miss: the model is asked
        return value if good_entry(value) else None


class EndpointPool:
    """Request slots per endpoint, leased across the whole cluster (an async actor).

    ``acquire()`` waits for a free slot on the least busy endpoint and returns
    ``(endpoint index, lease id)``; ``release(lease)`` gives it back. A lease held by a
    worker that died is reclaimed after ``lease_s`` seconds.
    """

    def __init__(self, limits: list[int], lease_s: float) -> None:
        self.limits = list(limits)
        self.busy = [0] * len(limits)
        self.peak = [0] * len(limits)
        self.served = [0] * len(limits)
        self.lease_s = lease_s
        self.leases: dict[str, tuple[int, float]] = {}
        self._changed: asyncio.Condition | None = None
        self._turn = 0

    async def acquire(self) -> tuple[int, str]:
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            while True:
                self._reclaim()
                free = [i for i in range(len(self.limits)) if self.busy[i] < self.limits[i]]
                if free:
                    # least busy first (relative to its limit); ties in turn, so equal endpoints share evenly
                    self._turn += 1
                    i = min(free, key=lambda j: (self.busy[j] / self.limits[j], (j - self._turn) % len(self.limits)))
                    self.busy[i] += 1
                    self.peak[i] = max(self.peak[i], self.busy[i])
                    self.served[i] += 1
                    lease = uuid.uuid4().hex
                    self.leases[lease] = (i, time.monotonic() + self.lease_s)
                    return i, lease
                try:
                    await asyncio.wait_for(self._changed.wait(), timeout=1.0)
                except TimeoutError:
                    pass

    async def release(self, lease: str) -> None:
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            held = self.leases.pop(lease, None)
            if held is not None:
                self.busy[held[0]] -= 1
                self._changed.notify()

    def _reclaim(self) -> None:
        now = time.monotonic()
        for lease, (i, deadline) in list(self.leases.items()):
            if deadline < now:
                del self.leases[lease]
                self.busy[i] -= 1

    async def stats(self) -> dict[str, list[int]]:
        """Requests served, most in flight at once and the limit, per endpoint."""
        return {"served": list(self.served), "peak": list(self.peak), "limit": list(self.limits)}


class ServerRegistry:
    """Finds or starts the ``NodeServer`` actor of a node (owned here, so they stop with the run)."""

    def __init__(self, run: str) -> None:
        self.run = run
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


# ---- the worker's models --------------------------------------------------------------------------

class WorkerCache(ResponseCache):
    """A worker's response cache: reads through the driver's ``CacheReader``, writes only to memory.

    ``drain()`` hands over the rows made since the last call; they ride back with the next
    item and the driver writes them (no SQLite is ever written from a worker).
    """

    def __init__(self, reader: Any) -> None:  # noqa: D107 - no SQLite here, so no super().__init__
        self.path = Path("<the driver's response cache>")
        self.failed_writes = 0
        self.moved_aside = None
        self._reader = reader
        self._mem: dict[str, dict] = {}
        self._new: list[tuple[str, str, dict]] = []
        self._lock = threading.Lock()

    def get(self, key: str) -> dict | None:
        with self._lock:
            value = self._mem.get(key)
        if value is None and self._reader is not None:
            import ray

            try:
                value = ray.get(self._reader.get.remote(key), timeout=30)
            except Exception:  # noqa: BLE001 - the driver's node is busy or gone: a miss
                value = None
            if value is not None:
                with self._lock:
                    self._mem[key] = value
        return value if good_entry(value) else None

    def put(self, key: str, model: str, value: dict) -> None:
        with self._lock:
            self._mem[key] = value
            self._new.append((key, redact(model), value))

    def drain(self) -> list[tuple[str, str, dict]]:
        with self._lock:
            rows, self._new = self._new, []
        return rows

    def __len__(self) -> int:
        with self._lock:
            return len(self._mem)

    def __bool__(self) -> bool:
        return True  # an empty cache is still a cache

    def close(self) -> None:
        pass


_LEASED_URL: contextvars.ContextVar[int | None] = contextvars.ContextVar("vgm_leased_endpoint", default=None)


class PooledModel(OpenAICompatModel):
    """An ``openai:`` model over a pool of equal endpoints: each request leases a slot from the ``EndpointPool``.

    Answers are cached under the first endpoint's identity (the pool serves one model).
    The wait for a slot is not the request's time: the timeout applies to the request alone.
    """

    def __init__(self, plan: ModelPlan, cache: WorkerCache | None) -> None:
        cleans = [split_credentials(u)[0].rstrip("/") for u in plan.urls]
        super().__init__(plan.spec, model_id=plan.target, base_url=cleans[0], api_key=plan.api_key, cache=cache if cache is not None else False,
                         cache_id=plan.cache_id, usage_log=False, concurrency=max(1, plan.concurrency), timeout=None)
        self._urls = [u.rstrip("/") for u in plan.urls]
        self._clean = cleans
        self._pool = plan.pool
        self._call_timeout = plan.timeout or 120.0

    async def _base(self) -> str:
        i = _LEASED_URL.get()
        return self._urls[i if i is not None else 0]

    async def _request(self, messages, params, timeout):
        i, lease = await self._pool.acquire.remote()
        token = _LEASED_URL.set(i)
        try:
            async with asyncio.timeout(self._call_timeout):
                return await super()._request(messages, params, self._call_timeout)
        except TimeoutError:
            raise Retryable(f"no answer from {self._clean[i]} within {self._call_timeout:g} s") from None
        except Retryable as exc:
            exc.detail = exc.detail.replace(self._clean[0], self._clean[i])
            exc.args = (exc.detail,)
            raise
        finally:
            _LEASED_URL.reset(token)
            self._pool.release.remote(lease)


class NodeLocalModel(OpenAICompatModel):
    """A local model served by this node's ``NodeServer`` (one llama.cpp server per node)."""

    hint = "the node's local model server stopped or is overloaded; see the log under ~/.cache/virtual-gm/logs on that node"

    def __init__(self, plan: ModelPlan, cache: WorkerCache | None) -> None:
        import ray

        node = ray.get_runtime_context().get_node_id()
        self._server = ray.get(plan.servers.server.remote(node, plan.target))
        url, slots, cache_id = ray.get(self._server.base_url.remote())  # a node without the model fails here, in one line
        super().__init__(plan.spec, model_id=Path(plan.target).name, base_url=url, cache=cache if cache is not None else False,
                         cache_id=plan.cache_id or cache_id, usage_log=False, concurrency=slots, timeout=plan.timeout or 600.0,
                         backoff_s=0.2)

    async def _recover(self) -> None:
        url, _, _ = await self._server.base_url.remote()  # restarts a server that died
        self.base_url = url


def open_worker_model(plan: ModelPlan) -> tuple[Any, WorkerCache | None]:
    """Build a plan's model on this worker: ``(model, its cache or None)``."""
    if plan.kind == "scripted":
        from pipelines.llm import ScriptedModel

        folder = tempfile.mkdtemp(prefix="vgm-scripted-")
        path = Path(folder) / (Path(plan.target).name or "script.yaml")
        path.write_text(plan.scripted_text or "", encoding="utf-8")
        model = ScriptedModel.from_file(path)
        model.name = plan.spec  # errors name the user's file, not our copy
        return model, None
    cache = WorkerCache(plan.cache) if plan.cache is not None else None
    if plan.kind == "openai":
        return PooledModel(plan, cache), cache
    return NodeLocalModel(plan, cache), cache


async def close_worker_model(model: Any) -> None:
    close = getattr(model, "aclose", None)
    if callable(close):
        await close()
