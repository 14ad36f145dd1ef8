"""InMind (seed 000): the profile prompt (Stage 1) and the four task steps (Stage 2), as registered steps."""
from .steps import (
    Fills,
    InMindState,
    ProfileResult,
    Ranking,
    RoleMap,
    build_profile,
    chained_game,
    fill_reflection,
    fill_trace,
    infer_roles,
    messages_for,
    rank_players,
    run_step,
)

__all__ = ["Fills", "InMindState", "ProfileResult", "Ranking", "RoleMap", "build_profile", "chained_game", "fill_reflection",
           "fill_trace", "infer_roles", "messages_for", "rank_players", "run_step"]
