"""A persistent response cache and a per-call usage log, shared by every backend.

The same request (model, messages, parameters) gets the same answer from SQLite, so a
re-run costs nothing and an interrupted batch loses no finished call: each answer is
committed the moment it arrives. WAL mode lets several processes and many tasks read
while one writes. The usage log is JSON Lines, one line per call, and never holds a key.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ._types import ModelError


def cache_dir() -> Path:
    """``$VGM_CACHE_DIR`` or ``~/.cache/virtual-gm``."""
    env = os.environ.get("VGM_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "virtual-gm"


def cache_disabled_by_env() -> bool:
    return os.environ.get("VGM_NO_CACHE", "").strip().lower() not in ("", "0", "false", "no")


def request_key(model_id: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """A stable hash of what decides an answer: which model, what it was shown, how it samples."""
    blob = json.dumps({"model": model_id, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """``get(key) -> dict | None`` / ``put(key, model, value)`` over one SQLite file.

    Calls are short and synchronous: a lookup or an insert is well under a millisecond,
    cheaper than handing it to a thread, so async callers use it directly.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else cache_dir() / "cache.sqlite"
        self._lock = threading.Lock()
        self.failed_writes = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, value TEXT NOT NULL, created REAL)"
            )
        except (sqlite3.Error, OSError) as exc:
            raise ModelError(
                f"response cache {self.path} cannot be used ({exc}); delete it, set VGM_CACHE_DIR elsewhere, or VGM_NO_CACHE=1"
            ) from None

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            with self._lock:
                row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else None
        except (sqlite3.Error, ValueError):
            return None  # an unreadable entry is a miss: the model is asked again

    def put(self, key: str, model: str, value: dict[str, Any]) -> None:
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, model, value, created) VALUES (?, ?, ?, ?)",
                    (key, model, json.dumps(value, ensure_ascii=False), time.time()),
                )
        except sqlite3.Error:
            self.failed_writes += 1  # a full or locked disk must not lose the answer we already have

    def stats(self) -> list[dict[str, Any]]:
        """Entries and bytes per model identity, for ``vgm models cache``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT model, COUNT(*), SUM(LENGTH(value)), MIN(created), MAX(created) FROM responses GROUP BY model ORDER BY model"
            ).fetchall()
        return [{"model": m, "entries": n, "bytes": b or 0, "oldest": lo, "newest": hi} for m, n, b, lo, hi in rows]

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or one model identity's); returns how many went."""
        with self._lock:
            if model is None:
                cursor = self._db.execute("DELETE FROM responses")
            else:
                cursor = self._db.execute("DELETE FROM responses WHERE model = ?", (model,))
        return cursor.rowcount

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


_SHARED: dict[tuple[Path, int], ResponseCache] = {}


def shared_cache(path: str | Path | None = None) -> ResponseCache:
    """One open cache per file per process (a forked child opens its own connection)."""
    key = (Path(path) if path else cache_dir() / "cache.sqlite", os.getpid())
    if key not in _SHARED:
        _SHARED[key] = ResponseCache(key[0])
    return _SHARED[key]


class UsageLog:
    """Appends one JSON line per call: tokens, latency, cache hit, step, model. Never secrets."""

    def __init__(self, path: str | Path | None = None) -> None:
        env = os.environ.get("VGM_USAGE_LOG")
        self.path = Path(path) if path else (Path(env).expanduser() if env else cache_dir() / "usage.jsonl")
        self._lock = threading.Lock()
        self._file = None

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps({"ts": round(time.time(), 3), **record}, ensure_ascii=False)
        with self._lock:
            try:
                if self._file is not None and not self.path.exists():  # deleted or rotated: start a new file
                    self._file.close()
                    self._file = None
                if self._file is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    # Line-buffered append: each record is one write(), whole even with other writers.
                    self._file = open(self.path, "a", encoding="utf-8", buffering=1)
                self._file.write(line + "\n")
            except OSError:
                pass  # accounting must never break a run

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


_LOGS: dict[Path, UsageLog] = {}


def shared_usage_log(path: str | Path | None = None) -> UsageLog:
    """One open usage log per file per process (closed at exit)."""
    log = UsageLog(path)
    return _LOGS.setdefault(log.path, log)


@atexit.register
def _close_logs() -> None:
    for log in _LOGS.values():
        log.close()
