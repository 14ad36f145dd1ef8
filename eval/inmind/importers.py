"""Importers: released InMind-Avalon JSON files (and folders of them) become ``Session`` records.

The schema is the one in the data's FORMAT.md: ``my_info``, ``task1..K`` with ``player_message``
and ``strategy``, ``task6`` (end phase), ``user_info``, ``my_review``. A missing field or a role
the Avalon pack does not know ends in one ``InMindDataError`` naming the file and the key.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rulesets import FileProblem, VgmError, read_json

from . import roles as _roles
from ._system_lines import read_end, read_state
from .avalon_logs import load_avalon_log
from .session import SYSTEM, InMindDataError, Round, Session, StrategyNote, Utterance

_TASK = re.compile(r"^task([1-9])$")
TRACES_SUFFIX = ".traces.jsonl"
_MODE_FROM_NAME = re.compile(r"(observer|participant)", re.IGNORECASE)


def _need(obj: Any, key: str, where: str, kind: type = dict) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise InMindDataError(f"{where}: missing key {key!r}; every InMind-Avalon file needs it (see the data's FORMAT.md)")
    value = obj[key]
    if not isinstance(value, kind):
        raise InMindDataError(f"{where}.{key}: expected {kind.__name__}, got {type(value).__name__}; fix the file")
    return value


def _seat(value: Any, where: str) -> int:
    try:
        seat = int(str(value).strip())
    except ValueError:
        raise InMindDataError(f"{where}: seat {value!r} is not a number 1-6; fix the file") from None
    if not 1 <= seat <= 9:
        raise InMindDataError(f"{where}: seat {seat} is out of range; fix the file")
    return seat


def _utterances(raw: Any, where: str) -> list[Utterance]:
    if not isinstance(raw, list):
        raise InMindDataError(f"{where}: expected a list of messages; fix the file")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "msg" not in item:
            raise InMindDataError(f"{where}[{i}]: a message needs 'player' and 'msg'; fix the file")
        speaker = str(item.get("player", SYSTEM)).strip() or SYSTEM
        attempt = item.get("round")
        out.append(Utterance(speaker=speaker, text=str(item["msg"] or ""), attempt=int(attempt) if isinstance(attempt, (int, str)) and str(attempt).isdigit() else None))
    return out


def session_from_released(data: dict[str, Any], *, name: str, mode: str | None = None) -> Session:
    """One released InMind-Avalon game (already parsed JSON) as a ``Session``."""
    where = name
    if not isinstance(data, dict):
        raise InMindDataError(f"{where}: expected a JSON object with my_info, task1.., user_info, my_review")
    my_info = _need(_need(data, "my_info", where), "1", f"{where}.my_info")
    subject_seat = _seat(_need(my_info, "player", f"{where}.my_info.1", str), f"{where}.my_info.1.player")
    subject_role = _roles.resolve_role(_need(my_info, "role", f"{where}.my_info.1", str), where=f"{where}.my_info.1.role")
    user_info = _need(data, "user_info", where)
    assignment: dict[int, str] = {}
    for key, info in user_info.items():
        seat = _seat(info.get("player", key) if isinstance(info, dict) else key, f"{where}.user_info.{key}")
        role = _need(info, "role", f"{where}.user_info.{key}", str)
        assignment[seat] = _roles.resolve_role(role, where=f"{where}.user_info.{key}.role")
    if subject_seat not in assignment:
        raise InMindDataError(f"{where}: my_info seat {subject_seat} has no entry in user_info; fix the file")
    review = _need(data, "my_review", where)
    reflection = str(_need(review, "msg", f"{where}.my_review", str))

    missions = sorted((int(m.group(1)), key) for key in data if (m := _TASK.match(key)) and int(m.group(1)) <= 5)
    if not missions:
        raise InMindDataError(f"{where}: no task1..task5 mission found; a game has at least task1")
    rounds = []
    for number, key in missions:
        task = _need(data, key, where)
        utterances = _utterances(_need(task, "player_message", f"{where}.{key}", list), f"{where}.{key}.player_message")
        notes = []
        for i, entry in enumerate(task.get("strategy") or []):
            if not isinstance(entry, dict) or "msg" not in entry:
                raise InMindDataError(f"{where}.{key}.strategy[{i}]: a strategy entry needs 'msg' and 'round'; fix the file")
            attempt = entry.get("round", 1)
            notes.append(StrategyNote(attempt=int(attempt) if str(attempt).isdigit() else 1, text=str(entry["msg"])))
        rounds.append(Round(mission=number, utterances=utterances, state=read_state(utterances, number), strategy=notes))
    end_task = data.get("task6")
    end = read_end(_utterances(end_task.get("player_message", []), f"{where}.task6.player_message")) if isinstance(end_task, dict) else read_end([])

    if mode is None:
        found = _MODE_FROM_NAME.search(Path(name).name)
        mode = found.group(1).lower() if found else "participant"
    return Session(
        id=Path(name).stem,
        source=name,
        mode=mode,  # type: ignore[arg-type]
        subject_seat=subject_seat,
        subject_role=subject_role,
        subject_knowledge=str(my_info.get("msg") or ""),
        roles=dict(sorted(assignment.items())),
        rounds=rounds,
        end=end,
        reflection=reflection,
        language="en" if data.get("language") == "en" else "zh",  # the released files are Chinese; ours may say "en"
    )


def load_released(path: str | Path, *, mode: str | None = None) -> Session:
    """Read one ``N-participant.json`` / ``N-observer.json`` file."""
    path = Path(path)
    if not path.exists():
        raise InMindDataError(f"{path}: file not found; give an InMind-Avalon JSON file or a folder of them")
    try:
        data = read_json(path, what="InMind-Avalon session file")
    except FileProblem as problem:
        raise InMindDataError(str(problem)) from None
    if not isinstance(data, dict):
        raise InMindDataError(f"{path}: an InMind-Avalon session file holds one JSON object, not a {type(data).__name__}; "
                              "give a released N-participant.json / N-observer.json file")
    try:
        return session_from_released(data, name=str(path), mode=mode)
    except InMindDataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # a field missing or of the wrong type
        what = f"missing key {exc}" if isinstance(exc, KeyError) else " ".join(str(exc).split())[:120]
        raise InMindDataError(f"{path}: not an InMind-Avalon session ({what}); "
                              "give a released N-participant.json / N-observer.json file") from None


def load_sessions(source: str | Path) -> list[Session]:
    """Every session under a folder (``*.json`` released files, ``*.jsonl`` our Avalon logs), or one file.

    A log ``game.jsonl`` takes its person's traces from ``game.traces.jsonl`` beside it when present.

    Sessions come back in a stable order: observer games first, then by game number.
    """
    source = Path(source)
    if source.is_file():
        files = [source]
    elif source.is_dir():
        files = sorted(p for p in source.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
    else:
        raise InMindDataError(f"{source}: no such file or folder; give --data a folder of InMind-Avalon JSON files")
    sessions = []
    for path in files:
        if path.name.endswith(TRACES_SUFFIX):
            continue  # read together with its game log
        if path.suffix == ".jsonl":
            traces = path.with_name(path.stem + TRACES_SUFFIX)
            try:
                sessions.append(load_avalon_log(path, traces if traces.is_file() else None))
            except VgmError:
                raise
            except (KeyError, TypeError, ValueError, AttributeError, IndexError, StopIteration) as exc:
                what = f"missing key {exc}" if isinstance(exc, KeyError) else " ".join(str(exc).split())[:120] or type(exc).__name__
                raise InMindDataError(f"{path}: not an Avalon game log of ours ({what}); give logs written by `vgm avalon`") from None
        else:
            sessions.append(load_released(path))
    if not sessions:
        raise InMindDataError(f"{source}: no *.json session files found; give a folder of InMind-Avalon files")

    def order(s: Session) -> tuple:
        number = re.match(r"\d+", s.id)
        return (s.mode != "observer", int(number.group()) if number else 10**9, s.id)

    return sorted(sessions, key=order)
