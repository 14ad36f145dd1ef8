"""Play a tournament: every ordered pairing of models on the two sides, the same seeds for each.

A game of pairing (A, B) seats model A in every seat dealt to the open side (village / good)
and model B in every seat of the hidden side (Mafia / evil). The deal of game ``seed + g`` is
drawn once from that seed, so every pairing plays the same deals with the same moderator
randomness; only who sits on which side changes.

The folder holds one ``<game_id>.jsonl`` log per game and ``results.jsonl`` (a line per
finished game). A game is finished when its log ends in ``game_over``: a run killed at any
point is resumed by running the same command, which plays only the games without one.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gm.games import engine_class, game
from gm.social.runner import log_folder
from gm.social.seats import ScriptedSeat, SeatSpec, build_seats
from rulesets import VgmError, read_jsonl

from ._stats import tournament_report

MANIFEST = "tournament.json"


def model_spec(text: str) -> SeatSpec:
    """A model as ``--models`` names it: a seat kind (``scripted:bluff``, ``llm:local:small``) or a bare model string (``local:small``)."""
    text = text.strip()
    if not text:
        raise VgmError("--models has an empty entry; give a comma list such as scripted:heuristic,scripted:bluff,local:small")
    head = text.partition(":")[0].lower()
    if head in ("scripted", "random", "heuristic", "bluff", "llm", "human"):
        spec = SeatSpec.parse(text)
    else:
        spec = SeatSpec("llm", text)
    if spec.kind == "human":
        raise VgmError("--models: a tournament has no human seats; name scripted styles or model strings")
    return spec


def parse_models(text: str | list[str]) -> list[str]:
    """The distinct model names of ``--models`` (at least two), each checked."""
    items = [t.strip() for t in (text.split(",") if isinstance(text, str) else text)]
    models = list(dict.fromkeys(items))
    for m in models:
        spec = model_spec(m)
        if spec.kind == "scripted":
            ScriptedSeat(spec.arg)  # an unknown style is one line now
    if len(models) < 2:
        raise VgmError(f"--models {','.join(models)}: give two or more different models, e.g. scripted:heuristic,scripted:bluff")
    return models


def sides_of(table: Any) -> tuple[str, str]:
    """(open side, hidden side) of a game's table: (village, mafia) or (good, evil)."""
    if hasattr(table, "mafia_team"):
        return table.village_team, table.mafia_team
    return table.good, table.evil


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", model).strip("_") or "model"


@dataclass(frozen=True)
class Match:
    """One game of the tournament: who plays which side, with which seed."""

    open_model: str
    hidden_model: str
    seed: int
    repeat: int
    engine: str

    @property
    def game_id(self) -> str:
        return f"{self.engine}-{_slug(self.open_model)}-vs-{_slug(self.hidden_model)}-{self.seed:06d}"


def schedule(engine: str, models: list[str], games: int, seed: int, repeats: int = 1) -> list[Match]:
    """Every ordered (open, hidden) pairing, self-play included, ``games × repeats`` seeds each.

    Repeat ``r`` plays seeds ``seed + r·games`` … ``seed + (r+1)·games − 1``: a fresh run of the
    same condition, so the spread between repeats says how much a run of ``games`` games varies.
    """
    return [Match(a, b, seed + r * games + g, r, engine)
            for a in models for b in models for r in range(repeats) for g in range(games)]


def new_match_game(m: Match, n: int, options: dict[str, Any] | None, *, log: Path | None, models: dict[str, Any],
                   max_tokens: int = 200):
    """The game of match ``m``: the seed's deal, ``open_model`` on the open side's seats, ``hidden_model`` on the others.

    The deal is the one an ordinary game with that seed draws, read from a throw-away game.
    """
    cls = engine_class(m.engine)
    probe = cls([ScriptedSeat() for _ in range(n)], seed=m.seed, options=options)
    roles = dict(probe.roles)
    open_side, _ = sides_of(probe.table)
    specs = [model_spec(m.open_model if probe.table.team[roles[p]] == open_side else m.hidden_model) for p in probe.names]
    seats = build_seats(specs, models=models, max_tokens=max_tokens)
    return cls(seats, seed=m.seed, game_id=m.game_id, log_path=log, options={**(options or {}), "deal": roles})


def match_result(m: Match, result: dict[str, Any], seat_models: dict[str, str], teams: dict[str, str], open_side: str) -> dict[str, Any]:
    """The result line of a match: who sat where, the winner, and which side won (``open_won``)."""
    return {"game_id": m.game_id, "engine": m.engine, "open_model": m.open_model, "hidden_model": m.hidden_model,
            "seed": m.seed, "repeat": m.repeat, "winner": result.get("winner"), "open_side": open_side,
            "open_won": result.get("winner") == open_side, "reason": result.get("reason"),
            "rounds": result.get("rounds"), "roles": result.get("roles", {}), "teams": teams, "seat_models": seat_models}


def _finished_result(m: Match, log: Path, open_side: str) -> dict[str, Any] | None:
    """The result of a game whose log ends in ``game_over`` (read back from the log), else None."""
    if not log.is_file():
        return None
    setup, over = None, None
    try:
        for row in read_jsonl(log, what="game log", on_torn="ignore"):
            if row.get("kind") == "setup":
                setup = row
            elif row.get("kind") == "game_over":
                over = row
    except VgmError:
        return None
    if setup is None or over is None:
        return None
    seat_models = {p["name"]: model_of(p) for p in setup["players"]}
    teams = {p["name"]: p["team"] for p in setup["players"]}
    return match_result(m, {"winner": over["winner"], "reason": over["reason"], "rounds": over["round"], "roles": over.get("roles", {})},
                        seat_models, teams, open_side)


def play_match(m: Match, n: int, options: dict[str, Any] | None, log: Path | None, models: dict[str, Any],
               max_tokens: int = 200) -> dict[str, Any]:
    """Play one match to the end; its result line."""
    table = new_match_game(m, n, options, log=log, models=models, max_tokens=max_tokens)
    return played_row(m, table, table.play())


def played_row(m: Match, table: Any, result: dict[str, Any]) -> dict[str, Any]:
    """The result line of a match just played on ``table``."""
    seat_models = {p: model_of(table.seats[p].spec()) for p in table.names}
    teams = {p: table.table.team[table.roles[p]] for p in table.names}
    return match_result(m, result, seat_models, teams, sides_of(table.table)[0])


def model_of(spec: dict[str, Any]) -> str:
    """A seat's model as a seat kind (``scripted:bluff``, ``llm:local:small``), from its spec or its setup entry."""
    return f"llm:{spec.get('model', '')}" if spec.get("kind") == "llm" else f"scripted:{spec.get('style', 'heuristic')}"


def _check_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """A folder holds one tournament: rerunning it with other settings is one line, not a mixed report."""
    path = folder / MANIFEST
    if path.is_file():
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError):
            old = None
        if isinstance(old, dict):
            for key in ("engine", "players", "seed", "options"):
                if old.get(key) != manifest.get(key):
                    raise VgmError(f"{folder} holds a tournament with {key} {old.get(key)!r}, not {manifest.get(key)!r}; "
                                   f"give another --out or the same settings to resume")
            manifest = {**manifest, "models": list(dict.fromkeys([*old.get("models", []), *manifest["models"]]))}
    path.write_text(json.dumps(manifest, indent=1))


def _append(folder: Path, row: dict[str, Any]) -> None:
    path = folder / "results.jsonl"
    with path.open("a", encoding="utf-8") as fh:
        if fh.tell() > 0:
            with path.open("rb") as rb:  # a line cut by a kill: start on a fresh line
                rb.seek(-1, 2)
                if rb.read(1) != b"\n":
                    fh.write("\n")
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def check_tournament(engine: str, models: str | list[str], games: int, repeats: int, players: int | None,
                     options: dict[str, Any] | None, out: str | Path | None) -> tuple[list[str], int, tuple[str, str]]:
    """Every argument checked before a file is written; returns (models, players, (open side, hidden side))."""
    entry = game(engine)
    if games < 1:
        raise VgmError(f"--games {games}: give 1 or more games per pairing")
    if repeats < 1:
        raise VgmError(f"--repeats {repeats}: give 1 or more runs of each pairing")
    names = parse_models(models)
    n = players if players is not None else entry.players
    if n < 1:
        raise VgmError(f"--players {n}: give a player count the game allows")
    probe = entry.engine([ScriptedSeat() for _ in range(n)], seed=0, options=options)  # a bad option or count: one line
    log_folder(out, create=False)
    return names, n, sides_of(probe.table)


Runner = Callable[[list[Match], int, dict[str, Any], Path | None, Callable[[dict[str, Any]], None]], None]


def play_locally(todo: list[Match], n: int, common: dict[str, Any], folder: Path | None,
                 done: Callable[[dict[str, Any]], None]) -> None:
    """The games one after another in this process (scripted games take milliseconds)."""
    models: dict[str, Any] = {}
    for m in todo:
        log = folder / f"{m.game_id}.jsonl" if folder else None
        done(play_match(m, n, common["options"], log, models, common["max_tokens"]))


def run_tournament(engine: str, models: str | list[str], *, games: int = 10, seed: int = 0, repeats: int = 1,
                   players: int | None = None, options: dict[str, Any] | None = None, out: str | Path | None = None,
                   max_tokens: int = 200, run_with: Runner | None = None,
                   progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play (or resume) a tournament and return its report (``eval.tournament.tournament_report``).

    Args:
        models: two or more model names (scripted styles or model strings).
        games: games per pairing and repeat; ``repeats`` runs of them with fresh seeds.
        run_with: how to play the games still to play (default: here, in order; ``--cluster ray``
            passes ``eval.cluster.tournament_runner(spec)``).
        progress: called with each result, those read back from the folder first.
    """
    names, n, sides = check_tournament(engine, models, games, repeats, players, options, out)
    folder = log_folder(out)
    plan = schedule(engine, names, games, seed, repeats)
    if folder:
        _check_manifest(folder, {"engine": engine, "players": n, "seed": seed, "options": options or {}, "models": names,
                                 "games": games, "repeats": repeats})
    recorded = _read_results(folder) if folder else {}
    results: dict[str, dict[str, Any]] = {}
    todo: list[Match] = []
    for m in plan:
        row = recorded.get(m.game_id)
        if row is None and folder:
            row = _finished_result(m, folder / f"{m.game_id}.jsonl", sides[0])
            if row is not None:
                _append(folder, row)  # finished, but killed before its result line was written
        if row is not None:
            results[m.game_id] = row
            if progress:
                progress(row)
        else:
            todo.append(m)

    def done(row: dict[str, Any]) -> None:
        if folder:
            _append(folder, row)
        results[row["game_id"]] = row
        if progress:
            progress(row)

    (run_with or play_locally)(todo, n, {"options": options, "max_tokens": max_tokens}, folder, done)
    ordered = [results[m.game_id] for m in plan if m.game_id in results]
    report = tournament_report(engine, names, ordered, sides=sides, games=games, repeats=repeats, seed=seed, players=n)
    report["out"] = str(folder) if folder else None
    if folder:
        (folder / "summary.json").write_text(json.dumps({k: v for k, v in report.items() if k != "results"}, indent=1))
    return report


def _read_results(folder: Path) -> dict[str, dict[str, Any]]:
    path = folder / "results.jsonl"
    if not path.is_file():
        return {}
    reader = read_jsonl(path, what="tournament results", on_torn="ignore", on_bad="skip")
    return {row["game_id"]: row for row in reader if isinstance(row, dict) and "game_id" in row and "winner" in row}
