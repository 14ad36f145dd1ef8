"""Reports from saved runs: metrics.json per run, and the paper-style table across runs.

Everything is rebuilt from ``predictions.jsonl`` (which stores the gold answers too), so a
report never needs the model or even the data file again.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pipelines import available_pipelines
from rulesets import VgmError

from .metrics import MoeScore, aggregate, compare_scores, score_instance

METRICS = ("cf", "sf", "cp", "cr", "sp", "sr")


class ReportError(VgmError):
    """A folder given to the report is not a run."""


def read_predictions(path: Path) -> list[dict]:
    """Finished records; a line cut short by a kill is skipped."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "id" in record:
            out.append(record)
    return out


def _latest(records: list[dict]) -> list[dict]:
    by_id: dict[str, dict] = {}
    for record in records:
        by_id[record["id"]] = record  # a retried instance: the last line wins
    return list(by_id.values())


def score_records(records: list[dict], *, B: int = 1000, seed: int = 0) -> MoeScore:
    """Formulas (1)-(6) over saved records. Instances that errored count as empty predictions."""
    scores = [score_instance(r["gold"], r["prediction"], characters=r.get("characters"), id=r["id"]) for r in records]
    return aggregate(scores, B=B, seed=seed)


def run_metrics(folder: str | Path, *, B: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Every number a run reports, as a dict (what metrics.json holds)."""
    folder = Path(folder)
    records = _latest(read_predictions(folder / "predictions.jsonl"))
    score = score_records(records, B=B, seed=seed)
    n = max(1, len(records))
    usage = [r.get("usage") or {} for r in records]
    model_steps = [s for r in records for s in r.get("steps", []) if s.get("raw") is not None]
    return {
        **score.as_dict(),
        "parse_failure_rate": (sum(1 for r in records if not r.get("parse_ok", True)) / n) if records else 0.0,
        "step_parse_failures": sum(1 for s in model_steps if not s.get("parse_ok", True)),
        "error_rate": (sum(1 for r in records if r.get("error")) / n) if records else 0.0,
        "dropped_per_instance": sum(len(r.get("dropped") or []) if isinstance(r.get("dropped"), list) else int(r.get("dropped") or 0) for r in records) / n,
        "prompt_tokens_per_instance": sum(u.get("prompt_tokens", 0) for u in usage) / n,
        "cached_tokens_per_instance": sum(u.get("cached_tokens", 0) for u in usage) / n,
        "completion_tokens_per_instance": sum(u.get("completion_tokens", 0) for u in usage) / n,
        "tokens_per_instance": sum(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) for u in usage) / n,
        "calls_per_instance": sum(u.get("calls", 0) for u in usage) / n,
        "seconds_per_instance": sum(float(r.get("latency_s") or 0) for r in records) / n,
    }


def write_metrics(folder: str | Path, **kwargs: Any) -> dict[str, Any]:
    metrics = run_metrics(folder, **kwargs)
    (Path(folder) / "metrics.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
    return metrics


def find_runs(paths: list[str | Path]) -> list[Path]:
    """Run folders among ``paths``: a folder with run.json, or the run folders inside one."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if (path / "run.json").is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(p.parent for p in path.glob("*/run.json"))
        elif not path.exists():
            raise ReportError(f"{path}: no such folder; give run folders (runs/NAME) or a compare folder")
    if not found:
        raise ReportError(f"no run folders (with run.json) in {', '.join(map(str, paths))}; run `vgm moe run` or `vgm moe compare` first")
    return list(dict.fromkeys(found))


@dataclass
class Row:
    pipeline: str
    model: str | None
    folder: str
    metrics: dict[str, Any]


@dataclass
class CompareReport:
    """The paper-style table: one row per run, plus paired tests against a baseline run."""

    rows: list[Row]
    baseline: str | None = None
    tests: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "rows": [{"pipeline": r.pipeline, "model": r.model, "folder": r.folder, **r.metrics} for r in self.rows],
            "baseline": self.baseline,
            "paired_tests": self.tests,
        }

    def markdown(self) -> str:
        head = "| pipeline | model | n | CF [95% CI] | SF [95% CI] | CP | CR | SP | SR | exact | parse fail | tokens/inst | s/inst |"
        lines = [head, "|" + "|".join(["---"] * (head.count("|") - 1)) + "|"]
        for r in self.rows:
            m = r.metrics
            lines.append(
                f"| {r.pipeline} | {r.model or '-'} | {m['n']} | {_pct_ci(m['cf'])} | {_pct_ci(m['sf'])} | "
                f"{_pct(m['cp'])} | {_pct(m['cr'])} | {_pct(m['sp'])} | {_pct(m['sr'])} | {_pct(m['exact'])} | "
                f"{100 * m['parse_failure_rate']:.0f}% | {m['tokens_per_instance']:.0f} | {m['seconds_per_instance']:.2f} |"
            )
        if self.tests:
            lines += ["", f"Paired tests against `{self.baseline}` (same instances; bootstrap 95% CI of the difference, permutation p):", "",
                      "| pipeline | ΔCF | p | ΔSF | p |", "|---|---|---|---|---|"]
            for name, t in self.tests.items():
                lines.append(f"| {name} | {100 * t['cf']['diff']:+.1f} [{100 * t['cf']['low']:+.1f}, {100 * t['cf']['high']:+.1f}] | {t['cf']['p_value']:.3g} | "
                             f"{100 * t['sf']['diff']:+.1f} [{100 * t['sf']['low']:+.1f}, {100 * t['sf']['high']:+.1f}] | {t['sf']['p_value']:.3g} |")
        return "\n".join(lines)

    def csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["pipeline", "model", "n", *[f"{m}{s}" for m in (*METRICS, "exact") for s in ("", "_low", "_high")],
                         "parse_failure_rate", "tokens_per_instance", "seconds_per_instance", "folder"])
        for r in self.rows:
            m = r.metrics
            writer.writerow([r.pipeline, r.model or "", m["n"], *[f"{m[k][s]:.4f}" for k in (*METRICS, "exact") for s in ("value", "low", "high")],
                             f"{m['parse_failure_rate']:.4f}", f"{m['tokens_per_instance']:.1f}", f"{m['seconds_per_instance']:.3f}", r.folder])
        return buffer.getvalue()

    def bar_chart(self, path: str | Path) -> Path:
        """CF and SF per pipeline with 95% CI whiskers, as a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = [r.pipeline for r in self.rows]
        x = np.arange(len(names))
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names) + 2), 4))
        for offset, key, label in ((-0.2, "cf", "CF (characters)"), (0.2, "sf", "SF (characters + skills)")):
            vals = np.array([100 * r.metrics[key]["value"] for r in self.rows])
            low = np.array([100 * r.metrics[key]["low"] for r in self.rows])
            high = np.array([100 * r.metrics[key]["high"] for r in self.rows])
            ax.bar(x + offset, vals, 0.4, label=label, yerr=[np.maximum(vals - low, 0), np.maximum(high - vals, 0)], capsize=3)
        ax.set_xticks(x, names, rotation=30, ha="right")
        ax.set_ylabel("score (%)")
        ax.set_ylim(0, 100)
        n = self.rows[0].metrics["n"] if self.rows else 0
        ax.set_title(f"MOE: CF and SF per pipeline ({n} instances, 95% CI)")
        ax.legend()
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path


def _pct(interval: dict[str, float]) -> str:
    return f"{100 * interval['value']:.1f}"


def _pct_ci(interval: dict[str, float]) -> str:
    return f"{100 * interval['value']:.1f} [{100 * interval['low']:.1f}, {100 * interval['high']:.1f}]"


def build_report(paths: list[str | Path], *, baseline: str | None = "last_speaker", B: int = 1000, seed: int = 0) -> CompareReport:
    """Rebuild metrics (rewriting each metrics.json) and the comparison table from run folders."""
    rows: list[Row] = []
    records: dict[str, list[dict]] = {}
    for folder in find_runs(paths):
        config = json.loads((folder / "run.json").read_text(encoding="utf-8"))
        metrics = write_metrics(folder, B=B, seed=seed)
        name = config.get("pipeline", folder.name)
        if name in records:
            name = f"{name} ({folder})"
        rows.append(Row(pipeline=name, model=config.get("model"), folder=str(folder), metrics=metrics))
        records[name] = _latest(read_predictions(folder / "predictions.jsonl"))
    order = {name: k for k, name in enumerate(available_pipelines())}
    rows.sort(key=lambda row: (order.get(row.pipeline.split(" ")[0], len(order)), row.pipeline))  # the paper's order
    report = CompareReport(rows=rows)
    if baseline and baseline in records and len(records) > 1:
        report.baseline = baseline
        base = score_records(records[baseline], B=10)
        for name, recs in records.items():
            if name == baseline:
                continue
            other = score_records(recs, B=10)
            try:
                report.tests[name] = {k: compare_scores(other, base, k, seed=seed).as_dict() for k in ("cf", "sf")}
            except ValueError:
                continue  # runs over different data: nothing to pair
    return report
