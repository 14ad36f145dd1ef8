"""MiniLM vectors of the packs' example lines, kept on disk between runs.

The GM turn votes over every pack's example lines (several thousand, with the lines each pack
borrows from the others), and embedding them all takes 20-60 s on two cores: at the start of
every `vgm play` and every eval run. The lines rarely change, and a line's vector depends only
on its text and the model, so each is stored once under ``$VGM_CACHE_DIR/vectors.sqlite``,
keyed by a hash of both. ``VGM_NO_CACHE`` does not turn this off: it is for model answers,
and a stored vector is the very one MiniLM would compute again.

A store that cannot be opened or written (read-only home, a corrupt file) is skipped: the
vectors are computed as before, with one warning.
"""
from __future__ import annotations

import hashlib
import sqlite3
import threading
import warnings
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["embed_cached", "model_tag"]

_lock = threading.Lock()
_memo: dict[str, np.ndarray] = {}  # this process's vectors, by key
_broken: set[str] = set()  # stores found unusable in this process: warned once, then skipped


def model_tag() -> str:
    """Names the embedding model's files (path and size), so a new model never reads old vectors."""
    from .embeddings import minilm_files

    onnx, tok = minilm_files()
    return f"{onnx.name}:{onnx.stat().st_size}:{tok.stat().st_size}"


def _key(tag: str, text: str) -> str:
    return hashlib.sha1(f"{tag}\n{text}".encode("utf-8")).hexdigest()


def embed_cached(texts: list[str], embed: Callable[[list[str]], np.ndarray] | None = None,
                 path: Path | None = None) -> np.ndarray:
    """``embed(texts)``, reading each text's vector from the store when it is there."""
    from .embeddings import embed as minilm
    from .llm.cache import cache_dir

    embed = embed or minilm
    if not texts:
        return embed([])
    tag = model_tag()
    keys = [_key(tag, t) for t in texts]
    path = path or cache_dir() / "vectors.sqlite"
    with _lock:
        missing = [k for k in dict.fromkeys(keys) if k not in _memo]
        if missing:
            _memo.update(_read(path, missing))
        todo = {k: t for k, t in zip(keys, texts) if k not in _memo}
        if todo:
            fresh = embed(list(todo.values()))
            new = dict(zip(todo, fresh))
            _memo.update(new)
            _write(path, new)
        return np.stack([_memo[k] for k in keys])


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
    return db


def _read(path: Path, keys: list[str]) -> dict[str, np.ndarray]:
    from .embeddings import DIM  # lazy, as everywhere: importing it loads chromadb

    if str(path) in _broken or not path.exists():
        return {}
    found: dict[str, np.ndarray] = {}
    try:
        db = _connect(path)
        try:
            for start in range(0, len(keys), 500):  # SQLite caps the parameters of one statement
                chunk = keys[start:start + 500]
                rows = db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk)
                found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows
                             if len(blob) == DIM * 4)  # a torn row is computed again
        finally:
            db.close()
    except (sqlite3.Error, OSError) as exc:
        _give_up(path, exc)
    return found


def _write(path: Path, vectors: dict[str, np.ndarray]) -> None:
    if str(path) in _broken:
        return
    try:
        db = _connect(path)
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                               [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()])
        finally:
            db.close()
    except (sqlite3.Error, OSError) as exc:
        _give_up(path, exc)


def _give_up(path: Path, exc: Exception) -> None:
    _broken.add(str(path))
    warnings.warn(f"example-line vectors are not kept in {path} ({exc}); they are computed each run "
                  f"(set VGM_CACHE_DIR to a writable folder, or delete the file)", stacklevel=3)
