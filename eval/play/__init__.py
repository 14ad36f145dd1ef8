"""Play eval: score the GM's judgement on single player lines (roll or not, which check, impossible acts).

    from eval.play import load_cases, run_cases, format_summary
    cases = load_cases(DEV_CASES)                      # or your own YAML
    summary = run_cases(cases, "local", "runs/play_dev")
    print(summary.balanced_roll_accuracy, summary.right_check)

Each set under ``CASES_DIR`` says its ``role:`` (``set_role``). ``train``: tuned on, or its lines were
copied into the packs' example lines (dev, heldout, final, fresh, fresh2-7) — training data, no
longer a measure. ``dev``: scored, then read for development, its lines not copied into the packs
(fresh8-34, imp5). ``test``: scored, never read, and no line of it may be a pack example line
(imp6, blind40, replies_blind, replies_blind2); ``leaked_lines()`` checks that. Write a new set
blind and mark it ``test``. ``replies_dev`` (dev) scores the words of replies (``expect.reply``).
"""
from ._cases import CASES_DIR, ROLES, CaseError, Expect, HistoryLine, PlayCase, ReplyExpect, load_cases, parse_cases, set_role, trpg_packs
from ._hygiene import Leak, leaked_lines, pack_lines
from ._runner import PIPELINE, RunError, case_seed, decide, outcome_of, play_history, read_decisions, run_cases
from ._summary import (
    ECHO_OVERLAP, MIN_NARRATION_WORDS, PROMPT_TELLTALES, CaseScore, Summary, carries, format_summary, is_echo,
    leaked_secrets, narration_problem, prompt_text, score_case, speaks, summarize,
)

DEV_CASES = CASES_DIR / "dev.yaml"
HELDOUT_CASES = CASES_DIR / "heldout.yaml"
FINAL_CASES = CASES_DIR / "final.yaml"
FRESH_CASES = CASES_DIR / "fresh.yaml"
FRESH2_CASES = CASES_DIR / "fresh2.yaml"
FRESH3_CASES = CASES_DIR / "fresh3.yaml"
FRESH4_CASES = CASES_DIR / "fresh4.yaml"

__all__ = [
    "CaseError", "Expect", "HistoryLine", "ReplyExpect", "PlayCase", "load_cases", "parse_cases", "trpg_packs", "ROLES", "set_role",
    "Leak", "leaked_lines", "pack_lines",
    "PIPELINE", "RunError", "case_seed", "decide", "outcome_of", "play_history", "read_decisions", "run_cases",
    "ECHO_OVERLAP", "MIN_NARRATION_WORDS", "PROMPT_TELLTALES", "CaseScore", "Summary", "format_summary",
    "is_echo", "narration_problem", "prompt_text", "score_case", "summarize", "carries", "speaks", "leaked_secrets",
    "CASES_DIR", "DEV_CASES", "HELDOUT_CASES", "FINAL_CASES", "FRESH_CASES", "FRESH2_CASES", "FRESH3_CASES",
    "FRESH4_CASES",
]
