"""``vgm reproduce``: one report that re-measures the seeds' tables on the data present (thin wrapper over ``eval.reproduce``)."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

console = Console()


def reproduce_cmd(
    out: Path = typer.Option(..., "-o", "--out", help="Report folder: report.md, report.json, PNG plots, the MOE run folders."),
    model: str = typer.Option("local:small", "--model", "-m", help="Model for the MOE pipelines ('none' runs only the non-model baselines)."),
    quick: bool = typer.Option(False, "--quick", help="A small MOE part (a few instances, shorter logs): minutes on local:small."),
    data: Path | None = typer.Option(None, "--data", help="Data root with crd3/, inmind/, mafiascope/ (default: VGM_DATA or ../shared/data)."),
    limit: int | None = typer.Option(None, "--limit", help="MOE test instances (overrides --quick's)."),
    pipelines: str | None = typer.Option(None, "--pipelines", help="Comma-separated MOE pipelines (default: the paper's eight, knn, oracle_char)."),
    allow_errors: bool = typer.Option(False, "--allow-errors", help="Exit 0 even when some MOE instances errored (they are still counted)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report's numbers as JSON."),
    samples: int = typer.Option(1, "--samples", help="Run the MOE part N times (run k: seed SEED+k) and report mean ± sd and the range over runs."),
    temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature of the MOE model steps (e.g. 0.7 with --samples)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the MOE model steps (run k uses SEED+k; default 0 when --samples > 1)."),
) -> None:
    """Re-measure Tachikuma's Table 2, InMind's counts and baseline, MafiaScope's calibration, each beside the paper's."""
    from eval.reproduce import reproduce

    from ._outdir import output_folder
    from .cli_moe import RichReporter

    names = [p.strip() for p in pipelines.split(",") if p.strip()] if pipelines is not None else None
    chosen = None if model.lower() in ("none", "") else model
    with output_folder(out, models=[chosen]), RichReporter() as reporter:  # a bad model is said before data is copied in
        report = reproduce(out, model=chosen, quick=quick, data=data, limit=limit, reporter=reporter, pipelines=names,
                           samples=samples, temperature=temperature, seed=seed)
    if as_json:
        typer.echo(json.dumps(report.as_json(), ensure_ascii=False, indent=1, default=str))
    else:
        for part in report.parts:
            console.print(f"{part.title}: {part.seconds:.0f} s, {part.errors} instance errors")
        console.print(f"wall {report.wall_seconds:.0f} s; load average {report.load.get('start')} → {report.load.get('end')}")
        console.print(f"wrote {out / 'report.md'} and {out / 'report.json'}")
    if report.errors and not allow_errors:
        typer.secho(f"error: {report.errors} MOE instance(s) errored; rerun the same command to retry them, or pass --allow-errors",
                    fg=typer.colors.RED, err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``vgm reproduce`` to the main command line."""
    app.command("reproduce")(reproduce_cmd)


__all__ = ["register", "reproduce_cmd"]
