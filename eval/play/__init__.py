"""Play eval: score the GM's judgement on single player lines (roll or not, which check, impossible acts).

    from eval.play import load_cases, run_cases, format_summary
    cases = load_cases(DEV_CASES)                      # or your own YAML
    summary = run_cases(cases, "local", "runs/play_dev")
    print(summary.balanced_roll_accuracy, summary.right_check)

``DEV_CASES`` is the development set; ``HELDOUT_CASES`` is kept aside and scored only at the
end, so the GM is not tuned to one set; ``FINAL_CASES`` is a fresh set written apart from both,
scored once at the very end.
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

__all__ = [
    "CaseError", "Expect", "PlayCase", "load_cases", "parse_cases", "trpg_packs",
    "PIPELINE", "RunError", "case_seed", "decide", "outcome_of", "read_decisions", "run_cases",
    "ECHO_OVERLAP", "MIN_NARRATION_WORDS", "PROMPT_TELLTALES", "CaseScore", "Summary", "format_summary",
    "is_echo", "narration_problem", "prompt_text", "score_case", "summarize",
    "CASES_DIR", "DEV_CASES", "HELDOUT_CASES", "FINAL_CASES",
]
