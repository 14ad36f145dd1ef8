"""The MOE runner: pipelines × instances, concurrent, written as it goes, resumable after a kill.

Each pipeline gets a run folder::

    run.json           pipeline (resolved chain), model, data path, limits, started, finished
    predictions.jsonl  one line per instance: id, prediction, utterance, gold, steps, usage, latency_s, error
    metrics.json       CF, SF, CP, CR, SP, SR with 95% CIs, exact match, parse failures, tokens, seconds

Several pipelines run *instance-major* (every pipeline on instance 1, then instance 2, ...),
so a prefix-caching server still holds an instance's context when the next pipeline asks
about it. Instances already in ``predictions.jsonl`` are skipped; ones that failed with a
model error are retried.
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from pipelines import MoeInstance, Pipeline, SkillStats, load_pipeline
from rulesets import VgmError

from .dataset import data_path, load_moe
from .metrics import InstanceScore, score_instance
from .report import read_predictions, write_metrics
from eval.stats import harmonic_mean


class RunError(VgmError):
    """A run folder or run request the user must fix."""


class Reporter(Protocol):
    """Progress display hooks (the CLI passes a rich one; library callers may pass None)."""

    def start(self, name: str, total: int, done: int) -> None: ...

    def advance(self, name: str, record: dict[str, Any], running: dict[str, float]) -> None: ...

    def finish(self, name: str) -> None: ...


@dataclass
class RunFolder:
    """One pipeline's run folder, its finished records and the file we append to."""

    pipeline: Pipeline
    path: Path
    records: dict[str, dict] = field(default_factory=dict)
    scores: list[InstanceScore] = field(default_factory=list)

    @property
    def predictions(self) -> Path:
        return self.path / "predictions.jsonl"

    def running(self) -> dict[str, float]:
        if not self.scores:
            return {"cf": 0.0, "sf": 0.0, "n": 0}
        n = len(self.scores)
        mean = lambda attr: sum(getattr(s, attr) for s in self.scores) / n  # noqa: E731
        return {"cf": harmonic_mean(mean("cp"), mean("cr")), "sf": harmonic_mean(mean("sp"), mean("sr")), "n": n}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _open_folder(pipeline: Pipeline, path: Path, config: dict[str, Any]) -> RunFolder:
    path.mkdir(parents=True, exist_ok=True)
    run_json = path / "run.json"
    if run_json.is_file():
        try:
            old = json.loads(run_json.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            old = {}
        for key in ("pipeline", "model", "data"):
            if old.get(key) not in (None, config.get(key)):
                raise RunError(
                    f"{path} holds a run with {key}={old.get(key)!r}, not {config.get(key)!r}; "
                    f"choose another -o folder, or rerun with the same settings to resume"
                )
        config = {**config, "started": old.get("started", config["started"]), "resumed": [*old.get("resumed", []), _now()]}
    folder = RunFolder(pipeline=pipeline, path=path)
    kept = [r for r in read_predictions(folder.predictions) if not r.get("error")]
    # rewrite: drops a truncated last line and failed instances, so they run again
    folder.predictions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")
    for record in kept:
        folder.records[record["id"]] = record
        folder.scores.append(score_instance(record["gold"], record["prediction"], characters=record.get("characters"), id=record["id"]))
    run_json.write_text(json.dumps({**config, "finished": None}, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


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


def build_stats(instances: list[MoeInstance], train: str | Path | None) -> tuple[SkillStats, bool, str]:
    """Statistic-predictor counts: from ``train``, else leave-one-out over the data itself."""
    if train:
        return SkillStats(load_moe(train)), False, str(Path(train).resolve())
    return SkillStats(instances), True, "leave-one-out on the data"


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
) -> dict[str, Path]:
    """Run every pipeline on every instance; returns pipeline → run folder.

    Args:
        pipelines: spec names or paths.
        data: a MOE .jsonl or ``"sample"``.
        out: pipeline name → run folder.
        model: a ``ChatModel`` (needed when any pipeline has model steps).
        model_name: recorded in run.json (the ``--model`` string).
        limit: only the first N instances.
        concurrency: instances in flight at once.
        train: training file for the statistic predictor.
    """
    built = [load_pipeline(p) for p in pipelines]
    if model is None and any(p.needs_model for p in built):
        needing = ", ".join(p.name for p in built if p.needs_model)
        raise RunError(f"pipelines {needing} call a model; pass --model (e.g. local:small)")
    path = data_path(data)
    instances = load_moe(path, limit=limit)
    stats, leave_one_out, train_desc = build_stats(instances, train)
    opts = {"stats": stats, "leave_one_out": leave_one_out, **(options or {})}
    folders: list[RunFolder] = []
    for pipeline in built:
        config = {
            "pipeline": pipeline.name,
            "chain": pipeline.describe(),
            "model": model_name if pipeline.needs_model else None,
            "data": str(path.resolve()),
            "limit": limit,
            "instances": len(instances),
            "concurrency": concurrency,
            "train": train_desc,
            "started": _now(),
        }
        folders.append(_open_folder(pipeline, Path(out[pipeline.name]), config))
    for folder in folders:
        if reporter:
            reporter.start(folder.pipeline.name, len(instances), len(folder.records))

    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(instance: MoeInstance) -> None:
        async with gate:
            for folder in folders:
                if instance.id in folder.records:
                    continue
                started = time.perf_counter()
                result = await folder.pipeline.run(instance, model if folder.pipeline.needs_model else None, **opts)
                record = _record(instance, result, time.perf_counter() - started)
                with folder.predictions.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                if not record["error"]:
                    folder.records[instance.id] = record
                    folder.scores.append(score_instance(instance.answers, result.checks, characters=instance.characters, id=instance.id))
                if reporter:
                    reporter.advance(folder.pipeline.name, record, folder.running())

    await asyncio.gather(*(one(i) for i in instances))
    done: dict[str, Path] = {}
    for folder in folders:
        write_metrics(folder.path)
        run_json = folder.path / "run.json"
        config = json.loads(run_json.read_text(encoding="utf-8"))
        config["finished"] = _now()
        run_json.write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
        if reporter:
            reporter.finish(folder.pipeline.name)
        done[folder.pipeline.name] = folder.path
    return done


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
    concurrency: int = 2, train: str | Path | None = None, reporter: Reporter | None = None,
) -> Path:
    """``vgm moe run``: one pipeline into one run folder; returns the folder."""
    return compare_moe([pipeline], data, out, model=model, limit=limit, concurrency=concurrency, train=train, reporter=reporter, single=True)[load_pipeline(pipeline).name]


def compare_moe(
    pipelines: list[str], data: str | Path, out: str | Path, *, model: str | None = None, limit: int | None = None,
    concurrency: int = 2, train: str | Path | None = None, reporter: Reporter | None = None, single: bool = False,
) -> dict[str, Path]:
    """``vgm moe compare``: every pipeline into ``out/<pipeline>``; returns pipeline → folder."""
    names = [load_pipeline(p).name for p in pipelines]
    out = Path(out)
    folders = {name: (out if single else out / name) for name in names}
    chat = open_model(model) if any(load_pipeline(p).needs_model for p in pipelines) else None

    async def go() -> dict[str, Path]:
        try:
            return await run_pipelines(pipelines, data, folders, model=chat, model_name=model, limit=limit, concurrency=concurrency, train=train, reporter=reporter)
        finally:
            if chat is not None:
                await close_model(chat)

    return asyncio.run(go())
