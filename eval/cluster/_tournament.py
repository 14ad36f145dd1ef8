"""``vgm mafia|avalon tournament --cluster ray``: one match (a game of one pairing) per shard.

As with ``simulate``: the worker plays in a private folder and sends the log back; the driver
writes it whole and appends the result line, so a resume finds exactly the finished matches.
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._connect import connect
from ._models import Resources, plan_model
from ._options import ClusterSpec
from ._social import _collect, _open_models, _play, _raise_failures, _save_files
from ._stream import Item, Shard, run_shards


def tournament_runner(spec: ClusterSpec, display: Any = None):
    """What ``eval.tournament.run_tournament(run_with=...)`` takes to play its matches on ``spec``'s cluster."""

    def run(todo: list[Any], n: int, common: dict[str, Any], folder: Path | None, done: Callable[[dict[str, Any]], None]) -> None:
        from eval.tournament import model_spec

        if not todo:
            return
        connect(spec)
        resources = Resources(spec)
        llm = {model_spec(m).arg or "local" for t in todo for m in (t.open_model, t.hidden_model) if model_spec(m).kind == "llm"}
        plans = {name: plan_model(name, resources) for name in sorted(llm)}
        shared = {**common, "n": n, "plans": plans, "logged": folder is not None}
        shards = [Shard(name=m.game_id, keys=[m.game_id], payload=lambda keys, m=m: {"match": m}) for m in todo]

        def on_item(shard: Shard, item: Item) -> None:
            resources.write_rows(item.rows)
            if folder:
                _save_files(folder, item.value["files"], f"{item.key}.jsonl")
            done(item.value["result"])

        failures = run_shards(match_shard, shards, shared, spec=spec, on_item=on_item,
                              on_failed=lambda shard, key, reason: None, display=display)
        _raise_failures(failures, "games")

    return run


def match_shard(common: dict[str, Any], payload: dict[str, Any], keys: list[str]) -> Iterator[Item]:
    """One match on a worker, its log in a private folder, sent back whole when the game ends."""
    from eval.tournament import new_match_game, played_row

    m = payload["match"]
    work = Path(tempfile.mkdtemp(prefix="vgm-match-"))
    try:
        models, caches = _open_models(common["plans"])
        log = work / f"{keys[0]}.jsonl" if common["logged"] else None
        game = new_match_game(m, common["n"], common["options"], log=log, models=models, max_tokens=common["max_tokens"])
        result = _play(game, None, models)
        row = played_row(m, game, result)
        rows = [r for cache in caches for r in cache.drain()]
        yield Item(key=keys[0], value={"result": row, "files": _collect(work)}, rows=rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
