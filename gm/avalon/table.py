"""The Avalon table for one player count, read from the ``avalon`` rule-set pack.

The engine never hard-codes a role or a mission size: it takes them from here, which takes
them from ``rulesets.load("avalon")``. Plain tuples and dicts, so the hot loop stays cheap.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import rulesets
from rulesets import VgmError


@dataclass(frozen=True)
class AvalonTable:
    """Everything the moderator needs for ``players`` seats."""

    players: int
    lineup: tuple[str, ...]
    team_sizes: tuple[int, ...]
    fails_required: tuple[int, ...]
    team: dict[str, str]  # role id -> team id
    role_names: dict[str, str]  # role id -> display name
    sees: dict[str, tuple[str, ...]]  # role id -> role ids it learns at night
    sees_as: dict[str, str]  # role id -> label of that knowledge
    assassin_role: str
    good: str = "good"
    evil: str = "evil"
    max_rejections: int = 5
    missions_to_win: int = 3
    early_assassination: bool = True
    rules: dict[str, Any] = field(default_factory=dict)

    def is_evil(self, role: str) -> bool:
        return self.team[role] == self.evil


def _team_ids(rs: rulesets.RuleSet) -> tuple[str, str]:
    teams = {r.team for r in rs.roles.values()}
    good = rs.rules.get("good_team", "good" if "good" in teams else None)
    evil = rs.rules.get("evil_team", "evil" if "evil" in teams else None)
    if good not in teams or evil not in teams:
        raise VgmError(f"avalon pack: teams are {sorted(teams)}; name them good/evil or set rules.good_team/evil_team")
    return good, evil


@lru_cache(maxsize=64)
def avalon_table(players: int = 6, roles: tuple[str, ...] | None = None, pack: str = "avalon") -> AvalonTable:
    """The table for ``players`` seats; ``roles`` overrides the pack's default line-up (any alias)."""
    rs = rulesets.load(pack)
    setup = rs.setup(players)
    lineup = tuple(rs.resolve_role(r) for r in roles) if roles else tuple(setup.lineup)
    if len(lineup) != players:
        raise VgmError(f"--roles lists {len(lineup)} roles for {players} players; list exactly {players}")
    good, evil = _team_ids(rs)
    team = {rid: r.team for rid, r in rs.roles.items()}
    assassin = rs.rules.get("assassin_role", "assassin")
    if assassin not in lineup:
        # no Assassin card at this table: the first evil role in the line-up takes the knife
        assassin = next((r for r in lineup if team[r] == evil), "")
    if not any(team[r] == evil for r in lineup) or not any(team[r] == good for r in lineup):
        raise VgmError(f"line-up {list(lineup)} needs both a good and an evil role; fix --roles")
    return AvalonTable(
        players=players,
        lineup=lineup,
        team_sizes=tuple(setup.team_sizes),
        fails_required=tuple(setup.fails_required) or tuple(1 for _ in setup.team_sizes),
        team=team,
        role_names={rid: r.name for rid, r in rs.roles.items()},
        sees={rid: tuple(r.sees) for rid, r in rs.roles.items()},
        sees_as={rid: r.sees_as for rid, r in rs.roles.items()},
        assassin_role=assassin,
        good=good,
        evil=evil,
        max_rejections=int(rs.rules.get("max_rejections", 5)),
        missions_to_win=int(rs.rules.get("missions_to_win", 3)),
        early_assassination=bool(rs.rules.get("early_assassination", True)),
        rules=dict(rs.rules),
    )
