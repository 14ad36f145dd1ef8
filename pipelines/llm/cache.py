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
import re
import sqlite3
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from ._types import ModelError

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@?#]*@")
_SECRET_PARAM = re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|password|secret)=)[^&\s#]+")


def redact(text: str) -> str:
    """``text`` with credentials in URLs masked: ``http://user:pw@host`` → ``http://***@host``, ``?api_key=…`` → ``?api_key=***``.

    Applied to everything that is stored (cache identities, the usage log) or printed (errors).
    """
    if not isinstance(text, str) or ("@" not in text and "=" not in text):
        return text
    return _SECRET_PARAM.sub(r"\1***", _USERINFO.sub(r"\1***@", text))


def _redact_values(record: Any) -> Any:
    if isinstance(record, str):
        return redact(record)
    if isinstance(record, dict):
        return {k: _redact_values(v) for k, v in record.items()}
    if isinstance(record, list):
        return [_redact_values(v) for v in record]
    return record


class CacheWarning(UserWarning):
    """The response cache had to be moved aside (a damaged or foreign file); a fresh one is used."""


_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "cached_tokens")
_COLUMNS = {"key", "model", "value", "created"}


def good_entry(value: Any) -> bool:
    """True for a cache entry of the shape the client writes: ``{"text": str, "usage": {...ints}}``."""
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return False
    usage = value.get("usage", {})
    return isinstance(usage, dict) and all(
        type(usage[k]) is int and usage[k] >= 0 for k in _USAGE_KEYS if k in usage)


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
        self.moved_aside: Path | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._unusable(exc) from None
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:  # not a database, damaged pages, someone else's schema
            if isinstance(exc, sqlite3.OperationalError) and not _damaged(exc):
                raise self._unusable(exc) from None  # locked, read-only, no space: not ours to move
            self._move_aside(exc)
            try:
                self._db = self._open()
            except sqlite3.Error as again:
                raise self._unusable(again) from None
        except OSError as exc:
            raise self._unusable(exc) from None

    def _unusable(self, exc: BaseException) -> ModelError:
        return ModelError(f"response cache {self.path} cannot be used ({exc}); delete it, set VGM_CACHE_DIR elsewhere, or VGM_NO_CACHE=1")

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "responses" not in tables:
                raise _Foreign(f"a database with other tables ({', '.join(sorted(tables))[:60]})")
            if "responses" in tables:
                columns = {r[1] for r in db.execute("PRAGMA table_info(responses)")}
                if not _COLUMNS <= columns:
                    raise _Foreign(f"a 'responses' table with other columns ({', '.join(sorted(columns))[:60]})")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, value TEXT NOT NULL, created REAL)"
            )
            if tables:
                db.execute("SELECT COUNT(*) FROM responses").fetchone()  # damage found later is handled by _recover
        except BaseException:
            db.close()
            raise
        return db

    def _move_aside(self, exc: BaseException) -> None:
        """Rename a damaged or foreign cache file (and its WAL/SHM) out of the way; warn in one line."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.broken-{stamp}-{os.getpid()}")
        try:
            os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):
                extra = self.path.with_name(self.path.name + suffix)
                if extra.exists():
                    os.replace(extra, aside.with_name(aside.name + suffix))
        except OSError as move:
            raise self._unusable(f"{exc}; moving it aside failed: {move}") from None
        self.moved_aside = aside
        reason = " ".join(str(exc).split()) or type(exc).__name__
        warnings.warn(f"response cache {self.path} could not be used ({reason}); moved it to {aside.name} and started a new one",
                      CacheWarning, stacklevel=3)

    def _recover(self, exc: sqlite3.DatabaseError) -> bool:
        """After a query found damage: move the file aside and reopen; True when that worked."""
        if not _damaged(exc):
            return False
        try:
            self._db.close()
        except sqlite3.Error:
            pass
        try:
            self._move_aside(exc)
            self._db = self._open()
        except (ModelError, sqlite3.Error, OSError):
            self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT, value TEXT NOT NULL, created REAL)")
        return True

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer, or None: a missing, unreadable or wrongly shaped entry is a miss (the next put overwrites it)."""
        try:
            with self._lock:
                try:
                    row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
                except sqlite3.DatabaseError as exc:
                    if not self._recover(exc):
                        raise
                    return None
            value = json.loads(row[0]) if row else None
        except (sqlite3.Error, ValueError, TypeError, RecursionError):
            return None  # an unreadable entry is a miss: the model is asked again
        return value if good_entry(value) else None

    def put(self, key: str, model: str, value: dict[str, Any]) -> None:
        row = (key, redact(model), json.dumps(value, ensure_ascii=False), time.time())
        try:
            with self._lock:
                try:
                    self._db.execute("INSERT OR REPLACE INTO responses (key, model, value, created) VALUES (?, ?, ?, ?)", row)
                except sqlite3.DatabaseError as exc:
                    if not self._recover(exc):
                        raise
                    self._db.execute("INSERT OR REPLACE INTO responses (key, model, value, created) VALUES (?, ?, ?, ?)", row)
        except sqlite3.Error:
            self.failed_writes += 1  # a full or locked disk must not lose the answer we already have

    def _query(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            try:
                return self._db.execute(sql, args)
            except sqlite3.DatabaseError as exc:
                if not self._recover(exc):
                    raise ModelError(f"response cache {self.path}: {exc}; try again, or VGM_NO_CACHE=1") from None
                return self._db.execute(sql, args)

    def stats(self) -> list[dict[str, Any]]:
        """Entries and bytes per model identity, for ``vgm models cache``."""
        rows = self._query(
            "SELECT model, COUNT(*), SUM(LENGTH(value)), MIN(created), MAX(created) FROM responses GROUP BY model ORDER BY model"
        ).fetchall()
        return [{"model": redact(str(m)), "entries": n, "bytes": b or 0, "oldest": lo, "newest": hi} for m, n, b, lo, hi in rows]

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or one model identity's); returns how many went."""
        if model is None:
            return self._query("DELETE FROM responses").rowcount
        return self._query("DELETE FROM responses WHERE model = ?", (model,)).rowcount

    def __len__(self) -> int:
        return self._query("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _Foreign(sqlite3.DatabaseError):
    """A readable SQLite file that is not our cache."""


def _damaged(exc: BaseException) -> bool:
    """True for errors that mean the file itself is bad (not a lock, a full disk or permissions)."""
    if isinstance(exc, _Foreign):
        return True
    text = str(exc).lower()
    return any(w in text for w in ("malformed", "not a database", "corrupt", "disk image", "file is encrypted"))


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
        line = json.dumps(_redact_values({"ts": round(time.time(), 3), **record}), ensure_ascii=False)
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
