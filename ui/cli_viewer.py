"""``vgm mafia edges``: a probed game's belief graph as temporal edges, for tools outside the viewer."""
from __future__ import annotations

from pathlib import Path

import typer


def edges_command(
    log: Path = typer.Argument(..., help="one game: <game>.jsonl (with <game>.probes.jsonl beside it) or a MafiaScope game folder"),
    out: Path = typer.Option(..., "--out", "-o", help="FILE.csv or FILE.json; the extension picks the format"),
) -> None:
    """Write every seat's private beliefs as rows (step, from, to, kind, value): suspicion scores,
    role guesses, role-belief weights and social-map attitudes, in time order."""
    from eval.beliefs import export_edges

    path, n = export_edges(log, out)
    typer.echo(f"{n} edges → {path}")


def register(app: typer.Typer) -> None:
    from ui.cli_social import mafia_app

    mafia_app.command("edges")(edges_command)
