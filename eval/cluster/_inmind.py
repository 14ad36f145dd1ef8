"""``vgm inmind run --cluster ray``: Stage 1 as one task, then the instances as shards; the driver writes the folder.

The run folder is the one ``run_inmind`` writes (``config.json``, ``counts.json``,
``profile.json``, ``results.jsonl``) and a rerun resumes it either way. With
``--dynamic summary`` each game's round-by-round chain is one shard (a round needs the
summary the round before wrote); a retried chain gets the rounds that already came back,
so it goes on from where its worker died.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from eval.inmind.runner import (DYNAMIC, RESULTS, RunConfig, RunSummary, _check_config, answer_record, baselines_for,
                                build_profile, chains_of, prepare_run, read_results, run_chain, save_profile, saved_profile)
from pipelines.llm import Usage

from ._connect import connect
from ._models import Resources, close_worker_model, open_worker_model, plan_model
from ._moe import shard_size
from ._options import ClusterError, ClusterSpec
from ._stream import Display, Item, Shard, run_shards, stream_async

PROFILE_KEY = "\x1fprofile"


def run_inmind(
    data: str | Path, out_dir: str | Path, *, spec: ClusterSpec, model: str = "local", tasks: str | list[str] | None = "all",
    mask_policy: str = "seats", concurrency: int = 2, limit: int | None = None, embedder: Any = None,
    on_progress: Callable[[int, int], None] | None = None, profile: str | None = None, dynamic: str = "full",
    settings: list[str] | None = None, display: Display | None = None, show_progress: bool = False, transient: bool = False,
) -> RunSummary:
    """``eval.inmind.runner.run_inmind`` over the cluster; returns the same summary."""
    if show_progress:
        from ._progress import ClusterProgress

        with ClusterProgress(transient=transient) as bars:
            started: list[bool] = []

            def count(done: int, total: int) -> None:
                if not started:
                    bars.start("inmind", total, 0)
                    started.append(True)
                bars.count("inmind")

            return run_inmind(data, out_dir, spec=spec, model=model, tasks=tasks, mask_policy=mask_policy, concurrency=concurrency,
                              limit=limit, embedder=embedder, on_progress=count, profile=profile, dynamic=dynamic,
                              settings=settings, display=bars)
    chosen, sessions, instances = prepare_run(data, out_dir, tasks=tasks, mask_policy=mask_policy, concurrency=concurrency,
                                              limit=limit, profile=profile, dynamic=dynamic, settings=settings)
    connect(spec)
    resources = Resources(spec)
    plan = plan_model(model, resources)
    out = Path(out_dir)
    _check_config(out, RunConfig(data=str(data), tasks=chosen, model=model, mask_policy=mask_policy, limit=limit, dynamic=dynamic))
    summary = RunSummary(out_dir=str(out))
    done = read_results(out)
    todo = [i for i in instances if i.id not in done or done[i.id].get("error")]
    summary.skipped = len(instances) - len(todo)
    if not todo:
        return summary

    stage1 = saved_profile(out)
    if stage1 is None:
        stage1 = _profile_on_cluster(spec, resources, plan, sessions)
        save_profile(out, stage1)
    summary.usage = summary.usage + stage1.usage
    baselines = baselines_for(todo, sessions, embedder)
    common = {"model": plan, "profile": stage1.profile, "baselines": baselines, "concurrency": concurrency}

    results = out / RESULTS
    if results.is_file() and results.stat().st_size and not results.read_bytes().endswith(b"\n"):
        with results.open("a", encoding="utf-8") as fh:
            fh.write("\n")  # a line cut by a crash stays alone on its line
    written = dict(done)
    by_id = {i.id: i for i in instances}
    todo_ids = {i.id for i in todo}
    shards: list[Shard] = []
    if dynamic == "summary":
        for n, chain in enumerate(chains_of(instances)):
            keys = [i.id for i in sorted(chain, key=lambda i: i.mission or 0) if i.id in todo_ids]
            if keys:
                ids = [i.id for i in chain]
                shards.append(Shard(name=f"chain {n + 1}", keys=keys, payload=lambda ks, chain=chain, ids=ids: {
                    "chain": chain, "done": {i: written[i] for i in ids if i in written}}))
        rest = [i for i in todo if i.task not in DYNAMIC]
    else:
        rest = todo
    size = shard_size(spec, len(rest), spec.workers or _cpus())
    for n, start in enumerate(range(0, len(rest), size)):
        keys = [i.id for i in rest[start:start + size]]
        shards.append(Shard(name=str(n + 1), keys=keys, payload=lambda ks: {"items": [by_id[k] for k in ks]}))
    finished = 0

    def write(record: dict[str, Any]) -> None:
        nonlocal finished
        with results.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        written[record["id"]] = record
        if record.get("error"):
            summary.failed += 1
        else:
            summary.done += 1
            summary.usage = summary.usage + Usage(**record["usage"])
        finished += 1
        if on_progress:
            on_progress(finished, len(todo))

    def on_item(shard: Shard, item: Item) -> None:
        resources.write_rows(item.rows)
        write(item.value)

    def on_failed(shard: Shard, key: str, reason: str) -> None:
        inst = by_id[key]
        write({"id": inst.id, "task": inst.task, "setting": inst.setting, "session": inst.session, "subject_role": inst.subject_role,
               "mission": inst.mission, "error": reason, "score": None})

    from ._moe import warn_failures

    failures = run_shards(inmind_shard, shards, common, spec=spec, on_item=on_item, on_failed=on_failed, display=display)
    warn_failures(failures, "instances", spec)
    return summary


def _cpus() -> int:
    from ._connect import cluster_cpus

    return cluster_cpus()


def _profile_on_cluster(spec: ClusterSpec, resources: Resources, plan: Any, sessions: list[Any]) -> Any:
    """Stage 1 as a single task (one model, one pass over the observer games)."""
    got: list[Any] = []

    def on_item(shard: Shard, item: Item) -> None:
        resources.write_rows(item.rows)
        got.append(item.value)

    failures = run_shards(profile_shard, [Shard(name="profile", keys=[PROFILE_KEY], payload=lambda keys: sessions)],
                          {"model": plan}, spec=spec, on_item=on_item, on_failed=lambda shard, key, reason: None)
    if not got:
        raise ClusterError(f"Stage 1 (the profile) failed on the cluster ({failures[0] if failures else 'no answer'}); "
                           f"rerun the same command, or give --profile")
    return got[0]


# ---- on the workers -------------------------------------------------------------------------------

def profile_shard(common: dict[str, Any], sessions: list[Any], keys: list[str]) -> Iterator[Item]:
    model, cache = open_worker_model(common["model"])

    async def produce(emit) -> None:
        try:
            emit(await build_profile(model, sessions))
        finally:
            await close_worker_model(model)

    for result in stream_async(produce):
        yield Item(key=PROFILE_KEY, value=result, rows=cache.drain() if cache is not None else [])


def inmind_shard(common: dict[str, Any], payload: dict[str, Any], keys: list[str]) -> Iterator[Item]:
    """Instances (or one game's chain of rounds) on a worker; each record streams back as it is answered."""
    model, cache = open_worker_model(common["model"])
    wanted = set(keys)

    async def produce(emit) -> None:
        gate = asyncio.Semaphore(common["concurrency"])

        async def one(inst: Any, game: str | None = None) -> dict[str, Any]:
            async with gate:
                record, _ = await answer_record(model, inst, common["profile"], game, common["baselines"].get(inst.session))
            if inst.id in wanted:
                emit(Item(key=inst.id, value=record, rows=cache.drain() if cache is not None else []))
            return record

        try:
            if "chain" in payload:
                await run_chain(payload["chain"], payload["done"], one)
            else:
                await asyncio.gather(*(one(i) for i in payload["items"]))
        finally:
            await close_worker_model(model)

    yield from stream_async(produce)
