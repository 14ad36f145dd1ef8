"""Intervention edits for forks: rewrite what was said, force a vote or night action, plant a belief.

MafiaScope's replay could only re-draw a step; its planned intervention editor (utterance
rewriting, night-action overrides, belief injection) is what makes the vote coupling of its
F4 causal. An edit file is YAML (or JSON)::

    edits:
      - {kind: utterance, at: 1.7, text: "Sheriff: Gray is Mafia. Vote them out."}  # rewrite a speech said at or before the branch
      - {kind: speech, round: 2, seat: Casey, text: "I trust Gray."}                # what a seat will say in a later round
      - {kind: vote, round: 1, seat: Alex, target: Gray}                             # a day vote (Avalon: approve / reject)
      - {kind: night, round: 2, seat: Blair, target: Casey}                          # a Mafioso's kill pick, the Doctor's save, the Sheriff's check
      - {kind: belief, seat: Drew, text: "I am sure Gray is Mafia."}                 # a private thought only Drew sees, from the branch on

Every edit is checked against the recorded game before any fork runs: a seat or a step that
does not exist is one line naming the key. A fork records its edits (with the original text
of a rewritten speech) in its ``fork`` record; forced moves leave a ``forced_move`` record.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gm.social.events import parse_key
from rulesets import FileProblem, VgmError, read_json, read_yaml

from ._data import position


class _Edit(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Utterance(_Edit):
    """Rewrite the public speech at step ``at`` (at or before the branch point)."""

    kind: Literal["utterance"]
    at: str
    text: str

    @field_validator("at", mode="before")
    @classmethod
    def _key(cls, v: Any) -> str:
        return str(v)


class Speech(_Edit):
    """What ``seat`` says at its speaking turns of ``round`` (after the branch point)."""

    kind: Literal["speech"]
    round: int
    seat: str
    text: str


class Vote(_Edit):
    """``seat``'s day vote in ``round``: a player (Mafia; null abstains) or approve / reject (Avalon)."""

    kind: Literal["vote"]
    round: int
    seat: str
    target: str | bool | None


class Night(_Edit):
    """``seat``'s night action in ``round``: the kill pick of a Mafioso, the Doctor's save, the Sheriff's check."""

    kind: Literal["night"]
    round: int
    seat: str
    target: str


class Belief(_Edit):
    """A private thought ``seat`` sees in its log from the branch point on (LLM seats read it; scripted seats do not)."""

    kind: Literal["belief"]
    seat: str
    text: str


Edit = Annotated[Union[Utterance, Speech, Vote, Night, Belief], Field(discriminator="kind")]


class EditFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edits: list[Edit] = Field(min_length=1)


NIGHT_KIND = {"mafia": "kill", "doctor": "save", "sheriff": "check"}


def load_edits(path: str | Path) -> list[Edit]:
    """The edits of a YAML/JSON file (a list, or ``{edits: [...]}``); a bad one is one line naming the key."""
    from pydantic import ValidationError

    from rulesets import validation_problem

    p = Path(path)
    data = read_json(p, what="edit file") if p.suffix.lower() == ".json" else read_yaml(p, what="edit file")
    if isinstance(data, list):
        data = {"edits": data}
    if not isinstance(data, dict):
        raise FileProblem(p, "is not a list of edits", "write `edits:` followed by a list (see docs/social.md)")
    try:
        return list(EditFile.model_validate(data).edits)
    except ValidationError as exc:
        raise validation_problem(p, exc, fix="see the edit kinds in docs/social.md") from None


def _speeches(snap: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(e["round"], e["public_msg_seq"]): e for e in snap["events"] if e.get("kind") == "speech" and not e.get("private")}


def check_edits(path: str | Path, edits: list[Edit], snap: dict[str, Any], at: tuple[int, int]) -> None:
    """Every seat, step and target an edit names exists in the game at the branch point ``at``."""
    names = list(snap["names"])
    engine = snap.get("engine")
    max_rounds = int(snap.get("options", {}).get("max_rounds") or 3 * len(names)) if engine == "mafia" else None
    said = _speeches(snap)
    over = {(e["round"], e["kind"]) for e in snap["events"] if e.get("kind") in ("vote_result", "night_result")}
    for i, edit in enumerate(edits):
        def bad(key: str, problem: str, fix: str) -> FileProblem:
            return FileProblem(path, problem, fix, key=f"edits.{i}.{key}")

        seat = getattr(edit, "seat", None)
        if seat is not None and seat not in names:
            raise bad("seat", f"{seat!r} is not a player of {snap['game_id']}", f"name one of {', '.join(names)}")
        if isinstance(edit, Utterance):
            try:
                key = parse_key(edit.at)
            except VgmError:
                raise bad("at", f"{edit.at!r} is not a step", "write ROUND.SEQ, e.g. 1.7") from None
            if key not in said or position(*key) > position(*at):
                steps = ", ".join(f"{r}.{s}" for r, s in sorted(said) if position(r, s) <= position(*at)) or "none"
                raise bad("at", f"step {edit.at} is not a speech at or before the branch point {at[0]}.{at[1]}",
                          f"name one of the speeches ({steps})")
            continue
        if isinstance(edit, Belief):
            continue
        if edit.round < at[0] or (max_rounds is not None and edit.round > max_rounds):
            last = f"{max_rounds}" if max_rounds is not None else "the last"
            raise bad("round", f"round {edit.round} is not a round after the branch point {at[0]}.{at[1]}",
                      f"give a round from {at[0]} to {last}")
        if isinstance(edit, Vote) and (edit.round, "vote_result") in over:
            raise bad("round", f"the round-{edit.round} vote is over at the branch point {at[0]}.{at[1]}",
                      "branch earlier (--at) or force a later round's vote")
        if isinstance(edit, Night):
            if engine != "mafia":
                raise bad("kind", "night actions are Mafia's", "use utterance, speech, vote or belief edits in Avalon")
            role = snap["roles"][seat]
            if role not in NIGHT_KIND:
                raise bad("seat", f"{seat} is a {role} and has no night action", "name a Mafioso, the Doctor or the Sheriff")
            if (edit.round, "night_result") in over:
                raise bad("round", f"night {edit.round} is over at the branch point {at[0]}.{at[1]}",
                          "branch earlier (--at) or force a later night")
        target = getattr(edit, "target", None)
        if isinstance(edit, Vote) and engine == "avalon":
            if not isinstance(edit.target, bool) and str(edit.target).lower() not in ("approve", "reject"):
                raise bad("target", f"{edit.target!r} is not an Avalon vote", "write approve or reject")
        elif isinstance(target, str) and target not in names:
            raise bad("target", f"{target!r} is not a player of {snap['game_id']}", f"name one of {', '.join(names)}")


def _forced(edit: Edit, engine: str, roles: dict[str, str]) -> tuple[int, str, str, Any]:
    if isinstance(edit, Speech):
        return edit.round, "speak", edit.seat, {"text": edit.text}
    if isinstance(edit, Vote):
        if engine == "avalon":
            return edit.round, "vote", edit.seat, edit.target if isinstance(edit.target, bool) else str(edit.target).lower() == "approve"
        return edit.round, "vote", edit.seat, edit.target
    return edit.round, NIGHT_KIND[roles[edit.seat]], edit.seat, edit.target


def edited_snapshot(snap: dict[str, Any], edits: list[Edit]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A copy of ``snap`` with the speeches rewritten and the forced moves set; and the record of every edit.

    Beliefs are not in the snapshot: ``plant_beliefs`` adds them to the restored game.
    """
    snap = copy.deepcopy(snap)
    said = _speeches(snap)
    forced = dict(snap.get("forced") or {})
    record = []
    for edit in edits:
        row = edit.model_dump()
        if isinstance(edit, Utterance):
            event = said[parse_key(edit.at)]
            row["original"] = event.get("text", "")
            row["seat"] = event.get("player")
            event["text"] = edit.text
        elif not isinstance(edit, Belief):
            rnd, kind, seat, value = _forced(edit, snap.get("engine", ""), snap["roles"])
            forced[f"{rnd}|{kind}|{seat}"] = value
            row["decision"] = kind
        record.append(row)
    snap["forced"] = forced
    return snap, record


def plant_beliefs(game: Any, edits: list[Edit], at: tuple[int, int]) -> None:
    """Each belief edit as a private event to its seat, at the branch point."""
    for edit in edits:
        if isinstance(edit, Belief):
            game.log.append({"game_id": game.game_id, "round": at[0], "public_msg_seq": at[1], "kind": "belief",
                             "private": True, "to": [edit.seat], "player": edit.seat, "text": edit.text})
