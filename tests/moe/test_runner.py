"""The runner writes a line per instance as it goes, resumes after a kill, and reports from saved runs."""
import json
import re

import pytest

from eval.moe.report import build_report, read_predictions
from eval.moe.run_folder import RunFolder
from eval.moe.runner import RunError, run_pipelines
from pipelines.llm import ScriptedModel


def oracle():
    """A scripted model that names the last speaker and a fixed skill for every instance."""

    def respond(step, messages):
        log = messages[1]["content"]
        speakers = [s for s in re.findall(r"^([^:\n]+):", log, re.M) if s not in ("GM", "Player characters at the table")]
        who = speakers[-1] if speakers else "nobody"
        if step in ("pre_char", "char"):
            return json.dumps({"characters": [who]})
        if step == "gm_utterance":
            return f"{who}, roll for it."
        return json.dumps({"checks": [{"character": who, "skill": "athletics"}]})

    return ScriptedModel(responder=respond)


async def test_run_writes_every_instance_and_metrics(tmp_path):
    out = {"tbs_gm": tmp_path / "tbs_gm", "last_speaker": tmp_path / "ls"}
    await run_pipelines(["tbs_gm", "last_speaker"], "sample", out, model=oracle(), model_name="scripted", limit=6, concurrency=3)
    records = read_predictions(tmp_path / "tbs_gm" / "predictions.jsonl")
    assert len(records) == 6 and len({r["id"] for r in records}) == 6
    first = records[0]
    assert {"id", "prediction", "utterance", "gold", "steps", "usage", "latency_s", "error"} <= first.keys()
    assert [s["name"] for s in first["steps"]] == ["pre_char", "char", "skill", "gm_utterance"]
    assert first["utterance"].endswith("roll for it.")
    run = json.loads((tmp_path / "tbs_gm" / "run.json").read_text())
    assert run["pipeline"] == "tbs_gm" and run["model"] == "scripted" and run["data"].endswith("sample.jsonl") and run["finished"]
    metrics = json.loads((tmp_path / "tbs_gm" / "metrics.json").read_text())
    for key in ("cf", "sf", "cp", "cr", "sp", "sr", "exact"):
        assert {"value", "low", "high"} <= metrics[key].keys()
    assert metrics["n"] == 6 and metrics["parse_failure_rate"] == 0 and metrics["tokens_per_instance"] > 0
    assert json.loads((tmp_path / "ls" / "run.json").read_text())["model"] is None


async def test_resume_skips_done_ids_and_redoes_broken_lines(tmp_path):
    folder = tmp_path / "run"
    await run_pipelines(["template"], "sample", {"template": folder}, model=oracle(), model_name="scripted", limit=5)
    lines = (folder / "predictions.jsonl").read_text().splitlines()
    failed = json.loads(lines[1])
    failed["error"] = "server went away"
    # as if killed: one line failed, the last one cut in half (a cut line has no newline)
    (folder / "predictions.jsonl").write_text("\n".join([lines[0], json.dumps(failed), *lines[2:4], lines[4][:30]]))
    model = oracle()
    await run_pipelines(["template"], "sample", {"template": folder}, model=model, model_name="scripted", limit=5)
    assert len(model.requests) == 2  # only the failed and the truncated instance ran again
    # append-only: the failed attempt stays as history, the retry's line comes after it and wins
    records = read_predictions(folder / "predictions.jsonl")
    assert len(records) == 6 and [r["id"] for r in records].count(failed["id"]) == 2
    latest = RunFolder(folder).latest()
    assert len(latest) == 5 and not any(r["error"] for r in latest.values())


async def test_a_folder_of_another_run_is_refused(tmp_path):
    await run_pipelines(["last_speaker"], "sample", {"last_speaker": tmp_path}, limit=2)
    with pytest.raises(RunError, match="holds a run with pipeline='last_speaker'"):
        await run_pipelines(["template"], "sample", {"template": tmp_path}, model=oracle(), model_name="scripted", limit=2)


async def test_model_pipelines_need_a_model(tmp_path):
    with pytest.raises(RunError, match="pass --model"):
        await run_pipelines(["tbs"], "sample", {"tbs": tmp_path}, limit=2)


async def test_report_rebuilds_table_with_paired_tests(tmp_path):
    out = {name: tmp_path / name for name in ("last_speaker", "statistic", "template")}
    await run_pipelines(list(out), "sample", out, model=oracle(), model_name="scripted")
    report = build_report([tmp_path])
    assert [r.pipeline for r in report.rows] == ["last_speaker", "statistic", "template"]
    assert set(report.tests) == {"statistic", "template"}
    md = report.markdown()
    assert "| last_speaker |" in md and "CF [95% CI]" in md and "Paired tests" in md
    assert report.csv().splitlines()[0].startswith("pipeline,model,n,cf,cf_low,cf_high")
    png = report.bar_chart(tmp_path / "chart.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
