"""The probe DSL: a YAML list of private questions, validated at load time.

A probe set is::

    name: default
    probes:
      - id: role_assessment
        question: |
          You are {player} ({role}). Alive: {players}. Earlier you thought: {last_role_assessment}
          ...
        when: [always, night, round_end]   # always | own_turn | round_end | night
        max_tokens: 700
        answer: role_assessment           # a shape from ANSWER_SHAPES, json or text
        instructions: |                   # optional: fixed text put before the seat's game context
          ...

Placeholders: ``{player}`` (the probed seat), ``{players}`` (alive others), ``{role}``,
``{round}``, ``{phase}``; ``{prev_<id>}`` = this step's earlier answer of probe ``<id>``, else
the previous step's; ``{last_<id>}`` = the previous step's answer. A missing answer reads
``N/A``. Any other ``{name}`` is an error at load time, and so is ``{prev_<id>}`` naming a
probe that runs later in the set (it could never have answered yet at this step).
Literal JSON examples in a question are fine: only ``{identifier}`` is a placeholder.

``instructions`` (optional) is the part of a probe that never changes during a game: it is put
at the very start of the seat's system prompt, so the probe's prompt is the same text from step
to step up to the end of the game log and a prefix-caching server computes only the log lines new
since the last probe, the (short) question and the answer. It may use only ``{player}`` and
``{role}``, which stay the same for a seat all game; anything else is an error at load time.

``keyed: true`` (for answers that list players) asks for one object keyed by the alive others'
names, ``{"Alex": 70, "Blair": 20}``, every name required by the schema sent to the server; the
log stores it in the usual list shape, so every scorer reads it unchanged.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rulesets import FileProblem, VgmError, read_yaml

from ._answers import ANSWER_SHAPES, player_entry
from ._check import ScoringProblem, scoring_problems

When = Literal["always", "own_turn", "round_end", "night"]
PLAIN_PLACEHOLDERS = ("player", "players", "role", "round", "phase")
SEAT_PLACEHOLDERS = ("player", "role")  # the same for a seat all game: the only ones instructions may use
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
SETS_DIR = Path(__file__).parent / "sets"
NA = "N/A"


class ProbeSpecError(VgmError):
    """A probe YAML file the user must fix; the message names the file and the probe."""


class ProbeSpec(BaseModel):
    """One private question asked of a seat."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    question: str
    instructions: str = ""  # fixed text before the seat's game context (a cached prefix); {player}, {role} only
    when: list[When] = ["always"]
    max_tokens: int = Field(600, ge=16, le=8192)
    answer: str = "json"
    roles: list[str] | None = None  # ask only seats with these roles (None = everyone)
    keyed: bool = False  # answer one object keyed by the alive others' names ({"Alex": 70}); stored in the list shape

    @field_validator("when", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("answer")
    @classmethod
    def _known_shape(cls, v: str) -> str:
        if v not in ANSWER_SHAPES:
            raise ValueError(f"unknown answer shape {v!r}; use one of {', '.join(ANSWER_SHAPES)}")
        return v

    @model_validator(mode="after")
    def _keyed_needs_players(self) -> "ProbeSpec":
        if self.keyed and player_entry(ANSWER_SHAPES[self.answer]) is None:
            raise ValueError(f"keyed: true needs an answer that lists players; {self.answer!r} does not")
        return self

    def placeholders(self) -> list[str]:
        return PLACEHOLDER.findall(self.instructions) + PLACEHOLDER.findall(self.question)

    def chains(self) -> list[tuple[str, str]]:
        """(``prev``|``last``, probe id) for every chained placeholder, in order."""
        out = []
        for name in self.placeholders():
            for kind in ("prev", "last"):
                if name.startswith(kind + "_"):
                    out.append((kind, name[len(kind) + 1:]))
        return out

    def fires_on(self, trigger: str) -> bool:
        return trigger in self.when


class ProbeSet(BaseModel):
    """An ordered set of probes; order is the order they are asked in one step."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    description: str = ""
    probes: list[ProbeSpec]
    source: str = ""

    def ids(self) -> list[str]:
        return [p.id for p in self.probes]

    def due(self, trigger: str, role: str | None = None) -> list[ProbeSpec]:
        return [p for p in self.probes if p.fires_on(trigger) and (p.roles is None or role in p.roles)]

    def scoring_problems(self, game: str, *, personas: bool = False) -> list[ScoringProblem]:
        """The probes ``vgm <game> score`` could not grade on this game's logs, one problem each."""
        return scoring_problems(self, game, personas=personas)


def _check_placeholders(probes: list[ProbeSpec], where: str) -> None:
    order = {p.id: i for i, p in enumerate(probes)}
    for i, probe in enumerate(probes):
        for name in PLACEHOLDER.findall(probe.instructions):
            if name not in SEAT_PLACEHOLDERS:
                raise ProbeSpecError(
                    f"{where}: probe {probe.id!r} uses {{{name}}} in its instructions, which must read the same all game "
                    f"(they are the cached prefix of every probe prompt); use only {{player}} and {{role}} there and "
                    f"move {{{name}}} to the question"
                )
        for name in probe.placeholders():
            if name in PLAIN_PLACEHOLDERS:
                continue
            kind, _, target = name.partition("_")
            if kind not in ("prev", "last") or not target:
                raise ProbeSpecError(
                    f"{where}: probe {probe.id!r} uses unknown placeholder {{{name}}}; "
                    f"use {', '.join('{' + p + '}' for p in PLAIN_PLACEHOLDERS)}, {{prev_<id>}} or {{last_<id>}}"
                )
            if target not in order:
                raise ProbeSpecError(
                    f"{where}: probe {probe.id!r} chains to {{{name}}} but no probe has id {target!r}; "
                    f"known ids: {', '.join(order)}"
                )
            if kind == "prev" and order[target] >= i:
                raise ProbeSpecError(
                    f"{where}: probe {probe.id!r} uses {{{name}}} but {target!r} runs "
                    f"{'at the same time' if order[target] == i else 'later'} in the set; move {target!r} "
                    f"before {probe.id!r} or use {{last_{target}}} (the previous step's answer)"
                )


def parse_probe_set(data: Any, where: str = "<probe set>") -> ProbeSet:
    """Validate already-loaded YAML data into a ``ProbeSet`` (errors name ``where`` and the probe)."""
    if isinstance(data, list):
        data = {"probes": data}
    if not isinstance(data, dict) or not isinstance(data.get("probes"), list) or not data["probes"]:
        raise ProbeSpecError(f"{where}: expected a non-empty list of probes (or a mapping with 'probes:'); see docs/probes.md")
    for i, raw in enumerate(data["probes"]):
        label = raw.get("id", f"#{i + 1}") if isinstance(raw, dict) else f"#{i + 1}"
        try:
            ProbeSpec.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            key = ".".join(str(p) for p in err.get("loc", ())) or "probe"
            raise ProbeSpecError(f"{where}: probe {label!r}, key {key!r}: {err.get('msg')}") from None
    try:
        probe_set = ProbeSet.model_validate({**data, "source": where})
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err.get("loc", ())) or "set"
        raise ProbeSpecError(f"{where}: key {key!r}: {err.get('msg')}") from None
    seen: set[str] = set()
    for p in probe_set.probes:
        if p.id in seen:
            raise ProbeSpecError(f"{where}: probe id {p.id!r} appears twice; give each probe its own id")
        seen.add(p.id)
    _check_placeholders(probe_set.probes, where)
    return probe_set


def builtin_sets() -> list[str]:
    return sorted(p.stem for p in SETS_DIR.glob("*.yaml"))


def load_probe_set(spec: str | Path | ProbeSet) -> ProbeSet:
    """A probe set from a built-in name (``default``, ``cheap``) or a YAML file path."""
    if isinstance(spec, ProbeSet):
        return spec
    path = Path(spec)
    try:
        if not path.suffix and (SETS_DIR / f"{spec}.yaml").is_file():
            path = SETS_DIR / f"{spec}.yaml"
        found = path.exists()
    except (OSError, ValueError):  # a name too long for a file, a NUL byte
        found = False
    if not found:
        raise ProbeSpecError(f"probe set {str(spec)[:80]!r} not found; give a YAML file or one of: {', '.join(builtin_sets())}")
    try:
        data = read_yaml(path, what="probe set")
    except FileProblem as problem:
        raise ProbeSpecError(str(problem)) from None
    return parse_probe_set(data, str(path))


def render_question(template: str, values: dict[str, str]) -> str:
    """Fill ``{name}`` placeholders; anything not given reads N/A."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), NA), template)
