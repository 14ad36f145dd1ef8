"""The social deduction games the GM moderates, by name: the one registry every command reads.

    from gm.games import GAMES, simulate, play
    GAMES["avalon"].engine                         # AvalonGame; .players 6, .prompts its seat text
    simulate("mafia", games=10, out="runs/mafia")  # a batch, resumed from its logs
    play("avalon", seat=1)                         # you in seat 1, LLM seats elsewhere

A new game is one package beside ``gm/avalon`` (an engine subclassing ``gm.social.SocialGame``
and its ``prompts`` module, the rules in a ``rulesets`` pack) and one line in ``GAMES``. The
engines build on ``gm.social``; this module sits above both, so neither knows the other.
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from rulesets import VgmError

from .avalon import AvalonGame
from .mafia import MafiaGame
from .social import SocialGame
from .social.runner import (batch_report, play_games, check_options, finished_games, game_id, last_snapshot, log_folder,
                            new_game, run_at_the_terminal)
from .social.seats import SeatSpec, build_seats, parse_seats

__all__ = ["Game", "GAMES", "game", "engine_class", "check_simulate", "simulate", "play"]


@dataclass(frozen=True)
class Game:
    """One game the GM can moderate: its engine and the table size it plays by default."""

    name: str
    engine: type[SocialGame]
    players: int  # the default number of seats

    @property
    def prompts(self) -> ModuleType:
        """The engine's seat-facing text (``render``, ``system_prompt``, the questions)."""
        return self.engine.prompts


GAMES: dict[str, Game] = {
    "avalon": Game("avalon", AvalonGame, players=6),
    "mafia": Game("mafia", MafiaGame, players=7),
}


def game(name: str) -> Game:
    """The registry entry of a game, or one line naming the games there are."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise VgmError(f"unknown game {name!r}; use {' or '.join(GAMES)}") from None


def engine_class(name: str) -> type[SocialGame]:
    """The engine of a game by name (``"avalon"`` → ``AvalonGame``)."""
    return game(name).engine


def check_simulate(engine: str, *, games: int = 100, seats: str = "scripted", players: int | None = None,
                   out: str | Path | None = None, seed: int = 0, options: dict[str, Any] | None = None,
                   names: list[str] | None = None, concurrency: int = 1, max_tokens: int = 200) -> tuple[int, list[SeatSpec]]:
    """Every ``simulate`` argument checked before anything is written; returns (players, seat specs)."""
    entry = game(engine)
    if games < 1:
        raise VgmError(f"--games {games}: give 1 or more games")
    if concurrency < 1:
        raise VgmError(f"--concurrency {concurrency}: give 1 or more games at once")
    n = players if players is not None else entry.players
    specs = parse_seats(seats, n)
    if any(s.kind == "human" for s in specs):
        raise VgmError("simulate has no human seats; use `play` to take a seat yourself")
    check_options(entry.engine, n, names=names, seed=seed, options=options, max_tokens=max_tokens)
    log_folder(out, create=False)
    return n, specs


def simulate(
    engine: str,
    *,
    games: int = 100,
    seats: str = "scripted",
    players: int | None = None,
    out: str | Path | None = None,
    seed: int = 0,
    model: str | None = None,
    options: dict[str, Any] | None = None,
    names: list[str] | None = None,
    snapshots: bool = False,
    concurrency: int = 1,
    max_tokens: int = 200,
    on_game: Callable[[SocialGame], None] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games; returns the win table plus every game's result.

    ``on_game(game)`` runs before each game starts (e.g. to attach probes); ``progress(result)``
    after each game ends.
    """
    cls = game(engine).engine
    n, specs = check_simulate(engine, games=games, seats=seats, players=players, out=out, seed=seed, options=options,
                              names=names, concurrency=concurrency, max_tokens=max_tokens)
    folder = log_folder(out)
    models: dict[str, Any] = {}
    results, todo = finished_games(engine, folder, games, seed)
    if progress:
        for result in results:
            progress(result)

    async def one(i: int) -> dict[str, Any]:
        log = folder / f"{game_id(engine, seed, i)}.jsonl" if folder else None
        last = last_snapshot(log) if (log and snapshots) else None
        table = new_game(cls, engine, i, specs, seed=seed, log=log, models=models, model=model, names=names,
                        options=options, snapshots=snapshots, max_tokens=max_tokens, last=last)
        if on_game:
            on_game(table)
        result = await table.run()
        if folder:
            with (folder / "results.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(result, ensure_ascii=False) + "\n")
        if progress:
            progress(result)
        return result

    results.extend(play_games(todo, one, concurrency))
    return batch_report(engine, n, seats, folder, results)


def play(
    engine: str,
    *,
    seat: int | None = None,
    players: int | None = None,
    model: str | None = None,
    others: str | None = None,
    out: str | Path | None = "runs/social",
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    names: list[str] | None = None,
    snapshots: bool = False,
    max_tokens: int = 200,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
    on_game: Callable[[SocialGame], None] | None = None,
) -> dict[str, Any]:
    """One game with a person in ``seat`` (1-based; random when None), LLM seats elsewhere.

    ``others`` overrides the other seats (e.g. ``"scripted"``); the log goes to ``out``.
    """
    entry = game(engine)
    cls = entry.engine
    n = players if players is not None else entry.players
    check_options(cls, n, names=names, seed=0, options=options, max_tokens=max_tokens)
    seed = random.randrange(2**31) if seed is None else seed
    where = (seat - 1) if seat else random.Random(seed).randrange(n)
    if not 0 <= where < n:
        raise VgmError(f"--seat {seat} is outside 1..{n}")
    specs = parse_seats(others if others is not None else "llm", n)
    specs[where] = SeatSpec("human")
    folder = log_folder(out, create=False)
    seats = build_seats(specs, default_model=model, input_fn=input_fn, output_fn=output_fn, max_tokens=max_tokens)
    gid = f"{engine}-play-{seed}"
    table = cls(seats, names=names, seed=seed, game_id=gid, log_path=folder / f"{gid}.jsonl" if folder else None,
               snapshots=snapshots, options=options)
    if on_game:
        on_game(table)
    log = folder / f"{gid}.jsonl" if folder else None
    result = run_at_the_terminal(table, log)
    human = seats[where]
    human.show_news()  # the last events (vote, result, game over) the person has not seen yet
    result["you"] = table.names[where]
    result["your_role"] = table.roles[table.names[where]]
    result["log"] = str(folder / f"{gid}.jsonl") if folder else None
    return result
