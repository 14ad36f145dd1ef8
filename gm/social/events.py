"""The game's ground truth: an append-only event list, written as JSON Lines while it grows.

Every public event is keyed ``(round, public_msg_seq)`` (the sequence restarts at 1 each
round, so "R1.7" is the 7th public message of round 1). A private event carries the key of
the last public event before it, ``"private": true`` and ``"to"``: the seats allowed to see
it (``[]`` = the moderator only, e.g. the true role table or a seat's hidden reasoning).

A seat never reads the log directly: it reads ``view_for(events, name)``. That one filter is
the whole no-leak guarantee, so it stays tiny and obvious.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from rulesets import FileProblem, VgmError, read_jsonl

Event = dict[str, Any]


class LogFormatError(VgmError):
    """A log file that is not JSON Lines of events."""


def visible_to(event: Event, name: str) -> bool:
    """True when seat ``name`` may see ``event``: it is public, or addressed to that seat."""
    return not event.get("private") or name in event.get("to", ())


def view_for(events: Iterable[Event], name: str) -> list[Event]:
    """The events seat ``name`` has seen, in order: the only source of any seat's prompt."""
    return [e for e in events if not e.get("private") or name in e.get("to", ())]


def public_events(events: Iterable[Event]) -> list[Event]:
    """What an observer in the room saw (no private event at all)."""
    return [e for e in events if not e.get("private")]


def event_key(event: Event) -> tuple[int, int]:
    """The ``(round, public_msg_seq)`` key of an event (a private one shares its last public key)."""
    return int(event.get("round", 0)), int(event.get("public_msg_seq", 0))


def parse_key(text: str) -> tuple[int, int]:
    """``"2.7"`` → ``(2, 7)``; the form ``--at ROUND.SEQ`` takes."""
    try:
        rnd, _, seq = text.partition(".")
        return int(rnd), int(seq or 0)
    except ValueError:
        raise VgmError(f"bad step key {text!r}; write ROUND.SEQ, e.g. 2.7") from None


class EventLog:
    """Events in memory, appended to a JSON Lines file as they happen (crash-safe)."""

    __slots__ = ("events", "path", "_fh")

    def __init__(self, path: str | Path | None = None, events: list[Event] | None = None) -> None:
        self.events: list[Event] = list(events or [])
        self.path = Path(path) if path else None
        self._fh = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = self.path.open("w", encoding="utf-8")
            except OSError as exc:
                raise VgmError(f"cannot write the game log {self.path} ({exc.strerror or exc}); give a writable -o folder") from None
            for event in self.events:
                self._write(event)

    def append(self, event: Event) -> None:
        self.events.append(event)
        if self._fh is not None:
            self._write(event)

    def _write(self, event: Event) -> None:
        self._fh.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


def iter_json_lines(path: str | Path, what: str) -> Iterator[tuple[int, Any]]:
    """``(line number, object)`` per non-blank line of a JSON Lines file (``.gz`` too), through
    the one reader: a torn last line is dropped with a warning, any other bad line is one
    ``LogFormatError`` naming the file and line.

    ``what`` names one line's content for the error, e.g. "one event object".
    """
    try:
        reader = read_jsonl(path, what="JSON Lines file")
        yield from reader.numbered()
    except FileProblem as problem:
        raise LogFormatError(str(problem)) from None


def read_log(path: str | Path) -> list[Event]:
    """Read a JSON Lines event log; a bad line is one error naming the file and line."""
    events: list[Event] = []
    for lineno, event in iter_json_lines(path, "one event object"):
        if not isinstance(event, dict) or "kind" not in event:
            raise LogFormatError(f"{path}:{lineno}: an event must be an object with a 'kind'; fix or remove that line")
        events.append(event)
    return events
