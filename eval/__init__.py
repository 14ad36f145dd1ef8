"""Evaluation: MOE (CF/SF), InMind, probes and ratings, with the shared statistics in ``eval.stats``."""
