"""Counterfactual replay: re-simulate a recorded game N times from one step and tally the outcomes.

Needs a game recorded with snapshots (``<game>.snapshots.jsonl`` beside ``<game>.jsonl``). Each
fork is an ordinary game log ``<out>/<game>-fork<i>.jsonl`` whose first private record names its
parent and branch point, so forks can be scored, listed and forked again like any game.
"""
from __future__ import annotations

import copy
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pipelines.llm as llm  # get_model is looked up per call, so a caller or a test may swap it
from gm.games import GAMES
from pipelines.probes import attach_probes, load_probe_set
from rulesets import VgmError, read_jsonl

from ._data import position


class ForkError(VgmError):
    """A log that cannot be forked (no snapshots, step out of range)."""


def snapshot_path(log: Path) -> Path:
    return log.with_suffix(".snapshots.jsonl")


def find_snapshot(log: str | Path, at: tuple[int, int], *, before: bool = False) -> tuple[tuple[int, int], dict[str, Any]]:
    """The snapshot taken right after step ``at`` (``before=True``: the last one before it)."""
    log = Path(log)
    path = snapshot_path(log)
    if not path.is_file():
        raise ForkError(f"{log}: no snapshots ({path.name}); record the game with snapshots on (vgm mafia simulate --snapshots)")
    best = None
    target = position(*at)
    for lineno, row in read_jsonl(path, what="snapshot log").numbered():  # a torn last snapshot is dropped
        try:
            key = (int(row["key"][0]), int(row["key"][1]))
            if not isinstance(row["snapshot"], dict):
                raise TypeError
        except (KeyError, TypeError, ValueError, IndexError):
            raise ForkError(f"{path}:{lineno}: not a snapshot line ({{'key': [round, seq], 'snapshot': ...}})") from None
        here = position(*key)
        if here < target or (here == target and not before):
            best = (key, row["snapshot"])
    if best is None:
        raise ForkError(f"{log}: no snapshot at or before step {at[0]}.{at[1]}; the first step is later")
    if best[1].get("phase") == "over":
        raise ForkError(f"{log}: the game is already over at step {at[0]}.{at[1]}; fork an earlier step")
    return best


def _engine_class(name: str):
    if name not in GAMES:
        raise ForkError(f"cannot fork a {name!r} game; only {' and '.join(sorted(GAMES))} logs have snapshots")
    return GAMES[name].engine


async def fork_game(
    log: str | Path,
    at: tuple[int, int],
    n: int = 5,
    *,
    out_dir: str | Path | None = None,
    before: bool = False,
    probes: str | Path | None = None,
    model: str | None = None,
    seed: int = 1,
    edits: list[Any] | None = None,
    edits_file: str | Path | None = None,
) -> dict[str, Any]:
    """Re-simulate ``log`` from step ``at`` ``n`` times; returns the outcome distribution.

    Args:
        before: branch just before ``at`` (the step is re-drawn: the PRE arm) instead of after it.
        probes: a probe set to run in each fork (``cheap`` keeps replays affordable).
        model: replace every LLM seat's model with this model string.
        seed: fork ``i`` draws its future randomness from ``seed + i``.
        edits: intervention edits (``eval.beliefs.load_edits``; checked against the game here)
            applied at the branch point; ``edits_file`` names their file in errors and records.
    """
    if n < 1:
        raise ForkError(f"--n {n}: give 1 or more re-simulations")
    log = Path(log)
    key, snap = find_snapshot(log, at, before=before)
    cls = _engine_class(snap.get("engine", ""))
    record: list[dict[str, Any]] = []
    if edits:
        from ._edits import check_edits, edited_snapshot

        check_edits(edits_file or "edits", edits, snap, key)
        snap, record = edited_snapshot(snap, edits)
    batched = isinstance(probes, str) and probes.endswith(":batched")
    probe_set = load_probe_set(probes.removesuffix(":batched") if isinstance(probes, str) else probes) if probes else None
    models: dict[str, Any] = {}
    if model:
        shared = llm.get_model(model)
        models = {s.get("model", ""): shared for s in snap["seats"] if s.get("kind") == "llm"}
    out_dir = Path(out_dir) if out_dir else log.parent / "forks"  # made only once every argument is known to be good
    if out_dir.exists() and not out_dir.is_dir():
        raise ForkError(f"-o {out_dir} is a file; give a folder for the fork logs")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ForkError(f"cannot create {out_dir} ({exc.strerror or exc}); give a writable -o folder") from None
    parent = snap["game_id"]
    forks = []
    arm = "edited" if edits else ("pre" if before else "post")
    for i in range(n):
        fork_id = f"{parent}-{'edit' if edits else 'fork'}{key[0]}.{key[1]}{'pre' if before else ''}-{i}"
        path = out_dir / f"{fork_id}.jsonl"
        # a fresh copy per fork: restore() adopts the snapshot's lists as live game state
        game = cls.restore(copy.deepcopy(snap), log_path=path, game_id=fork_id, reseed=seed + i, snapshots=True, models=models or None)
        game.log.append({"game_id": fork_id, "round": key[0], "public_msg_seq": key[1], "kind": "fork", "private": True,
                         "to": [], "parent": parent, "parent_log": str(log), "at": list(key), "arm": arm,
                         "reseed": seed + i, **({"edits": record, "edits_file": str(edits_file or "")} if edits else {})})
        if edits:
            from ._edits import plant_beliefs

            plant_beliefs(game, edits, key)
        runner = attach_probes(game, probe_set, None, path.with_name(f"{fork_id}.probes.jsonl"), batched=batched) if probe_set else None
        result = await game.run()
        if runner is not None:
            runner.close()
        eliminated = [e.get("player") for e in game.log.events if e.get("kind") == "elimination" and position(e["round"], e["public_msg_seq"]) > position(*key)]
        forks.append({"game_id": fork_id, "log": str(path), "winner": result.get("winner"), "rounds": result.get("rounds"),
                      "first_elimination": eliminated[0] if eliminated else None})
    winners = Counter(str(f["winner"]) for f in forks)
    firsts = Counter(str(f["first_elimination"]) for f in forks)
    return {
        "parent": parent, "log": str(log), "at": list(key), "arm": arm, "n": n, **({"edits": record} if edits else {}),
        "winners": {k: v / n for k, v in winners.most_common()},
        "first_elimination": {k: v / n for k, v in firsts.most_common()},
        "forks": forks,
    }


# -- comparing the two arms ---------------------------------------------------------------------
def wilson_interval(k: int, n: int) -> tuple[float, float] | None:
    """95% Wilson score interval for k successes in n.

    statsmodels (``proportion_confint(method="wilson")``, ``confint_proportions_2indep(method="newcomb")``)
    is not installed here, and one dependency for two formulas is not worth it: scipy's
    ``binomtest(...).proportion_ci(method="wilson")`` is the same interval.
    """
    if n <= 0:
        return None
    from scipy.stats import binomtest  # lazy: scipy is slow to import

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def spread(values: list[float]) -> dict[str, Any] | None:
    """Standard deviation (n − 1) and range of one figure over repeated runs; None with one run."""
    vals = [v for v in values if v is not None]
    if len(vals) < 2:
        return None
    return {"runs": len(vals), "sd": round(float(statistics.stdev(vals)), 4), "min": round(min(vals), 4), "max": round(max(vals), 4)}


def arm_comparison(k_post: int, n_post: int, k_pre: int, n_pre: int) -> dict[str, Any]:
    """POST vs PRE for one outcome: rates with Wilson CIs, the difference POST − PRE with Newcombe's
    hybrid score CI (method 10 of Newcombe 1998, built from the two Wilson intervals), and Fisher's
    exact two-sided p (scipy.stats.fisher_exact) on the 2×2 table."""
    from scipy.stats import fisher_exact

    p1 = k_post / n_post if n_post else None
    p2 = k_pre / n_pre if n_pre else None
    ci1, ci2 = wilson_interval(k_post, n_post), wilson_interval(k_pre, n_pre)
    diff = diff_ci = None
    if ci1 and ci2:
        diff = p1 - p2
        (l1, u1), (l2, u2) = ci1, ci2
        diff_ci = [diff - ((p1 - l1) ** 2 + (u2 - p2) ** 2) ** 0.5, diff + ((u1 - p1) ** 2 + (p2 - l2) ** 2) ** 0.5]
    p_value = float(fisher_exact([[k_post, n_post - k_post], [k_pre, n_pre - k_pre]])[1]) if n_post and n_pre else None
    return {"post": {"k": k_post, "n": n_post, "rate": p1, "ci95": list(ci1) if ci1 else None},
            "pre": {"k": k_pre, "n": n_pre, "rate": p2, "ci95": list(ci2) if ci2 else None},
            "difference": diff, "difference_ci95": diff_ci, "fisher_p": p_value}


def compare_arms(post: dict[str, Any], pre: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every outcome (winner, first elimination) seen in either arm, compared POST vs PRE."""
    out: dict[str, list[dict[str, Any]]] = {}
    for field, key in (("winner", "winner"), ("first_elimination", "first_elimination")):
        a = Counter(str(f[key]) for f in post["forks"])
        b = Counter(str(f[key]) for f in pre["forks"])
        out[field] = [{"outcome": v, **arm_comparison(a[v], len(post["forks"]), b[v], len(pre["forks"]))}
                      for v in sorted(set(a) | set(b), key=lambda v: -(a[v] + b[v]))]
    return out


async def fork_compare(log: str | Path, at: tuple[int, int], n: int = 5, **kwargs: Any) -> dict[str, Any]:
    """Both arms at step ``at`` (PRE: the step re-drawn; POST: the step kept), ``n`` forks each, and
    their comparison (``compare_arms``). Arguments as ``fork_game``."""
    post = await fork_game(log, at, n, before=False, **kwargs)
    pre = await fork_game(log, at, n, before=True, **kwargs)
    return with_comparison(post, pre)


def with_comparison(post: dict[str, Any], pre: dict[str, Any]) -> dict[str, Any]:
    """The report of a two-arm fork from the two one-arm reports."""
    return {"parent": post["parent"], "log": post["log"], "at": post["at"], "n": post["n"], "arms": {"post": post, "pre": pre},
            "comparison": compare_arms(post, pre),
            "note": "difference = POST - PRE; 95% CIs: Wilson per arm, Newcombe hybrid score for the difference; "
                    "p: Fisher's exact test, two-sided; no correction across outcomes"}
