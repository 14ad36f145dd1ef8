"""The Mafia table for one player count, read from the ``mafia`` rule-set pack (no tables in the engine)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import rulesets
from rulesets import VgmError


@dataclass(frozen=True)
class MafiaTable:
    players: int
    lineup: tuple[str, ...]
    team: dict[str, str]
    role_names: dict[str, str]
    sees: dict[str, tuple[str, ...]]
    mafia_team: str
    village_team: str
    mafia_role: str
    doctor_role: str
    sheriff_role: str
    rules: dict[str, Any] = field(default_factory=dict)


@lru_cache(maxsize=64)
def mafia_table(players: int = 7, roles: tuple[str, ...] | None = None, extra: tuple[str, ...] = (), pack: str = "mafia") -> MafiaTable:
    """The table for ``players`` seats; ``extra`` adds optional roles (``("sheriff",)``), ``roles`` overrides all."""
    rs = rulesets.load(pack)
    lineup = tuple(rs.resolve_role(r) for r in roles) if roles else tuple(rs.lineup(players, list(extra)))
    if len(lineup) != players:
        raise VgmError(f"--roles lists {len(lineup)} roles for {players} players; list exactly {players}")
    team = {rid: r.team for rid, r in rs.roles.items()}
    mafia_team = rs.rules.get("mafia_team", "mafia")
    village_team = rs.rules.get("village_team", "village")
    if mafia_team not in team.values() or village_team not in team.values():
        raise VgmError(f"mafia pack: teams are {sorted(set(team.values()))}; name them mafia/village or set rules.mafia_team/village_team")
    if not any(team[r] == mafia_team for r in lineup) or not any(team[r] == village_team for r in lineup):
        raise VgmError(f"line-up {list(lineup)} needs both Mafia and Village roles; fix --roles")
    return MafiaTable(
        players=players, lineup=lineup, team=team,
        role_names={rid: r.name for rid, r in rs.roles.items()},
        sees={rid: tuple(r.sees) for rid, r in rs.roles.items()},
        mafia_team=mafia_team, village_team=village_team,
        mafia_role=rs.rules.get("mafia_role", "mafia"), doctor_role=rs.rules.get("doctor_role", "doctor"),
        sheriff_role=rs.rules.get("sheriff_role", "sheriff"), rules=dict(rs.rules),
    )
