"""InMind (seed 000): the profile prompt (Stage 1) and the four task steps (Stage 2)."""
from .steps import (
    Fills,
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
)

__all__ = ["Fills", "ProfileResult", "Ranking", "RoleMap", "build_profile", "chained_game", "fill_reflection", "fill_trace", "infer_roles", "messages_for", "rank_players"]
