"""Play eval: score the GM's judgement on single player lines (roll or not, which check, impossible acts).

    from eval.play import load_cases, run_cases, format_summary
    cases = load_cases(DEV_CASES)                      # or your own YAML
    summary = run_cases(cases, "local", "runs/play_dev")
    print(summary.balanced_roll_accuracy, summary.right_check)

Seven sets of 64 lines, each written by someone who had not read the packs' example lines, and
each kept unseen until a round of work was done: ``DEV_CASES`` (tuned on from the start),
``HELDOUT_CASES``, ``FINAL_CASES`` and ``FRESH_CASES`` (each scored once, then used for the next
round), ``FRESH2_CASES`` and ``FRESH3_CASES`` (each scored once at the end of a round) and
``FRESH4_CASES``, written for the latest round and scored once at its end. docs/play.md says how
each was used.
"""
from pathlib import Path

from ._cases import CaseError, Expect, PlayCase, load_cases, parse_cases, trpg_packs
from ._runner import PIPELINE, RunError, case_seed, decide, outcome_of, read_decisions, run_cases
from ._summary import (
    ECHO_OVERLAP, MIN_NARRATION_WORDS, PROMPT_TELLTALES, CaseScore, Summary, format_summary, is_echo,
    narration_problem, prompt_text, score_case, summarize,
)

CASES_DIR = Path(__file__).parent / "cases"
DEV_CASES = CASES_DIR / "dev.yaml"
HELDOUT_CASES = CASES_DIR / "heldout.yaml"
FINAL_CASES = CASES_DIR / "final.yaml"
FRESH_CASES = CASES_DIR / "fresh.yaml"
FRESH2_CASES = CASES_DIR / "fresh2.yaml"
FRESH3_CASES = CASES_DIR / "fresh3.yaml"
FRESH4_CASES = CASES_DIR / "fresh4.yaml"

__all__ = [
    "CaseError", "Expect", "PlayCase", "load_cases", "parse_cases", "trpg_packs",
    "PIPELINE", "RunError", "case_seed", "decide", "outcome_of", "read_decisions", "run_cases",
    "ECHO_OVERLAP", "MIN_NARRATION_WORDS", "PROMPT_TELLTALES", "CaseScore", "Summary", "format_summary",
    "is_echo", "narration_problem", "prompt_text", "score_case", "summarize",
    "CASES_DIR", "DEV_CASES", "HELDOUT_CASES", "FINAL_CASES", "FRESH_CASES", "FRESH2_CASES", "FRESH3_CASES",
    "FRESH4_CASES",
]
