"""Our own Avalon logs (``gm/avalon``, JSON Lines events) as InMind sessions.

A played game plus one person's annotations becomes a ``Session``: the person is one seat
(``subject``: a name or seat number; default the first human seat, else seat 1). Their strategy
trace and reflection come from a traces file, or, when none is given, from the seat's own
``reasoning`` events (an LLM seat's private notes), which makes any LLM game an InMind session.

Traces file (JSON Lines or one JSON object)::

    {"mission": 1, "attempt": 1, "text": "Player 2 pushed hard for 4; I suspect 2."}
    {"reflection": "I trusted 5 too long ..."}
    {"mode": "observer"}            # optional; default participant
    {"subject": "Blair"}            # optional: whose traces these are (name or seat)

Player names in the text are rewritten as "Player N" so seat masking works on them too.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gm.social.events import read_log
from rulesets import FileProblem, read_json, read_jsonl, read_text

from . import roles as _roles
from .session import SYSTEM, EndPhase, GameState, InMindDataError, MissionResult, Proposal, Round, Session, StrategyNote, Utterance, Vote


def _read_traces(path: Path) -> list[dict[str, Any]]:
    """Strategy notes: a JSON list, or JSON Lines of ``{mission, attempt, text}`` objects."""
    if not path.exists():
        raise InMindDataError(f"{path}: traces file not found; give a JSON Lines file of {{mission, attempt, text}} notes")
    try:
        if read_text(path, what="traces file").lstrip().startswith("["):
            items = read_json(path, what="traces file")
        else:
            items = list(read_jsonl(path, what="traces file"))
    except FileProblem as problem:
        raise InMindDataError(str(problem)) from None
    if not all(isinstance(item, dict) for item in items):
        raise InMindDataError(f"{path}: every trace must be a {{mission, attempt, text}} object; fix the traces file")
    return items


class _Names:
    """Player names -> seats, and name mentions in free text -> "Player N"."""

    def __init__(self, seats: dict[str, int]) -> None:
        self.seats = seats
        names = sorted(seats, key=len, reverse=True)
        self._pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b") if names else None

    def seat(self, name: Any, where: str) -> int:
        if str(name) in self.seats:
            return self.seats[str(name)]
        if str(name).isdigit() and int(name) in self.seats.values():
            return int(name)
        raise InMindDataError(f"{where}: unknown player {name!r}; the setup event lists {', '.join(self.seats)}")

    def text(self, text: str) -> str:
        return self._pattern.sub(lambda m: f"Player {self.seats[m.group(1)]}", text) if self._pattern else text

    def seat_list(self, names: list[Any], where: str) -> str:
        return ", ".join(str(self.seat(n, where)) for n in names)


def load_avalon_log(path: str | Path, traces: str | Path | None = None, *, subject: str | int | None = None, mode: str | None = None) -> Session:
    """One game log from ``gm/avalon`` (+ optional traces file) as an InMind session."""
    path = Path(path)
    events = read_log(path)
    setup = next((e for e in events if e.get("kind") == "setup"), None)
    if setup is None or not setup.get("players"):
        raise InMindDataError(f"{path}: no 'setup' event with the players; give a log written by the Avalon engine")
    seats = {str(p["name"]): int(p.get("seat", i + 1)) for i, p in enumerate(setup["players"])}
    names = _Names(seats)
    items = _read_traces(Path(traces)) if traces is not None else []
    for item in items:
        if "subject" in item and subject is None:
            subject = item["subject"]
    assignment = {seats[str(p["name"])]: _roles.resolve_role(p["role"], where=f"{path}: setup {p['name']}") for p in setup["players"]}
    if subject is None:
        humans = [p for p in setup["players"] if p.get("kind") == "human"]
        subject_seat = seats[str(humans[0]["name"])] if humans else min(seats.values())
    else:
        subject_seat = names.seat(subject, f"{path}: subject")
    subject_name = next(n for n, s in seats.items() if s == subject_seat)

    knowledge = ""
    for e in events:
        if e.get("kind") == "night_knowledge" and e.get("player") == subject_name and e.get("sees"):
            knowledge = f"sees {names.seat_list(e['sees'], str(path))} as {e.get('sees_as') or 'known'}"

    rounds: dict[int, Round] = {}
    end = EndPhase()
    attempt_of: dict[int, int] = {}
    reasoning: list[tuple[int, int, str]] = []
    mission_now = 1
    for n, e in enumerate(events, 1):
        kind, where = e.get("kind"), f"{path}:{n}"
        mission = int(e.get("mission") or mission_now)
        if kind == "proposal":
            mission_now = mission
            attempt = int(e.get("attempt", 1))
            attempt_of[mission] = attempt
            rnd = rounds.setdefault(mission, Round(mission=mission))
            leader = names.seat(e["player"], where)
            team = [names.seat(p, where) for p in e.get("team", [])]
            rnd.state.proposals.append(Proposal(attempt=attempt, leader=leader, team=team))
            rnd.utterances.append(Utterance(speaker=SYSTEM, attempt=attempt, text=f"Player {leader} leads and proposes the team {', '.join(map(str, team))}."))
        elif kind == "speech" and e.get("phase") != "assassination":
            rnd = rounds.setdefault(mission, Round(mission=mission))
            rnd.utterances.append(Utterance(speaker=str(names.seat(e["player"], where)), text=names.text(str(e.get("text", ""))), attempt=int(e.get("attempt") or attempt_of.get(mission, 1))))
        elif kind == "speech":
            end.utterances.append(Utterance(speaker=str(names.seat(e["player"], where)), text=names.text(str(e.get("text", "")))))
        elif kind == "vote_result":
            rnd = rounds.setdefault(mission, Round(mission=mission))
            votes = e.get("votes", {})
            approve = sorted(names.seat(p, where) for p, v in votes.items() if v)
            reject = sorted(names.seat(p, where) for p, v in votes.items() if not v)
            attempt = int(e.get("attempt") or attempt_of.get(mission, 1))
            rnd.state.votes.append(Vote(attempt=attempt, approve=approve, reject=reject, approved=bool(e.get("approved"))))
            verdict = "approved" if e.get("approved") else "rejected"
            rnd.utterances.append(Utterance(speaker=SYSTEM, attempt=attempt, text=f"Approve: {', '.join(map(str, approve)) or 'nobody'}; reject: {', '.join(map(str, reject)) or 'nobody'}; the team is {verdict}."))
        elif kind == "mission_result":
            rnd = rounds.setdefault(mission, Round(mission=mission))
            fails = int(e.get("fails", 0))
            rnd.state.mission = MissionResult(mission=mission, success=bool(e.get("success")), success_cards=len(e.get("team", [])) - fails, fail_cards=fails)
            rnd.utterances.append(Utterance(speaker=SYSTEM, attempt=attempt_of.get(mission, 1), text=f"Mission {mission} {'succeeded' if e.get('success') else 'failed'} with {fails} fail card(s)."))
        elif kind == "early_assassination":
            rnd = rounds.setdefault(mission, Round(mission=mission))
            rnd.state.early_assassination = True
            end.how = "early_assassination"
            rnd.utterances.append(Utterance(speaker=SYSTEM, attempt=attempt_of.get(mission, 1), text="Evil calls an early assassination."))
        elif kind == "assassination":
            end.assassin_target = names.seat(e["target"], where)
            end.assassination_hit = bool(e.get("hit"))
            if end.how == "unknown":
                end.how = "early_assassination" if e.get("early") else "three_successes"
            end.utterances.append(Utterance(speaker=SYSTEM, text=f"The Assassin names Player {end.assassin_target} as Merlin: {'hit' if e.get('hit') else 'miss'}."))
        elif kind == "game_over":
            end.winner = e.get("winner") if e.get("winner") in ("good", "evil") else None
            if end.how == "unknown" and "fail" in str(e.get("reason", "")):
                end.how = "three_failures"
        elif kind == "reasoning" and e.get("player") == subject_name and str(e.get("text", "")).strip():
            reasoning.append((mission_now, attempt_of.get(mission_now, 1), names.text(str(e["text"]))))

    reflection = ""
    notes: list[tuple[int, int, str]] = []
    if traces is not None:
        for i, item in enumerate(items):
            if "reflection" in item:
                reflection = names.text(str(item["reflection"]))
            elif "mode" in item or "subject" in item:
                mode = str(item["mode"]) if "mode" in item and mode is None else mode
            elif "text" in item:
                notes.append((int(item.get("mission", 1)), int(item.get("attempt", 1)), names.text(str(item["text"]))))
            else:
                raise InMindDataError(f"{traces}: entry {i + 1} needs 'text' (with mission, attempt) or 'reflection'")
    else:
        notes = reasoning
    for mission, attempt, text in notes:
        rounds.setdefault(mission, Round(mission=mission)).strategy.append(StrategyNote(attempt=attempt, text=text))
    if not rounds:
        raise InMindDataError(f"{path}: no proposal in the log; an InMind session needs at least one mission")
    if mode not in (None, "observer", "participant"):
        raise InMindDataError(f"{traces}: mode {mode!r}; use observer or participant")
    return Session(
        id=path.stem,
        source=str(path),
        mode=mode or "participant",  # type: ignore[arg-type]
        subject_seat=subject_seat,
        subject_role=assignment[subject_seat],
        subject_knowledge=knowledge,
        roles=dict(sorted(assignment.items())),
        rounds=[rounds[k] for k in sorted(rounds)],
        end=end,
        reflection=reflection,
        language="en",
    )
