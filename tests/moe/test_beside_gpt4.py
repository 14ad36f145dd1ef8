"""The compare report puts the paper's GPT-4 figures beside ours with the difference, and says when they do not compare (issue 42)."""
import csv
import io
import json
import re

from eval.moe.paper import TACHIKUMA_TABLE2, differs
from eval.moe.report import build_report
from eval.moe.runner import run_pipelines
from pipelines.llm import ScriptedModel


def oracle():
    """Names the log's last speaker and athletics, whatever the step asks."""
    def respond(step, messages):
        speakers = [s for s in re.findall(r"^([^:\n]+):", messages[1]["content"], re.M) if s not in ("GM", "Player characters at the table")]
        who = speakers[-1] if speakers else "nobody"
        return json.dumps({"characters": [who]} if step in ("pre_char", "char") else {"checks": [{"character": who, "skill": "athletics"}]})

    return ScriptedModel(responder=respond)


async def test_each_paper_row_gets_gpt4s_figures_the_difference_and_what_differs(tmp_path):
    out = {name: tmp_path / name for name in ("last_speaker", "template", "tbs")}
    await run_pipelines(list(out), "sample", out, model=oracle(), model_name="scripted", limit=6)
    report = build_report([tmp_path])
    rows = {r.pipeline: r for r in report.rows}

    md = report.markdown()
    assert "Δ vs GPT-4" in md and "Tachikuma Table 2, GPT-4" in md
    tbs_line = next(line for line in md.splitlines() if line.startswith("| tbs | pre-char"))
    assert f"| {TACHIKUMA_TABLE2['tbs']['gpt-4'][1]:.2f} | not comparable |" in tbs_line  # a scripted model is no GPT-4: no Δ
    assert "no: model scripted (paper: GPT-4); English prompts (paper: Chinese)" in tbs_line
    assert not any(line.startswith("| last_speaker | (not") for line in md.splitlines())  # no paper row, no Δ

    table = {row["pipeline"]: row for row in csv.DictReader(io.StringIO(report.csv()))}
    assert table["template"]["cf_gpt4"] == "43.21" and table["template"]["comparable_gpt4"] == "no"
    assert table["template"]["cf_delta_gpt4"] == ""  # not like for like: no difference given
    assert table["last_speaker"]["cf_gpt4"] == ""
    assert {b["pipeline"] for b in report.as_json()["beside_gpt4"]} == {"template", "tbs"}


def test_only_gpt4_in_chinese_faithful_and_paper_scored_is_like_for_like():
    same = {"lang": "zh", "prompting": "faithful", "metric": "paper"}
    assert differs("openai:gpt-4", same) == []
    assert differs("openai:gpt-4o", same) == ["model openai:gpt-4o (paper: GPT-4)"]
    assert differs("openai:gpt-4", {**same, "lang": "en", "prompting": "assisted", "metric": "tuple"}) == [
        "English prompts (paper: Chinese)", "assisted prompting (paper: its own prompts)", "per-tuple metric (paper: formulas (1)-(6))"]


def test_a_like_for_like_row_gets_its_difference():
    """GPT-4 in Chinese with the paper's prompts and metric: the only case the Δ is printed."""
    from types import SimpleNamespace

    from eval.moe.paper import beside_gpt4
    row = SimpleNamespace(pipeline="template", model="openai:gpt-4", metrics={"cf": {"value": 0.5}, "sf": {"value": 0.2},
                                                                              "lang": "zh", "prompting": "faithful", "metric": "paper"})
    [b] = beside_gpt4([row])
    assert b["comparable"] and round(b["cf_delta"], 2) == round(50 - TACHIKUMA_TABLE2["template"]["gpt-4"][0], 2)
