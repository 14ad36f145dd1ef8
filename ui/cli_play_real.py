"""``vgm play real DIR``: a thin wrapper over ``eval.play.real_bench`` (read the turns, decide them, print the scores)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console()


class _Bar:
    """A rich progress bar fed by ``run_real``'s ``on_progress(done, total)``."""

    def __init__(self) -> None:
        self.progress = Progress(TextColumn("[bold]play real"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)
        self.task: Any = None

    def __enter__(self) -> "_Bar":
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def __call__(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task("play real", total=total, completed=done)
        self.progress.update(self.task, completed=done)


def play_real(
    source: Path = typer.Argument(..., help="A folder of CRD3 episode .json files (or one file), e.g. ../shared/data/crd3."),
    episodes: str | None = typer.Option(None, "--episodes", help="Comma list of episodes (C2E005,C2E010), or test / train: that side of bench/real_split.yaml."),
    pipeline: str = typer.Option("adjudicate", "--pipeline", help="The decision pipeline (a name from `vgm moe pipelines`, or a spec .yaml)."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model string, for a pipeline that asks a model: local, local:small, openai:<m>, scripted:<f>."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Run folder: decisions.jsonl, summary.json, run.json; resumed if it exists."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as one JSON object."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N player turns of each episode (a quick look)."),
) -> None:
    """Score the GM's decision (roll or not, which check, impossible) on every player turn of real
    Critical Role episodes, against what the human DM did next."""
    from eval.play.real import real_turns
    from eval.play.real_bench import PipelineDecider, choose_episodes, real_table, run_real
    from rulesets import VgmError

    if limit is not None and limit < 1:
        raise VgmError(f"--limit {limit}: give a positive number of turns per episode")
    chosen = choose_episodes(source, episodes)
    decider = PipelineDecider(pipeline, model)  # an unknown pipeline or bad model string stops here, before any work
    turns, per_episode = [], {}
    for turn in real_turns(source, episodes=chosen):
        per_episode[turn.episode] = per_episode.get(turn.episode, 0) + 1
        if limit is None or per_episode[turn.episode] <= limit:
            turns.append(turn)
    if not turns:
        raise VgmError(f"{source}: no player turns in the chosen episodes (is MATT the only speaker?)")
    if as_json:
        scores = run_real(turns, decider, out)
        typer.echo(json.dumps(scores.as_json(), ensure_ascii=False))
        return
    with _Bar() as bar:
        scores = run_real(turns, decider, out, on_progress=bar)
    console.print(real_table(scores, title=f"play real — {pipeline}{f' — {model}' if model else ''}"))
    speed, decided = scores.extra.get("turns_per_s"), scores.extra["decided"]
    console.print(f"decided {decided} turn(s) in {scores.extra['seconds']} s" + (f" ({speed} turns/s)" if speed else "")
                  + (f"; {len(turns) - decided} were already in {out}" if decided < len(turns) else ""))
    if scores.errors:
        console.print(f"[red]{scores.errors} turn(s) failed[/] and count as no roll; the first: {escape(scores.extra.get('first_error', ''))}"
                      + (" (a rerun into the same -o decides them again)" if out is not None else ""), highlight=False)
    if out is not None:
        console.print(f"saved {out / 'decisions.jsonl'}, {out / 'summary.json'}")


def register(app: typer.Typer) -> None:
    """No-op: ``vgm play real`` is mounted by ``ui/cli_play.py``, which owns the ``play`` group."""
    return None


__all__ = ["play_real", "register"]
