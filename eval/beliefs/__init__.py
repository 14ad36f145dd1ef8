"""Belief scoring (MafiaScope): first-order accuracy and recall, calibration, second order,
vote coupling and belief dynamics, each with a cluster bootstrap over games.

``score_path("../shared/data/mafiascope")`` imports and scores a folder of games. Game logs
(MafiaScope's layout and ours) are read by ``load_games``; ``seen_by`` says which events a
seat could see.
"""
from ._bootstrap import cluster_bootstrap
from ._compare import compare_paths, compare_probe_logs
from ._data import BeliefGame, Vote, entries, is_evil, norm_role, position, resolve
from ._edges import EDGE_COLUMNS, belief_edges, edges_text, export_edges, load_edges, save_edges, step_label, step_position
from ._edit_fork import arms_compare, belief_shift, compare_edit, edit_fork_compare
from ._edits import check_edits, edited_snapshot, load_edits
from ._fork import (ForkError, arm_comparison, compare_arms, find_snapshot, fork_compare, fork_game, spread, wilson_interval,
                    with_comparison)
from ._logs import (PROBE_LOG_SUFFIX, ImportError_, complete_prefix, count_moves, event_positions, games_from_events,
                    load_games, load_mafiascope_game, load_vgm_game, read_jsonl, repair_record, seen_by)
from ._metrics import attitude_from_guess, brier, calibration_rows, ece, reliability_bins
from ._report import plot_report, score_games, score_path
from ._viewer_data import (MIN_EDGE, branch_key, calibration_bins, dashboard_rows, deception_markers, fork_tree, game_steps,
                           metric_timeline, pooled_row, public_claims, role_track, round_graph, seat_series, second_order_pairs,
                           step_metrics)

__all__ = [
    "BeliefGame", "Vote", "entries", "is_evil", "norm_role", "position", "resolve",
    "load_games", "load_mafiascope_game", "load_vgm_game", "games_from_events", "read_jsonl", "ImportError_",
    "PROBE_LOG_SUFFIX", "complete_prefix", "repair_record", "count_moves", "seen_by", "event_positions",
    "compare_paths", "compare_probe_logs", "ForkError", "find_snapshot", "fork_game", "fork_compare", "arm_comparison", "compare_arms", "wilson_interval",
    "with_comparison", "spread", "load_edits", "check_edits", "edited_snapshot", "edit_fork_compare", "arms_compare", "compare_edit", "belief_shift",
    "attitude_from_guess", "brier", "calibration_rows", "cluster_bootstrap", "ece", "reliability_bins",
    "plot_report", "score_games", "score_path",
    "EDGE_COLUMNS", "belief_edges", "edges_text", "export_edges", "load_edges", "save_edges", "step_label", "step_position",
    "branch_key", "calibration_bins", "dashboard_rows", "deception_markers", "game_steps", "metric_timeline", "public_claims",
    "role_track", "seat_series", "second_order_pairs", "step_metrics", "pooled_row", "MIN_EDGE", "round_graph", "fork_tree",
]
