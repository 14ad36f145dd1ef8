"""Algorithm 1 end to end with a scripted model: every reported number checked by hand."""
from __future__ import annotations

import asyncio
import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from eval.inmind import build_report, build_tasks, count_tasks, load_sessions, run_inmind
from eval.inmind.tasks import anonymous_labels
from pipelines.embeddings import HashingEmbedding
from pipelines.llm import ScriptedModel

TRUTH = {"1": "忠臣", "2": "梅林", "3": "派西维尔", "4": "忠臣", "5": "莫甘娜", "6": "刀客"}
_hashing = HashingEmbedding(64)


def embedder(texts):
    return np.array(_hashing(texts))


def scripted(subject_label: str) -> ScriptedModel:
    def respond(step, messages):
        prompt = messages[-1]["content"]
        if step == "inmind_profile":
            return '{"profile": "Trusts votes over speeches."}'
        if step == "inmind_identify":
            others = [c for c in "ABCDEF" if c != subject_label]
            return json.dumps({"ranking": [others[0], subject_label, *others[1:]]})
        if step == "inmind_reflection":
            both = "My strategy notes" in prompt
            return json.dumps({"fills": {"MASK_1": "2", "MASK_2": "43" if both else "3"}})
        if step == "inmind_trace":
            if "end of mission 1" in prompt:
                return json.dumps({"summary": "", "fills": {"MASK_1": "5", "MASK_2": "2", "MASK_3": "5", "MASK_4": "6", "MASK_5": "1"}})
            return json.dumps({"summary": "", "fills": {"MASK_1": "2", "MASK_2": "2号", "MASK_3": 1, "MASK_4": "34"}})
        roles = dict(TRUTH)
        if "end of mission 1" in prompt:
            roles["2"], roles["3"] = roles["3"], roles["2"]
        return json.dumps({"summary": "", "roles": roles}, ensure_ascii=False)

    return ScriptedModel(responder=respond)


def run(data_dir, out, model):
    return asyncio.run(run_inmind(data_dir, out, model=model, embedder=embedder))


def test_counts_without_a_model(data_dir):
    counts = count_tasks(data_dir)
    assert counts["sessions"] == {"observer": 1, "participant": 1}
    assert counts["instances"] == {
        "player_identification": {"profile": 1},
        "reflection_alignment": {"with_traces": 1, "no_traces": 1},
        "trace_attribution": {"base": 2, "prior_trace": 2},
        "role_inference": {"A": 2, "B": 2, "C": 2, "D": 2},
    }
    assert counts["units"] == {"player_identification": 1, "reflection_alignment": 2, "trace_attribution": 9, "role_inference": 2}
    assert counts["spans"]["reflections"] == {"spans": 3, "single_digit": 2, "multi_digit": 1, "seat": 2, "not_seat": 1}
    assert counts["spans"]["traces"] == {"spans": 11, "single_digit": 10, "multi_digit": 1, "seat": 9, "not_seat": 2}


def test_paper_mask_policy_counts_every_digit_run(data_dir):
    assert count_tasks(data_dir, "ra,ta", mask_policy="paper")["units"] == {"reflection_alignment": 3, "trace_attribution": 11}


def test_reflection_without_seat_references_is_skipped_and_counted(tmp_path, participant, write_game):
    participant["my_review"]["msg"] = "没什么好说的，第2轮就输了。"
    write_game(tmp_path / "9-participant.json", participant)
    instances, report = build_tasks(load_sessions(tmp_path), ["reflection_alignment"])
    assert instances == [] and report.skipped == {"reflection_alignment: reviews with no seat reference": 1}


def test_views_hide_what_each_task_must_hide(data_dir):
    instances, _ = build_tasks(load_sessions(data_dir))
    by_id = {i.id: i for i in instances}
    pi = by_id["player_identification/profile/2-participant"]
    assert "刀客指认" not in pi.fields["game"] and "号玩家是队长" in pi.fields["game"]
    assert not re.search(r"[1-6]号", pi.fields["game"])  # every seat number relabelled
    ta = by_id["trace_attribution/base/2-participant/m1"]
    assert "Mission 2" not in ta.fields["game"] and "My strategy notes" not in ta.fields["game"]
    assert "2号问" not in ta.fields["masked"] and ta.gold["answers"] == {"MASK_1": "5", "MASK_2": "2", "MASK_3": "5", "MASK_4": "6", "MASK_5": "2"}
    prior = by_id["trace_attribution/prior_trace/2-participant/m2"]
    assert "怀疑2号是梅林" in prior.fields["prior"]  # the previous round's trace, unmasked
    ri_a, ri_d = by_id["role_inference/A/2-participant/m1"], by_id["role_inference/D/2-participant/m1"]
    assert "My strategy notes" in ri_a.fields["game"] and "My strategy notes" not in ri_d.fields["game"]
    assert "Assassin" in ri_a.fields["perspective"] and "Assassin" not in ri_d.fields["perspective"]
    assert "Mission 2" not in ri_a.fields["game"] and ri_a.gold["weight"] == 0.4


def test_scripted_run_scores_match_hand_computation(data_dir, tmp_path):
    session = load_sessions(data_dir)[1]
    label = anonymous_labels(session)[6]
    out = tmp_path / "run"
    summary = run(data_dir, out, scripted(label))
    assert (summary.done, summary.failed) == (15, 0)
    report = build_report(out)
    tasks = report["tasks"]

    pi = tasks["player_identification"]["settings"][0]
    assert (pi["top1"]["value"], pi["top3"]["value"]) == (0.0, 1.0)

    ra = {row["setting"]: row for row in tasks["reflection_alignment"]["settings"]}
    assert ra["with_traces"]["span_accuracy"]["value"] == 1.0 and ra["with_traces"]["exact_match"]["value"] == 1.0
    assert ra["no_traces"]["span_accuracy"]["value"] == 0.5 and ra["no_traces"]["exact_match"]["value"] == 0.0

    ta = tasks["trace_attribution"]["settings"][0]
    assert ta["spans"] == 9 and ta["traces"] == 3
    assert ta["span_accuracy"]["value"] == pytest.approx(8 / 9)
    assert ta["exact_match"]["value"] == 0.5  # mission 1 has one wrong span, mission 2 is all right
    assert ta["trace_exact_match"]["value"] == pytest.approx(2 / 3)

    ri = {row["setting"]: row for row in tasks["role_inference"]["settings"]}
    for mode in "ABCD":
        assert ri[mode]["strict"]["value"] == pytest.approx((4 / 6 + 1) / 2)
        assert ri[mode]["relaxed"]["value"] == 1.0
        assert ri[mode]["weighted_strict"]["value"] == pytest.approx(0.4 * 4 / 6 + 0.6 * 1)
    assert tasks["role_inference"]["by_subject_role"]["assassin"]["A"] == pytest.approx(5 / 6)
    assert report["profile"] == "Trusts votes over speeches."


def test_rerun_resumes_and_redoes_only_a_cut_line(data_dir, tmp_path):
    session = load_sessions(data_dir)[1]
    out = tmp_path / "run"
    run(data_dir, out, scripted(anonymous_labels(session)[6]))
    results = out / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    results.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40], encoding="utf-8")  # a crash mid-write
    again = run(data_dir, out, scripted(anonymous_labels(session)[6]))
    assert (again.done, again.skipped) == (1, 14)
    assert run(data_dir, out, scripted("A")).done == 0


def test_model_error_is_recorded_and_retried(data_dir, tmp_path):
    out = tmp_path / "run"
    broken = ScriptedModel(by_step={"inmind_profile": ['{"profile": "x"}']})  # no replies for the tasks
    summary = run(data_dir, out, broken)
    assert summary.failed == 15 and build_report(out)["errors"] == 15


def test_cli_tasks_json_and_report(data_dir, tmp_path):
    from ui.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["inmind", "tasks", "--data", str(data_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["units"]["trace_attribution"] == 9
    session = load_sessions(data_dir)[1]
    out = tmp_path / "run"
    run(data_dir, out, scripted(anonymous_labels(session)[6]))
    shown = runner.invoke(app, ["inmind", "report", str(out)])
    assert shown.exit_code == 0 and "role inference" in shown.output
    as_json = json.loads(runner.invoke(app, ["inmind", "report", str(out), "--json"]).output)
    assert as_json["tasks"]["reflection_alignment"]["settings"][0]["setting"] == "with_traces"


def test_summary_mode_carries_the_models_own_summary_round_to_round(data_dir, tmp_path):
    def respond(step, messages):
        prompt = messages[-1]["content"]
        mission = 1 if "end of mission 1" in prompt else 2
        if step == "inmind_profile":
            return '{"profile": "p"}'
        if step == "inmind_trace":
            return json.dumps({"summary": f"TRACE-SUMMARY-{mission}", "fills": {}})
        if step == "inmind_roles":
            return json.dumps({"summary": f"ROLES-SUMMARY-{mission}", "roles": {}})
        raise AssertionError(step)

    model = ScriptedModel(responder=respond)
    summary = asyncio.run(run_inmind(data_dir, tmp_path / "run", model=model, tasks="ta,ri", dynamic="summary"))
    assert (summary.done, summary.failed) == (12, 0)
    second = [r["messages"][-1]["content"] for r in model.requests if "end of mission 2" in r["messages"][-1]["content"]]
    assert len(second) == 6  # two trace settings, four role modes
    for prompt in second:
        assert "我先上，4号也上" not in prompt  # mission 1's speeches are gone ...
        assert "SUMMARY-1" in prompt  # ... replaced by the model's own summary of them
    with pytest.raises(Exception, match="dynamic context 'summary'"):
        asyncio.run(run_inmind(data_dir, tmp_path / "run", model=model, tasks="ta", dynamic="full"))


def test_settings_filter_and_unknown_setting(data_dir, tmp_path):
    session = load_sessions(data_dir)[1]
    summary = asyncio.run(run_inmind(data_dir, tmp_path / "run", model=scripted(anonymous_labels(session)[6]), tasks="ri", settings=["A"], limit=1))
    assert summary.done == 1
    with pytest.raises(Exception, match="unknown setting 'Z'"):
        asyncio.run(run_inmind(data_dir, tmp_path / "run2", model=scripted("A"), tasks="ri", settings=["Z"]))


def test_cli_profile_builds_stage_one(data_dir, tmp_path):
    from ui.cli import app

    script = tmp_path / "model.yaml"
    script.write_text("steps:\n  inmind_profile: ['{\"profile\": \"Watches votes first.\"}']\n", encoding="utf-8")
    out = tmp_path / "profile.txt"
    result = CliRunner().invoke(app, ["inmind", "profile", "--data", str(data_dir), "--model", f"scripted:{script}", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Watches votes first." in result.output and out.read_text(encoding="utf-8").strip() == "Watches votes first."
