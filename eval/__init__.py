"""Evaluation: MOE (CF/SF), InMind, belief probes, play eval and ratings, with the shared statistics in ``eval.stats``.

Like ``gm``, names are imported lazily (``from eval import compare_moe`` loads only the MOE
area), so one area's imports never slow down or break another's; each area's own
``__init__`` holds the rest of its public names. Add an export as one line in ``_LAZY``.
"""
from importlib import import_module

_LAZY = {
    # MOE (Tachikuma 3.2)
    "load_moe": "eval.moe",
    "score_moe": "eval.moe",
    "run_moe": "eval.moe",
    "compare_moe": "eval.moe",
    "build_report": "eval.moe",
    "RunFolder": "eval.moe",
    # InMind
    "load_sessions": "eval.inmind",
    "build_tasks": "eval.inmind",
    "run_inmind": "eval.inmind",
    # belief probes (MafiaScope)
    "load_games": "eval.beliefs",
    "score_path": "eval.beliefs",
    "fork_game": "eval.beliefs",
    # play eval
    "load_cases": "eval.play",
    "run_cases": "eval.play",
    # the paper's numbers, reproduced
    "reproduce": "eval.reproduce",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'eval' has no attribute {name!r}")


__all__ = list(_LAZY)
