"""The real-play benchmark: the GM's decision on every player turn of real CRD3 episodes.

Each player turn (``eval.play.real.real_turns``) is put to a *decider*: does this line call for
a roll, which check, or is it impossible? The human DM's next turns are the gold (a check asked
for or not). The scores say how well the decider's ``p_roll`` ranks the lines the DM rolled on
(ROC AUC, average precision), how often it rolls where the DM did not and does where they did,
and whether its leading checks are the ones the DM asked for; each with a 95% bootstrap
interval over episodes (a table's habits make turns of one episode anything but independent).

    turns = list(real_turns("../shared/data/crd3", episodes=split_episodes("test")))
    scores = run_real(turns, PipelineDecider("adjudicate"), "runs/real")
    scores.roc_auc, scores.ci["roc_auc"]

A run folder holds::

    run.json          pipeline, model, ruleset, when it started (a rerun must use the same)
    decisions.jsonl   one line per turn, flushed after each batch:
                      {"episode", "number", "positive", "skills", "p_roll", "decision", "ranked"}
                      (plus "error" when the decider failed on the turn; a rerun decides it again)
    summary.json      ``RealScores.as_json()`` over the turns of the run
"""
from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import numpy as np

import rulesets
from rulesets import FileProblem, VgmError, read_jsonl, read_yaml, write_atomic

from .real import RealTurn, episode_files, is_ability_call

__all__ = [
    "RealDecision", "Decider", "PipelineDecider", "RealScores", "RATES", "score_real", "run_real",
    "read_real_decisions", "split_episodes", "choose_episodes", "real_table", "SPLIT_FILE", "RealRunError",
]

SPLIT_FILE = Path(__file__).resolve().parents[2] / "bench" / "real_split.yaml"
DECISIONS = ("roll", "no_roll", "impossible")
# the scores that get a bootstrap interval, in the order the table shows them
RATES = ("roc_auc", "average_precision", "roll_rate_negatives", "recall", "skill_top1", "skill_top3", "impossible_rate")


class RealRunError(VgmError):
    """A run folder that cannot be resumed as asked, or a choice of episodes that names none."""


@dataclass
class RealDecision:
    """What a decider made of one player turn."""

    p_roll: float                  # how likely the line calls for a roll (ranks the lines; 0..1)
    decision: str                  # "roll" | "no_roll" | "impossible"
    ranked: list[str] = field(default_factory=list)  # check ids, best first (scored whether or not it rolled)
    error: str = ""                # the decider failed on this turn; the fields above are its fallback


class Decider(Protocol):
    """Anything that decides a batch of turns at once (so it can embed many lines together)."""

    def decide(self, turns: list[RealTurn]) -> list[RealDecision]: ...


# ---------------------------------------------------------------- the project's decision pipeline


class PipelineDecider:
    """The project's decision pipeline (``adjudicate`` by default) run on each turn as the GM runs it.

    The turn becomes a ``MoeInstance`` of the DM's last words as the scene, the turn before when
    another player said it, then the player's line, with the speaker as the one character, and the pipeline runs with the loaded
    ruleset and that scene. ``p_roll`` and ``ranked`` are read from the ``adjudicate`` step's
    record (``parsed["p_roll"]``, ``parsed["ranked"]``); a pipeline or step version without them
    gives ``p_roll`` 1.0 for a roll and 0.0 otherwise, and ranks the vote's ``leaders`` or the
    checks it called.

    Args:
        pipeline: a pipeline name or spec path (``pipelines.load_pipeline``).
        model: a model string; resolved (``pipelines.llm.get_model``) only if the pipeline needs
            a model, but always checked, so a typo is an error either way.
        ruleset: the rule-set pack the checks are ids of.
    """

    def __init__(self, pipeline: str = "adjudicate", model: str | None = None, ruleset: str = "dnd5e") -> None:
        from pipelines import load_pipeline
        from pipelines.llm import parse_spec

        self.pipeline = pipeline
        self.model = model
        self.ruleset = ruleset
        self._pipeline = load_pipeline(pipeline)
        if model is not None:
            parse_spec(model)  # a bad string is one clear line now, not an hour in
        self._pack = rulesets.load(ruleset)
        self._client: Any = None

    def _model(self) -> Any:
        if self._client is None and self._pipeline.needs_model:
            from pipelines.llm import get_model

            self._client = get_model(self.model)
        return self._client

    def decide(self, turns: list[RealTurn]) -> list[RealDecision]:
        model = self._model()
        return asyncio.run(self._decide_all(turns, model))

    async def _decide_all(self, turns: list[RealTurn], model: Any) -> list[RealDecision]:
        return [await self._decide_one(turn, model) for turn in turns]

    async def _decide_one(self, turn: RealTurn, model: Any) -> RealDecision:
        from pipelines import MoeInstance, Turn

        instance = MoeInstance(id=f"{turn.episode}-{turn.number}", ruleset=self._pack.name,
                               context=[Turn(speaker="GM", text=turn.scene or "(not described)"),
                                        *([Turn(speaker=turn.previous_speaker, text=turn.previous)]
                                          if turn.previous_speaker != "GM" and turn.previous else []),
                                        Turn(speaker=turn.speaker, text=turn.line)],
                               characters=[turn.speaker])
        try:
            result = await self._pipeline.run(instance, model, pack=self._pack, scene=turn.scene)
        except Exception as exc:  # noqa: BLE001 - one broken turn must not sink the run; it is counted
            return RealDecision(0.0, "no_roll", [], error=f"{type(exc).__name__}: {' '.join(str(exc).split())}")
        return read_result(result)


def read_result(result: Any) -> RealDecision:
    """A ``PipelineResult`` as a ``RealDecision`` (the fallbacks of ``PipelineDecider``)."""
    parsed = next((s.parsed for s in result.steps if s.name == "adjudicate" and isinstance(s.parsed, dict)), {})
    decision = result.decision or ("roll" if result.checks else "no_roll")
    if decision not in DECISIONS:
        decision = "no_roll"
    if result.error:
        decision = "no_roll"  # as the GM does: a failed decision step means no roll, said plainly
    p_roll = parsed.get("p_roll")
    if not isinstance(p_roll, (int, float)) or isinstance(p_roll, bool) or not math.isfinite(p_roll):
        p_roll = 1.0 if decision == "roll" else 0.0
    ranked = parsed.get("ranked") or parsed.get("leaders") or [c.skill for c in result.checks]
    ranked = list(dict.fromkeys(str(r) for r in ranked))
    return RealDecision(float(min(1.0, max(0.0, p_roll))), decision, ranked, error=result.error or "")


# ---------------------------------------------------------------- the scores


@dataclass
class RealScores:
    """The benchmark's numbers. A rate is None where it is undefined (no positives, one class);
    ``ci`` holds each rate's 95% bootstrap interval over episodes."""

    turns: int
    positives: int
    episodes: int
    errors: int
    roc_auc: float | None
    average_precision: float | None
    roll_rate_negatives: float | None
    recall: float | None
    skill_top1: float | None
    skill_top3: float | None
    impossible_rate: float | None
    skill_scored: int = 0          # positives with an ability or skill check to name (skill_top1's denominator)
    ci: dict[str, list[float] | None] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # run facts: pipeline, model, seconds, turns_per_s

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        extra = data.pop("extra")
        return {**data, **extra}


@dataclass
class _Rows:
    """The per-turn columns every score is a function of."""

    episode: np.ndarray
    positive: np.ndarray
    p_roll: np.ndarray
    rolled: np.ndarray
    impossible: np.ndarray
    scored: np.ndarray     # a positive with an ability/skill gold check
    top1: np.ndarray
    top3: np.ndarray
    error: np.ndarray


def _rows(golds: list[tuple[str, list[str]]], decisions: list[RealDecision]) -> _Rows:
    if len(golds) != len(decisions):
        raise ValueError(f"{len(golds)} turns but {len(decisions)} decisions")
    abilities = [[s for s in skills if is_ability_call(s)] for _, skills in golds]
    return _Rows(
        episode=np.array([e for e, _ in golds], dtype=object),
        positive=np.array([bool(s) for _, s in golds], dtype=bool),
        p_roll=np.array([float(d.p_roll) for d in decisions], dtype=float),
        rolled=np.array([d.decision == "roll" for d in decisions], dtype=bool),
        impossible=np.array([d.decision == "impossible" for d in decisions], dtype=bool),
        scored=np.array([bool(a) for a in abilities], dtype=bool),
        top1=np.array([bool(d.ranked[:1]) and d.ranked[0] in a for a, d in zip(abilities, decisions)], dtype=bool),
        top3=np.array([any(r in a for r in d.ranked[:3]) for a, d in zip(abilities, decisions)], dtype=bool),
        error=np.array([bool(d.error) for d in decisions], dtype=bool),
    )


def _share(hits: np.ndarray, among: np.ndarray) -> float | None:
    n = int(among.sum())
    return float(hits[among].sum()) / n if n else None


def _rates(r: _Rows, idx: np.ndarray) -> dict[str, float | None]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y, p = r.positive[idx], r.p_roll[idx]
    both = 0 < int(y.sum()) < len(y)
    return {
        "roc_auc": float(roc_auc_score(y, p)) if both else None,
        "average_precision": float(average_precision_score(y, p)) if both else None,
        "roll_rate_negatives": _share(r.rolled[idx], ~y),
        "recall": _share(r.rolled[idx], y),
        "skill_top1": _share(r.top1[idx], r.scored[idx]),
        "skill_top3": _share(r.top3[idx], r.scored[idx]),
        "impossible_rate": float(r.impossible[idx].mean()) if len(idx) else None,
    }


def score_real(turns: Iterable[RealTurn | tuple[str, list[str]]], decisions: Iterable[RealDecision], *,
               resamples: int = 1000, seed: int = 0) -> RealScores:
    """Score decisions against the DM's own calls.

    Args:
        turns: the turns decided (``RealTurn``, or ``(episode, gold skills)`` pairs), in step
            with ``decisions``.
        decisions: one per turn.
        resamples: bootstrap resamples of the episodes (with replacement) for the intervals;
            a resample where a rate is undefined (one class for ROC AUC) is skipped for that rate.
        seed: the bootstrap's seed, so a rerun gives the same intervals.

    Returns:
        ``RealScores``: ``roll_rate_negatives`` is the share of negative turns decided roll,
        ``recall`` of positive ones; ``skill_top1``/``skill_top3`` are over positives whose
        gold has an ability or skill check (not saves or initiative): the first / any of the
        first three ``ranked`` checks is one of them, whatever was decided;
        ``impossible_rate`` is the share of all turns decided impossible.
    """
    golds = [(t.episode, list(t.skills)) if isinstance(t, RealTurn) else (str(t[0]), list(t[1])) for t in turns]
    r = _rows(golds, list(decisions))
    every = np.arange(len(golds))
    point = _rates(r, every)
    names = list(dict.fromkeys(r.episode.tolist()))
    by_episode = [np.flatnonzero(r.episode == name) for name in names]
    samples: dict[str, list[float]] = {k: [] for k in RATES}
    rng = np.random.default_rng(seed)
    for _ in range(resamples if names else 0):
        picked = rng.integers(0, len(names), size=len(names))
        again = _rates(r, np.concatenate([by_episode[i] for i in picked]))
        for key, value in again.items():
            if value is not None:
                samples[key].append(value)
    ci = {k: ([round(float(np.percentile(v, 2.5)), 4), round(float(np.percentile(v, 97.5)), 4)] if v else None)
          for k, v in samples.items()}
    return RealScores(
        turns=len(golds), positives=int(r.positive.sum()), episodes=len(names), errors=int(r.error.sum()),
        skill_scored=int(r.scored.sum()), ci=ci, **{k: (None if v is None else round(v, 4)) for k, v in point.items()},
    )


# ---------------------------------------------------------------- episodes


def split_episodes(name: str, split_file: str | Path = SPLIT_FILE) -> set[str]:
    """The episodes of ``train`` or ``test`` in the fixed split (``bench/real_split.yaml``)."""
    try:
        data = read_yaml(split_file, what="episode split")
    except FileProblem as problem:
        raise RealRunError(str(problem)) from None
    if not isinstance(data, dict) or not isinstance(data.get(name), list):
        raise RealRunError(f"{split_file}: no {name!r} list of episodes; it should hold `train:` and `test:` lists")
    return {str(e) for e in data[name]}


def choose_episodes(source: str | Path, spec: str | None, split_file: str | Path = SPLIT_FILE) -> set[str] | None:
    """The episodes ``--episodes`` names under ``source``: None (all) for no spec; ``train`` or
    ``test`` for that side of the split; else a comma list of file stems (``C2E005,C2E010``).

    Raises:
        RealRunError: it names no episode found under ``source``, or one that is not there.
    """
    if spec is None or not spec.strip():
        return None
    found = {p.stem for p in episode_files(source)}
    words = [w.strip() for w in spec.split(",") if w.strip()]
    if words in (["train"], ["test"]):
        wanted = split_episodes(words[0], split_file)
        chosen = wanted & found
        if not chosen:
            raise RealRunError(f"{source}: none of the {words[0]} episodes of {Path(split_file).name} "
                               f"({', '.join(sorted(wanted)[:3])}, ...) are here; give the folder of the shared CRD3 episodes")
        return chosen
    missing = [w for w in words if w not in found]
    if missing:
        raise RealRunError(f"--episodes: {', '.join(missing)} not found under {source} (it has {', '.join(sorted(found)[:4])}"
                           f"{', ...' if len(found) > 4 else ''}); give file names without .json, or train / test")
    return set(words)


# ---------------------------------------------------------------- a run


OnProgress = Callable[[int, int], None]


def _key(episode: Any, number: Any) -> tuple[str, int]:
    return str(episode), int(number)


def read_real_decisions(path: str | Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The records of a ``decisions.jsonl`` by (episode, number), last line winning; a torn last
    line (a kill mid-write) is ignored, so that turn is decided again."""
    path = Path(path)
    if not path.is_file():
        return {}
    out: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        for number, record in read_jsonl(path, what="decisions file", on_torn="ignore").numbered():
            try:
                out[_key(record["episode"], record["number"])] = record
            except (KeyError, TypeError, ValueError):
                raise RealRunError(f"{path}:{number}: a decision line needs an `episode` and a whole `number`; "
                                   "fix or remove that line to resume") from None
    except FileProblem as problem:
        raise RealRunError(f"{problem} (or move the file away to start the run afresh)") from None
    return out


def _record(turn: RealTurn, decision: RealDecision) -> dict[str, Any]:
    return {"episode": turn.episode, "number": turn.number, "positive": turn.positive, "skills": list(turn.skills),
            "p_roll": round(float(decision.p_roll), 6), "decision": decision.decision, "ranked": list(decision.ranked),
            **({"error": decision.error} if decision.error else {})}


def _from_record(record: dict[str, Any]) -> RealDecision:
    return RealDecision(float(record.get("p_roll") or 0.0), str(record.get("decision") or "no_roll"),
                        [str(r) for r in record.get("ranked") or []], error=str(record.get("error") or ""))


def _labels(decider: Any) -> dict[str, Any]:
    return {"pipeline": getattr(decider, "pipeline", None) or type(decider).__name__,
            "model": getattr(decider, "model", None), "ruleset": getattr(decider, "ruleset", None)}


def _check_run(folder: Path, labels: dict[str, Any]) -> None:
    """Refuse to mix two deciders in one folder; write ``run.json`` for a new run."""
    info = folder / "run.json"
    if info.is_file():
        try:
            old = json.loads(info.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            old = None
        if not isinstance(old, dict):
            raise RealRunError(f"{info} is not a run record; remove it (and decisions.jsonl) or use another -o folder")
        for key, flag in (("pipeline", "--pipeline"), ("model", "--model")):
            if old.get(key) != labels[key]:
                had, wants = (repr(v) if v else "none" for v in (old.get(key), labels[key]))
                raise RealRunError(f"{folder} holds a run with {key} {had}, not {wants}; use the same {flag} or another -o folder")
        return
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    write_atomic(info, json.dumps({**labels, "started": started}, indent=1) + "\n")


def run_real(turns: list[RealTurn], decider: Decider, out: str | Path | None = None, *, batch: int = 64,
             on_progress: OnProgress | None = None, resamples: int = 1000, seed: int = 0) -> RealScores:
    """Decide every turn (in batches) and score the decisions.

    Args:
        turns: the turns to decide, in order.
        decider: anything with ``decide(turns) -> decisions``.
        out: the run folder (created if needed). Decisions are appended to ``decisions.jsonl``
            after each batch; a rerun skips the turns already there (an errored turn is decided
            again) and refuses a folder of another pipeline or model. None keeps nothing.
        batch: turns handed to the decider at once.
        on_progress: ``(done, total)`` at the start (``done`` counts resumed turns) and after each batch.
        resamples / seed: the bootstrap (``score_real``).

    Returns:
        The ``RealScores`` over ``turns``, also written to ``summary.json``; ``extra`` holds
        the pipeline, model, seconds spent deciding, turns decided per second in this run and,
        when any turn failed, the first failure's message (``first_error``).
    """
    labels = _labels(decider)
    known: dict[tuple[str, int], dict[str, Any]] = {}
    folder = Path(out) if out is not None else None
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RealRunError(f"{folder}: cannot create the run folder ({exc.strerror}); pick another -o") from None
        _check_run(folder, labels)
        known = {k: r for k, r in read_real_decisions(folder / "decisions.jsonl").items() if not r.get("error")}
        # rewrite without the errored and torn lines, so the file holds one good line per turn
        write_atomic(folder / "decisions.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in known.values()))
    todo = [t for t in turns if _key(t.episode, t.number) not in known]
    total = len(turns)
    if on_progress:
        on_progress(total - len(todo), total)
    decided: dict[tuple[str, int], RealDecision] = {}
    spent = 0.0
    handle = (folder / "decisions.jsonl").open("a", encoding="utf-8") if folder is not None else None
    try:
        for start in range(0, len(todo), max(1, batch)):
            chunk = todo[start:start + max(1, batch)]
            began = time.perf_counter()
            answers = decider.decide(chunk)
            spent += time.perf_counter() - began
            if len(answers) != len(chunk):
                raise VgmError(f"{labels['pipeline']}: decided {len(answers)} of {len(chunk)} turns; a decider answers every turn")
            for turn, answer in zip(chunk, answers):
                decided[_key(turn.episode, turn.number)] = answer
            if handle is not None:
                handle.write("".join(json.dumps(_record(t, a), ensure_ascii=False) + "\n" for t, a in zip(chunk, answers)))
                handle.flush()
            if on_progress:
                on_progress(total - len(todo) + start + len(chunk), total)
    finally:
        if handle is not None:
            handle.close()
    decisions = [decided.get(_key(t.episode, t.number)) or _from_record(known[_key(t.episode, t.number)]) for t in turns]
    scores = score_real(turns, decisions, resamples=resamples, seed=seed)
    first_error = next((d.error for d in decisions if d.error), None)
    scores.extra = {**labels, "decided": len(todo), "seconds": round(spent, 2),
                    "turns_per_s": round(len(todo) / spent, 2) if spent > 0 else None,
                    **({"first_error": first_error} if first_error else {})}
    if folder is not None:
        write_atomic(folder / "summary.json", json.dumps(scores.as_json(), indent=1) + "\n")
    return scores


# ---------------------------------------------------------------- the table


_SHOWN = {
    "roc_auc": "ROC AUC (p_roll ranks the DM's rolls)",
    "average_precision": "average precision",
    "roll_rate_negatives": "rolls where the DM did not",
    "recall": "rolls where the DM did (recall)",
    "skill_top1": "DM's check is the first ranked",
    "skill_top3": "DM's check in the first three",
    "impossible_rate": "turns called impossible",
}


def real_table(scores: RealScores, title: str = "real play") -> Any:
    """The scores as a rich table, each with its 95% interval over episodes."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, box=box.SIMPLE_HEAD,
                  caption=f"{scores.turns} player turns, {scores.positives} followed by a check, {scores.episodes} episode(s)"
                          + (f", {scores.skill_scored} with a skill or ability check to name" if scores.skill_scored else "")
                          + (f"; {scores.errors} error(s)" if scores.errors else ""))
    table.add_column("score")
    table.add_column("value", justify="right")
    table.add_column("95% CI (episodes)", justify="right")
    for key in RATES:
        value, ci = getattr(scores, key), scores.ci.get(key)
        table.add_row(_SHOWN[key], "—" if value is None else f"{value:.3f}", "—" if not ci else f"{ci[0]:.3f}–{ci[1]:.3f}")
    return table
