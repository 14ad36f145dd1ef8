"""InMind (seed 000): sessions, importers, seat masking, the four tasks, metrics, runner, report.

Common use::

    from eval.inmind import load_sessions, build_tasks
    sessions = load_sessions("data/inmind")          # released JSON files and/or our Avalon logs
    instances, counts = build_tasks(sessions)        # no model needed
"""
from .avalon_logs import load_avalon_log
from .importers import load_released, load_sessions, session_from_released
from .masking import Masked, Span, find_spans, mask, replace_seats, seat_spans
from .metrics import baseline_match, exact_match, fill_correct, role_scores, score_fills, top_k, weighted_game_score
from .report import build_report, report_tables
from .runner import count_tasks, run_inmind
from .session import EndPhase, GameState, InMindDataError, MissionResult, Proposal, Round, Session, StrategyNote, Utterance, Vote
from .tasks import MODES, ROUND_WEIGHTS, SETTINGS, TASKS, TaskInstance, build_tasks, round_weights

__all__ = [
    "load_avalon_log", "InMindDataError", "load_released", "load_sessions", "session_from_released",
    "Masked", "Span", "find_spans", "mask", "replace_seats", "seat_spans",
    "baseline_match", "exact_match", "fill_correct", "role_scores", "score_fills", "top_k", "weighted_game_score",
    "build_report", "report_tables", "count_tasks", "run_inmind",
    "EndPhase", "GameState", "MissionResult", "Proposal", "Round", "Session", "StrategyNote", "Utterance", "Vote",
    "MODES", "ROUND_WEIGHTS", "SETTINGS", "TASKS", "TaskInstance", "build_tasks", "round_weights",
]
