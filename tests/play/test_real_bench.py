"""`vgm play real`: the GM's decision on real player turns, scored against what the DM did next.

The fixture folder ``fixtures/crd3_mini`` holds three tiny hand-written episodes in the CRD3
shape (MATT is the DM): a few lines the DM answered with a check ("Make a perception check."),
one answered with a save, and lines that asked for nothing (roll results, table talk, thanks).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from eval.play import real_bench
from eval.play.real import RealTurn, real_turns
from eval.play.real_bench import (
    RATES, RealDecision, RealRunError, choose_episodes, read_real_decisions, run_real, score_real,
)
from rulesets import VgmError

MINI = Path(__file__).parent / "fixtures" / "crd3_mini"
ROOT = Path(__file__).resolve().parents[2]


def turn(episode: str, number: int, skills: list[str] = (), line: str = "I do a thing.") -> RealTurn:
    return RealTurn(episode=episode, number=number, speaker="Jester", line=line, scene="A room.", previous="", skills=list(skills))


class Scripted:
    """A decider that answers from a table keyed by (episode, number), and counts what it was asked."""

    def __init__(self, answers: dict[tuple[str, int], RealDecision] | None = None, *, pipeline: str = "scripted",
                 model: str | None = None, fail_after: int | None = None) -> None:
        self.answers = answers or {}
        self.pipeline, self.model, self.ruleset = pipeline, model, "dnd5e"
        self.asked: list[tuple[str, int]] = []
        self.fail_after = fail_after

    def decide(self, turns: list[RealTurn]) -> list[RealDecision]:
        if self.fail_after is not None and len(self.asked) >= self.fail_after:
            raise RuntimeError("the machine went down")
        self.asked += [(t.episode, t.number) for t in turns]
        return [self.answers.get((t.episode, t.number)) or self.oracle(t) for t in turns]

    @staticmethod
    def oracle(t: RealTurn) -> RealDecision:
        """Says exactly what the DM did."""
        return RealDecision(1.0 if t.positive else 0.0, "roll" if t.positive else "no_roll", list(t.skills))


# ----- the labels -----------------------------------------------------------------------------

def test_a_line_the_dm_answers_with_a_check_is_positive_and_the_rest_are_not():
    turns = {(t.episode, t.number): t for t in real_turns(MINI)}
    assert turns[("C2E901", 1)].line == "I press my ear to the door and listen."
    assert turns[("C2E901", 1)].skills == ["perception"]
    assert turns[("C2E901", 6)].skills == ["stealth"]  # "All right." then "Roll a stealth check": one run of DM turns
    assert turns[("C2E902", 7)].skills == ["dexterity_save"]
    assert not turns[("C2E901", 3)].positive  # "That's a 17." answers a check, it is not asked one
    assert not turns[("C2E902", 5)].positive  # thanks to the merchant
    assert turns[("C2E901", 1)].speaker == "Jester" and turns[("C2E901", 1)].scene.startswith("The door to the crypt")
    assert len(turns) == 13 and sum(t.positive for t in turns.values()) == 5


def test_episodes_by_name_or_by_split(tmp_path):
    assert choose_episodes(MINI, "C2E901,C2E903") == {"C2E901", "C2E903"}
    assert choose_episodes(MINI, None) is None
    split = tmp_path / "split.yaml"
    split.write_text("train: [C2E901, C2E902]\ntest: [C2E903, C2E999]\n")
    assert choose_episodes(MINI, "test", split) == {"C2E903"}
    with pytest.raises(RealRunError, match="C2E404 not found"):
        choose_episodes(MINI, "C2E901,C2E404")


# ----- the scores -----------------------------------------------------------------------------

def small_case():
    turns = [turn("A", 1, ["perception"]), turn("A", 2), turn("A", 3), turn("B", 1, ["stealth"]), turn("B", 2)]
    decisions = [
        RealDecision(0.9, "roll", ["perception", "insight"]),
        RealDecision(0.2, "no_roll", ["perception"]),
        RealDecision(0.6, "roll", ["athletics"]),
        RealDecision(0.4, "no_roll", ["athletics", "acrobatics", "stealth"]),  # ranked counts though it did not roll
        RealDecision(0.1, "impossible", []),
    ]
    return turns, decisions


def test_each_score_on_a_case_worked_by_hand():
    scores = score_real(*small_case(), resamples=50)
    assert (scores.turns, scores.positives, scores.episodes, scores.errors) == (5, 2, 2, 0)
    # positives 0.9 and 0.4 against negatives 0.2, 0.6, 0.1: 5 of the 6 pairs in order
    assert scores.roc_auc == pytest.approx(5 / 6, abs=1e-4)
    # by p_roll: pos, neg, pos, ...: precision 1/1 at the first positive, 2/3 at the second
    assert scores.average_precision == pytest.approx((1 + 2 / 3) / 2, abs=1e-4)
    assert scores.roll_rate_negatives == pytest.approx(1 / 3, abs=1e-4)
    assert scores.recall == 0.5
    assert scores.skill_top1 == 0.5 and scores.skill_top3 == 1.0
    assert scores.impossible_rate == 0.2
    for key in RATES:
        low, high = scores.ci[key]
        assert 0 <= low <= high <= 1


def test_saves_and_initiative_are_not_scored_as_the_lines_check():
    turns = [turn("A", 1, ["constitution_save"]), turn("A", 2, ["initiative", "perception"]), turn("A", 3)]
    decisions = [RealDecision(1, "roll", ["constitution_save"]), RealDecision(1, "roll", ["perception"]), RealDecision(0, "no_roll", [])]
    scores = score_real(turns, decisions, resamples=10)
    assert scores.skill_scored == 1 and scores.skill_top1 == 1.0
    assert scores.recall == 1.0  # the save still counts as the DM rolling


def test_rates_with_nothing_to_count_are_none_not_zero():
    scores = score_real([turn("A", 1), turn("B", 1)], [RealDecision(0.3, "no_roll", []), RealDecision(0.1, "no_roll", [])], resamples=20)
    assert scores.roc_auc is None and scores.average_precision is None and scores.recall is None
    assert scores.ci["roc_auc"] is None and scores.skill_top1 is None
    assert scores.roll_rate_negatives == 0.0


def test_the_bootstrap_is_fixed_by_its_seed():
    case = small_case()
    assert score_real(*case, resamples=200, seed=3).ci == score_real(*case, resamples=200, seed=3).ci


labels = st.lists(st.tuples(st.sampled_from("ABCD"), st.lists(st.sampled_from(["perception", "stealth", "dexterity_save"]), max_size=2, unique=True)),
                  min_size=1, max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labels, st.lists(st.floats(0, 1), min_size=30, max_size=30), st.lists(st.sampled_from(["roll", "no_roll", "impossible"]), min_size=30, max_size=30))
def test_scores_stay_in_bounds_and_the_dms_own_calls_rank_perfectly(golds, p, decided):
    turns = [turn(e, i, skills) for i, (e, skills) in enumerate(golds)]
    oracle = score_real(turns, [Scripted.oracle(t) for t in turns], resamples=30)
    both = 0 < oracle.positives < oracle.turns
    assert (oracle.roc_auc == 1.0) if both else oracle.roc_auc is None
    assert oracle.roll_rate_negatives in (0.0, None) and oracle.recall in (1.0, None)
    anyone = score_real(turns, [RealDecision(p[i], decided[i], ["stealth", "perception"]) for i in range(len(turns))], resamples=30)
    for key in RATES:
        value, ci = getattr(anyone, key), anyone.ci[key]
        assert value is None or 0 <= value <= 1
        assert ci is None or 0 <= ci[0] <= ci[1] <= 1


# ----- a run folder ---------------------------------------------------------------------------

def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_run_writes_one_line_per_turn_and_a_summary(tmp_path):
    turns = list(real_turns(MINI))
    scores = run_real(turns, Scripted(), tmp_path / "run", batch=4, resamples=20)
    records = lines_of(tmp_path / "run" / "decisions.jsonl")
    assert len(records) == 13
    assert set(records[0]) == {"episode", "number", "positive", "skills", "p_roll", "decision", "ranked"}
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["roc_auc"] == scores.roc_auc == 1.0
    assert json.loads((tmp_path / "run" / "run.json").read_text())["pipeline"] == "scripted"


def test_a_crashed_run_is_completed_not_redone(tmp_path):
    turns = list(real_turns(MINI))
    with pytest.raises(RuntimeError):
        run_real(turns, Scripted(fail_after=8), tmp_path / "run", batch=4, resamples=20)
    decisions = tmp_path / "run" / "decisions.jsonl"
    assert len(lines_of(decisions)) == 8  # two batches made it to disk before the crash
    with decisions.open("a") as handle:
        handle.write('{"episode": "C2E902", "number": 7, "posi')  # and a line torn mid-write
    again = Scripted()
    scores = run_real(turns, again, tmp_path / "run", batch=4, resamples=20)
    assert again.asked[0] == ("C2E902", 7) and len(again.asked) == 5
    assert sorted((r["episode"], r["number"]) for r in lines_of(decisions)) == sorted((t.episode, t.number) for t in turns)
    assert scores.turns == 13 and scores.extra["decided"] == 5


def test_a_turn_that_errored_is_decided_again_on_the_rerun(tmp_path):
    turns = list(real_turns(MINI, episodes={"C2E903"}))
    broken = Scripted({("C2E903", 3): RealDecision(0.0, "no_roll", [], error="ModelError: timed out")})
    assert run_real(turns, broken, tmp_path / "run", resamples=10).errors == 1
    again = Scripted()
    assert run_real(turns, again, tmp_path / "run", resamples=10).errors == 0
    assert again.asked == [("C2E903", 3)]


def test_a_folder_of_another_pipeline_or_model_is_refused(tmp_path):
    turns = list(real_turns(MINI, episodes={"C2E903"}))
    run_real(turns, Scripted(model="local:small"), tmp_path / "run", resamples=10)
    with pytest.raises(RealRunError, match="pipeline 'scripted', not 'other'"):
        run_real(turns, Scripted(pipeline="other", model="local:small"), tmp_path / "run")
    with pytest.raises(RealRunError, match="model 'local:small', not 'local'"):
        run_real(turns, Scripted(model="local"), tmp_path / "run")


def test_a_decisions_file_edited_by_hand_is_named_with_its_line(tmp_path):
    path = tmp_path / "decisions.jsonl"
    path.write_text('{"episode": "A", "number": 1}\nnot json\n{"episode": "A", "number": 2}\n')
    with pytest.raises(VgmError, match="decisions.jsonl:2"):
        read_real_decisions(path)


# ----- the command ----------------------------------------------------------------------------

def vgm(*args: str):
    from ui.cli import app

    return CliRunner().invoke(app, ["play", "real", *args])


@pytest.fixture
def scripted_pipeline(monkeypatch):
    """`--pipeline` builds a Scripted oracle decider instead of the real pipeline."""
    def make(pipeline="adjudicate", model=None, ruleset="dnd5e"):
        return Scripted(pipeline=pipeline, model=model)
    monkeypatch.setattr(real_bench, "PipelineDecider", make)


def test_json_prints_one_object_with_every_score(tmp_path, scripted_pipeline):
    result = vgm(str(MINI), "--json", "-o", str(tmp_path / "run"), "--limit", "2")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"turns", "positives", "episodes", "errors", *RATES, "ci", "pipeline", "model", "turns_per_s"} <= set(data)
    assert data["turns"] == 6 and data["episodes"] == 3  # --limit 2: the first two player turns of each episode
    assert set(data["ci"]) == set(RATES)


def test_the_table_names_the_scores(tmp_path, scripted_pipeline):
    result = vgm(str(MINI), "--episodes", "C2E901")
    assert result.exit_code == 0, result.output
    assert "ROC AUC" in result.stdout and "5 player turns, 2 followed by a check" in result.stdout


@pytest.mark.parametrize("args, says", [
    (["{tmp}/nowhere"], "no such file or folder"),
    (["{tmp}"], "no CRD3 episode .json files"),
    (["{tmp}/notcrd3.json"], "no 'TURNS' list"),
    (["{mini}", "--pipeline", "no_such_pipeline"], "unknown pipeline 'no_such_pipeline'"),
    (["{mini}", "--model", "gpt-5"], "unknown model string 'gpt-5'"),
    (["{mini}", "--episodes", "C2E404"], "C2E404 not found"),
    (["{mini}", "--episodes", "test"], "none of the test episodes"),
])
def test_bad_input_is_one_clear_line(tmp_path, args, says):
    (tmp_path / "sub").mkdir()
    (tmp_path / "notcrd3.json").write_text('{"turns": []}')
    tmp = tmp_path / "sub" if args == ["{tmp}"] else tmp_path
    result = vgm(*(a.format(tmp=tmp, mini=MINI) for a in args))
    assert isinstance(result.exception, VgmError), result.output
    assert result.stderr.strip().count("\n") == 0 and result.stderr.startswith("error: ") and says in result.stderr


def test_bad_input_from_the_shell_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", "play", "real", str(tmp_path / "nowhere"), "--json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"error: {tmp_path / 'nowhere'}: no such file or folder; give a folder of CRD3 episode .json files"]


def test_the_real_decision_pipeline_end_to_end(tmp_path):
    """No fakes: the shipped `adjudicate` pipeline (MiniLM retrieval, no LLM) on every fixture turn."""
    result = vgm(str(MINI), "--json", "-o", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["turns"], data["positives"], data["errors"], data["pipeline"]) == (13, 5, 0, "adjudicate")
    for key in RATES:
        assert data[key] is None or 0 <= data[key] <= 1
    records = {(r["episode"], r["number"]): r for r in lines_of(tmp_path / "run" / "decisions.jsonl")}
    assert len(records) == 13 and all(r["decision"] in ("roll", "no_roll", "impossible") for r in records.values())
    assert "perception" in records[("C2E901", 1)]["ranked"][:3]  # "I press my ear to the door and listen."
    again = vgm(str(MINI), "--json", "-o", str(tmp_path / "run"))  # everything already decided: same scores, nothing redone
    assert json.loads(again.stdout)["decided"] == 0 and json.loads(again.stdout)["roc_auc"] == data["roc_auc"]
