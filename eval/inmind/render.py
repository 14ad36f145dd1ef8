"""Sessions as prompt text: the game log, the traces, the roles, in one plain layout.

Every task shows the same layout so the long game log is the shared prefix of all its
questions. Seats can be relabelled (player identification hides who sat where) by passing a
``labels`` map; seat references inside the text are rewritten with the same map.
"""
from __future__ import annotations

from collections.abc import Iterable

from . import roles as _roles
from .masking import replace_seats
from .session import Round, Session, StrategyNote, Utterance


class Labels:
    """How seats are named in a prompt: ``Player 3`` by default, ``Player C`` when anonymised."""

    def __init__(self, mapping: dict[int, str] | None = None) -> None:
        self.mapping = mapping

    def seat(self, seat: int | str) -> str:
        key = int(seat) if str(seat).isdigit() else seat
        return f"Player {self.mapping.get(key, key) if self.mapping else key}"

    def text(self, text: str) -> str:
        return replace_seats(text, self.mapping) if self.mapping else text


PLAIN = Labels()


def utterance_line(line: Utterance, labels: Labels = PLAIN) -> str:
    if line.is_system:
        return f"  [system] {labels.text(line.text)}"
    said = labels.text(line.text).strip() or "(says nothing)"
    return f"  {labels.seat(line.speaker)}: {said}"


def round_lines(rnd: Round, labels: Labels = PLAIN) -> list[str]:
    """The utterances of one mission, grouped by proposal attempt."""
    lines = [f"## Mission {rnd.mission}"]
    attempt = None
    for line in rnd.utterances:
        if line.attempt is not None and line.attempt != attempt and len({u.attempt for u in rnd.utterances}) > 1:
            attempt = line.attempt
            lines.append(f" (attempt {attempt})")
        lines.append(utterance_line(line, labels))
    return lines


def trace_lines(notes: Iterable[StrategyNote], labels: Labels = PLAIN, *, header: str = "My strategy notes") -> list[str]:
    notes = list(notes)
    if not notes:
        return []
    return [f" {header}:"] + [f"  (attempt {n.attempt}) {labels.text(n.text)}" for n in notes]


def game_text(
    session: Session,
    *,
    upto: int | None = None,
    start: int = 1,
    traces: str = "all",
    labels: Labels = PLAIN,
    end_phase: bool = False,
    trace_header: str = "My strategy notes",
) -> str:
    """The game log of missions ``start..upto`` (to the end when None); ``traces`` is ``all`` or ``none``."""
    lines: list[str] = []
    for rnd in session.rounds:
        if upto is not None and rnd.mission > upto:
            break
        if rnd.mission < start:
            continue
        lines += round_lines(rnd, labels)
        if traces == "all":
            lines += trace_lines(rnd.strategy, labels, header=trace_header)
    if end_phase and session.end.utterances:
        lines.append("## End phase")
        for line in session.end.utterances:
            lines.append(utterance_line(line, labels))
    return "\n".join(lines)


def roles_text(session: Session, labels: Labels = PLAIN) -> str:
    return "\n".join(f"  {labels.seat(seat)}: {_roles.display_name(role)}" for seat, role in sorted(session.roles.items()))


def observer_text(session: Session, number: int) -> str:
    """An observer-mode session for the profile prompt: the watched seat, the game, the analysis, the review."""
    head = (
        f"# Watched game {number} ({session.id})\n"
        f"The subject watched Player {session.subject_seat}, whose role was {_roles.display_name(session.subject_role)}"
        + (f" (night knowledge: {session.subject_knowledge})" if session.subject_knowledge else "")
        + "."
    )
    body = game_text(session, traces="all", end_phase=True, trace_header="Subject's analysis")
    review = f"## Subject's review after the game\n  {session.reflection.strip() or '(none)'}"
    return "\n".join([head, body, "## True roles", roles_text(session), review])
