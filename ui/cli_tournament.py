"""``vgm mafia|avalon tournament``: every model against every model, by side; thin over ``eval.tournament``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from eval.cluster import base_url_option, cluster_option, endpoint_concurrency_option, ray_address_option

from ._outdir import output_folder

console = Console()
MODELS_HELP = ("comma list of two or more models: scripted:heuristic, scripted:bluff, scripted:random, "
               "llm:<model string> or a bare model string (local:small)")


def _pct(x: Optional[float]) -> str:
    return "–" if x is None else f"{x:.0%}"


def _cell(row: dict[str, Any]) -> str:
    """``k/n rate [CI]`` and, with repeats, ``± SD`` over the repeats."""
    if not row["n"]:
        return "–"
    ci = row["ci95"]
    text = f"{row['k']}/{row['n']} {_pct(row['rate'])} [{_pct(ci[0])}, {_pct(ci[1])}]"
    if row.get("spread"):
        text += f" ±{row['spread']['sd']:.0%}"
    return text


def print_tournament(r: dict[str, Any]) -> None:
    """The matrix, each model by side, the ratings and the per-role table."""
    open_side, hidden_side = r["sides"]["open"], r["sides"]["hidden"]
    console.print(f"[bold]{r['engine']} tournament[/bold]: {len(r['models'])} models, {r['games_per_pairing']} games × "
                  f"{r['repeats']} run(s) per pairing, seeds {r['seeds'][0]}–{r['seeds'][1]} in every pairing, {r['games']} games")
    t = Table(title=f"{open_side} win rate: row model on the {open_side} side, column model on the {hidden_side} side")
    t.add_column(f"{open_side} \\ {hidden_side}")
    for m in r["models"]:
        t.add_column(m, justify="right")
    for a in r["models"]:
        t.add_row(a, *(_cell(next(c for c in r["matrix"] if c["open_model"] == a and c["hidden_model"] == b)) for b in r["models"]))
    console.print(t)
    t = Table(title="each model by side (against the other models; self-play left out)")
    for c in ("model", f"as {open_side}: wins", f"as {hidden_side}: wins"):
        t.add_column(c, justify="left" if c == "model" else "right")
    for row in r["by_side"]:
        t.add_row(row["model"], _cell(row[open_side]), _cell(row[hidden_side]))
    console.print(t)
    rt = r["ratings"]
    t = Table(title=f"Bradley-Terry ratings ({rt['games']} decisive games; {open_side}-side term {rt['side']:+.2f} "
                    f"[{rt['side_ci95'][0]:+.2f}, {rt['side_ci95'][1]:+.2f}])" if rt["side_ci95"] else "Bradley-Terry ratings")
    for c in ("model", "θ [95% CI]", "Elo [95% CI]", "spread over runs (SD)"):
        t.add_column(c, justify="left" if c == "model" else "right")
    for row in rt["ratings"]:
        ci, eci = row["theta_ci95"], row["elo_ci95"]
        t.add_row(row["model"], f"{row['theta']:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else f"{row['theta']:+.2f}",
                  f"{row['elo']} [{eci[0]}, {eci[1]}]" if eci else str(row["elo"]),
                  f"{row['spread']['sd']:.2f}" if row.get("spread") else "–")
    console.print(t)
    t = Table(title="win rate by role (a seat wins when its side wins)")
    for c in ("model", "role", "seat-games: won"):
        t.add_column(c, justify="right" if c.startswith("seat") else "left")
    for row in r["by_role"]:
        t.add_row(row["model"], row["role"], _cell(row))
    console.print(t)
    console.print(r["note"] + (f"; logs in {r['out']}" if r.get("out") else ""))


def run_command(engine: str, models: str, games: int, seed: int, repeats: int, players: Optional[int], out: Path,
                options: dict[str, Any], max_tokens: int, as_json: bool, spec: Any) -> None:
    """Check, play (resuming from ``out``) and print."""
    from eval.tournament import check_tournament, model_spec, run_tournament

    names, _, _ = check_tournament(engine, models, games, repeats, players, options, out)  # before any bar or file
    llm = [model_spec(m).arg or "local" for m in names if model_spec(m).kind == "llm"]
    total = len(names) ** 2 * games * repeats
    run_with = None
    if spec is not None:
        from eval.cluster import tournament_runner

        run_with = tournament_runner(spec)
    with output_folder(out, models=llm), Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                      console=Console(stderr=True), transient=as_json) as bar:
        task = bar.add_task(f"{engine} tournament games", total=total)
        report = run_tournament(engine, names, games=games, seed=seed, repeats=repeats, players=players, options=options,
                                out=out, max_tokens=max_tokens, run_with=run_with, progress=lambda r: bar.advance(task))
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        print_tournament(report)


def tournament_command(engine: str):
    """The ``tournament`` command of one game's group."""

    def tournament(
        models: str = typer.Option(..., "--models", help=MODELS_HELP),
        games: int = typer.Option(10, "--games", "-n", help="games per pairing (and per run)"),
        seed: int = typer.Option(0, "--seed", help="first seed; every pairing plays seeds seed .. seed+games×repeats−1"),
        repeats: int = typer.Option(1, "--repeats", help="runs of each pairing with fresh seeds: the tables give the spread between runs"),
        players: Optional[int] = typer.Option(None, "--players", help="seats per game (default: the game's)"),
        out: Path = typer.Option(Path(f"runs/{engine}-tournament"), "--out", "-o", help="folder for logs and results (resumes)"),
        sheriff: bool = typer.Option(False, "--sheriff", help="Mafia: add a Sheriff (replaces a Villager)"),
        max_tokens: int = typer.Option(200, "--max-tokens", help="token cap per LLM move"),
        as_json: bool = typer.Option(False, "--json", help="print the report (and every game's result) as JSON"),
        cluster: Optional[str] = cluster_option(),
        ray_address: Optional[str] = ray_address_option(),
        base_url: Optional[list[str]] = base_url_option(),
        endpoint_concurrency: Optional[int] = endpoint_concurrency_option(),
    ) -> None:
        """Every model against every model by side (village vs Mafia, good vs evil), the same seeds per pairing;
        prints the win-rate matrix with Wilson CIs, Bradley-Terry ratings and win rates by role."""
        from eval.cluster import from_cli
        from rulesets import VgmError

        spec = from_cli(f"{engine} tournament", cluster, ray_address, base_url, endpoint_concurrency)
        if sheriff and engine != "mafia":
            raise VgmError("--sheriff is a Mafia option; leave it out for Avalon")
        options = {"extra_roles": ["sheriff"]} if sheriff else {}
        run_command(engine, models, games, seed, repeats, players, out, options, max_tokens, as_json, spec)

    return tournament
