"""Seconds per GM turn and to the first narrated token, on the local models (issue: the GM turn).

    python bench/play_turn.py                              # local:small and local, 12 turns each
    python bench/play_turn.py --models local:small --turns 20 --json

One session per model and rule set, as a table plays: the first turn pays for the server start
and the prompt prefix, later turns reuse it (the "cold" column is the first turn alone). The
response cache is off, so every call is a real model call. Goals on a quiet 2-core machine:
local:small p50 ≤ 5 s and first token ≤ 2 s (issue 41); local p50 ≤ 25 s. The load average is
printed before and after the run, since this machine is shared and a run's own load counts.
"""
from __future__ import annotations

import json
import os
import statistics
import time

import typer
from rich.console import Console
from rich.table import Table

# Varied lines (checks, questions, talk, an impossible act), per rule set and its shipped scene.
LINES = {
    ("dnd5e", "drowned_chapel"): [
        ("Brisa", "I run my hand under the altar's lip, feeling for a catch"),
        ("Oskar", "What is Maren holding in her hands?"),
        ("Ilya", "I climb the broken stair toward the bell"),
        ("Oskar", "I thank Maren for letting us in out of the rain"),
        ("Brisa", "I flap my arms and fly up to the bell tower"),
        ("Oskar", "Is she lying to us? I watch her eyes as she answers"),
    ],
    ("coc7e", "lantern_house"): [
        ("Margaret", "I read the last pages of the logbook"),
        ("Tomás", "I kneel and look at the floorboards near the cellar hatch"),
        ("Eddie", "Is the stove still warm?"),
        ("Eddie", "I punch the lighthouse until it falls over"),
        ("Margaret", "I ask Ruth gently when she last saw her father"),
        ("Tomás", "I work at the padlock on the chain with my pocket knife"),
    ],
}


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench_model(spec: str, turns: int) -> dict:
    from gm.agent import GameMaster
    from pipelines.llm import get_model
    from rulesets import VgmError

    model = get_model(spec, cache=False)
    walls, firsts, decides, cold = [], [], [], None
    per_table = max(1, turns // len(LINES))
    for (pack, scenario), lines in LINES.items():
        gm = GameMaster(pack, scenario, model, memory="minilm", seed=1)
        for player, text in (lines * 4)[:per_table]:
            try:
                reply = gm.step(player, text)
            except VgmError as exc:  # a line the table refuses (out of turn in a fight) is not a turn to time
                print(f"skipped {text!r}: {exc}")
                continue
            turn, first = reply.timing.get("turn_s"), reply.timing.get("first_token_s")
            if cold is None:
                cold = turn
            else:
                walls.append(turn)
                firsts.append(first if first is not None else turn)
                decides.append(reply.timing.get("decide_s") or 0.0)
        gm.close()
    return {
        "model": spec, "turns": len(walls) + 1, "cold_s": round(cold or 0.0, 2),
        "turn_p50_s": round(statistics.median(walls), 2), "turn_p95_s": round(_quantile(walls, 0.95), 2),
        "first_token_p50_s": round(statistics.median(firsts), 2), "first_token_p95_s": round(_quantile(firsts, 0.95), 2),
        "decide_p50_s": round(statistics.median(decides), 2),
    }


def main(
    models: str = typer.Option("local:small,local", help="Comma list of model strings."),
    turns: int = typer.Option(12, help="GM turns per model (split over the rule sets)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    os.environ.setdefault("VGM_NO_CACHE", "1")
    load = os.getloadavg()
    rows = [bench_model(spec.strip(), turns) for spec in models.split(",") if spec.strip()]
    after = os.getloadavg()
    if as_json:
        print(json.dumps({"load_avg": load, "load_avg_after": after, "results": rows}))
        return
    table = Table(title=f"GM turn on the local models (load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} before, "
                        f"{after[0]:.1f} after; {os.cpu_count()} cores)")
    for col in ("model", "turns", "cold s", "turn p50 s", "turn p95 s", "first token p50 s", "first token p95 s", "decide p50 s"):
        table.add_column(col, justify="right" if col != "model" else "left")
    for r in rows:
        table.add_row(r["model"], str(r["turns"]), f"{r['cold_s']:.1f}", f"{r['turn_p50_s']:.1f}", f"{r['turn_p95_s']:.1f}",
                      f"{r['first_token_p50_s']:.1f}", f"{r['first_token_p95_s']:.1f}", f"{r['decide_p50_s']:.1f}")
    Console().print(table)


if __name__ == "__main__":
    typer.run(main)
