"""One belief report over a set of games: every figure with its cluster-bootstrap interval.

``score_games(games)`` returns a plain dict whose top-level keys name the figures (``ece``,
``brier``, ``overprediction_ratio``, ``volatility``, ``flip_rate`` ...); the CLI prints it as
tables or JSON, and ``plot_report`` draws the reliability, trajectory and threshold plots.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from . import _metrics as m
from ._bootstrap import B_DEFAULT, SEED_DEFAULT, cluster_bootstrap
from . import _speech as sp
from ._data import BeliefGame
from ._logs import ImportError_, load_games


def _fig(per_game: list[np.ndarray], stat, b: int, seed: int, **extra: Any) -> dict[str, Any]:
    value, ci = cluster_bootstrap(per_game, stat, b=b, seed=seed)
    n = int(sum(len(x) for x in per_game))
    return {"value": value, "ci": list(ci) if ci else None, "n": n, **extra}


def _only(per_game: list[np.ndarray], fn) -> list[np.ndarray]:
    return [fn(x) for x in per_game]


def parse_rates(games: list[BeliefGame]) -> dict[str, dict[str, Any]]:
    counts: dict[str, Counter] = defaultdict(Counter)
    for g in games:
        for p in g.probes:
            c = counts[p.probe_id]
            c["n"] += 1
            c["parsed"] += p.parse_ok
            c["repaired"] += p.parse_ok and p.repaired
    return {
        pid: {"n": c["n"], "parse_rate": c["parsed"] / c["n"], "parsed_without_repair": (c["parsed"] - c["repaired"]) / c["n"],
              "repaired": c["repaired"]}
        for pid, c in sorted(counts.items())
    }


def cost(games: list[BeliefGame]) -> dict[str, Any]:
    calls = tokens = latency = 0
    for g in games:
        batches = set()
        for p in g.probes:
            if p.batched:
                batches.add((p.round, p.public_msg_seq, p.player_idx))
            else:
                calls += 1
            tokens += p.tokens
            latency += p.latency_ms
        calls += len(batches)
    n = max(len(games), 1)
    game_calls = [g.calls_game for g in games if g.calls_game]
    out = {"probe_calls": calls, "probe_calls_per_game": calls / n, "probe_tokens": tokens,
           "tokens_per_call": tokens / calls if calls else None, "probe_latency_s": latency / 1000}
    if game_calls:
        out["game_calls_per_game"] = sum(game_calls) / len(game_calls)
        out["traffic_multiplier"] = (calls + sum(game_calls)) / sum(game_calls)
    return out


def speech_report(speech: list[sp.SpeechGame], *, b: int = B_DEFAULT, seed: int = SEED_DEFAULT) -> dict[str, Any]:
    """Distinct-speech rate and vote/talk consistency, pooled (cluster bootstrap) and per game."""
    ds = [sp.distinct_rows(g.speeches) for g in speech]
    vt = [sp.consistency_rows(g.game, g.speeches) for g in speech]
    pooled_vt = np.vstack([x for x in vt if len(x)] or [np.empty((0, len(sp.VT_COLS)))])
    per_game = []
    for g, d, v in zip(speech, ds, vt):
        per_game.append({
            "game_id": g.game.game_id, "speeches": len(d), "distinct": int(d[:, 1].sum()) if len(d) else 0,
            "distinct_speech_rate": float(d[:, 1].mean()) if len(d) else None, "reasks": g.reasks,
            "votes_scored": len(v), "consistent": int(v[:, 1].sum()) if len(v) else 0,
            "vote_talk_consistency": float(v[:, 1].mean()) if len(v) else None,
            "consistency_chance": float(v[:, 2].mean()) if len(v) else None,
        })
    return {
        "distinct_speech_rate": _fig(ds, m.mean_col(1), b, seed, threshold=sp.REPEAT_THRESHOLD),
        "vote_talk_consistency": _fig(vt, m.mean_col(1), b, seed, chance=m.mean_col(2)(pooled_vt),
                                      voters_accusing_anyone=m.mean_col(3)(pooled_vt)),
        "speech_by_game": per_game,
    }


def scored_probes(games: list[BeliefGame]) -> dict[str, int]:
    """Probe id → items the report scores from its answers (0 = answered but never graded)."""
    rows = {
        "role_assessment": [m.first_order_rows(g) for g in games],
        "role_beliefs": [m.role_belief_rows(g) for g in games],
        "suspicion_ranking": [m.dynamics_rows(g) for g in games],
        "social_map": [m.second_order_rows(g) for g in games],
        "planned_action": [m.plan_rows(g) for g in games],
        "personality": [m.personality_rows(g, ("personality",)) for g in games],
        "personality_profile": [m.personality_rows(g, ("personality_profile",)) for g in games],
    }
    asked = sorted({p.probe_id for g in games for p in g.probes})
    return {pid: int(sum(len(x) for x in rows[pid])) if pid in rows else 0 for pid in asked}


def score_games(games: list[BeliefGame], *, b: int = B_DEFAULT, seed: int = SEED_DEFAULT,
                speech: list[sp.SpeechGame] | None = None) -> dict[str, Any]:
    """Every figure of the MafiaScope case study for ``games``, with 95% cluster-bootstrap CIs
    (and the speech figures of ``speech``, when given)."""
    fo = [m.first_order_rows(g) for g in games]
    rec = [m.mafia_recall_rows(g) for g in games]
    cal = [m.calibration_rows(g) for g in games]
    so = [m.second_order_rows(g) for g in games]
    vc = [m.vote_rows(g) for g in games]
    dyn = [m.dynamics_rows(g) for g in games]
    rounds = sorted({int(r) for x in fo + rec for r in (x[:, 0] if len(x) else [])})

    by_round = []
    for r in rounds:
        fr = _only(fo, lambda x: x[x[:, 0] == r] if len(x) else x)
        rr = _only(rec, lambda x: x[x[:, 0] == r] if len(x) else x)
        by_round.append({
            "round": r,
            "accuracy": _fig(fr, m.accuracy, b, seed, n_committed=int(sum((x[:, 1] == 1).sum() for x in fr if len(x)))),
            "accuracy_chance": m.accuracy_chance(np.vstack([x for x in fr if len(x)] or [np.empty((0, 6))])),
            "unknown_share": m.unknown_share(np.vstack([x for x in fr if len(x)] or [np.empty((0, 6))])),
            "mafia_recall": _fig(rr, m.mean_col(1), b, seed),
            "recall_chance": m.mean_col(2)(np.vstack([x for x in rr if len(x)] or [np.empty((0, 3))])),
        })

    report: dict[str, Any] = {
        "games": len(games),
        "game_ids": [g.game_id for g in games],
        "sources": dict(Counter(g.source for g in games)),
        "winners": dict(Counter(str(g.winner) for g in games)),
        "probe_answers": sum(len(g.probes) for g in games),
        "bootstrap": {"B": b, "seed": seed, "unit": "game"},
        "parse_rate": parse_rates(games),
        "first_order_accuracy": _fig(fo, m.accuracy, b, seed, n_committed=int(sum((x[:, 1] == 1).sum() for x in fo if len(x))), chance=m.accuracy_chance(np.vstack([x for x in fo if len(x)] or [np.empty((0, 6))]))),
        "mafia_recall": _fig(rec, m.mean_col(1), b, seed, chance=m.mean_col(2)(np.vstack([x for x in rec if len(x)] or [np.empty((0, 3))]))),
        "first_order_by_round": by_round,
        "ece": _fig(cal, m.ece, b, seed, bin_width=m.BIN_WIDTH),
        "brier": _fig(cal, m.brier, b, seed),
        "calibration_bins": m.reliability_bins(np.vstack([x for x in cal if len(x)] or [np.empty((0, 2))])),
        "overprediction_ratio": _fig(so, m.overprediction(50), b, seed, threshold=50),
        "overprediction_by_role": {
            "non_mafia": _fig(_only(so, lambda x: m.select(x, 4, 0)), m.overprediction(50), b, seed),
            "mafia": _fig(_only(so, lambda x: m.select(x, 4, 1)), m.overprediction(50), b, seed),
        },
        "overprediction_confident_own": {  # input control: pairs whose own guess about B was >= 70
            side: _fig(_only(so, lambda x, v=v: m.select(x[x[:, 5] >= 70] if len(x) else x, 4, v)), m.overprediction(50), b, seed)
            for side, v in (("non_mafia", 0), ("mafia", 1))
        },
        "agreement": _fig(so, m.agreement(50), b, seed, majority_baseline=m.majority_baseline(50)(np.vstack([x for x in so if len(x)] or [np.empty((0, 6))]))),
        "agreement_gain": _fig(so, m.agreement_gain(50), b, seed),
        "agreement_by_role": {
            side: _fig(_only(so, lambda x, v=v: m.select(x, 4, v)), m.agreement(50), b, seed,
                       majority_baseline=m.majority_baseline(50)(np.vstack([m.select(x, 4, v) for x in so if len(x)] or [np.empty((0, 6))])))
            for side, v in (("non_mafia", 0), ("mafia", 1))
        },
        "threshold_sweep": [
            {
                "threshold": t,
                "overprediction_ratio": _fig(so, m.overprediction(t), b, seed),
                "agreement": m.agreement(t)(np.vstack([x for x in so if len(x)] or [np.empty((0, 6))])),
                "majority_baseline": m.majority_baseline(t)(np.vstack([x for x in so if len(x)] or [np.empty((0, 6))])),
                "majority_class": m.majority_class(np.vstack([x for x in so if len(x)] or [np.empty((0, 6))]), t),
            }
            for t in m.THRESHOLDS
        ],
        "vote_coupling": {},
        "volatility": _fig(_only(dyn, lambda x: x[~np.isnan(x[:, 1])] if len(x) else x), m.mean_col(1), b, seed),
        "volatility_by_side": {
            side: _fig(_only(dyn, lambda x, v=v: m.select(x[~np.isnan(x[:, 1])] if len(x) else x, 0, v)), m.mean_col(1), b, seed)
            for side, v in (("non_mafia", 0), ("mafia", 1))
        },
        "flip_rate": _fig(_only(dyn, lambda x: x[~np.isnan(x[:, 2])] if len(x) else x), m.mean_col(2), b, seed),
        "return_rate": _fig(_only(dyn, lambda x: x[~np.isnan(x[:, 3])] if len(x) else x), m.mean_col(3), b, seed),
        "cost": cost(games),
    }
    pers = [m.personality_rows(g) for g in games]
    if any(len(x) for x in pers):  # only logs that record each seat's generating Big Five
        report["personality_mae"] = _fig(pers, m.mean_col(0), b, seed, baseline_always_50=m.mean_col(1)(np.vstack([x for x in pers if len(x)])))
    rb = [m.role_belief_rows(g) for g in games]
    if any(len(x) for x in rb):  # only games probed with role_beliefs
        pooled_rb = np.vstack([x for x in rb if len(x)])
        report["role_beliefs"] = {
            "true_role_probability": _fig(rb, m.mean_col(1), b, seed, chance=m.mean_col(2)(pooled_rb)),
            "brier": _fig(rb, m.mean_col(3), b, seed, base_rate=m.mean_col(4)(pooled_rb)),
            "top_role_accuracy": _fig(rb, m.mean_col(5), b, seed),
        }
    pa = [m.plan_rows(g) for g in games]
    report["plan_follow_through"] = _fig(pa, m.mean_col(1), b, seed,
                                         chance=m.mean_col(2)(np.vstack([x for x in pa if len(x)] or [np.empty((0, len(m.PA_COLS)))])))
    report["scored_probes"] = scored_probes(games)
    report["unscored_probes"] = [pid for pid, n in report["scored_probes"].items() if not n]
    if speech is not None:
        report.update(speech_report(speech, b=b, seed=seed))
    for side, v in (("innocent", 0), ("mafia", 1)):
        sub = _only(vc, lambda x, v=v: m.select(x, 0, v))
        top = _only(sub, lambda x: x[~np.isnan(x[:, 1])] if len(x) else x)
        cset = _only(sub, lambda x: x[~np.isnan(x[:, 3])] if len(x) else x)
        post = _only(sub, lambda x: x[~np.isnan(x[:, 5])] if len(x) else x)
        pooled = lambda parts: np.vstack([x for x in parts if len(x)] or [np.empty((0, len(m.VC_COLS)))])  # noqa: E731
        report["vote_coupling"][side] = {
            "top_suspect": _fig(top, m.mean_col(1), b, seed, chance=m.mean_col(2)(pooled(top))),
            "committed_set": _fig(cset, m.mean_col(3), b, seed, chance=m.mean_col(4)(pooled(cset))),
            "after_vote_top_suspect": _fig(post, m.mean_col(5), b, seed),
        }
    return report


def plot_report(report: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """Reliability diagram, first-order trajectory and threshold sweep as PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []

    bins = report["calibration_bins"]
    fig, ax = plt.subplots(figsize=(4.5, 4.2))
    centers = [(i + 0.5) * m.BIN_WIDTH / 100 for i in range(len(bins))]
    acc = [x["accuracy"] if x["accuracy"] is not None else 0 for x in bins]
    ax.bar(centers, acc, width=m.BIN_WIDTH / 100 * 0.9, color="#0072B2", alpha=0.8, label="accuracy")
    ax.plot([0, 1], [0, 1], "--", color="gray", label="perfect calibration")
    for c, x in zip(centers, bins):
        if x["n"]:
            ax.text(c, (x["accuracy"] or 0) + 0.02, f"n={x['n']}", ha="center", fontsize=7)
    e = report["ece"]["value"]
    ax.set(xlabel="stated confidence", ylabel="accuracy of committed guesses", xlim=(0, 1), ylim=(0, 1.05),
           title=f"Reliability (ECE {e:.3f})" if e is not None else "Reliability")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    paths.append(out_dir / "reliability.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    rows = report["first_order_by_round"]
    fig, ax = plt.subplots(figsize=(5, 3.6))
    r = [x["round"] for x in rows]
    for key, chance_key, color, label in (("accuracy", "accuracy_chance", "#0072B2", "committed accuracy"),
                                          ("mafia_recall", "recall_chance", "#D55E00", "Mafia recall")):
        vals = [x[key]["value"] if x[key]["value"] is not None else np.nan for x in rows]
        lo = [x[key]["ci"][0] if x[key]["ci"] else np.nan for x in rows]
        hi = [x[key]["ci"][1] if x[key]["ci"] else np.nan for x in rows]
        ax.plot(r, vals, "o-", color=color, label=label)
        ax.fill_between(r, lo, hi, color=color, alpha=0.15)
        ax.plot(r, [x[chance_key] if x[chance_key] is not None else np.nan for x in rows], ":", color=color, label=f"{label} chance")
    ax.set(xlabel="round", ylabel="share", ylim=(0, 1.05), title="First-order beliefs (villager side)", xticks=r)
    ax.legend(fontsize=7)
    fig.tight_layout()
    paths.append(out_dir / "first_order.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)

    sweep = report["threshold_sweep"]
    fig, ax = plt.subplots(figsize=(5, 3.6))
    t = [x["threshold"] for x in sweep]
    ax.plot(t, [x["agreement"] if x["agreement"] is not None else np.nan for x in sweep], "o-", label="agreement")
    ax.plot(t, [x["majority_baseline"] if x["majority_baseline"] is not None else np.nan for x in sweep], "s--", label="majority baseline")
    ax2 = ax.twinx()
    ax2.plot(t, [x["overprediction_ratio"]["value"] or np.nan for x in sweep], "^-", color="#CC79A7", label="over-prediction ratio")
    ax2.set_ylabel("predicted / actual 'suspects'")
    ax.set(xlabel="confidence threshold", ylabel="share", ylim=(0, 1), title="Second order: threshold sweep")
    ax.legend(loc="upper left", fontsize=7)
    ax2.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    paths.append(out_dir / "second_order_sweep.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths


def score_path(path: str | Path, *, b: int = B_DEFAULT, seed: int = SEED_DEFAULT, plots: str | Path | None = None) -> dict[str, Any]:
    """Import every game under ``path`` (MafiaScope or ours), score it, optionally write plots.

    The speech figures cover every game log under ``path``; a folder of games played without
    probes gets them alone (its probe figures are empty).
    """
    speech = sp.load_speech_games(path)
    try:
        games = load_games(path)
    except ImportError_:
        if not speech:
            raise
        games = [g.game for g in speech]
    report = score_games(games, b=b, seed=seed, speech=speech)
    report["source_path"] = str(path)
    if plots:
        report["plots"] = [str(p) for p in plot_report(report, plots)]
    return report
