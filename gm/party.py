"""Casting between fights at the table: "I cast Cure Wounds on Brisa" heals by the spell, not by a Medicine check.

Between fights the characters are the party of the last fight (its hit points, slots and magic
points as the fight left them) or, before any fight, fresh from their sheets; a spell cast
between fights changes them and they are kept in the session (the ended fight's record, or
``session.party``). A character whose sheet lists no spells is left to the GM's usual judgement.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from .combat import Combat, Combatant, CombatEvent, combatant_from_sheet
from .combat.spells import read_cast

__all__ = ["cast_between_fights", "party_for_fight"]


def _party(session: Any, ruleset: Any, sheets: list[Any]) -> tuple[dict[str, Combatant], Combat | None]:
    """The characters as they stand now, and the ended fight that holds them (None: from ``session.party`` or the sheets)."""
    if session.combat is not None:
        fight = Combat.from_json(session.combat)
        if fight.over:
            return {c.name: c for c in fight.combatants.values() if c.side == "party"}, fight
    kept = {name: Combatant.model_validate(c) for name, c in (session.party or {}).items()}
    for sheet in sheets:
        kept.setdefault(sheet.name, combatant_from_sheet(sheet, ruleset))
    return kept, None


def cast_between_fights(session: Any, ruleset: Any, sheets: list[Any], caster: str, text: str,
                        dice: Callable[[], random.Random] | None = None) -> list[CombatEvent] | None:
    """The events of a line that casts a spell outside a fight, by the rules; None when it is not one.

    ``dice`` gives the generator, asked only when a spell is really cast (the table's dice counter moves then).

    Raises:
        CombatError: the spell is not on the sheet, or no slot / magic / power points are left.
    """
    if session.combat is not None and not Combat.from_json(session.combat).over:
        return None  # a fight is on: its own action reads the line
    me = next((s for s in sheets if s.name == caster), None)
    if me is None or not me.spells:
        return None
    party, fight = _party(session, ruleset, sheets)
    found = read_cast(list(party), caster, text)
    if found is None:
        return None
    spell, targets = found
    who = party[caster]
    rng = dice() if dice is not None else None
    chosen = [party[t] for t in targets] or [who]
    if ruleset.name == "dnd5e":
        from .combat.spells import cast

        events = cast(None, who, spell, chosen, rng=rng)
    else:
        from .combat.powers import cast_power

        events = cast_power(None, who, spell, chosen, rng=rng)
    if fight is not None:
        session.combat = fight.to_dict()
    else:
        session.party = {name: c.model_dump(mode="json") for name, c in party.items()}
    return events


def party_for_fight(session: Any, sheets: list[Any]) -> list[Any]:
    """Who enters a fight: each character as spells cast before it left them (``session.party``), else its sheet."""
    kept = {name: Combatant.model_validate(c) for name, c in (session.party or {}).items()}
    return [kept.get(sheet.name) or sheet for sheet in sheets]
