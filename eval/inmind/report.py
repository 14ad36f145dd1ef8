"""The InMind report from a run folder: per task, per setting (mode), per subject role.

Numbers follow the paper's tables: player identification Top-1/Top-3 and baseline match
(Table 2), reflection alignment and trace attribution exact match per masked span and per
reflection/trace (Fig. 3, Table 3), role inference strict/relaxed per round and weighted per
game (Fig. 4, Fig. 10). Intervals are 95% bootstrap CIs that resample whole games.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

from rulesets import FileProblem, VgmError, read_json

from .runner import CONFIG, COUNTS, PROFILE, RESULTS, read_results
from .tasks import SETTINGS, TASKS, round_weights


def _ci(by_game: dict[str, list[float]]) -> dict[str, float | None]:
    values = [v for vs in by_game.values() for v in vs]
    if not values:
        return {"value": None, "low": None, "high": None, "n": 0}
    try:
        from eval.stats import cluster_bootstrap_ci  # lazy: eval.stats imports scipy

        interval = cluster_bootstrap_ci(by_game)
        return {"value": interval.value, "low": interval.low, "high": interval.high, "n": len(values)}
    except ImportError:  # the shared stats module is optional for a report
        return {"value": float(np.mean(values)), "low": None, "high": None, "n": len(values)}


def _group(records: list[dict], key: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for r in records:
        out[r["session"]].append(float(r["score"][key]))
    return out


def _spans_by_game(records: list[dict]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for r in records:
        out[r["session"]] += [float(ok) for ok in r["score"]["correct"].values()]
    return out


def _task_rows(task: str, records: list[dict]) -> list[dict[str, Any]]:
    """One row per setting of a task (or per mode), the paper's headline numbers."""
    rows = []
    for setting in SETTINGS[task]:
        rs = [r for r in records if r["setting"] == setting]
        if not rs:
            continue
        row: dict[str, Any] = {"setting": setting, "instances": len(rs), "parse_failures": sum(not r.get("parse_ok", True) for r in rs)}
        if task == "player_identification":
            row.update(top1=_ci(_group(rs, "top1")), top3=_ci(_group(rs, "top3")))
            if all("baseline_top1" in r["score"] for r in rs):
                row.update(baseline_match=_ci(_group(rs, "baseline_match")), baseline_top1=_ci(_group(rs, "baseline_top1")), baseline_top3=_ci(_group(rs, "baseline_top3")))
        elif task in ("reflection_alignment", "trace_attribution"):
            row.update(
                spans=sum(r["score"]["spans"] for r in rs),
                span_accuracy=_ci(_spans_by_game(rs)),
                exact_match=_ci(_group(rs, "exact")),
            )
            non_seat = sum(r["score"]["spans"] - r["score"]["seat_spans"] for r in rs)
            if non_seat:
                row["non_seat_spans"] = non_seat
            if task == "trace_attribution":
                per_trace: dict[str, list[float]] = defaultdict(list)
                for r in rs:
                    s = r["score"]
                    per_trace[r["session"]] += [1.0] * s["notes_exact"] + [0.0] * (s["notes"] - s["notes_exact"])
                row.update(traces=sum(r["score"]["notes"] for r in rs), trace_exact_match=_ci(per_trace))
        else:
            row.update(strict=_ci(_group(rs, "strict")), relaxed=_ci(_group(rs, "relaxed")))
            games: dict[str, dict[int, dict[str, float]]] = defaultdict(dict)
            n_rounds: dict[str, int] = {}
            for r in rs:
                games[r["session"]][r["score"]["round_index"]] = r["score"]
                n_rounds[r["session"]] = r["score"]["n_rounds"]
            weighted = {"strict": {}, "relaxed": {}}
            for game, by_round in games.items():
                weights = round_weights(n_rounds[game])
                for kind in weighted:
                    weighted[kind][game] = [sum(w * by_round.get(i + 1, {}).get(kind, 0.0) for i, w in enumerate(weights))]
            row.update(games=len(games), weighted_strict=_ci(weighted["strict"]), weighted_relaxed=_ci(weighted["relaxed"]))
        rows.append(row)
    return rows


HEADLINE = {
    "player_identification": "top1",
    "reflection_alignment": "exact_match",
    "trace_attribution": "span_accuracy",
    "role_inference": "strict",
}


def _by_role(task: str, records: list[dict]) -> dict[str, dict[str, Any]]:
    """Headline metric per subject role (rows) and setting (columns), as in the paper's Fig. 10."""
    table: dict[str, dict[str, Any]] = defaultdict(dict)
    for role in sorted({r["subject_role"] for r in records}):
        for row in _task_rows(task, [r for r in records if r["subject_role"] == role]):
            metric = row.get(HEADLINE[task]) or {}
            table[role][row["setting"]] = metric.get("value")
            if task == "role_inference":
                table[role][row["setting"] + " relaxed"] = (row.get("relaxed") or {}).get("value")
    return dict(table)


def _read_object(path: Path) -> dict[str, Any]:
    """A JSON object from the run folder ({} when missing); a broken one is one error naming it."""
    if not path.exists():
        return {}
    value = read_json(path)
    if not isinstance(value, dict):
        raise FileProblem(path, "is not a JSON object", "delete it and re-run the same `vgm inmind run` to write it again")
    return value


def build_report(run_dir: str | Path) -> dict[str, Any]:
    """Everything ``vgm inmind report`` prints, as one JSON-ready dict."""
    run = Path(run_dir)
    if not (run / RESULTS).is_file():
        raise VgmError(f"{run}: no {RESULTS} here; give the -o folder of a 'vgm inmind run'")
    results = read_results(run)
    if not results:
        raise VgmError(f"{run / RESULTS}: no results in it (empty, or no line is a result record); "
                       "run `vgm inmind run` into this folder first")
    records = [r for r in results.values() if r.get("score") is not None]
    errors = [r for r in results.values() if r.get("error")]
    config, profile, counts = _read_object(run / CONFIG), _read_object(run / PROFILE).get("profile", ""), _read_object(run / COUNTS)
    out: dict[str, Any] = {
        "run": str(run),
        "model": config.get("model"),
        "mask_policy": config.get("mask_policy"),
        "profile": profile,
        "errors": len(errors),
        "digit_runs": counts.get("spans", {}),  # the paper's spans, and how many are not seat references
        "skipped": counts.get("skipped", {}),
        "tasks": {},
    }
    for task in TASKS:
        rs = [r for r in records if r["task"] == task]
        if rs:
            out["tasks"][task] = {"settings": _task_rows(task, rs), "by_subject_role": _by_role(task, rs)}
    return out


def _fmt(metric: Any) -> str:
    if isinstance(metric, dict):
        if metric.get("value") is None:
            return "–"
        if metric.get("low") is None or metric["low"] == metric["high"]:
            return f"{metric['value']:.3f}"  # one game: no interval to show
        return f"{metric['value']:.3f} [{metric['low']:.2f}–{metric['high']:.2f}]"
    if isinstance(metric, float):
        return f"{metric:.3f}"
    return "–" if metric is None else str(metric)


COLUMNS = {
    "player_identification": [("instances", "games"), ("top1", "Top-1"), ("top3", "Top-3"), ("baseline_match", "baseline match"), ("baseline_top1", "baseline Top-1"), ("baseline_top3", "baseline Top-3")],
    "reflection_alignment": [("instances", "reflections"), ("spans", "spans"), ("span_accuracy", "per span"), ("exact_match", "per reflection (all right)"), ("non_seat_spans", "non-seat spans")],
    "trace_attribution": [("instances", "rounds"), ("traces", "traces"), ("spans", "spans"), ("span_accuracy", "per span"), ("exact_match", "per round"), ("trace_exact_match", "per trace"), ("non_seat_spans", "non-seat spans")],
    "role_inference": [("instances", "rounds"), ("games", "games"), ("strict", "strict / round"), ("relaxed", "relaxed / round"), ("weighted_strict", "strict weighted"), ("weighted_relaxed", "relaxed weighted")],
}


def report_tables(report: dict[str, Any]) -> list[Table]:
    """Rich tables for the terminal: one per task, then one per task by subject role."""
    tables = []
    for task, body in report["tasks"].items():
        table = Table(title=f"{task.replace('_', ' ')} — {report.get('model')}")
        table.add_column("setting")
        cols = COLUMNS[task]
        for _, title in cols:
            table.add_column(title, justify="right")
        table.add_column("unparsed", justify="right")
        for row in body["settings"]:
            table.add_row(row["setting"], *[_fmt(row.get(key)) for key, _ in cols], str(row["parse_failures"]))
        tables.append(table)
    for task, body in report["tasks"].items():
        roles = body["by_subject_role"]
        if not roles:
            continue
        settings = sorted({s for cells in roles.values() for s in cells}, key=lambda s: (s.split()[0], s))
        table = Table(title=f"{task.replace('_', ' ')} by subject role ({HEADLINE[task].replace('_', ' ')})")
        table.add_column("subject role")
        for s in settings:
            table.add_column(s, justify="right")
        for role, cells in roles.items():
            table.add_row(role, *[_fmt(cells.get(s)) for s in settings])
        tables.append(table)
    return tables
