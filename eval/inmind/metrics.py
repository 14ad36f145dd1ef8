"""The InMind metrics, defined once: top-k, baseline match, masked-span exact match, role accuracy.

Every function takes gold and predicted values and returns plain numbers, so the runner, the
report and the tests share one definition.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from . import roles as _roles

# --- player identification -------------------------------------------------------------


def clean_ranking(predicted: Sequence[Any], candidates: Sequence[str]) -> list[str]:
    """The model's ranking read leniently ("Player C", "c", "玩家C" -> "C"), unknown labels and repeats dropped."""
    out: list[str] = []
    wanted = {c.upper(): c for c in candidates}
    for item in predicted or []:
        text = str(item).strip().upper()
        found = None
        if text in wanted:
            found = wanted[text]
        else:
            letters = [c for c in re.findall(r"(?<![A-Z])[A-Z](?![A-Z])", text) if c in wanted]
            found = wanted[letters[-1]] if letters else None
        if found and found not in out:
            out.append(found)
    return out


def top_k(ranking: Sequence[str], answer: str, k: int) -> bool:
    """The answer is among the first ``k`` of the ranking."""
    return answer in list(ranking)[:k]


def baseline_match(ranking: Sequence[str], baseline_ranking: Sequence[str]) -> bool:
    """The model's first pick is the embedding baseline's first pick (paper: "BERT Match")."""
    return bool(ranking) and bool(baseline_ranking) and ranking[0] == baseline_ranking[0]


# --- reflection alignment and trace attribution -------------------------------------------


def read_fill(value: Any) -> str:
    """The digits a model gave for one mask: "3", 3, "3号", "Player 3", [1, 6], "1和6" -> "3" / "16"."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "".join(read_fill(v) for v in value)
    return "".join(re.findall(r"[0-9]", str(value).translate(str.maketrans("０１２３４５６７８９", "0123456789"))))


def fill_correct(gold: str, predicted: Any, *, is_seat: bool = True) -> bool:
    """One masked span: seat spans compare as sets of seats ("16" == "61"); other spans compare digits exactly."""
    got = read_fill(predicted)
    if is_seat:
        return bool(got) and sorted(set(got)) == sorted(set(gold)) and len(got) == len(gold)
    return got == gold


def score_fills(gold: Mapping[str, str], predicted: Mapping[str, Any] | None, is_seat: Mapping[str, bool] | None = None) -> dict[str, bool]:
    """Per-span correctness for an answer sheet (a missing key is wrong); keys are matched case-insensitively."""
    given = {_mask_key(k): v for k, v in (predicted or {}).items()}
    return {key: fill_correct(answer, given.get(_mask_key(key)), is_seat=(is_seat or {}).get(key, True)) for key, answer in gold.items()}


def _mask_key(key: Any) -> str:
    digits = re.findall(r"[0-9]+", str(key))
    return f"MASK_{int(digits[0])}" if digits else str(key)


def exact_match(correct: Mapping[str, bool], keys: Sequence[str] | None = None) -> bool:
    """All the given spans (all, by default) are right: the paper's per-reflection / per-trace exact match."""
    keys = list(correct) if keys is None else list(keys)
    return bool(keys) and all(correct[k] for k in keys)


# --- role inference --------------------------------------------------------------------------


def read_role(value: Any) -> str | None:
    """A role id from the model's words, through the pack's aliases; None when it names no role."""
    if value is None:
        return None
    text = re.sub(r"[\[\]【】()（）]", " ", str(value)).strip()
    candidates = [text, text.split(" of ")[0], text.split("/")[0], text.split(",")[0]]
    for cand in candidates:
        try:
            return _roles.resolve_role(cand.strip())
        except Exception:
            continue
    return None


def _seat_key(key: Any) -> str:
    digits = re.findall(r"[0-9]+", str(key))
    return digits[-1] if digits else str(key)


def role_scores(truth: Mapping[str, str], predicted: Mapping[str, Any] | None) -> tuple[float, float]:
    """(strict, relaxed) share of seats whose role is right, over all seats in ``truth``.

    Strict: the exact role. Relaxed: the group (Informed Good = Merlin/Percival, Uninformed
    Good = Loyal, Evil = Morgana/Assassin). A seat the model left out counts as wrong.
    """
    given = {_seat_key(k): read_role(v) for k, v in (predicted or {}).items()}
    strict = relaxed = 0
    for seat, role in truth.items():
        guess = given.get(str(seat))
        if guess is None:
            continue
        strict += guess == role
        relaxed += _roles.relaxed_group(guess) == _roles.relaxed_group(role)
    n = len(truth) or 1
    return strict / n, relaxed / n


def weighted_game_score(round_scores: Mapping[int, float], weights: Sequence[float]) -> float:
    """A game's role-inference score: round scores (1-based rounds) weighted by the released weights."""
    return sum(w * round_scores.get(i + 1, 0.0) for i, w in enumerate(weights))
