"""A/B as Chatbot Arena runs it (issue 44): tie and "both bad", Bradley-Terry with bootstrap CIs and a length covariate."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from eval.ratings import InvalidRating, StudyError, bradley_terry, build_from_items, study_report


def simulate(n: int, strengths: dict[str, float], beta: float, longer: str, seed: int = 0) -> list[tuple]:
    """Battles drawn from the Bradley-Terry model with a length effect; ``longer`` writes 60 characters more."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    out = []
    for _ in range(n):
        a, b = rng.choice(names, 2, replace=False)
        la = int(rng.integers(20, 200)) + (60 if a == longer else 0)
        lb = int(rng.integers(20, 200)) + (60 if b == longer else 0)
        p = 1 / (1 + np.exp(-(strengths[a] - strengths[b] + beta * (la - lb) / (la + lb))))
        out.append((a, b, "a" if rng.random() < p else "b", la, lb))
    return out


def test_the_length_covariate_takes_out_the_taste_for_longer_lines():
    battles = simulate(1500, {"x": 0.0, "y": 0.0, "z": 0.5}, beta=3.0, longer="x")
    plain = {b.condition: b for b in bradley_terry(battles, ["x", "y", "z"], bootstrap=60)}
    assert plain["x"].low > plain["y"].high  # uncontrolled, the verbose condition looks better than its equal
    scores, effect = bradley_terry(battles, ["x", "y", "z"], bootstrap=60, control_length=True)
    fair = {b.condition: b for b in scores}
    assert fair["x"].low < fair["y"].score < fair["x"].high  # controlled, x and y are level again
    assert fair["z"].score > max(fair["x"].score, fair["y"].score)
    assert effect.low < 3.0 < effect.high and effect.coefficient > 2


def test_bootstrap_intervals_hold_the_estimate_and_narrow_with_more_battles():
    few = {b.condition: b for b in bradley_terry(simulate(60, {"x": 1.0, "y": 0.0}, 0.0, "x"), ["x", "y"], bootstrap=100)}
    many = {b.condition: b for b in bradley_terry(simulate(1200, {"x": 1.0, "y": 0.0}, 0.0, "x"), ["x", "y"], bootstrap=100)}
    for scores in (few, many):
        assert all(b.low <= b.score <= b.high for b in scores.values())
    assert many["x"].high - many["x"].low < (few["x"].high - few["x"].low) / 2
    assert many["x"].low < 0.5 < many["x"].high  # the truth is a gap of 1: +0.5 and -0.5 once centred


def test_tie_and_both_bad_are_half_a_win_each_way():
    pairs = [("x", "y", "a")] * 6 + [("x", "y", "b")] * 2 + [("x", "y", "tie")] * 3 + [("x", "y", "both_bad")] * 3
    scores = {b.condition: b for b in bradley_terry(pairs, ["x", "y"])}
    assert scores["x"].wins == 9 and scores["y"].wins == 5 and scores["x"].comparisons == 14
    same = {b.condition: b for b in bradley_terry([p if p[2] != "both_bad" else (*p[:2], "tie") for p in pairs], ["x", "y"])}
    assert scores["x"].score == pytest.approx(same["x"].score)


@pytest.fixture
def ab_items(tmp_path):
    rows = [{"id": f"c{k}", "context": f"scene {k}", "candidates": [{"condition": "terse", "text": "Roll."},
                                                                   {"condition": "verbose", "text": "Roll a check. " * (k + 2)}]}
            for k in range(6)]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    study, _, _ = build_from_items(tmp_path / "items.jsonl", tmp_path / "ab.db", mode="ab")
    return study


def test_a_rater_can_say_both_are_bad_and_the_report_counts_it(ab_items):
    view = ab_items.rater(ab_items.owner().add_rater("ann").token)
    answers = iter(["both_bad", "Both bad", "tie", "a", "b", "a"])
    first = None
    while (item := view.next_item()) is not None:
        first = first or item.id
        view.choose(item.id, next(answers))
    assert view.my_rating(first)["choice"] == "both_bad"
    with pytest.raises(InvalidRating, match="pick one of a, b, tie, both_bad"):
        view.choose(first, "neither")
    rep = study_report(ab_items.owner(), control="length")
    assert rep.ab_answers == {"a": 2, "b": 1, "tie": 1, "both_bad": 2} and rep.choices == 6
    assert rep.length_effect is not None and {b.condition for b in rep.bradley_terry} == {"terse", "verbose"}
    with pytest.raises(StudyError, match="--control 'colour'"):
        study_report(ab_items.owner(), control="colour")


def test_cli_report_with_length_control(ab_items, monkeypatch):
    from ui.cli import app

    view = ab_items.rater(ab_items.owner().add_rater("ann").token)
    while (item := view.next_item()) is not None:
        view.choose(item.id, "a" if len(item.utterance) > len(item.utterance_b) else "b")  # always the longer line
    out = CliRunner().invoke(app, ["rate", "report", str(ab_items.path), "--control", "length", "--bootstrap", "50"])
    assert out.exit_code == 0, out.output
    assert "length-controlled; bootstrap 95% CI over 50 resamples" in out.output
    assert "length effect: +" in out.output and "both bad 0" in out.output
