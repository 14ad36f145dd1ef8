"""Seconds per GM turn on the local models, split by step (pre_char, char, skill, narrate).

    python bench/gm_turn.py                       # local and local:small, 3 turns each
    python bench/gm_turn.py --models local:small --turns 5 --json

The response cache is off, so every step is a real model call; the server's prefix cache
is on, so later steps reuse the shared context (see the cached-token column).
"""
from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict

import typer
from rich.console import Console
from rich.table import Table

LINES = [
    ("Brisa", "I search under the altar for a hidden catch"),
    ("Oskar", "I watch Maren's face while she talks. Is she lying?"),
    ("Ilya", "I climb the broken stair up to the bell tower"),
    ("Brisa", "I sneak behind Maren to see where she keeps looking"),
    ("Oskar", "I say a prayer and hold my holy symbol up to the bell"),
]


def bench_model(spec: str, turns: int, pipeline: str) -> dict:
    from gm.agent import GameMaster
    from pipelines.llm import get_model

    model = get_model(spec, cache=False)
    gm = GameMaster("dnd5e", "drowned_chapel", model, pipeline=pipeline, memory="minilm", seed=1)
    per_step: dict[str, list[dict]] = defaultdict(list)
    walls = []
    for player, text in (LINES * 3)[:turns]:
        started = time.perf_counter()
        reply = gm.step(player, text)
        walls.append(time.perf_counter() - started)
        for step in reply.steps:
            per_step[step["name"]].append(step)
    gm.close()
    steps = {
        name: {
            "calls": len(rows),
            "seconds": round(statistics.mean(r["seconds"] for r in rows), 2),
            "prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in rows)),
            "cached_tokens": round(statistics.mean(r["cached_tokens"] for r in rows)),
            "completion_tokens": round(statistics.mean(r["completion_tokens"] for r in rows)),
        }
        for name, rows in per_step.items()
    }
    return {"model": spec, "turns": turns, "seconds_per_turn": round(statistics.mean(walls), 2),
            "seconds_per_turn_max": round(max(walls), 2), "steps": steps}


def main(
    models: str = typer.Option("local,local:small", help="Comma list of model strings."),
    turns: int = typer.Option(3, help="GM turns per model."),
    pipeline: str = typer.Option("tbs", help="The MOE pipeline deciding checks."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    results = [bench_model(spec.strip(), turns, pipeline) for spec in models.split(",") if spec.strip()]
    if as_json:
        typer.echo(json.dumps(results, indent=1))
        return
    table = Table(title=f"seconds per GM turn ({turns} turns, pipeline {pipeline}, response cache off)")
    for col in ("model", "step", "calls", "s / call", "prompt tok", "cached tok", "completion tok"):
        table.add_column(col, justify="right" if col not in ("model", "step") else "left")
    for res in results:
        for name, row in res["steps"].items():
            table.add_row(res["model"], name, str(row["calls"]), f"{row['seconds']:.2f}", str(row["prompt_tokens"]),
                          str(row["cached_tokens"]), str(row["completion_tokens"]))
        table.add_row(res["model"], "[bold]whole turn[/]", str(res["turns"]), f"[bold]{res['seconds_per_turn']:.2f}[/]", "", "", "",
                      end_section=True)
    Console().print(table)


if __name__ == "__main__":
    typer.run(main)
