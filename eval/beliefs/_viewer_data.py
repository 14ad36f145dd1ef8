"""What the Beliefs viewer shows (MafiaScope section 5), computed from a ``BeliefGame`` and its events.

Small pure functions, so every panel can be recomputed outside the viewer: belief series per seat,
the second-order "believed vs actual" pairs, the metrics at one step, deception markers, Wilson
intervals on calibration bins, and one dashboard row per game. Every figure is the one defined in
``_metrics`` applied to the game's probes at (or up to) a step; nothing here redefines a metric.
"""
from __future__ import annotations

import dataclasses
import math
import json
import re
from pathlib import Path
from typing import Any

from . import _metrics as m
from ._accuse import read_sentence, sentences
from ._data import BeliefGame, entries, is_evil, norm_role, position, resolve
from ._edges import step_label, step_position
from ._fork import wilson_interval
from ._speech import speeches_of

THRESHOLD = 50  # a role guess becomes an attitude at this confidence, as in the second-order figures
Pos = tuple[int, float]


# -- time ------------------------------------------------------------------------------
def game_steps(game: BeliefGame) -> list[Pos]:
    """Every step at which any seat was probed, in time order."""
    return sorted({position(p.round, p.public_msg_seq) for p in game.probes})


def at_step(game: BeliefGame, upto: Pos, seat: str | None = None) -> BeliefGame:
    """The game with only the probes taken exactly at ``upto`` (by ``seat`` when given)."""
    return dataclasses.replace(game, probes=[p for p in game.probes if position(p.round, p.public_msg_seq) == upto
                                             and (seat is None or p.player == seat)])


def up_to_step(game: BeliefGame, upto: Pos) -> BeliefGame:
    """The game with the probes taken at or before ``upto``."""
    return dataclasses.replace(game, probes=[p for p in game.probes if position(p.round, p.public_msg_seq) <= upto])


def branch_key(label: str) -> tuple[int, int]:
    """A step as typed in the viewer (``1.7``, ``1.end``) → the ``(round, seq)`` that ``fork_game`` takes."""
    rnd, seq = step_position(label.strip())
    return rnd, (int(seq) if math.isfinite(seq) else -1)


# -- belief graphs ----------------------------------------------------------------------
def seat_series(edges: list[dict[str, Any]], seat: str, kind: str = "suspicion") -> dict[str, list[tuple[str, float]]]:
    """One series per other player: ``seat``'s ``kind`` value at each step it answered (from ``belief_edges``)."""
    out: dict[str, list[tuple[str, float]]] = {}
    for e in edges:
        if e["from"] == seat and e["kind"] == kind:
            out.setdefault(e["to"], []).append((e["step"], e["value"]))
    return out


def role_track(edges: list[dict[str, Any]], seat: str) -> dict[str, dict[str, tuple[str, float]]]:
    """``seat``'s role guess about each player at each step: ``{player: {step: (role, confidence)}}``.

    A ``role_assessment`` guess as stated; where the step has only ``role_beliefs`` weights, the
    most likely role with its weight as a percentage."""
    out: dict[str, dict[str, tuple[str, float]]] = {}
    weights: dict[tuple[str, str], tuple[str, float]] = {}
    for e in edges:
        if e["from"] != seat:
            continue
        if e["kind"].startswith("role:"):
            out.setdefault(e["to"], {})[e["step"]] = (e["kind"].removeprefix("role:"), e["value"])
        elif e["kind"].startswith("belief:") and e["value"] > weights.get((e["to"], e["step"]), ("", -1.0))[1]:
            weights[(e["to"], e["step"])] = (e["kind"].removeprefix("belief:"), e["value"])
    for (to, step), (role, p) in weights.items():
        out.setdefault(to, {}).setdefault(step, (role, 100 * p))
    return out


# -- second order ----------------------------------------------------------------------
def _latest(game: BeliefGame, probe_id: str, seat: str, upto: Pos):
    recs = [r for r in game.probes_of(probe_id) if r.player == seat and position(r.round, r.public_msg_seq) <= upto]
    return recs[-1] if recs else None


def second_order_pairs(game: BeliefGame, seat: str, upto: Pos, threshold: int = THRESHOLD) -> dict[str, Any]:
    """``seat``'s latest social map at or before ``upto`` ("believed": how B feels about me) against
    each B's same-step role guess about ``seat`` ("actual"), as in ``_metrics.second_order_rows``.

    Returns ``{"step", "pairs": [{player, believed, actual, guess, match, excluded}], "matched", "scored"}``;
    Mafia-Mafia pairs are listed but excluded (a partner's certainty is role knowledge).
    """
    rec = _latest(game, "social_map", seat, upto)
    if rec is None:
        return {"step": None, "pairs": [], "matched": 0, "scored": 0}
    here = (rec.round, rec.public_msg_seq)
    theirs = {r.player: m._role_guesses(game, r) for r in game.probes_of("role_assessment")
              if (r.round, r.public_msg_seq) == here}
    pairs, seen = [], set()
    for e in entries(rec.answer_parsed, "toward_me"):
        b = resolve(e.get("player"), game.players)
        believed = str(e.get("attitude", "")).lower()
        if b is None or b == seat or b in seen or believed not in m.ATTITUDE_CODE or not game.alive_at(b, *here):
            continue
        seen.add(b)
        excluded = game.evil(seat) and game.evil(b)
        guess = theirs.get(b, {}).get(seat)
        actual = m.ATTITUDE_NAME[m.attitude_from_guess(guess[0], guess[1], threshold)] if guess else None
        pairs.append({"player": b, "believed": believed, "actual": actual,
                      "guess": f"{guess[0]} ({guess[1]:.0f})" if guess else None,
                      "match": None if excluded or actual is None else believed == actual, "excluded": excluded})
    scored = [p for p in pairs if p["match"] is not None]
    return {"step": step_label(*here), "pairs": pairs, "matched": sum(p["match"] for p in scored), "scored": len(scored)}


# -- metrics at a step -----------------------------------------------------------------
def hidden_shares(game: BeliefGame, upto: Pos, probe_id: str = "role_assessment") -> dict[str, float]:
    """Deception success of each living Mafioso at ``upto``: the share of that step's villager-side
    answers naming it that do not guess an evil role (Unknown counts as hidden, as recall counts it a miss)."""
    now = at_step(game, upto)
    hits: dict[str, list[bool]] = {}
    for rec, others in m._villager_answers(now, probe_id):
        guesses = m._role_guesses(game, rec)
        for target in others:
            if game.evil(target) and target in guesses:
                hits.setdefault(target, []).append(not is_evil(guesses[target][0]))
    return {k: sum(v) / len(v) for k, v in sorted(hits.items())}


def step_metrics(game: BeliefGame, upto: Pos, seat: str | None = None) -> dict[str, Any]:
    """The paper's figures at one step (answers taken exactly then), calibration also up to it, and
    ``seat``'s own accuracy and second-order match when given."""
    now, so_far = at_step(game, upto), up_to_step(game, upto)
    fo, rc, so = m.first_order_rows(now), m.mafia_recall_rows(now), m.second_order_rows(now)
    cal, cal_all = m.calibration_rows(now), m.calibration_rows(so_far)
    out: dict[str, Any] = {
        "step": step_label(*upto), "pos": upto, "accuracy": m.accuracy(fo), "accuracy_chance": m.accuracy_chance(fo),
        "committed": int(fo[:, 1].sum()) if len(fo) else 0,
        "recall": m.mean_col(1)(rc), "recall_pairs": len(rc),
        "agreement": m.agreement(THRESHOLD)(so), "overprediction": m.overprediction(THRESHOLD)(so), "pairs": len(so),
        "ece": m.ece(cal), "brier": m.brier(cal), "calibrated": len(cal),
        "ece_so_far": m.ece(cal_all), "brier_so_far": m.brier(cal_all), "calibrated_so_far": len(cal_all),
        "hidden": hidden_shares(game, upto),
    }
    if seat:
        mine = m.first_order_rows(at_step(game, upto, seat))
        so2 = second_order_pairs(game, seat, upto)
        out.update(seat=seat, seat_accuracy=m.accuracy(mine), seat_committed=int(mine[:, 1].sum()) if len(mine) else 0,
                   seat_matched=so2["matched"], seat_scored=so2["scored"])
    return out


def metric_timeline(game: BeliefGame, seat: str | None = None) -> list[dict[str, Any]]:
    """``step_metrics`` at every probed step: the series the timeline panel plots."""
    return [step_metrics(game, s, seat) for s in game_steps(game)]


# -- public claims and deception markers -------------------------------------------------
_ROLE_CLAIM = re.compile(r"\b(?:i am|i'm|im|я)\s+(?:a |an |the |[-—] )?([a-zа-яё]+)", re.IGNORECASE)


def public_claims(game: BeliefGame, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Public accusations, vouches and role claims read from speeches, and every vote, in time order.

    The speeches are the ones ``vgm mafia score`` reads (``_speech.speeches_of``), and whom a sentence
    accuses or vouches for is ``_accuse``'s reading, the one behind the score's vote/talk
    consistency: a player named next to a suspicion cue is accused, next to a trust cue vouched
    for, a negation flips the cue ("I don't trust Bo" accuses, "Gray不是狼" vouches); English,
    Chinese and Russian. A sentence may accuse or vouch for several players, one claim each.
    "I am the Doctor" is a role claim. A heuristic: markers are leads to inspect.
    """
    roles = {game.role(p) for p in game.players}
    out: list[dict[str, Any]] = []
    for said in speeches_of(events):
        if said.player not in game.players:
            continue
        pos = (said.round, said.seq)
        for sentence in sentences(said.text):
            claim = {"step": step_label(*pos), "pos": pos, "seat": said.player, "text": sentence}
            for hit in _ROLE_CLAIM.finditer(sentence):
                role = norm_role(hit.group(1))
                if role in roles and role != "Unknown":
                    out.append({**claim, "kind": "claims_role", "target": role})
            for stance in read_sentence(sentence, game.players, said.player):
                out.append({**claim, "kind": stance.kind, "target": stance.target})
    for v in game.votes:
        pos = (v.round, v.seq)
        out.append({"step": step_label(*pos), "pos": pos, "seat": v.voter, "kind": "votes", "target": v.target,
                    "text": f"votes {v.target}"})
    return sorted(out, key=lambda c: c["pos"])


def private_stance(game: BeliefGame, seat: str, target: str, upto: Pos) -> tuple[str, str] | None:
    """What ``seat`` privately thought of ``target`` at ``upto``: (attitude, why).

    Its latest role guess about the target (Mafia at >= 50 → suspects, a town role at >= 50 →
    trusts); without one, its latest suspicion ranking (the top suspect → suspects, the least
    suspected → trusts, when the scores differ). None when neither says.
    """
    rec = _latest(game, "role_assessment", seat, upto)
    guess = m._role_guesses(game, rec).get(target) if rec else None
    if guess:
        att = m.ATTITUDE_NAME[m.attitude_from_guess(guess[0], guess[1], THRESHOLD)]
        return att, f"privately guessed {target} {guess[0]} ({guess[1]:.0f}) at {step_label(rec.round, rec.public_msg_seq)}"
    rec = _latest(game, "suspicion_ranking", seat, upto)
    if rec is None:
        return None
    scores = m._scores(game, rec, seat, game.alive_others(seat, rec.round, rec.public_msg_seq))
    if target not in scores or len(set(scores.values())) < 2:
        return None
    where = f"at {step_label(rec.round, rec.public_msg_seq)}"
    if target == m.top_suspect(scores):
        return "suspects", f"{target} was its top suspect ({scores[target]:.0f}) {where}"
    if scores[target] == min(scores.values()) and list(scores.values()).count(scores[target]) == 1:
        return "trusts", f"{target} was its least suspected ({scores[target]:.0f}) {where}"
    return None


def deception_markers(game: BeliefGame, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Public claims that contradict the claimant's own private belief at that step: accusing (or
    voting for) a player it privately trusts, vouching for one it privately suspects, or claiming a
    role it does not hold."""
    out = []
    for c in public_claims(game, events):
        seat, target = c["seat"], c["target"]
        if c["kind"] == "claims_role":
            if target != game.role(seat):
                out.append({**c, "private": f"its role is {game.role(seat)}"})
            continue
        stance = private_stance(game, seat, target, c["pos"])
        if stance is None:
            continue
        attitude, why = stance
        if (c["kind"] in ("accuses", "votes") and attitude == "trusts") or (c["kind"] == "vouches" and attitude == "suspects"):
            out.append({**c, "private": why})
    return out


# -- calibration -------------------------------------------------------------------------
def calibration_bins(rows, width: int = m.BIN_WIDTH) -> list[dict[str, Any]]:
    """``reliability_bins`` with the count right (``k``) and a 95% Wilson interval on each bin's accuracy."""
    out = []
    for b in m.reliability_bins(rows, width):
        k = round(b["accuracy"] * b["n"]) if b["n"] else 0
        ci = wilson_interval(k, b["n"])
        out.append({**b, "k": k, "low": ci[0] if ci else None, "high": ci[1] if ci else None})
    return out


# -- many games --------------------------------------------------------------------------
def dashboard_row(game: BeliefGame, events: list[dict[str, Any]]) -> dict[str, Any]:
    """One game's summary for the multi-game dashboard: outcome, probe counts and the main figures."""
    fo, rc, so, cal = m.first_order_rows(game), m.mafia_recall_rows(game), m.second_order_rows(game), m.calibration_rows(game)
    rounds = max((int(e.get("round", 0) or 0) for e in events), default=0)
    return {
        "game": game.game_id, "source": game.source, "parent": game.parent, "players": len(game.players),
        "winner": game.winner, "rounds": rounds, "probes": len(game.probes),
        "parse_rate": sum(p.parse_ok for p in game.probes) / len(game.probes) if game.probes else None,
        "steps": len(game_steps(game)), "committed": int(fo[:, 1].sum()) if len(fo) else 0,
        "accuracy": m.accuracy(fo), "recall": m.mean_col(1)(rc), "ece": m.ece(cal), "brier": m.brier(cal),
        "overprediction": m.overprediction(THRESHOLD)(so), "agreement": m.agreement(THRESHOLD)(so),
        "deceptions": len(deception_markers(game, events)),
    }


def dashboard_rows(games: list[tuple[BeliefGame, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """``dashboard_row`` for every (game, events) pair, in the order given."""
    return [dashboard_row(g, ev) for g, ev in games]


def pooled_row(rows: list[dict[str, Any]], games: list[BeliefGame]) -> dict[str, Any]:
    """The dashboard's last row: every game's scored items pooled, as ``vgm mafia score`` pools them
    (its point estimates, without the bootstrap intervals); counts summed over ``rows``."""
    import numpy as np

    def pool(fn):
        parts = [fn(g) for g in games]
        return np.concatenate(parts) if parts else np.empty((0, 0))

    fo, rc, so, cal = (pool(f) for f in (m.first_order_rows, m.mafia_recall_rows, m.second_order_rows, m.calibration_rows))
    winners: dict[str, int] = {}
    for r in rows:
        winners[str(r["winner"])] = winners.get(str(r["winner"]), 0) + 1
    probes = sum(r["probes"] for r in rows)
    return {
        "game": f"all {len(rows)} games", "source": ", ".join(sorted({r["source"] for r in rows})), "parent": None,
        "players": sum(r["players"] for r in rows), "winner": ", ".join(f"{k} {v}" for k, v in sorted(winners.items())),
        "rounds": sum(r["rounds"] for r in rows), "probes": probes,
        "parse_rate": sum((r["parse_rate"] or 0) * r["probes"] for r in rows) / probes if probes else None,
        "steps": sum(r["steps"] for r in rows), "committed": int(fo[:, 1].sum()) if len(fo) else 0,
        "accuracy": m.accuracy(fo) if len(fo) else None, "recall": m.mean_col(1)(rc) if len(rc) else None,
        "ece": m.ece(cal) if len(cal) else None, "brier": m.brier(cal) if len(cal) else None,
        "overprediction": m.overprediction(THRESHOLD)(so) if len(so) else None,
        "agreement": m.agreement(THRESHOLD)(so) if len(so) else None, "deceptions": sum(r["deceptions"] for r in rows),
    }


MIN_EDGE = 0.2
"""Suspicion edges below this probability are left out of the round graph (each seat would otherwise point at everyone)."""


def round_graph(game: Any, edges: list[dict[str, Any]], upto: tuple[int, float]) -> dict[str, Any]:
    """Who suspects whom in the round of ``upto``: each seat's latest answer of that round at or before ``upto``.

    An edge's probability is the ``suspicion`` score / 100; a seat that gave no suspicion score at
    that step counts a Mafia role guess (its confidence / 100) or its ``belief:Mafia`` weight.
    Returns ``{"round", "step", "nodes": [{name, role, alive}], "edges": [{from, to, p, step}]}``;
    edges under ``MIN_EDGE`` are left out.
    """
    rnd = upto[0]
    latest: dict[str, tuple[float, str]] = {}
    for e in edges:
        pos = step_position(e["step"])
        if pos[0] == rnd and pos <= upto and pos[1] >= latest.get(e["from"], (-1.0, ""))[0]:
            latest[e["from"]] = (pos[1], e["step"])
    out_edges = []
    for seat, (_, step) in sorted(latest.items()):
        rows = [e for e in edges if e["from"] == seat and e["step"] == step]
        probs: dict[str, float] = {}
        for e in rows:
            if e["kind"] == "suspicion":
                probs[e["to"]] = max(0.0, min(1.0, e["value"] / 100))
        if not probs:
            for e in rows:
                if e["kind"] == "role:Mafia":
                    probs[e["to"]] = max(0.0, min(1.0, e["value"] / 100))
                elif e["kind"] == "belief:Mafia":
                    probs[e["to"]] = max(0.0, min(1.0, e["value"]))
        out_edges += [{"from": seat, "to": to, "p": round(p, 4), "step": step} for to, p in sorted(probs.items()) if p >= MIN_EDGE]
    nodes = [{"name": p, "role": game.role(p), "alive": game.alive_at(p, upto[0], upto[1])} for p in game.players]
    return {"round": rnd, "step": step_label(*upto), "nodes": nodes, "edges": out_edges}


def fork_tree(logs: list[Path | str]) -> list[dict[str, Any]]:
    """The forks among ``logs``, grouped by parent game and branch point, each with its arm, edits and outcome.

    Returns ``[{"parent", "at", "arm", "forks": [{game_id, log, winner, edits}]}]`` (a fork's own forks
    are branches of their own, under the fork's id).
    """
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for log in sorted(Path(p) for p in logs):
        record, winner = None, None
        try:
            with open(log, encoding="utf-8") as fh:
                for line in fh:  # a cheap look before parsing: logs are long, fork records few
                    if '"kind": "fork"' in line or '"kind": "game_over"' in line:
                        row = json.loads(line)
                        if row.get("kind") == "fork" and record is None:
                            record = row
                        elif row.get("kind") == "game_over":
                            winner = row.get("winner")
        except (OSError, ValueError):
            continue
        if record is None:
            continue
        at = f"{record['at'][0]}.{record['at'][1]}"
        groups.setdefault((record["parent"], at, record.get("arm", "")), []).append(
            {"game_id": record.get("game_id", log.stem), "log": str(log), "winner": winner, "edits": record.get("edits", [])})
    return [{"parent": parent, "at": at, "arm": arm, "forks": forks}
            for (parent, at, arm), forks in sorted(groups.items(), key=lambda kv: (kv[0][0], step_position(kv[0][1]), kv[0][2]))]
