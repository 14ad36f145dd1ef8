"""Avalon role names for InMind: canonical ids from the rule-set pack, teams, relaxed groups.

The released data names roles in Chinese (梅林, 派西维尔, 忠臣, 莫甘娜, 刀客); our own logs use
the pack's ids. Everything here goes through ``rulesets.load("avalon")`` so a new alias is a
one-line change in the pack, not here.
"""
from __future__ import annotations

from functools import lru_cache

import rulesets
from rulesets import VgmError

#: Relaxed scoring groups (InMind 4.5): who knows what, not the exact role.
INFORMED_GOOD, UNINFORMED_GOOD, EVIL = "informed_good", "uninformed_good", "evil"


class UnknownRole(VgmError):
    """A role string that the Avalon pack does not know."""


@lru_cache(maxsize=1)
def _pack():
    return rulesets.load("avalon")


def resolve_role(text: str, *, where: str = "") -> str:
    """Canonical role id for ``text`` (any alias the pack knows, Chinese included)."""
    try:
        return _pack().resolve_role(str(text).strip())
    except VgmError as exc:
        place = f"{where}: " if where else ""
        raise UnknownRole(f"{place}role {text!r} is not in the avalon pack ({exc}); add the alias to the pack or fix the file") from None


def team(role_id: str) -> str:
    """``good`` or ``evil`` for a canonical role id."""
    value = _pack().roles[role_id].team
    return str(getattr(value, "value", value))


def is_loyal(role_id: str) -> bool:
    return role_id not in ("merlin", "percival") and team(role_id) == "good"


def relaxed_group(role_id: str) -> str:
    """Informed Good (Merlin, Percival), Uninformed Good (Loyal), or Evil (Morgana, Assassin)."""
    if team(role_id) == "evil":
        return EVIL
    return INFORMED_GOOD if role_id in ("merlin", "percival") else UNINFORMED_GOOD


def display_name(role_id: str) -> str:
    """A readable name for prompts and reports."""
    role = _pack().roles[role_id]
    return str(getattr(role, "name", None) or role_id)
