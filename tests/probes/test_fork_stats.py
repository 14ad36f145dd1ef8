"""Comparing the two fork arms: Wilson CIs per arm, Newcombe's CI on the difference, Fisher's exact p."""
import json
import random

import pytest
from typer.testing import CliRunner

from eval.beliefs import arm_comparison, fork_compare
from pipelines.llm import ScriptedModel


def test_known_counts_8_of_10_vs_2_of_10():
    c = arm_comparison(8, 10, 2, 10)
    assert c["fisher_p"] == pytest.approx(0.023, abs=5e-4)
    assert c["difference"] == pytest.approx(0.6)
    lo, hi = c["difference_ci95"]
    assert lo < 0.6 < hi and lo > 0  # the arms differ at the 5% level, as Fisher says
    assert c["post"]["ci95"] == pytest.approx([0.4902, 0.9433], abs=1e-4)  # Wilson 8/10


def test_newcombe_interval_matches_the_published_example():
    """Newcombe (1998), method 10: 56/70 vs 48/80 → difference 0.2, CI 0.0524 to 0.3339."""
    lo, hi = arm_comparison(56, 70, 48, 80)["difference_ci95"]
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=1e-4)


def test_equal_arms_give_p_1_and_a_ci_around_0():
    c = arm_comparison(2, 5, 2, 5)
    assert c["fisher_p"] == pytest.approx(1.0) and c["difference_ci95"][0] < 0 < c["difference_ci95"][1]


def test_the_difference_ci_covers_the_true_difference_about_95_percent_of_the_time():
    rng = random.Random(0)
    p_post, p_pre, n, hits, runs = 0.7, 0.4, 30, 0, 400
    for _ in range(runs):
        k1 = sum(rng.random() < p_post for _ in range(n))
        k2 = sum(rng.random() < p_pre for _ in range(n))
        lo, hi = arm_comparison(k1, n, k2, n)["difference_ci95"]
        hits += lo <= p_post - p_pre <= hi
    assert 0.90 <= hits / runs <= 0.99


@pytest.fixture
def recorded(tmp_path, respond, monkeypatch):
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat

    model = ScriptedModel(responder=respond, name="scripted:fork")
    monkeypatch.setattr("pipelines.llm.get_model", lambda spec=None, **kw: model)
    game = MafiaGame([LlmSeat(model, model_spec="scripted:fork") for _ in range(7)], seed=5, game_id="parent",
                     log_path=tmp_path / "parent.jsonl", snapshots=True)
    game.play()
    return tmp_path / "parent.jsonl"


async def test_fork_compare_runs_both_arms_and_compares_every_outcome(recorded, tmp_path):
    report = await fork_compare(recorded, (1, 2), 3, out_dir=tmp_path / "forks")
    assert report["arms"]["post"]["arm"] == "post" and report["arms"]["pre"]["arm"] == "pre"
    rows = report["comparison"]["winner"]
    assert sum(r["post"]["k"] for r in rows) == 3 and sum(r["pre"]["k"] for r in rows) == 3
    assert all(0 <= r["fisher_p"] <= 1 and r["difference_ci95"][0] <= r["difference"] <= r["difference_ci95"][1] for r in rows)
    assert len([p for p in (tmp_path / "forks").glob("*.jsonl") if not p.name.endswith(".snapshots.jsonl")]) == 6


def test_the_fork_command_prints_the_comparison(recorded, tmp_path):
    from ui.cli import app

    out = CliRunner().invoke(app, ["mafia", "fork", str(recorded), "--at", "1.2", "--n", "2", "--compare", "-o", str(tmp_path / "f"), "--json"])
    assert out.exit_code == 0, out.output
    r = json.loads(out.output)
    assert {"fisher_p", "difference", "difference_ci95", "post", "pre"} <= r["comparison"]["winner"][0].keys()
    out = CliRunner().invoke(app, ["mafia", "fork", str(recorded), "--at", "1.2", "--n", "2", "--compare", "-o", str(tmp_path / "g")])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    p = r["comparison"]["winner"][0]["fisher_p"]
    assert "Fisher" in text and "Newcombe" in text and f"{p:.3f}" in text
    out = CliRunner().invoke(app, ["mafia", "fork", str(recorded), "--at", "1.2", "--compare", "--before"])
    assert out.exit_code != 0 and "leave out --before" in out.output
