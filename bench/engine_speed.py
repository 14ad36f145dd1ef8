"""Scripted-seat games per second for the Avalon and Mafia engines, on one core.

    python bench/engine_speed.py [--seconds 2]

Times are CPU seconds of this process (``time.process_time``), so a busy machine does not
hide the engine's own cost. Games run inside one event loop (as ``vgm … simulate`` does); the "play()" row pays one
``asyncio.run`` per game, the cost of calling ``game.play()`` in a Python loop.
Target: at least 1,000 Avalon games/s.
"""
from __future__ import annotations

import argparse
import asyncio
import time

from rich.console import Console
from rich.table import Table

from gm.avalon import AvalonGame
from gm.mafia import MafiaGame
from gm.social import ScriptedSeat


def _batch(cls, n: int, style: str, options: dict, seconds: float) -> tuple[int, float, int]:
    async def run() -> tuple[int, int]:
        games = events = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            g = cls([ScriptedSeat(style) for _ in range(n)], seed=games, options=options)
            await g.run()
            games += 1
            events += len(g.log.events)
        return games, events

    start = time.process_time()
    games, events = asyncio.run(run())
    return games, time.process_time() - start, events


def _play_loop(cls, n: int, style: str, options: dict, seconds: float) -> tuple[int, float, int]:
    games = events = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        g = cls([ScriptedSeat(style) for _ in range(n)], seed=games, options=options)
        g.play()
        games += 1
        events += len(g.log.events)
    return games, time.process_time() - start, events


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per row")
    args = ap.parse_args()
    rows = [
        ("avalon", AvalonGame, 6, "random", {}, _batch),
        ("avalon", AvalonGame, 6, "heuristic", {}, _batch),
        ("avalon", AvalonGame, 6, "random", {"discussion": False}, _batch),
        ("avalon", AvalonGame, 10, "random", {}, _batch),
        ("avalon", AvalonGame, 6, "random", {}, _play_loop),
        ("mafia", MafiaGame, 7, "random", {}, _batch),
        ("mafia", MafiaGame, 7, "heuristic", {"extra_roles": ["sheriff"]}, _batch),
        ("mafia", MafiaGame, 12, "random", {}, _batch),
        ("mafia", MafiaGame, 7, "random", {}, _play_loop),
    ]
    table = Table(title=f"scripted-seat engine speed (one core, {args.seconds:g} s per row)")
    for col in ("game", "players", "seats", "options", "loop", "games/s", "events/game"):
        table.add_column(col, justify="right" if col in ("players", "games/s", "events/game") else "left")
    for name, cls, n, style, opts, how in rows:
        games, secs, events = how(cls, n, style, opts, args.seconds)
        table.add_row(name, str(n), style, ",".join(f"{k}={v}" for k, v in opts.items()) or "defaults",
                      "one loop" if how is _batch else "play()", f"{games / secs:,.0f}", f"{events / games:.0f}")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
