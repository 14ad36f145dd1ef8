"""What a scene's prose marks for the GM alone, kept from the players.

A scene written as prose often carries the GM's own notes inline: "(GM only: six bandits wait in
the birch grove past the second bend)", "Secret: the mayor sealed the miners in himself." Left in
the scene, every answer, narration and out-of-character reply could read them out. Here each such
part leaves the players' scene and becomes a secret of the scenario (``gm.table.keep_gm_only``):
hidden until an act reaches for it (its own words are the trigger) and a looking or searching
check of the pack succeeds.

    public, notes = split_gm_only("A milestone reads HOLLIN 4. (GM only: bandits wait past the bend.)")
    # public == "A milestone reads HOLLIN 4.", notes == ["bandits wait past the bend."]
"""
from __future__ import annotations

import re

__all__ = ["split_gm_only", "FINDING"]

# the words that open a part meant for the GM: "GM only", "DM's note", "Keeper only", "Secret", "Hidden"
_MARK = (r"(?:(?:gm|dm|keeper|referee|game\s*master|narrator)(?:'s|’s|s)?\s*(?:only|notes?|eyes\s+only|secrets?|info)"
         r"|secret(?:ly)?|hidden|not\s+known\s+to\s+the\s+(?:players|pcs|party|heroes)|unknown\s+to\s+the\s+(?:players|pcs|party|heroes))")
# bracketed: "(GM only: ...)", "[Secret - ...]"; the note runs to its closing bracket
_BRACKETED = re.compile(rf"\s*[(\[]\s*{_MARK}\s*[:\-–—]\s*([^)\]]+?)\s*[)\]]", re.I)
# a sentence that opens with the mark: "Secret: ..." runs to the end of its paragraph (a later public
# sentence after a note is rarer than a note in two sentences, and hiding too much tells nothing false)
_OPENING = re.compile(rf"(?:^|(?<=[.!?\"”])\s+|\n)\s*{_MARK}\s*[:\-–—]\s*([^\n]+)", re.I)
# the pack's concepts whose checks find what is hidden in a scene (``gm.table.keep_gm_only``)
FINDING = ("search", "look", "listen", "read_people")


def split_gm_only(text: str) -> tuple[str, list[str]]:
    """The prose without its GM-only parts, and those parts (their words only, mark dropped)."""
    notes: list[str] = []

    def keep(match: re.Match) -> str:
        notes.append(" ".join(match.group(1).split()))
        return ""

    public = _BRACKETED.sub(keep, text)
    public = _OPENING.sub(keep, public)
    return " ".join(public.split()), [n for n in notes if n]
