"""Which checks a player's line calls for, by its nearest example lines in the pack.

A pack lists example player lines for each check, for lines that need no roll and for acts
that cannot succeed (``examples``, ``no_roll``, ``impossible``). The index embeds them once
with the packaged MiniLM; a new line is embedded and its nearest examples vote for a label:
a check id, ``no_roll`` or ``impossible``. This is the "rules and data decide" half of the GM
turn: a small model then only chooses among the few labels the vote leaves open.

    index = CheckIndex.for_pack(rulesets.load("coc7e"))
    vote = index.vote("I run my eyes over the floorboards for marks")
    vote.top            # "spot_hidden"
    vote.candidates(3)  # ["spot_hidden", "track", "library_use"]
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np

import rulesets

from .vector_store import embed_cached

NO_ROLL = "no_roll"
IMPOSSIBLE = "impossible"
DECISIONS = (NO_ROLL, IMPOSSIBLE)

Embed = Callable[[list[str]], np.ndarray]

__all__ = ["CheckIndex", "Vote", "Neighbour", "LineSense", "NO_ROLL", "IMPOSSIBLE", "DECISIONS", "pack_examples",
           "borrowed_examples"]


@dataclass(frozen=True)
class Neighbour:
    label: str
    text: str
    similarity: float


@dataclass
class Vote:
    """The nearest examples of one line and what they add up to.

    ``scores`` is a softmax-weighted vote over the ``k`` nearest examples (sums to 1);
    ``best`` the highest similarity each label reached.
    """

    neighbours: list[Neighbour]
    scores: dict[str, float] = field(default_factory=dict)
    best: dict[str, float] = field(default_factory=dict)
    blend: dict[str, float] = field(default_factory=dict)  # vote mixed with closeness to each label's centre

    @property
    def top(self) -> str | None:
        return max(self.scores, key=self.scores.__getitem__) if self.scores else None

    @property
    def share(self) -> float:
        """How much of the vote the top label has (1.0 = unanimous)."""
        return self.scores[self.top] if self.scores else 0.0

    def weighted_top(self, weights: dict[str, float]) -> str | None:
        """The top label once some labels' shares are scaled (``{"no_roll": 1.5}``): a prior on
        how often a table needs no roll, which the examples' own counts do not set."""
        if not self.scores:
            return None
        return max(self.scores, key=lambda lab: self.scores[lab] * weights.get(lab, 1.0))

    def ranked(self) -> list[str]:
        """Labels by vote, then by best similarity (so labels outside the k still rank)."""
        return sorted(self.best, key=lambda lab: (-self.scores.get(lab, 0.0), -self.best[lab]))

    def candidates(self, n: int = 3) -> list[str]:
        """The ``n`` checks the line most likely calls for (never ``no_roll``/``impossible``).

        Ranked by ``blend``: the nearest single lines decide *whether* to roll well, but which
        check is better told by how close the line is to all of a check's lines at once.
        """
        order = sorted(self.blend, key=lambda lab: -self.blend[lab]) if self.blend else self.ranked()
        return [lab for lab in order if lab not in DECISIONS][:n]


def pack_examples(pack: Any) -> list[tuple[str, str]]:
    """Every (label, line) the pack gives: check examples, then no-roll and impossible lines."""
    pairs: list[tuple[str, str]] = []
    for cid, check in pack.checks.items():
        pairs += [(cid, line) for line in check.examples]
    for fid, fam in getattr(pack, "families", {}).items():
        pairs += [(f"{fid}:{fam.example}", line) for line in getattr(fam, "examples", [])]
    pairs += [(NO_ROLL, line) for line in getattr(pack, "no_roll", [])]
    pairs += [(IMPOSSIBLE, line) for line in getattr(pack, "impossible", [])]
    return [(lab, " ".join(line.split())) for lab, line in pairs if line.strip()]


def borrowed_examples(pack: Any, others: list[Any], embed: Embed) -> list[tuple[str, str]]:
    """The other packs' check lines, relabelled with this pack's checks through the shared ``concepts``.

    A blind line is often phrased unlike any of this pack's own two dozen lines for its check,
    yet like another game's lines for the same kind of act ("fight off the venom" is a D&D
    Constitution save, a Pathfinder Fortitude save, a Savage Worlds Vigor roll). A line of check
    ``q`` is lent only when every concept ``q`` stands for is one this pack also has; it then
    goes to this pack's usual check for those concepts, and when they name different checks here
    (Pathfinder's Perception is CoC's Spot Hidden, Listen or Psychology), to the one whose own
    lines' centre it lies nearest.
    """
    mine = getattr(pack, "concepts", {}) or {}
    if not mine:
        return []
    lent: list[tuple[list[str], str]] = []  # (this pack's checks the line may belong to, line)
    for other in others:
        theirs = getattr(other, "concepts", {}) or {}
        if other is pack or getattr(other, "name", None) == getattr(pack, "name", None) or not theirs:
            continue
        for cid, check in other.checks.items():
            stands_for = [concept for concept, ids in theirs.items() if cid in ids]
            if not stands_for or any(concept not in mine for concept in stands_for):
                continue
            targets = list(dict.fromkeys(mine[concept][0] for concept in stands_for))
            lent += [(targets, " ".join(line.split())) for line in check.examples if line.strip()]
    if not lent:
        return []
    open_calls = [i for i, (targets, _) in enumerate(lent) if len(targets) > 1]
    chosen = {i: lent[i][0][0] for i in range(len(lent))}
    if open_calls:
        own = [(lab, line) for lab, line in pack_examples(pack) if lab in pack.checks]
        labels = np.array([lab for lab, _ in own])
        vectors = embed([line for _, line in own])
        lines = embed([lent[i][1] for i in open_calls])
        for row, i in zip(lines, open_calls):
            targets = [t for t in lent[i][0] if (labels == t).any()]
            if targets:
                chosen[i] = max(targets, key=lambda t: _cosine(vectors[labels == t].mean(axis=0), row))
    return [(chosen[i], line) for i, (_, line) in enumerate(lent)]


def _cosine(centre: np.ndarray, row: np.ndarray) -> float:
    return float(centre @ row / max(float(np.linalg.norm(centre)), 1e-12))


class CheckIndex:
    """Embedded example lines of one pack, searched by cosine similarity.

    Args:
        pairs: (label, line) examples.
        embed: texts → L2-normalised rows; the packaged MiniLM by default.
        temperature: softness of the vote; lower trusts the single nearest example more.
        lent: (label, line) pairs that shape only the labels' centres, never the nearest-line
            vote: other games' lines for the same kind of act (``borrowed_examples``).
    """

    def __init__(self, pairs: list[tuple[str, str]], embed: Embed | None = None, temperature: float = 0.05,
                 centre_weight: float = 0.4, lent: list[tuple[str, str]] = ()) -> None:
        stored = embed is None  # the packaged MiniLM: example vectors come from the on-disk store
        embed = embed or _minilm()
        self.embed = embed
        self._stored, self._lent = stored, list(lent)
        self.labels = [lab for lab, _ in pairs]
        self.texts = [text for _, text in pairs]
        self.temperature = temperature
        self.centre_weight = centre_weight
        texts = [*self.texts, *(line for _, line in lent)]
        vectors = (embed_cached(texts) if stored else embed(texts)) if texts else np.zeros((0, 1), dtype=np.float32)
        self.vectors = vectors[: len(self.texts)]
        self.centre_labels = sorted(set(self.labels))
        if self.texts:
            owner = np.array([*self.labels, *(lab for lab, _ in lent)])
            centres = np.stack([vectors[owner == lab].mean(axis=0) for lab in self.centre_labels])
            self.centres = centres / np.clip(np.linalg.norm(centres, axis=1, keepdims=True), 1e-12, None)

    @classmethod
    def for_pack(cls, pack: Any, embed: Embed | None = None, borrow: bool = False) -> "CheckIndex":
        """The index of a loaded pack; built once per process for the MiniLM embedding.

        ``borrow``: each check's centre is also made of the other TRPG packs' lines for the same
        kinds of act (``borrowed_examples``); the nearest-line vote stays this pack's own.
        """
        pairs = pack_examples(pack)
        if embed is not None:
            return cls(pairs, embed, lent=_lent(pack, embed) if borrow else [])
        key = (hashlib.sha1(repr(pairs).encode()).hexdigest(), getattr(pack, "name", ""), borrow)
        if key not in _INDEXES:
            _INDEXES[key] = cls(pairs, lent=_lent(pack, embed_cached) if borrow else [])
        return _INDEXES[key]

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def packaged(self) -> bool:
        """Whether the index embeds with the packaged MiniLM (not with an ``embed`` of its caller's)."""
        return self._stored

    def without(self, texts: set[str]) -> "CheckIndex":
        """The same index with these example lines left out: to vote on a pack's own line as if
        the pack had never seen it (``vgm play learn`` weighs the vote that way)."""
        kept = [(lab, text) for lab, text in zip(self.labels, self.texts) if text not in texts]
        return CheckIndex(kept, None if self._stored else self.embed, self.temperature, self.centre_weight, lent=self._lent)

    def fit(self, vote: Vote, scene: str, weight: float = 0.5) -> dict[str, float]:
        """How well each label of ``vote`` suits the line *and* the scene it is said in, as a
        log-score: the vote's blend times the scene's own vote over the label centres (a softmax
        at the index's temperature), that raised to ``weight``. A product, so the scene only
        reorders what the line already points at: "keep her going, slow and steady" is a horse
        on a mountain trail and a motor car on an icy road. ``weight`` 0 or no scene: the blend.
        """
        blend = vote.blend or vote.scores
        score = {lab: math.log(max(p, 1e-9)) for lab, p in blend.items()}
        if weight <= 0 or not scene.strip() or not self.texts:
            return score
        near = dict(zip(self.centre_labels, (self.centres @ self.query(scene)).tolist()))
        return {lab: s + weight * near.get(lab, 0.0) / self.temperature for lab, s in score.items()}

    def query(self, line: str) -> np.ndarray:
        """The line's vector, to pass to several votes without embedding it again."""
        return self.embed([" ".join(line.split()) or " "])[0]

    def vote(self, line: str, k: int = 10, *, exclude: set[str] | None = None, temperature: float | None = None,
             query: np.ndarray | None = None) -> Vote:
        """The ``k`` nearest examples to ``line`` and their softmax-weighted vote (``temperature``
        overrides the index's own softness for this vote; ``query`` is ``self.query(line)`` if known)."""
        temperature = temperature or self.temperature
        if not self.texts:
            return Vote(neighbours=[])
        query = self.query(line) if query is None else query
        sims = self.vectors @ query
        best: dict[str, float] = {}
        for lab, sim in zip(self.labels, sims):
            if exclude and lab in exclude:
                continue
            if sim > best.get(lab, -2.0):
                best[lab] = float(sim)
        order = [i for i in np.argsort(-sims) if not (exclude and self.labels[i] in exclude)][:k]
        neighbours = [Neighbour(self.labels[i], self.texts[i], float(sims[i])) for i in order]
        weights = np.exp((np.array([n.similarity for n in neighbours]) - neighbours[0].similarity) / temperature)
        scores: dict[str, float] = {}
        for n, w in zip(neighbours, weights / weights.sum()):
            scores[n.label] = scores.get(n.label, 0.0) + float(w)
        near = self.centres @ query
        centre = np.exp((near - near.max()) / temperature)
        centre /= centre.sum()
        blend = {lab: self.centre_weight * float(p) + (1 - self.centre_weight) * scores.get(lab, 0.0)
                 for lab, p in zip(self.centre_labels, centre) if not (exclude and lab in exclude)}
        return Vote(neighbours=neighbours, scores=scores, best=best, blend=blend)


_INDEXES: dict[tuple[str, str, bool], CheckIndex] = {}  # (examples' digest, pack, borrowed) -> index, once per process


def _lent(pack: Any, embed: Embed) -> list[tuple[str, str]]:
    others = [rulesets.load(name) for name in sorted(rulesets.available())]
    return borrowed_examples(pack, [other for other in others if other.kind == "trpg"], embed)


def _minilm() -> Embed:
    from .embeddings import embed  # lazy: the ONNX MiniLM (and chromadb) load on first use

    return embed


class LineSense:
    """How likely a line is of one kind, told by one direction in the MiniLM space: a logistic
    regression trained on every rule-set pack's example lines together, since what it tells is
    much the same in every game. Two kinds are used:

    - ``dice``: the line needs a roll (any check's examples) rather than none (``no_roll`` and
      ``impossible`` lines). The nearest twenty examples judge this by topic, so "I grab the
      healer's kit and try to treat the bite" sat among no-roll lines about kits and bites; the
      direction hears the effort in it.
    - ``impossible``: an act no roll can make succeed, against all other lines ("I swim across
      the whole ocean" sits next to the Swim lines).

    Fitted with scipy's L-BFGS at first use (about a second), L2-regularised, with each class
    weighed by the inverse of its share (scikit-learn's "balanced"): scikit-learn is not a
    dependency, and the fit is a dozen lines.
    """

    # label -> whether a line with that label is of the kind
    KINDS = {"dice": lambda label: label not in DECISIONS, "impossible": lambda label: label == IMPOSSIBLE}

    def __init__(self, pairs: list[tuple[str, str]], kind: str = "impossible", embed: Embed | None = None,
                 strength: float = 1.0) -> None:
        from scipy.optimize import minimize  # lazy: scipy is slow to import and only training needs it

        stored = embed is None
        embed = embed or _minilm()
        self.embed = embed
        texts = [line for _, line in pairs]
        y = np.array([1.0 if self.KINDS[kind](lab) else 0.0 for lab, _ in pairs])
        self.weights = np.zeros(0)
        if not texts or y.sum() == 0 or y.sum() == len(y):
            return
        x = embed_cached(texts) if stored else embed(texts)
        weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            p = 1 / (1 + np.exp(-(x @ w[:-1] + w[-1])))
            value = -(weight * (y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9))).mean()
            value += (w[:-1] @ w[:-1]) / (2 * strength * len(y))
            grad = ((weight * (p - y))[:, None] * x).mean(axis=0) + w[:-1] / (strength * len(y))
            return value, np.append(grad, (weight * (p - y)).mean())

        self.weights = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B").x

    def __call__(self, line: str, query: np.ndarray | None = None) -> float:
        """P(kind) for one line (``query``: its vector, if already embedded); 0.0 when the packs
        give no lines of one of the two classes."""
        if not self.weights.size:
            return 0.0
        v = self.embed([" ".join(line.split()) or " "])[0] if query is None else query
        return float(1 / (1 + np.exp(-(v @ self.weights[:-1] + self.weights[-1]))))

    @classmethod
    def from_packs(cls, kind: str = "impossible") -> "LineSense":
        """Trained on every TRPG pack that can be loaded (shipped and ``VGM_RULESETS_PATH``), once per process."""
        names = tuple(sorted(n for n in rulesets.available() if rulesets.load(n).kind == "trpg"))
        return _sense(names, kind)


@lru_cache(maxsize=4)
def _sense(names: tuple[str, ...], kind: str) -> LineSense:
    return LineSense([pair for name in names for pair in pack_examples(rulesets.load(name))], kind)
