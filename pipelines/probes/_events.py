"""Reading the engine's events for the probe runner: who is seated, who died, what triggers a probe.

The probe runner never asks the game for its state: it follows the same event stream the log
holds, so probing a live game and scoring a finished log see the same facts. The engine's event
kinds are matched by the fields they carry, which also reads MafiaScope's own logs.
"""
from __future__ import annotations

from typing import Any

Event = dict[str, Any]

SPEAKER_KEYS = ("player", "speaker", "seat", "name", "voter", "actor")
TEXT_KEYS = ("text", "response", "utterance", "message", "content", "say")
DEATH_KEYS = ("victim", "eliminated", "killed", "dead", "died")
ROUND_END_KINDS = {"round_end", "day_end", "end_of_round"}
NIGHT_WORDS = ("night", "kill", "pick", "save", "protect", "heal", "check", "investigate", "mafia_chat")
DAY_END_KINDS = {"elimination", "day_eliminate"}  # the day's last event: the round closes with it


def as_dict(event: Any) -> Event:
    if isinstance(event, dict):
        return event
    if hasattr(event, "model_dump"):
        return event.model_dump()
    return dict(vars(event))


def kind_of(event: Event) -> str:
    return str(event.get("kind") or event.get("type") or event.get("event") or "")


def is_private(event: Event) -> bool:
    return bool(event.get("private"))


def speaker_of(event: Event) -> str | None:
    for key in SPEAKER_KEYS:
        value = event.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def setup_players(event: Event) -> list[tuple[str, str]]:
    """``[(name, role), ...]`` in seat order from a ``setup`` event (several layouts accepted)."""
    for key in ("players", "seats"):
        seats = event.get(key)
        if isinstance(seats, list) and seats:
            out = []
            for i, s in enumerate(seats):
                if isinstance(s, dict):
                    out.append((str(s.get("name") or s.get("player") or f"P{i + 1}"), str(s.get("role", ""))))
                else:
                    out.append((str(s), ""))
            roles = event.get("roles")
            if isinstance(roles, dict):
                out = [(n, r or str(roles.get(n, ""))) for n, r in out]
            elif isinstance(roles, list) and len(roles) == len(out):
                out = [(n, r or str(roles[i])) for i, (n, r) in enumerate(out)]
            return out
    roles = event.get("roles")
    if isinstance(roles, dict):
        return [(str(n), str(r)) for n, r in roles.items()]
    return []


def deaths_in(event: Event) -> list[str]:
    """Names this public event announces dead (night kill or day elimination)."""
    if is_private(event):
        return []
    out: list[str] = []
    for key in DEATH_KEYS:
        value = event.get(key)
        if isinstance(value, str) and value:
            out.append(value)
        elif isinstance(value, list):
            out.extend(str(v) for v in value if v)
    kind = kind_of(event)
    if not out and any(w in kind for w in ("death", "dies", "eliminat", "execut")):
        name = event.get("player") or event.get("target")
        if isinstance(name, str) and name:
            out.append(name)
    return out


def is_round_end(event: Event) -> bool:
    return kind_of(event) in ROUND_END_KINDS or kind_of(event) in DAY_END_KINDS


def is_night_action(event: Event) -> bool:
    """A seat's own private night move (kill vote, save, check): seen by that seat, not knowledge handed out."""
    kind = kind_of(event)
    actor = speaker_of(event)
    if not is_private(event) or actor is None or "knowledge" in kind:
        return False
    to = event.get("to")
    if isinstance(to, list) and actor not in to:
        return False  # moderator-only notes (reasoning, illegal moves) are not moves
    return any(w in kind for w in NIGHT_WORDS)


def is_public_message(event: Event) -> bool:
    """A public utterance or public act of one seat (speech, vote) or a moderator announcement."""
    kind = kind_of(event)
    if is_private(event) or kind in ("setup", "game_over") or is_round_end(event):
        return False
    return "public_msg_seq" in event or "msg_seq" in event


def msg_seq_of(event: Event) -> int:
    for key in ("public_msg_seq", "msg_seq"):
        if key in event and event[key] is not None:
            return int(event[key])
    return 0


def phase_of(event: Event) -> str:
    if event.get("phase"):
        return str(event["phase"])
    if is_night_action(event):
        return "night"
    return kind_of(event)
