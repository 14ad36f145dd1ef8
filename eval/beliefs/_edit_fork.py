"""An edited fork against the same fork unedited: outcome and belief shifts, with their spread.

Both arms restore the same snapshot and reseed fork ``i`` with ``seed + i``, so the only
difference between fork ``i`` of each arm is the edit. Outcomes (each winner, each first
elimination after the branch) are compared as the PRE/POST forks are (``arm_comparison``:
Wilson CIs, Newcombe's interval of the difference, Fisher's exact p). With probes, the belief
shift is each player's mean suspicion score (0-100, over the ``suspicion_ranking`` answers of
the branch round from the branch point on) per fork, edited minus unedited, with Welch's 95%
CI (scipy). ``repeats`` runs of ``n`` forks each give the spread of every arm's rate.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from ._data import entries, position
from ._fork import arm_comparison, fork_game, spread

OUTCOMES = (("winner", "winner"), ("first_elimination", "first_elimination"))


def _by_repeat(forks: list[dict[str, Any]], n: int, field: str, value: str) -> list[float]:
    runs: dict[int, list[bool]] = defaultdict(list)
    for i, f in enumerate(forks):
        runs[i // n].append(str(f[field]) == value)
    return [sum(v) / len(v) for _, v in sorted(runs.items())]


def fork_suspicion(log: str | Path, at: tuple[int, int]) -> dict[str, float]:
    """Mean suspicion score of each player over the fork's ``suspicion_ranking`` answers in the branch round, from the branch point on."""
    from pipelines.probes import ProbeRecord
    from rulesets import read_jsonl

    path = Path(log).with_suffix(".probes.jsonl")
    if not path.is_file():
        return {}
    scores: dict[str, list[float]] = defaultdict(list)
    for rec in read_jsonl(path, ProbeRecord, what="probe log", on_torn="ignore"):
        if rec.probe_id != "suspicion_ranking" or not rec.parse_ok or rec.round != at[0]:
            continue
        if position(rec.round, rec.public_msg_seq) < position(*at):
            continue
        for e in entries(rec.answer_parsed):
            try:
                scores[str(e["player"]).strip()].append(float(e["score"]))
            except (KeyError, TypeError, ValueError):
                continue
    return {p: float(np.mean(v)) for p, v in scores.items() if v}


def belief_shift(edited: list[dict[str, Any]], unedited: list[dict[str, Any]], at: tuple[int, int]) -> list[dict[str, Any]]:
    """Per player: mean suspicion in each arm and the difference with Welch's 95% CI (needs probes, 2+ forks an arm)."""
    from scipy.stats import ttest_ind

    a = [fork_suspicion(f["log"], at) for f in edited]
    b = [fork_suspicion(f["log"], at) for f in unedited]
    rows = []
    for player in sorted({p for s in a + b for p in s}):
        x = [s[player] for s in a if player in s]
        y = [s[player] for s in b if player in s]
        row: dict[str, Any] = {"player": player, "edited": {"n": len(x), "mean": float(np.mean(x)) if x else None},
                               "unedited": {"n": len(y), "mean": float(np.mean(y)) if y else None}, "difference": None,
                               "difference_ci95": None, "welch_p": None}
        if x and y:
            row["difference"] = row["edited"]["mean"] - row["unedited"]["mean"]
        if len(x) >= 2 and len(y) >= 2 and (np.var(x) > 0 or np.var(y) > 0):
            test = ttest_ind(x, y, equal_var=False)
            ci = test.confidence_interval(0.95)
            row["difference_ci95"] = [float(ci.low), float(ci.high)]
            row["welch_p"] = float(test.pvalue)
        rows.append(row)
    return rows


def compare_edit(edited: dict[str, Any], unedited: dict[str, Any], n: int, repeats: int = 1,
                 labels: tuple[str, str] = ("edited", "unedited")) -> dict[str, Any]:
    """Every outcome seen in either arm, the first arm vs the second (named ``labels``), with (over
    ``repeats`` runs of ``n`` forks) each arm's spread."""
    first, second = labels
    out: dict[str, list[dict[str, Any]]] = {}
    for field, key in OUTCOMES:
        a = Counter(str(f[key]) for f in edited["forks"])
        b = Counter(str(f[key]) for f in unedited["forks"])
        rows = []
        for v in sorted(set(a) | set(b), key=lambda v: -(a[v] + b[v])):
            c = arm_comparison(a[v], len(edited["forks"]), b[v], len(unedited["forks"]))
            row = {"outcome": v, first: c["post"], second: c["pre"], "difference": c["difference"],
                   "difference_ci95": c["difference_ci95"], "fisher_p": c["fisher_p"]}
            if repeats > 1:
                row[first]["spread"] = spread(_by_repeat(edited["forks"], n, key, v))
                row[second]["spread"] = spread(_by_repeat(unedited["forks"], n, key, v))
            rows.append(row)
        out[field] = rows
    return out


async def arms_compare(log: str | Path, at: tuple[int, int], n: int = 5, *, repeats: int = 1, seed: int = 1,
                       **kwargs: Any) -> dict[str, Any]:
    """POST (the step kept) vs PRE (re-drawn), ``n × repeats`` forks each, with each arm's spread over the repeats."""
    post = await fork_game(log, at, n * repeats, seed=seed, **kwargs)
    pre = await fork_game(log, at, n * repeats, seed=seed, before=True, **kwargs)
    return {"parent": post["parent"], "log": post["log"], "at": post["at"], "n": n, "repeats": repeats,
            "arms": {"post": post, "pre": pre}, "comparison": compare_edit(post, pre, n, repeats, ("post", "pre")),
            "note": "difference = POST - PRE; 95% CIs: Wilson per arm, Newcombe hybrid score for the difference; "
                    "p: Fisher's exact test, two-sided; no correction across outcomes; spread = SD and range of each arm's "
                    "rate over the repeats"}


async def edit_fork_compare(log: str | Path, at: tuple[int, int], edits: list[Any], n: int = 5, *, repeats: int = 1,
                            edits_file: str | Path | None = None, seed: int = 1, **kwargs: Any) -> dict[str, Any]:
    """``n × repeats`` edited forks and as many unedited ones with the same reseeds; their comparison.

    Other arguments as ``fork_game`` (``out_dir``, ``probes``, ``model``).
    """
    total = n * repeats
    edited = await fork_game(log, at, total, seed=seed, edits=edits, edits_file=edits_file, **kwargs)
    unedited = await fork_game(log, at, total, seed=seed, **kwargs)
    key = tuple(edited["at"])
    return {"parent": edited["parent"], "log": edited["log"], "at": edited["at"], "n": n, "repeats": repeats,
            "edits": edited["edits"], "arms": {"edited": edited, "unedited": unedited},
            "comparison": compare_edit(edited, unedited, n, repeats),
            "belief_shift": belief_shift(edited["forks"], unedited["forks"], key),
            "note": "difference = edited - unedited (fork i of each arm has the same reseed); 95% CIs: Wilson per arm, "
                    "Newcombe hybrid score for the difference; p: Fisher's exact test, two-sided; belief shift: mean "
                    "suspicion score in the branch round, Welch's t interval; no correction across outcomes"
                    + ("; spread = SD and range of each arm's rate over the repeats" if repeats > 1 else "")}
