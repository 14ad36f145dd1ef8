"""Which probes of a set a game's logs can score: found before a long probed run, not after it.

``vgm mafia score`` grades an answer only when its probe id is one the report knows, its answer
has that id's shape, and the game's log holds the ground truth the figure needs. A probe that
fails any of these still costs one model call per seat and step and is never graded; this
module names such probes, one line each (``vgm probes check FILE --game mafia``, and a warning
at the start of a probed ``simulate``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rulesets import VgmError

GAMES = ("mafia", "avalon")

SCORED: dict[str, tuple[str, str]] = {
    # probe id → (answer shape it must have, the figure `vgm <game> score` grades it with)
    "role_assessment": ("role_assessment", "first-order accuracy, Mafia recall, calibration"),
    "role_beliefs": ("role_beliefs", "probability on the true role, multi-class Brier"),
    "suspicion_ranking": ("suspicion_ranking", "vote coupling, volatility, flip rate"),
    "social_map": ("social_map", "second order (over-prediction, agreement)"),
    "planned_action": ("planned_action", "plan follow-through (the next day vote)"),
    "personality": ("personality", "Big Five attribution error (personality_mae)"),
    "personality_profile": ("personality", "Big Five attribution error (personality_mae)"),
}
"""What the belief report scores, by probe id (eval/beliefs/_report.py ``scored_probes`` counts the same ids)."""

_BY_SHAPE = {shape: pid for pid, (shape, _) in SCORED.items() if pid != "personality_profile"}


@dataclass(frozen=True)
class ScoringProblem:
    """One probe whose answers the report cannot grade, and why."""

    probe: str
    reason: str

    def __str__(self) -> str:
        return f"probe {self.probe!r}: {self.reason}"


def scoring_problems(probe_set: Any, game: str, *, personas: bool = False) -> list[ScoringProblem]:
    """Every probe of ``probe_set`` (a ``ProbeSet``) that ``vgm <game> score`` would leave ungraded.

    Args:
        game: the engine, ``mafia`` or ``avalon``.
        personas: the games record each LLM seat's generating Big Five (``--personas``), which
            the personality probes are graded against.
    """
    if game not in GAMES:
        raise VgmError(f"--game {str(game)[:40]!r}: give one of {', '.join(GAMES)}")
    ids = set(probe_set.ids())
    out = []
    for p in probe_set.probes:
        if p.id not in SCORED:
            if p.answer in _BY_SHAPE:
                out.append(ScoringProblem(p.id, f"answers of shape {p.answer} are scored only under the id "
                                                f"{_BY_SHAPE[p.answer]!r}; rename the probe to grade it"))
            else:
                out.append(ScoringProblem(p.id, f"answer type {p.answer!r} has no scorer in `vgm {game} score`; "
                                                "its answers are logged but never graded"))
            continue
        shape, figure = SCORED[p.id]
        if p.answer != shape:
            out.append(ScoringProblem(p.id, f"{figure} reads answers of shape {shape}, but this probe answers "
                                            f"{p.answer!r}; set answer: {shape}"))
        elif shape == "personality" and not personas:
            out.append(ScoringProblem(p.id, "graded against each seat's generating Big Five, which the log records "
                                            "only for LLM seats of a game run with --personas"))
        elif p.id == "social_map" and "role_assessment" not in ids:
            out.append(ScoringProblem(p.id, "graded against the others' same-step role_assessment answers; "
                                            "add a role_assessment probe to the set"))
        elif p.id == "planned_action" and game == "avalon":
            out.append(ScoringProblem(p.id, "graded against the seat's next day vote on a player; Avalon votes "
                                            "approve or reject a team, so nothing can grade it"))
        elif p.id == "planned_action" and not {"always", "own_turn"} & set(p.when):
            out.append(ScoringProblem(p.id, "graded against the seat's next day vote, but it is asked only at "
                                            f"{', '.join(p.when)}; add own_turn to when"))
    return out
