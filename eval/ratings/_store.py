"""A rating study on disk: one SQLite file in WAL mode, safe for many raters submitting at once.

Every read and write goes through a token: ``Study.rater(token)`` gives a view that can only
see and write that rater's own ratings, ``Study.admin(token)`` the owner's view. The rules
(scores 1-5, a known item, a choice of a/b/tie) are checked here and again by SQL ``CHECK``
constraints, so no interface (web page, HTTP, script) can store a bad rating.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import random
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ._criteria import AB_CHOICES, LEGACY_IDS, SCORE_MAX, SCORE_MIN, CriteriaSet, Criterion
from ._crowd import COMMENT_MAX, CrowdSettings, Participant, attention_passed
from ._design import Design, share
from ._errors import AccessDenied, EnrollmentRefused, InvalidRating, StudyError  # noqa: F401  (re-exported)

SCHEMA_VERSION = "3"
DEFAULT_BASE_URL = "http://127.0.0.1:7860"

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
    scores_json TEXT,
    PRIMARY KEY (rater_id, item_id),
    CHECK (skipped = 1 OR choice IS NOT NULL OR scores_json IS NOT NULL OR
           (naturalness IS NOT NULL AND groundedness IS NOT NULL AND factual IS NOT NULL))
);
"""

# Schema 2 (crowd studies) adds these columns; a schema-1 file gets them when opened.
_ADDED_COLUMNS = {
    "raters": [
        ("source", "TEXT NOT NULL DEFAULT 'invited' CHECK (source IN ('invited', 'enrolled'))"),
        ("participant_id", "TEXT"),  # the platform's id (PROLIFIC_PID, workerId, ...), recorded once
        ("platform_study_id", "TEXT"),
        ("session_id", "TEXT"),
        ("consented_at", "REAL"),
        ("completed_at", "REAL"),
        ("browser_secret", "TEXT"),  # sha256 of the secret this rater's browser got at enrollment (schema 3)
        ("dropped_at", "REAL"),  # a design study gave this silent rater's open items to others (schema 3)
    ],
    "items": [
        ("attention", "INTEGER NOT NULL DEFAULT 0 CHECK (attention IN (0, 1))"),
        ("expect_json", "TEXT"),  # an attention item's obvious answer
        ("metadata_json", "TEXT"),  # an items file's metadata for the line (schema 3); never shown to raters
    ],
    "ratings": [
        ("comment", f"TEXT CHECK (comment IS NULL OR length(comment) <= {COMMENT_MAX})"),
        # schema 3: a tie where both lines are bad (stored as choice 'tie', so schema-2 CHECKs still hold)
        ("both_bad", "INTEGER NOT NULL DEFAULT 0 CHECK (both_bad IN (0, 1))"),
        ("scores_json", "TEXT"),  # schema 3: the scores on the study's own criteria, {id: value}
    ],
}
_INDEXES = "CREATE UNIQUE INDEX IF NOT EXISTS raters_participant ON raters (participant_id) WHERE participant_id IS NOT NULL;"
# Schema 3: when the server first showed a rater an item; the only clock a time per item is read from.
_SERVED = ("CREATE TABLE IF NOT EXISTS served (rater_id INTEGER NOT NULL REFERENCES raters(id),"
           " item_id INTEGER NOT NULL REFERENCES items(id), served_at REAL NOT NULL, PRIMARY KEY (rater_id, item_id))")


# Schema 3, a design study (K ratings per item, M items per rater): who holds which item now, and
# which items a drop-out gave back.
_DESIGN_TABLES = (
    "CREATE TABLE IF NOT EXISTS assignments (rater_id INTEGER NOT NULL REFERENCES raters(id),"
    " item_id INTEGER NOT NULL REFERENCES items(id), assigned_at REAL NOT NULL, PRIMARY KEY (rater_id, item_id))",
    "CREATE INDEX IF NOT EXISTS assignments_item ON assignments (item_id)",
    "CREATE TABLE IF NOT EXISTS released (rater_id INTEGER NOT NULL, item_id INTEGER NOT NULL, released_at REAL NOT NULL)",
)


_ANSWERED = "EXISTS (SELECT 1 FROM ratings x WHERE x.rater_id = a.rater_id AND x.item_id = a.item_id AND x.skipped = 0)"


def _upgrade(conn: sqlite3.Connection) -> None:
    """Add the schema-2 columns a table lacks (inside the caller's transaction)."""
    for table, columns in _ADDED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        for name, decl in columns:
            if name not in have:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
    conn.execute(_INDEXES)
    conn.execute(_SERVED)
    for statement in _DESIGN_TABLES:
        conn.execute(statement)


@dataclass(frozen=True)
class Rater:
    id: int
    name: str
    token: str
    source: str = "invited"  # or "enrolled" through the open link
    participant_id: str | None = None
    secret: str | None = None  # the browser secret, only on the enrollment that issued it (never stored in clear)


@dataclass(frozen=True)
class Completion:
    """What the end page shows a participant who rated every item."""

    code: str | None
    finish_url: str | None
    total: int


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
    attention: bool = False
    attention_passed: bool | None = None  # for an attention item: gave its obvious answer
    comment: str | None = None
    participant_id: str | None = None
    length: int = 0  # characters of the line (of line A in an A/B item): for --control length
    length_b: int | None = None


def new_token() -> str:
    """An unguessable URL-safe token (128 bits)."""
    return secrets.token_urlsafe(16)


def _digest(secret: str) -> str:
    """What the file keeps of a browser secret: a copied study file cannot be used to resume anyone."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


# Meta keys written once at creation: read from the file once per ``Study`` object.
_FIXED_META = frozenset({"name", "seed", "admin_token", "crowd", "consent", "enroll_key", "base_url", "sources", "created_at",
                         "design", "criteria", "lang"})
_WRITE_LOCKS: dict[str, threading.Lock] = {}
_WRITE_LOCKS_GUARD = threading.Lock()


def _write_lock(path: Path) -> threading.Lock:
    """One lock per study file in this process: its writers queue here, not in SQLite's sleeping busy handler."""
    key = str(path.resolve())
    with _WRITE_LOCKS_GUARD:
        return _WRITE_LOCKS.setdefault(key, threading.Lock())


class Study:
    """A study file. Open it with ``Study.open(path)``; make one with ``Study.create``."""

    def __init__(self, path: str | Path, keep_open: bool = False):
        self.path = Path(path)
        self.keep_open = keep_open
        self._fixed: dict[str, str | None] = {}
        self._items: list[int] | None = None
        self._keeper: sqlite3.Connection | None = None
        self.clock = time.time  # every stored time comes from here; tests move it instead of sleeping

    # -- connections -------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        # One short-lived connection per operation: cheap in SQLite, and it keeps threads
        # (Gradio workers, HTTP handlers) from sharing a cursor. A server (``keep_open``) keeps one
        # idle connection beside them: closing the last connection to a WAL file checkpoints it
        # (6 ms and an fsync), which every write paid before. ``close()`` (also at exit) lets the
        # last checkpoint fold the WAL back into the study file.
        if self.keep_open and self._keeper is None:
            import atexit

            keeper = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            keeper.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # attaches it to the WAL; no lock stays
            self._keeper = keeper
            atexit.register(self.close)
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA foreign_keys = ON")
        # WAL + NORMAL: a commit survives a killed or restarted server (the WAL is in the OS's
        # hands at once); only a power cut could drop the last commits. FULL fsyncs every commit
        # and tripled p95 latency under 30 concurrent raters (bench/rating_load.py).
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def close(self) -> None:
        """Close the idle connection a server keeps (the study stays usable; the next call opens what it needs)."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # Threads of this process (a server's handlers) take turns on a lock first: under 200 raters at
        # once, SQLite's busy handler alone sleeps in growing steps and p95 latency went to seconds.
        # Other processes (the command line) still meet the 30 s busy timeout.
        with _write_lock(self.path), self._write_conn() as conn:
            yield conn

    @contextmanager
    def _write_conn(self) -> Iterator[sqlite3.Connection]:
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
        crowd: CrowdSettings | None = None,
        consent: str | None = None,
        base_url: str | None = None,
        design: Design | None = None,
        criteria: CriteriaSet | None = None,
        lang: str = "en",
    ) -> tuple["Study", str]:
        """Write a new study file; returns it and the owner's admin token.

        ``contexts``: ``{instance_id, ruleset, turns: [{speaker, text}]}``.
        ``items``: ``{kind, instance_id, condition, utterance, checks, [condition_b, utterance_b, checks_b],
        [attention, expect]}``.
        ``crowd``: open enrollment (``CrowdSettings``); ``consent``: a consent form (Markdown) every
        rater accepts before the first item; ``base_url``: where raters reach the app, for links;
        ``design``: K ratings per item, M items per rater (``_design``), instead of every rater every item;
        ``criteria``: what raters judge (``_criteria``; Tachikuma's three by default); ``lang``: the raters' language.
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
            _upgrade(conn)
            meta = {
                "schema": SCHEMA_VERSION,
                "name": name,
                "seed": str(seed),
                "admin_token": admin_token,
                "created_at": str(time.time()),
                "sources": json.dumps(sources or {}),
            }
            if crowd is not None:
                meta["crowd"] = crowd.to_json()
                meta["enroll_key"] = new_token()
            if consent:
                meta["consent"] = consent
            if base_url:
                meta["base_url"] = base_url.rstrip("/")
            if design is not None:
                meta["design"] = design.to_json()
            if criteria is not None:
                meta["criteria"] = criteria.to_json()
            meta["lang"] = lang
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
                    "INSERT INTO items (kind, context_id, condition, utterance, checks_json, condition_b, utterance_b,"
                    " checks_b_json, attention, expect_json, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        item["kind"],
                        ctx_ids[item["instance_id"]],
                        item["condition"],
                        item["utterance"],
                        json.dumps(item.get("checks") or [], ensure_ascii=False),
                        item.get("condition_b"),
                        item.get("utterance_b"),
                        json.dumps(item.get("checks_b") or [], ensure_ascii=False) if item["kind"] == "ab" else None,
                        int(bool(item.get("attention"))),
                        json.dumps(item["expect"]) if item.get("expect") else None,
                        json.dumps(item["metadata"], ensure_ascii=False) if item.get("metadata") else None,
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
    def open(cls, path: str | Path, keep_open: bool = False) -> "Study":
        """Open an existing study; a missing or foreign file fails with one line.

        ``keep_open``: for a long-running server, keep one idle connection so writes stay cheap.
        """
        path = Path(path)
        if not path.is_file():
            raise StudyError(f"{path}: no such study file; make one with `vgm rate create --from runs/A runs/B -o {path}`")
        study = cls(path, keep_open=keep_open)
        try:
            with study._read() as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is None:
            raise StudyError(f"{path}: not a rating study file; make one with `vgm rate create`")
        if row["value"] != SCHEMA_VERSION:
            study._upgrade_file(row["value"])
        return study

    def _upgrade_file(self, found: str) -> None:
        """Bring an older study file up to this schema (new columns only; no rating changes)."""
        try:
            with self._write() as conn:
                _upgrade(conn)
                conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
        except sqlite3.Error as exc:
            raise StudyError(f"{self.path}: a schema-{found} study that cannot be upgraded here ({exc}); "
                             "open it where the file is writable") from None

    # -- access ------------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        if key in self._fixed:
            return self._fixed[key]
        with self._read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        value = row["value"] if row else None
        if key in _FIXED_META:
            self._fixed[key] = value
        return value

    @property
    def name(self) -> str:
        return self._meta("name") or "study"

    def rater(self, token: str | None) -> "RaterView":
        """The view of the rater holding ``token``; any other token gets ``AccessDenied``."""
        if not token or not isinstance(token, str) or len(token) > 200:
            raise AccessDenied()
        with self._read() as conn:
            row = conn.execute("SELECT id, name, token, source, participant_id FROM raters WHERE token = ?", (token,)).fetchone()
        # compare_digest keeps the check constant-time once a row is found.
        if row is None or not hmac.compare_digest(row["token"], token):
            raise AccessDenied()
        return RaterView(self, _rater_of(row))

    # -- crowd: open enrollment, consent, links ------------------------------------------
    def crowd(self) -> CrowdSettings | None:
        """The study's crowd settings; None for a study whose raters are all invited by name."""
        return CrowdSettings.from_json(self._meta("crowd"))

    def consent_text(self) -> str | None:
        """The consent form (Markdown) raters accept before their first item, if the study has one."""
        return self._meta("consent")

    def enroll_key(self) -> str | None:
        """The secret in the open enrollment link (``/enroll/<key>``); None without ``--crowd``."""
        return self._meta("enroll_key")

    def check_enroll_key(self, key) -> CrowdSettings:
        """The crowd settings if ``key`` opens this study's enrollment, else ``EnrollmentRefused('closed')``."""
        expected = self.enroll_key()
        crowd = self.crowd()
        if not expected or crowd is None or not isinstance(key, str) or not hmac.compare_digest(expected, key[:200]):
            raise EnrollmentRefused("closed", "this enrollment link is not valid; check the link you were given")
        return crowd

    @staticmethod
    def _same_session(row: sqlite3.Row, who: Participant) -> bool:
        return row["session_id"] == who.session_id and row["platform_study_id"] == who.study_id

    @staticmethod
    def _proves(row: sqlite3.Row, who: Participant, secret: str | None) -> bool:
        """Whether the arrival proves it is this rater: the platform's session id recorded at enrollment,
        or the browser secret issued then. A participant id alone proves nothing (MTurk ids are public)."""
        if row["session_id"] and who.session_id and hmac.compare_digest(row["session_id"], who.session_id):
            return True
        return bool(secret and isinstance(secret, str) and row["browser_secret"]
                    and hmac.compare_digest(row["browser_secret"], _digest(secret[:200])))

    def _returning(self, conn: sqlite3.Connection, who: Participant, secret: str | None) -> Rater | None:
        """The rater this arrival already is, None for a newcomer; ``reused`` for a known id without proof."""
        if who.participant_id:
            row = conn.execute("SELECT * FROM raters WHERE participant_id = ?", (who.participant_id,)).fetchone()
            if row is None:
                return None
            if not self._same_session(row, who):
                raise EnrollmentRefused("reused", "this participant id already takes part in this study from another "
                                                  "session; go back to your first session's page")
            if not self._proves(row, who, secret):
                raise EnrollmentRefused("reused", "this participant id already takes part in this study; continue in the "
                                                  "browser you started in (its link keeps your place)")
            return _rater_of(row)
        if secret and isinstance(secret, str):
            row = conn.execute("SELECT * FROM raters WHERE browser_secret = ? AND participant_id IS NULL",
                               (_digest(secret[:200]),)).fetchone()
            return _rater_of(row) if row is not None else None
        return None

    def returning(self, key, who: Participant, secret: str | None = None) -> Rater | None:
        """The rater a returning participant already is, without writing (see ``enroll``)."""
        self.check_enroll_key(key)
        with self._read() as conn:
            return self._returning(conn, who, secret)

    def enroll(self, key, who: Participant, *, consent: bool = False, secret: str | None = None) -> tuple[Rater, bool]:
        """Issue a private rater token to a participant arriving by the open link; ``(rater, resumed)``.

        One write transaction decides everything. A returning participant gets their own rater back
        only with proof: the platform session id recorded at enrollment, or ``secret``, the browser
        secret a new rater receives (``Rater.secret``; the page keeps it in a cookie). A new one needs
        the consent form accepted (when there is one), a free place under the quota, and the link not
        to have enrolled ``enroll_rate`` people in the last minute. A refusal writes nothing.
        """
        crowd = self.check_enroll_key(key)
        needs_consent = bool(self.consent_text())
        now = self.clock()
        with self._write() as conn:
            back = self._returning(conn, who, secret)
            if back is not None:
                return back, True
            if needs_consent and consent is not True:
                raise EnrollmentRefused("consent", "to take part, read the consent form and tick 'I agree'")
            enrolled = conn.execute("SELECT COUNT(*) FROM raters WHERE source = 'enrolled'").fetchone()[0]
            if crowd.quota is not None and enrolled >= crowd.quota:
                raise EnrollmentRefused("full", f"all {crowd.quota} places in this study are taken; thank you for your interest")
            rate = crowd.enroll_rate
            if rate and conn.execute("SELECT COUNT(*) FROM raters WHERE source = 'enrolled' AND created_at > ?",
                                     (now - 60.0,)).fetchone()[0] >= rate:
                raise EnrollmentRefused("busy", "many people are joining this study right now; try again in a minute")
            number = enrolled + 1
            while conn.execute("SELECT 1 FROM raters WHERE name = ?", (f"P{number:04d}",)).fetchone():
                number += 1
            token, browser = new_token(), new_token()
            cur = conn.execute(
                "INSERT INTO raters (name, token, created_at, source, participant_id, platform_study_id, session_id, consented_at,"
                " browser_secret) VALUES (?, ?, ?, 'enrolled', ?, ?, ?, ?, ?)",
                (f"P{number:04d}", token, now, who.participant_id, who.study_id, who.session_id,
                 now if needs_consent else None, _digest(browser)),
            )
            rater = Rater(cur.lastrowid, f"P{number:04d}", token, "enrolled", who.participant_id, browser)
            self._on_new_rater(conn, rater.id, now)
        return rater, False

    # -- criteria and language --------------------------------------------------------------
    def criteria(self) -> CriteriaSet:
        """What raters judge in this study (Tachikuma's three factors for studies made without a file)."""
        if "_criteria" not in self.__dict__:
            self._criteria = CriteriaSet.from_json(self._meta("criteria"))
        return self._criteria

    def lang(self) -> str:
        """The raters' language (``--lang``); English for studies made before."""
        return self._meta("lang") or "en"

    def score_criteria(self) -> tuple[Criterion, ...]:
        """The score criteria in the raters' language."""
        return self.criteria().in_lang(self.lang())

    # -- designs: K ratings per item, M items per rater ------------------------------------
    def design(self) -> Design | None:
        """The study's design; None when every rater rates every item."""
        return Design.from_json(self._meta("design"))

    def _on_new_rater(self, conn: sqlite3.Connection, rater_id: int, now: float) -> None:
        """In a design study, give a new rater their share (inside the transaction that adds them):
        first the open items of raters who dropped out, then the least-held items. No share left is ``full``."""
        plan = self.design()
        if plan is None:
            return
        self._release_dropped(conn, plan, now)
        holders = {r[0]: r[1] for r in conn.execute(
            "SELECT i.id, COUNT(a.rater_id) FROM items i LEFT JOIN assignments a ON a.item_id = i.id"
            " WHERE i.attention = 0 GROUP BY i.id")}
        mine = share(holders, plan.per_item, plan.per_rater, random.Random(f"{self._meta('seed')}:share:{rater_id}"))
        if not mine:
            raise EnrollmentRefused("full", "all places in this study are taken (every item has all its raters); "
                                            "thank you for your interest")
        conn.executemany("INSERT INTO assignments (rater_id, item_id, assigned_at) VALUES (?, ?, ?)",
                         [(rater_id, item, now) for item in mine])

    def _release_dropped(self, conn: sqlite3.Connection, plan: Design, now: float) -> int:
        """Give back the unanswered items of every unfinished rater silent for ``plan.drop_after`` seconds.

        Their answers stay; the items they had not answered go to the next newcomers. Returns how many raters dropped.
        """
        stale = self._stale(conn, plan, now)
        for rater_id in stale:
            conn.execute(f"INSERT INTO released SELECT rater_id, item_id, ? FROM assignments a WHERE rater_id = ? AND NOT {_ANSWERED}",
                         (now, rater_id))
            conn.execute("DELETE FROM assignments WHERE rater_id = ? AND item_id IN (SELECT item_id FROM released WHERE rater_id = ?)",
                         (rater_id, rater_id))
            conn.execute("DELETE FROM ratings WHERE rater_id = ? AND skipped = 1 AND item_id IN"
                         " (SELECT item_id FROM released WHERE rater_id = ?)", (rater_id, rater_id))
            conn.execute("UPDATE raters SET dropped_at = ? WHERE id = ?", (now, rater_id))
        return len(stale)

    @staticmethod
    def _stale(conn: sqlite3.Connection, plan: Design, now: float) -> list[int]:
        """Unfinished raters silent (no serve, answer or arrival) for ``plan.drop_after`` seconds."""
        return [r[0] for r in conn.execute(
            f"SELECT r.id FROM raters r WHERE r.dropped_at IS NULL AND EXISTS (SELECT 1 FROM assignments a WHERE a.rater_id = r.id"
            f" AND NOT {_ANSWERED}) AND max(r.created_at, coalesce(r.consented_at, 0),"
            " coalesce((SELECT max(served_at) FROM served s WHERE s.rater_id = r.id), 0),"
            " coalesce((SELECT max(updated_at) FROM ratings x WHERE x.rater_id = r.id), 0)) < ?", (now - plan.drop_after,))]

    def full(self) -> bool:
        """No place for a newcomer: the quota is taken, or in a design study every item has its K raters
        and nobody has dropped out to free some."""
        crowd, plan = self.crowd(), self.design()
        with self._read() as conn:
            if crowd is not None and crowd.quota is not None:
                return conn.execute("SELECT COUNT(*) FROM raters WHERE source = 'enrolled'").fetchone()[0] >= crowd.quota
            if plan is None:
                return False
            open_slots = conn.execute(
                "SELECT COALESCE(SUM(max(0, ? - (SELECT COUNT(*) FROM assignments a WHERE a.item_id = i.id))), 0)"
                " FROM items i WHERE i.attention = 0", (plan.per_item,)).fetchone()[0]
            return open_slots == 0 and not self._stale(conn, plan, self.clock())

    def release_dropped(self) -> int:
        """Reassign now: the open items of raters silent past the design's limit go back to the pool."""
        plan = self.design()
        if plan is None:
            return 0
        with self._write() as conn:
            return self._release_dropped(conn, plan, self.clock())

    def _rater_items(self, conn: sqlite3.Connection, rater_id: int) -> list[int]:
        """The items a rater is to answer: every item, or in a design study their share plus the attention items."""
        if self.design() is None:
            return self._item_ids()
        return [r[0] for r in conn.execute(
            "SELECT item_id FROM assignments WHERE rater_id = ? UNION SELECT id FROM items WHERE attention = 1 ORDER BY 1",
            (rater_id,))]


    def base_url(self, explicit: str | None = None, served: str | None = None) -> str:
        """Where raters reach the app: ``explicit``, else the ``--base-url`` given at creation, else
        ``served`` (the address being served now), else the address ``vgm ui`` last served this study
        on, else ``http://127.0.0.1:7860``."""
        for value in (explicit, self._meta("base_url"), served, self._meta("served_url")):
            if value:
                return value.rstrip("/")
        return DEFAULT_BASE_URL

    def record_served_url(self, url: str) -> bool:
        """Remember where ``vgm ui`` serves this study, so ``vgm rate links`` prints the real host and port.

        False (and nothing else happens) when the file cannot be written, e.g. a read-only copy.
        """
        try:
            with self._write() as conn:
                conn.execute("INSERT INTO meta VALUES ('served_url', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                             (url.rstrip("/"),))
        except sqlite3.Error:
            return False
        return True

    def links(self, base_url: str | None = None) -> dict:
        """The admin link, the open enrollment link (with and without Prolific's parameters) and each rater's link."""
        base = self.base_url(base_url)
        key, crowd = self.enroll_key(), self.crowd()
        enroll = f"{base}/enroll/{key}" if key and crowd else None
        platform_link = None
        if enroll and crowd.platform == "prolific":
            platform_link = enroll + "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
        elif enroll:
            platform_link = enroll + "?PID=<participant id>"
        raters = [{**r, "link": f"{base}/?token={r['token']}"} for r in self.owner().raters()]
        return {"base_url": base, "admin": f"{base}/?token={self.admin_token()}", "enroll": enroll,
                "enroll_with_ids": platform_link, "platform": crowd.platform if crowd else None, "raters": raters}

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
        if self._items is None:  # items never change once the study is built
            with self._read() as conn:
                self._items = [r["id"] for r in conn.execute("SELECT id FROM items ORDER BY id")]
        return list(self._items)

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


def _rater_of(row: sqlite3.Row) -> Rater:
    return Rater(row["id"], row["name"], row["token"], row["source"], row["participant_id"])


def _scores_of(row: sqlite3.Row, ids: tuple[str, ...]) -> dict[str, int | None]:
    """A rating's scores by criterion: from ``scores_json``, else (studies made before) the three columns."""
    if row["scores_json"]:
        stored = json.loads(row["scores_json"])
        return {c: stored.get(c) for c in ids}
    return {c: row[c] if c in LEGACY_IDS else None for c in ids}


def _choice_of(row: sqlite3.Row) -> str | None:
    """The A/B answer as given: ``both_bad`` is stored as a tie with its flag."""
    return "both_bad" if row["choice"] == "tie" and row["both_bad"] else row["choice"]


def _comment(value) -> str | None:
    """A rater's optional note on an item: text up to ``COMMENT_MAX`` characters; empty is none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRating("comment: give text")
    text = value.replace("\r\n", "\n").strip()
    if len(text) > COMMENT_MAX:
        raise InvalidRating(f"comment: at most {COMMENT_MAX} characters (this one has {len(text)})")
    if any(not (ch.isprintable() or ch in "\n\t") for ch in text):
        raise InvalidRating("comment: plain text only")
    return text or None


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


def _check_score(name: str, value, low: int = 1, high: int = 5) -> int:
    if isinstance(value, bool) or value is None:
        raise InvalidRating(f"{name}: give a whole number from {low} to {high}")
    if isinstance(value, float):
        if not value.is_integer():
            raise InvalidRating(f"{name}={value}: give a whole number from {low} to {high}")
        value = int(value)
    if isinstance(value, str):
        if not value.strip().isascii() or not value.strip().isdigit():  # '²'.isdigit() is True
            raise InvalidRating(f"{name}={value!r}: give a whole number from {low} to {high}")
        value = int(value)
    if not isinstance(value, int) or not low <= value <= high:
        raise InvalidRating(f"{name}={value}: scores go from {low} to {high}")
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
        """This rater's items (all, or their share in a design study) in their own random order."""
        if self.study.design() is None:
            items = self.study._item_ids()
        else:
            with self.study._read() as conn:
                items = self.study._rater_items(conn, self.rater.id)
        return _order_for(self.study._meta("seed") or "0", self.rater.id, items)

    def _mine(self, conn: sqlite3.Connection) -> dict[int, sqlite3.Row]:
        rows = conn.execute("SELECT * FROM ratings WHERE rater_id = ?", (self.rater.id,)).fetchall()
        return {r["item_id"]: r for r in rows}

    def progress(self) -> Progress:
        with self.study._read() as conn:
            total = len(self.study._rater_items(conn, self.rater.id))
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
            chosen = next((i for i in order if i not in mine), None)
            if chosen is None:
                skipped = [i for i in order if mine[i]["skipped"]]
                if not skipped:
                    return None
                if after in skipped and len(skipped) > 1:
                    idx = skipped.index(after)
                    skipped = skipped[idx + 1 :] + skipped[: idx + 1]
                chosen = skipped[0]
            view = self.study._item_view(conn, chosen)
        self._served(chosen)
        return view

    def _served(self, item_id: int) -> None:
        """Note when the server first showed this rater the item: its time is measured from here."""
        with self.study._write() as conn:
            conn.execute("INSERT INTO served (rater_id, item_id, served_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                         (self.rater.id, item_id, self.study.clock()))

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
            **_scores_of(row, self.study.criteria().ids()),
            "choice": _choice_of(row),
            "skipped": bool(row["skipped"]),
            "comment": row["comment"],
        }

    def can_skip(self, item_id: int) -> bool:
        """Whether skipping leads anywhere: another item is still unanswered or skipped."""
        item_id = item_id_of(item_id)
        with self.study._read() as conn:
            answered = {r[0] for r in conn.execute("SELECT item_id FROM ratings WHERE rater_id = ? AND skipped = 0", (self.rater.id,))}
            return any(i != item_id and i not in answered for i in self.study._rater_items(conn, self.rater.id))

    # -- consent and completion ----------------------------------------------------------
    def needs_consent(self) -> bool:
        """True while the study has a consent form this rater has not accepted (no item is shown or stored before)."""
        if not self.study.consent_text():
            return False
        with self.study._read() as conn:
            row = conn.execute("SELECT consented_at FROM raters WHERE id = ?", (self.rater.id,)).fetchone()
        return row is None or row["consented_at"] is None

    def consent(self) -> None:
        """Record that this rater accepted the consent form (once; accepting again changes nothing)."""
        with self.study._write() as conn:
            conn.execute("UPDATE raters SET consented_at = ? WHERE id = ? AND consented_at IS NULL", (self.study.clock(), self.rater.id))

    def finished(self) -> bool:
        """Every item answered (skipped ones count only once answered)."""
        p = self.progress()
        return p.done >= p.total

    def dropped(self) -> bool:
        """In a design study: this rater fell silent past the limit and their open items went to others."""
        with self.study._read() as conn:
            return conn.execute("SELECT dropped_at FROM raters WHERE id = ?", (self.rater.id,)).fetchone()[0] is not None

    def completion(self) -> Completion | None:
        """The end page's code and link, once every item is answered; None before, and None for a drop-out."""
        if not self.finished() or self.dropped():
            return None
        crowd = self.study.crowd()
        return Completion(crowd.completion_code if crowd else None, crowd.finish_url() if crowd else None, self.progress().total)

    def complete(self) -> Completion:
        """Mark this rater's session complete and return the code and link for the end page.

        Refused with ``EnrollmentRefused('unfinished')`` (and nothing written) while any item is
        unanswered or only skipped, and with ``timed_out`` for a design study's drop-out (their
        unanswered items went to others, so what is left of their share is not the whole task);
        completing twice keeps the first time.
        """
        with self.study._write() as conn:
            if conn.execute("SELECT dropped_at FROM raters WHERE id = ?", (self.rater.id,)).fetchone()[0] is not None:
                raise EnrollmentRefused("timed_out", "your time ran out and your remaining items went to other "
                                                     "participants; the answers you gave are kept")
            total = len(self.study._rater_items(conn, self.rater.id))
            done = conn.execute("SELECT COUNT(*) FROM ratings WHERE rater_id = ? AND skipped = 0", (self.rater.id,)).fetchone()[0]
            if done < total:
                left = total - done
                raise EnrollmentRefused("unfinished", f"{left} item{'s' if left != 1 else ''} still to rate; "
                                                      "the completion code comes after the last one")
            conn.execute("UPDATE raters SET completed_at = ? WHERE id = ? AND completed_at IS NULL", (self.study.clock(), self.rater.id))
        crowd = self.study.crowd()
        return Completion(crowd.completion_code if crowd else None, crowd.finish_url() if crowd else None, total)

    def my_ratings(self) -> list[dict]:
        with self.study._read() as conn:
            ids = [r["item_id"] for r in conn.execute("SELECT item_id FROM ratings WHERE rater_id = ?", (self.rater.id,))]
        return [self.my_rating(i) for i in ids]

    def _store(self, item_id: int, *, kind: str, scores: dict | None = None, choice: str | None = None,
               skipped: bool = False, comment: str | None = None) -> None:
        item_id = item_id_of(item_id)
        comment = _comment(comment)
        scores = scores or {}
        with self.study._write() as conn:  # BEGIN IMMEDIATE: the checks below and the write are one transaction
            now = self.study.clock()
            if conn.execute("SELECT 1 FROM meta WHERE key = 'consent'").fetchone() and conn.execute(
                    "SELECT consented_at FROM raters WHERE id = ?", (self.rater.id,)).fetchone()[0] is None:
                raise EnrollmentRefused("consent", "accept the consent form first (open /consent with your link's token)")
            row = conn.execute("SELECT kind, condition FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise InvalidRating(f"item {item_id} is not in this study")
            self._check_assigned(conn, item_id)
            if skipped:
                existing = conn.execute("SELECT skipped FROM ratings WHERE rater_id = ? AND item_id = ?",
                                        (self.rater.id, item_id)).fetchone()
                if existing is not None and not existing["skipped"]:
                    return  # already answered: a skip (even one racing the answer) must not erase it
                # a skipped item is timed afresh when it comes back
                conn.execute("DELETE FROM served WHERE rater_id = ? AND item_id = ?", (self.rater.id, item_id))
            if not skipped and row["kind"] != kind:
                want = "pick a, b, tie or both_bad" if row["kind"] == "ab" else "give the scores"
                raise InvalidRating(f"item {item_id} is a {row['kind']} item: {want}")
            seconds = None if skipped else self._seconds_on(conn, item_id, now)
            legacy = self.study.criteria().legacy()  # the three factors on 1-5 also fill their own columns
            conn.execute(
                "INSERT INTO ratings (rater_id, item_id, condition, naturalness, groundedness, factual, choice, skipped, seconds,"
                " created_at, updated_at, comment, both_bad, scores_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (rater_id, item_id) DO UPDATE SET naturalness = excluded.naturalness,"
                " groundedness = excluded.groundedness, factual = excluded.factual, choice = excluded.choice,"
                " skipped = excluded.skipped, seconds = coalesce(ratings.seconds, excluded.seconds),"
                " updated_at = excluded.updated_at, comment = excluded.comment, both_bad = excluded.both_bad,"
                " scores_json = excluded.scores_json",
                (
                    self.rater.id, item_id, row["condition"],
                    *(scores.get(c) if legacy else None for c in LEGACY_IDS),
                    "tie" if choice == "both_bad" else choice, int(skipped), seconds, now, now, comment, int(choice == "both_bad"),
                    json.dumps(scores) if scores else None,
                ),
            )

    def _check_assigned(self, conn: sqlite3.Connection, item_id: int) -> None:
        """In a design study, refuse an item that is not in this rater's share (nobody rates past K)."""
        if self.study.design() is not None and item_id not in self.study._rater_items(conn, self.rater.id):
            raise InvalidRating(f"item {item_id} is not one of your items")

    def _seconds_on(self, conn: sqlite3.Connection, item_id: int, now: float) -> float | None:
        """Seconds this rater spent on an item, by the server's clock: since the item was served, or, for an
        answer to an item never served (a script posting ids), since the rater's previous answer or arrival.
        Whatever a client says about its own time is never read."""
        row = conn.execute("SELECT served_at FROM served WHERE rater_id = ? AND item_id = ?", (self.rater.id, item_id)).fetchone()
        if row is not None:
            since = row["served_at"]
        else:
            since = conn.execute(
                "SELECT max(coalesce((SELECT max(updated_at) FROM ratings WHERE rater_id = r.id), 0),"
                " coalesce(r.consented_at, 0), r.created_at) FROM raters r WHERE r.id = ?", (self.rater.id,)).fetchone()[0]
        return _seconds(now - since) if since is not None else None

    def submit(self, item_id: int, *values, comment: str | None = None) -> None:
        """Store (or replace) this rater's scores for a single-line item, one value per criterion in the
        study's order (naturalness, groundedness, factual by default), with an optional comment.

        The time spent is the server's: from when ``next_item`` served the item to now."""
        ids = self.study.criteria().ids()
        if len(values) != len(ids):
            raise InvalidRating(f"give {len(ids)} scores ({', '.join(ids)}), not {len(values)}")
        self.rate(item_id, dict(zip(ids, values)), comment=comment)

    def rate(self, item_id: int, scores: dict, *, comment: str | None = None) -> None:
        """Store (or replace) this rater's scores ``{criterion id: value}``; every criterion on its own scale."""
        if not isinstance(scores, dict):
            raise InvalidRating("scores: give {criterion: value}")
        criteria = self.study.criteria()
        unknown = sorted(set(scores) - set(criteria.ids()))
        if unknown:
            raise InvalidRating(f"{unknown[0][:40]!r} is not a criterion of this study ({', '.join(criteria.ids())})")
        checked = {c.id: _check_score(c.id, scores.get(c.id), c.low, c.high) for c in self.study.score_criteria()}
        self._store(item_id, kind="score", scores=checked, comment=comment)

    def choose(self, item_id: int, choice: str, *, comment: str | None = None) -> None:
        """Store this rater's pick for an A/B item: ``a``, ``b``, ``tie`` or ``both_bad``, with an optional comment."""
        if not isinstance(choice, str):
            raise InvalidRating(f"choice {choice!r}: pick one of a, b, tie, both_bad")
        choice = choice.strip().lower().replace(" ", "_")
        if choice not in AB_CHOICES:
            raise InvalidRating(f"choice {choice!r}: pick one of a, b, tie, both_bad")
        self._store(item_id, kind="ab", choice=choice, comment=comment)

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
                now = self.study.clock()
                cur = conn.execute("INSERT INTO raters (name, token, created_at) VALUES (?, ?, ?)", (name, token, now))
                self.study._on_new_rater(conn, cur.lastrowid, now)
        except sqlite3.IntegrityError:
            raise StudyError(f"a rater named {name!r} already exists in {self.study.path}; pick another name") from None
        except EnrollmentRefused:
            raise StudyError(f"{self.study.path}: every item already has its {self.study.design().per_item} rater(s); "
                             f"{name!r} was not added") from None
        return Rater(cur.lastrowid, name, token)

    def raters(self) -> list[dict]:
        with self.study._read() as conn:
            total = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
            shares = {} if self.study.design() is None else dict(conn.execute(
                "SELECT r.id, (SELECT COUNT(*) FROM assignments a WHERE a.rater_id = r.id) FROM raters r"))
            n_attention = conn.execute("SELECT COUNT(*) FROM items WHERE attention = 1").fetchone()[0]
            rows = conn.execute(
                "SELECT r.*, COUNT(x.item_id) FILTER (WHERE x.skipped = 0) AS done,"
                " COUNT(x.item_id) FILTER (WHERE x.skipped = 1) AS skipped, MAX(x.updated_at) AS last"
                " FROM raters r LEFT JOIN ratings x ON x.rater_id = r.id GROUP BY r.id ORDER BY r.id"
            ).fetchall()
        return [
            {"name": r["name"], "token": r["token"], "done": r["done"], "skipped": r["skipped"], "last": r["last"],
             "total": total if r["id"] not in shares else shares[r["id"]] + n_attention, "dropped_at": r["dropped_at"],
             "source": r["source"], "participant_id": r["participant_id"], "study_id": r["platform_study_id"],
             "session_id": r["session_id"], "created_at": r["created_at"], "consented_at": r["consented_at"],
             "completed_at": r["completed_at"]}
            for r in rows
        ]

    def summary(self) -> dict:
        with self.study._read() as conn:
            n_items = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
            kinds = dict(conn.execute("SELECT kind, COUNT(*) FROM items GROUP BY kind").fetchall())
            n_ratings = conn.execute("SELECT COUNT(*) FROM ratings WHERE skipped = 0").fetchone()[0]
            conditions = sorted({r[0] for r in conn.execute(
                "SELECT condition FROM items WHERE attention = 0 UNION SELECT condition_b FROM items"
                " WHERE condition_b IS NOT NULL AND attention = 0")})
            n_attention = conn.execute("SELECT COUNT(*) FROM items WHERE attention = 1").fetchone()[0]
            enrolled = conn.execute("SELECT COUNT(*) FROM raters WHERE source = 'enrolled'").fetchone()[0]
            completed = conn.execute("SELECT COUNT(*) FROM raters WHERE completed_at IS NOT NULL").fetchone()[0]
            finished = conn.execute(
                "SELECT COUNT(*) FROM (SELECT rater_id FROM ratings WHERE skipped = 0 GROUP BY rater_id HAVING COUNT(*) >= ?)",
                (n_items,)).fetchone()[0] if n_items else 0
        plan = self.study.design()
        if plan is not None:
            finished = sum(1 for r in self.raters() if r["done"] >= r["total"] and not r["dropped_at"])
        crowd = self.study.crowd()
        return {
            "name": self.study.name,
            "items": n_items,
            "score_items": kinds.get("score", 0),
            "ab_items": kinds.get("ab", 0),
            "ratings": n_ratings,
            "conditions": conditions,
            "attention_items": n_attention,
            "sources": json.loads(self.study._meta("sources") or "{}"),
            "crowd": None if crowd is None else crowd.platform,
            "quota": None if crowd is None else crowd.quota,
            "enrolled": enrolled,
            "completed": completed,  # took the completion code (the end page or /complete)
            "finished": finished,  # answered every item
            "consent": bool(self.study.consent_text()),
            "design": None if plan is None else {"per_item": plan.per_item, "per_rater": plan.per_rater,
                                                 "quota": plan.quota(n_items - n_attention), "drop_after_s": plan.drop_after},
        }

    def coverage(self) -> dict:
        """A design study's coverage: per item how many raters hold it and how many answered, against K;
        and how many items drop-outs gave back. Empty for a study where every rater rates every item."""
        plan = self.study.design()
        if plan is None:
            return {}
        with self.study._read() as conn:
            rows = conn.execute(
                "SELECT i.id, (SELECT COUNT(*) FROM assignments a WHERE a.item_id = i.id) AS held,"
                " (SELECT COUNT(*) FROM ratings x WHERE x.item_id = i.id AND x.skipped = 0) AS rated"
                " FROM items i WHERE i.attention = 0 ORDER BY i.id").fetchall()
            released = conn.execute("SELECT COUNT(*) FROM released").fetchone()[0]
            dropped = conn.execute("SELECT COUNT(*) FROM raters WHERE dropped_at IS NOT NULL").fetchone()[0]
        rated = [r["rated"] for r in rows]
        held = [r["held"] for r in rows]
        return {
            "per_item": plan.per_item, "per_rater": plan.per_rater, "items": len(rows),
            "quota": plan.quota(len(rows)),
            "complete": sum(n >= plan.per_item for n in rated),
            "rated": {str(k): rated.count(k) for k in sorted(set(rated))},  # ratings per item -> how many items
            "held": {str(k): held.count(k) for k in sorted(set(held))},
            "over": sum(n > plan.per_item for n in rated),
            "reassigned": released, "dropped_raters": dropped,
            "items_below": [r["id"] for r in rows if r["rated"] < plan.per_item][:50],
        }

    def ratings(self, include_skipped: bool = False) -> list[RatingRow]:
        ids = self.study.criteria().ids()
        with self.study._read() as conn:
            rows = conn.execute(
                "SELECT x.*, r.name AS rater, r.participant_id, i.kind, i.condition_b, i.attention, i.expect_json,"
                " length(i.utterance) AS length, length(i.utterance_b) AS length_b, c.instance_id FROM ratings x"
                " JOIN raters r ON r.id = x.rater_id JOIN items i ON i.id = x.item_id JOIN contexts c ON c.id = i.context_id"
                + ("" if include_skipped else " WHERE x.skipped = 0")
                + " ORDER BY x.created_at, x.rater_id, x.item_id"
            ).fetchall()
        return [
            RatingRow(
                rater=r["rater"], item_id=r["item_id"], instance_id=r["instance_id"], kind=r["kind"],
                condition=r["condition"], condition_b=r["condition_b"],
                scores=_scores_of(r, ids), choice=_choice_of(r), skipped=bool(r["skipped"]),
                seconds=r["seconds"], created_at=r["created_at"], updated_at=r["updated_at"],
                attention=bool(r["attention"]),
                attention_passed=None if r["skipped"] or not r["attention"] else attention_passed(
                    json.loads(r["expect_json"] or "null"), _scores_of(r, ids), _choice_of(r)),
                comment=r["comment"], participant_id=r["participant_id"], length=r["length"] or 0, length_b=r["length_b"],
            )
            for r in rows
        ]
