"""Adjudication — kept for compatibility; difficulty, rolls and judging now live in ``gm.systems``.

Each rule system is one module there (``d20``, ``degrees``, ``percentile``, ``trait``), looked
up by ``gm.systems.mechanic_for``; the functions below dispatch to it. Every name this module
used to define is still importable from here.
"""
from __future__ import annotations

from .systems import Difficulty, choose_difficulty, hardest, judge, make_roll, player_roll, record, roll_hint  # noqa: F401
from .systems.d20 import LADDER as DND_LADDER
from .systems.degrees import ADJUST as PF2_ADJUST, LEVEL_DC as PF2_LEVEL_DC  # noqa: F401
from .systems.percentile import DIVISOR as COC_DIVISOR, LEVELS as COC_LEVELS  # noqa: F401
from .systems.trait import TN as SWADE_TN  # noqa: F401

__all__ = ["Difficulty", "choose_difficulty", "make_roll", "player_roll", "judge", "roll_hint", "DND_LADDER", "PF2_LEVEL_DC"]
