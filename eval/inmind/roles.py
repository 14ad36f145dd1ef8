"""Avalon role names for InMind: canonical ids from the rule-set pack, teams, relaxed groups.

The released data names roles in Chinese (梅林, 派西维尔, 忠臣, 莫甘娜, 刀客); our own logs use
the pack's ids. Everything here goes through ``rulesets.load("avalon")`` so a new alias is a
one-line change in the pack, not here.
"""
from __future__ import annotations

from functools import lru_cache

from rulesets import VgmError

#: Relaxed scoring groups (InMind 4.5): who knows what, not the exact role.
INFORMED_GOOD, UNINFORMED_GOOD, EVIL = "informed_good", "uninformed_good", "evil"


class UnknownRole(VgmError):
    """A role string that the Avalon pack does not know."""


@lru_cache(maxsize=1)
def _pack():
    import rulesets

    try:
        return rulesets.load("avalon")
    except (AttributeError, VgmError):  # TEMP: until the avalon pack lands (rule sets issue)
        return _StopgapPack()


class _StopgapPack:
    """TEMP stand-in with the pack's interface, used only while ``rulesets.load`` is missing."""

    class _Role:
        def __init__(self, team: str, name: str) -> None:
            self.team, self.name = team, name

    roles = {"merlin": _Role("good", "Merlin"), "percival": _Role("good", "Percival"), "loyal_servant": _Role("good", "Loyal Servant"),
             "morgana": _Role("evil", "Morgana"), "assassin": _Role("evil", "Assassin")}
    _aliases = {"梅林": "merlin", "派西维尔": "percival", "忠臣": "loyal_servant", "莫甘娜": "morgana", "刀客": "assassin", "刺客": "assassin",
                "loyal": "loyal_servant", "loyal servant": "loyal_servant"}

    def resolve_role(self, text: str) -> str:
        key = text.strip().lower()
        if key in self.roles:
            return key
        if key in self._aliases:
            return self._aliases[key]
        raise VgmError(f"unknown role {text!r}")


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
