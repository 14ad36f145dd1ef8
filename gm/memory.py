"""Long-session memory: every turn and the scenario's notes in a chromadb collection, recalled by meaning.

A small model can read only a few thousand tokens, but a session runs for hundreds of turns.
The GM keeps the recent turns verbatim and asks memory for the older lines that matter to
what a player just said, trimmed to a token budget.

chromadb runs embedded (``PersistentClient`` in a folder, or in memory), one collection per
session; the embedding function is the packaged MiniLM (``pipelines.embeddings``), never
chromadb's default, which downloads a model at first use.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

from pydantic import BaseModel

from pipelines.records import Turn
from rulesets import VgmError

__all__ = ["Memory", "Memo", "count_tokens"]


def count_tokens(text: str) -> int:
    """Tokens as the models layer counts them (tiktoken); a character estimate until it is there."""
    try:
        from pipelines.llm.tokens import count_tokens as _count  # the models layer (issue #3)
    except ImportError:
        return max(1, len(text) // 4)
    try:
        return int(_count(text))
    except Exception:  # an encoding that cannot load offline must not stop play
        return max(1, len(text) // 4)


class Memo(BaseModel):
    """One recalled line: what it says, where it came from, and how close it was to the question."""

    text: str
    kind: str  # "turn" or "note"
    index: int | None = None  # position in the session log, for turns
    distance: float


def _collection_name(session_id: str) -> str:
    # chromadb names: 3-512 chars of [a-zA-Z0-9._-], starting and ending alphanumeric.
    name = re.sub(r"[^a-zA-Z0-9._-]+", "-", f"session-{session_id}")[:500].strip("-._")
    return name if len(name) >= 3 else f"session-{name}x"


class Memory:
    """The memory of one session.

    Args:
        session_id: names the collection (one per session).
        path: a folder for a persistent store; ``None`` keeps it in memory (tests).
        embedding: a chromadb embedding function; the packaged MiniLM by default.
        budget_tokens: the default token budget of ``recall``.
    """

    def __init__(self, session_id: str, path: str | Path | None = None, embedding=None, budget_tokens: int = 400) -> None:
        import chromadb
        from chromadb.config import Settings

        if embedding is None:
            from pipelines.embeddings import MiniLMEmbedding

            embedding = MiniLMEmbedding()

        settings = Settings(anonymized_telemetry=False, allow_reset=False)
        try:
            if path is not None:
                Path(path).mkdir(parents=True, exist_ok=True)
                self.client = chromadb.PersistentClient(path=str(path), settings=settings)
            else:
                self.client = chromadb.EphemeralClient(settings=settings)
        except OSError as exc:
            raise VgmError(f"memory folder {path} cannot be used ({exc.strerror or exc}); give a writable folder") from None
        except Exception as exc:  # chromadb's own errors: a damaged or foreign store
            raise VgmError(f"memory store {path} cannot be opened ({' '.join(str(exc).split())[:160]}); "
                           "move the folder away to start a fresh memory") from None
        self.path = str(path) if path is not None else None
        self.embedding = embedding
        self.budget_tokens = budget_tokens
        try:
            self.collection = self.client.get_or_create_collection(
                name=_collection_name(session_id), embedding_function=embedding, configuration={"hnsw": {"space": "cosine", "ef_search": 256, "ef_construction": 200}},
            )
        except ValueError as exc:  # the store was made with another embedding (e.g. --memory hashing)
            kind = getattr(embedding, "name", lambda: type(embedding).__name__)
            raise VgmError(f"the memory of session {session_id!r} in {path} was made with another embedding "
                           f"({' '.join(str(exc).split())[:160]}); resume it with the same --memory option as before "
                           f"(this run asked for {kind() if callable(kind) else kind})") from None
        self.last_latency_s = 0.0

    def __len__(self) -> int:
        return self.collection.count()

    def add_turns(self, turns: list[tuple[int, Turn]], batch: int = 512) -> None:
        """Store log lines by their index in the session log (re-adding an index replaces it)."""
        for start in range(0, len(turns), batch):
            part = turns[start : start + batch]
            self.collection.upsert(
                ids=[f"turn-{i}" for i, _ in part],
                documents=[f"{t.speaker}: {t.text}" for _, t in part],
                metadatas=[{"kind": "turn", "index": i, "speaker": t.speaker} for i, t in part],
            )

    def add_turn(self, index: int, turn: Turn) -> None:
        self.add_turns([(index, turn)])

    def add_notes(self, notes: list[str], prefix: str = "note") -> None:
        """Store scenario facts the GM should be reminded of when they become relevant."""
        notes = [n.strip() for n in notes if n and n.strip()]
        if notes:
            self.collection.upsert(
                ids=[f"{prefix}-{i}" for i in range(len(notes))],
                documents=notes,
                metadatas=[{"kind": "note", "index": -1 - i} for i in range(len(notes))],
            )

    def recall(self, query: str, *, k: int = 8, budget_tokens: int | None = None, before: int | None = None) -> list[Memo]:
        """The stored lines nearest in meaning to ``query``, best first, within a token budget.

        Args:
            before: only turns with a log index below this (the recent window is in the prompt anyway).
        """
        budget = self.budget_tokens if budget_tokens is None else budget_tokens
        total = len(self)
        if total == 0 or not query.strip() or budget <= 0:
            return []
        where = None
        if before is not None:
            where = {"$or": [{"kind": "note"}, {"index": {"$lt": before}}]}
        started = time.perf_counter()
        found = self.collection.query(query_texts=[query], n_results=min(k, total), where=where, include=["documents", "metadatas", "distances"])
        self.last_latency_s = time.perf_counter() - started
        memos: list[Memo] = []
        used = 0
        for doc, meta, dist in zip(found["documents"][0], found["metadatas"][0], found["distances"][0]):
            cost = count_tokens(doc)
            if used + cost > budget:
                continue  # a shorter, less close line may still fit
            used += cost
            index = meta.get("index")
            memos.append(Memo(text=doc, kind=str(meta.get("kind", "turn")), index=index if meta.get("kind") == "turn" else None, distance=float(dist)))
        return memos
