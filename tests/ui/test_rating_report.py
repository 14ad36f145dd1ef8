"""The report a study runner pastes into a paper: means with CIs, agreement, Bradley-Terry, CSV, plot."""
import csv
import io
import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from eval.ratings import bradley_terry, build_study, export_csv, krippendorff_alpha, mean_ci, study_report
from eval.ratings._store import RatingRow


def _rate_all(study, token, score_of):
    view = study.rater(token)
    while (item := view.next_item()) is not None:
        if item.kind == "ab":
            view.choose(item.id, score_of(item))
        else:
            view.submit(item.id, *score_of(item))


def _everyone_prefers_the_human_line(study, raters, others=(2, 2, 2)):
    """Every rater gives 5s to the real GM's line and ``others`` to the generated ones."""
    for r in raters:
        _rate_all(study, r.token, lambda item: (5, 5, 5) if "go ahead and roll" in item.utterance else others)
    return study_report(study.owner())


def test_report_means_follow_the_ratings(study, raters):
    rep = _everyone_prefers_the_human_line(study, raters)
    assert rep.raters == 2 and rep.ratings == 36
    assert rep.mean_of("human", "naturalness").mean == 5.0
    assert rep.mean_of("tbs_gm", "factual").mean == 2.0
    assert rep.alpha["naturalness"] == 1.0  # both raters agree on every item


def test_alpha_needs_two_raters(study, raters):
    _rate_all(study, raters[0].token, lambda item: (3, 4, 5))
    rep = study_report(study.owner())
    assert rep.alpha == {"naturalness": None, "groundedness": None, "factual": None}
    assert "two or more raters" in rep.alpha_note


def test_krippendorff_alpha_matches_the_package_on_disagreement():
    rows = [RatingRow("a", i, f"x{i}", "score", "c", None, {"naturalness": v}) for i, v in enumerate([1, 2, 3, 4, 5])]
    rows += [RatingRow("b", i, f"x{i}", "score", "c", None, {"naturalness": v}) for i, v in enumerate([5, 4, 3, 2, 1])]
    assert krippendorff_alpha(rows, "naturalness") < 0


def test_mean_ci_contains_the_mean_and_narrows_with_more_data():
    mean, low, high = mean_ci([3, 4, 5, 4, 3])
    assert low < mean < high
    _, low2, high2 = mean_ci([3, 4, 5, 4, 3] * 10)
    assert high2 - low2 < high - low
    assert mean_ci([]) == (None, None, None)


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefgh"), st.lists(st.integers(1, 5), min_size=1, max_size=6), min_size=2))
def test_clustered_ci_brackets_the_mean_within_1_to_5(by_context):
    mean, low, high = mean_ci(by_context)
    assert 1 <= low <= mean <= high <= 5


def test_bradley_terry_ranks_the_condition_that_wins_more():
    pairs = [("human", "tbs", "a")] * 8 + [("human", "tbs", "b")] * 2 + [("tbs", "template", "a")] * 7 + [("tbs", "template", "tie")] * 3
    pairs += [("template", "human", "b")] * 9 + [("template", "human", "a")]
    scores = {b.condition: b for b in bradley_terry(pairs, ["human", "tbs", "template"])}
    assert scores["human"].score > scores["tbs"].score > scores["template"].score
    assert abs(sum(b.score for b in scores.values())) < 1e-6
    assert scores["tbs"].wins == 2 + 7 + 1.5


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["x", "y", "z"]), st.sampled_from(["x", "y", "z"]), st.sampled_from(["a", "b", "tie"])), max_size=40))
def test_bradley_terry_is_finite_and_centred(pairs):
    pairs = [p for p in pairs if p[0] != p[1]]
    result = bradley_terry(pairs, ["x", "y", "z"])
    assert all(np.isfinite(b.score) for b in result)
    if result:
        assert abs(sum(b.score for b in result)) < 1e-6


def test_ab_study_feeds_bradley_terry(tmp_path, demo_runs):
    s, _, _ = build_study(demo_runs, tmp_path / "ab.db", n=6, include_human=True, mode="ab")
    admin = s.owner()
    for name in ("ann", "ben"):
        _rate_all(s, admin.add_rater(name).token, lambda item: "a" if "go ahead" in item.utterance else ("b" if "go ahead" in item.utterance_b else "tie"))
    rep = study_report(admin)
    assert rep.choices == 2 * 6 * 3
    assert rep.bradley_terry[0].condition == "human"


def test_csv_export_has_one_row_per_rating(study, raters):
    _rate_all(study, raters[0].token, lambda item: (1, 2, 3))
    rows = list(csv.DictReader(io.StringIO(export_csv(study.owner()))))
    assert len(rows) == 18
    assert {r["condition"] for r in rows} == {"tbs_gm", "template_gm", "human"}
    assert rows[0]["rater"] == "alice" and rows[0]["factual"] == "3"


def test_cli_create_then_report_with_json_csv_and_plot(tmp_path, demo_runs, monkeypatch):
    from ui.cli import app

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    out = runner.invoke(app, ["rate", "create", "--from", str(demo_runs[0]), str(demo_runs[1]), "--n", "5",
                              "--include-human", "-o", "s.db", "--raters", "alice,bob", "--json"])
    assert out.exit_code == 0, out.output
    made = json.loads(out.output)
    assert made["items"] == 15 and made["conditions"] == ["tbs_gm", "template_gm", "human"]
    assert [r["name"] for r in made["raters"]] == ["alice", "bob"] and "?token=" in made["admin_link"]
    from eval.ratings import Study

    s = Study.open("s.db")
    _rate_all(s, made["raters"][0]["link"].split("token=")[1], lambda item: (4, 4, 4))
    out = runner.invoke(app, ["rate", "report", "s.db", "--csv", "r.csv", "--plot", "r.png", "--json"])
    assert out.exit_code == 0, out.output
    rep = json.loads(out.output)
    assert rep["ratings"] == 15 and {m["condition"] for m in rep["means"]} == {"tbs_gm", "template_gm", "human"}
    assert (tmp_path / "r.csv").read_text().count("\n") == 16
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    table = runner.invoke(app, ["rate", "report", "s.db"])
    assert "Naturalness" in table.output and "human" in table.output


def test_cli_user_errors_are_one_line(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", "rate", "report", str(tmp_path / "none.db")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no such study file" in proc.stderr


def test_paired_differences_against_the_human_line(study, raters):
    rep = _everyone_prefers_the_human_line(study, raters, others=(2, 3, 2))
    assert rep.baseline == "human"
    t = rep.paired["tbs_gm"]["naturalness"]
    assert t["diff"] == -3.0 and t["high"] < 0 and t["p_value"] < 0.1 and t["n"] == 6
