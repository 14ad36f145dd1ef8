"""Reports from saved runs: metrics.json per run, and the paper-style table across runs.

Everything is rebuilt from ``predictions.jsonl`` (which stores the gold answers too), so a
report never needs the model or even the data file again.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import rulesets
from pipelines import available_pipelines
from rulesets import VgmError

from .dataset import load_moe
from .metrics import DEFAULT_METRIC, InstanceScore, MoeScore, aggregate, check_metric, compare_scores, score_instance
from .paper import beside_gpt4, gpt4_markdown
from .run_folder import RunFolder, read_json_lines
from .run_folder import find_runs as find_run_folders

METRICS = ("cf", "sf", "cp", "cr", "sp", "sr")


class ReportError(VgmError):
    """A folder given to the report is not a run."""


def read_predictions(path: str | Path) -> list[dict]:
    """Every record of a ``predictions.jsonl`` (through ``RunFolder``); a line cut short by a kill is dropped."""
    return list(RunFolder(Path(path).parent).records())


def _score(record: dict, metric: str = DEFAULT_METRIC) -> InstanceScore:
    """One record's instance score; an errored attempt scores as an empty prediction."""
    prediction = (record.get("prediction") or []) if not record.get("error") else []
    return score_instance(record.get("gold") or [], prediction, characters=record.get("characters"), id=record["id"], metric=metric)


def score_records(records: list[dict], *, B: int = 1000, seed: int = 0, metric: str = DEFAULT_METRIC) -> MoeScore:
    """Formulas (1)-(6) over saved records, over all of them: an instance that errored counts as an empty prediction."""
    return aggregate([_score(r, metric) for r in records], B=B, seed=seed, metric=metric)


@dataclass
class _Summary:
    """What the report keeps of one instance's latest record: its score and its costs, not its text."""

    score: InstanceScore
    error: bool
    parse_ok: bool
    dropped: int
    usage: dict
    calls: int
    cache_hits: int
    computed_prompt_tokens: int
    latency_s: float


def _summary(record: dict, metric: str) -> _Summary:
    usage = record.get("usage") or {}
    cost = record.get("cost")
    if isinstance(cost, dict):  # counted at each model call by the runner
        hits, computed = int(cost.get("cache_hits", 0)), int(cost.get("computed_prompt_tokens", 0))
    else:  # older records: the usage totals, every call taken as computed
        hits, computed = 0, int(usage.get("prompt_tokens", 0) or 0) - int(usage.get("cached_tokens", 0) or 0)
    dropped = record.get("dropped")
    return _Summary(
        score=_score(record, metric),
        error=bool(record.get("error")),
        parse_ok=bool(record.get("parse_ok", True)),
        dropped=len(dropped) if isinstance(dropped, list) else int(dropped or 0),
        usage=usage,
        calls=int((cost or {}).get("calls", usage.get("calls", 0)) or 0) if isinstance(cost, dict) else int(usage.get("calls", 0) or 0),
        cache_hits=hits,
        computed_prompt_tokens=max(0, computed),
        latency_s=float(record.get("latency_s") or 0.0),
    )


def _summaries(folder: RunFolder, metric: str) -> dict[str, _Summary]:
    """The latest record of every id, reduced to a summary as it streams past (memory stays small)."""
    out: dict[str, _Summary] = {}
    for record in folder.records():
        out[record["id"]] = _summary(record, metric)
    return out


def run_metrics(folder: str | Path | RunFolder, *, B: int = 1000, seed: int = 0, metric: str = DEFAULT_METRIC) -> dict[str, Any]:
    """Every number a run reports, as a dict (what metrics.json holds).

    ``cf``, ``sf``, ... are over **all** instances (an errored one counts as an empty
    prediction, as the paper's K counts every sample); ``answered`` holds the same metrics
    over the instances that did not error. ``errors`` and ``error_rate`` say how many errored.
    """
    check_metric(metric)
    run = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    meta = run.meta() if run.is_run() else {}
    rows = _summaries(run, metric)
    every = [rows[i] for i in sorted(rows)]  # by id: the bootstrap must not depend on which instance finished first
    answered = [s for s in every if not s.error]
    score = aggregate([s.score for s in every], B=B, seed=seed, metric=metric)
    score_answered = aggregate([s.score for s in answered], B=B, seed=seed, metric=metric)
    n = max(1, len(every))
    calls = sum(s.calls for s in every)
    hits = sum(s.cache_hits for s in every)
    return {
        **score.as_dict(),
        "scored_over": "all instances (an errored instance counts as an empty prediction)",
        "prompting": meta.get("prompting"),
        "lang": meta.get("lang") or "en",
        "errors": len(every) - len(answered),
        "error_rate": (len(every) - len(answered)) / n if every else 0.0,
        "n_answered": len(answered),
        "answered": {k: v for k, v in score_answered.as_dict().items() if k not in ("n", "metric")},
        "parse_failure_rate": (sum(1 for s in every if not s.parse_ok) / n) if every else 0.0,
        "dropped_per_instance": sum(s.dropped for s in every) / n,
        "prompt_tokens_per_instance": sum(s.usage.get("prompt_tokens", 0) for s in every) / n,
        "cached_tokens_per_instance": sum(s.usage.get("cached_tokens", 0) for s in every) / n,
        "completion_tokens_per_instance": sum(s.usage.get("completion_tokens", 0) for s in every) / n,
        "tokens_per_instance": sum(s.usage.get("prompt_tokens", 0) + s.usage.get("completion_tokens", 0) for s in every) / n,
        "calls_per_instance": calls / n,
        "model_calls_per_instance": (calls - hits) / n,
        "cache_hits_per_instance": hits / n,
        "cache_hit_rate": hits / calls if calls else 0.0,
        "computed_prompt_tokens_per_instance": sum(s.computed_prompt_tokens for s in every) / n,
        "seconds_per_instance": sum(s.latency_s for s in every) / n,
        "notes": list(run.notes),
    }


def write_metrics(folder: str | Path | RunFolder, **kwargs: Any) -> dict[str, Any]:
    """Compute ``run_metrics`` and save them as the folder's metrics.json (atomically)."""
    run = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    metrics = run_metrics(run, **kwargs)
    run.write_metrics(metrics)
    return metrics


def find_runs(paths: list[str | Path]) -> list[Path]:
    """Run folders among ``paths``: a folder with run.json, or the run folders inside one."""
    return [run.path for run in find_run_folders(paths)]


@dataclass
class Row:
    pipeline: str
    model: str | None
    folder: str
    metrics: dict[str, Any]


def _f(interval: Any) -> float:
    value = interval.get("value") if isinstance(interval, dict) else None
    return float("nan") if value is None else float(value)


def _pct(interval: dict[str, float] | None) -> str:
    value = _f(interval or {})
    return "-" if value != value else f"{100 * value:.1f}"


def _pct_ci(interval: dict[str, float] | None) -> str:
    if not interval or _f(interval) != _f(interval):
        return "-"
    return f"{100 * interval['value']:.1f} [{100 * interval['low']:.1f}, {100 * interval['high']:.1f}]"


def errors_cell(m: dict[str, Any]) -> str:
    """``3 (15%)``: how many instances errored, and their share."""
    return f"{m.get('errors', 0)} ({100 * m.get('error_rate', 0.0):.0f}%)"


def seconds_cell(m: dict[str, Any]) -> str:
    """Wall seconds per instance, marked when response-cache hits make it look cheaper than it is."""
    text = f"{m.get('seconds_per_instance', 0.0):.2f}"
    rate = m.get("cache_hit_rate", 0.0)
    return f"{text} ({100 * rate:.0f}% cached)" if rate else text


@dataclass
class CompareReport:
    """The paper-style table: one row per run, plus paired tests against a baseline run.

    Every form (table, markdown, CSV, JSON) shows how many instances errored; CF/SF are
    given over all instances (errors count as empty predictions) and over the answered ones.
    """

    rows: list[Row]
    baseline: str | None = None
    tests: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    metric: str = DEFAULT_METRIC

    @property
    def prompting(self) -> str:
        """How the model pipelines were prompted (faithful, assisted, or a mix), from their run.json."""
        modes = sorted({str(r.metrics.get("prompting")) for r in self.rows if r.metrics.get("prompting")})
        return ", ".join(modes) if modes else "-"

    def describe(self) -> str:
        """One line saying how the numbers were made: metric and prompting."""
        metric = "Tachikuma formulas (1)-(6) as written" if self.metric == "paper" else "per-tuple variant (--metric tuple)"
        return f"Metric: {metric}. Prompting: {self.prompting}."

    @property
    def errors(self) -> int:
        """Instances that errored, over every run in the report."""
        return sum(int(r.metrics.get("errors", 0)) for r in self.rows)

    def as_json(self) -> dict[str, Any]:
        return {
            "rows": [{"pipeline": r.pipeline, "model": r.model, "folder": r.folder, **r.metrics} for r in self.rows],
            "errors": self.errors,
            "metric": self.metric,
            "prompting": self.prompting,
            "baseline": self.baseline,
            "paired_tests": self.tests,
            "notes": self.notes,
            "beside_gpt4": beside_gpt4(self.rows),
        }

    def markdown(self) -> str:
        head = ("| pipeline | model | n | errors | CF [95% CI] (all) | SF [95% CI] (all) | CF (answered) | SF (answered) | CP | CR | SP | SR | exact | "
                "parse fail | model calls/inst | cache hits/inst | computed prompt tok/inst | s/inst |")
        lines = [self.describe(), "", head, "|" + "|".join(["---"] * (head.count("|") - 1)) + "|"]
        for r in self.rows:
            m = r.metrics
            answered = m.get("answered") or {}
            lines.append(
                f"| {r.pipeline} | {r.model or '-'} | {m['n']} | {errors_cell(m)} | {_pct_ci(m['cf'])} | {_pct_ci(m['sf'])} | "
                f"{_pct(answered.get('cf'))} | {_pct(answered.get('sf'))} | "
                f"{_pct(m['cp'])} | {_pct(m['cr'])} | {_pct(m['sp'])} | {_pct(m['sr'])} | {_pct(m['exact'])} | "
                f"{100 * m['parse_failure_rate']:.0f}% | {m.get('model_calls_per_instance', 0):.1f} | {m.get('cache_hits_per_instance', 0):.1f} | "
                f"{m.get('computed_prompt_tokens_per_instance', 0):.0f} | {seconds_cell(m)} |"
            )
        lines += ["", "CF/SF *all*: over every instance, an errored one counting as an empty prediction (the paper's K); "
                  "*answered*: over the instances that did not error. Costs: calls answered by the model (not the response cache), "
                  "cache hits, prompt tokens the model computed (not reused from its prefix cache), wall seconds per instance; "
                  "a run answered from the cache shows its share cached beside the seconds, since it was not free to make."]
        lines += gpt4_markdown(self.rows)
        if self.tests:
            lines += ["", f"Paired tests against `{self.baseline}` (same instances; bootstrap 95% CI of the difference, permutation p):", "",
                      "| pipeline | ΔCF | p | ΔSF | p |", "|---|---|---|---|---|"]
            for name, t in self.tests.items():
                lines.append(f"| {name} | {100 * t['cf']['diff']:+.1f} [{100 * t['cf']['low']:+.1f}, {100 * t['cf']['high']:+.1f}] | {t['cf']['p_value']:.3g} | "
                             f"{100 * t['sf']['diff']:+.1f} [{100 * t['sf']['low']:+.1f}, {100 * t['sf']['high']:+.1f}] | {t['sf']['p_value']:.3g} |")
        if self.notes:
            lines += ["", *[f"- note: {n}" for n in self.notes]]
        return "\n".join(lines)

    def csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["pipeline", "model", "n", *[f"{m}{s}" for m in (*METRICS, "exact") for s in ("", "_low", "_high")],
                         "errors", "error_rate", "n_answered", "cf_answered", "sf_answered", "parse_failure_rate", "model_calls_per_instance", "cache_hits_per_instance",
                         "computed_prompt_tokens_per_instance", "tokens_per_instance", "seconds_per_instance", "folder",
                         "cf_gpt4", "sf_gpt4", "cf_delta_gpt4", "sf_delta_gpt4", "comparable_gpt4"])
        paper = {b["pipeline"]: b for b in beside_gpt4(self.rows)}
        for r in self.rows:
            m = r.metrics
            answered = m.get("answered") or {}
            b = paper.get(r.pipeline)
            gpt4 = [f"{b['cf_gpt4']:.2f}", f"{b['sf_gpt4']:.2f}", *(f"{d:.1f}" if d == d else "" for d in (b["cf_delta"], b["sf_delta"])), "yes" if b["comparable"] else "no"] if b else [""] * 5
            writer.writerow([r.pipeline, r.model or "", m["n"], *[f"{m[k][s]:.4f}" for k in (*METRICS, "exact") for s in ("value", "low", "high")],
                             m.get("errors", 0), f"{m.get('error_rate', 0.0):.4f}", m.get("n_answered", m["n"]), f"{_f(answered.get('cf')):.4f}", f"{_f(answered.get('sf')):.4f}",
                             f"{m['parse_failure_rate']:.4f}", f"{m.get('model_calls_per_instance', 0):.2f}", f"{m.get('cache_hits_per_instance', 0):.2f}",
                             f"{m.get('computed_prompt_tokens_per_instance', 0):.1f}", f"{m['tokens_per_instance']:.1f}", f"{m['seconds_per_instance']:.3f}", r.folder,
                             *gpt4])
        return buffer.getvalue()

    def bar_chart(self, path: str | Path) -> Path:
        """CF and SF per pipeline with 95% CI whiskers, as a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = [r.pipeline + (f" ({r.metrics.get('errors')} err)" if r.metrics.get("errors") else "") for r in self.rows]
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


UPPER_BOUNDS = ("oracle", "gold")  # pipelines handed part of the gold answer: in the table, never ranked
SMALL_N = 30  # below this many instances a bootstrap interval is too rough to call a difference real


def _is_upper_bound(name: str) -> bool:
    return name.split(" ")[0].startswith(UPPER_BOUNDS)


def findings(report: CompareReport, *, report_file: str | Path | None = None, plot: str | Path | None = None) -> list[str]:
    """Three plain sentences to read after the table.

    Which pipeline is best on CF and on SF (upper bounds that see the gold characters are not
    ranked), whether its lead over the baseline is outside the paired 95% CI of the difference,
    and where the full report and the plot were written (None: not written).
    """
    ranked = [r for r in report.rows if not _is_upper_bound(r.pipeline) and _f(r.metrics.get("cf")) == _f(r.metrics.get("cf"))]
    bounds = [r.pipeline for r in report.rows if _is_upper_bound(r.pipeline)]
    if not ranked:
        first = "No pipeline without the gold answers ran, so there is nothing to rank."
        second = "No lead to test."
    else:
        best = {key: _best(ranked, key) for key in ("cf", "sf")}
        sizes = sorted({int(r.metrics["n"]) for r in ranked})
        over = f"{sizes[0]} instances" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]} instances (rows differ; see n)"
        first = (f"Best on CF: {_names(best['cf'])}, {_with_ci(best['cf'][0], 'cf')}; "
                 f"best on SF: {_names(best['sf'])}, {_with_ci(best['sf'][0], 'sf')}; over {over}"
                 + (f" ({', '.join(bounds)} {'is' if len(bounds) == 1 else 'are'} handed the gold characters: an upper bound, not ranked)" if bounds else "")
                 + ".")
        second = _against_baseline(report, ranked, best)
    if report_file is None and plot is None:
        third = "For the full report and a plot: `vgm moe report RUNS --markdown report.md --png compare.png`."
    else:
        parts = ([f"Full report (every metric, costs, paired tests): {report_file}"] if report_file else []) + ([f"plot: {plot}"] if plot else [])
        third = "; ".join(parts) + "."
    return [first, second, third]


def _best(rows: list[Row], key: str) -> list[Row]:
    top = max(_f(r.metrics[key]) for r in rows)
    return [r for r in rows if abs(_f(r.metrics[key]) - top) < 1e-9]


def _names(rows: list[Row]) -> str:
    names = [r.pipeline for r in rows]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]} (tied)"


def _with_ci(row: Row, key: str) -> str:
    iv = row.metrics[key]
    return f"{100 * iv['value']:.1f}% (95% CI {100 * iv['low']:.1f}-{100 * iv['high']:.1f})"


def _verdict(clear: bool, small: bool, real: str, noise: str) -> str:
    """What an interval that does (``clear``) or does not exclude zero means; over a handful of instances, only where zero lies."""
    if small:
        return "zero outside the CI" if clear else "zero inside the CI"
    return real if clear else noise


def _against_baseline(report: CompareReport, ranked: list[Row], best: dict[str, list[Row]]) -> str:
    base = report.baseline
    if not base or not report.tests:
        return "There is no last_speaker run over the same instances here, so no lead over it can be tested (add last_speaker to --pipelines)."
    n = min(int(r.metrics["n"]) for r in ranked)
    small = n < SMALL_N  # say where zero falls, but draw no conclusion from it
    rough = f" (over only {n} instances the intervals are rough: a hint, not a finding)" if small else ""
    clauses = []
    for key, label in (("cf", "CF"), ("sf", "SF")):
        names = [r.pipeline for r in best[key]]
        if base in names:
            others = sorted((r for r in ranked if r.pipeline != base and r.pipeline in report.tests),
                            key=lambda r: -_f(r.metrics[key]))
            if len(names) > 1:
                clause = f"on {label} {base} is level with the best"
            else:
                clause = f"on {label} {base} is itself the best"
            if others and len(names) == 1:
                t = report.tests[others[0].pipeline][key]
                clause += (f" ({others[0].pipeline} is next, {100 * t['diff']:+.1f} points, 95% CI {100 * t['low']:+.1f} to {100 * t['high']:+.1f}"
                           f", {_verdict(t['high'] < 0, small, 'a real gap', 'within the noise')})")
            clauses.append(clause)
            continue
        leader = next((name for name in names if name in report.tests), None)
        if leader is None:
            clauses.append(f"on {label} {names[0]} ran over other instances than {base}, so its lead cannot be paired")
            continue
        t = report.tests[leader][key]
        clear = t["low"] > 0
        meaning = "" if small else ", so the lead is real" if clear else ", so the lead may be chance"
        clauses.append(f"on {label} {leader} leads it by {100 * t['diff']:+.1f} points (paired 95% CI {100 * t['low']:+.1f} to "
                       f"{100 * t['high']:+.1f}; zero is {'outside' if clear else 'inside'} the CI{meaning})")
    return f"Against the {base} baseline{rough}: " + "; ".join(clauses) + "."


def load_row(run: RunFolder, *, B: int = 1000, seed: int = 0, rewrite: bool = True, metric: str = DEFAULT_METRIC) -> Row:
    """One table row for a run folder: recomputed metrics (saved as metrics.json when ``rewrite``)."""
    meta = run.meta()
    metrics = write_metrics(run, B=B, seed=seed, metric=metric) if rewrite else run_metrics(run, B=B, seed=seed, metric=metric)
    return Row(pipeline=str(meta.get("pipeline") or run.path.name), model=meta.get("model"), folder=str(run.path), metrics=metrics)


def build_report(paths: list[str | Path], *, baseline: str | None = "last_speaker", B: int = 1000, seed: int = 0,
                 metric: str = DEFAULT_METRIC) -> CompareReport:
    """Rebuild metrics (rewriting each metrics.json) and the comparison table from run folders.

    Args:
        metric: ``paper`` (formulas (1)-(6) as written) or ``tuple``; the report says which.
    """
    check_metric(metric)
    rows: list[Row] = []
    records: dict[str, list[dict]] = {}
    notes: list[str] = []
    for run in find_run_folders(paths):
        row = load_row(run, B=B, seed=seed, metric=metric)
        if row.pipeline in records:
            row.pipeline = f"{row.pipeline} ({run.path})"
        rows.append(row)
        records[row.pipeline] = list(run.latest().values())
        notes += list(dict.fromkeys(run.notes))
    order = {name: k for k, name in enumerate(available_pipelines())}
    rows.sort(key=lambda row: (order.get(row.pipeline.split(" ")[0], len(order)), row.pipeline))  # the paper's order
    report = CompareReport(rows=rows, notes=notes, metric=metric)
    if baseline and baseline in records and len(records) > 1:
        report.baseline = baseline
        base = score_records(records[baseline], B=10, metric=metric)
        for name, recs in records.items():
            if name == baseline:
                continue
            other = score_records(recs, B=10, metric=metric)
            try:
                report.tests[name] = {k: compare_scores(other, base, k, seed=seed).as_dict() for k in ("cf", "sf")}
            except ValueError:
                continue  # runs over different data: nothing to pair
    return report


def score_files(gold: str | Path, predictions: str | Path, *, metric: str = DEFAULT_METRIC, B: int = 1000, seed: int = 0) -> MoeScore:
    """``vgm moe score``: a predictions file (a run's ``predictions.jsonl`` format) against a gold MOE file.

    Each prediction line is ``{"id", "prediction": [{"character", "skill"}]}``; the last line of
    an id wins, and a line with an ``error`` counts as an empty prediction. Skills are resolved
    through the instance's rule set, as gold skills are. Only the predicted ids are scored;
    an id the gold file does not have is one line with the count and the first such id.
    """
    check_metric(metric)
    instances = {i.id: i for i in load_moe(gold)}
    path = Path(predictions)
    if path.is_dir():
        path = path / "predictions.jsonl"
    if not path.is_file():
        raise ReportError(f"{path}: no such predictions file; give a run's predictions.jsonl")
    records: dict[str, dict] = {}
    for number, record in read_json_lines(path):
        prediction = record.get("prediction") if not record.get("error") else []
        if not isinstance(prediction, list) or not all(isinstance(c, dict) and isinstance(c.get("character"), str) and isinstance(c.get("skill"), str) for c in prediction):
            raise ReportError(f"{path}:{number}: 'prediction' must be a list of {{\"character\", \"skill\"}} objects")
        records[record["id"]] = {**record, "prediction": prediction}
    if not records:
        raise ReportError(f"{path}: no predictions in the file")
    unknown = [iid for iid in records if iid not in instances]
    if unknown:
        raise ReportError(f"{path}: {len(unknown)} prediction id(s) are not in {gold} (first: {unknown[0]!r}); score against the gold file the run was made from")
    packs: dict[str, Any] = {}
    scores = []
    for iid, record in records.items():
        instance = instances[iid]
        pack = packs.setdefault(instance.ruleset, rulesets.load(instance.ruleset))
        predicted = [{"character": c["character"], "skill": pack.try_resolve(c["skill"]) or c["skill"]} for c in record["prediction"]]
        scores.append(score_instance(instance.answers, predicted, characters=instance.characters, id=iid, metric=metric))
    return aggregate(scores, B=B, seed=seed, metric=metric)


def score_summary(score: MoeScore) -> dict[str, float | int]:
    """``{"CP","CR","SP","SR","CF","SF","n"}`` on the 0-1 scale: what ``vgm moe score --json`` prints."""
    return {"CP": score.cp.value, "CR": score.cr.value, "SP": score.sp.value, "SR": score.sr.value,
            "CF": score.cf.value, "SF": score.sf.value, "n": score.n}
