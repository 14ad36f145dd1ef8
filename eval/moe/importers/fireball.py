"""FIREBALL-style Avrae logs → MOE instances.

Two shapes are read, one JSON object per line:

* event streams — ``{"event_type": "message"|"command", "content": "...", "author_name": "...",
  "caster": {"name": "Vex"}, "session": "..."}``: a ``!check perception`` / ``!save dex`` /
  ``!init join`` command gives the gold check for its caster; the message events before it
  are the context. Checks of the same skill by several casters in a row (nothing said in
  between) are one group call.
* distilled FIREBALL records — ``{"utterance_history" | "before_utterances": [...],
  "commands_norm": ["!check stealth"], "caster_after": {"name": ...}}``.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import rulesets
from pipelines.records import Check, MoeInstance, Turn

from ..dataset import read_lines
from ._report import ImportReport
from .crd3 import ImportError_

_CHECK_CMD = re.compile(r"^!(?P<verb>check|c|save|s|init|i)\b\s*(?P<args>.*)$", re.IGNORECASE | re.DOTALL)
_SPEAKER = re.compile(r"^(?P<who>[^:]{1,40}):\s*(?P<text>.+)$", re.DOTALL)
GM_AUTHORS = {"dm", "gm", "dungeon master", "game master"}


def command_check(content: str, pack: Any) -> str | None:
    """``!check perception -adv`` → "perception"; ``!save dex`` → "dexterity_save"; ``!init join`` → "initiative"."""
    match = _CHECK_CMD.match(content.strip())
    if not match:
        return None
    verb = match.group("verb").lower()
    try:
        words = shlex.split(match.group("args"))
    except ValueError:
        words = match.group("args").split()
    words = [w for w in words if not w.startswith("-")]
    if verb in ("init", "i"):
        return pack.try_resolve("initiative") if words[:1] in (["join"], ["j"], []) else None
    phrase = " ".join(w for w in words if not re.fullmatch(r"[+\-]?\d+|adv|dis", w, re.IGNORECASE))
    if not phrase:
        return None
    if verb in ("save", "s"):
        hit = pack.try_resolve(f"{phrase} save")
        return hit if hit and hit.endswith("save") else None
    return pack.try_resolve(phrase) or pack.try_resolve(f"{phrase} check")


def _name(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("name")
    return value.strip() if isinstance(value, str) and value.strip() else None


def import_fireball(source: str | Path, *, context: int = 30, ruleset: str = "dnd5e", min_context: int = 1) -> ImportReport:
    """Read FIREBALL-style JSONL (a file or a folder of ``*.jsonl``) into MOE instances."""
    source = Path(source)
    files = sorted(source.glob("*.jsonl")) if source.is_dir() else [source]
    if not files or not all(f.is_file() for f in files):
        raise ImportError_(f"{source}: no FIREBALL .jsonl files found")
    pack = rulesets.load(ruleset)
    report = ImportReport(source=f"fireball {source}")
    for path in files:
        events: dict[str, list[tuple[int, dict]]] = {}
        for where, event in read_lines(path):
            number = int(where.rsplit(":", 1)[1])
            if not isinstance(event, dict):
                raise ImportError_(f"{where}: expected a JSON object per line")
            if "commands_norm" in event:
                _distilled(event, f"{path.stem}-{number}", pack, report, context, min_context)
                continue
            session = str(event.get("session") or event.get("channel_id") or event.get("combat_id") or path.stem)
            events.setdefault(session, []).append((number, event))
        for session, stream in events.items():
            _stream(session, stream, pack, report, context, min_context)
    return report


def _distilled(record: dict, ident: str, pack: Any, report: ImportReport, context: int, min_context: int) -> None:
    caster = _name(record.get("caster_after")) or _name(record.get("current_actor"))
    skills = [s for s in (command_check(c, pack) for c in record.get("commands_norm") or []) if s]
    if not any(_CHECK_CMD.match(c.strip()) for c in record.get("commands_norm") or []):
        return  # an attack or a spell: not a check
    report.found += 1
    if not skills:
        report.drop("command names no check this rule set knows")
        return
    if caster is None:
        report.drop("no caster name")
        return
    lines = record.get("utterance_history") or record.get("before_utterances") or []
    turns = []
    for line in lines[-context:]:
        match = _SPEAKER.match(str(line))
        who, text = (match.group("who").strip(), match.group("text").strip()) if match else ("Player", str(line).strip())
        turns.append(Turn(speaker="GM" if who.lower() in GM_AUTHORS else who, text=text))
    if len(turns) < min_context:
        report.drop("too little context before the check")
        return
    report.instances.append(MoeInstance(
        id=f"fireball-{ident}", ruleset=pack.name, context=turns,
        answers=[Check(character=caster, skill=s) for s in dict.fromkeys(skills)], source=f"fireball:{ident}#0",
    ))


def _stream(session: str, stream: list[tuple[int, dict]], pack: Any, report: ImportReport, context: int, min_context: int) -> None:
    author_character: dict[str, str] = {}
    for _, event in stream:  # who plays whom: a command's caster names the author's character
        author = str(event.get("author_name") or event.get("author_id") or "")
        caster = _name(event.get("caster")) or _name(event.get("character"))
        if author and caster:
            author_character.setdefault(author, caster)
    turns: list[Turn] = []
    group: list[tuple[int, Check]] = []
    characters: list[str] = []

    def flush() -> None:
        if not group:
            return
        first_line = group[0][0]
        if len(turns) < min_context:
            report.drop("too little context before the check")
        else:
            checks = list(dict.fromkeys(c for _, c in group))
            if len({c.skill for c in checks}) > 1:
                report.notes["several different checks in a row (kept together)"] += 1
            report.instances.append(MoeInstance(
                id=f"{session}-{first_line}", ruleset=pack.name, context=list(turns[-context:]), answers=checks,
                characters=list(characters), source=f"fireball:{session}#{first_line}",
            ))
        group.clear()

    for number, event in stream:
        kind = str(event.get("event_type") or event.get("type") or "message").lower()
        content = str(event.get("content") or "").strip()
        author = str(event.get("author_name") or event.get("author_id") or "Unknown")
        if kind == "command" or content.startswith("!"):
            if not _CHECK_CMD.match(content):
                continue  # attacks, spells, lookups: not checks, not table talk
            report.found += 1
            skill = command_check(content, pack)
            caster = _name(event.get("caster")) or _name(event.get("character")) or author_character.get(author)
            if skill is None:
                report.drop("command names no check this rule set knows")
                continue
            if caster is None:
                report.drop("no caster name")
                continue
            if caster not in characters:
                characters.append(caster)
            group.append((number, Check(character=caster, skill=skill)))
            continue
        if not content or kind not in ("message", "text", "chat"):
            continue
        flush()
        speaker = "GM" if author.lower() in GM_AUTHORS or event.get("is_dm") else author_character.get(author, author)
        if speaker != "GM" and speaker not in characters and author in author_character:
            characters.append(speaker)
        turns.append(Turn(speaker=speaker, text=content))
    flush()
