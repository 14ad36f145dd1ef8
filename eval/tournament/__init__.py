"""Tournaments by side (Werewolf Arena's design): a village model against a Mafia model.

    report = run_tournament("mafia", "scripted:heuristic,scripted:bluff,scripted:random", games=20, out="runs/t")
    report["matrix"]    # open-side win rate per (open model, hidden model), Wilson CIs
    report["ratings"]   # Bradley-Terry with a side term, bootstrap CIs

Resumable from its folder (``results.jsonl`` and one log per game); ``--cluster ray`` plays the
games on Ray (``eval.cluster.tournament_runner``).
"""
from ._run import (Match, check_tournament, model_spec, new_match_game, parse_models, play_match, played_row, run_tournament, schedule,
                   sides_of)
from ._stats import fit_ratings, rate_row, ratings, tournament_report

__all__ = ["Match", "check_tournament", "model_spec", "new_match_game", "parse_models", "play_match", "played_row", "run_tournament",
           "schedule", "sides_of", "fit_ratings", "rate_row", "ratings", "tournament_report"]
