"""Mafia moderated by the GM: ``MafiaGame(seats).play()`` (roles and rules from the ``mafia`` pack)."""
from .engine import MafiaGame
from .table import MafiaTable, mafia_table

__all__ = ["MafiaGame", "MafiaTable", "mafia_table"]
