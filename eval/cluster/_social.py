"""``vgm avalon|mafia simulate --cluster ray`` and ``vgm mafia fork --cluster ray``: one game (or fork) per shard.

A worker plays its game with the log, snapshots and probe answers written to a private
temporary folder, then sends those files back with the result. The driver writes them into
the output folder (the log last, whole, by rename: a game is finished in the folder exactly
when its log is) and appends the result line, so a resume skips exactly the games whose logs
are there, as on one machine.
"""
from __future__ import annotations

import asyncio
import copy
import json
import math
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rulesets import write_atomic
from gm.games import check_simulate, engine_class
from gm.social.runner import batch_report, finished_games, game_id, last_snapshot, log_folder, new_game

from ._connect import connect
from ._models import Resources, close_worker_model, open_worker_model, plan_model
from ._options import ClusterError, ClusterSpec
from ._stream import Display, Item, Shard, run_shards


def _write_file(folder: Path, name: str, data: bytes, *, append: bool = False) -> None:
    """A file the worker made, into the output folder: appended, or whole by rename."""
    path = folder / name
    if append and path.is_file():
        with path.open("ab") as handle:
            handle.write(data)
        return
    write_atomic(path, data)


def _save_files(folder: Path, files: dict[str, bytes], log_name: str, *, append_snapshots: bool = False) -> None:
    """Probe answers and snapshots first, the game log last (it marks the game finished)."""
    for name, data in sorted(files.items()):
        if name != log_name:
            _write_file(folder, name, data, append=append_snapshots and name.endswith(".snapshots.jsonl"))
    if log_name in files:
        _write_file(folder, log_name, files[log_name])


def _collect(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _model_names(specs: list[Any], model: str | None) -> list[str]:
    return list(dict.fromkeys(s.arg or model or "local" for s in specs if s.kind == "llm"))


def _probe_set(probes: str | None) -> tuple[Any, bool]:
    if probes is None:
        return None, False
    from pipelines.probes import load_probe_set

    batched = probes.endswith(":batched")
    return load_probe_set(probes.removesuffix(":batched")), batched  # a bad set fails here, before any game


def position(rnd: int, seq: float) -> tuple[int, float]:
    """Where an event sits in a game (as ``eval.beliefs`` orders them: a negative seq is the end of its round)."""
    return (int(rnd), math.inf if seq is not None and seq < 0 else float(seq))


def _raise_failures(failures: list[str], what: str) -> None:
    if failures:
        first = failures[0]
        raise ClusterError(f"{len(failures)} {what} failed on the cluster after every retry (first: {first}); "
                           f"the others are saved, rerun the same command to play the rest")


# ---- simulate ------------------------------------------------------------------------------------

def simulate(
    engine: str, *, spec: ClusterSpec, games: int = 100, seats: str = "scripted", players: int | None = None,
    out: str | Path | None = None, seed: int = 0, model: str | None = None, options: dict[str, Any] | None = None,
    names: list[str] | None = None, snapshots: bool = False, concurrency: int = 1, max_tokens: int = 200,
    probes: str | None = None, probe_model: str | None = None, display: Display | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None, show_progress: bool = False, transient: bool = False,
) -> dict[str, Any]:
    """``gm.games.simulate`` with each game a shard on the cluster; returns the same report.

    ``probes``/``probe_model`` attach the probe engine to every game (as ``--probes`` does);
    ``show_progress`` draws bars for shards and games on stderr.
    """
    if show_progress:
        from ._progress import ClusterProgress

        with ClusterProgress(transient=transient) as bars:
            started: list[bool] = []

            def count(result: dict[str, Any]) -> None:
                if not started:
                    bars.start("games", games, 0)
                    started.append(True)
                bars.count("games")

            return simulate(engine, spec=spec, games=games, seats=seats, players=players, out=out, seed=seed, model=model,
                            options=options, names=names, snapshots=snapshots, concurrency=concurrency, max_tokens=max_tokens,
                            probes=probes, probe_model=probe_model, display=bars, progress=count)
    n, specs = check_simulate(engine, games=games, seats=seats, players=players, out=out, seed=seed, options=options,
                              names=names, concurrency=concurrency, max_tokens=max_tokens)
    _probe_set(probes)
    connect(spec)
    resources = Resources(spec)
    plans = {name: plan_model(name, resources) for name in _model_names(specs, model)}
    if probes is not None and probe_model:
        plans.setdefault(probe_model, plan_model(probe_model, resources))
    folder = log_folder(out)
    results, todo = finished_games(engine, folder, games, seed)
    if progress:
        for result in results:
            progress(result)
    common = {"engine": engine, "specs": specs, "seed": seed, "model": model, "names": names, "options": options,
              "snapshots": snapshots, "max_tokens": max_tokens, "plans": plans, "probes": probes,
              "probe_model": probe_model, "logged": folder is not None}
    lasts = {}
    for i in todo:
        log = folder / f"{game_id(engine, seed, i)}.jsonl" if folder else None
        lasts[i] = last_snapshot(log) if (log and snapshots) else None
    shards = [Shard(name=game_id(engine, seed, i), keys=[game_id(engine, seed, i)],
                    payload=lambda keys, i=i: {"i": i, "last": lasts[i]}) for i in todo]
    resumed = {game_id(engine, seed, i) for i in todo if lasts[i] is not None}

    def on_item(shard: Shard, item: Item) -> None:
        resources.write_rows(item.rows)
        result, files = item.value["result"], item.value["files"]
        if folder:
            _save_files(folder, files, f"{item.key}.jsonl", append_snapshots=item.key in resumed)
            with (folder / "results.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(result, ensure_ascii=False) + "\n")
        results.append(result)
        if progress:
            progress(result)

    failures = run_shards(game_shard, shards, common, spec=spec, on_item=on_item,
                          on_failed=lambda shard, key, reason: None, display=display)
    report = batch_report(engine, n, seats, folder, results)
    _raise_failures(failures, "games")
    return report


def game_shard(common: dict[str, Any], payload: dict[str, Any], keys: list[str]) -> Iterator[Item]:
    """One game on a worker, its files in a private folder, sent back whole when it ends."""
    engine, i = common["engine"], payload["i"]
    work = Path(tempfile.mkdtemp(prefix="vgm-game-"))
    try:
        models, caches = _open_models(common["plans"])
        log = work / f"{keys[0]}.jsonl" if common["logged"] else None
        game = new_game(engine_class(engine), engine, i, common["specs"], seed=common["seed"], log=log, models=models,
                        model=common["model"], names=common["names"], options=common["options"],
                        snapshots=common["snapshots"], max_tokens=common["max_tokens"], last=payload["last"])
        runner = _attach(game, common, models, work if log else None)
        result = _play(game, runner, models)
        rows = [row for cache in caches for row in cache.drain()]
        yield Item(key=keys[0], value={"result": result, "files": _collect(work)}, rows=rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _open_models(plans: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    models, caches = {}, []
    for name, plan in plans.items():
        models[name], cache = open_worker_model(plan)
        if cache is not None:
            caches.append(cache)
    return models, caches


def _attach(game: Any, common: dict[str, Any], models: dict[str, Any], folder: Path | None) -> Any:
    """Probes, as the CLI's hook attaches them (answers beside the log)."""
    if common["probes"] is None:
        return None
    from pipelines.probes import attach_probes, load_probe_set

    spec = common["probes"]
    probe_set = load_probe_set(spec.removesuffix(":batched"))
    model = models.get(common["probe_model"]) if common["probe_model"] else None
    path = folder / f"{game.game_id}.probes.jsonl" if folder else None
    return attach_probes(game, probe_set, model, path, batched=spec.endswith(":batched"))


def _play(game: Any, runner: Any, models: dict[str, Any]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        try:
            return await game.run()
        finally:
            if runner is not None:
                runner.close()
            for model in models.values():
                await close_worker_model(model)

    return asyncio.run(go())


# ---- fork ----------------------------------------------------------------------------------------

def fork(
    log: str | Path, at: tuple[int, int], n: int = 5, *, spec: ClusterSpec, out_dir: str | Path | None = None,
    before: bool = False, probes: str | None = None, model: str | None = None, seed: int = 1, display: Display | None = None,
    show_progress: bool = False, transient: bool = False,
) -> dict[str, Any]:
    """``eval.beliefs.fork_game`` with each fork a shard on the cluster; returns the same report."""
    if show_progress:
        from ._progress import ClusterProgress

        with ClusterProgress(transient=transient, label="forks") as bars:
            return fork(log, at, n, spec=spec, out_dir=out_dir, before=before, probes=probes, model=model, seed=seed, display=bars)
    from eval.beliefs import ForkError, find_snapshot

    if n < 1:
        raise ForkError(f"--n {n}: give 1 or more re-simulations")
    log = Path(log)
    key, snap = find_snapshot(log, at, before=before)
    engine_class(snap.get("engine", ""))
    if probes:
        from pipelines.probes import load_probe_set

        load_probe_set(str(probes).removesuffix(":batched"))
    out_dir = Path(out_dir) if out_dir else log.parent / "forks"
    out_dir.mkdir(parents=True, exist_ok=True)
    connect(spec)
    resources = Resources(spec)
    recorded = list(dict.fromkeys(s.get("model") or "local" for s in snap["seats"] if s.get("kind") == "llm"))
    if model:
        shared = plan_model(model, resources)
        plans = {name: shared for name in recorded}
    else:
        plans = {name: plan_model(name, resources) for name in recorded}
    parent = snap["game_id"]
    arm = "pre" if before else "post"
    ids = [f"{parent}-fork{key[0]}.{key[1]}{'pre' if before else ''}-{i}" for i in range(n)]
    common = {"snap": snap, "key": list(key), "arm": arm, "parent": parent, "parent_log": str(log), "probes": probes, "plans": plans}
    shards = [Shard(name=fork_id, keys=[fork_id], payload=lambda keys, i=i: {"i": i, "reseed": seed + i}) for i, fork_id in enumerate(ids)]
    found: dict[str, dict[str, Any]] = {}

    def on_item(shard: Shard, item: Item) -> None:
        resources.write_rows(item.rows)
        _save_files(out_dir, item.value["files"], f"{item.key}.jsonl")
        fork = item.value["fork"]
        found[item.key] = {"game_id": fork["game_id"], "log": str(out_dir / f"{item.key}.jsonl"), "winner": fork["winner"],
                           "rounds": fork["rounds"], "first_elimination": fork["first_elimination"]}

    failures = run_shards(fork_shard, shards, common, spec=spec, on_item=on_item, on_failed=lambda shard, k, reason: None,
                          display=display)
    _raise_failures(failures, "forks")
    forks = [found[i] for i in ids]
    winners = Counter(str(f["winner"]) for f in forks)
    firsts = Counter(str(f["first_elimination"]) for f in forks)
    return {
        "parent": parent, "log": str(log), "at": list(key), "arm": arm, "n": n,
        "winners": {k: v / n for k, v in winners.most_common()},
        "first_elimination": {k: v / n for k, v in firsts.most_common()},
        "forks": forks,
    }


def fork_shard(common: dict[str, Any], payload: dict[str, Any], keys: list[str]) -> Iterator[Item]:
    """One fork on a worker: restore the snapshot, reseed, play on; files sent back whole."""
    snap, key, fork_id = common["snap"], tuple(common["key"]), keys[0]
    work = Path(tempfile.mkdtemp(prefix="vgm-fork-"))
    try:
        models, caches = _open_models(common["plans"])
        path = work / f"{fork_id}.jsonl"
        cls = engine_class(snap.get("engine", ""))
        game = cls.restore(copy.deepcopy(snap), log_path=path, game_id=fork_id, reseed=payload["reseed"], snapshots=True, models=models or None)
        game.log.append({"game_id": fork_id, "round": key[0], "public_msg_seq": key[1], "kind": "fork", "private": True,
                         "to": [], "parent": common["parent"], "parent_log": common["parent_log"], "at": list(key),
                         "arm": common["arm"], "reseed": payload["reseed"]})
        runner = None
        if common["probes"]:
            from pipelines.probes import attach_probes

            runner = attach_probes(game, common["probes"], None, path.with_name(f"{fork_id}.probes.jsonl"))
        result = _play(game, runner, models)
        eliminated = [e.get("player") for e in game.log.events
                      if e.get("kind") == "elimination" and position(e["round"], e["public_msg_seq"]) > position(*key)]
        fork = {"game_id": fork_id, "winner": result.get("winner"), "rounds": result.get("rounds"),
                "first_elimination": eliminated[0] if eliminated else None}
        rows = [row for cache in caches for row in cache.drain()]
        yield Item(key=fork_id, value={"fork": fork, "files": _collect(work)}, rows=rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
