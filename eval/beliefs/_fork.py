"""Counterfactual replay: re-simulate a recorded game N times from one step and tally the outcomes.

Needs a game recorded with snapshots (``<game>.snapshots.jsonl`` beside ``<game>.jsonl``). Each
fork is an ordinary game log ``<out>/<game>-fork<i>.jsonl`` whose first private record names its
parent and branch point, so forks can be scored, listed and forked again like any game.
"""
from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

import pipelines.llm as llm  # get_model is looked up per call, so a caller or a test may swap it
from gm.games import GAMES
from pipelines.probes import attach_probes, load_probe_set
from rulesets import VgmError, read_jsonl

from ._data import position


class ForkError(VgmError):
    """A log that cannot be forked (no snapshots, step out of range)."""


def snapshot_path(log: Path) -> Path:
    return log.with_suffix(".snapshots.jsonl")


def find_snapshot(log: str | Path, at: tuple[int, int], *, before: bool = False) -> tuple[tuple[int, int], dict[str, Any]]:
    """The snapshot taken right after step ``at`` (``before=True``: the last one before it)."""
    log = Path(log)
    path = snapshot_path(log)
    if not path.is_file():
        raise ForkError(f"{log}: no snapshots ({path.name}); record the game with snapshots on (vgm mafia simulate --snapshots)")
    best = None
    target = position(*at)
    for lineno, row in read_jsonl(path, what="snapshot log").numbered():  # a torn last snapshot is dropped
        try:
            key = (int(row["key"][0]), int(row["key"][1]))
            if not isinstance(row["snapshot"], dict):
                raise TypeError
        except (KeyError, TypeError, ValueError, IndexError):
            raise ForkError(f"{path}:{lineno}: not a snapshot line ({{'key': [round, seq], 'snapshot': ...}})") from None
        here = position(*key)
        if here < target or (here == target and not before):
            best = (key, row["snapshot"])
    if best is None:
        raise ForkError(f"{log}: no snapshot at or before step {at[0]}.{at[1]}; the first step is later")
    if best[1].get("phase") == "over":
        raise ForkError(f"{log}: the game is already over at step {at[0]}.{at[1]}; fork an earlier step")
    return best


def _engine_class(name: str):
    if name not in GAMES:
        raise ForkError(f"cannot fork a {name!r} game; only {' and '.join(sorted(GAMES))} logs have snapshots")
    return GAMES[name].engine


async def fork_game(
    log: str | Path,
    at: tuple[int, int],
    n: int = 5,
    *,
    out_dir: str | Path | None = None,
    before: bool = False,
    probes: str | Path | None = None,
    model: str | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """Re-simulate ``log`` from step ``at`` ``n`` times; returns the outcome distribution.

    Args:
        before: branch just before ``at`` (the step is re-drawn: the PRE arm) instead of after it.
        probes: a probe set to run in each fork (``cheap`` keeps replays affordable).
        model: replace every LLM seat's model with this model string.
        seed: fork ``i`` draws its future randomness from ``seed + i``.
    """
    if n < 1:
        raise ForkError(f"--n {n}: give 1 or more re-simulations")
    log = Path(log)
    key, snap = find_snapshot(log, at, before=before)
    cls = _engine_class(snap.get("engine", ""))
    batched = isinstance(probes, str) and probes.endswith(":batched")
    probe_set = load_probe_set(probes.removesuffix(":batched") if isinstance(probes, str) else probes) if probes else None
    models: dict[str, Any] = {}
    if model:
        shared = llm.get_model(model)
        models = {s.get("model", ""): shared for s in snap["seats"] if s.get("kind") == "llm"}
    out_dir = Path(out_dir) if out_dir else log.parent / "forks"  # made only once every argument is known to be good
    if out_dir.exists() and not out_dir.is_dir():
        raise ForkError(f"-o {out_dir} is a file; give a folder for the fork logs")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ForkError(f"cannot create {out_dir} ({exc.strerror or exc}); give a writable -o folder") from None
    parent = snap["game_id"]
    forks = []
    for i in range(n):
        fork_id = f"{parent}-fork{key[0]}.{key[1]}{'pre' if before else ''}-{i}"
        path = out_dir / f"{fork_id}.jsonl"
        # a fresh copy per fork: restore() adopts the snapshot's lists as live game state
        game = cls.restore(copy.deepcopy(snap), log_path=path, game_id=fork_id, reseed=seed + i, snapshots=True, models=models or None)
        game.log.append({"game_id": fork_id, "round": key[0], "public_msg_seq": key[1], "kind": "fork", "private": True,
                         "to": [], "parent": parent, "parent_log": str(log), "at": list(key), "arm": "pre" if before else "post",
                         "reseed": seed + i})
        runner = attach_probes(game, probe_set, None, path.with_name(f"{fork_id}.probes.jsonl"), batched=batched) if probe_set else None
        result = await game.run()
        if runner is not None:
            runner.close()
        eliminated = [e.get("player") for e in game.log.events if e.get("kind") == "elimination" and position(e["round"], e["public_msg_seq"]) > position(*key)]
        forks.append({"game_id": fork_id, "log": str(path), "winner": result.get("winner"), "rounds": result.get("rounds"),
                      "first_elimination": eliminated[0] if eliminated else None})
    winners = Counter(str(f["winner"]) for f in forks)
    firsts = Counter(str(f["first_elimination"]) for f in forks)
    return {
        "parent": parent, "log": str(log), "at": list(key), "arm": "pre" if before else "post", "n": n,
        "winners": {k: v / n for k, v in winners.most_common()},
        "first_elimination": {k: v / n for k, v in firsts.most_common()},
        "forks": forks,
    }
