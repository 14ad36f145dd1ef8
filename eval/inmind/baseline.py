"""The player-identification lexical baseline (InMind 4.2): no profile, no LLM.

Each player's utterances and the subject's strategy traces are embedded and average-pooled;
players are ranked by the cosine similarity of their pooled vector to the traces' vector. The
paper used StructBERT; we use the packaged MiniLM for English sessions and the packaged
multilingual-e5-small for Chinese ones (``pipelines.embeddings.choose_encoder``, decided once per
session on all its texts, so the traces and the players share one space). Texts are the
anonymised ones the model sees, so both rank the same candidates on the same words.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .render import Labels
from .session import Session
from .tasks import anonymous_labels

Embedder = Callable[[list[str]], np.ndarray]


def default_embedder(texts: list[str] | None = None, encoder: str | None = None) -> Embedder:
    """The encoder for these texts: ``encoder`` (or ``VGM_EMBEDDER``), else e5 for Chinese text, MiniLM otherwise."""
    from pipelines.embeddings import choose_encoder, embed_with  # lazy: the ONNX models (and chromadb) load on first use

    chosen = choose_encoder(texts or [], encoder)
    return lambda batch: embed_with(chosen, batch)


def session_texts(session: Session) -> list[str]:
    """Every text the baseline embeds: the traces and the players' utterances."""
    return [n.text for n in session.traces] + [u.text for r in session.rounds for u in r.utterances]


def _pooled(vectors: np.ndarray) -> np.ndarray:
    if len(vectors) == 0:
        return np.zeros(vectors.shape[1] if vectors.ndim == 2 else 1)
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def similarity_ranking(session: Session, embedder: Embedder | None = None) -> tuple[list[str], dict[str, float]]:
    """Labels ranked by cosine(player's pooled utterances, pooled traces), best first, and the scores."""
    embedder = embedder or default_embedder(session_texts(session))
    mapping = anonymous_labels(session)
    labels = Labels(mapping)
    traces = [labels.text(n.text) for n in session.traces if n.text.strip()]
    trace_vec = _pooled(np.asarray(embedder(traces))) if traces else None
    scores: dict[str, float] = {}
    for seat, label in mapping.items():
        said = [labels.text(u.text) for r in session.rounds for u in r.utterances if u.speaker == str(seat) and u.text.strip()]
        if trace_vec is None or not said:
            scores[label] = float("-inf") if not said else 0.0
            continue
        scores[label] = float(np.dot(_pooled(np.asarray(embedder(said))), trace_vec))
    ranking = sorted(scores, key=lambda lab: (-scores[lab], lab))
    return ranking, {k: (round(v, 4) if np.isfinite(v) else None) for k, v in scores.items()}
