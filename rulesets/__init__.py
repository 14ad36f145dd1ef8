"""Rule-set packs as data (dnd5e, coc7e, pf2e, swade, avalon, mafia) and name resolution."""
from ._errors import VgmError

__all__ = ["VgmError"]
