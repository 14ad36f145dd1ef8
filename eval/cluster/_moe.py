"""``vgm moe run|compare --cluster ray``: instances × pipelines as shards; the driver writes the run folders.

Everything the plain runner checks is checked the same way (``plan_run``), the folders are
opened and resumed the same way (``open_folders``: the lock, run.json, finished ids), and every
record is made by the same function on the workers (``run_one``) and written by the same
method on the driver (``_Running.take``). So a cluster run's predictions and metrics are the
plain run's, apart from the wall-clock fields.
"""
from __future__ import annotations

import asyncio
import math
import warnings
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from eval.moe.runner import Cost, _record, check_options, close_folders, open_folders, plan_run, run_one
from pipelines import MoeInstance, PipelineResult, load_pipeline

from ._connect import connect
from ._models import Resources, close_worker_model, open_worker_model, plan_model
from ._options import ClusterSpec
from ._stream import Display, Item, Shard, run_shards, stream_async

SEP = "\x1f"  # between pipeline name and instance id in an item key
SHARDS_PER_WORKER = 4


def shard_size(spec: ClusterSpec, units: int, slots: int) -> int:
    """Instances per shard: ``spec.shard_size``, else about four shards per worker (balance vs. per-task cost)."""
    if spec.shard_size:
        return spec.shard_size
    return max(1, math.ceil(units / (SHARDS_PER_WORKER * max(1, slots))))


def _source(text: str) -> str:
    """What a worker loads a pipeline from: the shipped name, or a spec file's absolute path."""
    path = Path(text).expanduser()
    return str(path.resolve()) if path.suffix in (".yaml", ".yml") and path.is_file() else text


def failed_record(instance: MoeInstance, reason: str) -> dict[str, Any]:
    """The record of an instance whose shard failed for good: an error like any other (a rerun retries it)."""
    record = _record(instance, PipelineResult(error=reason), 0.0)
    record["cost"] = Cost().as_dict()
    return record


def run_moe(
    pipelines: list[str], data: str | Path, out: dict[str, Path], *, spec: ClusterSpec, model: str | None = None,
    limit: int | None = None, concurrency: int = 2, train: str | Path | None = None, reporter: Any = None,
    options: dict[str, Any] | None = None, prompting: str = "faithful",
) -> dict[str, Path]:
    """Run every pipeline on every instance over the cluster; returns pipeline → run folder (as ``run_pipelines``)."""
    from ._connect import cluster_cpus

    built = check_options(pipelines, limit=limit, concurrency=concurrency, prompting=prompting)
    connect(spec)
    resources = Resources(spec)
    model_plan = plan_model(model, resources) if (model and any(p.needs_model for p in built)) else None  # its actors start now
    plan = plan_run(pipelines, data, out, model_given=bool(model), model_name=model, limit=limit, concurrency=concurrency,
                    train=train, options=options, prompting=prompting)
    common = {
        "pipelines": {p.name: _source(text) for text, p in zip(pipelines, plan.pipelines)},
        "order": [p.name for p in plan.pipelines],
        "opts": plan.opts,
        "model": model_plan,
        "concurrency": concurrency,
    }
    by_id = {i.id: i for i in plan.instances}
    display = reporter if isinstance(reporter, Display) else None
    with ExitStack() as stack:
        folders = open_folders(plan, out, stack, reporter)
        states = {state.pipeline.name: state for state in folders}
        work = [(inst, [s.pipeline.name for s in folders if inst.id not in s.done]) for inst in plan.instances]
        work = [(inst, names) for inst, names in work if names]
        size = shard_size(spec, len(work), spec.workers or cluster_cpus())

        def payload(keys: list[str]) -> list[MoeInstance]:
            return [by_id[iid] for iid in dict.fromkeys(key.split(SEP)[1] for key in keys)]

        shards = [
            Shard(name=str(n + 1), keys=[f"{name}{SEP}{inst.id}" for inst, names in work[start:start + size] for name in names], payload=payload)
            for n, start in enumerate(range(0, len(work), size))
        ]

        writers = {name: InOrder(states[name], [inst.id for inst, names in work if name in names], by_id, reporter) for name in states}

        def on_item(shard: Shard, item: Item) -> None:
            resources.write_rows(item.rows)
            name, iid = item.key.split(SEP)
            writers[name].add(iid, item.value)

        def on_failed(shard: Shard, key: str, reason: str) -> None:
            name, iid = key.split(SEP)
            writers[name].add(iid, failed_record(by_id[iid], reason))

        failures = run_shards(moe_shard, shards, common, spec=spec, on_item=on_item, on_failed=on_failed, display=display)
        warn_failures(failures, "instances", spec)
        return close_folders(folders, reporter)


class InOrder:
    """Writes one pipeline's records in instance order, as a plain run writes them.

    The report's bootstrap intervals follow the file's order, so order is part of "the same
    result". A record that comes back before an earlier instance's waits here (shards are
    handed out in instance order and a retried shard goes first, so this is about one
    shard's worth); a driver killed meanwhile loses only those waiting records, which the
    resume runs again.
    """

    def __init__(self, state: Any, order: list[str], by_id: dict[str, MoeInstance], reporter: Any) -> None:
        self.state, self.order, self.by_id, self.reporter = state, order, by_id, reporter
        self.next = 0
        self.held: dict[str, dict[str, Any]] = {}

    def add(self, iid: str, record: dict[str, Any]) -> None:
        self.held[iid] = record
        while self.next < len(self.order) and self.order[self.next] in self.held:
            iid = self.order[self.next]
            self.state.take(self.by_id[iid], self.held.pop(iid), self.reporter)
            self.next += 1


def warn_failures(failures: list[str], what: str, spec: ClusterSpec) -> None:
    """One warning line per distinct reason a shard failed for good."""
    for reason in dict.fromkeys(failures):
        n = failures.count(reason)
        warnings.warn(f"{n} shard{'s' if n != 1 else ''} failed after {spec.attempts} runs ({reason}); their {what} are saved as errors, "
                      f"rerun the same command to retry them", stacklevel=3)


# ---- on the workers -------------------------------------------------------------------------------

_PIPELINES: dict[str, Any] = {}


def _pipeline(source: str) -> Any:
    if source not in _PIPELINES:
        _PIPELINES[source] = load_pipeline(source)
    return _PIPELINES[source]


def moe_shard(common: dict[str, Any], instances: list[MoeInstance], keys: list[str]) -> Iterator[Item]:
    """A shard on a worker: its instances, each through its pipelines in run order, as records stream back."""
    wanted: dict[str, list[str]] = {}
    for key in keys:
        name, iid = key.split(SEP)
        wanted.setdefault(iid, []).append(name)
    order: list[str] = common["order"]
    pipelines = {name: _pipeline(source) for name, source in common["pipelines"].items()}
    needs_model = any(pipelines[n].needs_model for names in wanted.values() for n in names)
    model, cache = open_worker_model(common["model"]) if (needs_model and common["model"] is not None) else (None, None)

    async def produce(emit) -> None:
        gate = asyncio.Semaphore(common["concurrency"])

        async def one(instance: MoeInstance) -> None:
            async with gate:
                for name in sorted(wanted[instance.id], key=order.index):
                    record = await run_one(pipelines[name], instance, model, common["opts"])
                    emit(Item(key=f"{name}{SEP}{instance.id}", value=record, rows=cache.drain() if cache is not None else []))

        try:
            await asyncio.gather(*(one(i) for i in instances if i.id in wanted))
        finally:
            if model is not None:
                await close_worker_model(model)

    yield from stream_async(produce)
