"""``vgm play eval CASES.yaml``: a thin wrapper over ``eval.play`` (load the cases, run them, print the scores)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console()


class _Bar:
    """A rich progress bar fed by ``run_cases``'s ``on_progress(done, total, record)``."""

    def __init__(self) -> None:
        self.progress = Progress(
            TextColumn("[bold]play eval"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[last]:<28}  errors {task.fields[errors]}"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False,
        )
        self.task: Any = None
        self.errors = 0

    def __enter__(self) -> "_Bar":
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def __call__(self, done: int, total: int, record: dict[str, Any] | None) -> None:
        if self.task is None:
            self.task = self.progress.add_task("play eval", total=total, completed=done, last="", errors=0)
        if record is None:
            return
        self.errors += 1 if record.get("error") else 0
        last = f"{record['id'][:20]} {'error' if record.get('error') else record.get('outcome', '')}"
        self.progress.update(self.task, completed=done, last=last, errors=self.errors)


def play_eval(
    cases: Path = typer.Argument(..., help="Case file (YAML); shipped sets: eval/play/cases/dev.yaml, heldout.yaml."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model string: local, local:small, openai:<m>, scripted:<f>."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Run folder (default runs/play_eval/<cases name>); resumed if it exists."),
    seed: int = typer.Option(7, "--seed", help="Run seed; each case rolls with a seed fixed by this and its id."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N cases."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    allow_errors: bool = typer.Option(False, "--allow-errors", help="Exit 0 even when some cases errored."),
) -> None:
    """Score the GM's judgement on player lines: roll or not, the right check, impossible acts, narration."""
    from eval.play import format_summary, load_cases, run_cases
    from rulesets import VgmError

    from ._outdir import output_folder

    if limit is not None and limit < 1:
        raise VgmError(f"--limit {limit}: give a positive number of cases")
    chosen = load_cases(cases)[:limit] if limit else load_cases(cases)
    folder = out or Path("runs") / "play_eval" / cases.stem
    with output_folder(folder, models=[model]):  # a bad model string is said before run.json is written
        if as_json:
            summary = run_cases(chosen, model, folder, seed=seed)
        else:
            with _Bar() as bar:
                summary = run_cases(chosen, model, folder, seed=seed, on_progress=bar)
    if as_json:
        typer.echo(json.dumps(summary.as_json(), ensure_ascii=False, indent=1))
    else:
        console.print(format_summary(summary, title=f"play eval — {cases.name}{f' — {model}' if model else ''}"))
        if summary.errors:
            console.print(f"[red]{summary.errors} case(s) errored[/]: {', '.join(summary.error_ids[:8])}"
                          f"{' …' if summary.errors > 8 else ''} (see {folder / 'decisions.jsonl'}; a rerun retries them)")
        console.print(f"saved {folder / 'decisions.jsonl'}, {folder / 'summary.json'}")
    if summary.errors and not allow_errors:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """No-op for now: ``vgm play eval`` is mounted by ``ui/cli_play.py``, which owns the ``play`` group."""
    return None


__all__ = ["play_eval", "register"]
