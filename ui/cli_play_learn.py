"""``vgm play learn DIR``: rebuild the GM's learned decision from real play (``eval.play.learn``)."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

console = Console()


def play_learn(
    source: Path = typer.Argument(..., help="A folder of CRD3-format episode files (../shared/data/crd3)."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Model file to write (default: the shipped pipelines/decide/model/decision.json)."),
    split: Path | None = typer.Option(None, "--split", help="Train/test episode split (default bench/real_split.yaml); only 'train' is read."),
    target_recall: float = typer.Option(0.5, "--target-recall", help="The play threshold keeps this share of the DM's calls on held-out training episodes."),
    as_json: bool = typer.Option(False, "--json", help="Print what was measured as JSON."),
) -> None:
    """Learn whether a line calls for a roll, and which check, from a real DM's calls (training episodes only)."""
    from eval.play.learn import SPLIT_FILE, learn
    from pipelines.decide import MODEL_FILE
    from rulesets import VgmError

    if not 0 < target_recall < 1:
        raise VgmError(f"--target-recall {target_recall}: give a share between 0 and 1, such as 0.55")
    target = out or MODEL_FILE
    say = (lambda _: None) if as_json else (lambda msg: console.print(f"[dim]{msg}[/]"))
    measured = learn(source, out=target, split=split or SPLIT_FILE, target_recall=target_recall, on_progress=say)
    if as_json:
        typer.echo(json.dumps({**measured, "model": str(target)}, indent=1))
        return
    table = Table(title=f"learned decision, held-out training episodes — {target}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in measured.items():
        table.add_row(key, ", ".join(value) if isinstance(value, list) else str(value))
    console.print(table)


__all__ = ["play_learn"]
