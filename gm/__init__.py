"""The Game Master: table state, checks, memory, the TRPG agent loop, and the Avalon/Mafia moderators.

Names are imported lazily (``from gm import AvalonGame`` loads only the Avalon engine), so one
area's imports never slow down or break another's. Add an export as one line in ``_LAZY``.
"""
from importlib import import_module

_LAZY = {
    # social deduction (issue 6): the games by name, and their engines
    "GAMES": "gm.games",
    "Game": "gm.games",
    "simulate": "gm.games",
    "play": "gm.games",
    "AvalonGame": "gm.avalon",
    "MafiaGame": "gm.mafia",
    "SocialGame": "gm.social",
    "LlmSeat": "gm.social",
    "HumanSeat": "gm.social",
    "ScriptedSeat": "gm.social",
    "view_for": "gm.social",
    # the TRPG Game Master (issue 5)
    "GameMaster": "gm.agent",
    "GMReply": "gm.agent",
    "Session": "gm.table",
    "Scenario": "gm.table",
    "load_scenario": "gm.table",
    "Memory": "gm.memory",
    "roll": "gm.dice",
    # rule systems (one module per mechanic) and combat
    "MECHANICS": "gm.systems",
    "mechanic_for": "gm.systems",
    "load_character": "gm.systems",
    "Combat": "gm.combat",
    "start_combat": "gm.combat",
    "start_encounter": "gm.combat",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gm' has no attribute {name!r}")


__all__ = list(_LAZY)
