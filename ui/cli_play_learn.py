"""``vgm play learn DIR``: rebuild the GM's learned decision from real play (``eval.play.learn``)."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

console = Console()


def play_learn(
    source: Path | None = typer.Argument(None, help="A folder of CRD3-format episode files (../shared/data/crd3); not needed with --written-only."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Model file to write (default: the shipped pipelines/decide/model/decision.json)."),
    split: Path | None = typer.Option(None, "--split", help="Train/test episode split (default bench/real_split.yaml); only 'train' is read."),
    target_recall: float = typer.Option(0.5, "--target-recall", help="The play threshold keeps this share of the DM's calls on held-out training episodes."),
    as_json: bool = typer.Option(False, "--json", help="Print what was measured as JSON."),
    written_only: bool = typer.Option(False, "--written-only", help="Refit only the vote learned from the dev case sets' written lines, in the model file (-o, or the shipped one); with DIR its weight is chosen on the training episodes."),
) -> None:
    """Learn whether a line calls for a roll, and which check, from a real DM's calls (training episodes only)."""
    from eval.play.learn import SPLIT_FILE, learn, learn_written_only
    from pipelines.decide import MODEL_FILE
    from rulesets import VgmError

    if not 0 < target_recall < 1:
        raise VgmError(f"--target-recall {target_recall}: give a share between 0 and 1, such as 0.55")
    target = out or MODEL_FILE
    say = (lambda _: None) if as_json else (lambda msg: console.print(f"[dim]{msg}[/]"))
    if written_only:
        measured = learn_written_only(target if target.exists() else MODEL_FILE, target, source, split or SPLIT_FILE, on_progress=say)
    elif source is None:
        raise VgmError("vgm play learn: give the folder of CRD3-format episodes (such as ../shared/data/crd3), or --written-only")
    else:
        measured = learn(source, out=target, split=split or SPLIT_FILE, target_recall=target_recall, on_progress=say)
    if as_json:
        typer.echo(json.dumps({**measured, "model": str(target)}, indent=1))
        return
    table = Table(title=f"learned decision, held-out training episodes — {target}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in measured.items():
        table.add_row(key, ", ".join(map(str, value)) if isinstance(value, list) else str(value))
    console.print(table)


__all__ = ["play_learn"]
