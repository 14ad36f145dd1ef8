"""Belief scoring (MafiaScope): first-order accuracy and recall, calibration, second order,
vote coupling and belief dynamics, each with a cluster bootstrap over games.

``score_path("../shared/data/mafiascope")`` imports and scores a folder of games.
"""
from ._bootstrap import cluster_bootstrap
from ._compare import compare_paths, compare_probe_logs
from ._fork import ForkError, find_snapshot, fork_game
from ._data import BeliefGame, Vote, is_evil, norm_role
from ._metrics import attitude_from_guess, brier, ece, reliability_bins
from ._report import plot_report, score_games, score_path

__all__ = [
    "BeliefGame", "ForkError", "compare_paths", "compare_probe_logs", "Vote", "find_snapshot", "fork_game", "attitude_from_guess", "brier", "cluster_bootstrap", "ece", "is_evil", "norm_role",
    "plot_report", "reliability_bins", "score_games", "score_path",
]
