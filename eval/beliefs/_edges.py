"""A game's private beliefs as temporal edges: one row per (step, from, to, kind, value).

The flat form lets any graph or dynamics tool (pandas, networkx, Gephi's timeline) read the belief
graph MafiaScope's viewer draws, and it is the one place the viewer's belief plots take their
series from. ``step`` is the public key ``ROUND.SEQ`` of the probe (``ROUND.end`` for a round-end
pass); ``from`` is the probed seat, ``to`` the player its answer is about. Kinds:

* ``suspicion``: the ``suspicion_ranking`` score (0-100);
* ``role:<Role>``: a ``role_assessment`` guess, valued by its stated confidence (0-100);
* ``belief:<Role>``: a ``role_beliefs`` weight, normalised over the named roles (0-1);
* ``social``: ``social_map``, what ``from`` thinks ``to`` feels about ``from``: +1 suspects, 0 neutral, -1 trusts.
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

from rulesets import VgmError, write_atomic

from ._data import BeliefGame, entries, norm_role, position, resolve
from ._logs import load_games
from ._metrics import ATTITUDE_CODE, _distribution

EDGE_COLUMNS = ("step", "from", "to", "kind", "value")
EDGE_FORMATS = (".csv", ".json")
SOCIAL_VALUE = {ATTITUDE_CODE["suspects"]: 1.0, ATTITUDE_CODE["neutral"]: 0.0, ATTITUDE_CODE["trusts"]: -1.0}


def step_label(rnd: int, seq: float) -> str:
    """``(1, 4)`` → ``"1.4"``; a round-end pass (seq -1 or inf) → ``"1.end"``."""
    return f"{int(rnd)}.end" if seq is None or not math.isfinite(seq) or seq < 0 else f"{int(rnd)}.{int(seq)}"


def step_position(label: str) -> tuple[int, float]:
    """``"1.4"`` → ``(1, 4.0)``, ``"1.end"`` → ``(1, inf)``: the order of ``eval.beliefs.position``."""
    rnd, _, seq = str(label).partition(".")
    try:
        return position(int(rnd), -1 if seq == "end" else int(seq or 0))
    except ValueError:
        raise VgmError(f"bad step {label!r}; write ROUND.SEQ (e.g. 2.7) or ROUND.end") from None


def _number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _rows_of(game: BeliefGame, rec: Any) -> list[tuple[str, str, float]]:
    """(to, kind, value) for one parsed probe answer; the first entry about a player wins, as in the metrics."""
    out: list[tuple[str, str, float]] = []
    seen: set[str] = set()
    pid = rec.probe_id
    items = entries(rec.answer_parsed, "toward_me") if pid == "social_map" else entries(rec.answer_parsed)
    for e in items:
        to = resolve(e.get("player"), game.players)
        if to is None or to == rec.player or to in seen:
            continue
        seen.add(to)
        if pid == "suspicion_ranking":
            score = _number(e.get("score"))
            if score is not None:
                out.append((to, "suspicion", score))
        elif pid == "role_assessment":
            out.append((to, f"role:{norm_role(e.get('guessed_role'))}", _number(e.get("confidence")) or 0.0))
        elif pid == "role_beliefs":
            for role, p in sorted((_distribution(e.get("beliefs")) or {}).items()):
                out.append((to, f"belief:{role}", round(p, 6)))
        elif pid == "social_map":
            code = ATTITUDE_CODE.get(str(e.get("attitude", "")).lower())
            if code is not None:
                out.append((to, "social", SOCIAL_VALUE[code]))
    return out


def belief_edges(game: BeliefGame) -> list[dict[str, Any]]:
    """Every parsed belief of every seat as a temporal edge, in time order (then seat, then probe)."""
    recs = sorted((p for p in game.probes if p.parse_ok), key=lambda p: (position(p.round, p.public_msg_seq), p.player_idx, p.probe_seq))
    return [{"step": step_label(rec.round, rec.public_msg_seq), "from": rec.player, "to": to, "kind": kind, "value": value}
            for rec in recs for to, kind, value in _rows_of(game, rec)]


def _format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in EDGE_FORMATS:
        raise VgmError(f"{path}: unknown edge file type {suffix or '(none)'!r}; name it .csv or .json")
    return suffix


def edges_text(edges: list[dict[str, Any]], fmt: str) -> str:
    """The edges as CSV (header ``step,from,to,kind,value``) or as a JSON list of row objects."""
    if fmt == ".json":
        lines = (json.dumps({c: e[c] for c in EDGE_COLUMNS}, ensure_ascii=False) for e in edges)
        return "[\n" + ",\n".join(lines) + "\n]\n"  # one edge per line: readable, and diffs well
    import io

    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=EDGE_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(edges)
    return buf.getvalue()


def save_edges(edges: list[dict[str, Any]], path: str | Path) -> Path:
    """Write edges to ``path``; the extension (.csv or .json) picks the format."""
    path = Path(path)
    text = edges_text(edges, _format(path))
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise VgmError(f"cannot write {path} ({exc.strerror or exc}); give a writable file") from None
    return path


def load_edges(path: str | Path) -> list[dict[str, Any]]:
    """Edges back from a .csv or .json file written by ``save_edges`` (values as numbers)."""
    path = Path(path)
    fmt = _format(path)
    if not path.is_file():
        raise VgmError(f"{path}: no such edge file")
    text = path.read_text(encoding="utf-8")
    rows = json.loads(text) if fmt == ".json" else list(csv.DictReader(text.splitlines()))
    try:
        return [{"step": str(r["step"]), "from": str(r["from"]), "to": str(r["to"]), "kind": str(r["kind"]), "value": float(r["value"])}
                for r in rows]
    except (KeyError, TypeError, ValueError):
        raise VgmError(f"{path}: not an edge file; every row needs {', '.join(EDGE_COLUMNS)} with a numeric value") from None


def export_edges(log: str | Path, out: str | Path) -> tuple[Path, int]:
    """One game's belief edges (``LOG``: our ``<game>.jsonl`` or a MafiaScope game folder) into ``out``."""
    out = Path(out)
    _format(out)  # a wrong extension is reported before the game is read
    games = load_games(log)
    if len(games) != 1:
        raise VgmError(f"{log}: holds {len(games)} games; give one game log (<game>.jsonl) or one MafiaScope game folder")
    edges = belief_edges(games[0])
    return save_edges(edges, out), len(edges)


__all__ = ["EDGE_COLUMNS", "belief_edges", "edges_text", "export_edges", "load_edges", "save_edges", "step_label",
           "step_position"]
