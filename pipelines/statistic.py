"""The statistic predictor (Tachikuma section 6): the most frequent check, learned from training data.

It counts, per rule set, how often each character and each skill was asked for, so a
pipeline can pick "the skill this character is usually asked for", falling back to the
rule set's most frequent skill, and a character "who is usually asked". It is the floor a
model pipeline has to beat.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .records import MoeInstance


def _key(name: str) -> str:
    return " ".join(name.lower().split())


class SkillStats:
    """Skill and character frequencies per rule set, from gold answers.

    ``exclude`` lets one predict for an instance that is itself in the training data
    (leave-one-out), so a run without a separate training file does not see its own label.
    """

    def __init__(self, instances: Iterable[MoeInstance] = ()) -> None:
        self.by_character: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.by_ruleset: dict[str, Counter[str]] = defaultdict(Counter)
        self.characters: dict[str, Counter[str]] = defaultdict(Counter)
        self.size = 0
        self.instances: list[MoeInstance] = []  # the training instances themselves (for the knn baseline)
        self._index: ContextIndex | None = None
        for instance in instances:
            self.add(instance)

    def context_index(self, embedder: Callable[[list[str]], Any] | None = None) -> "ContextIndex":
        """The training contexts embedded once (built at first use, then shared by every instance of a run)."""
        if self._index is None or (embedder is not None and self._index.embedder is not embedder):
            self._index = ContextIndex(self.instances, embedder)
        return self._index

    def add(self, instance: MoeInstance, sign: int = 1) -> None:
        self.size += sign
        if sign > 0:
            self.instances.append(instance)
            self._index = None
        for check in instance.answers:
            self.by_character[(instance.ruleset, _key(check.character))][check.skill] += sign
            self.by_ruleset[instance.ruleset][check.skill] += sign
            self.characters[instance.ruleset][_key(check.character)] += sign

    @staticmethod
    def _top(counts: Counter[str], minus: Counter[str], allowed: Any) -> str | None:
        best = [(n - minus.get(skill, 0), skill) for skill, n in counts.items() if allowed is None or skill in allowed]
        best = [(n, skill) for n, skill in best if n > 0]
        # most frequent first; ties broken by name so runs are reproducible
        return min(best, key=lambda pair: (-pair[0], pair[1]))[1] if best else None

    def top_skill(self, ruleset: str, character: str, *, pack: Any = None, exclude: MoeInstance | None = None) -> str | None:
        """The character's most frequent skill, else the rule set's, else the pack's default."""
        allowed = getattr(pack, "checks", None)
        own = Counter(c.skill for c in (exclude.answers if exclude else []) if _key(c.character) == _key(character))
        every = Counter(c.skill for c in (exclude.answers if exclude else []))
        found = self._top(self.by_character.get((ruleset, _key(character)), Counter()), own, allowed)
        found = found or self._top(self.by_ruleset.get(ruleset, Counter()), every, allowed)
        return found or default_skill(pack)

    def top_character(self, ruleset: str, names: list[str], *, exclude: MoeInstance | None = None) -> str | None:
        """Of ``names``, the one asked for checks most often in training; None when none was."""
        counts = self.characters.get(ruleset, Counter())
        minus = Counter(_key(c.character) for c in (exclude.answers if exclude else []))
        scored = [(counts.get(_key(n), 0) - minus.get(_key(n), 0), -i, n) for i, n in enumerate(names)]
        scored = [s for s in scored if s[0] > 0]
        return max(scored)[2] if scored else None


def default_skill(pack: Any) -> str | None:
    """With no training data: the pack's perception-like check (the commonest GM call), else its first."""
    if pack is None:
        return None
    for name in ("perception", "spot hidden", "notice"):
        found = pack.try_resolve(name)
        if found:
            return found
    return next(iter(pack.checks), None)


def context_text(instance: MoeInstance, turns: int = 8) -> str:
    """The end of a table log as one text: what the knn baseline compares (MiniLM reads 256 tokens)."""
    return "\n".join(f"{t.speaker}: {' '.join(t.text.split())}" for t in instance.context[-turns:])


class ContextIndex:
    """Training instances with their contexts embedded, for nearest-neighbour votes.

    Args:
        instances: the training instances.
        embedder: ``texts -> (n × d) array`` of L2-normalised rows, or an encoder name (``auto``,
            ``minilm``, ``e5``); default ``auto``: packaged MiniLM, or multilingual e5 when the training
            contexts are Chinese (chosen once on them, so every query is embedded in the same space).
    """

    def __init__(self, instances: Iterable[MoeInstance], embedder: Callable[[list[str]], Any] | None = None) -> None:
        self.instances = list(instances)
        self.embedder = embedder
        self._by_id = {inst.id: k for k, inst in enumerate(self.instances)}
        self._vectors: np.ndarray | None = None

    encoder: str | None = None  # the encoder the training contexts were embedded with (a name, not a callable)

    def _embed(self, texts: list[str]) -> np.ndarray:
        if self.embedder is None or isinstance(self.embedder, str):
            from .embeddings import choose_encoder, embed_with  # lazy: the ONNX models (and chromadb) load on first use

            self.encoder = self.encoder or choose_encoder(texts, self.embedder)
            return np.asarray(embed_with(self.encoder, texts), dtype=float)
        vectors = np.asarray(self.embedder(texts), dtype=float)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    @property
    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            texts = [context_text(i) for i in self.instances]
            self._vectors = self._embed(texts) if texts else np.zeros((0, 1))
        return self._vectors

    def nearest(self, instance: MoeInstance, k: int = 1, *, exclude_self: bool = True) -> list[tuple[float, MoeInstance]]:
        """The ``k`` training instances of the same rule set whose contexts are most similar (cosine), best first."""
        if not self.instances:
            return []
        own = self._by_id.get(instance.id)
        if own is not None and self.instances[own].context != instance.context:
            own = None  # same id, other instance: embed it
        vectors = self.vectors  # the corpus first: it chooses the encoder the query must share
        query = vectors[own] if own is not None else self._embed([context_text(instance)])[0]
        sims = vectors @ query
        order = np.argsort(-sims, kind="stable")
        out = []
        for idx in order:
            other = self.instances[int(idx)]
            if other.ruleset != instance.ruleset or (exclude_self and other.id == instance.id):
                continue
            out.append((float(sims[idx]), other))
            if len(out) >= k:
                break
        return out
