"""What a scene's prose marks for the GM alone, kept from the players.

A scene written as prose often carries the GM's own notes inline: "(GM only: six bandits wait in
the birch grove past the second bend)", "Secret: the mayor sealed the miners in himself." Left in
the scene, every answer, narration and out-of-character reply could read them out. Here each such
part leaves the players' scene and becomes a secret of the scenario: hidden until an act reaches
for it (its own words are the trigger) and a looking or searching check of the pack succeeds.

    public, notes = split_gm_only("A milestone reads HOLLIN 4. (GM only: bandits wait past the bend.)")
    # public == "A milestone reads HOLLIN 4.", notes == ["bandits wait past the bend."]
"""
from __future__ import annotations

import re
from typing import Any

from .table import Scenario, Secret

__all__ = ["split_gm_only", "keep_gm_only"]

# the words that open a part meant for the GM: "GM only", "DM's note", "Keeper only", "Secret", "Hidden"
_MARK = (r"(?:(?:gm|dm|keeper|referee|game\s*master|narrator)(?:'s|’s|s)?\s*(?:only|notes?|eyes\s+only|secrets?|info)"
         r"|secret(?:ly)?|hidden|not\s+known\s+to\s+the\s+(?:players|pcs|party|heroes)|unknown\s+to\s+the\s+(?:players|pcs|party|heroes))")
# bracketed: "(GM only: ...)", "[Secret - ...]"; the note runs to its closing bracket
_BRACKETED = re.compile(rf"\s*[(\[]\s*{_MARK}\s*[:\-–—]\s*([^)\]]+?)\s*[)\]]", re.I)
# a sentence that opens with the mark: "Secret: ..." runs to the end of its paragraph (a later public
# sentence after a note is rarer than a note in two sentences, and hiding too much tells nothing false)
_OPENING = re.compile(rf"(?:^|(?<=[.!?\"”])\s+|\n)\s*{_MARK}\s*[:\-–—]\s*([^\n]+)", re.I)
# the pack's concepts whose checks find what is hidden in a scene
_FINDING = ("search", "look", "listen", "read_people")


def split_gm_only(text: str) -> tuple[str, list[str]]:
    """The prose without its GM-only parts, and those parts (their words only, mark dropped)."""
    notes: list[str] = []

    def keep(match: re.Match) -> str:
        notes.append(" ".join(match.group(1).split()))
        return ""

    public = _BRACKETED.sub(keep, text)
    public = _OPENING.sub(keep, public)
    return " ".join(public.split()), [n for n in notes if n]


def keep_gm_only(scenario: Scenario, pack: Any = None) -> Scenario:
    """The scenario with its scene's and opening's GM-only parts moved into secrets: found, like any
    secret, by an act that reaches for it and a check of the pack's searching and noticing kind."""
    scene, from_scene = split_gm_only(scenario.scene)
    opening, from_opening = split_gm_only(scenario.opening)
    notes = list(dict.fromkeys([*from_scene, *from_opening]))
    if not notes:
        return scenario
    concepts = getattr(pack, "concepts", None) or {}
    checks = list(dict.fromkeys(c for kind in _FINDING for c in concepts.get(kind, [])))
    taken = {s.id for s in scenario.secrets}
    secrets = [Secret(id=_free_id(f"gm_only_{i}", taken), text=note, checks=checks, difficulty=None, trigger=note)
               for i, note in enumerate(notes, 1)]
    return scenario.model_copy(update={"scene": scene, "opening": opening or scene,
                                       "secrets": [*scenario.secrets, *secrets]})


def _free_id(wanted: str, taken: set[str]) -> str:
    at = 2
    found = wanted
    while found in taken:
        found, at = f"{wanted}_{at}", at + 1
    taken.add(found)
    return found
