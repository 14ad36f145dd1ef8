"""What running games needs, whatever the game: batches resumed from their logs, a game at the terminal.

``gm.games.simulate`` (a batch) and ``gm.games.play`` (a person in one seat) are built from
these pieces; this module names no game, so every engine can build on ``gm.social``. A batch writes one ``<game_id>.jsonl`` log per game and one line per finished game to
``results.jsonl`` as it goes; run it again with the same folder and seed and it skips the
games already finished. With ``snapshots=True`` an unfinished game continues from its last
step; without, it is played again from the start.
"""
from __future__ import annotations

import asyncio
import json
import signal
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from rulesets import FileProblem, VgmError, read_jsonl

from .events import read_log
from .game import SocialGame
from .seats import ScriptedSeat, SeatSpec, build_seats


def _finished(path: Path) -> dict[str, Any] | None:
    """The ``game_over`` event of a finished log, else None (a missing or cut-off log)."""
    if not path.is_file():
        return None
    try:
        events = read_log(path)
    except VgmError:
        return None
    return next((e for e in reversed(events) if e["kind"] == "game_over"), None)


def last_snapshot(log: Path) -> dict[str, Any] | None:
    """The last complete snapshot of an unfinished game (a torn last line is skipped)."""
    path = log.with_suffix(".snapshots.jsonl")
    if not path.is_file():
        return None
    last = None
    try:
        for row in read_jsonl(path, what="snapshot log", on_torn="ignore"):
            if not isinstance(row.get("snapshot"), dict):
                break
            last = row["snapshot"]
    except FileProblem:
        pass  # a damaged line: continue from the last good snapshot before it
    return last


def check_options(cls: type[SocialGame], n: int, *, names: list[str] | None, seed: int, options: dict[str, Any] | None,
                  max_tokens: int) -> None:
    """Every rule option, the player count and the names, checked on a throw-away game before anything is written."""
    if max_tokens < 1:
        raise VgmError(f"--max-tokens {max_tokens}: give 1 or more")
    if n < 1:
        raise VgmError(f"--players {n}: give a player count the game allows")
    cls([ScriptedSeat() for _ in range(n)], names=names, seed=seed, options=options)


def log_folder(out: str | Path | None, *, create: bool = True) -> Path | None:
    """The log folder: an existing file there, or a folder that cannot be made or written, is one
    line, said before any game is played (a long game must not be lost at its first write)."""
    if not out:
        return None
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise VgmError(f"-o {folder} is a file; give a folder for the game logs")
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise VgmError(f"cannot create the log folder {folder} ({exc.strerror or exc}); give a writable -o folder") from None
    if folder.is_dir():
        try:  # a real write, not os.access: that says yes to root on a read-only mount
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as exc:
            raise VgmError(f"cannot write in the log folder {folder} ({exc.strerror or exc}); give a writable -o folder") from None
    return folder


def win_table(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Win counts and rates with 95% Wilson intervals (scipy), and how games ended."""
    from scipy.stats import binomtest  # lazy: scipy is slow to import and only the summary needs it

    n = len(results)
    wins = Counter(r["winner"] for r in results)
    rows = []
    for side, k in sorted(wins.items(), key=lambda kv: -kv[1]):
        ci = binomtest(k, n).proportion_ci(method="wilson") if n else None
        rows.append({"winner": side, "games": k, "rate": k / n if n else 0.0,
                     "ci95": [round(ci.low, 4), round(ci.high, 4)] if ci else None})
    reasons = Counter(r["reason"] for r in results)
    return {"games": n, "wins": rows, "reasons": dict(reasons.most_common()),
            "mean_rounds": round(sum(r["rounds"] for r in results) / n, 3) if n else 0.0}


def game_id(engine: str, seed: int, i: int) -> str:
    """The id (and log file stem) of game ``i`` of a batch that starts at ``seed``."""
    return f"{engine}-{seed + i:06d}"


def finished_games(engine: str, folder: Path | None, games: int, seed: int) -> tuple[list[dict[str, Any]], list[int]]:
    """``(results of the games already finished in folder, indices of the games still to play)``."""
    results: list[dict[str, Any]] = []
    todo: list[int] = []
    for i in range(games):
        gid = game_id(engine, seed, i)
        done = _finished(folder / f"{gid}.jsonl") if folder else None
        if done is not None:
            results.append({"game_id": gid, "engine": engine, "seed": seed + i, "winner": done["winner"],
                            "reason": done["reason"], "rounds": done["round"], "roles": done.get("roles", {}), "resumed": True})
        else:
            todo.append(i)
    return results, todo


def new_game(cls: type[SocialGame], engine: str, i: int, specs: list[SeatSpec], *, seed: int, log: Path | None,
             models: dict[str, Any], model: str | None = None, names: list[str] | None = None,
             options: dict[str, Any] | None = None, snapshots: bool = False, max_tokens: int = 200,
             last: dict[str, Any] | None = None) -> SocialGame:
    """Game ``i`` of a batch, ready to run: continued from ``last`` (its last snapshot) when given, else dealt afresh."""
    seats_now = build_seats(specs, default_model=model, models=models, max_tokens=max_tokens)
    if last is not None:  # an unfinished game with snapshots: continue from its last step
        return cls.restore(last, seats=seats_now, log_path=log, snapshots=True)
    return cls(seats_now, names=names, seed=seed + i, game_id=game_id(engine, seed, i), log_path=log,
               snapshots=snapshots, options=options)


def play_games(todo: list[int], one, concurrency: int = 1) -> list[dict[str, Any]]:
    """Run ``await one(i)`` for each game index, at most ``concurrency`` at a time; results in ``todo`` order."""

    async def run_all() -> list[dict[str, Any]]:
        if concurrency <= 1:
            return [await one(i) for i in todo]
        gate = asyncio.Semaphore(concurrency)

        async def gated(i: int) -> dict[str, Any]:
            async with gate:
                return await one(i)

        return list(await asyncio.gather(*(gated(i) for i in todo)))

    return asyncio.run(run_all())


def batch_report(engine: str, players: int, seats: str, folder: Path | None, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The win table over ``results`` (sorted by seed, in place); writes ``summary.json`` into ``folder``."""
    results.sort(key=lambda r: r["seed"])
    report = {"engine": engine, "players": players, "seats": seats, "out": str(folder) if folder else None, **win_table(results)}
    report["results"] = results
    if folder:
        (folder / "summary.json").write_text(json.dumps({k: v for k, v in report.items() if k != "results"}, indent=1))
    return report


class GameInterrupted(KeyboardInterrupt):
    """Ctrl-C during a game with a person at the table; ``str()`` says where the log so far is."""


def run_at_the_terminal(game: SocialGame, log: Path | None) -> dict[str, Any]:
    """``game.run()`` where Ctrl-C stops the game at once, even while ``input()`` waits.

    ``asyncio.run`` turns the first Ctrl-C into a task cancellation that a blocking ``input()``
    never sees, and the second into a traceback from its cleanup; here the first one ends the
    game, the log is closed, and further Ctrl-Cs during the cleanup are ignored.
    """
    loop = asyncio.new_event_loop()
    main = loop.create_task(game.run())
    try:
        return loop.run_until_complete(main)
    except KeyboardInterrupt:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:
            pass  # not the main thread
        for _ in range(5):  # a task may re-raise the interrupt of a child it was waiting on
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            if not pending:
                break
            for task in pending:
                task.cancel()
            try:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            except KeyboardInterrupt:
                continue
        if main.done() and not main.cancelled():
            main.exception()  # retrieved: no "Task exception was never retrieved" at exit
        game.log.close()
        where = f"the game log so far is in {log}" if log else "the game was not logged"
        raise GameInterrupted(f"game stopped; {where}") from None
    finally:
        loop.close()
