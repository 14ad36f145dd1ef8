"""The GM's decision on real play: every player turn of the held-out CRD3 episodes.

    python bench/real_play.py                                  # ../shared/data/crd3, adjudicate
    python bench/real_play.py ../shared/data/crd3 --pipeline adjudicate -o /tmp/vgm/real --json

The same run as ``vgm play real DIR --episodes test`` (``eval.play.real_bench``), on the test
side of ``bench/real_split.yaml``, printed with the machine's load average and turns per second,
since this machine is shared and the speed is part of what is measured. With ``-o`` the run
resumes; the speed is then over the turns decided in this run only.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import typer
from rich.console import Console

from eval.play.real import real_turns
from eval.play.real_bench import PipelineDecider, choose_episodes, real_table, run_real


def main(
    source: Path = typer.Argument(Path("../shared/data/crd3"), help="The folder of CRD3 episode files."),
    pipeline: str = typer.Option("adjudicate", "--pipeline", help="The decision pipeline."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model string, for a pipeline that asks a model."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Run folder (resumed if it exists)."),
    split: str = typer.Option("test", "--split", help="test or train (bench/real_split.yaml)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object: the scores, load and speed."),
) -> None:
    console = Console(highlight=False)
    load_before = os.getloadavg()
    started = time.perf_counter()
    decider = PipelineDecider(pipeline, model)
    turns = list(real_turns(source, episodes=choose_episodes(source, split)))
    read_s = time.perf_counter() - started
    scores = run_real(turns, decider, out)
    wall = time.perf_counter() - started
    load_after = os.getloadavg()
    facts = {"load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
             "cpus": os.cpu_count(), "read_s": round(read_s, 2), "wall_s": round(wall, 2)}
    if as_json:
        typer.echo(json.dumps({**scores.as_json(), **facts}))
        return
    console.print(real_table(scores, title=f"real play ({split} episodes) — {pipeline}{f' — {model}' if model else ''}"))
    speed = scores.extra.get("turns_per_s")
    console.print(f"{scores.extra['decided']} turn(s) decided in {scores.extra['seconds']} s"
                  f" ({speed if speed is not None else '—'} turns/s, the first batch paying for the embedding model and index);"
                  f" {wall:.1f} s in all, {read_s:.1f} s of it reading the episodes")
    console.print(f"load average {' '.join(f'{x:.2f}' for x in load_before)} before, "
                  f"{' '.join(f'{x:.2f}' for x in load_after)} after, on {os.cpu_count()} CPU(s)")


if __name__ == "__main__":
    typer.run(main)
