"""Avalon moderated by the GM: ``AvalonGame(seats).play()`` (rules from the ``avalon`` pack)."""
from .engine import AvalonGame
from .table import AvalonTable, avalon_table

__all__ = ["AvalonGame", "AvalonTable", "avalon_table"]
