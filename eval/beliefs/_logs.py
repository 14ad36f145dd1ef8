"""Mafia (and Avalon) logs with private probes, MafiaScope's own layout and ours: reading them,
and which events a seat could see.

MafiaScope writes one folder per game: ``game.jsonl`` (events with ``kind``: ``setup`` with
``players[{name, role, ...}]``, ``intro`` / ``day_discuss`` / ``day_vote`` messages with
``msg_seq``, ``night_*`` actions, ``night_kill {victim}``, ``vote_tally {votes: {voter: target}}``,
``day_eliminate {eliminated}``, ``game_over {winner}``) and ``introspection.jsonl`` (one probe
answer per line: ``player_name``, ``probe_id``, ``answer_raw``, ``answer_parsed``,
``answer_parse_ok``, keyed ``round, public_msg_seq, player_idx, probe_seq``); either may be gzipped.
Ours: an event log ``<game>.jsonl`` from ``gm`` and its probe log ``<game>.probes.jsonl``.

Legacy MafiaScope answers were cut off by a 400-token cap mid-JSON. Like the paper's repair pass,
we keep only the complete prefix (the whole list items before the cut) and invent nothing.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gm.social import visible_to
from pipelines.llm.structured import parse_as
from pipelines.probes import ANSWER_SHAPES, ProbeRecord, dump_answer, setup_players
from rulesets import FileProblem, VgmError, read_jsonl as _read_jsonl, validation_problem

from ._data import BeliefGame, Vote

PROBE_LOG_SUFFIX = ".probes.jsonl"
# probe ids in MafiaScope's configs → the answer shape we validate them with
SHAPE_OF = {
    "role_assessment": "role_assessment", "role_beliefs": "role_beliefs",
    "suspicion_ranking": "suspicion_ranking", "social_map": "social_map",
    "planned_action": "planned_action", "personality_profile": "personality", "personality": "personality",
}


class ImportError_(VgmError):
    """A game folder or log that cannot be read; names the file and line."""


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSON Lines log (``.gz`` too) through the one reader: a torn last line
    is dropped with a warning, anything else wrong is one line naming the file and line."""
    return [row for _, row in _numbered(path)]


def _numbered(path: Path):
    try:
        yield from _read_jsonl(path, what="game log").numbered()
    except FileProblem as problem:
        raise ImportError_(str(problem)) from None


def _find(folder: Path, stem: str) -> Path | None:
    for name in (f"{stem}.jsonl", f"{stem}.jsonl.gz"):
        if (folder / name).is_file():
            return folder / name
    return None


# -- answer repair ---------------------------------------------------------------------
def complete_prefix(raw: str) -> Any:
    """The whole items of a JSON list cut off mid-way (also inside ``{"key": [...``); None if none.

    Hand-written because json-repair closes the cut item with invented values; here a cut
    item is dropped, so nothing the model did not write reaches the scores.
    """
    text = raw.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        return None
    text = text[start:]
    wrapper_key = None
    if text[0] == "{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
        head, sep, rest = text.partition("[")
        if not sep or not head.rstrip().endswith(":"):
            return None
        key_part = head[1:].rsplit(":", 1)[0].strip()
        wrapper_key = key_part.strip('"')
        text = "[" + rest
    decoder = json.JSONDecoder()
    items, i = [], 1
    while i < len(text):
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            break
        try:
            item, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            break
        items.append(item)
    if not items:
        return None
    return {wrapper_key: items} if wrapper_key else items


def repair_record(rec: ProbeRecord) -> ProbeRecord:
    """Validate a record's answer with our shapes; repair truncated legacy answers by prefix."""
    shape = ANSWER_SHAPES.get(SHAPE_OF.get(rec.probe_id, ""), None)
    if shape is None:
        return rec
    if rec.parse_ok and rec.answer_parsed is not None:
        value, _, err = parse_as(json.dumps(rec.answer_parsed, ensure_ascii=False), shape)
        if err is None:
            return rec.model_copy(update={"answer_parsed": dump_answer(value)})
    prefix = complete_prefix(rec.answer_raw or "")
    if prefix is None:
        return rec.model_copy(update={"parse_ok": False})
    value, _, err = parse_as(json.dumps(prefix, ensure_ascii=False), shape)
    if err is not None:
        return rec.model_copy(update={"parse_ok": False, "error": err})
    return rec.model_copy(update={"answer_parsed": dump_answer(value), "parse_ok": True, "repaired": True})


# -- MafiaScope layout ----------------------------------------------------------------
def _probe_from_mafiascope(row: dict[str, Any]) -> ProbeRecord:
    return ProbeRecord(
        game_id=str(row.get("game_id", "")),
        round=int(row.get("round", 0)),
        public_msg_seq=int(row.get("public_msg_seq", 0)),
        player_idx=int(row.get("player_idx", 0)),
        player=str(row.get("player_name") or row.get("player") or ""),
        probe_seq=int(row.get("probe_seq", 0)),
        probe_id=str(row.get("probe_id", "")),
        question=str(row.get("question", "")),
        answer_raw=str(row.get("answer_raw") or ""),
        answer_parsed=row.get("answer_parsed"),
        parse_ok=bool(row.get("answer_parse_ok", row.get("parse_ok", False))),
        role=str(row.get("role", "")),
        phase=str(row.get("phase", "")),
        latency_ms=int(row.get("latency_ms") or 0),
        tokens=int(row.get("tokens") or 0),
        model=str(row.get("model", "")),
    )


def games_from_events(events: list[dict[str, Any]], probes: list[ProbeRecord], where: str, source: str) -> BeliefGame:
    """Build a ``BeliefGame`` from an event list (MafiaScope's or ours) and its probe records."""
    setup = next((e for e in events if e.get("kind") == "setup"), None)
    if setup is None:
        raise ImportError_(f"{where}: no 'setup' event with the players and roles; is this a game log?")
    seated = setup_players(setup)
    players = [n for n, _ in seated]
    roles = dict(seated)
    game = BeliefGame(
        game_id=str(setup.get("game_id") or setup.get("id") or Path(where).stem), players=players, roles=roles,
        source=source, parent=setup.get("parent") or setup.get("forked_from"),
        teams={str(p.get("name")): str(p["team"]) for p in setup.get("players") or [] if isinstance(p, dict) and p.get("team")},
        personality={str(p.get("name")): p["personality"] for p in setup.get("players") or []
                     if isinstance(p, dict) and isinstance(p.get("personality"), dict)},
    )
    last_seq: dict[int, float] = {}
    vote_seq: dict[tuple[int, str], float] = {}
    for e in events:
        kind = str(e.get("kind", ""))
        rnd = int(e.get("round", 0) or 0)
        seq = e.get("public_msg_seq", e.get("msg_seq"))
        if seq is not None:
            last_seq[rnd] = float(seq)
        here = last_seq.get(rnd, 0.0) + (0.0 if seq is not None else 0.5)
        if kind == "fork":  # a counterfactual replay: its own id, pointing to the parent game
            game.parent, game.game_id = e.get("parent"), str(e.get("game_id") or game.game_id)
        if e.get("private"):
            continue
        if kind == "game_over":
            game.winner = e.get("winner")
        victims = [e.get(k) for k in ("victim", "eliminated", "killed", "died") if isinstance(e.get(k), str)]
        if kind in ("death", "player_died", "eliminated") and isinstance(e.get("player"), str):
            victims.append(e["player"])
        for v in victims:
            if v in roles and v not in game.deaths:
                game.deaths[v] = (rnd, here)
        voter = e.get("voter") or (e.get("player") if "vote" in kind else None)
        target = e.get("target") or e.get("vote")
        if "vote" in kind and isinstance(voter, str):
            vote_seq[(rnd, voter)] = float(seq) if seq is not None else here
            if isinstance(target, str) and target in roles:
                game.votes.append(Vote(rnd, vote_seq[(rnd, voter)], voter, target))
        if kind in ("vote_tally", "vote_result") and isinstance(e.get("votes"), dict):
            # MafiaScope's tally follows one public message per voter; ours is one simultaneous vote
            at = here if kind == "vote_result" else None
            for v, t in e["votes"].items():
                when = at if at is not None else vote_seq.get((rnd, v), math.inf)
                if t in roles and not any(x.round == rnd and x.voter == v and x.seq == when for x in game.votes):
                    game.votes.append(Vote(rnd, when, v, t))
    game.calls_game = count_moves(events) or None
    for p in probes:
        p.game_id = p.game_id or game.game_id
    game.probes = [repair_record(p) for p in probes]
    return game


MOVE_KINDS = {"speech", "mafia_pick", "doctor_save", "sheriff_check", "proposal", "assassination"}


def count_moves(events: list[dict[str, Any]]) -> int:
    """Game-facing decisions in a log (a lower bound on game model calls: re-asks are not logged)."""
    n = 0
    for e in events:
        if "response" in e or e.get("kind") in MOVE_KINDS:
            n += 1
        elif e.get("kind") == "vote_result" and isinstance(e.get("votes"), dict):
            n += len(e["votes"])
    return n


def _probes(path: Path) -> list[ProbeRecord]:
    """Probe records from a probe log in our layout or MafiaScope's; a bad record names file:line."""
    out = []
    for line, row in _numbered(path):
        try:
            out.append(ProbeRecord.model_validate(row) if "player" in row else _probe_from_mafiascope(row))
        except ValidationError as exc:
            raise ImportError_(str(validation_problem(path, exc, line=line, fix="each line must be one probe record"))) from None
        except (ValueError, TypeError) as exc:
            raise ImportError_(f"{path}:{line}: not a probe record ({' '.join(str(exc).split())[:120]}); fix or remove that line") from None
    return out


def _game(events: list[dict[str, Any]], probes: list[ProbeRecord], where: Path, source: str) -> BeliefGame:
    try:
        return games_from_events(events, probes, str(where), source)
    except (ValueError, TypeError, AttributeError) as exc:  # a round or seq that is not a number, a list where a name goes
        raise ImportError_(f"{where}: an event has a value of the wrong type ({' '.join(str(exc).split())[:120]}); "
                           "check the log was written by MafiaScope or vgm") from None


def load_mafiascope_game(folder: str | Path) -> BeliefGame:
    folder = Path(folder)
    game_path, probe_path = _find(folder, "game"), _find(folder, "introspection")
    if game_path is None:
        raise ImportError_(f"{folder}: no game.jsonl(.gz); a MafiaScope game folder holds game.jsonl and introspection.jsonl")
    probes = _probes(probe_path) if probe_path else []
    return _game(read_jsonl(game_path), probes, game_path, "mafiascope")


# -- our layout -----------------------------------------------------------------------
def load_vgm_game(event_log: str | Path, probe_log: str | Path | None = None) -> BeliefGame:
    event_log = Path(event_log)
    probe_log = Path(probe_log) if probe_log else event_log.with_name(event_log.name.removesuffix(".jsonl") + PROBE_LOG_SUFFIX)
    probes = _probes(probe_log) if probe_log.exists() else []
    return _game(read_jsonl(event_log), probes, event_log, "vgm")


def load_games(path: str | Path) -> list[BeliefGame]:
    """Every game under ``path``: MafiaScope game folders and our ``<game>.jsonl`` + probe logs."""
    path = Path(path)
    if not path.exists():
        raise ImportError_(f"{path}: no such file or folder; give a folder of games or one log")
    if path.is_file():
        if path.name.startswith("game.jsonl") and _find(path.parent, "introspection") is not None:
            return [load_mafiascope_game(path.parent)]
        return [load_vgm_game(path)]
    games: list[BeliefGame] = []
    folders = sorted({p.parent for p in path.rglob("game.jsonl*")})
    for folder in folders:
        if _find(folder, "introspection") is not None or not list(folder.glob("*" + PROBE_LOG_SUFFIX)):
            games.append(load_mafiascope_game(folder))
    for probe_log in sorted(path.rglob("*" + PROBE_LOG_SUFFIX)):
        event_log = probe_log.with_name(probe_log.name.removesuffix(PROBE_LOG_SUFFIX) + ".jsonl")
        if event_log.is_file():
            games.append(load_vgm_game(event_log, probe_log))
    if not games:
        raise ImportError_(f"{path}: no games found; expected <game>/game.jsonl(.gz) + introspection.jsonl(.gz), or <game>.jsonl + <game>{PROBE_LOG_SUFFIX}")
    return games


# -- who saw what ---------------------------------------------------------------------
def seen_by(event: dict[str, Any], agent: str | None, game: BeliefGame) -> bool:
    """Could ``agent`` see this event? ``None`` is the moderator, who sees everything.

    Our logs say so on each event (``private``, read by ``gm.social.visible_to``); in
    MafiaScope's, the role table is the moderator's and a night action is its actor's (a
    Mafia pick, every Mafia's).
    """
    if agent is None:
        return True
    if "private" in event:
        return visible_to(event, agent)
    kind = str(event.get("kind", ""))
    if kind == "setup":
        return False
    if kind.startswith("night_") and event.get("player"):
        if kind == "night_mafia":
            return game.evil(agent)
        return event.get("player") == agent
    return True


def event_positions(events: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """Each event's place in time: its public key, or just after the last public message of its round."""
    out, last = [], {}
    for e in events:
        rnd = int(e.get("round", 0) or 0)
        seq = e.get("public_msg_seq", e.get("msg_seq"))
        if seq is not None and not e.get("private"):
            last[rnd] = float(seq)
            out.append((rnd, float(seq)))
        else:
            out.append((rnd, float(seq) + 0.5 if seq is not None else last.get(rnd, 0.0) + 0.5))
    return out
