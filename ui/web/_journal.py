"""The table's journal: every line the room accepts, written before anything about it is streamed
or answered, so a killed server never drops one silently.

    journal = Journal(Path("runs/table/room.journal.jsonl"))
    n = journal.accept("Brisa Tallowmere", "host", "I attack")   # on disk before the GM starts
    journal.start(n, log_len=len(session.log))                   # the turn begins
    journal.close(n, "answered")                                  # after the session is saved

One JSON object a line, appended (the accept is fsynced; the file is readable by its owner only).
On reopening, a line accepted but never closed is *interrupted*: when the saved session shows its
turn (its log grew past the length noted at its start) it was answered and only the closing
mark was lost; otherwise it had no reply, and it stays listed for its player
(``TableRoom.view``'s ``unanswered``) until that character's next line is answered.
"""
from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rulesets import write_atomic

__all__ = ["Journal", "journal_path"]

COMPACT_EVERY = 2000  # closed entries appended before the file is rewritten with only the open ones
KEEP_UNANSWERED = 50  # interrupted lines listed at most (the oldest go first)
INTERRUPTED = "the table stopped before the GM answered it"


def journal_path(session_path: str | Path) -> Path:
    """Beside the session: ``room.json`` → ``room.journal.jsonl``."""
    path = Path(session_path)
    return path.with_name(path.stem + ".journal.jsonl")


class Journal:
    """Accepted lines and what became of them; ``path=None`` keeps it in memory (a room without a session file)."""

    def __init__(self, path: Path | None = None, log_len: int | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._n = 0
        self._open: dict[int, dict[str, Any]] = {}  # accepted (maybe started), not closed
        self.unanswered: list[dict[str, Any]] = []  # interrupted before a reply, not yet followed by their character's next line
        self._appended = 0
        if path is not None and path.is_file():
            self._recover(log_len)

    # ----- reopening ------------------------------------------------------------------------------

    def _recover(self, log_len: int | None) -> None:
        entries: dict[int, dict[str, Any]] = {}
        assert self.path is not None
        for raw in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(raw)
            except ValueError:  # a line torn by the kill: the accept before it was whole, or it never counted
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("n"), int):
                continue
            n = entry["n"]
            self._n = max(self._n, n)
            if entry.get("state") != "mark":
                entries.setdefault(n, {}).update(entry)
        for n in sorted(entries):
            entry = entries[n]
            state = entry.get("state")
            if state in ("accepted", "started"):
                grown = state == "started" and log_len is not None and log_len > int(entry.get("log_len", log_len))
                if grown:
                    continue  # its turn was saved whole; only the closing mark was lost
                entry.update(state="interrupted", why=INTERRUPTED)
                self.unanswered.append(entry)
            elif state == "interrupted":
                self.unanswered.append(entry)
        self.unanswered = self.unanswered[-KEEP_UNANSWERED:]
        self._compact()

    def _compact(self) -> None:
        """Rewrite the file with only what is still open or unanswered."""
        if self.path is None:
            return
        keep = sorted([*self._open.values(), *self.unanswered], key=lambda e: e["n"])
        mark = {"n": self._n, "state": "mark"}  # keeps the numbering going after a rewrite
        write_atomic(self.path, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in [*keep, mark]))
        self._appended = 0

    # ----- while serving --------------------------------------------------------------------------

    def _append(self, entry: dict[str, Any], sync: bool = False) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"))
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        self._appended += 1
        if self._appended >= COMPACT_EVERY:
            self._compact()

    def accept(self, who: str | None, seat: str, text: str, kind: str = "act") -> int:
        """A line the room takes: written (and synced) before it waits for its turn; its number."""
        with self._lock:
            self._n += 1
            entry = {"n": self._n, "state": "accepted", "kind": kind, "who": who, "seat": seat, "text": text,
                     "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
            self._append(entry, sync=True)
            self._open[self._n] = entry
            return self._n

    def start(self, n: int, log_len: int) -> None:
        """The line's turn begins with the session's log this long (how a reopening tells a saved turn)."""
        with self._lock:
            if n in self._open:
                self._open[n].update(state="started", log_len=log_len)
                self._append({"n": n, "state": "started", "log_len": log_len})

    def close(self, n: int, state: str, character: str | None = None, **extra: Any) -> None:
        """What became of line ``n``: ``answered`` (by ``character``), ``refused`` (with ``error``) or ``failed``."""
        with self._lock:
            if self._open.pop(n, None) is None:
                return
            self._append({"n": n, "state": state, **extra})
            if state == "answered" and character:
                self._settle(character)

    def _settle(self, who: str) -> None:
        """A character's line is answered: their interrupted lines are behind them now."""
        done = [e for e in self.unanswered if e.get("who") == who]
        if done:
            self.unanswered = [e for e in self.unanswered if e.get("who") != who]
            for e in done:
                self._append({"n": e["n"], "state": "settled"})

    def unanswered_for(self, character: str | None) -> list[dict[str, Any]]:
        """Interrupted lines ``character`` said (every one for ``None``, the host), oldest first."""
        with self._lock:
            rows = [e for e in self.unanswered if character is None or e.get("who") == character]
        return [{"n": e["n"], "who": e.get("who"), "text": e.get("text", ""), "at": e.get("at"), "why": e.get("why", INTERRUPTED)}
                for e in rows]

    @property
    def pending(self) -> int:
        """Lines accepted and not yet closed."""
        with self._lock:
            return len(self._open)
