"""``vgm ask`` and ``vgm models`` as a user runs them."""
from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from ui.cli import app

runner = CliRunner()


def test_ask_prints_the_answer_and_usage(tmp_path):
    script = tmp_path / "r.yaml"
    script.write_text("- '{\"skills\": [\"perception\", \"stealth\", \"arcana\"]}'\n")
    result = runner.invoke(app, ["ask", "--model", f"scripted:{script}", "Name three D&D skills as JSON"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "perception" in result.output and "prompt tokens" in result.output


def test_ask_json_report_has_the_parsed_value(tmp_path):
    script = tmp_path / "r.yaml"
    script.write_text("- 'Sure! ```json\n[\"athletics\", \"insight\"]\n```'\n")
    result = runner.invoke(app, ["ask", "--model", f"scripted:{script}", "skills?", "--json"])
    report = json.loads(result.output)
    assert report["value"] == ["athletics", "insight"] and report["parse_ok"] and report["usage"]["completion_tokens"] >= 0


def test_ask_against_an_openai_compatible_server_then_from_cache(fake_server):
    args = ["ask", "--model", "openai:fake", "--base-url", fake_server.base_url, "Which skill?", "--json"]
    first = json.loads(runner.invoke(app, args).output)
    second = json.loads(runner.invoke(app, args).output)
    assert first["value"] == {"skills": ["perception"]} and not first["usage"]["cache_hit"]
    assert second["usage"]["cache_hit"] and len(fake_server.requests) == 1


def test_models_list_json(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_MODELS_DIR", str(tmp_path))
    rows = json.loads(runner.invoke(app, ["models", "list", "--json"]).output)
    assert {r["key"] for r in rows} == {"local", "local:small"}


def test_a_bad_model_string_is_one_line_on_stderr_and_exit_2():
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "ask", "--model", "gpt-17", "hi"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "unknown model string 'gpt-17'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_models_usage_totals_per_model_and_step(fake_server):
    base = ["ask", "--model", "openai:fake", "--base-url", fake_server.base_url, "--json"]
    runner.invoke(app, [*base, "first question"])
    runner.invoke(app, [*base, "first question"])
    runner.invoke(app, [*base, "second question"])
    rows = json.loads(runner.invoke(app, ["models", "usage", "--json"]).output)
    assert len(rows) == 1
    row = rows[0]
    assert (row["model"], row["step"], row["calls"], row["cache_hits"]) == ("openai:fake", "ask", 3, 1)
    assert row["prompt_tokens"] > 0 and row["cost_usd"] is None
    table = runner.invoke(app, ["models", "usage"]).output
    assert "openai:fake" in table


def test_models_cache_lists_and_clears(fake_server):
    runner.invoke(app, ["ask", "--model", "openai:fake", "--base-url", fake_server.base_url, "q1"])
    runner.invoke(app, ["ask", "--model", "openai:fake", "--base-url", fake_server.base_url, "q2"])
    rows = json.loads(runner.invoke(app, ["models", "cache", "--json"]).output)
    assert rows[0]["entries"] == 2 and rows[0]["model"].endswith("|fake")
    assert json.loads(runner.invoke(app, ["models", "cache", "--clear", "--json"]).output) == {"deleted": 2}
    assert json.loads(runner.invoke(app, ["models", "cache", "--json"]).output) == []


def test_models_cache_clears_one_model_by_its_string(fake_server):
    runner.invoke(app, ["ask", "--model", "openai:fake", "--base-url", fake_server.base_url, "q1"])
    runner.invoke(app, ["ask", "--model", "openai:other", "--base-url", fake_server.base_url, "q1"])
    out = runner.invoke(app, ["models", "cache", "--clear", "--model", "openai:fake", "--base-url", fake_server.base_url, "--json"])
    assert json.loads(out.output) == {"deleted": 1}
    assert [r["model"].split("|")[1] for r in json.loads(runner.invoke(app, ["models", "cache", "--json"]).output)] == ["other"]
