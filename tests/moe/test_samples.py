"""Repeated runs: each sample its own seed and run folder, the spread over them in the tables and the reproduce report."""
import json

from hypothesis import given
from hypothesis import strategies as st

import pytest

from eval.moe.run_folder import RunFolderError
from eval.moe.samples import compare_samples, spread, summarise_samples
from eval.reproduce import MAFIASCOPE_FIGURES, mafiascope_figures, mafiascope_like_for_like, reproduce

CHECKS = '{"checks": [{"character": "Jester", "skill": "perception"}]}'


def script(tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text(json.dumps({"steps": {"template": [CHECKS]}, "repeat_last": True}))
    return f"scripted:{path}"


@given(st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=2, max_size=30))
def test_spread_brackets_the_mean(values):
    s = spread(values)
    assert s["min"] - 1e-12 <= s["mean"] <= s["max"] + 1e-12
    assert s["sd"] >= 0 and s["ci"][0] - 1e-9 <= s["mean"] <= s["ci"][1] + 1e-9
    if s["sd"] > 0:
        assert s["ci"][1] - s["ci"][0] > 0


def test_two_runs_far_apart_have_a_wide_interval():
    assert spread([0.10, 0.00])["ci"][1] - spread([0.10, 0.00])["ci"][0] > 0.5  # 2 runs: t(1) = 12.7
    assert spread([0.10, 0.10, 0.10])["sd"] == 0.0


def test_each_sample_is_a_run_folder_with_its_own_seed(tmp_path):
    out = tmp_path / "runs"
    folders = compare_samples(["last_speaker", "template"], "sample", out, samples=2, temperature=0.5, seed=7, model=script(tmp_path), limit=3)
    assert folders == [out / "sample-0", out / "sample-1"]
    meta = [json.loads((f / "template" / "run.json").read_text()) for f in folders]
    assert [(m["temperature"], m["seed"]) for m in meta] == [(0.5, 7), (0.5, 8)]
    summary = summarise_samples(folders)
    assert summary["template"]["samples"] == 2 and summary["template"]["n"] == 3
    assert summary["template"]["cf"]["values"][0] == summary["template"]["cf"]["values"][1]  # a scripted model does not move
    with pytest.raises(RunFolderError, match="temperature"):  # resuming a sample at another temperature would mix two runs
        compare_samples(["template"], "sample", out, samples=2, temperature=0.9, seed=7, model=script(tmp_path), limit=3)


def test_one_sample_keeps_the_old_layout(tmp_path):
    out = tmp_path / "runs"
    assert compare_samples(["last_speaker"], "sample", out, samples=1, limit=2) == [out]
    assert (out / "last_speaker" / "predictions.jsonl").is_file()


def test_reproduce_reports_the_spread_wall_time_and_load(tmp_path):
    empty = tmp_path / "no-data"
    empty.mkdir()
    report = reproduce(tmp_path / "out", model=script(tmp_path), data=empty, limit=1, pipelines=["last_speaker", "template"],
                       samples=2, temperature=0.7)
    text = (tmp_path / "out" / "report.md").read_text()
    assert "Run-to-run spread over 2 runs" in text and "| template | 1 | 2 |" in text
    assert "load average (1/5/15 min)" in text and "Wall time" in text
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["samples"] == 2 and saved["parts"]["Tachikuma MOE"]["spread"]["template"]["samples"] == 2
    assert report.wall_seconds > 0


def test_mafiascope_section_shows_matching_and_diverging_figures_alike():
    scored = {
        "parse_rate": {"role_assessment": {"n": 449, "repaired": 318}}, "cost": {"traffic_multiplier": 23.9},
        "volatility_by_side": {"mafia": {"value": 0.149}, "non_mafia": {"value": 0.123}}, "agreement_gain": {"value": 0.024},
        "overprediction_by_role": {"non_mafia": {"value": 4.43}}, "volatility": {"value": 0.132}, "flip_rate": {"value": 0.213},
        "vote_coupling": {"innocent": {"top_suspect": {"value": 1.0, "n": 15}}},
    }
    figures = {f["key"]: f for f in mafiascope_figures(scored)}
    assert figures["truncation"]["verdict"] == "matches" and figures["traffic"]["verdict"] == "matches"
    assert figures["agreement_gain"]["verdict"] == "differs" and figures["agreement_gain"]["comparable"]
    assert figures["flip_rate"]["verdict"] == "differs" and not figures["flip_rate"]["comparable"]
    table = "\n".join(mafiascope_like_for_like(scored))
    assert table.count("| yes |") + table.count("| no |") == len(MAFIASCOPE_FIGURES)
    assert "70.8% (n=449)" in table and "100.0% (n=15)" in table and "+2.4 pp" in table and "-4.3 pp" in table
