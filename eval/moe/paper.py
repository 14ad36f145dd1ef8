"""Tachikuma's Table 2 (seed 001) beside our runs: the paper's GPT-4 figures, the difference, and whether it compares.

The paper measured six prompting pipelines with GPT-3.5 and GPT-4 on 1,003 excerpts of Chinese forum
game logs, scored by its formulas (1)-(6) with its own prompts. A Δ against GPT-4 says something only
when our run matches it in model, language, prompting and metric (and, which we cannot check, data):
every row names what differs, so a Δ between a 0.5B model on English CRD3 and GPT-4 on Chinese logs is
never read as a gap between methods.
"""
from __future__ import annotations

from typing import Any

# Tachikuma Table 2 (CF, SF in %), GPT-3.5 and GPT-4; the non-model baselines have no paper row.
TACHIKUMA_TABLE2: dict[str, dict[str, tuple[float, float]]] = {
    "template": {"gpt-3.5": (42.02, 15.30), "gpt-4": (43.21, 15.93)},
    "template_zcot": {"gpt-3.5": (39.28, 14.46), "gpt-4": (42.45, 16.25)},
    "char_skill": {"gpt-3.5": (50.43, 14.78), "gpt-4": (53.55, 16.79)},
    "tbs_statistic": {"gpt-3.5": (53.32, 5.03), "gpt-4": (57.94, 5.03)},
    "tbs_zcot": {"gpt-3.5": (50.50, 12.88), "gpt-4": (53.45, 17.39)},
    "tbs": {"gpt-3.5": (53.32, 15.91), "gpt-4": (57.94, 20.02)},
}
PAPER_ROW_NAMES = {
    "template": "template prompt", "template_zcot": "template prompt + zcot", "char_skill": "char prompt + skill prompt",
    "tbs_statistic": "pre-char + char + statistic predictor", "tbs_zcot": "pre-char + char + skill + zcot",
    "tbs": "pre-char + char + skill (TBS)", "last_speaker": "(not in the paper)", "statistic": "(statistic predictor alone; not a row)",
    "knn": "(not in the paper)", "oracle_char": "(not in the paper: upper bound on who)",
}


def _pipeline(name: str) -> str:
    return name.split(" ")[0]  # "tbs (runs/a/tbs)": a second run of one pipeline in a report


def differs(model: str | None, metrics: dict[str, Any]) -> list[str]:
    """What makes this run unlike the paper's GPT-4 row, each in a few words; empty when nothing we can check does."""
    out = []
    if "gpt-4" not in str(model or "").lower() or "gpt-4o" in str(model or "").lower():
        out.append(f"model {model or '-'} (paper: GPT-4)")
    if (metrics.get("lang") or "en") != "zh":
        out.append("English prompts (paper: Chinese)")
    if metrics.get("prompting") not in (None, "faithful"):
        out.append(f"{metrics.get('prompting')} prompting (paper: its own prompts)")
    if metrics.get("metric") not in (None, "paper"):
        out.append("per-tuple metric (paper: formulas (1)-(6))")
    return out


def beside_gpt4(rows: list[Any]) -> list[dict[str, Any]]:
    """For each row with a paper row: ours, GPT-4's, the difference (points) and what differs."""
    out = []
    for row in rows:
        paper = TACHIKUMA_TABLE2.get(_pipeline(row.pipeline))
        if paper is None:
            continue
        cf, sf = (100 * float((row.metrics.get(k) or {}).get("value", float("nan"))) for k in ("cf", "sf"))
        gpt4 = paper["gpt-4"]
        why = differs(row.model, row.metrics)
        out.append({"pipeline": row.pipeline, "paper_row": PAPER_ROW_NAMES[_pipeline(row.pipeline)], "cf": cf, "sf": sf,
                    # issue 42: no Δ where model, language, prompting or metric differ: that is a distance, not a finding
                    "cf_gpt4": gpt4[0], "sf_gpt4": gpt4[1], "cf_delta": float("nan") if why else cf - gpt4[0],
                    "sf_delta": float("nan") if why else sf - gpt4[1],
                    "comparable": not why, "differs": why})
    return out


def gpt4_markdown(rows: list[Any]) -> list[str]:
    """The "Δ vs GPT-4" table of a compare report (no lines when no row has a paper row)."""
    beside = beside_gpt4(rows)
    if not beside:
        return []
    num = lambda v: "-" if v != v else f"{v:.1f}"  # noqa: E731
    delta = lambda v: "not comparable" if v != v else f"{v:+.1f}"  # noqa: E731
    lines = ["", "Beside the paper: Tachikuma Table 2, GPT-4 (CF/SF in %; Δ = ours − GPT-4, in points). *Comparable* needs the same "
             "model, language, prompting and metric, and only a comparable row gets a Δ; the data can never be checked here (the paper's "
             "1,003 Chinese forum excerpts are not published), so even a comparable row is a like-for-like run on other data:", "",
             "| pipeline | paper's row | CF ours | CF GPT-4 | Δ vs GPT-4 | SF ours | SF GPT-4 | Δ vs GPT-4 | comparable |",
             "|---|---|---|---|---|---|---|---|---|"]
    for b in beside:
        mark = "yes (data unchecked)" if b["comparable"] else "no: " + "; ".join(b["differs"])
        lines.append(f"| {b['pipeline']} | {b['paper_row']} | {num(b['cf'])} | {b['cf_gpt4']:.2f} | {delta(b['cf_delta'])} | "
                     f"{num(b['sf'])} | {b['sf_gpt4']:.2f} | {delta(b['sf_delta'])} | {mark} |")
    return lines
