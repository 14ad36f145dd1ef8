"""How the Beliefs tab draws what ``eval.beliefs`` computes: plots (matplotlib PNGs, like the
calibration plot always was), the metrics strip, the second-order panels and the dashboard table.

Nothing here computes a figure; it formats the dicts of ``eval.beliefs._viewer_data``.
"""
from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from eval.beliefs import brier, calibration_bins, calibration_rows, ece, step_label

from ._common import esc

# Okabe-Ito, as MafiaScope's viewer: distinguishable with colour-blindness
OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"]
ROLE_COLOURS = {"Mafia": "#D55E00", "Doctor": "#0072B2", "Sheriff": "#009E73", "Villager": "#56B4E9", "Unknown": "#BBBBBB"}
MIN_BIN = 10  # calibration bins with fewer guesses are drawn faint, as in the paper's Figure 4

_PRIVATE: list[Path] = []


def private_dir() -> Path:
    """This server's own temp folder (mode 0700, removed at exit) for plots and downloads."""
    if not _PRIVATE or not _PRIVATE[0].is_dir():
        folder = Path(tempfile.mkdtemp(prefix="vgm-beliefs-"))
        _PRIVATE[:] = [folder]
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return _PRIVATE[0]


def private_file(prefix: str, suffix: str = ".png") -> Path:
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=private_dir())
    os.close(fd)
    return Path(name)


def download_file(name: str) -> Path:
    """``<private>/<fresh folder>/<name>``: a download keeps a readable file name without clashing."""
    return Path(tempfile.mkdtemp(dir=private_dir())) / name


def _pyplot():
    import matplotlib  # lazy: only the plots need it, and it is slow to import

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    _pyplot().close(fig)
    return Path(path)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.0%}"


def _num(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


# -- belief graphs -----------------------------------------------------------------------
def belief_graph_plot(series: dict[str, list[tuple[str, float]]], track: dict[str, dict[str, tuple[str, float]]],
                      steps: list[str], players: list[str], seat: str, selected: str | None, path: str | Path) -> Path:
    """Top: the seat's suspicion score of each other player over its steps. Bottom: its role guess
    about each player at each step (colour = role, shade = confidence)."""
    plt = _pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.4, 6.2), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    x = {s: i for i, s in enumerate(steps)}
    colour = {p: OKABE_ITO[i % len(OKABE_ITO)] for i, p in enumerate(players)}
    for target, points in series.items():
        pts = [(x[s], v) for s, v in points if s in x]
        if pts:
            top.plot(*zip(*pts), marker="o", ms=3, lw=1.5, color=colour.get(target), label=target)
    top.set_ylabel("suspicion score")
    top.set_title(f"{seat}: suspicion of each player" + ("" if series else " (no suspicion_ranking answers)"), fontsize=10)
    if series:
        top.legend(fontsize=7, loc="upper left", ncol=min(4, len(series)))
    others = [p for p in players if p in track]
    for row, target in enumerate(others):
        for s, (role, conf) in track[target].items():
            if s in x:
                alpha = 0.25 + 0.75 * max(0.0, min(conf, 100.0)) / 100
                bottom.add_patch(plt.Rectangle((x[s] - 0.5, row - 0.5), 1, 1, color=ROLE_COLOURS.get(role, "#999999"), alpha=alpha, lw=0))
                if len(steps) <= 40:
                    bottom.text(x[s], row, role[:1], ha="center", va="center", fontsize=7)
    bottom.set_yticks(range(len(others)), others, fontsize=8)
    bottom.set_ylim(-0.5, max(len(others), 1) - 0.5)
    bottom.set_title(f"{seat}: role guesses (letter = role, shade = confidence)" + ("" if others else " (no role_assessment answers)"),
                     fontsize=10)
    for ax in (top, bottom):
        if selected in x:
            ax.axvline(x[selected], color="#444444", ls=":", lw=1)
    ticks = list(range(0, len(steps), max(1, len(steps) // 16)))
    bottom.set_xticks(ticks, [steps[i] for i in ticks], rotation=45, fontsize=7)
    bottom.set_xlim(-0.6, max(len(steps), 1) - 0.4)
    bottom.set_xlabel("step (round.message)")
    return _save(fig, path)


# -- timeline of metrics --------------------------------------------------------------------
def timeline_plot(timeline: list[dict[str, Any]], markers: list[dict[str, Any]], seat: str | None, selected: str | None,
                  path: str | Path) -> Path:
    """The game's figures at every step (MafiaScope Figure 3) with deception markers on the same axis."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8.4, 6.0))
    steps = [t["step"] for t in timeline]
    x = {s: i for i, s in enumerate(steps)}
    lines = [("accuracy", "first-order accuracy (crowd)", OKABE_ITO[4], "-"), ("recall", "Mafia recall (crowd)", OKABE_ITO[5], "-"),
             ("agreement", "second-order agreement", OKABE_ITO[2], "--")]
    if seat:
        lines.append(("seat_accuracy", f"{seat}: accuracy", OKABE_ITO[0], "-."))
    for key, label, colour, style in lines:
        pts = [(i, t[key]) for i, t in enumerate(timeline) if t.get(key) is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", ms=3, lw=1.4, ls=style, color=colour, label=label)
    at: dict[int, list[str]] = {}  # step index → seats with a marker there
    for mk in markers:
        i = _nearest(mk["pos"], timeline)
        if i is not None and mk["seat"] not in at.setdefault(i, []):
            at[i].append(mk["seat"])
    for i, seats in at.items():
        ax.plot([i], [1.1], marker="v", ms=9, color="#D55E00")
        label = seats[0][:3] if len(seats) == 1 else f"{len(seats)} seats"
        ax.annotate(label, (i, 1.1), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7)
    if at:
        ax.plot([], [], marker="v", ls="", color="#D55E00", label="deception marker")
    if selected in x:
        ax.axvline(x[selected], color="#444444", ls=":", lw=1)
    ax.set_ylim(0, 1.2)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("share")
    ticks = list(range(0, len(steps), max(1, len(steps) // 16)))
    ax.set_xticks(ticks, [steps[i] for i in ticks], rotation=45, fontsize=7)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
    ax.set_title("Figures at each step", fontsize=10)
    return _save(fig, path)


def _nearest(pos: tuple[int, float], timeline: list[dict[str, Any]]) -> int | None:
    """Index of the first step at or after ``pos`` (a claim is probed right after it is made)."""
    for i, t in enumerate(timeline):
        if t["pos"] >= pos:
            return i
    return None


# -- calibration ----------------------------------------------------------------------------
def calibration_plot(game, agent: str | None, path: str | Path) -> tuple[Path, str]:
    """Reliability diagram with 95% Wilson whiskers per bin: the game's villager-side guesses, and
    the agent's own when it is on that side; bins under ``MIN_BIN`` guesses are drawn faint."""
    plt = _pyplot()
    series = [("all villager-side seats", calibration_rows(game), OKABE_ITO[4])]
    if agent:
        mine = calibration_rows(dataclasses.replace(game, probes=[p for p in game.probes if p.player == agent]))
        series.append((agent, mine, OKABE_ITO[0]))
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=1, label="perfect calibration")
    notes = []
    for k, (label, rows, colour) in enumerate(series):
        if not len(rows):
            notes.append(f"{label}: no committed villager-side guesses")
            continue
        bins = [b for b in calibration_bins(rows) if b["n"]]
        xs = [b["mean_confidence"] + 0.008 * k for b in bins]
        ax.plot(xs, [b["accuracy"] for b in bins], color=colour, lw=1.2, label=f"{label} (n={len(rows)})")
        for xb, b in zip(xs, bins):
            faint = b["n"] < MIN_BIN
            ax.errorbar([xb], [b["accuracy"]], yerr=[[b["accuracy"] - b["low"]], [b["high"] - b["accuracy"]]], fmt="o",
                        color=colour, alpha=0.35 if faint else 1.0, capsize=3, ms=4)
        notes.append(f"{label}: ECE {ece(rows):.3f}, Brier {brier(rows):.3f} over {len(rows)} guesses")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("stated confidence")
    ax.set_ylabel("share of guesses that were right")
    ax.set_title(f"Calibration of role guesses (whiskers: 95% Wilson; faint: n<{MIN_BIN})", fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    _save(fig, path)
    return Path(path), "  \n".join(notes)


# -- HTML panels -----------------------------------------------------------------------------
def metrics_html(x: dict[str, Any], show_truth: bool = True) -> str:
    """The metrics strip at one step: one card per figure (the card naming the Mafiosi only with the truth shown)."""
    cards = [
        ("first-order accuracy", _pct(x["accuracy"]), f"{x['committed']} committed guesses; chance {_pct(x['accuracy_chance'])}"),
        ("Mafia recall", _pct(x["recall"]), f"{x['recall_pairs']} (villager, Mafioso) pairs"),
        ("ECE", _num(x["ece"]), f"so far {_num(x['ece_so_far'])} over {x['calibrated_so_far']}"),
        ("Brier", _num(x["brier"]), f"so far {_num(x['brier_so_far'])}"),
        ("2nd-order agreement", _pct(x["agreement"]), f"{x['pairs']} pairs; over-prediction {_num(x['overprediction'])}"),
    ]
    if x.get("seat"):
        cards.append((f"{x['seat']}", _pct(x["seat_accuracy"]),
                      f"accuracy ({x['seat_committed']} guesses); 2nd order {x['seat_matched']}/{x['seat_scored']}"))
    if x["hidden"] and show_truth:
        cards.append(("hidden Mafiosi", ", ".join(f"{esc(k)} {v:.0%}" for k, v in x["hidden"].items()),
                      "share of villager-side answers missing each"))
    body = "".join(f'<div class="vgm-card" style="border:1px solid #ccc;border-radius:6px;padding:4px 10px;min-width:120px">'
                   f'<div style="font-size:0.8em;color:#555">{esc(t)}</div><div style="font-size:1.3em;font-weight:600">{v}</div>'
                   f'<div style="font-size:0.75em;color:#666">{esc(d)}</div></div>' for t, v, d in cards)
    return (f'<div style="font-size:0.85em;margin-bottom:2px">Figures at step <b>{esc(x["step"])}</b> (answers taken then)</div>'
            f'<div class="vgm-metrics" style="display:flex;flex-wrap:wrap;gap:6px">{body}</div>')


ATTITUDE_COLOURS = {"suspects": "#D55E00", "trusts": "#0072B2", "neutral": "#777777"}


def _attitude(a: str | None) -> str:
    return "–" if a is None else f'<span style="color:{ATTITUDE_COLOURS.get(a, "#000")};font-weight:600">{esc(a)}</span>'


def second_order_html(result: dict[str, Any], seat: str) -> str:
    """Two ego panels side by side: who ``seat`` believes suspects/trusts it, and what each actually reported."""
    if not result["pairs"]:
        return f"<p>{esc(seat)} gave no social map (<code>social_map</code> probe) up to this step.</p>"
    believed = "".join(f"<tr><td>{esc(p['player'])}</td><td>{_attitude(p['believed'])}</td></tr>" for p in result["pairs"])
    actual = "".join(
        f"<tr><td>{esc(p['player'])}</td><td>{_attitude(p['actual'])}</td><td>{esc(p['guess'] or 'no same-step guess')}</td>"
        f"<td>{'partners: excluded' if p['excluded'] else ('✓' if p['match'] else ('✗' if p['match'] is False else '–'))}</td></tr>"
        for p in result["pairs"])
    table = 'style="border-collapse:collapse;font-size:0.9em" cellpadding="3"'
    return (f'<div style="font-size:0.9em">At step <b>{esc(result["step"])}</b>: match <b>{result["matched"]}/{result["scored"]}</b></div>'
            f'<div style="display:flex;gap:18px;flex-wrap:wrap">'
            f'<div><b>Believed</b>: how {esc(seat)} thinks each feels about it'
            f'<table class="vgm-believed" {table}><tr><th>player</th><th>attitude</th></tr>{believed}</table></div>'
            f'<div><b>Actual</b>: their own same-step guess about {esc(seat)}'
            f'<table class="vgm-actual" {table}><tr><th>player</th><th>attitude</th><th>guess</th><th>match</th></tr>{actual}</table></div>'
            f"</div>")


DECEPTION_HEADERS = ["step", "seat", "true role", "said", "privately"]


def deception_rows(markers: list[dict[str, Any]], game, show_truth: bool = True) -> list[list[str]]:
    """One table row per marker; with the truth hidden, the seat's role and a false role claim's reason are hidden too."""

    def said(mk: dict[str, Any]) -> str:
        what = f"{mk['kind'].replace('_', ' ')} {mk['target']}"
        return what if mk["kind"] == "votes" else f"{what}: “{mk['text'][:120]}”"

    def private(mk: dict[str, Any]) -> str:
        return mk["private"] if show_truth or mk["kind"] != "claims_role" else "(hidden: it does not hold that role)"

    return [[mk["step"], mk["seat"], game.role(mk["seat"]) if show_truth else "(hidden)", said(mk), private(mk)] for mk in markers]


DASHBOARD_HEADERS = ["game", "source", "winner", "rounds", "probes", "parsed", "steps", "accuracy", "recall", "ECE", "Brier",
                     "over-pred.", "2nd-order agr.", "deceptions"]


def dashboard_table(rows: list[dict[str, Any]]) -> list[list[Any]]:
    return [[r["game"] + (f" (fork of {r['parent']})" if r["parent"] else ""), r["source"], str(r["winner"] or "–"), r["rounds"],
             r["probes"], _pct(r["parse_rate"]), r["steps"], _pct(r["accuracy"]), _pct(r["recall"]), _num(r["ece"]),
             _num(r["brier"]), _num(r["overprediction"]), _pct(r["agreement"]), r["deceptions"]] for r in rows]


def fork_summary(report: dict[str, Any]) -> str:
    """A finished branch as one paragraph: outcome shares of the replays and where their logs are."""
    at = step_label(report["at"][0], report["at"][1])
    winners = ", ".join(f"{esc(k)} {v:.0%}" for k, v in report["winners"].items())
    firsts = ", ".join(f"{esc(k)} {v:.0%}" for k, v in report["first_elimination"].items())
    folder = Path(report["forks"][0]["log"]).parent.name if report["forks"] else ""
    return (f"**{report['n']} replays of {esc(report['parent'])} from step {esc(at)}** ({report['arm']} arm): "
            f"winner {winners}; first elimination after the branch: {firsts}. Logs in `{esc(folder)}/` beside the game's log.")
