"""One MOE run folder: the only code that reads or writes one.

A run folder holds::

    run.json           what ran: pipeline (resolved chain), model, data path and hash, limit, prompting, ...
    predictions.jsonl  one line per attempt at an instance: id, prediction, gold, steps, usage, latency_s, error
    metrics.json       the numbers the report computed from predictions.jsonl
    .lock              present while a writer works in the folder (its pid and host)

It cannot be corrupted by the things that happen to long runs:

* **Append only.** A finished instance is one ``write`` of one line; nothing is ever rewritten
  in place. A retried instance (one that errored) gets a new line, and the last line of an id
  wins. ``run.json`` and ``metrics.json`` are written to a temporary file and ``os.replace``d.
* **Torn tails.** A kill can cut the last line short, even inside a multi-byte UTF-8
  character. Readers drop that line with a note; a writer first cuts the file back to its last
  whole line, so the next append starts on a fresh line.
* **One writer.** ``writing()`` takes the folder's lock file; a second writer gets a one-line
  error naming the pid. A lock left by a killed process (its pid is gone) is taken over.
* **Same run or refuse.** Resuming compares ``run.json`` (pipeline, data hash, limit, model,
  prompting) with the request; a mismatch is a one-line error, never a silent mix.

Errors are results: ``latest()`` keeps errored instances (with their ``error``), so the
report can count them; ``done_ids()`` leaves them out, so a rerun retries them.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rulesets import FileProblem, VgmError, read_jsonl, write_atomic

from .dataset import data_path  # a run.json may name "sample": the shipped sample

PREDICTIONS = "predictions.jsonl"
META = "run.json"
METRICS = "metrics.json"
LOCK = ".lock"
DATA_KEYS = ("data", "data_path", "dataset", "data_file")  # where run.json (or an older one) names its data
# Keys of run.json that must match for a resume to continue the same run.
RESUME_KEYS = ("pipeline", "data_hash", "limit", "model", "prompting", "lang", "temperature", "seed")


class RunFolderError(VgmError):
    """A run folder that cannot be read or written as asked; the message says how to fix it."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def file_hash(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes, read in chunks (a resume must be over the same data)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def read_json_lines(path: Path, notes: list[str] | None = None) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)`` for each line of a predictions file, streaming.

    The one place a run folder's JSON Lines are decoded, through the shared reader
    (``rulesets.read_jsonl``): a last line cut by a kill (possibly inside a UTF-8 character)
    is dropped with a note in ``notes``; a bad line anywhere else is a ``RunFolderError``
    naming ``file:line``.
    """
    if not path.is_file():
        return
    reader = read_jsonl(path, on_torn=(notes.append if notes is not None else "ignore"), what="predictions file")
    try:
        for number, value in reader.numbered():
            if not isinstance(value.get("id"), str):
                raise RunFolderError(f"{path}:{number}: not a prediction record (needs a string 'id'); remove that line (its instance runs again on resume)")
            yield number, value
    except FileProblem as problem:
        raise RunFolderError(f"{problem} (or remove that line: its instance runs again on resume)") from None


class RunFolder:
    """A run folder on disk: its metadata, its records, its errors, and the one way to write it.

    Reading never changes the folder. ``writing(config)`` is the only writer::

        with RunFolder("runs/tbs").writing(config) as folder:
            folder.append(record)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.notes: list[str] = []  # torn lines dropped while reading, for the report to show
        self._handle = None

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    # --- paths ---------------------------------------------------------------------------

    @property
    def predictions_path(self) -> Path:
        return self.path / PREDICTIONS

    @property
    def meta_path(self) -> Path:
        return self.path / META

    @property
    def metrics_path(self) -> Path:
        return self.path / METRICS

    @property
    def lock_path(self) -> Path:
        return self.path / LOCK

    @property
    def name(self) -> str:
        """The pipeline's name from run.json, else the folder's name."""
        try:
            return str(self.meta().get("pipeline") or self.path.name)
        except RunFolderError:
            return self.path.name

    def is_run(self) -> bool:
        return self.meta_path.is_file()

    # --- reading ---------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """``run.json`` as a dict; a missing or broken file is one line."""
        if not self.meta_path.is_file():
            raise RunFolderError(f"{self.path}: not a MOE run folder (no run.json); make one with `vgm moe run`")
        try:
            value = json.loads(self.meta_path.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):  # ValueError: bad JSON, or an int too long to read
            raise RunFolderError(f"{self.meta_path}: not valid JSON (cut short?); delete the folder to start over, or use another -o") from None
        if not isinstance(value, dict):
            raise RunFolderError(f"{self.meta_path}: expected a JSON object; delete the folder to start over, or use another -o")
        return value

    def data_file(self) -> Path:
        """The data file the run was made on (run.json's ``data``), found as recorded or beside the folder."""
        meta = self.meta()
        for key in DATA_KEYS:
            value = meta.get(key)
            if isinstance(value, dict):
                value = value.get("path")
            if isinstance(value, str) and value:
                for candidate in (data_path(value), self.path / value, self.path.parent / value):
                    if candidate.is_file():
                        return candidate
                raise RunFolderError(f"{self.meta_path}: data file {value!r} not found; run from the folder the run was made in")
        raise RunFolderError(f"{self.meta_path}: no data path (key 'data'); re-run with `vgm moe run` to record it")

    def records(self) -> Iterator[dict]:
        """Every record in file order (an id retried after an error appears more than once)."""
        for _, record in read_json_lines(self.predictions_path, self.notes):
            yield record

    def latest(self) -> dict[str, dict]:
        """The last record of each id, in first-seen order: what the run's result is, errors included."""
        by_id: dict[str, dict] = {}
        for record in self.records():
            by_id[record["id"]] = record
        return by_id

    def answered(self) -> dict[str, dict]:
        """Latest records without an error."""
        return {iid: r for iid, r in self.latest().items() if not r.get("error")}

    def errors(self) -> dict[str, str]:
        """id → error message of every instance whose latest attempt failed."""
        return {iid: str(r["error"]) for iid, r in self.latest().items() if r.get("error")}

    def done_ids(self) -> set[str]:
        """Ids finished without an error (a resume skips them); keeps only the ids in memory."""
        state: dict[str, bool] = {}
        for record in self.records():
            state[record["id"]] = not record.get("error")
        return {iid for iid, ok in state.items() if ok}

    def metrics(self) -> dict[str, Any] | None:
        """The saved ``metrics.json``, or None when missing or unreadable (the report rebuilds it)."""
        try:
            value = json.loads(self.metrics_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None

    def write_metrics(self, metrics: dict[str, Any]) -> None:
        write_atomic(self.metrics_path, json.dumps(metrics, indent=2))

    # --- writing ---------------------------------------------------------------------------

    @contextmanager
    def writing(self, config: dict[str, Any]):
        """Lock the folder, check or start ``run.json``, cut a torn tail, and open predictions for appending.

        On leaving, ``run.json`` gets ``finished`` (only if the block ended normally) and the lock is released.
        """
        check_writable(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        try:
            self._start(config)
            self._cut_torn_tail()
            self._handle = self.predictions_path.open("a", encoding="utf-8")
            ok = False
            try:
                yield self
                ok = True
            finally:
                self._handle.close()
                self._handle = None
                if ok:
                    meta = self.meta()
                    meta["finished"] = now()
                    write_atomic(self.meta_path, json.dumps(meta, indent=2, ensure_ascii=False))
        finally:
            self._unlock()

    def append(self, record: dict[str, Any]) -> None:
        """Add one finished attempt as one line, flushed at once (a kill loses at most the line being written)."""
        if self._handle is None:
            raise RuntimeError("RunFolder.append outside `with folder.writing(config)`")
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()

    def _start(self, config: dict[str, Any]) -> None:
        if self.meta_path.is_file():
            old = self.meta()
            for key in RESUME_KEYS:
                if key in old and key in config and old[key] != config[key]:
                    raise RunFolderError(
                        f"{self.path} holds a run with {key}={old[key]!r}, not {config[key]!r}; "
                        f"choose another -o folder, or rerun with the same settings to resume"
                    )
            if "data_hash" not in old and old.get("data") not in (None, config.get("data")):
                raise RunFolderError(
                    f"{self.path} holds a run with data={old.get('data')!r}, not {config.get('data')!r}; "
                    f"choose another -o folder, or rerun with the same settings to resume"
                )
            config = {**old, **config, "started": old.get("started", config.get("started")), "resumed": [*old.get("resumed", []), now()]}
        elif self.predictions_path.is_file() and self.predictions_path.stat().st_size:
            raise RunFolderError(f"{self.path} has predictions but no run.json, so it cannot be resumed safely; use another -o folder")
        write_atomic(self.meta_path, json.dumps({**config, "finished": None}, indent=2, ensure_ascii=False))

    def _cut_torn_tail(self) -> None:
        """Cut a torn last line off predictions.jsonl (only ever under the lock), so appends start on a fresh line."""
        path = self.predictions_path
        if not path.is_file():
            return
        reader = read_jsonl(path, on_torn="ignore", what="predictions file")
        try:
            for _ in reader.numbered():
                pass
        except FileProblem as problem:
            raise RunFolderError(f"{problem} (or remove that line: its instance runs again on resume)") from None
        size = path.stat().st_size
        if reader.torn is not None:
            self.notes.append(f"{path}:{reader.torn}: cut a torn last line ({size - reader.good_bytes} bytes) before resuming; its instance runs again")
            os.truncate(path, reader.good_bytes)
        elif size:
            with path.open("rb") as handle:
                handle.seek(size - 1)
                ends_clean = handle.read(1) == b"\n"
            if not ends_clean:
                with path.open("ab") as handle:
                    handle.write(b"\n")

    def _lock(self) -> None:
        me = f"{os.getpid()} {socket.gethostname()}"
        for _ in range(2):
            try:
                fd = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = _lock_holder(self.lock_path)
                if holder is None:  # stale: its process is gone
                    try:
                        self.lock_path.unlink()
                    except FileNotFoundError:
                        pass
                    continue
                raise RunFolderError(
                    f"{self.path} is in use by another run (pid {holder}); wait for it to finish, "
                    f"or delete {self.lock_path} if no run is going"
                ) from None
            with os.fdopen(fd, "w") as handle:
                handle.write(me)
            return
        raise RunFolderError(f"{self.path}: could not take the lock {self.lock_path}; delete it if no run is going")

    def _unlock(self) -> None:
        try:
            if self.lock_path.read_text().split(" ")[0] == str(os.getpid()):
                self.lock_path.unlink()
        except (OSError, IndexError):
            pass


def _lock_holder(lock: Path) -> str | None:
    """The pid holding ``lock``, or None when that process is gone (a killed run's lock)."""
    try:
        pid_text, _, host = lock.read_text().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return None  # empty or unreadable: a writer killed between create and write
    if host and host != socket.gethostname():
        return f"{pid} on {host}"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return str(pid)
    return str(pid)


def check_writable(path: str | Path) -> None:
    """Refuse, before anything is written, an output that is a file or lies in a folder we cannot write."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise RunFolderError(f"-o {path}: is a file, not a folder; give a folder for the run")
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise RunFolderError(f"-o {path}: {probe} is a file, not a folder; give a folder for the run")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise RunFolderError(f"-o {path}: cannot write in {probe}; choose a folder you can write to")


def find_runs(paths: list[str | Path]) -> list[RunFolder]:
    """Run folders among ``paths``: a folder with run.json, or the run folders inside one."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if (path / META).is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(p.parent for p in path.glob(f"*/{META}"))
        elif not path.exists():
            raise RunFolderError(f"{path}: no such folder; give run folders (runs/NAME) or a compare folder")
        else:
            raise RunFolderError(f"{path}: is a file; give run folders (runs/NAME) or a compare folder")
    if not found:
        raise RunFolderError(f"no run folders (with run.json) in {', '.join(map(str, paths))}; run `vgm moe run` or `vgm moe compare` first")
    return [RunFolder(p) for p in dict.fromkeys(found)]


__all__ = ["RunFolder", "RunFolderError", "find_runs", "file_hash", "write_atomic", "check_writable", "read_json_lines", "RESUME_KEYS"]
