"""A character sheet as a player reads it: who they are, then what each check rolls.

``/sheet`` used to print the sheet's JSON. Every system already knows what a character rolls
for a check (``sheet.plan``), so the readable sheet is that, for the checks the sheet cares about.
"""
from __future__ import annotations

import re
from typing import Any

from pipelines.act_cues import cued_checks

from .characters import Sheet
from .combat.inventory import things_line

__all__ = ["sheet_rows", "sheet_text", "own_check_told"]

# a player asking after their own sheet: "what's my Notice die?", "(OOC) how good is my Shooting?"
_OWN = re.compile(r"\b(?:my|do i|am i|have i|i have|i've got|can i|could i)\b", re.I)


def _rolled(plan: Any) -> str:
    """What a check rolls, as a player reads it: "50%" (percentile) or "1d20+5"."""
    return f"{plan.value}%" if plan.value is not None else plan.expression()


def sheet_rows(sheet: Sheet, pack: Any) -> list[tuple[str, str, str]]:
    """(check name, what is rolled, why) for the character's own checks, then the pack's common ones."""
    own = [cid for keys in sheet.check_keys().values() for cid in keys]
    common = [cid for cid, c in pack.checks.items() if c.kind in ("skill", pack.ability_word)]
    rows = []
    for cid in dict.fromkeys([*own, *common]):
        plan = sheet.plan(pack, cid)
        rows.append((plan.check_name, _rolled(plan), plan.why))
    return rows


def sheet_text(sheet: Sheet, pack: Any, carries: dict[str, int] | None = None) -> str:
    """The sheet as plain text lines (the web Play tab and logs); ``carries``: what the character
    holds now (``gm.party.carried_now``), which play changes, else what the sheet lists."""
    lines = [sheet.summary(pack)]
    if sheet.notes:
        lines.append(" ".join(sheet.notes.split()))
    things = carries if carries is not None else dict(getattr(sheet, "items", {}) or {})
    if things or carries is not None:
        lines.append(f"Carries: {things_line(things)}")
    width = max((len(name) for name, _, _ in sheet_rows(sheet, pack)), default=0)
    lines += [f"  {name:<{width}}  {rolled:<12} {why}" for name, rolled, why in sheet_rows(sheet, pack)]
    return "\n".join(lines)


def own_check_told(text: str, sheet: Sheet, pack: Any) -> str | None:
    """The answer to an out-of-character question about one's own checks ("OOC: what's my Notice die
    again?" → "Dutch Calloway's Notice: d8 ..."; "does Dutch have Gambling, and what's my Shooting?"
    → both; "any proficiency for swimming?" → the check swimming takes), or None when the line asks
    after no check of the pack."""
    first = sheet.name.split()[0]
    if not (_OWN.search(text) or re.search(rf"\b(?:does|is|can|has)\s+{re.escape(first)}\b|\b{re.escape(first)}['’]s\b", text, re.I)):
        return None
    named: list[tuple[int, str]] = []
    for cid, check in pack.checks.items():
        names = [n for n in [check.name, *getattr(check, "aliases", [])] if n and len(n) > 2]
        at = min((m.start() for n in names for m in re.finditer(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text, re.I)), default=None)
        if at is not None:
            named.append((at, cid))
    checks = [cid for _, cid in sorted(named)] or cued_checks(text, pack)
    told = []
    for cid in list(dict.fromkeys(checks))[:4]:
        plan = sheet.plan(pack, cid)
        why = plan.why or ""
        if why.startswith(plan.check_name):  # "Gambling unskilled d4-2" says "unskilled" past what is rolled
            said = {w.lower() for w in plan.check_name.split()} | {"d", "from", "the", "sheet"}
            why = " ".join(w for w in re.findall(r"[A-Za-z]+", why[len(plan.check_name):]) if w.lower() not in said)
        told.append(f"{sheet.name}'s {plan.check_name}: {_rolled(plan)}" + (f" ({why})." if why else "."))
    return " ".join(told) or None
