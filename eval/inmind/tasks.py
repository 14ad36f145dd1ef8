"""Stage 2 task instances (InMind 3.2.2, Table 1), built from participant-mode sessions without a model.

- ``player_identification``: one per session; seats relabelled A-F (a fixed shuffle per game),
  roles and outcome withheld, the subject's traces shown; gold = the subject's label.
- ``reflection_alignment``: one per review with seat references, with and without traces;
  gold = the masked spans. A review with nothing to mask is skipped and counted.
- ``trace_attribution``: one per round (mission) whose trace has seat references; the game up to
  that round, the round's trace masked; ``base`` and ``prior_trace`` (the previous round's trace).
- ``role_inference``: one per round and mode A-D (Table 4); gold = every seat's role and the
  round's weight (the released weights by number of rounds).

An instance carries the rendered game text, so a run only has to ask the model. Dynamic tasks
(trace attribution, role inference) also carry ``round_text``, the current round alone, for runs
where the model sees its own summary of the earlier rounds instead of the full log.
"""
from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, Field

from rulesets import VgmError

from . import roles as _roles
from .masking import Masked, find_spans, mask
from .render import Labels, game_text, roles_text
from .session import Session

TaskName = Literal["player_identification", "reflection_alignment", "trace_attribution", "role_inference"]
TASKS: tuple[str, ...] = ("player_identification", "reflection_alignment", "trace_attribution", "role_inference")
SETTINGS: dict[str, tuple[str, ...]] = {
    "player_identification": ("profile",),
    "reflection_alignment": ("with_traces", "no_traces"),
    "trace_attribution": ("base", "prior_trace"),
    "role_inference": ("A", "B", "C", "D"),
}
#: Role inference modes (InMind Table 4): perspective, trace access, own role known.
MODES = {"A": ("first", True, True), "B": ("first", False, True), "C": ("third", False, True), "D": ("third", False, False)}
#: The released round weights, by the number of rounds in the game (later rounds count more).
ROUND_WEIGHTS = {1: (1.0,), 2: (0.4, 0.6), 3: (0.2, 0.4, 0.4), 4: (0.1, 0.25, 0.35, 0.3), 5: (0.1, 0.25, 0.3, 0.25, 0.1)}
LETTERS = "ABCDEFGHI"
SKIP_REVIEWS = "reflection_alignment: reviews with no seat reference"
SKIP_ROUNDS = "trace_attribution: rounds with a trace but no seat reference"


def round_weights(n: int) -> tuple[float, ...]:
    """Weights of rounds 1..n; uniform beyond the released table."""
    return ROUND_WEIGHTS.get(n) or tuple(1.0 / n for _ in range(n))


class TaskInstance(BaseModel):
    """One question for the model, with its answer key."""

    id: str
    task: str
    setting: str
    session: str
    subject_role: str
    mission: int | None = None
    fields: dict[str, Any] = Field(default_factory=dict)  # the prompt's placeholders
    gold: dict[str, Any] = Field(default_factory=dict)


class BuildReport(BaseModel):
    """What building the tasks found: instances per task and setting, spans, what was skipped."""

    sessions: dict[str, int] = Field(default_factory=dict)
    instances: dict[str, dict[str, int]] = Field(default_factory=dict)
    units: dict[str, int] = Field(default_factory=dict)  # spans, rounds or games, once per task
    spans: dict[str, dict[str, int]] = Field(default_factory=dict)  # paper-style digit-run counts
    skipped: dict[str, int] = Field(default_factory=dict)
    mask_policy: str = "seats"


def anonymous_labels(session: Session) -> dict[int, str]:
    """A fixed per-game shuffle of letters over seats (same game, same labels, every run)."""
    seats = session.seats
    rng = random.Random(int(hashlib.sha256(session.id.encode()).hexdigest()[:12], 16))
    letters = list(LETTERS[: len(seats)])
    rng.shuffle(letters)
    return dict(zip(seats, letters))


def _role_name(role_id: str) -> str:
    return _roles.display_name(role_id)


def _span_gold(masked: Masked) -> dict[str, Any]:
    return {"answers": masked.answers, "is_seat": {k: s.is_seat for k, s in zip(masked.keys, masked.spans)}}


def _instance(task: str, setting: str, session: Session, fields: dict[str, Any], gold: dict[str, Any], mission: int | None = None) -> TaskInstance:
    unit = f"/m{mission}" if mission is not None else ""
    return TaskInstance(
        id=f"{task}/{setting}/{session.id}{unit}", task=task, setting=setting, session=session.id, subject_role=session.subject_role, mission=mission, fields=fields, gold=gold
    )


def player_identification(session: Session) -> list[TaskInstance]:
    mapping = anonymous_labels(session)
    labels = Labels(mapping)
    game = game_text(session, traces="all", labels=labels, trace_header="The subject's strategy notes")
    candidates = sorted(mapping.values())
    gold = {"answer": mapping[session.subject_seat], "labels": {str(k): v for k, v in mapping.items()}}
    return [_instance("player_identification", "profile", session, {"game": game, "candidates": candidates}, gold)]


def reflection_alignment(session: Session, policy: str = "seats") -> list[TaskInstance]:
    masked = mask(session.reflection, policy=policy)
    if not masked.spans:
        return []
    out = []
    for setting in SETTINGS["reflection_alignment"]:
        game = game_text(session, traces="all" if setting == "with_traces" else "none", end_phase=True)
        fields = {"game": game, "seat": session.subject_seat, "role": _role_name(session.subject_role), "roles": roles_text(session), "masked": masked.text, "keys": masked.keys}
        out.append(_instance("reflection_alignment", setting, session, fields, _span_gold(masked)))
    return out


def trace_attribution(session: Session, policy: str = "seats") -> list[TaskInstance]:
    out = []
    previous = None
    for rnd in session.rounds:
        parts, index, note_keys = [], 1, []
        spans = []
        for note in rnd.strategy:
            m = mask(note.text, policy=policy, first_index=index)
            parts.append(f"(attempt {note.attempt}) {m.text}")
            note_keys.append(m.keys)
            spans.append(m)
            index += len(m.spans)
        answers = {k: v for m in spans for k, v in m.answers.items()}
        if answers:
            game = game_text(session, upto=rnd.mission, traces="none")
            for setting in SETTINGS["trace_attribution"]:
                prior = ""
                if setting == "prior_trace":
                    prior = f"\nThe subject's strategy notes from mission {previous.mission}:\n{previous.trace}\n" if previous is not None and previous.strategy else "\n(No earlier strategy notes.)\n"
                fields = {
                    "game": game,
                    "round_text": game_text(session, start=rnd.mission, upto=rnd.mission, traces="none"),
                    "seat": session.subject_seat,
                    "role": _role_name(session.subject_role),
                    "knowledge": session.subject_knowledge,
                    "mission": rnd.mission,
                    "prior": prior,
                    "masked": "\n".join(parts),
                    "keys": list(answers),
                }
                gold = {"answers": answers, "is_seat": {k: s.is_seat for m in spans for k, s in zip(m.keys, m.spans)}, "notes": note_keys}
                out.append(_instance("trace_attribution", setting, session, fields, gold, rnd.mission))
        if rnd.strategy:
            previous = rnd
    return out


def _perspective(session: Session, mode: str) -> tuple[str, str]:
    person, _, known = MODES[mode]
    role = _role_name(session.subject_role)
    knowledge = f" Night knowledge: {session.subject_knowledge}" if session.subject_knowledge else ""
    if person == "first":
        return (f"I am Player {session.subject_seat} and my role is {role}.{knowledge} My own strategy notes are included when available.", "From my point of view, which role does each player have?")
    if known:
        return (f"The subject plays Player {session.subject_seat} as {role}.{knowledge}", "Taking the subject's point of view, infer every player's role.")
    return ("You watch the game as an outsider; nobody's role is revealed.", "Infer every player's role.")


def role_inference(session: Session) -> list[TaskInstance]:
    out = []
    weights = round_weights(len(session.rounds))
    truth = {str(seat): role for seat, role in session.roles.items()}
    for i, rnd in enumerate(session.rounds):
        for mode in SETTINGS["role_inference"]:
            _, traces, _ = MODES[mode]
            perspective, ask = _perspective(session, mode)
            shown = "all" if traces else "none"
            fields = {
                "game": game_text(session, upto=rnd.mission, traces=shown),
                "round_text": game_text(session, start=rnd.mission, upto=rnd.mission, traces=shown),
                "perspective": perspective,
                "ask": ask,
                "mission": rnd.mission,
            }
            gold = {"roles": truth, "weight": weights[i], "n_rounds": len(session.rounds), "round_index": i + 1}
            out.append(_instance("role_inference", mode, session, fields, gold, rnd.mission))
    return out


def span_counts(texts: list[str]) -> dict[str, int]:
    """Paper-style counts over texts: every 1-6 digit run, single vs multi, and how many are not seats."""
    counter: Counter[str] = Counter()
    for text in texts:
        for span in find_spans(text):
            counter["spans"] += 1
            counter["multi_digit" if span.multi else "single_digit"] += 1
            counter["seat" if span.is_seat else "not_seat"] += 1
    return {k: counter[k] for k in ("spans", "single_digit", "multi_digit", "seat", "not_seat")}


def build_tasks(sessions: list[Session], tasks: list[str] | None = None, *, policy: str = "seats") -> tuple[list[TaskInstance], BuildReport]:
    """Every instance of the chosen tasks over the participant-mode sessions, and the counts."""
    tasks = list(tasks or TASKS)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise VgmError(f"unknown InMind task {unknown[0]!r}; choose from {', '.join(TASKS)} or 'all'")
    participant = [s for s in sessions if s.mode == "participant"]
    report = BuildReport(sessions={"observer": sum(s.mode == "observer" for s in sessions), "participant": len(participant)}, mask_policy=policy)
    instances: list[TaskInstance] = []
    if "reflection_alignment" in tasks:
        report.skipped[SKIP_REVIEWS] = 0
    if "trace_attribution" in tasks:
        report.skipped[SKIP_ROUNDS] = 0
    for task in tasks:
        built: list[TaskInstance] = []
        for session in participant:
            if task == "player_identification":
                built += player_identification(session)
            elif task == "reflection_alignment":
                got = reflection_alignment(session, policy)
                if not got:
                    report.skipped[SKIP_REVIEWS] += 1
                built += got
            elif task == "trace_attribution":
                built += trace_attribution(session, policy)
                report.skipped[SKIP_ROUNDS] += sum(
                    1 for r in session.rounds if r.strategy and not any(mask(n.text, policy=policy).spans for n in r.strategy)
                )
            else:
                built += role_inference(session)
        report.instances[task] = dict(Counter(i.setting for i in built))
        first = SETTINGS[task][0]
        if task in ("reflection_alignment", "trace_attribution"):
            report.units[task] = sum(len(i.gold["answers"]) for i in built if i.setting == first)
        elif task == "role_inference":
            report.units[task] = sum(1 for i in built if i.setting == first)
        else:
            report.units[task] = len(built)
        instances += built
    report.spans = {
        "reflections": span_counts([s.reflection for s in participant]),
        "traces": span_counts([n.text for s in participant for n in s.traces]),
    }
    return instances, report
