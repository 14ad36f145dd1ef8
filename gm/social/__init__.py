"""What Avalon and Mafia share: the event log, seats (LLM, human, scripted), the moderator loop.

The games themselves, by name, are in ``gm.games`` (``GAMES``, ``simulate``, ``play``).
"""
from .ask import Ask, resolve_name
from .events import EventLog, LogFormatError, event_key, parse_key, public_events, read_log, view_for, visible_to
from .game import SocialGame
from .runner import GameInterrupted, batch_report, finished_games, game_id, new_game, win_table
from .seats import HumanSeat, LlmSeat, ScriptedSeat, Seat, SeatSpec, build_seats, parse_seats

__all__ = [
    "Ask", "resolve_name", "EventLog", "LogFormatError", "event_key", "parse_key", "public_events", "read_log",
    "view_for", "visible_to", "SocialGame", "HumanSeat", "LlmSeat", "ScriptedSeat", "Seat", "SeatSpec",
    "build_seats", "parse_seats", "GameInterrupted", "batch_report", "finished_games", "game_id", "new_game", "win_table",
]
