"""Models on the workers: what the driver ships, and the models workers build from it.

The driver turns each model string into a ``ModelPlan`` (checked on the driver, so a bad
string is one line before any task starts):

* ``scripted:<file>``: the file's text travels with the plan; every shard reads the script
  from its start (a script's replies cannot follow the order of a run split over machines).
* ``openai:<m>``: the endpoints (``--base-url`` pool, else ``OPENAI_BASE_URL``); the run's
  ``RunServices`` actor leases request slots, so no endpoint ever has more than its limit in
  flight, whichever workers ask.
* ``local`` / ``local:small`` / ``local:/x.gguf``: a ``ServerRegistry`` actor that starts one
  ``NodeServer`` actor per node on first use; it runs the llama.cpp server there, and every
  task on that node talks to it.

The response cache stays correct when shared: workers never open SQLite. When the driver's
cache already holds answers of the model, they look them up through ``RunServices`` on the
driver's node (read-only); new answers stay in the worker's memory, each item carries its new
rows back, and the driver writes them.
"""
from __future__ import annotations

import asyncio
import contextvars
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipelines.llm.cache import ResponseCache, cache_disabled_by_env, good_entry, redact, shared_cache
from pipelines.llm.client import OpenAICompatModel, Retryable
from pipelines.llm.resolve import OPENAI_URL, parse_spec, split_credentials

from ._actors import RunServices, ServerRegistry
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
    limits: list[int] = field(default_factory=list)
    pool: str | None = None  # the endpoint pool's name in RunServices
    lease_s: float = 360.0
    services: Any = None  # the run's RunServices actor
    servers: Any = None  # the ServerRegistry actor (local models)
    cached: bool = False  # answers are cached (rows go back to the driver)
    read_cache: bool = False  # the driver's cache already holds answers of this model: look them up
    api_key: str | None = None
    timeout: float | None = None
    concurrency: int = 8


class Resources:
    """The driver's actors for one run (made when first needed) and the cache it writes."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec
        self._services = None
        self._servers = None
        self.cache: ResponseCache | None = None if cache_disabled_by_env() else shared_cache()
        self._identities: set[str] | None = None

    def services(self) -> Any:
        """The run's ``RunServices`` actor, on this (the driver's) node."""
        if self._services is None:
            import ray
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            from ._connect import driver_node_id

            here = NodeAffinitySchedulingStrategy(node_id=driver_node_id(), soft=False)
            self._services = (ray.remote(num_cpus=0, max_concurrency=10_000)(RunServices).options(scheduling_strategy=here)
                              .remote(str(self.cache.path) if self.cache is not None else None))
        return self._services

    def servers(self) -> Any:
        if self._servers is None:
            import ray

            self._servers = ray.remote(num_cpus=0)(ServerRegistry).remote()
        return self._servers

    def holds(self, identity: str | None) -> bool:
        """True when the driver's cache may hold answers of this model (workers then look them up)."""
        if self.cache is None:
            return False
        if identity is None:
            return True
        if self._identities is None:
            try:
                self._identities = {row["model"] for row in self.cache.stats()}
            except Exception:  # noqa: BLE001 - an unreadable cache: look everything up, misses are cheap
                return True
        return redact(identity) in self._identities

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
        cache_id = cache_identity(parsed.text, base_url=endpoints[0].url)
        return ModelPlan(parsed.text, "openai", parsed.target, cache_id=cache_id, urls=[e.url for e in endpoints],
                         limits=[e.limit for e in endpoints], pool="|".join(e.url for e in endpoints), lease_s=(timeout or 300.0) + 60.0,
                         services=resources.services(), cached=resources.cache is not None, read_cache=resources.holds(cache_id),
                         api_key=key, timeout=timeout, concurrency=sum(e.limit for e in endpoints))
    try:
        cache_id = cache_identity(parsed.text)  # the weights' hash: the same on every node
    except Exception:  # noqa: BLE001 - a .gguf only the workers have: they name it
        cache_id = None
    cached = resources.cache is not None
    return ModelPlan(parsed.text, "local", parsed.target, cache_id=cache_id, servers=resources.servers(), cached=cached,
                     read_cache=resources.holds(cache_id), services=resources.services() if cached else None, timeout=timeout)


def _timeout() -> float | None:
    """``$VGM_TIMEOUT`` seconds per model request (None: the client's default), read on the driver."""
    raw = os.environ.get("VGM_TIMEOUT", "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise ClusterError(f"VGM_TIMEOUT={raw!r} is not a number; set e.g. VGM_TIMEOUT=300 or unset it") from None


# ---- the worker's models --------------------------------------------------------------------------

class WorkerCache(ResponseCache):
    """A worker's response cache: reads through the driver's ``RunServices``, writes only to memory.

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
    """An ``openai:`` model over a pool of equal endpoints: each request leases a slot from ``RunServices``.

    Answers are cached under the first endpoint's identity (the pool serves one model).
    The wait for a slot is not the request's time: the timeout applies to the request alone.
    """

    def __init__(self, plan: ModelPlan, cache: WorkerCache | None) -> None:
        cleans = [split_credentials(u)[0].rstrip("/") for u in plan.urls]
        super().__init__(plan.spec, model_id=plan.target, base_url=cleans[0], api_key=plan.api_key, cache=cache if cache is not None else False,
                         cache_id=plan.cache_id, usage_log=False, concurrency=max(1, plan.concurrency), timeout=None)
        self._urls = [u.rstrip("/") for u in plan.urls]
        self._clean = cleans
        self._services, self._pool, self._limits, self._lease_s = plan.services, plan.pool, plan.limits, plan.lease_s
        self._call_timeout = plan.timeout or 120.0

    async def _base(self) -> str:
        i = _LEASED_URL.get()
        return self._urls[i if i is not None else 0]

    async def _request(self, messages, params, timeout):
        i, lease = await self._services.acquire.remote(self._pool, self._limits, self._lease_s)
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
            self._services.release.remote(self._pool, lease)


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
    cache = WorkerCache(plan.services if plan.read_cache else None) if plan.cached else None
    if plan.kind == "openai":
        return PooledModel(plan, cache), cache
    return NodeLocalModel(plan, cache), cache


async def close_worker_model(model: Any) -> None:
    close = getattr(model, "aclose", None)
    if callable(close):
        await close()
