"""What belief scoring needs from a game: who held which role, who died when, who voted whom, and the probes.

Both our own logs and MafiaScope's import into one ``BeliefGame``, so every metric has exactly one
definition. Time is a position ``(round, seq)``; a round-end probe (``public_msg_seq = -1``)
sits after everything else in its round.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pipelines.probes import ProbeRecord

EVIL_TEAMS = {"evil", "mafia", "werewolves", "wolves"}
EVIL_ROLES = {"mafia", "morgana", "assassin", "mordred", "oberon", "minion", "minion of mordred", "werewolf"}
_ROLE_WORDS = [  # substring → canonical role, checked in order (English and Russian packs)
    ("unknown", "Unknown"), ("неизв", "Unknown"), ("?", "Unknown"),
    ("maf", "Mafia"), ("мафи", "Mafia"), ("wolf", "Mafia"),
    ("doc", "Doctor"), ("доктор", "Doctor"), ("врач", "Doctor"), ("medic", "Doctor"),
    ("sher", "Sheriff"), ("detect", "Sheriff"), ("комисс", "Sheriff"), ("шериф", "Sheriff"),
    ("vill", "Villager"), ("town", "Villager"), ("citizen", "Villager"), ("innocent", "Villager"),
    ("мирн", "Villager"), ("civil", "Villager"),
    ("servant", "Loyal Servant"), ("minion", "Minion"), ("merlin", "Merlin"), ("percival", "Percival"),
    ("morgana", "Morgana"), ("assassin", "Assassin"), ("mordred", "Mordred"), ("oberon", "Oberon"),
]


def norm_role(role: Any) -> str:
    """Canonical role name: ``"mafioso"`` → ``Mafia``, ``"мирный житель"`` → ``Villager``; ``""`` → ``Unknown``."""
    text = str(role or "").strip()
    if not text:
        return "Unknown"
    low = text.lower()
    for word, canon in _ROLE_WORDS:
        if word in low:
            return canon
    return " ".join(w[:1].upper() + w[1:] for w in text.replace("_", " ").split())


def is_evil(role: str) -> bool:
    return norm_role(role).lower() in EVIL_ROLES


def position(rnd: int, seq: float) -> tuple[int, float]:
    return (int(rnd), math.inf if seq is not None and seq < 0 else float(seq))


@dataclass
class Vote:
    round: int
    seq: float  # the voter's public vote message; inf when the log has no per-vote message
    voter: str
    target: str


@dataclass
class BeliefGame:
    """One game ready for scoring."""

    game_id: str
    players: list[str]
    roles: dict[str, str]
    deaths: dict[str, tuple[int, float]] = field(default_factory=dict)  # name → position of the death
    votes: list[Vote] = field(default_factory=list)
    probes: list[ProbeRecord] = field(default_factory=list)
    winner: str | None = None
    source: str = ""
    parent: str | None = None
    calls_game: int | None = None  # game-facing model calls, when the log says
    teams: dict[str, str] = field(default_factory=dict)  # name → team, when the log says
    personality: dict[str, dict[str, float]] = field(default_factory=dict)  # name → generating Big Five, when known

    def evil(self, name: str) -> bool:
        """On the informed minority's side (Mafia; Avalon's evil), by team when known, else by role."""
        team = self.teams.get(name)
        return team.lower() in EVIL_TEAMS if team else is_evil(self.roles.get(name, ""))

    def alive_at(self, name: str, rnd: int, seq: float) -> bool:
        d = self.deaths.get(name)
        return d is None or d > position(rnd, seq)

    def alive_others(self, me: str, rnd: int, seq: float) -> list[str]:
        return [p for p in self.players if p != me and self.alive_at(p, rnd, seq)]

    def role(self, name: str) -> str:
        return norm_role(self.roles.get(name, ""))

    def probes_of(self, probe_id: str, parsed_only: bool = True) -> list[ProbeRecord]:
        out = [p for p in self.probes if p.probe_id == probe_id and (p.parse_ok or not parsed_only)]
        return sorted(out, key=lambda p: (position(p.round, p.public_msg_seq), p.player_idx, p.probe_seq))


def entries(answer: Any, key: str = "") -> list[dict[str, Any]]:
    """The per-player entries of a parsed answer (a list, or ``{key: [...]}``)."""
    if isinstance(answer, dict):
        answer = answer.get(key) if key else next((v for v in answer.values() if isinstance(v, list)), None)
    return [e for e in answer or [] if isinstance(e, dict) and e.get("player")]


def resolve(name: Any, players: list[str]) -> str | None:
    """A name as a model wrote it → the seat name (exact, then case-insensitive, then prefix)."""
    s = str(name or "").strip().strip(".'\"*")
    if s in players:
        return s
    low = s.lower()
    for p in players:
        if p.lower() == low:
            return p
    for p in players:
        if low and (low.startswith(p.lower()) or p.lower().startswith(low)):
            return p
    return None
