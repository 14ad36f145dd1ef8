"""Shards as Ray tasks that stream their items back; the driver keeps the books.

A shard is a list of item keys (instance × pipeline, a game, a fork) and a task function
that yields one ``Item`` per finished key. Each shard runs as one Ray generator task; the
driver waits on all of them with ``ray.wait`` and hands every item to ``on_item`` the moment
it arrives, so a run folder grows as fast as it does on one machine.

Exactly once: the driver remembers every key it has handed on. A shard whose worker or node
dies (or whose task raised) is submitted again with only the keys that never came back, up to
``ClusterSpec.attempts`` runs in all; after that its remaining keys go to ``on_failed`` with
the reason, which the callers write as error records (a rerun retries them). Ray's own task
retries are off so that nothing is run twice behind the driver's back.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._connect import cluster_cpus
from ._options import ClusterSpec


@dataclass
class Item:
    """What a worker sends back for one key: the value, new response-cache rows, and where it ran."""

    key: str
    value: Any
    rows: list[tuple[str, str, dict]] = field(default_factory=list)
    node: str = ""
    pid: int = 0


@dataclass
class Shard:
    """A piece of the work: ``keys`` in order; ``payload(keys)`` is what its task needs for those keys."""

    name: str
    keys: list[str]
    payload: Callable[[list[str]], Any]
    runs: int = 0
    done: set[str] = field(default_factory=set)

    def remaining(self) -> list[str]:
        return [k for k in self.keys if k not in self.done]


class Display:
    """Progress hooks of a shard run (the rich display implements them; None shows nothing)."""

    def shards_start(self, total: int) -> None: ...

    def shard_done(self, shard: Shard) -> None: ...

    def shard_retry(self, shard: Shard, reason: str) -> None: ...

    def item(self, shard: Shard, item: Item) -> None: ...


def run_shards(
    task: Callable[..., Iterator[Item]],
    shards: list[Shard],
    common: Any,
    *,
    spec: ClusterSpec,
    on_item: Callable[[Shard, Item], None],
    on_failed: Callable[[Shard, str, str], None],
    display: Display | None = None,
) -> list[str]:
    """Run every shard on the cluster; returns the reasons of shards that failed for good (one per shard).

    ``task(common, payload, keys)`` is a module-level generator function (it runs on the
    workers); ``common`` goes to the object store once and every shard shares it.
    """
    import ray

    remote = _remote_task()
    common_ref = ray.put(common)
    waiting = list(shards)
    running: dict[Any, Shard] = {}
    failures: list[str] = []
    slots_checked = 0.0
    slots = spec.workers or cluster_cpus()
    seen: set[str] = set()
    if display:
        display.shards_start(len(shards))

    def submit(shard: Shard) -> None:
        shard.runs += 1
        keys = shard.remaining()
        running[remote.remote(task, [common_ref], shard.payload(keys), keys)] = shard

    try:
        while waiting or running:
            if spec.workers is None and time.monotonic() - slots_checked > 5.0:
                slots, slots_checked = cluster_cpus(), time.monotonic()  # nodes come and go
            while waiting and len(running) < slots:
                submit(waiting.pop(0))
            ready, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
            for generator in ready:
                shard = running[generator]
                try:
                    ref = next(generator)
                except StopIteration:
                    del running[generator]
                    if display:
                        display.shard_done(shard)
                    continue
                try:
                    item = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    del running[generator]
                    reason = describe_failure(exc)
                    if shard.remaining() and shard.runs < spec.attempts:
                        if display:
                            display.shard_retry(shard, reason)
                        waiting.insert(0, shard)
                        continue
                    failures.append(reason)
                    for key in shard.remaining():
                        shard.done.add(key)
                        seen.add(key)
                        on_failed(shard, key, reason)
                    if display:
                        display.shard_done(shard)
                    continue
                if item.key in seen or item.key not in shard.keys:
                    continue  # never twice, whatever a worker sends
                seen.add(item.key)
                shard.done.add(item.key)
                on_item(shard, item)
                if display:
                    display.item(shard, item)
    except BaseException:
        for generator in running:
            try:
                ray.cancel(generator, force=True)
            except Exception:  # noqa: BLE001 - already gone
                pass
        raise
    return failures


def describe_failure(exc: BaseException) -> str:
    """A failed shard in one line: our own error's message, or what happened to its worker."""
    import ray

    cause = getattr(exc, "cause", None)
    if isinstance(exc, ray.exceptions.RayTaskError) and cause is not None:
        from rulesets import VgmError

        text = str(cause) if isinstance(cause, VgmError) else f"{type(cause).__name__}: {cause}"
        return " ".join(text.split())[:300]
    names = {
        "WorkerCrashedError": "its worker died",
        "NodeDiedError": "its node left the cluster",
        "OutOfMemoryError": "Ray stopped its worker for lack of memory",
        "TaskCancelledError": "it was cancelled",
        "ObjectLostError": "its results were lost with a node",
    }
    what = next((text for name, text in names.items() if any(c.__name__ == name for c in type(exc).__mro__)), None)
    return what or f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


# ---- the worker side ---------------------------------------------------------------------------

_REMOTE = None


def _remote_task():
    """The one Ray task every shard runs (made on first use: importing this module needs no Ray)."""
    global _REMOTE
    if _REMOTE is None:
        import ray

        _REMOTE = ray.remote(max_retries=0, num_returns="streaming")(_shard_task)
    return _REMOTE


_COMMON: dict[str, Any] = {}


def _shard_task(task: Callable[..., Iterator[Item]], common: list, payload: Any, keys: list[str]) -> Iterator[Item]:
    """Runs on a worker: the shard's items, each stamped with this node and process.

    ``common`` is ``[ObjectRef]``, fetched once per worker process and run (what it holds,
    such as the knn baseline's embedded training contexts, is then reused by later shards).
    """
    import ray

    from ._connect import where_am_i

    ref = common[0]
    if ref.hex() not in _COMMON:
        _COMMON.clear()  # one run at a time per worker process
        _COMMON[ref.hex()] = ray.get(ref)
    node, pid = where_am_i(), os.getpid()
    for item in task(_COMMON[ref.hex()], payload, keys):
        item.node, item.pid = node, pid
        yield item


def stream_async(produce: Callable[[Callable[[Any], None]], Any]) -> Iterator[Any]:
    """Run ``await produce(emit)`` on an event loop in a thread and yield whatever it emits, as it emits it.

    Ray generator tasks are plain generators; our work is async. An exception in ``produce``
    is raised here after the items emitted before it.
    """
    import asyncio

    box: queue.Queue = queue.Queue()
    end = object()

    def run() -> None:
        try:
            asyncio.run(produce(box.put))
        except BaseException as exc:  # noqa: BLE001 - handed to the generator below
            box.put(_Raised(exc))
        finally:
            box.put(end)

    thread = threading.Thread(target=run, name="vgm-shard", daemon=True)
    thread.start()
    while True:
        value = box.get()
        if value is end:
            break
        if isinstance(value, _Raised):
            raise value.exc
        yield value
    thread.join()


@dataclass
class _Raised:
    exc: BaseException
