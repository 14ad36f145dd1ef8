"""Character sheets — kept for compatibility; the sheets now live in ``gm.systems``.

Each mechanic module holds its own sheet (``gm.systems.d20.Dnd5eSheet``, ``degrees.Pf2eSheet``,
``percentile.Coc7eSheet``, ``trait.SwadeSheet``); loading and finding characters is in
``gm.systems``. Every name this module used to define is still importable from here.
"""
from __future__ import annotations

from .systems import CHARACTERS_DIR as DATA  # noqa: F401
from .systems import (
    MECHANICS,
    PACK_SYSTEMS,
    CharacterError,
    RollPlan,
    Sheet,
    find_character,
    load_character,
    parse_character,
    ready_characters,
)
from .systems.d20 import Dnd5eSheet
from .systems.degrees import RANKS as PF2_RANKS  # noqa: F401
from .systems.degrees import Pf2eSheet
from .systems.percentile import DERIVED as COC_DERIVED  # noqa: F401
from .systems.percentile import Coc7eSheet
from .systems.trait import CORE as SWADE_CORE  # noqa: F401
from .systems.trait import SwadeSheet
from . import sheet_rules  # noqa: F401  (adds the games' rules to every sheet load_character reads)

__all__ = [
    "CharacterError", "RollPlan", "Sheet", "Dnd5eSheet", "Coc7eSheet", "Pf2eSheet", "SwadeSheet",
    "SHEETS", "load_character", "parse_character", "ready_characters", "find_character",
]

SHEETS: dict[str, type[Sheet]] = {pack: MECHANICS[system].sheet for pack, system in PACK_SYSTEMS.items()}
SYSTEMS: dict[str, type[Sheet]] = {system: mechanic.sheet for system, mechanic in MECHANICS.items()}
