"""The three factors of Tachikuma 6.2's subjective study, each with the one line a rater reads."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Criterion:
    """One factor a rater scores from 1 (poor) to 5 (excellent)."""

    id: str
    label: str
    hint: str


CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "naturalness",
        "Naturalness",
        "Sounds like a real GM speaking at the table: fluent, in voice, not robotic, stiff or padded.",
    ),
    Criterion(
        "groundedness",
        "Groundedness",
        "Builds on this scene: answers what the players just said and did, not generic filler.",
    ),
    Criterion(
        "factual",
        "Factual correctness",
        "Gets the facts right: the right character, a sensible check for the action, nothing that contradicts the log or the rules.",
    ),
)
CRITERION_IDS: tuple[str, ...] = tuple(c.id for c in CRITERIA)
SCORE_MIN, SCORE_MAX = 1, 5
AB_CHOICES: tuple[str, ...] = ("a", "b", "tie", "both_bad")
"""A/B answers as Chatbot Arena takes them: A better, B better, a tie, or a tie where both lines are bad."""
