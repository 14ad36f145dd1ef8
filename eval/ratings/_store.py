"""A rating study on disk: one SQLite file in WAL mode, safe for many raters submitting at once.

Every read and write goes through a token: ``Study.rater(token)`` gives a view that can only
see and write that rater's own ratings, ``Study.admin(token)`` the owner's view. The rules
(scores 1-5, a known item, a choice of a/b/tie) are checked here and again by SQL ``CHECK``
constraints, so no interface (web page, HTTP, script) can store a bad rating.
"""
from __future__ import annotations

import hmac
import json
import math
import os
import random
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from rulesets import VgmError

from ._criteria import AB_CHOICES, CRITERION_IDS, SCORE_MAX, SCORE_MIN

SCHEMA_VERSION = "1"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS raters (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS contexts (
    id INTEGER PRIMARY KEY,
    instance_id TEXT NOT NULL UNIQUE,
    ruleset TEXT NOT NULL,
    turns_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('score', 'ab')),
    context_id INTEGER NOT NULL REFERENCES contexts(id),
    condition TEXT NOT NULL,
    utterance TEXT NOT NULL,
    checks_json TEXT NOT NULL DEFAULT '[]',
    condition_b TEXT,
    utterance_b TEXT,
    checks_b_json TEXT,
    CHECK ((kind = 'ab') = (condition_b IS NOT NULL AND utterance_b IS NOT NULL))
);
CREATE TABLE IF NOT EXISTS ratings (
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    item_id INTEGER NOT NULL REFERENCES items(id),
    condition TEXT NOT NULL,
    naturalness INTEGER CHECK (naturalness BETWEEN {SCORE_MIN} AND {SCORE_MAX}),
    groundedness INTEGER CHECK (groundedness BETWEEN {SCORE_MIN} AND {SCORE_MAX}),
    factual INTEGER CHECK (factual BETWEEN {SCORE_MIN} AND {SCORE_MAX}),
    choice TEXT CHECK (choice IN ('a', 'b', 'tie')),
    skipped INTEGER NOT NULL DEFAULT 0 CHECK (skipped IN (0, 1)),
    seconds REAL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (rater_id, item_id),
    CHECK (skipped = 1 OR choice IS NOT NULL OR
           (naturalness IS NOT NULL AND groundedness IS NOT NULL AND factual IS NOT NULL))
);
"""


class StudyError(VgmError):
    """A study file that is missing, not a study, or asked for something it does not hold."""


class AccessDenied(VgmError):
    """A wrong or missing token. Carries no detail about what exists, on purpose."""

    def __init__(self) -> None:
        super().__init__("access denied: open the personal link you were given (it carries ?token=...)")


class InvalidRating(VgmError):
    """A rating the study refuses: a score outside 1-5, an unknown item, the wrong kind of answer."""


@dataclass(frozen=True)
class Rater:
    id: int
    name: str
    token: str


@dataclass(frozen=True)
class ItemView:
    """What a rater sees of one item: no condition names, so the study stays blind."""

    id: int
    kind: str
    instance_id: str
    ruleset: str
    context: list[dict]
    utterance: str
    checks: list[dict]
    utterance_b: str | None = None
    checks_b: list[dict] | None = None


@dataclass(frozen=True)
class Progress:
    done: int
    skipped: int
    total: int

    @property
    def remaining(self) -> int:
        return self.total - self.done - self.skipped


@dataclass
class RatingRow:
    """One stored rating with everything a report needs (admin view only)."""

    rater: str
    item_id: int
    instance_id: str
    kind: str
    condition: str
    condition_b: str | None
    scores: dict[str, int | None] = field(default_factory=dict)
    choice: str | None = None
    skipped: bool = False
    seconds: float | None = None
    created_at: float = 0.0
    updated_at: float = 0.0


def new_token() -> str:
    """An unguessable URL-safe token (128 bits)."""
    return secrets.token_urlsafe(16)


class Study:
    """A study file. Open it with ``Study.open(path)``; make one with ``Study.create``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    # -- connections -------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        # One short-lived connection per operation: cheap in SQLite, and it keeps threads
        # (Gradio workers, HTTP handlers) from sharing a cursor.
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA foreign_keys = ON")
        # WAL + NORMAL: a commit survives a killed or restarted server (the WAL is in the OS's
        # hands at once); only a power cut could drop the last commits. FULL fsyncs every commit
        # and tripled p95 latency under 30 concurrent raters (bench/rating_load.py).
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    # -- creation ----------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | Path,
        contexts: list[dict],
        items: list[dict],
        *,
        name: str = "study",
        seed: int = 0,
        sources: dict | None = None,
        overwrite: bool = False,
    ) -> tuple["Study", str]:
        """Write a new study file; returns it and the owner's admin token.

        ``contexts``: ``{instance_id, ruleset, turns: [{speaker, text}]}``.
        ``items``: ``{kind, instance_id, condition, utterance, checks, [condition_b, utterance_b, checks_b]}``.
        """
        path = Path(path)
        if path.is_dir():
            raise StudyError(f"{path} is a folder; give a file name for the study, e.g. -o {path}/study.db")
        if path.exists() and not overwrite:
            raise StudyError(f"{path} already exists; pick another -o path or pass --overwrite")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StudyError(f"cannot create the folder for {path} ({exc.strerror or exc}); pick a writable -o path") from None
        study = cls(path)
        admin_token = new_token()
        # Built under a temporary name and renamed into place: a failure (or a kill) leaves no
        # half-built study, and an old study being overwritten survives until the new one is whole.
        tmp = path.with_name(f".{path.name}.building-{os.getpid()}")
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
        except sqlite3.Error as exc:
            raise StudyError(f"cannot write {path} ({exc}); pick a writable -o path") from None
        try:
            conn.executescript(_SCHEMA)
            conn.execute("BEGIN")
            meta = {
                "schema": SCHEMA_VERSION,
                "name": name,
                "seed": str(seed),
                "admin_token": admin_token,
                "created_at": str(time.time()),
                "sources": json.dumps(sources or {}),
            }
            conn.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
            ctx_ids = {}
            for ctx in contexts:
                cur = conn.execute(
                    "INSERT INTO contexts (instance_id, ruleset, turns_json) VALUES (?, ?, ?)",
                    (ctx["instance_id"], ctx["ruleset"], json.dumps(ctx["turns"], ensure_ascii=False)),
                )
                ctx_ids[ctx["instance_id"]] = cur.lastrowid
            for item in items:
                conn.execute(
                    "INSERT INTO items (kind, context_id, condition, utterance, checks_json, condition_b, utterance_b, checks_b_json)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        item["kind"],
                        ctx_ids[item["instance_id"]],
                        item["condition"],
                        item["utterance"],
                        json.dumps(item.get("checks") or [], ensure_ascii=False),
                        item.get("condition_b"),
                        item.get("utterance_b"),
                        json.dumps(item.get("checks_b") or [], ensure_ascii=False) if item["kind"] == "ab" else None,
                    ),
                )
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = WAL")  # persistent in the file; set once the data is in
        except BaseException as exc:
            conn.close()
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{tmp}{suffix}").unlink(missing_ok=True)
            if isinstance(exc, sqlite3.Error):
                raise StudyError(f"cannot build the study {path} ({exc}); nothing was written") from None
            if isinstance(exc, (KeyError, TypeError)):
                raise StudyError(f"cannot build the study {path}: an item or context lacks {exc}; nothing was written") from None
            raise
        conn.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)  # an overwritten study's leftovers
        os.replace(tmp, path)
        return study, admin_token

    @classmethod
    def open(cls, path: str | Path) -> "Study":
        """Open an existing study; a missing or foreign file fails with one line."""
        path = Path(path)
        if not path.is_file():
            raise StudyError(f"{path}: no such study file; make one with `vgm rate create --from runs/A runs/B -o {path}`")
        study = cls(path)
        try:
            with study._read() as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is None:
            raise StudyError(f"{path}: not a rating study file; make one with `vgm rate create`")
        return study

    # -- access ------------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        with self._read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    @property
    def name(self) -> str:
        return self._meta("name") or "study"

    def rater(self, token: str | None) -> "RaterView":
        """The view of the rater holding ``token``; any other token gets ``AccessDenied``."""
        if not token or not isinstance(token, str):
            raise AccessDenied()
        with self._read() as conn:
            row = conn.execute("SELECT id, name, token FROM raters WHERE token = ?", (token,)).fetchone()
        # compare_digest keeps the check constant-time once a row is found.
        if row is None or not hmac.compare_digest(row["token"], token):
            raise AccessDenied()
        return RaterView(self, Rater(row["id"], row["name"], row["token"]))

    def admin(self, token: str | None) -> "AdminView":
        """The owner's view; only the admin token printed at creation opens it."""
        expected = self._meta("admin_token") or ""
        if not token or not isinstance(token, str) or not hmac.compare_digest(expected, token):
            raise AccessDenied()
        return AdminView(self)

    def owner(self) -> "AdminView":
        """The owner's view for whoever can open the file itself (the local command line)."""
        return AdminView(self)

    def admin_token(self) -> str:
        """The admin token, for the owner working on the file locally."""
        return self._meta("admin_token") or ""

    def role_of(self, token: str | None) -> str | None:
        """``"admin"``, ``"rater"`` or ``None`` for a token, without raising."""
        try:
            self.admin(token)
            return "admin"
        except AccessDenied:
            pass
        try:
            self.rater(token)
            return "rater"
        except AccessDenied:
            return None

    # -- shared helpers ----------------------------------------------------------------
    def _item_ids(self) -> list[int]:
        with self._read() as conn:
            return [r["id"] for r in conn.execute("SELECT id FROM items ORDER BY id")]

    def _item_view(self, conn: sqlite3.Connection, item_id: int) -> ItemView | None:
        row = conn.execute(
            "SELECT i.*, c.instance_id, c.ruleset, c.turns_json FROM items i JOIN contexts c ON c.id = i.context_id WHERE i.id = ?",
            (item_id,),
        ).fetchone()
        if row is None:
            return None
        return ItemView(
            id=row["id"],
            kind=row["kind"],
            instance_id=row["instance_id"],
            ruleset=row["ruleset"],
            context=json.loads(row["turns_json"]),
            utterance=row["utterance"],
            checks=json.loads(row["checks_json"] or "[]"),
            utterance_b=row["utterance_b"],
            checks_b=json.loads(row["checks_b_json"]) if row["checks_b_json"] else None,
        )


ITEM_ID_MAX = 2**62
"""Largest item id a request may name; anything bigger (or not a whole number) is simply unknown."""


def item_id_of(value) -> int:
    """A whole-number item id in 1..``ITEM_ID_MAX``; anything else is an ``InvalidRating`` (never a crash)."""
    if isinstance(value, bool):
        raise InvalidRating(f"item {value!r} is not in this study")
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip()) if len(value.strip()) <= 20 else ITEM_ID_MAX + 1
    if isinstance(value, float) and value.is_integer() and abs(value) <= ITEM_ID_MAX:
        value = int(value)
    if not isinstance(value, int) or not 1 <= value <= ITEM_ID_MAX:
        raise InvalidRating(f"item {str(value)[:30]!r} is not in this study")
    return value


def _seconds(value) -> float | None:
    """Time spent on an item: a finite, non-negative number of seconds under a year, else not recorded."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and 0 <= value < 3.2e7 else None


def _order_for(seed: str, rater_id: int, item_ids: list[int]) -> list[int]:
    """The rater's own random order: fixed by study seed and rater, so it survives restarts."""
    order = list(item_ids)
    random.Random(f"{seed}:{rater_id}").shuffle(order)
    return order


def _check_score(name: str, value) -> int:
    if isinstance(value, bool) or value is None:
        raise InvalidRating(f"{name}: give a whole number from {SCORE_MIN} to {SCORE_MAX}")
    if isinstance(value, float):
        if not value.is_integer():
            raise InvalidRating(f"{name}={value}: give a whole number from {SCORE_MIN} to {SCORE_MAX}")
        value = int(value)
    if isinstance(value, str):
        if not value.strip().isascii() or not value.strip().isdigit():  # '²'.isdigit() is True
            raise InvalidRating(f"{name}={value!r}: give a whole number from {SCORE_MIN} to {SCORE_MAX}")
        value = int(value)
    if not isinstance(value, int) or not SCORE_MIN <= value <= SCORE_MAX:
        raise InvalidRating(f"{name}={value}: scores go from {SCORE_MIN} to {SCORE_MAX}")
    return value


class RaterView:
    """One rater's window on the study: their items in their order, their ratings only."""

    def __init__(self, study: Study, rater: Rater):
        self.study = study
        self.rater = rater

    @property
    def name(self) -> str:
        return self.rater.name

    def order(self) -> list[int]:
        return _order_for(self.study._meta("seed") or "0", self.rater.id, self.study._item_ids())

    def _mine(self, conn: sqlite3.Connection) -> dict[int, sqlite3.Row]:
        rows = conn.execute("SELECT * FROM ratings WHERE rater_id = ?", (self.rater.id,)).fetchall()
        return {r["item_id"]: r for r in rows}

    def progress(self) -> Progress:
        with self.study._read() as conn:
            total = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
            row = conn.execute(
                "SELECT SUM(skipped = 0), SUM(skipped = 1) FROM ratings WHERE rater_id = ?", (self.rater.id,)
            ).fetchone()
        return Progress(done=row[0] or 0, skipped=row[1] or 0, total=total)

    def next_item(self, after: int | None = None) -> ItemView | None:
        """The first item in this rater's order not yet answered; then skipped ones; else None.

        ``after``: an item just skipped, so the next skipped one is offered rather than it again.
        """
        order = self.order()
        with self.study._read() as conn:
            mine = self._mine(conn)
            for item_id in order:
                if item_id not in mine:
                    return self.study._item_view(conn, item_id)
            skipped = [i for i in order if mine[i]["skipped"]]
            if not skipped:
                return None
            if after in skipped and len(skipped) > 1:
                idx = skipped.index(after)
                skipped = skipped[idx + 1 :] + skipped[: idx + 1]
            return self.study._item_view(conn, skipped[0])

    def item(self, item_id: int) -> ItemView:
        item_id = item_id_of(item_id)
        with self.study._read() as conn:
            view = self.study._item_view(conn, item_id)
        if view is None:
            raise InvalidRating(f"item {item_id} is not in this study")
        return view

    def position(self, item_id: int) -> int:
        """1-based place of an item in this rater's order."""
        return self.order().index(item_id_of(item_id)) + 1

    def my_rating(self, item_id: int) -> dict | None:
        item_id = item_id_of(item_id)
        with self.study._read() as conn:
            row = conn.execute(
                "SELECT * FROM ratings WHERE rater_id = ? AND item_id = ?", (self.rater.id, item_id)
            ).fetchone()
        if row is None:
            return None
        return {
            "item_id": row["item_id"],
            **{c: row[c] for c in CRITERION_IDS},
            "choice": row["choice"],
            "skipped": bool(row["skipped"]),
        }

    def my_ratings(self) -> list[dict]:
        with self.study._read() as conn:
            ids = [r["item_id"] for r in conn.execute("SELECT item_id FROM ratings WHERE rater_id = ?", (self.rater.id,))]
        return [self.my_rating(i) for i in ids]

    def _store(self, item_id: int, *, kind: str, scores: dict | None = None, choice: str | None = None,
               skipped: bool = False, seconds: float | None = None) -> None:
        item_id = item_id_of(item_id)
        seconds = _seconds(seconds)
        now = time.time()
        scores = scores or {}
        with self.study._write() as conn:  # BEGIN IMMEDIATE: the checks below and the write are one transaction
            row = conn.execute("SELECT kind, condition FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise InvalidRating(f"item {item_id} is not in this study")
            if skipped:
                existing = conn.execute("SELECT skipped FROM ratings WHERE rater_id = ? AND item_id = ?",
                                        (self.rater.id, item_id)).fetchone()
                if existing is not None and not existing["skipped"]:
                    return  # already answered: a skip (even one racing the answer) must not erase it
            if not skipped and row["kind"] != kind:
                want = "pick a, b or tie" if row["kind"] == "ab" else "give the three scores"
                raise InvalidRating(f"item {item_id} is a {row['kind']} item: {want}")
            conn.execute(
                "INSERT INTO ratings (rater_id, item_id, condition, naturalness, groundedness, factual, choice, skipped, seconds, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (rater_id, item_id) DO UPDATE SET naturalness = excluded.naturalness,"
                " groundedness = excluded.groundedness, factual = excluded.factual, choice = excluded.choice,"
                " skipped = excluded.skipped, seconds = excluded.seconds, updated_at = excluded.updated_at",
                (
                    self.rater.id, item_id, row["condition"],
                    scores.get("naturalness"), scores.get("groundedness"), scores.get("factual"),
                    choice, int(skipped), seconds, now, now,
                ),
            )

    def submit(self, item_id: int, naturalness, groundedness, factual, *, seconds: float | None = None) -> None:
        """Store (or replace) this rater's three scores for a single-utterance item."""
        scores = {
            "naturalness": _check_score("naturalness", naturalness),
            "groundedness": _check_score("groundedness", groundedness),
            "factual": _check_score("factual", factual),
        }
        self._store(item_id, kind="score", scores=scores, seconds=seconds)

    def choose(self, item_id: int, choice: str, *, seconds: float | None = None) -> None:
        """Store this rater's pick for an A/B item: ``a``, ``b`` or ``tie``."""
        if not isinstance(choice, str):
            raise InvalidRating(f"choice {choice!r}: pick one of a, b, tie")
        choice = choice.strip().lower()
        if choice not in AB_CHOICES:
            raise InvalidRating(f"choice {choice!r}: pick one of a, b, tie")
        self._store(item_id, kind="ab", choice=choice, seconds=seconds)

    def skip(self, item_id: int) -> None:
        """Mark an item skipped; it comes back once every other item is answered."""
        self._store(item_id, kind="", skipped=True)  # checks for an answer inside the write transaction


RATER_NAME_MAX = 80


def check_rater_name(name) -> str:
    """A rater's name, stripped: printable, 1-80 characters (``StudyError`` otherwise)."""
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        raise StudyError("a rater needs a name, e.g. `vgm rate add-rater study.db alice`")
    if len(text) > RATER_NAME_MAX or not text.isprintable():
        raise StudyError(f"rater name {text[:RATER_NAME_MAX]!r} must be printable text of at most {RATER_NAME_MAX} characters")
    return text


def check_rater_names(names: list[str]) -> list[str]:
    """Names for a new study's raters: each valid and none given twice (case-insensitively)."""
    out, seen = [], {}
    for raw in names:
        name = check_rater_name(raw)
        key = name.casefold()
        if key in seen:
            raise StudyError(f"rater {name!r} is listed twice (as {seen[key]!r} too); give each rater once")
        seen[key] = name
        out.append(name)
    return out


class AdminView:
    """The study owner's view: raters and their links, every rating, the report data."""

    def __init__(self, study: Study):
        self.study = study

    def add_rater(self, name: str) -> Rater:
        name = check_rater_name(name)
        token = new_token()
        try:
            with self.study._write() as conn:
                cur = conn.execute(
                    "INSERT INTO raters (name, token, created_at) VALUES (?, ?, ?)", (name, token, time.time())
                )
        except sqlite3.IntegrityError:
            raise StudyError(f"a rater named {name!r} already exists in {self.study.path}; pick another name") from None
        return Rater(cur.lastrowid, name, token)

    def raters(self) -> list[dict]:
        with self.study._read() as conn:
            total = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
            rows = conn.execute(
                "SELECT r.id, r.name, r.token, COUNT(x.item_id) FILTER (WHERE x.skipped = 0) AS done,"
                " COUNT(x.item_id) FILTER (WHERE x.skipped = 1) AS skipped, MAX(x.updated_at) AS last"
                " FROM raters r LEFT JOIN ratings x ON x.rater_id = r.id GROUP BY r.id ORDER BY r.id"
            ).fetchall()
        return [
            {"name": r["name"], "token": r["token"], "done": r["done"], "skipped": r["skipped"], "total": total, "last": r["last"]}
            for r in rows
        ]

    def summary(self) -> dict:
        with self.study._read() as conn:
            n_items = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
            kinds = dict(conn.execute("SELECT kind, COUNT(*) FROM items GROUP BY kind").fetchall())
            n_ratings = conn.execute("SELECT COUNT(*) FROM ratings WHERE skipped = 0").fetchone()[0]
            conditions = sorted({r[0] for r in conn.execute("SELECT condition FROM items UNION SELECT condition_b FROM items WHERE condition_b IS NOT NULL")})
        return {
            "name": self.study.name,
            "items": n_items,
            "score_items": kinds.get("score", 0),
            "ab_items": kinds.get("ab", 0),
            "ratings": n_ratings,
            "conditions": conditions,
            "sources": json.loads(self.study._meta("sources") or "{}"),
        }

    def ratings(self, include_skipped: bool = False) -> list[RatingRow]:
        with self.study._read() as conn:
            rows = conn.execute(
                "SELECT x.*, r.name AS rater, i.kind, i.condition_b, c.instance_id FROM ratings x"
                " JOIN raters r ON r.id = x.rater_id JOIN items i ON i.id = x.item_id JOIN contexts c ON c.id = i.context_id"
                + ("" if include_skipped else " WHERE x.skipped = 0")
                + " ORDER BY x.created_at, x.rater_id, x.item_id"
            ).fetchall()
        return [
            RatingRow(
                rater=r["rater"], item_id=r["item_id"], instance_id=r["instance_id"], kind=r["kind"],
                condition=r["condition"], condition_b=r["condition_b"],
                scores={c: r[c] for c in CRITERION_IDS}, choice=r["choice"], skipped=bool(r["skipped"]),
                seconds=r["seconds"], created_at=r["created_at"], updated_at=r["updated_at"],
            )
            for r in rows
        ]
