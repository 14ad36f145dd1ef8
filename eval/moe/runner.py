"""The MOE runner: pipelines × instances, concurrent, written as it goes, resumable after a kill.

Each pipeline gets a run folder (``RunFolder``, see ``run_folder.py`` for the format and the
guarantees: append-only lines, a lock per folder, torn tails cut, ``run.json`` compared on
resume). Options are checked before anything is written.

Several pipelines run *instance-major* (every pipeline on instance 1, then instance 2, ...),
so a prefix-caching server still holds an instance's context when the next pipeline asks
about it. Instances already finished are skipped; ones that failed with a model error are
retried. Records are written and forgotten: the runner keeps only ids and four numbers per
instance, so memory stays flat however long the run.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import ExitStack
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pipelines import DEFAULT_COMPARE, MoeInstance, Pipeline, SkillStats, load_pipeline
from pipelines.steps import LANGS

from .dataset import data_path, load_moe
from .metrics import score_instance
from .report import write_metrics
from .run_folder import RunFolder, RunFolderError, check_writable, file_hash, now
from eval.stats import harmonic_mean

PROMPTING = ("faithful", "assisted")
# What `vgm moe compare` runs by default: the paper's eight (Table 2 and its floor), then the two extra baselines.
COMPARE_DEFAULT = [*DEFAULT_COMPARE, "knn", "oracle_char"]


RunError = RunFolderError  # a run folder or run request the user must fix: one error type for both


class Reporter(Protocol):
    """Progress display hooks (the CLI passes a rich one; library callers may pass None)."""

    def start(self, name: str, total: int, done: int) -> None: ...

    def advance(self, name: str, record: dict[str, Any], running: dict[str, float]) -> None: ...

    def finish(self, name: str) -> None: ...


@dataclass
class Cost:
    """What one pipeline spent on one instance, counted at the model call, so a cache hit is never a model call."""

    calls: int = 0  # requests the pipeline made
    cache_hits: int = 0  # of them, answered from our response cache (no model ran)
    computed_prompt_tokens: int = 0  # prompt tokens a model computed (not cache hits, not the server's reused prefix)
    model_seconds: float = 0.0  # time spent waiting on the model for computed calls

    def add(self, usage: Any) -> None:
        self.calls += int(getattr(usage, "calls", 1) or 1)
        if getattr(usage, "cache_hit", False):
            self.cache_hits += int(getattr(usage, "calls", 1) or 1)
        else:
            self.computed_prompt_tokens += max(0, int(usage.prompt_tokens or 0) - int(usage.cached_tokens or 0))
            self.model_seconds += float(usage.latency_s or 0.0)

    def as_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "cache_hits": self.cache_hits, "model_calls": self.calls - self.cache_hits,
                "computed_prompt_tokens": self.computed_prompt_tokens, "model_seconds": round(self.model_seconds, 4)}


_COST: ContextVar[Cost | None] = ContextVar("moe_cost", default=None)


class _Metered:
    """The run's model, counting each reply into the running instance's ``Cost`` (one per asyncio task)."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    async def complete(self, messages: Any, **kwargs: Any) -> Any:
        reply = await self._model.complete(messages, **kwargs)
        cost = _COST.get()
        if cost is not None:
            cost.add(reply.usage)
        return reply


@dataclass
class _Running:
    """One pipeline's folder while it runs: the finished ids and running sums for the progress bar."""

    pipeline: Pipeline
    folder: RunFolder
    done: set[str] = field(default_factory=set)
    sums: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    errors: int = 0

    def add(self, cp: float, cr: float, sp: float, sr: float) -> None:
        for k, value in enumerate((cp, cr, sp, sr)):
            self.sums[k] += value

    def take(self, instance: MoeInstance, record: dict[str, Any], reporter: Reporter | None = None) -> None:
        """Write one finished attempt (the run folder's only writer) and count it."""
        self.folder.append(record)
        if record["error"]:
            self.errors += 1
        else:
            s = score_instance(instance.answers, record["prediction"], characters=instance.characters, id=instance.id)
            self.done.add(instance.id)
            self.add(s.cp, s.cr, s.sp, s.sr)
        if reporter:
            reporter.advance(self.pipeline.name, record, self.running())

    def running(self) -> dict[str, float]:
        n = len(self.done)
        if not n:
            return {"cf": 0.0, "sf": 0.0, "n": 0, "errors": self.errors}
        cp, cr, sp, sr = (v / n for v in self.sums)
        return {"cf": harmonic_mean(cp, cr), "sf": harmonic_mean(sp, sr), "n": n, "errors": self.errors}


def _open(pipeline: Pipeline, folder: RunFolder, stack: ExitStack, config: dict[str, Any]) -> _Running:
    stack.enter_context(folder.writing(config))
    state = _Running(pipeline=pipeline, folder=folder)
    latest: dict[str, tuple[float, float, float, float] | None] = {}
    for record in folder.records():
        if record.get("error"):
            latest[record["id"]] = None
        else:
            s = score_instance(record.get("gold") or [], record.get("prediction") or [], characters=record.get("characters"))
            latest[record["id"]] = (s.cp, s.cr, s.sp, s.sr)
    for iid, values in latest.items():
        if values is not None:
            state.done.add(iid)
            state.add(*values)
    return state


def _record(instance: MoeInstance, result, latency: float) -> dict[str, Any]:
    return {
        "id": instance.id,
        "ruleset": instance.ruleset,
        "prediction": [c.model_dump() for c in result.checks],
        "utterance": result.utterance,
        "gold": [c.model_dump() for c in instance.answers],
        "characters": instance.characters,
        "steps": [s.model_dump(mode="json") for s in result.steps],
        "usage": result.usage.model_dump(mode="json"),
        "latency_s": round(latency, 3),
        "parse_ok": result.parse_ok,
        "dropped": result.dropped,
        "error": result.error,
    }


async def run_one(pipeline: Pipeline, instance: MoeInstance, model: Any, opts: dict[str, Any]) -> dict[str, Any]:
    """One pipeline on one instance: the record a run folder stores, with what it cost.

    ``model`` is the run's model as given (it is metered here); the plain runner and the
    cluster workers (``eval.cluster``) both make their records with this one function.
    """
    cost = Cost()
    token = _COST.set(cost)
    started = time.perf_counter()
    try:
        chat = model if model is None or isinstance(model, _Metered) else _Metered(model)
        result = await pipeline.run(instance, chat if pipeline.needs_model else None, **opts)
    finally:
        _COST.reset(token)
    record = _record(instance, result, time.perf_counter() - started)
    record["cost"] = cost.as_dict()
    return record


def build_stats(instances: list[MoeInstance], train: str | Path | None) -> tuple[SkillStats, bool, str]:
    """Statistic-predictor counts: from ``train``, else leave-one-out over the data itself."""
    if train:
        return SkillStats(load_moe(train)), False, str(Path(train).resolve())
    return SkillStats(instances), True, "leave-one-out on the data"


def check_options(pipelines: list[str], *, limit: int | None = None, concurrency: int = 2, prompting: str = "faithful",
                  model: Any = None) -> list[Pipeline]:
    """Every option a run takes, checked before anything is written; returns the built pipelines."""
    if limit is not None and limit < 1:
        raise RunError(f"--limit {limit}: give at least 1 (or leave it out for every instance)")
    if concurrency < 1:
        raise RunError(f"--concurrency {concurrency}: give at least 1 instance in flight")
    if prompting not in PROMPTING:
        raise RunError(f"--prompting {prompting!r}: choose one of {', '.join(PROMPTING)}")
    if not pipelines:
        raise RunError("no pipelines given; name at least one (see `vgm moe pipelines`)")
    built = []
    for name in pipelines:
        try:
            built.append(load_pipeline(name))
        except OSError as exc:  # a name too long for a file name, a loop of links, ...
            raise RunError(f"unknown pipeline {name[:40]!r}{'…' if len(name) > 40 else ''} ({exc.strerror or type(exc).__name__}); "
                           f"see `vgm moe pipelines`") from None
    for pipeline in built:
        if pipeline.step_names.count("gm_utterance") > 1:
            raise RunError(f"pipeline {pipeline.name!r} would ask for the GM utterance twice; drop the extra _gm (e.g. {pipeline.name.removesuffix('_gm')})")
    names = [p.name for p in built]
    twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if twice:
        raise RunError(f"pipeline {twice[0]!r} is named twice; give each pipeline once")
    return built


@dataclass
class RunPlan:
    """What a run will do, worked out before a folder is touched: pipelines, instances, step options, run.json per pipeline."""

    pipelines: list[Pipeline]
    instances: list[MoeInstance]
    opts: dict[str, Any]
    configs: dict[str, dict[str, Any]]


def plan_run(
    pipelines: list[str], data: str | Path, out: dict[str, Path], *, model_given: bool, model_name: str | None = None,
    limit: int | None = None, concurrency: int = 2, train: str | Path | None = None, options: dict[str, Any] | None = None,
    prompting: str = "faithful",
) -> RunPlan:
    """Check every option, load the data, build the step options and each pipeline's run.json (nothing written)."""
    built = check_options(pipelines, limit=limit, concurrency=concurrency, prompting=prompting)
    if not model_given and any(p.needs_model for p in built):
        needing = ", ".join(p.name for p in built if p.needs_model)
        raise RunError(f"pipelines {needing} call a model; pass --model (e.g. local:small)")
    for pipeline in built:
        check_writable(out[pipeline.name])
    path = data_path(data)
    instances = load_moe(path, limit=limit)
    stats, leave_one_out, train_desc = build_stats(instances, train)
    opts = {"stats": stats, "leave_one_out": leave_one_out, "prompting": prompting, **(options or {})}
    data_hash = file_hash(path)
    configs = {
        pipeline.name: {
            "pipeline": pipeline.name,
            "chain": pipeline.describe(),
            "model": model_name if pipeline.needs_model else None,
            "data": str(path.resolve()),
            "data_hash": data_hash,
            "limit": limit,
            "instances": len(instances),
            "concurrency": concurrency,
            "prompting": prompting if pipeline.needs_model else None,
            "lang": (options or {}).get("lang", "en") if pipeline.needs_model else None,
            "temperature": float((options or {}).get("temperature", 0.0)) if pipeline.needs_model else None,
            "seed": (options or {}).get("seed") if pipeline.needs_model else None,
            "train": train_desc,
            "started": now(),
        }
        for pipeline in built
    }
    return RunPlan(built, instances, opts, configs)


def open_folders(plan: RunPlan, out: dict[str, Path], stack: ExitStack, reporter: Reporter | None = None,
                 extra: dict[str, Any] | None = None) -> list[_Running]:
    """Lock and open (or resume) each pipeline's run folder inside ``stack``; start the progress bars."""
    folders = [_open(p, RunFolder(out[p.name]), stack, {**plan.configs[p.name], **(extra or {})}) for p in plan.pipelines]
    ids = {i.id for i in plan.instances}
    for state in folders:
        if reporter:
            reporter.start(state.pipeline.name, len(plan.instances), len(state.done & ids))
    return folders


def close_folders(folders: list[_Running], reporter: Reporter | None = None) -> dict[str, Path]:
    """Write each folder's metrics.json; returns pipeline → folder."""
    done: dict[str, Path] = {}
    for state in folders:
        write_metrics(state.folder)
        if reporter:
            reporter.finish(state.pipeline.name)
        done[state.pipeline.name] = state.folder.path
    return done


async def run_pipelines(
    pipelines: list[str],
    data: str | Path,
    out: dict[str, Path],
    *,
    model: Any = None,
    model_name: str | None = None,
    limit: int | None = None,
    concurrency: int = 2,
    train: str | Path | None = None,
    reporter: Reporter | None = None,
    options: dict[str, Any] | None = None,
    prompting: str = "faithful",
) -> dict[str, Path]:
    """Run every pipeline on every instance; returns pipeline → run folder.

    Args:
        pipelines: spec names or paths.
        data: a MOE .jsonl or ``"sample"``.
        out: pipeline name → run folder.
        model: a ``ChatModel`` (needed when any pipeline has model steps).
        model_name: recorded in run.json (the ``--model`` string).
        limit: only the first N instances (at least 1).
        concurrency: instances in flight at once (at least 1).
        train: training file for the statistic predictor.
        prompting: ``faithful`` (only what the paper's prompts give) or ``assisted`` (see docs/moe.md).
    """
    plan = plan_run(pipelines, data, out, model_given=model is not None, model_name=model_name, limit=limit,
                    concurrency=concurrency, train=train, options=options, prompting=prompting)
    with ExitStack() as stack:
        folders = open_folders(plan, out, stack, reporter)
        gate = asyncio.Semaphore(concurrency)
        metered = _Metered(model) if model is not None else None

        async def one(instance: MoeInstance) -> None:
            async with gate:
                for state in folders:
                    if instance.id in state.done:
                        continue
                    record = await run_one(state.pipeline, instance, metered, plan.opts)
                    state.take(instance, record, reporter)

        await asyncio.gather(*(one(i) for i in plan.instances))
        return close_folders(folders, reporter)


def open_model(spec: str | None):
    """``get_model(spec)``, or None when no model string is given."""
    if not spec:
        return None
    from pipelines.llm import get_model

    return get_model(spec)


async def close_model(model: Any) -> None:
    """Stop what a backend started (the local server), whatever its close method is called."""
    for name in ("aclose", "close", "stop"):
        method = getattr(model, name, None)
        if callable(method):
            value = method()
            if asyncio.iscoroutine(value):
                await value
            return


def run_moe(
    pipeline: str, data: str | Path, out: str | Path, *, model: str | None = None, limit: int | None = None,
    concurrency: int = 2, train: str | Path | None = None, reporter: Reporter | None = None, prompting: str = "faithful",
    run_with: Callable[..., dict[str, Path]] | None = None, options: dict[str, Any] | None = None,
) -> Path:
    """``vgm moe run``: one pipeline into one run folder; returns the folder."""
    return compare_moe([pipeline], data, out, model=model, limit=limit, concurrency=concurrency, train=train,
                       reporter=reporter, single=True, prompting=prompting, run_with=run_with, options=options)[load_pipeline(pipeline).name]


def compare_moe(
    pipelines: list[str], data: str | Path, out: str | Path, *, model: str | None = None, limit: int | None = None,
    concurrency: int = 2, train: str | Path | None = None, reporter: Reporter | None = None, single: bool = False,
    prompting: str = "faithful", options: dict[str, Any] | None = None, run_with: Callable[..., dict[str, Path]] | None = None,
) -> dict[str, Path]:
    """``vgm moe compare``: every pipeline into ``out/<pipeline>``; returns pipeline → folder.

    Every option, the output folders and the data file are checked before a model starts or
    a byte is written. ``run_with`` runs the checked request instead of this process, with
    ``run_pipelines``' arguments and a model *string* (``eval.cluster``'s Ray driver:
    ``ClusterSpec.run_moe``); it too must write every folder from this process.
    """
    built = check_options(pipelines, limit=limit, concurrency=concurrency, prompting=prompting)
    lang = (options or {}).get("lang", "en")
    if lang not in LANGS:
        raise RunError(f"--lang {lang!r}: choose one of {', '.join(LANGS)} (the prompt files exist in these)")
    out = Path(out)
    folders = {p.name: (out if single else out / p.name) for p in built}
    check_writable(out)
    for folder in folders.values():
        check_writable(folder)
    needs_model = any(p.needs_model for p in built)
    if needs_model and not model:
        raise RunError(f"pipelines {', '.join(p.name for p in built if p.needs_model)} call a model; pass --model (e.g. local:small)")
    load_moe(data_path(data), limit=limit)  # a bad data file stops here, before a model server starts
    if train:
        load_moe(train)
    if run_with is not None:
        return run_with(pipelines, data, folders, model=model, limit=limit, concurrency=concurrency, train=train,
                        reporter=reporter, options=options, prompting=prompting)
    chat = open_model(model) if needs_model else None

    async def go() -> dict[str, Path]:
        try:
            return await run_pipelines(pipelines, data, folders, model=chat, model_name=model, limit=limit, concurrency=concurrency,
                                       train=train, reporter=reporter, prompting=prompting, options=options)
        finally:
            if chat is not None:
                await close_model(chat)

    return asyncio.run(go())
