"""MOE metrics: Tachikuma section 3.2, formulas (1)-(6) exactly as written, in one place.

Per instance i, with G the gold (character, skill) answers and P the predicted tuples
(characters matched case-insensitively through the instance's aliases; skills by resolved id):

    p   = the total number of predicted tuples          (all of them: a duplicate counts twice)
    g   = the number of answers in the ground truth     (distinct gold tuples)
    t_c = the number of correctly predicted character names
          (distinct predicted names that are among the gold names)
    t_s = the number of correct predictions of both character name and skill
          (distinct predicted tuples that are gold tuples)

    CP = 1/K Σ t_c/p   (1)      CR = 1/K Σ t_c/g   (2)
    SP = 1/K Σ t_s/p   (3)      SR = 1/K Σ t_s/g   (4)
    CF = 2·CP·CR/(CP+CR)   (5)  SF = 2·SP·SR/(SP+SR)   (6)      (p = 0 → precision 0)

Worked cases (the tests hold them):

* gold {(A, strength), (A, athletics)}, predicted {(A, perception)}: t_c = 1 (the name A),
  g = 2, so CR = 0.5; CP = 1.
* gold {(A, x)}, predicted [(A, x), (A, x)]: p = 2, t_s = 1, so SP = 0.5; SR = 1.

Read this way the paper's numbers can exceed each other in surprising directions: when one
character rolls two checks, t_c (names) is smaller than t_s (tuples), so SP > CP is possible
and even a perfect prediction has CP = CR = 0.5. That is why the **tuple** variant exists
(``metric="tuple"``, ``--metric tuple``): it counts t_c per tuple (predicted tuples whose
character is gold, over p; gold tuples whose character was predicted, over g) after removing
duplicate predictions, which keeps CP ≥ SP, CR ≥ SR and a perfect prediction at 1. It was
this project's first reading; it is kept, named, for comparing with runs scored that way.
The two agree whenever each character has one check and no prediction is repeated.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval.stats import Interval, PairedTest, bootstrap_ci, harmonic_mean, paired_test
from pipelines.records import Check, MoeInstance
from rulesets import VgmError


def alias_map(characters: Iterable[str] | None) -> dict[str, str]:
    """``["Nott|Nott the Brave"]`` → {"nott": "nott", "nott the brave": "nott"}."""
    table: dict[str, str] = {}
    for entry in characters or []:
        names = [n.strip().lower() for n in entry.split("|") if n.strip()]
        for name in names:
            table.setdefault(" ".join(name.split()), " ".join(names[0].split()))
    return table


METRICS = ("paper", "tuple")
DEFAULT_METRIC = "paper"


class UnknownMetric(VgmError):
    """A metric name that is not one of ``METRICS``."""


def check_metric(metric: str) -> str:
    """``metric`` itself, or one line listing the choices."""
    if metric not in METRICS:
        raise UnknownMetric(f"--metric {metric!r}: choose one of {', '.join(METRICS)}")
    return metric


def _tuples(checks: Iterable[Check | dict], aliases: dict[str, str]) -> list[tuple[str, str]]:
    """Normalised (character, skill) tuples, in order, duplicates kept."""
    out = []
    for check in checks:
        character, skill = (check.character, check.skill) if isinstance(check, Check) else (check.get("character"), check.get("skill"))
        key = " ".join(str(character).lower().split())
        out.append((aliases.get(key, key), str(skill).strip().lower()))
    return out


@dataclass(frozen=True)
class InstanceScore:
    """One instance's ratios (formulas' summands) and its own F-scores."""

    id: str
    cp: float
    cr: float
    sp: float
    sr: float
    p: int
    g: int
    exact: bool
    tc: int = 0  # the t_c the ratios were made of (for the tuple metric: over predictions)
    ts: int = 0

    @property
    def cf(self) -> float:
        return harmonic_mean(self.cp, self.cr)

    @property
    def sf(self) -> float:
        return harmonic_mean(self.sp, self.sr)


def score_instance(
    gold: Sequence[Check | dict], predicted: Sequence[Check | dict], *, characters: Iterable[str] | None = None,
    id: str = "", metric: str = DEFAULT_METRIC,
) -> InstanceScore:
    """One instance's t_c/p, t_c/g, t_s/p, t_s/g: formulas (1)-(4) before averaging (see the module docstring).

    Args:
        metric: ``"paper"`` (formulas as written, the default) or ``"tuple"`` (t_c per tuple, duplicates removed).
    """
    check_metric(metric)
    aliases = alias_map(characters)
    gold_set = set(_tuples(gold, aliases))
    predicted_list = _tuples(predicted, aliases)
    predicted_set = set(predicted_list)
    gold_chars = {c for c, _ in gold_set}
    g = len(gold_set)
    ts = len(predicted_set & gold_set)
    if metric == "paper":
        p = len(predicted_list)
        tc = len({c for c, _ in predicted_set} & gold_chars)
        tc_p = tc_g = tc
    else:
        p = len(predicted_set)
        pred_chars = {c for c, _ in predicted_set}
        tc_p = sum(1 for c, _ in predicted_set if c in gold_chars)
        tc_g = sum(1 for c, _ in gold_set if c in pred_chars)
        tc = tc_p
    return InstanceScore(
        id=id,
        cp=tc_p / p if p else 0.0,
        cr=tc_g / g if g else 0.0,
        sp=ts / p if p else 0.0,
        sr=ts / g if g else 0.0,
        p=p,
        g=g,
        exact=predicted_set == gold_set,
        tc=tc,
        ts=ts,
    )


def _f_of_means(rows: np.ndarray) -> float:
    return harmonic_mean(float(rows[:, 0].mean()), float(rows[:, 1].mean()))


@dataclass
class MoeScore:
    """CP, CR, SP, SR, CF, SF over K instances, each with a 95% bootstrap CI (resampling instances)."""

    n: int
    cp: Interval
    cr: Interval
    sp: Interval
    sr: Interval
    cf: Interval
    sf: Interval
    cf_mean: float  # mean of per-instance character F
    sf_mean: float  # mean of per-instance skill F
    exact: Interval  # share of instances whose predicted set equals the gold set
    instances: list[InstanceScore] = field(default_factory=list, repr=False)
    metric: str = DEFAULT_METRIC

    def __str__(self) -> str:
        pct = lambda iv: f"{100 * iv.value:5.1f} [{100 * iv.low:5.1f}, {100 * iv.high:5.1f}]"  # noqa: E731
        return "\n".join([
            f"MOE score on {self.n} instances (95% bootstrap CI; metric: {self.metric})",
            f"  CF {pct(self.cf)}   CP {pct(self.cp)}   CR {pct(self.cr)}",
            f"  SF {pct(self.sf)}   SP {pct(self.sp)}   SR {pct(self.sr)}",
            f"  exact set match {pct(self.exact)}   mean per-instance F: char {100 * self.cf_mean:.1f}, skill {100 * self.sf_mean:.1f}",
        ])

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "metric": self.metric}
        for name in ("cf", "sf", "cp", "cr", "sp", "sr", "exact"):
            out[name] = getattr(self, name).as_dict()
        out["cf_instance_mean"] = self.cf_mean
        out["sf_instance_mean"] = self.sf_mean
        return out

    def rows(self, kind: str) -> np.ndarray:
        """Per-instance (precision, recall) rows for ``kind`` "c" or "s", for paired tests."""
        return np.array([[getattr(s, f"{kind}p"), getattr(s, f"{kind}r")] for s in self.instances], dtype=float).reshape(-1, 2)


def aggregate(scores: list[InstanceScore], *, B: int = 1000, seed: int = 0, metric: str = DEFAULT_METRIC) -> MoeScore:
    """Formulas (1)-(6) over instance scores, with bootstrap CIs (``metric`` only labels the result)."""
    if not scores:
        nan = Interval(float("nan"), float("nan"), float("nan"))
        return MoeScore(0, nan, nan, nan, nan, nan, nan, float("nan"), float("nan"), nan, [], metric)
    table = np.array([[s.cp, s.cr, s.sp, s.sr, float(s.exact)] for s in scores], dtype=float)
    ci = lambda column: bootstrap_ci(table[:, column], B=B, seed=seed)  # noqa: E731
    return MoeScore(
        n=len(scores),
        cp=ci(0), cr=ci(1), sp=ci(2), sr=ci(3),
        cf=bootstrap_ci(table[:, [0, 1]], stat=_f_of_means, B=B, seed=seed),
        sf=bootstrap_ci(table[:, [2, 3]], stat=_f_of_means, B=B, seed=seed),
        cf_mean=float(np.mean([s.cf for s in scores])),
        sf_mean=float(np.mean([s.sf for s in scores])),
        exact=ci(4),
        instances=scores,
        metric=metric,
    )


def score_moe(
    gold: Sequence[MoeInstance] | Sequence[Sequence[Check]],
    predicted: Sequence[Sequence[Check | dict]],
    *,
    characters: Sequence[Iterable[str] | None] | None = None,
    B: int = 1000,
    seed: int = 0,
    metric: str = DEFAULT_METRIC,
) -> MoeScore:
    """Score predictions against gold: ``print(score_moe(instances, predictions))``.

    Args:
        gold: MOE instances (their ``answers`` and ``characters`` aliases are used) or plain check lists.
        predicted: one list of checks per gold item, same order.
        characters: alias lists per item when ``gold`` is plain check lists.
        metric: ``"paper"`` (formulas (1)-(6) as written) or ``"tuple"`` (see the module docstring).
    """
    if len(gold) != len(predicted):
        raise ValueError(f"score_moe needs one prediction per gold instance; got {len(gold)} gold and {len(predicted)} predicted")
    scores = []
    for i, (g, p) in enumerate(zip(gold, predicted)):
        if isinstance(g, MoeInstance):
            scores.append(score_instance(g.answers, p, characters=g.characters, id=g.id, metric=metric))
        else:
            scores.append(score_instance(g, p, characters=(characters[i] if characters else None), id=str(i), metric=metric))
    return aggregate(scores, B=B, seed=seed, metric=metric)


def compare_scores(a: MoeScore, b: MoeScore, metric: str = "sf", *, B: int = 2000, seed: int = 0) -> PairedTest:
    """Paired bootstrap CI and permutation p-value for ``metric`` (cf, sf, cp, ...) of A minus B.

    Instances are matched by id, so two runs over the same data compare even if their order differs.
    """
    by_id_b = {s.id: s for s in b.instances}
    shared = [s for s in a.instances if s.id in by_id_b]
    if not shared:
        raise ValueError("the two runs share no instance ids; compare runs over the same data")
    if metric in ("cf", "sf"):
        kind = metric[0]
        ra = np.array([[getattr(s, f"{kind}p"), getattr(s, f"{kind}r")] for s in shared])
        rb = np.array([[getattr(by_id_b[s.id], f"{kind}p"), getattr(by_id_b[s.id], f"{kind}r")] for s in shared])
        return paired_test(ra, rb, stat=_f_of_means, B=B, seed=seed)
    getter = (lambda s: float(s.exact)) if metric == "exact" else (lambda s: getattr(s, metric))
    return paired_test([getter(s) for s in shared], [getter(by_id_b[s.id]) for s in shared], B=B, seed=seed)
