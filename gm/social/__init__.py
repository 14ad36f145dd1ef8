"""What Avalon and Mafia share: the event log, seats (LLM, human, scripted), the moderator loop."""
from .ask import Ask, resolve_name
from .events import EventLog, LogFormatError, event_key, parse_key, public_events, read_log, view_for, visible_to
from .game import SocialGame
from .runner import engine_class, play, simulate, win_table
from .seats import HumanSeat, LlmSeat, ScriptedSeat, Seat, SeatSpec, build_seats, parse_seats

__all__ = [
    "Ask", "resolve_name", "EventLog", "LogFormatError", "event_key", "parse_key", "public_events", "read_log",
    "view_for", "visible_to", "SocialGame", "HumanSeat", "LlmSeat", "ScriptedSeat", "Seat", "SeatSpec",
    "build_seats", "parse_seats", "engine_class", "play", "simulate", "win_table",
]
