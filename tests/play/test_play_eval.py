"""`vgm play eval`: case files fail in one line, the metrics mean what they say, runs resume and count errors.

No model here: the runner is driven by a fake GM that answers from a table.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer
from typer.testing import CliRunner

from eval.play import (
    DEV_CASES, FINAL_CASES, FRESH2_CASES, FRESH3_CASES, FRESH4_CASES, FRESH_CASES, HELDOUT_CASES, CaseError, load_cases, narration_problem, outcome_of, parse_cases, read_decisions,
    run_cases, summarize,
)
from pipelines.records import Check
from rulesets import VgmError

GOOD_NARRATION = "The stone groans as you push, and a thin line of dust drifts from the ceiling above."


def write_cases(tmp_path: Path, cases: list[dict], name: str = "cases.yaml") -> Path:
    import yaml

    path = tmp_path / name
    path.write_text(yaml.safe_dump({"cases": cases}, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def case(id: str, **over) -> dict:
    base = {"id": id, "ruleset": "dnd5e", "scene": "A rain-slick courtyard with a high wall.",
            "line": "I climb the wall.", "expect": {"roll": True, "checks": ["athletics", "acrobatics"]}}
    base.update(over)
    return base


# ----- case files: every mistake is one line naming the case and the key ------------------------

def error_of(tmp_path: Path, *cases: dict) -> str:
    with pytest.raises(CaseError) as info:
        load_cases(write_cases(tmp_path, list(cases)))
    message = str(info.value)
    assert "\n" not in message
    return message


def test_unknown_ruleset_names_case_key_and_the_trpg_packs(tmp_path):
    msg = error_of(tmp_path, case("ok"), case("moon-base", ruleset="starfinder"))
    assert "cases.yaml:" in msg and "'moon-base'" in msg and "'ruleset'" in msg
    assert all(p in msg for p in ("dnd5e", "coc7e", "pf2e", "swade")) and "avalon" not in msg


def test_social_pack_is_not_a_play_ruleset(tmp_path):
    assert "'ruleset'" in error_of(tmp_path, case("mafia-line", ruleset="mafia"))


def test_unknown_check_id_names_case_key_and_closest_ids(tmp_path):
    msg = error_of(tmp_path, case("typo", expect={"roll": True, "checks": ["athletics", "percepshun"]}))
    assert "'typo'" in msg and "expect.checks[1]" in msg and "perception" in msg


def test_check_aliases_resolve_to_ids(tmp_path):
    [c] = load_cases(write_cases(tmp_path, [case("alias", expect={"roll": True, "checks": ["Wisdom (Perception)", "sneak"]})]))
    assert c.expect.checks == ["perception", "stealth"]


def test_missing_line_names_case_and_key(tmp_path):
    bad = case("no-words")
    del bad["line"]
    msg = error_of(tmp_path, bad)
    assert "'no-words'" in msg and "'line'" in msg


def test_scene_and_scenario_together_is_an_error(tmp_path):
    msg = error_of(tmp_path, case("both", scenario="drowned_chapel"))
    assert "'both'" in msg and "'scenario'" in msg and "not both" in msg


def test_neither_scene_nor_scenario_is_an_error(tmp_path):
    bad = case("nowhere")
    del bad["scene"]
    msg = error_of(tmp_path, bad)
    assert "'nowhere'" in msg and "'scene'" in msg


def test_unknown_character_names_the_case(tmp_path):
    msg = error_of(tmp_path, case("who", character="Gandalf"))
    assert "'who'" in msg and "'character'" in msg and "Brisa Tallowmere" in msg


def test_default_character_is_the_packs_first_ready_one(tmp_path):
    [c] = load_cases(write_cases(tmp_path, [case("default")]))
    assert c.character == "Brisa Tallowmere"


def test_impossible_implies_no_roll_and_a_roll_with_it_is_an_error(tmp_path):
    [c] = load_cases(write_cases(tmp_path, [case("fly", line="I fly to the moon.", expect={"impossible": True})]))
    assert c.expect.roll is False and c.kind == "impossible"
    msg = error_of(tmp_path, case("fly2", expect={"roll": True, "impossible": True}))
    assert "'fly2'" in msg and "expect.roll" in msg


def test_duplicate_ids_are_an_error(tmp_path):
    msg = error_of(tmp_path, case("twice"), case("twice"))
    assert "'twice'" in msg and "duplicate" in msg


@pytest.mark.parametrize("content, words", [
    (None, "no such case file"),
    (b"cases: [ {id: x,\n", "not valid YAML"),
    (b"cases:\n  - id: caf\xe9\n", "not UTF-8"),
])
def test_bad_files_are_one_line_vgm_errors(tmp_path, content, words):
    path = tmp_path / "bad.yaml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(VgmError) as info:
        load_cases(path)
    assert words in str(info.value) and "\n" not in str(info.value) and "bad.yaml" in str(info.value)


# ----- the metrics ----------------------------------------------------------------------------

def cases_for_metrics():
    return parse_cases([
        case("r1", expect={"roll": True, "checks": ["athletics", "acrobatics"]}),
        case("r2", line="I sneak past the guard.", expect={"roll": True, "checks": ["stealth"]}),
        case("r3", line="I look for tracks.", expect={"roll": True, "checks": ["survival"]}),
        case("n1", line="I order a drink.", expect={"roll": False}),
        case("n2", line="What time is it?", expect={"roll": False}),
        case("i1", line="I lift the castle over my head.", expect={"impossible": True}),
    ])


def rec(id, outcome, checks=(), narration=GOOD_NARRATION, turn_s=1.0, first=0.2, decision=None):
    decision = decision or {"refused": "impossible", "none": "no_roll"}.get(outcome, "roll")
    return {"id": id, "decision": decision, "outcome": outcome, "narration": narration,
            "checks": [{"character": "Brisa Tallowmere", "skill": s} for s in checks], "turn_s": turn_s, "first_token_s": first}


def test_balanced_roll_accuracy_weighs_both_sides_equally():
    s = summarize(cases_for_metrics(), [
        rec("r1", "success", ["athletics"]), rec("r2", "failure", ["stealth"]), rec("r3", "none"),
        rec("n1", "none"), rec("n2", "success", ["perception"]), rec("i1", "refused"),
    ])
    assert s.roll_recall == pytest.approx(2 / 3)
    assert s.no_roll_accuracy == pytest.approx(2 / 3)  # n1 and i1 held back, n2 rolled
    assert s.balanced_roll_accuracy == pytest.approx(2 / 3)
    assert s.n == 6 and s.errors == 0


def test_always_rolling_scores_half_whatever_the_mix():
    s = summarize(cases_for_metrics(), [rec(c, "success", ["athletics"]) for c in ("r1", "r2", "r3", "n1", "n2", "i1")])
    assert s.balanced_roll_accuracy == pytest.approx(0.5)


def test_right_check_takes_the_first_call_and_resolves_aliases():
    s = summarize(cases_for_metrics(), [
        rec("r1", "success", ["Acrobatics"]),            # an alias of an expected id: right
        rec("r2", "success", ["perception", "stealth"]),  # the first call is what counts: wrong
        rec("r3", "none"),                                # nothing called: wrong
    ])
    assert s.right_check_n == 3 and s.right_check == pytest.approx(1 / 3)


def test_impossible_acts_that_succeed_are_counted():
    s = summarize(cases_for_metrics(), [rec("i1", "success", ["athletics"])])
    assert s.impossible_n == 1 and s.impossible_succeeded == 1 and s.impossible_refused == 0
    s = summarize(cases_for_metrics(), [rec("i1", "refused")])
    assert s.impossible_succeeded == 0 and s.impossible_refused == 1 and s.impossible_told == 0


def test_an_impossible_act_given_no_roll_is_counted_as_told_not_hidden():
    """No dice, no refusal: the GM narrates it as simply happening ('the letter has been read')."""
    s = summarize(cases_for_metrics(), [rec("i1", "none")])
    assert s.impossible_succeeded == 0 and s.impossible_told == 1 and s.impossible_refused == 0
    assert s.per_ruleset and next(iter(s.per_ruleset.values())).impossible_told == 1


def test_narration_that_echoes_the_line_is_not_ok():
    line = "I sneak past the guard and slip through the door into the kitchen."
    assert narration_problem("You sneak past the guard and slip through the door into the kitchen.", line) == "echo"
    assert narration_problem(f"Brisa says: {line} Then she waits there quietly.", line) == "echo"
    assert narration_problem("The guard yawns, never turning, and the kitchen smells of burnt bread and onions.", line) is None


@pytest.mark.parametrize("text", [
    "Now, as the GM, tell Brisa what happens when the door finally opens wide.",
    "GM: The door swings open and the cold air pours into the hallway around you.",
    "The dice clatter and the guard turns slowly toward the shadows where you hide.",
    'The check succeeds and you slip past the guard unseen into the dark kitchen.',
    '{"narration": "The guard never notices you as you pass into the kitchen"}',
])
def test_narration_with_prompt_text_is_not_ok(text):
    assert narration_problem(text, "I sneak past the guard.") == "prompt text"


def test_short_narration_is_not_ok():
    assert narration_problem("You succeed.", "I sneak past the guard.") == "short"


def test_summary_reports_narration_times_and_rulesets():
    s = summarize(cases_for_metrics(), [
        rec("r1", "success", ["athletics"], turn_s=2.0, first=0.5),
        rec("r2", "success", ["stealth"], narration="I sneak past the guard.", turn_s=4.0, first=None),
        {"id": "n1", "error": "RuntimeError: boom"},
    ])
    assert s.n == 3 and s.answered == 2 and s.errors == 1 and s.error_ids == ["n1"]
    assert s.narration_ok == pytest.approx(0.5) and s.narration_problems == {"short": 1}
    assert s.turn_s_p50 == pytest.approx(3.0) and s.first_token_s_p50 == pytest.approx(0.5)
    assert list(s.per_ruleset) == ["dnd5e"] and s.per_ruleset["dnd5e"].errors == 1


def test_outcome_mapping():
    ok, bad, unjudged = SimpleNamespace(success=True), SimpleNamespace(success=False), SimpleNamespace(success=None)
    assert outcome_of("impossible", [ok]) == "refused"
    assert outcome_of("no_roll", []) == "none"
    assert outcome_of("roll", [ok, ok]) == "success"
    assert outcome_of("roll", [ok, bad]) == "failure"
    assert outcome_of("roll", [unjudged]) == "failure"


# ----- the runner -------------------------------------------------------------------------------

class FakeGM:
    """Answers every line the same way: a roll for lines with 'climb', else no roll; 'boom' raises."""

    made: list[str] = []

    def __init__(self, case, model, seed):
        FakeGM.made.append(case.id)
        self.closed = False

    def step(self, character, line):
        if "boom" in line:
            raise RuntimeError("model server went away")
        if "broken" in line:  # the turn goes on, but without its decision
            return SimpleNamespace(decision="no_roll", checks=[], rolls=[], narration=GOOD_NARRATION,
                                   notes=["the decision step failed (TypeError: x); no roll this time"],
                                   failed="decision step: TypeError: x")
        if "climb" in line:
            return SimpleNamespace(decision="roll", checks=[Check(character=character, skill="athletics")],
                                   rolls=[SimpleNamespace(success=True, check="athletics")], narration=GOOD_NARRATION,
                                   notes=[], timing={"turn_s": 1.5, "first_token_s": 0.3})
        return SimpleNamespace(checks=[], rolls=[], narration=GOOD_NARRATION, notes=[])  # an older GM: no decision, no timing

    def close(self):
        self.closed = True


@pytest.fixture
def fake():
    FakeGM.made = []
    return FakeGM


def test_run_writes_one_line_per_case_and_a_summary(tmp_path, fake):
    cases = parse_cases([case("c1"), case("c2", line="I order a drink.", expect={"roll": False})])
    summary = run_cases(cases, "fake", tmp_path / "run", make_gm=fake)
    lines = [json.loads(x) for x in (tmp_path / "run" / "decisions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == ["c1", "c2"]
    first = lines[0]
    assert first["checks"] == [{"character": "Brisa Tallowmere", "skill": "athletics"}] and first["outcome"] == "success"
    assert first["turn_s"] == 1.5 and first["first_token_s"] == 0.3
    assert lines[1]["outcome"] == "none" and lines[1]["decision"] == "no_roll" and lines[1]["first_token_s"] is None
    assert summary.balanced_roll_accuracy == 1.0
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["n"] == 2


def test_rerun_skips_ids_already_written(tmp_path, fake):
    cases = parse_cases([case("c1"), case("c2"), case("c3")])
    run_cases(cases[:2], "fake", tmp_path / "run", make_gm=fake)
    fake.made.clear()
    seen = []
    summary = run_cases(cases, "fake", tmp_path / "run", make_gm=fake, on_progress=lambda d, t, r: seen.append((d, t, r and r["id"])))
    assert fake.made == ["c3"]
    assert seen == [(2, 3, None), (3, 3, "c3")]
    assert [r["id"] for r in read_decisions(tmp_path / "run" / "decisions.jsonl")] == ["c1", "c2", "c3"]
    assert summary.n == 3


def test_a_torn_last_line_is_played_again(tmp_path, fake):
    cases = parse_cases([case("c1"), case("c2")])
    run_cases(cases[:1], "fake", tmp_path / "run", make_gm=fake)
    with (tmp_path / "run" / "decisions.jsonl").open("a") as handle:
        handle.write('{"id": "c2", "outcome": "succ')
    fake.made.clear()
    run_cases(cases, "fake", tmp_path / "run", make_gm=fake)
    assert fake.made == ["c2"]


def test_a_case_that_raises_is_recorded_and_counted(tmp_path, fake):
    cases = parse_cases([case("c1"), case("bad", line="boom, I climb")])
    summary = run_cases(cases, "fake", tmp_path / "run", make_gm=fake)
    records = {r["id"]: r for r in read_decisions(tmp_path / "run" / "decisions.jsonl")}
    assert records["bad"]["error"] == "RuntimeError: model server went away"
    assert summary.errors == 1 and summary.error_ids == ["bad"] and summary.n == 2 and summary.answered == 1
    assert summary.roll_recall == 1.0  # the error is not scored as a missed roll
    fake.made.clear()
    run_cases(cases, "fake", tmp_path / "run", make_gm=fake)
    assert fake.made == ["bad"]  # a rerun retries the errored case


def test_a_turn_that_went_on_without_its_decision_is_an_error_not_a_no_roll(tmp_path, fake):
    cases = parse_cases([case("c1"), case("half", line="a broken climb")])
    summary = run_cases(cases, "fake", tmp_path / "run", make_gm=fake)
    records = {r["id"]: r for r in read_decisions(tmp_path / "run" / "decisions.jsonl")}
    assert records["half"]["error"] == "the GM went on without its decision step: TypeError: x"
    assert records["half"]["narration"] == GOOD_NARRATION  # what it did say is kept for reading
    assert summary.errors == 1 and summary.error_ids == ["half"] and summary.roll_recall == 1.0


def test_a_rerun_with_another_seed_is_refused(tmp_path, fake):
    cases = parse_cases([case("c1")])
    run_cases(cases, "fake", tmp_path / "run", make_gm=fake, seed=7)
    with pytest.raises(VgmError, match="seed"):
        run_cases(cases, "fake", tmp_path / "run", make_gm=fake, seed=8)


def test_cli_exits_1_when_a_case_errored_unless_allowed(tmp_path, fake, monkeypatch):
    import eval.play._runner as runner
    from ui.cli_play_eval import play_eval

    monkeypatch.setattr(runner, "_default_gm", fake)
    monkeypatch.setattr(runner, "_shared_model", lambda model: model)
    path = write_cases(tmp_path, [case("c1"), case("bad", line="boom")])
    app = typer.Typer()
    app.command()(play_eval)
    result = CliRunner().invoke(app, [str(path), "-o", str(tmp_path / "run"), "--json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["errors"] == 1
    result = CliRunner().invoke(app, [str(path), "-o", str(tmp_path / "run"), "--allow-errors"])
    assert result.exit_code == 0, result.output


def test_cli_bad_case_file_is_a_vgm_error(tmp_path):
    from ui.cli_play_eval import play_eval

    app = typer.Typer()
    app.command()(play_eval)
    result = CliRunner().invoke(app, [str(tmp_path / "missing.yaml")])
    assert isinstance(result.exception, VgmError) and "no such case file" in str(result.exception)


# ----- the shipped sets -----------------------------------------------------------------------

@pytest.mark.parametrize("path", [DEV_CASES, HELDOUT_CASES, FINAL_CASES, FRESH_CASES, FRESH2_CASES, FRESH3_CASES, FRESH4_CASES],
                         ids=["dev", "heldout", "final", "fresh", "fresh2", "fresh3", "fresh4"])
def test_shipped_case_sets_load_and_have_the_promised_mix(path):
    cases = load_cases(path)
    assert len(cases) >= 64
    per_pack = Counter(c.ruleset for c in cases)
    assert {p: per_pack[p] for p in ("dnd5e", "coc7e", "pf2e", "swade")} == {p: 16 for p in ("dnd5e", "coc7e", "pf2e", "swade")}
    for pack in ("dnd5e", "coc7e", "pf2e", "swade"):
        kinds = Counter(c.kind for c in cases if c.ruleset == pack)
        assert 4 <= kinds["no_roll"] <= 7, (pack, kinds)
        assert 2 <= kinds["impossible"] <= 3, (pack, kinds)
        assert kinds["roll"] >= 7, (pack, kinds)
    rolls = [c for c in cases if c.kind == "roll"]
    assert all(c.expect.checks for c in rolls)
    first_checks = Counter(c.expect.checks[0] for c in rolls)
    assert len(first_checks) >= 20 and first_checks.most_common(1)[0][1] <= 4  # varied, not all perception
    assert any(c.scenario for c in cases) and any(c.scene for c in cases)


def test_dev_and_heldout_are_different_situations():
    dev, held = load_cases(DEV_CASES), load_cases(HELDOUT_CASES)
    assert not {c.id for c in dev} & {c.id for c in held}
    assert not {c.line.lower() for c in dev} & {c.line.lower() for c in held}
    inline = lambda cs: {c.scene for c in cs if c.scene}  # noqa: E731
    assert not inline(dev) & inline(held)


def test_the_sets_are_written_apart():
    """No id is in two sets, and two sets share at most one line (three writers each came up with
    "I walk up to the bar and order a whiskey.")."""
    sets = [load_cases(p) for p in (DEV_CASES, HELDOUT_CASES, FINAL_CASES, FRESH_CASES, FRESH2_CASES, FRESH3_CASES, FRESH4_CASES)]
    for i, a in enumerate(sets):
        for b in sets[i + 1:]:
            assert not {c.id for c in a} & {c.id for c in b}
            assert len({" ".join(c.line.lower().split()) for c in a} & {" ".join(c.line.lower().split()) for c in b}) <= 1
