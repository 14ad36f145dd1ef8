"""Score one task instance's answer with the metrics of ``metrics.py``; the result goes in the run log."""
from __future__ import annotations

from typing import Any

from . import metrics as m
from .tasks import TaskInstance


def score(instance: TaskInstance, answer: Any, *, baseline: list[str] | None = None) -> dict[str, Any]:
    """The per-instance score record for ``answer`` (the parsed model output as a dict, or None)."""
    answer = answer or {}
    if instance.task == "player_identification":
        ranking = m.clean_ranking(answer.get("ranking") or [], instance.fields["candidates"])
        gold = instance.gold["answer"]
        out: dict[str, Any] = {"ranking": ranking, "top1": m.top_k(ranking, gold, 1), "top3": m.top_k(ranking, gold, 3)}
        if baseline is not None:
            out.update(
                baseline_ranking=baseline,
                baseline_top1=m.top_k(baseline, gold, 1),
                baseline_top3=m.top_k(baseline, gold, 3),
                baseline_match=m.baseline_match(ranking, baseline),
            )
        return out
    if instance.task in ("reflection_alignment", "trace_attribution"):
        answers, is_seat = instance.gold["answers"], instance.gold.get("is_seat", {})
        correct = m.score_fills(answers, answer.get("fills") or {}, is_seat)
        out = {
            "correct": correct,
            "spans": len(correct),
            "spans_right": sum(correct.values()),
            "seat_spans": sum(1 for k in correct if is_seat.get(k, True)),
            "seat_spans_right": sum(v for k, v in correct.items() if is_seat.get(k, True)),
            "exact": m.exact_match(correct),
        }
        if instance.task == "trace_attribution":
            notes = [keys for keys in instance.gold.get("notes", []) if keys]
            out["notes"] = len(notes)
            out["notes_exact"] = sum(m.exact_match(correct, keys) for keys in notes)
        return out
    if instance.task == "role_inference":
        strict, relaxed = m.role_scores(instance.gold["roles"], answer.get("roles") or {})
        return {"strict": strict, "relaxed": relaxed, "weight": instance.gold["weight"], "round_index": instance.gold["round_index"], "n_rounds": instance.gold["n_rounds"]}
    raise ValueError(f"unknown task {instance.task}")
