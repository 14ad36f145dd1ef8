"""Run Algorithm 1 over a folder of sessions: Stage 1 profile, then every task instance.

The run folder holds ``config.json``, ``profile.json`` (Stage 1, reused on resume) and
``results.jsonl`` (one line per instance, written as each answer arrives). Re-running the same
command skips instances that already have an answer, so a crash or Ctrl-C loses nothing.
"""
from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pipelines import inmind as steps
from pipelines.llm import ChatModel, Usage, get_model
from rulesets import FileProblem, VgmError, read_jsonl, read_model_file, write_atomic

from .baseline import Embedder, similarity_ranking
from .importers import load_sessions
from .render import observer_text
from .scoring import score
from .session import Session
from .tasks import SETTINGS, TASKS, TaskInstance, build_tasks

RESULTS = "results.jsonl"
PROFILE = "profile.json"
CONFIG = "config.json"
COUNTS = "counts.json"  # what the tasks command prints, for the data this run read


DYNAMIC = ("trace_attribution", "role_inference")  # tasks that reveal the game round by round


class RunConfig(BaseModel):
    data: str
    tasks: list[str]
    model: str
    mask_policy: str = "seats"
    limit: int | None = None
    dynamic: str = "full"  # full: each round sees the whole log so far; summary: its own summary of earlier rounds


class RunSummary(BaseModel):
    out_dir: str
    done: int = 0
    skipped: int = 0  # already answered in an earlier run
    failed: int = 0
    usage: Usage = Field(default_factory=lambda: Usage(calls=0))


def parse_tasks(value: str | list[str] | None) -> list[str]:
    """``all`` or a comma list of task names (short forms: pi, ra, ta, ri)."""
    short = {"pi": "player_identification", "ra": "reflection_alignment", "ta": "trace_attribution", "ri": "role_inference"}
    if value is None or value == "all" or value == ["all"]:
        return list(TASKS)
    items = value.split(",") if isinstance(value, str) else value
    out = []
    for item in items:
        name = short.get(item.strip(), item.strip())
        if name not in TASKS:
            raise VgmError(f"unknown InMind task {item!r}; use all or any of {', '.join(TASKS)} (or pi, ra, ta, ri)")
        out.append(name)
    return out


def read_results(out_dir: str | Path) -> dict[str, dict[str, Any]]:
    """The last record per instance id in a run folder (later lines win).

    A line cut short by a crash is skipped (the runner starts the next record on a new line),
    so that instance is simply asked again.
    """
    path = Path(out_dir) / RESULTS
    records: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return records
    for record in read_jsonl(path, what="results file", on_torn="ignore", on_bad="skip"):
        if isinstance(record.get("id"), str):
            records[record["id"]] = record
    return records


def _write_atomic(path: Path, text: str) -> None:
    """Write a small file so that a kill leaves the old one or the new one, never half of either."""
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise VgmError(f"cannot write {path} ({exc.strerror or exc}); check the -o folder is writable") from None


def saved_profile(out_dir: Path) -> steps.ProfileResult | None:
    """The Stage 1 profile a run folder already holds (None when missing or unreadable: it is built again)."""
    path = out_dir / PROFILE
    if path.exists():
        try:
            return read_model_file(path, steps.ProfileResult, what="profile file")
        except FileProblem as problem:
            import warnings

            warnings.warn(f"{problem}; building the profile again", stacklevel=3)
    return None


async def build_profile(model: ChatModel, sessions: list[Session]) -> steps.ProfileResult:
    """Stage 1 over the observer sessions (no file written)."""
    observers = [s for s in sessions if s.mode == "observer"]
    return await steps.build_profile(model, [observer_text(s, i + 1) for i, s in enumerate(observers)])


def save_profile(out_dir: Path, result: steps.ProfileResult) -> None:
    _write_atomic(out_dir / PROFILE, result.model_dump_json(indent=2))


async def _profile(model: ChatModel, sessions: list[Session], out_dir: Path) -> steps.ProfileResult:
    result = saved_profile(out_dir)
    if result is None:
        result = await build_profile(model, sessions)
        save_profile(out_dir, result)
    return result


async def answer_record(chat: ChatModel, inst: TaskInstance, profile: str, game: str | None = None,
                        baseline: list[str] | None = None) -> tuple[dict[str, Any], Usage | None]:
    """Ask, score and describe one instance: ``(the results.jsonl record, its usage or None when it failed)``.

    A model failure (server down, bad key) is kept in the record's ``error``; a re-run retries it.
    """
    record: dict[str, Any] = {"id": inst.id, "task": inst.task, "setting": inst.setting, "session": inst.session, "subject_role": inst.subject_role, "mission": inst.mission}
    try:
        parsed = await answer(chat, inst, profile, game)
        value = parsed.value.model_dump() if parsed.value is not None else None
        record.update(raw=parsed.raw, answer=value, parse_ok=parsed.parse_ok, parse_error=parsed.error, usage=parsed.usage.model_dump(), error=None)
        record["score"] = score(inst, value, baseline=baseline)
        return record, parsed.usage
    except VgmError as exc:
        record.update(error=str(exc), score=None)
        return record, None


async def run_chain(items: list[TaskInstance], done: dict[str, dict[str, Any]], ask: Callable[[TaskInstance, str], Any]) -> None:
    """Rounds of one game in order, each seeing the model's own summary of the rounds before.

    ``ask(inst, game)`` answers one round and returns its record; rounds already answered in
    ``done`` are not asked again, and a failed round ends the chain (a re-run continues from it).
    """
    previous = ""
    for inst in sorted(items, key=lambda i: i.mission or 0):
        record = done.get(inst.id) if inst.id in done and not done[inst.id].get("error") else None
        if record is None:
            game = steps.chained_game(summary=previous, round_text=inst.fields["round_text"], mission=inst.mission or 1)
            record = await ask(inst, game)
            if record.get("error"):
                return  # later rounds need this summary; a re-run continues from here
        previous = str((record.get("answer") or {}).get("summary") or "")


def baselines_for(todo: list[TaskInstance], sessions: list[Session], embedder: Embedder | None) -> dict[str, list[str]]:
    """The similarity baseline's ranking per session that a player-identification instance in ``todo`` needs."""
    baselines: dict[str, list[str]] = {}
    by_id = {s.id: s for s in sessions}
    for inst in todo:
        if inst.task == "player_identification" and inst.session not in baselines:
            baselines[inst.session] = similarity_ranking(by_id[inst.session], embedder)[0]
    return baselines


def chains_of(instances: list[TaskInstance]) -> list[list[TaskInstance]]:
    """The round-by-round chains of ``--dynamic summary``: one per (task, setting, game), dynamic tasks only."""
    chains: dict[tuple, list[TaskInstance]] = {}
    for inst in instances:
        if inst.task in DYNAMIC:
            chains.setdefault((inst.task, inst.setting, inst.session), []).append(inst)
    return list(chains.values())


async def answer(model: ChatModel, instance: TaskInstance, profile: str, game: str | None = None):
    """Ask the model one instance; returns the ``Parsed`` answer. ``game`` replaces the shown log (chained runs)."""
    f = dict(instance.fields)
    if game is not None:
        f["game"] = game
    if instance.task == "player_identification":
        return await steps.rank_players(model, profile=profile, game=f["game"], candidates=f["candidates"])
    if instance.task == "reflection_alignment":
        return await steps.fill_reflection(model, profile=profile, game=f["game"], seat=f["seat"], role=f["role"], roles=f["roles"], masked=f["masked"], keys=f["keys"])
    if instance.task == "trace_attribution":
        return await steps.fill_trace(
            model, profile=profile, game=f["game"], seat=f["seat"], role=f["role"], knowledge=f["knowledge"], mission=f["mission"], prior=f["prior"], masked=f["masked"], keys=f["keys"]
        )
    return await steps.infer_roles(model, profile=profile, game=f["game"], perspective=f["perspective"], ask=f["ask"], mission=f["mission"])


def _check_config(out_dir: Path, config: RunConfig) -> None:
    path = out_dir / CONFIG
    if path.exists():
        old = read_model_file(path, RunConfig, what="run config")
        if (old.model, old.mask_policy, old.dynamic) != (config.model, config.mask_policy, config.dynamic):
            raise VgmError(
                f"{out_dir} holds a run with model {old.model!r}, mask policy {old.mask_policy!r}, dynamic context {old.dynamic!r}; use a new -o folder to compare another setting"
            )
        config.tasks = sorted(set(old.tasks) | set(config.tasks), key=TASKS.index)
    _write_atomic(path, config.model_dump_json(indent=2))


def prepare_run(
    data: str | Path, out_dir: str | Path, *, tasks: str | list[str] | None = "all", mask_policy: str = "seats",
    concurrency: int = 2, limit: int | None = None, profile: str | None = None, dynamic: str = "full",
    settings: list[str] | None = None,
) -> tuple[list[str], list[Session], list[TaskInstance]]:
    """Every option checked, the sessions read and the instances built; writes counts.json (and a given profile).

    Returns ``(tasks, sessions, instances)``; no model is needed (``run_inmind`` and the cluster driver share it).
    """
    if dynamic not in ("full", "summary"):
        raise VgmError(f"dynamic context {dynamic!r}: use full or summary")
    if mask_policy not in ("seats", "paper"):
        raise VgmError(f"mask policy {mask_policy!r}: use --mask seats or --mask paper")
    if limit is not None and limit < 1:
        raise VgmError(f"--limit {limit}: give 1 or more instances per task setting (or leave it out for all)")
    if concurrency < 1:
        raise VgmError(f"--concurrency {concurrency}: give 1 or more")
    if Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise VgmError(f"-o {out_dir} is a file; give a folder for the run (it is created if missing)")
    chosen = parse_tasks(tasks)
    sessions = load_sessions(data)
    instances, counts = build_tasks(sessions, chosen, policy=mask_policy)
    if settings:
        known = {s for task in chosen for s in SETTINGS[task]}
        unknown = [s for s in settings if s not in known]
        if unknown:
            raise VgmError(f"unknown setting {unknown[0]!r} for these tasks; choose from {', '.join(sorted(known))}")
        instances = [i for i in instances if i.setting in settings]
    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VgmError(f"cannot create the run folder {out_dir} ({exc.strerror or exc}); give a writable -o folder") from None
    _write_atomic(Path(out_dir) / COUNTS, counts.model_dump_json(indent=2))
    if limit is not None:
        kept, per_task = [], {}
        for inst in instances:
            key = (inst.task, inst.setting)
            per_task[key] = per_task.get(key, 0) + 1
            if per_task[key] <= limit:
                kept.append(inst)
        instances = kept
    if profile is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        given = Path(out_dir) / PROFILE
        if not given.is_file():
            _write_atomic(given, steps.ProfileResult(profile=profile, history=[profile]).model_dump_json(indent=2))
    return chosen, sessions, instances


async def run_inmind(
    data: str | Path,
    out_dir: str | Path,
    *,
    model: str | ChatModel = "local",
    tasks: str | list[str] | None = "all",
    mask_policy: str = "seats",
    concurrency: int = 2,
    limit: int | None = None,
    embedder: Embedder | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    profile: str | None = None,
    dynamic: str = "full",
    settings: list[str] | None = None,
) -> RunSummary:
    """Stage 1 then Stage 2 over ``data``; answers appended to ``out_dir/results.jsonl``.

    ``limit`` keeps the first N instances of each task setting (for a quick look); ``on_progress(done, total)``
    is called after each instance. ``profile`` (text) replaces Stage 1, e.g. a profile written by
    hand or by another model; without it the profile is built from the observer sessions.
    ``settings`` keeps only those settings / modes (e.g. ``["A", "with_traces"]``).
    ``dynamic="summary"`` runs trace attribution and role inference round by round per game, each
    round seeing the model's own summary of the earlier rounds (limited memory) instead of the log.
    """
    chosen, sessions, instances = prepare_run(data, out_dir, tasks=tasks, mask_policy=mask_policy, concurrency=concurrency, limit=limit,
                                              profile=profile, dynamic=dynamic, settings=settings)
    async with _opened(model) as chat:
        config = RunConfig(data=str(data), tasks=chosen, model=model if isinstance(model, str) else getattr(chat, "name", "model"), mask_policy=mask_policy, limit=limit, dynamic=dynamic)
        return await _run(chat, config, sessions, instances, Path(out_dir), concurrency=concurrency, embedder=embedder, on_progress=on_progress)


@asynccontextmanager
async def _opened(model: str | ChatModel):
    """A model from its string, closed afterwards (a local server this run started stops); a given model is left open."""
    if not isinstance(model, str):
        yield model
        return
    chat = get_model(model)
    try:
        yield chat
    finally:
        from eval.moe.runner import close_model

        await close_model(chat)


async def _run(
    chat: ChatModel,
    config: RunConfig,
    sessions: list[Session],
    instances: list[TaskInstance],
    out: Path,
    *,
    concurrency: int,
    embedder: Embedder | None,
    on_progress: Callable[[int, int], None] | None,
) -> RunSummary:
    out.mkdir(parents=True, exist_ok=True)
    _check_config(out, config)

    summary = RunSummary(out_dir=str(out))
    done = read_results(out)
    todo = [i for i in instances if i.id not in done or done[i.id].get("error")]
    summary.skipped = len(instances) - len(todo)
    if not todo:
        return summary

    profile = await _profile(chat, sessions, out)
    summary.usage = summary.usage + profile.usage
    baselines = baselines_for(todo, sessions, embedder)

    gate = asyncio.Semaphore(max(1, concurrency))
    lock = asyncio.Lock()
    results_path = out / RESULTS
    if results_path.is_file() and not results_path.read_bytes().endswith(b"\n") and results_path.stat().st_size:
        with results_path.open("a", encoding="utf-8") as fh:
            fh.write("\n")  # a line cut by a crash stays alone on its line; new records start clean
    finished = 0

    async def one(inst: TaskInstance, game: str | None = None) -> dict[str, Any] | None:
        """Ask, score and log one instance; returns the record (None answer when it failed)."""
        nonlocal finished
        async with gate:
            record, usage = await answer_record(chat, inst, profile.profile, game, baselines.get(inst.session))
            if usage is not None:
                summary.usage = summary.usage + usage
                summary.done += 1
            else:
                summary.failed += 1
            async with lock:
                with results_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                finished += 1
                if on_progress:
                    on_progress(finished, len(todo))
        return record

    if config.dynamic == "summary":
        jobs = [run_chain(items, done, one) for items in chains_of(instances)]
        jobs += [one(i) for i in todo if i.task not in DYNAMIC]
    else:
        jobs = [one(i) for i in todo]
    await asyncio.gather(*jobs)
    return summary


def count_tasks(data: str | Path, tasks: str | list[str] | None = "all", *, mask_policy: str = "seats") -> dict[str, Any]:
    """``vgm inmind tasks``: build every chosen task's instances (no model) and return the counts."""
    if mask_policy not in ("seats", "paper"):
        raise VgmError(f"mask policy {mask_policy!r}: use --mask seats or --mask paper")
    sessions = load_sessions(data)
    _, report = build_tasks(sessions, parse_tasks(tasks), policy=mask_policy)
    return report.model_dump()


async def profile_only(data: str | Path, *, model: str | ChatModel = "local") -> steps.ProfileResult:
    """Stage 1 alone: the profile built from the observer sessions under ``data``."""
    observers = [s for s in load_sessions(data) if s.mode == "observer"]
    if not observers:
        raise VgmError(f"{data}: no observer-mode session; Stage 1 needs N-observer.json files (or traces marked mode observer)")
    async with _opened(model) as chat:
        return await steps.build_profile(chat, [observer_text(s, i + 1) for i, s in enumerate(observers)])
