"""The study report: mean per condition and factor with 95% CIs, Krippendorff's alpha, Bradley-Terry,
and per rater: median time per item, attention pass rate, a too-fast flag.

The statistics come from libraries: ``eval.stats`` (cluster bootstrap over contexts) and
``scipy.stats`` for the intervals, ``krippendorff``
for agreement, and for Bradley-Terry a logistic likelihood set up as Chatbot Arena does (ties half a
win each way, bootstrap intervals, an optional length covariate), fitted by ``eval.stats.bradley_terry_fit``.
"""
from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy import stats

from eval.stats import bradley_terry_fit, cluster_bootstrap_ci, paired_test

from ._build import HUMAN
from ._criteria import AB_CHOICES, CRITERIA, Criterion
from ._store import AdminView, RatingRow, StudyError


def check_output(path: str | Path, what: str) -> Path:
    """An output file we may write: not a folder, its folder there (or makeable) and writable."""
    import os

    path = Path(path)
    if path.is_dir():
        raise StudyError(f"{what} {path} is a folder; give a file name, e.g. {path}/ratings.csv")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StudyError(f"cannot create the folder for {what} {path} ({exc.strerror or exc})") from None
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise StudyError(f"{what} {path} is not writable; pick another path")
    return path


def _write_atomic(path: Path, data: bytes, what: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StudyError(f"cannot write {what} {path} ({exc.strerror or exc})") from None


@dataclass
class MeanCI:
    condition: str
    criterion: str
    n: int
    mean: float | None
    low: float | None
    high: float | None


@dataclass
class BTScore:
    condition: str
    score: float
    se: float | None
    wins: float
    comparisons: int
    low: float | None = None  # bootstrap 95% interval, when asked for
    high: float | None = None

    def interval(self) -> tuple[float, float]:
        """The 95% interval: the bootstrap's when there is one, else score +- 1.96 SE."""
        if self.low is not None and self.high is not None:
            return self.low, self.high
        half = 1.96 * (self.se or 0.0)
        return self.score - half, self.score + half


BT_BOOTSTRAP = 200
"""Resamples of the A/B battles behind the Bradley-Terry intervals (Chatbot Arena's method)."""
TOO_FAST_SECONDS = 3.0
"""Default floor: a rater whose median time per item is below it is flagged (reading a scene takes longer)."""
GAP_MAX_SECONDS = 3600.0


@dataclass
class RaterStats:
    """How one rater worked: answers, median seconds per item, attention checks, flags."""

    rater: str
    participant_id: str | None
    source: str
    answered: int
    skipped: int
    median_seconds: float | None
    attention_answered: int
    attention_passed: int
    completed: bool
    too_fast: bool = False
    excluded: bool = False

    @property
    def attention_pass_rate(self) -> float | None:
        return self.attention_passed / self.attention_answered if self.attention_answered else None

    @property
    def failed_attention(self) -> bool:
        """Failed at least one attention item."""
        return self.attention_passed < self.attention_answered

    def to_dict(self) -> dict:
        return {**asdict(self), "attention_pass_rate": self.attention_pass_rate, "failed_attention": self.failed_attention}


def iso_time(ts: float | None) -> str:
    """A stored epoch time as ISO-8601 in UTC with milliseconds, e.g. ``2025-05-01T14:03:07.250+00:00``."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds")


def seconds_per_item(rows: list[RatingRow], start: float | None = None) -> list[float]:
    """One rater's time on each answered item: the stored seconds (the page measures them on the
    server), else the gap since that rater's previous answer (or ``start``) when under an hour."""
    out, previous = [], start
    for r in sorted(rows, key=lambda r: r.created_at):
        if r.seconds is not None:
            out.append(r.seconds)
        elif previous is not None and 0 <= r.created_at - previous < GAP_MAX_SECONDS:
            out.append(r.created_at - previous)
        previous = r.created_at
    return out


def rater_stats(admin: AdminView, rows: list[RatingRow] | None = None, too_fast: float = TOO_FAST_SECONDS) -> list[RaterStats]:
    """Per rater: answered and skipped items, median seconds per item, attention items passed, too-fast flag."""
    rows = admin.ratings(include_skipped=True) if rows is None else rows
    out = []
    for r in admin.raters():
        mine = [x for x in rows if x.rater == r["name"]]
        answered = [x for x in mine if not x.skipped]
        times = seconds_per_item(answered, r.get("consented_at") or r.get("created_at"))
        median = float(statistics.median(times)) if times else None
        checks = [x for x in answered if x.attention]
        out.append(RaterStats(
            rater=r["name"], participant_id=r.get("participant_id"), source=r.get("source") or "invited",
            answered=len(answered), skipped=sum(x.skipped for x in mine), median_seconds=median,
            attention_answered=len(checks), attention_passed=sum(bool(x.attention_passed) for x in checks),
            completed=r.get("completed_at") is not None, too_fast=median is not None and median < too_fast,
        ))
    return out


@dataclass
class StudyReport:
    """Everything ``vgm rate report`` prints; ``to_dict()`` is the ``--json`` form."""

    name: str
    raters: int
    ratings: int
    choices: int
    conditions: list[str]
    means: list[MeanCI] = field(default_factory=list)
    alpha: dict[str, float | None] = field(default_factory=dict)
    alpha_note: str = ""
    bradley_terry: list[BTScore] = field(default_factory=list)
    control: str | None = None  # "length": Bradley-Terry with the length covariate
    length_effect: LengthEffect | None = None
    ab_answers: dict[str, int] = field(default_factory=dict)  # a / b / tie / both_bad counts
    criteria: list[Criterion] = field(default_factory=lambda: list(CRITERIA))  # the study's score criteria, raters' language
    baseline: str | None = None
    paired: dict[str, dict[str, dict]] = field(default_factory=dict)  # condition -> criterion -> PairedTest.as_dict()
    rater_stats: list[RaterStats] = field(default_factory=list)
    attention_items: int = 0
    too_fast_seconds: float = TOO_FAST_SECONDS
    exclude_failed_attention: bool = False
    exclude_too_fast: bool = False
    excluded: list[str] = field(default_factory=list)  # raters left out of the statistics

    def to_dict(self) -> dict:
        out = asdict(self)
        out["rater_stats"] = [r.to_dict() for r in self.rater_stats]
        return out

    @property
    def failed_attention(self) -> list[str]:
        """Raters who failed at least one attention item."""
        return [r.rater for r in self.rater_stats if r.failed_attention]

    @property
    def too_fast(self) -> list[str]:
        return [r.rater for r in self.rater_stats if r.too_fast]

    def mean_of(self, condition: str, criterion: str) -> MeanCI | None:
        return next((m for m in self.means if m.condition == condition and m.criterion == criterion), None)

    def means_table(self) -> list[list]:
        """One row per condition: name, ``"mean [low, high]"`` per factor, number of ratings."""
        rows = []
        for cond in self.conditions:
            cells = []
            for c in self.criteria:
                m = self.mean_of(cond, c.id)
                cells.append("-" if m is None or m.mean is None else
                             f"{m.mean:.2f}" + ("" if m.low is None else f" [{m.low:.2f}, {m.high:.2f}]"))
            first = self.mean_of(cond, self.criteria[0].id) if self.criteria else None
            rows.append([cond, *cells, first.n if first else 0])
        return rows


def mean_ci(values: list[float] | dict[str, list[float]], confidence: float = 0.95) -> tuple[float | None, float | None, float | None]:
    """Mean and 95% interval; none has no mean, one value no interval.

    Given ``{context: [scores]}``, the interval is a cluster bootstrap over contexts
    (``eval.stats``), since raters judging the same context agree more than strangers;
    a flat list (or a single context) gets a Student-t interval.
    """
    if isinstance(values, dict):
        clusters = {k: v for k, v in values.items() if v}
        if len(clusters) >= 2:
            ci = cluster_bootstrap_ci(clusters, level=confidence)
            return ci.value, ci.low, ci.high
        values = [x for v in clusters.values() for x in v]
    if not values:
        return None, None, None
    arr = np.asarray(values, dtype=float)
    mean = float(arr.mean())
    if len(arr) < 2 or float(arr.std(ddof=1)) == 0.0:
        return mean, mean if len(arr) > 1 else None, mean if len(arr) > 1 else None
    low, high = stats.t.interval(confidence, len(arr) - 1, loc=mean, scale=stats.sem(arr))
    return mean, float(low), float(high)


def krippendorff_alpha(rows: list[RatingRow], criterion: str, scale: tuple[int, int] = (1, 5)) -> float | None:
    """Ordinal alpha over raters x score items; None when no item has two raters or no variation."""
    import krippendorff

    raters = sorted({r.rater for r in rows})
    items = sorted({r.item_id for r in rows if r.kind == "score"})
    if len(raters) < 2 or not items:
        return None
    ri, ii = {r: k for k, r in enumerate(raters)}, {i: k for k, i in enumerate(items)}
    matrix = np.full((len(raters), len(items)), np.nan)
    for r in rows:
        if r.kind == "score" and r.scores.get(criterion) is not None:
            matrix[ri[r.rater], ii[r.item_id]] = r.scores[criterion]
    paired = (~np.isnan(matrix)).sum(axis=0) >= 2
    if not paired.any():
        return None
    matrix = matrix[:, paired]
    if len(np.unique(matrix[~np.isnan(matrix)])) < 2:
        return None  # every pairable value the same: agreement is undefined, not perfect
    value = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=list(range(scale[0], scale[1] + 1)))
    return None if math.isnan(value) else float(value)


def _bt_rows(battles: list[tuple], idx: dict[str, int], control_length: bool) -> tuple[np.ndarray, ...]:
    """Logistic-regression rows as Chatbot Arena builds them (it fits them with scikit-learn): +1 for side
    A's condition, -1 for B's, the normalised length difference as a covariate; a tie (or "both bad") is
    half a win each way. Each battle gives four rows (a win and a loss, each also mirrored, so both classes
    are present and the fit is symmetric in A and B); ``owner`` says whose rows they are, for resampling."""
    n, k = len(battles), len(idx)
    x = np.zeros((n, k + int(control_length)))
    rows = np.arange(n)
    x[rows, [idx[b[0]] for b in battles]] = 1.0
    x[rows, [idx[b[1]] for b in battles]] = -1.0
    if control_length:
        la, lb = np.array([b[3] for b in battles], float), np.array([b[4] for b in battles], float)
        x[:, k] = (la - lb) / np.maximum(la + lb, 1.0)
    won = np.array([{"a": 1.0, "b": 0.0}.get(b[2], 0.5) for b in battles])  # share of the win that goes to A
    xs = np.concatenate([x, x, -x, -x])
    ys = np.concatenate([np.ones(n), np.zeros(n), np.zeros(n), np.ones(n)])
    ws = np.concatenate([won, 1 - won, won, 1 - won]) / 2
    return xs, ys, ws, np.tile(rows, 4)


@dataclass
class LengthEffect:
    """With ``--control length``: the log-odds a line gains per unit of normalised length lead ((a - b) / (a + b))."""

    coefficient: float
    low: float | None
    high: float | None


def bradley_terry(pairs: list[tuple], conditions: list[str], ridge: float = 0.01, *, bootstrap: int = 0, seed: int = 0,
                  control_length: bool = False) -> list[BTScore] | tuple[list[BTScore], LengthEffect | None]:
    """Bradley-Terry strengths from ``(cond_a, cond_b, choice)`` (or ``(..., len_a, len_b)``) with choice
    a/b/tie/both_bad, fitted as Chatbot Arena does (logistic regression; a tie or "both bad" is half a
    win each way; a small ridge keeps the fit finite when one condition always wins). Scores are
    centred on 0, on the log-odds scale; SEs from the Hessian. ``bootstrap`` > 0 adds 95% intervals
    from that many resamples of the battles. ``control_length`` adds the normalised length difference
    as a covariate, so the scores are what is left once raters' taste for longer lines is accounted
    for; then a ``(scores, LengthEffect)`` pair is returned.
    """
    battles = [(p[0], p[1], p[2], *(p[3:5] if len(p) >= 5 else (0, 0))) for p in pairs]
    conds = [c for c in conditions if any(c in (a, b) for a, b, *_ in battles)]
    if len(conds) < 2:
        return ([], None) if control_length else []
    idx = {c: k for k, c in enumerate(conds)}
    k = len(conds)
    wins, games = np.zeros(k), np.zeros(k)
    for a, b, choice, *_ in battles:
        games[idx[a]] += 1
        games[idx[b]] += 1
        if choice == "a":
            wins[idx[a]] += 1
        elif choice == "b":
            wins[idx[b]] += 1
        else:
            wins[idx[a]] += 0.5
            wins[idx[b]] += 0.5
    x, y, w, owner = _bt_rows(battles, idx, control_length)
    fit = bradley_terry_fit(x, y, w, k, ridge)
    s = fit[:k]
    p = 1.0 / (1.0 + np.exp(-(s[:, None] - s[None, :])))
    pair_games = np.zeros((k, k))
    for a, b, *_ in battles:
        pair_games[idx[a], idx[b]] += 1
        pair_games[idx[b], idx[a]] += 1
    info = pair_games * p * (1 - p)
    hessian = np.diag(info.sum(axis=1)) - info + 2 * ridge * np.eye(k)
    centre = np.eye(k) - np.ones((k, k)) / k  # scores are centred: drop the shared-shift direction
    ses = np.sqrt(np.clip(np.diag(centre @ np.linalg.pinv(hessian) @ centre), 0, None))
    lows = highs = [None] * k
    effect = LengthEffect(float(fit[k]), None, None) if control_length else None
    if bootstrap > 0 and len(battles) >= 2:
        rng = np.random.default_rng(seed)
        # a resample of the battles is a reweighting: each battle's rows count as often as it was drawn
        draws = np.array([bradley_terry_fit(x, y, w * np.bincount(rng.integers(0, len(battles), len(battles)), minlength=len(battles))[owner],
                                  k, ridge) for _ in range(bootstrap)])
        lows, highs = np.percentile(draws, 2.5, axis=0), np.percentile(draws, 97.5, axis=0)
        if control_length:
            effect = LengthEffect(float(fit[k]), float(lows[k]), float(highs[k]))
        ses = draws[:, :k].std(axis=0, ddof=1)
    scores = sorted(
        (BTScore(c, float(s[idx[c]]), float(ses[idx[c]]), float(wins[idx[c]]), int(games[idx[c]]),
                 None if lows[idx[c]] is None else float(lows[idx[c]]), None if highs[idx[c]] is None else float(highs[idx[c]]))
         for c in conds),
        key=lambda b: -b.score,
    )
    return (scores, effect) if control_length else scores


def paired_against(rows: list[RatingRow], conditions: list[str], baseline: str | None = None,
                   ids: tuple[str, ...] = tuple(c.id for c in CRITERIA)) -> tuple[str | None, dict]:
    """Each condition minus the baseline (``human`` when present), paired over shared contexts.

    A context's score is its mean over raters; ``eval.stats.paired_test`` gives the bootstrap CI
    of the difference and a permutation p-value.
    """
    baseline = baseline or (HUMAN if HUMAN in conditions else (conditions[0] if conditions else None))
    if baseline is None:
        return None, {}
    per: dict[tuple[str, str, str], list[float]] = {}
    for r in rows:
        for crit in ids:
            if r.scores.get(crit) is not None:
                per.setdefault((r.condition, crit, r.instance_id), []).append(r.scores[crit])
    out: dict[str, dict] = {}
    for cond in conditions:
        if cond == baseline:
            continue
        tests = {}
        for crit in ids:
            shared = sorted({i for (c, k, i) in per if c == cond and k == crit} & {i for (c, k, i) in per if c == baseline and k == crit})
            if len(shared) >= 2:
                a = [float(np.mean(per[(cond, crit, i)])) for i in shared]
                b = [float(np.mean(per[(baseline, crit, i)])) for i in shared]
                tests[crit] = paired_test(a, b).as_dict()
        if tests:
            out[cond] = tests
    return baseline, out


def study_report(admin: AdminView, *, exclude_failed_attention: bool = False, too_fast: float = TOO_FAST_SECONDS,
                 exclude_too_fast: bool = False, control: str | None = None, bootstrap: int = BT_BOOTSTRAP) -> StudyReport:
    """Compute the report from every stored (non-skipped) rating.

    Attention items never enter the statistics; they give each rater's pass rate. With
    ``exclude_failed_attention`` the raters who failed any attention item are left out of the
    means, agreement and Bradley-Terry (and ``exclude_too_fast`` does the same for raters whose
    median time per item is under ``too_fast`` seconds). ``control="length"`` fits Bradley-Terry with the
    length covariate; ``bootstrap`` resamples give its 95% intervals.
    """
    if control not in (None, "length"):
        raise StudyError(f"--control {control!r}: the covariate Bradley-Terry can control for is length")
    every = admin.ratings(include_skipped=True)
    stats = rater_stats(admin, every, too_fast)
    drop = {r.rater for r in stats if (exclude_failed_attention and r.failed_attention) or (exclude_too_fast and r.too_fast)}
    for r in stats:
        r.excluded = r.rater in drop
    rows = [r for r in every if not r.skipped and not r.attention and r.rater not in drop]
    summary = admin.summary()
    conditions = summary["conditions"]
    score_rows = [r for r in rows if r.kind == "score"]
    ab_rows = [r for r in rows if r.kind == "ab"]
    report = StudyReport(
        name=summary["name"], raters=len({r.rater for r in rows}), ratings=len(score_rows), choices=len(ab_rows),
        conditions=conditions, rater_stats=stats, attention_items=summary.get("attention_items", 0),
        too_fast_seconds=too_fast, exclude_failed_attention=exclude_failed_attention, exclude_too_fast=exclude_too_fast,
        excluded=sorted(drop), criteria=list(admin.study.score_criteria()),
    )
    ids = tuple(c.id for c in report.criteria)
    for cond in conditions:
        for crit in ids:
            by_context: dict[str, list[float]] = {}
            for r in score_rows:
                if r.condition == cond and r.scores.get(crit) is not None:
                    by_context.setdefault(r.instance_id, []).append(r.scores[crit])
            mean, low, high = mean_ci(by_context)
            report.means.append(MeanCI(cond, crit, sum(map(len, by_context.values())), mean, low, high))
    report.alpha = {c.id: krippendorff_alpha(score_rows, c.id, (c.low, c.high)) for c in report.criteria}
    report.baseline, report.paired = paired_against(score_rows, conditions, ids=ids)
    if all(v is None for v in report.alpha.values()):
        report.alpha_note = "needs two or more raters scoring the same items"
    battles = [(r.condition, r.condition_b, r.choice, r.length, r.length_b or 0) for r in ab_rows]
    report.ab_answers = {c: sum(r.choice == c for r in ab_rows) for c in AB_CHOICES} if ab_rows else {}
    report.control = control
    if control == "length":
        report.bradley_terry, report.length_effect = bradley_terry(battles, conditions, bootstrap=bootstrap, control_length=True)
    else:
        report.bradley_terry = bradley_terry(battles, conditions, bootstrap=bootstrap)
    return report


def _cell(text: str | None) -> str:
    """Free text from a rater, safe to open in a spreadsheet: a leading ``= + - @`` would start a formula."""
    text = text or ""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


CSV_COLUMNS = ["rater", "item_id", "instance_id", "kind", "condition", "condition_b", "<criteria>",
               "choice", "skipped", "seconds", "created_at", "updated_at",
               "participant_id", "attention", "attention_passed", "comment"]


def export_csv(admin: AdminView, path: str | Path | None = None) -> str:
    """Every rating as CSV (one row per rater x item, times in ISO-8601 UTC); written to ``path`` when given.

    Attention items are rows too (``attention`` 1, ``attention_passed`` 1/0), so nothing is hidden
    from the owner; their ``condition`` is ``attention``.
    """
    buf = io.StringIO()
    writer = csv.writer(buf)
    ids = admin.study.criteria().ids()
    at = CSV_COLUMNS.index("<criteria>")
    writer.writerow([*CSV_COLUMNS[:at], *ids, *CSV_COLUMNS[at + 1:]])
    for r in admin.ratings(include_skipped=True):
        writer.writerow([r.rater, r.item_id, r.instance_id, r.kind, r.condition, r.condition_b or "",
                         *[r.scores.get(c) if r.scores.get(c) is not None else "" for c in ids],
                         r.choice or "", int(r.skipped), "" if r.seconds is None else f"{r.seconds:.1f}",
                         iso_time(r.created_at), iso_time(r.updated_at),
                         r.participant_id or "", int(r.attention),
                         "" if r.attention_passed is None else int(r.attention_passed), _cell(r.comment)])
    text = buf.getvalue()
    if path is not None:
        _write_atomic(check_output(path, "CSV file"), text.encode("utf-8"), "CSV file")
    return text


def plot_report(report: StudyReport, path: str | Path | None = None):
    """Grouped bars (mean with 95% CI per factor and condition), plus BT scores when there are choices."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    show_means = bool(report.ratings) or not report.bradley_terry
    panels = int(show_means) + int(bool(report.bradley_terry))
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 4.4), squeeze=False)
    ax = axes[0][0]
    conds = report.conditions if show_means else []
    width = 0.8 / max(len(conds), 1)
    xs = np.arange(len(report.criteria))
    for k, cond in enumerate(conds):
        ms = [report.mean_of(cond, c.id) for c in report.criteria]
        heights = [m.mean if m and m.mean is not None else 0 for m in ms]
        err_low = [m.mean - m.low if m and m.low is not None else 0 for m in ms]
        err_high = [m.high - m.mean if m and m.high is not None else 0 for m in ms]
        ax.bar(xs + (k - (len(conds) - 1) / 2) * width, heights, width, yerr=[err_low, err_high], capsize=3, label=cond)
    if show_means:
        ax.set_xticks(xs, [c.id for c in report.criteria])  # ids: matplotlib's default font has no CJK glyphs
        top = max((c.high for c in report.criteria), default=5)
        ax.set_ylim(0, top + 0.5)
        ax.set_ylabel("mean score, 95% CI")
        ax.set_title(f"{report.name}: {report.ratings} ratings by {report.raters} raters")
    if conds:  # below the axes, so it never hides a bar
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=min(len(conds), 4), frameon=False)
    if report.bradley_terry:
        bx = axes[0][panels - 1]
        bts = report.bradley_terry
        bx.barh([b.condition for b in bts][::-1], [b.score for b in bts][::-1],
                xerr=[1.96 * (b.se or 0) for b in bts][::-1], capsize=3, color="tab:purple")
        bx.axvline(0, color="grey", lw=0.8)
        bx.set_xlabel("Bradley-Terry strength (log-odds), 95% CI")
        bx.set_title(f"A/B: {report.choices} choices")
    fig.tight_layout()
    if path is not None:
        out = check_output(path, "plot file")
        image = io.BytesIO()
        try:
            fig.savefig(image, dpi=110, format=out.suffix.lstrip(".").lower() or "png")
        except ValueError as exc:  # an extension matplotlib cannot write
            raise StudyError(f"plot file {out}: {' '.join(str(exc).split())[:120]}; name it .png, .pdf or .svg") from None
        finally:
            plt.close(fig)
        _write_atomic(out, image.getvalue(), "plot file")
    return fig
