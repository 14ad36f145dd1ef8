"""A tournament's figures: the win-rate matrix, ratings, per-role win rates, and how much runs vary.

Every rate has a 95% Wilson interval (``eval.beliefs.wilson_interval``, the one the forks use).
Ratings are a Bradley-Terry model with a side term: the open side (village / good) seated with
model ``a`` beats the hidden side seated with model ``b`` with probability
``σ(θ_a − θ_b + h)``; ``h`` is how much the game favours the open side. A model's ``θ`` is one
skill for both sides. A small ridge (``RIDGE``) keeps a model that won every game finite. The
interval of each rating comes from a bootstrap of games within each pairing.

*Spread*: the same pairing played ``repeats`` times with fresh seeds; the standard deviation
and range of the repeats' figures say how much one run of ``games`` games varies.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

RIDGE = 0.1
"""L2 weight on the ratings (a prior of N(0, 10)): finite ratings for a model that never lost."""
BOOTSTRAP = 200
ELO_SCALE = 400 / math.log(10)


def spread(values: list[float]) -> dict[str, Any] | None:
    """``eval.beliefs.spread`` (one definition, shared with the fork comparison), imported when needed."""
    from eval.beliefs import spread as run_spread

    return run_spread(values)


def _wilson(k: int, n: int) -> list[float] | None:
    from eval.beliefs import wilson_interval

    ci = wilson_interval(k, n)
    return [round(ci[0], 4), round(ci[1], 4)] if ci else None


def rate_row(wins: list[bool], by_repeat: dict[int, list[bool]] | None = None) -> dict[str, Any]:
    """k of n with its rate, Wilson CI and (with repeats) its spread over the repeats."""
    k, n = sum(wins), len(wins)
    row: dict[str, Any] = {"k": k, "n": n, "rate": round(k / n, 4) if n else None, "ci95": _wilson(k, n)}
    if by_repeat:
        row["spread"] = spread([sum(v) / len(v) for _, v in sorted(by_repeat.items()) if v])
    return row


def fit_ratings(cells: dict[tuple[str, str], tuple[int, int]], models: list[str]) -> dict[str, Any]:
    """Bradley-Terry with a side term by maximum likelihood (``eval.stats.bradley_terry_fit``, the
    rating study's fit); ratings centred on 0, the side term not penalised.

    ``cells`` maps (open model, hidden model) to (games the open side won, decisive games).
    """
    from eval.stats import bradley_terry_fit

    index = {m: i for i, m in enumerate(models)}
    pairs = [(index[a], index[b], w, n) for (a, b), (w, n) in cells.items() if n]
    if not pairs:
        return {"theta": {m: 0.0 for m in models}, "side": 0.0}
    k = len(models)
    x = np.zeros((len(pairs), k + 1))
    rows = np.arange(len(pairs))
    x[rows, [p[0] for p in pairs]] = 1.0
    x[rows, [p[1] for p in pairs]] -= 1.0
    x[:, k] = 1.0  # the open side's advantage
    won, games = np.array([p[2] for p in pairs], float), np.array([p[3] for p in pairs], float)
    # each cell twice: its open-side wins as y = 1, its losses as y = 0
    fit = bradley_terry_fit(np.concatenate([x, x]), np.concatenate([np.ones(len(pairs)), np.zeros(len(pairs))]),
                            np.concatenate([won, games - won]), k, np.r_[np.full(k, RIDGE / 2), 0.0])
    return {"theta": {m: float(fit[index[m]]) for m in models}, "side": float(fit[k])}


def _cells(results: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    out: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        if r["winner"] not in (None, "none"):  # a game stopped at the round limit has no winner to rate
            c = out[(r["open_model"], r["hidden_model"])]
            c[0] += bool(r["open_won"])
            c[1] += 1
    return {key: (w, n) for key, (w, n) in out.items()}


def ratings(results: list[dict[str, Any]], models: list[str], *, seed: int = 0) -> dict[str, Any]:
    """Bradley-Terry ratings (logit and Elo scale) with bootstrap CIs and, with repeats, their spread.

    The bootstrap resamples games within each pairing (a binomial draw of each cell's wins).
    """
    cells = _cells(results)
    fit = fit_ratings(cells, models)
    rng = np.random.default_rng(seed)
    boot: dict[str, list[float]] = {m: [] for m in models}
    side_boot: list[float] = []
    for _ in range(BOOTSTRAP if cells else 0):
        f = fit_ratings({key: (int(rng.binomial(n, w / n)), n) for key, (w, n) in cells.items()}, models)
        for m in models:
            boot[m].append(f["theta"][m])
        side_boot.append(f["side"])
    repeats = sorted({r["repeat"] for r in results})
    per_repeat = {rep: fit_ratings(_cells([r for r in results if r["repeat"] == rep]), models)["theta"]
                  for rep in repeats} if len(repeats) > 1 else {}

    def ci(values: list[float]) -> list[float] | None:
        return [round(float(np.percentile(values, 2.5)), 3), round(float(np.percentile(values, 97.5)), 3)] if values else None

    rows = []
    for m in sorted(models, key=lambda m: -fit["theta"][m]):
        t = fit["theta"][m]
        c = ci(boot[m])
        rows.append({"model": m, "theta": round(t, 3), "theta_ci95": c, "elo": round(1500 + ELO_SCALE * t),
                     "elo_ci95": [round(1500 + ELO_SCALE * v) for v in c] if c else None,
                     "spread": spread([per_repeat[rep][m] for rep in repeats]) if per_repeat else None})
    return {"model": "P(open side wins) = σ(θ_open − θ_hidden + side); Elo = 1500 + 400·θ/ln 10",
            "ridge": RIDGE, "bootstrap": BOOTSTRAP, "games": sum(n for _, n in cells.values()), "side": round(fit["side"], 3),
            "side_ci95": ci(side_boot), "ratings": rows}


def tournament_report(engine: str, models: list[str], results: list[dict[str, Any]], *, sides: tuple[str, str],
                      games: int, repeats: int, seed: int, players: int) -> dict[str, Any]:
    """The matrix (open model × hidden model), each model by side, by role, and the ratings."""
    open_side, hidden_side = sides
    cell: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        cell[(r["open_model"], r["hidden_model"])].append(r)

    def row_of(rs: list[dict[str, Any]], won=lambda r: bool(r["open_won"])) -> dict[str, Any]:
        reps: dict[int, list[bool]] = defaultdict(list)
        for r in rs:
            reps[r["repeat"]].append(won(r))
        return rate_row([won(r) for r in rs], reps if repeats > 1 else None)

    matrix = [{"open_model": a, "hidden_model": b, **row_of(cell[(a, b)]),
               "no_winner": sum(1 for r in cell[(a, b)] if r["winner"] in (None, "none"))}
              for a in models for b in models]
    by_side = []
    for m in models:
        as_open = [r for r in results if r["open_model"] == m and r["hidden_model"] != m]
        as_hidden = [r for r in results if r["hidden_model"] == m and r["open_model"] != m]
        by_side.append({"model": m, open_side: row_of(as_open),
                        hidden_side: row_of(as_hidden, lambda r: r["winner"] == hidden_side)})
    role_wins: dict[tuple[str, str], list[tuple[int, bool]]] = defaultdict(list)
    for r in results:
        for player, role in (r.get("roles") or {}).items():
            team = (r.get("teams") or {}).get(player)
            model = r["open_model"] if team == open_side else r["hidden_model"]
            role_wins[(model, role)].append((r["repeat"], r["winner"] == team))
    by_role = []
    for (m, role), rows in sorted(role_wins.items(), key=lambda kv: (models.index(kv[0][0]), kv[0][1])):
        reps: dict[int, list[bool]] = defaultdict(list)
        for rep, w in rows:
            reps[rep].append(w)
        by_role.append({"model": m, "role": role, **rate_row([w for _, w in rows], reps if repeats > 1 else None)})
    return {"engine": engine, "players": players, "models": models, "sides": {"open": open_side, "hidden": hidden_side},
            "games_per_pairing": games, "repeats": repeats, "seed": seed, "games": len(results),
            "seeds": [seed, seed + games * repeats - 1],
            "matrix": matrix, "by_side": by_side, "by_role": by_role, "ratings": ratings(results, models, seed=seed),
            "note": f"cell = the {open_side} side's win rate with the row model on every {open_side} seat and the column "
                    f"model on every {hidden_side} seat, the same seeds and deals in every cell; 95% CIs: Wilson"
                    + ("; spread = SD and range over the repeats" if repeats > 1 else ""),
            "results": results}
