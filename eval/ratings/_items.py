"""Items from a JSON Lines file instead of MOE runs: any context, one or two candidate lines, optional metadata.

One line per item::

    {"id": "s1", "context": [{"speaker": "Ann", "text": "I pick the lock."}], "ruleset": "dnd5e",
     "candidates": [{"condition": "gpt", "text": "Roll Sleight of Hand."}, {"condition": "human", "text": "Give me a DEX check."}],
     "metadata": {"source": "pilot"}}

``context`` may also be plain text (one turn); a candidate may be plain text (its condition is then
``cand1`` or ``cand2`` by position). One candidate makes a score item; two make two score items
(``--mode score``), one A/B item with the sides drawn at random (``ab``), or both. Every mistake is one
line naming the file, the line and the key.
"""
from __future__ import annotations

import random
from pathlib import Path

from rulesets import FileProblem, read_jsonl

from ._errors import StudyError

MAX_CONTEXT_TURNS = 400
TEXT_MAX = 20_000


def _text(value, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise StudyError(f"{where}: '{key}' must be non-empty text")
    if len(value) > TEXT_MAX:
        raise StudyError(f"{where}: '{key}' is longer than {TEXT_MAX} characters")
    return value.strip()


def _turns(value, where: str) -> list[dict]:
    if isinstance(value, str):
        return [{"speaker": "", "text": _text(value, where, "context")}]
    if not isinstance(value, list) or not value:
        raise StudyError(f"{where}: 'context' must be text or a list of {{\"speaker\", \"text\"}} turns")
    if len(value) > MAX_CONTEXT_TURNS:
        raise StudyError(f"{where}: 'context' has {len(value)} turns; keep the last {MAX_CONTEXT_TURNS} or fewer")
    turns = []
    for k, turn in enumerate(value):
        if not isinstance(turn, dict) or "text" not in turn:
            raise StudyError(f"{where}: 'context'[{k}] lacks the key 'text' (a turn is {{\"speaker\", \"text\"}})")
        speaker = turn.get("speaker", "")
        if not isinstance(speaker, str):
            raise StudyError(f"{where}: 'context'[{k}].'speaker' must be text")
        turns.append({"speaker": speaker.strip(), "text": _text(turn["text"], where, f"context[{k}].text")})
    return turns


def _candidates(value, where: str) -> list[tuple[str, str]]:
    if not isinstance(value, list) or len(value) not in (1, 2):
        raise StudyError(f"{where}: 'candidates' must list one line to score or two to compare")
    out = []
    for k, cand in enumerate(value):
        if isinstance(cand, str):
            out.append((f"cand{k + 1}", _text(cand, where, f"candidates[{k}]")))
            continue
        if not isinstance(cand, dict) or "text" not in cand:
            raise StudyError(f"{where}: 'candidates'[{k}] lacks the key 'text'")
        condition = cand.get("condition", f"cand{k + 1}")
        out.append((_text(condition, where, f"candidates[{k}].condition"), _text(cand["text"], where, f"candidates[{k}].text")))
    if len(out) == 2 and out[0][0] == out[1][0]:
        raise StudyError(f"{where}: both candidates have the condition {out[0][0]!r}; name them apart")
    return out


def read_items(path: str | Path, *, mode: str = "score", seed: int = 0) -> tuple[list[dict], list[dict], list[str]]:
    """Contexts, items and conditions for ``Study.create`` from an items file (see the module doc)."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"--items {path}: no such file; write one JSON object a line with 'context' and 'candidates'")
    try:  # the shared reader: one line naming file:line for bad JSON, a non-object line or bad UTF-8
        rows = list(read_jsonl(path, on_torn="error", what="items file").numbered())
    except FileProblem as problem:
        raise StudyError(str(problem)) from None
    rng = random.Random(f"{seed}:items")
    contexts, items, conditions, seen = [], [], [], set()
    for number, row in rows:
        where = f"{path}:{number}"
        for key in ("context", "candidates"):
            if key not in row:
                raise StudyError(f"{where}: missing key '{key}'")
        iid = str(row.get("id", f"line{number}"))
        if iid in seen:
            raise StudyError(f"{where}: the id {iid!r} is used twice; give each item its own 'id'")
        seen.add(iid)
        metadata = row.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise StudyError(f"{where}: 'metadata' must be an object")
        ruleset = row.get("ruleset", "")
        if not isinstance(ruleset, str):
            raise StudyError(f"{where}: 'ruleset' must be text")
        cands = _candidates(row["candidates"], where)
        contexts.append({"instance_id": iid, "ruleset": ruleset, "turns": _turns(row["context"], where)})
        for cond, _ in cands:
            if cond not in conditions:
                conditions.append(cond)
        if len(cands) == 1 and mode == "ab":
            raise StudyError(f"{where}: --mode ab needs two 'candidates' on every line (this one has one)")
        common = {"instance_id": iid, "checks": [], "metadata": metadata}
        if len(cands) == 1 or mode in ("score", "both"):
            items += [{**common, "kind": "score", "condition": c, "utterance": t} for c, t in cands]
        if len(cands) == 2 and mode in ("ab", "both"):
            (ca, ta), (cb, tb) = cands if rng.random() < 0.5 else cands[::-1]
            items.append({**common, "kind": "ab", "condition": ca, "utterance": ta, "condition_b": cb, "utterance_b": tb,
                          "checks_b": []})
    if not items:
        raise StudyError(f"--items {path}: the file has no items; write one JSON object a line")
    return contexts, items, conditions
