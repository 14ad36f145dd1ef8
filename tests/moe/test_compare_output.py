"""What `vgm moe compare` prints: whole numbers when piped, and three sentences saying what it found."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from eval.moe.report import CompareReport, Row, findings


def _piped(args: list[str], cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    return subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_piped_compare_prints_every_number_whole(tmp_path):
    out = tmp_path / "runs"
    proc = _piped(["moe", "compare", "--pipelines", "last_speaker,statistic,oracle_char", "--data", "sample", "-o", str(out)], cwd=os.getcwd())
    assert proc.returncode == 0, proc.stderr
    shown = proc.stdout
    assert "…" not in shown, "a cell or a progress line was cut to fit 80 columns"
    rows = json.loads((out / "report.json").read_text())["rows"]
    for row in rows:
        line = next(x for x in shown.splitlines() if x.strip().startswith(row["pipeline"] + " "))
        for key in ("cf", "sf"):
            assert f"{100 * row[key]['value']:.1f} ({100 * row[key]['low']:.0f}–{100 * row[key]['high']:.0f})" in line
        assert f"{row['pipeline']}: {row['n']}/{row['n']} instances" in shown, "one plain progress line per pipeline"
    assert "\x1b[" not in shown, "no terminal codes in a file"
    again = _piped(["moe", "compare", "--pipelines", "last_speaker,statistic,oracle_char", "--data", "sample", "-o", str(out)], cwd=os.getcwd())
    assert "last_speaker: 20/20 instances, all done by an earlier run" in again.stdout, "a resumed run claims no CF of 0"


def test_compare_ends_with_three_sentences_naming_the_best_and_the_files(tmp_path):
    out = tmp_path / "runs"
    proc = _piped(["moe", "compare", "--pipelines", "last_speaker,statistic,oracle_char", "--data", "sample", "-o", str(out)], cwd=os.getcwd())
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())  # sentences may wrap at the terminal's width
    rows = {r["pipeline"]: r for r in json.loads((out / "report.json").read_text())["rows"]}
    best_cf = max(("last_speaker", "statistic"), key=lambda p: rows[p]["cf"]["value"])
    assert f"Best on CF: {best_cf}" in said and "best on SF:" in said
    assert "oracle_char is handed the gold characters" in said, "the upper bound is shown, not ranked"
    assert "Against the last_speaker baseline (over only 20 instances" in said, "20 sample instances: a hint, said so"
    assert f"{out / 'report.md'}" in said and f"{out / 'compare.png'}" in said


def _row(name: str, cf: tuple[float, float, float], sf: tuple[float, float, float], n: int = 100) -> Row:
    iv = lambda v: {"value": v[0], "low": v[1], "high": v[2]}  # noqa: E731
    return Row(pipeline=name, model=None, folder=name, metrics={"n": n, "cf": iv(cf), "sf": iv(sf)})


def _test(diff: float, low: float, high: float) -> dict:
    return {"diff": diff, "low": low, "high": high, "p_value": 0.01}


def test_a_lead_outside_the_interval_is_called_real():
    report = CompareReport(
        rows=[_row("last_speaker", (0.60, 0.52, 0.68), (0.10, 0.05, 0.15)), _row("tbs", (0.75, 0.68, 0.82), (0.30, 0.22, 0.38)),
              _row("oracle_char", (1.0, 1.0, 1.0), (0.40, 0.30, 0.50))],
        baseline="last_speaker",
        tests={"tbs": {"cf": _test(0.15, 0.08, 0.22), "sf": _test(0.20, -0.02, 0.30)}, "oracle_char": {"cf": _test(0.4, 0.3, 0.5), "sf": _test(0.3, 0.2, 0.4)}},
    )
    first, second, third = findings(report, report_file="runs/x/report.md", plot="runs/x/compare.png")
    assert first.startswith("Best on CF: tbs, 75.0% (95% CI 68.0-82.0); best on SF: tbs, 30.0%")
    assert "on CF tbs leads it by +15.0 points (paired 95% CI +8.0 to +22.0; zero is outside the CI, so the lead is real)" in second
    assert "on SF tbs leads it by +20.0 points (paired 95% CI -2.0 to +30.0; zero is inside the CI, so the lead may be chance)" in second
    assert third == "Full report (every metric, costs, paired tests): runs/x/report.md; plot: runs/x/compare.png."


def test_when_the_baseline_is_best_the_runner_up_gap_is_given():
    report = CompareReport(
        rows=[_row("last_speaker", (0.67, 0.60, 0.73), (0.16, 0.11, 0.22)), _row("knn", (0.67, 0.60, 0.73), (0.12, 0.07, 0.17))],
        baseline="last_speaker",
        tests={"knn": {"cf": _test(0.0, 0.0, 0.0), "sf": _test(-0.048, -0.114, 0.018)}},
    )
    first, second, _ = findings(report)
    assert first.startswith("Best on CF: last_speaker and knn (tied), 67.0%")
    assert "on SF last_speaker is itself the best (knn is next, -4.8 points, 95% CI -11.4 to +1.8, within the noise)" in second


def test_without_the_baseline_no_lead_is_claimed():
    report = CompareReport(rows=[_row("template", (0.5, 0.4, 0.6), (0.1, 0.0, 0.2))])
    _, second, third = findings(report)
    assert "no lead over it can be tested" in second and "vgm moe report" in third


def test_a_handful_of_instances_is_called_a_hint():
    report = CompareReport(
        rows=[_row("last_speaker", (1.0, 1.0, 1.0), (0.5, 0.17, 0.83), n=6), _row("template", (0.29, 0.26, 0.32), (0.0, 0.0, 0.0), n=6)],
        baseline="last_speaker",
        tests={"template": {"cf": _test(-0.71, -0.74, -0.68), "sf": _test(-0.5, -0.83, -0.17)}},
    )
    said = findings(report)[1]
    assert "over only 6 instances the intervals are rough" in said
    assert "zero outside the CI" in said and "real" not in said, "where zero lies, no conclusion drawn"
