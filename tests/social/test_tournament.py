"""Tournaments by side: who sits on which side, the same seeds per pairing, the matrix and ratings, resuming."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from eval.tournament import fit_ratings, run_tournament
from gm.social import read_log
from ui.cli import app

REPO = Path(__file__).resolve().parents[2]
MODELS = ["scripted:heuristic", "scripted:bluff", "scripted:random"]


def _setup(log: Path) -> dict:
    return next(e for e in read_log(log) if e["kind"] == "setup")


@pytest.mark.parametrize("engine,open_side", [("mafia", "village"), ("avalon", "good")])
def test_every_pairing_plays_the_same_seeds_and_deals_with_one_model_per_side(tmp_path, engine, open_side):
    report = run_tournament(engine, MODELS, games=3, seed=7, out=tmp_path)
    by_pair = defaultdict(list)
    deals = defaultdict(set)
    for r in report["results"]:
        by_pair[(r["open_model"], r["hidden_model"])].append(r["seed"])
        setup = _setup(tmp_path / f"{r['game_id']}.jsonl")
        for p in setup["players"]:
            want = r["open_model"] if p["team"] == open_side else r["hidden_model"]
            assert f"scripted:{p['style']}" == want, (r["game_id"], p)
        deals[r["seed"]].add(json.dumps({p["name"]: p["role"] for p in setup["players"]}, sort_keys=True))
    assert set(by_pair) == {(a, b) for a in MODELS for b in MODELS}, "every ordered pairing, self-play included"
    assert all(sorted(seeds) == [7, 8, 9] for seeds in by_pair.values())
    assert all(len(d) == 1 for d in deals.values()), "a seed deals the same roles in every pairing"
    assert report["sides"] == {"open": open_side, "hidden": "mafia" if engine == "mafia" else "evil"}
    cell = next(c for c in report["matrix"] if c["open_model"] == MODELS[0] and c["hidden_model"] == MODELS[2])
    assert cell["n"] == 3 and cell["k"] == sum(r["open_won"] for r in report["results"]
                                               if (r["open_model"], r["hidden_model"]) == (MODELS[0], MODELS[2]))
    assert cell["ci95"][0] <= cell["rate"] <= cell["ci95"][1]


def test_repeats_use_fresh_seeds_and_every_table_reports_the_spread(tmp_path):
    report = run_tournament("mafia", MODELS[1:], games=4, seed=0, repeats=3, out=tmp_path)
    seeds = sorted(r["seed"] for r in report["results"] if r["open_model"] == r["hidden_model"] == MODELS[1])
    assert seeds == list(range(12))
    cell = report["matrix"][0]
    assert cell["spread"]["runs"] == 3 and cell["spread"]["min"] <= cell["rate"] <= cell["spread"]["max"]
    assert all(row["spread"] for row in report["by_role"])
    assert all(row["spread"] for row in report["ratings"]["ratings"])


def test_a_stopped_tournament_resumes_to_the_report_of_an_unbroken_one(tmp_path):
    whole = run_tournament("mafia", MODELS, games=2, seed=3, out=tmp_path / "whole")
    seen = []

    def stop_after_five(row):
        seen.append(row)
        if len(seen) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament("mafia", MODELS, games=2, seed=3, out=tmp_path / "cut", progress=stop_after_five)
    with (tmp_path / "cut" / "results.jsonl").open("a") as fh:
        fh.write('{"game_id": "mafia-cut')  # a line torn by a kill
    again = run_tournament("mafia", MODELS, games=2, seed=3, out=tmp_path / "cut")
    strip = lambda r: {k: v for k, v in r.items() if k != "out"}  # noqa: E731
    assert strip(again) == strip(whole)


@pytest.mark.slow
def test_a_killed_tournament_resumes_from_its_folder(tmp_path):
    """kill -9 in the middle of the run; the same command finishes it, each game once."""
    out = tmp_path / "t"
    cmd = [sys.executable, "-c", "from ui.cli import main; main()", "mafia", "tournament", "--models", ",".join(MODELS),
           "--games", "40", "--seed", "1", "-o", str(out), "--json"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if results.is_file() and results.stat().st_size > 2000:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = len(results.read_text().splitlines())
    assert 0 < first < 360, "killed mid-run"
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == 360
    ids = [json.loads(line)["game_id"] for line in results.read_text().splitlines() if line.endswith("}")]
    assert sorted(set(ids)) == sorted(r["game_id"] for r in report["results"])


def test_bad_models_are_one_line(tmp_path):
    runner = CliRunner()
    for models, words in (("scripted:heuristic", "two or more"), ("scripted:heuristic,scripted:sly", "unknown scripted style"),
                          ("scripted,human", "no human seats"), ("scripted:heuristic,gpt-17", "unknown model string 'gpt-17'")):
        r = runner.invoke(app, ["mafia", "tournament", "--models", models, "-o", str(tmp_path / "t")])
        assert r.exit_code != 0 and words in r.output and "Traceback" not in r.output, r.output
        assert not (tmp_path / "t").exists()


def test_the_cli_prints_the_matrix_with_intervals(tmp_path):
    r = CliRunner().invoke(app, ["avalon", "tournament", "--models", "scripted:heuristic,scripted:random", "--games", "2",
                                 "-o", str(tmp_path)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "good win rate" in r.output and "Bradley-Terry" in r.output and "merlin" in r.output
    assert "2/2" in r.output or "0/2" in r.output or "1/2" in r.output


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=9, max_size=9))
def test_ratings_are_centred_and_rank_the_model_that_beats_everyone_first(cells):
    models = ["a", "b", "c"]
    counts = {(x, y): (min(w, n), n) for (x, y), (w, n) in zip([(x, y) for x in models for y in models], cells)}
    # "a" wins every game it plays, on either side, against the others
    for other in ("b", "c"):
        counts[("a", other)] = (8, 8)
        counts[(other, "a")] = (0, 8)
    fit = fit_ratings(counts, models)
    assert abs(sum(fit["theta"].values())) < 1e-6
    assert fit["theta"]["a"] > max(fit["theta"]["b"], fit["theta"]["c"])
