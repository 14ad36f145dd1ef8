"""Table state: the scenario being played, and the session (who plays whom, the log, every roll).

The session is the single source of truth of a game: it is written as JSON after every turn
(atomically), so a crash or Ctrl-C loses nothing and ``GameMaster.resume(path)`` continues
exactly where play stopped — including the dice, which are drawn from ``(seed, roll number)``.
"""
from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gm.gm_only import FINDING, split_gm_only
from gm.world.model import world_problem
from pipelines.records import Check, Turn
from rulesets import FileProblem, UnknownName, VgmError, read_json, read_yaml, write_atomic

__all__ = [
    "ScenarioError", "SessionError", "NPC", "Secret", "Scenario", "load_scenario", "list_scenarios", "keep_gm_only",
    "RollRecord", "PendingCheck", "TurnRecord", "Session", "SCENARIOS",
]

SCENARIOS = Path(__file__).parent / "data" / "scenarios"
SESSION_VERSION = 1


class ScenarioError(VgmError):
    """A scenario file that cannot be played."""


class SessionError(VgmError):
    """A session file that cannot be resumed."""


class NPC(BaseModel):
    """Someone the GM plays. ``description`` is what the players can see; ``secret`` and
    ``wants`` are GM-only and never reach a prompt whose text the players read."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str
    wants: str = ""
    secret: str = ""


class Secret(BaseModel):
    """Something the players can find with the right check, at a set difficulty.

    ``difficulty`` is a DC (dnd5e, pf2e), a level (coc7e: regular / hard / extreme) or a
    TN modifier (swade: 0 is TN 4, -2 is TN 4 at -2). ``checks`` is the family of checks that can
    find it (any of them will do). ``keywords`` and ``trigger`` (a sentence describing the acts
    that reach it) say which actions it answers to: a secret opens by the player's intent.
    """

    model_config = ConfigDict(extra="forbid")
    id: str
    text: str
    checks: list[str]
    difficulty: int | str | None = None  # None: the scene's usual difficulty (a note the prose marked for the GM)
    keywords: list[str] = Field(default_factory=list)
    trigger: str = ""
    on_fail: str = ""


class Scenario(BaseModel):
    """A short scene to play: where we are, who is here, what can be found (and how hard it is)."""

    model_config = ConfigDict(extra="forbid")
    id: str
    ruleset: str
    title: str
    scene: str
    opening: str
    npcs: list[NPC] = Field(default_factory=list)
    secrets: list[Secret] = Field(default_factory=list)
    difficulty: int | str | None = None  # the default DC / level / TN modifier for checks no secret covers
    level: int = 1  # pf2e: the party level, for level-based DCs
    notes: list[str] = Field(default_factory=list)  # facts the GM keeps in mind (also stored in memory)
    encounter: str | None = None  # a fight (gm/data/encounters/<id>.yaml) the scene can break into
    characters: list[str] = Field(default_factory=list)  # ready characters suggested for this scene
    world: dict[str, Any] | None = None  # who knows what, places, things, era (gm.world.World's shape); see docs/play.md

    @field_validator("world")
    @classmethod
    def _world_shape(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        problem = world_problem(value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    def public_scene(self, revealed: set[str] | None = None) -> str:
        """What the players may be told: the scene, what they see of the NPCs, what they found."""
        revealed = revealed or set()
        lines = [self.scene.strip()]
        lines += [f"{npc.name}: {npc.description.strip()}." .replace("..", ".") for npc in self.npcs]
        lines += [s.text.strip() for s in self.secrets if s.id in revealed]
        return " ".join(" ".join(lines).split())

    def hidden_texts(self, revealed: set[str] | None = None) -> list[str]:
        """GM-only texts: secrets not yet found, NPC agendas and secrets, the GM's notes."""
        revealed = revealed or set()
        out = [s.text for s in self.secrets if s.id not in revealed]
        out += [t for npc in self.npcs for t in (npc.wants, npc.secret) if t]
        return out + list(self.notes)

    def briefing(self, revealed: set[str] | None = None) -> str:
        """What the GM tells the model about the scene: never a secret not yet found."""
        revealed = revealed or set()
        lines = [f"Scenario: {self.title}.", self.scene.strip()]
        for npc in self.npcs:
            lines.append(f"NPC {npc.name}: {npc.description.strip()}")
        for secret in self.secrets:
            if secret.id in revealed:
                lines.append(f"Already found: {secret.text.strip()}")
        return "\n".join(lines)


def _is_file(path: Path) -> bool:
    """``path.is_file()``, and False for a name the file system refuses (too long, say)."""
    try:
        return path.is_file()
    except (OSError, ValueError):  # ENAMETOOLONG; a NUL byte in the name
        return False


def _validate(model: type[BaseModel], data: Any, error: type[VgmError], path: Path, fix: str):
    """Validate ``data``; the first problem becomes one line naming the file and the key."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        raise error(f"{path}: key {key!r}: {first['msg']}; {fix}") from None


def load_scenario(name_or_path: str | Path, ruleset=None) -> Scenario:
    """A shipped scenario by id (``drowned_chapel``) or a YAML file; its check names resolve through the pack."""
    path = Path(name_or_path)
    if not path.suffix:
        path = SCENARIOS / f"{name_or_path}.yaml"
    if not _is_file(path):
        known = ", ".join(s.id for s in list_scenarios())
        name = str(name_or_path)
        shown = repr(name if len(name) <= 80 else name[:80] + "…")
        raise ScenarioError(f"scenario {shown} not found; use one of {known} or a .yaml file")
    try:
        data = read_yaml(path, what="scenario")
    except FileProblem as problem:
        raise ScenarioError(str(problem)) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario is a mapping (id, ruleset, title, scene, opening, ...)")
    data.setdefault("id", path.stem)
    if data.get("world") is not None and (problem := world_problem(data["world"])):
        raise ScenarioError(f"{path}: {problem}; see 'Scenario worlds' in docs/play.md for the shape")
    scenario = _validate(Scenario, data, ScenarioError, path, "see gm/data/scenarios/ for the shape")
    if ruleset is not None:
        if scenario.ruleset != ruleset.name:
            raise ScenarioError(f"{path}: scenario is for {scenario.ruleset!r}, the table plays {ruleset.name!r}; pick a {ruleset.name} scenario (`vgm play --list`)")
        for i, secret in enumerate(scenario.secrets):
            try:
                secret.checks = [ruleset.resolve(c) for c in secret.checks]
            except UnknownName as exc:
                raise ScenarioError(f"{path}: secrets[{i}].checks: {exc}") from None
        for i, npc in enumerate((scenario.world or {}).get("npcs") or []):
            for j, item in enumerate(npc.get("knows") or []):
                try:
                    item["checks"] = [ruleset.resolve(c) for c in item.get("checks") or []]
                except UnknownName as exc:
                    raise ScenarioError(f"{path}: world.npcs[{i}] ({npc['name']}).knows[{j}] ({item['topic']}): key 'checks': {exc}") from None
    return keep_gm_only(scenario, ruleset)  # "(GM only: ...)" in the prose is a secret, not the players' scene


def keep_gm_only(scenario: Scenario, pack: Any = None) -> Scenario:
    """The scenario with its scene's and opening's GM-only parts moved into secrets: found, like any
    secret, by an act that reaches for it and a check of the pack's searching and noticing kind."""
    scene, from_scene = split_gm_only(scenario.scene)
    opening, from_opening = split_gm_only(scenario.opening)
    notes = list(dict.fromkeys([*from_scene, *from_opening]))
    if not notes:
        return scenario
    concepts = getattr(pack, "concepts", None) or {}
    checks = list(dict.fromkeys(c for kind in FINDING for c in concepts.get(kind, [])))
    taken = {s.id for s in scenario.secrets}
    secrets = [Secret(id=_free_id(f"gm_only_{i}", taken), text=note, checks=checks, difficulty=None, trigger=note)
               for i, note in enumerate(notes, 1)]
    return scenario.model_copy(update={"scene": scene, "opening": opening or scene,
                                       "secrets": [*scenario.secrets, *secrets]})


def _free_id(wanted: str, taken: set[str]) -> str:
    at = 2
    found = wanted
    while found in taken:
        found, at = f"{wanted}_{at}", at + 1
    taken.add(found)
    return found


def list_scenarios(ruleset: str | None = None) -> list[Scenario]:
    """The shipped scenarios, optionally for one rule set."""
    out = [load_scenario(p) for p in sorted(SCENARIOS.glob("*.yaml"))]
    return [s for s in out if ruleset is None or s.ruleset == ruleset]


class RollRecord(BaseModel):
    """One roll as the table saw it: who, what, the dice, the target, and what it meant."""

    character: str | None = None
    check: str | None = None  # check id; None for a free /roll
    check_name: str | None = None
    expression: str
    total: int
    breakdown: str
    target: int | None = None  # DC, TN, or CoC target percentage
    target_label: str | None = None  # "DC 15", "Hard (30)", "TN 4"
    outcome: str | None = None  # "success", "hard success", "raise", "failure", "fumble", ...
    success: bool | None = None
    modifier_why: str = ""
    difficulty_why: str = ""
    secret: str | None = None  # the scenario secret this roll was for
    by: str = "gm"  # "gm" rolled it, or "player" typed it

    def line(self) -> str:
        """``Brisa — Perception: 1d20+5 (12) + 5 = 17 vs DC 15 → success``."""
        if self.check is None:
            return f"{self.character or 'roll'}: {self.breakdown}"
        target = f" vs {self.target_label}" if self.target_label else ""
        return f"{self.character} — {self.check_name}: {self.breakdown}{target} → {self.outcome}"


class PendingCheck(BaseModel):
    """A check the GM asked for and a player still has to roll (``--player-rolls``)."""

    check: Check
    check_name: str
    expression: str
    hint: str  # what to type, e.g. "the d20 you rolled (1-20)"
    plan: dict[str, Any] = Field(default_factory=dict)  # the RollPlan, so a resumed game can finish the roll
    difficulty: dict[str, Any] = Field(default_factory=dict)  # the Difficulty set when the check was called


class TurnRecord(BaseModel):
    """Everything one player input caused: the checks, the rolls, the GM's words, and the costs."""

    player: str
    character: str | None = None
    text: str
    checks: list[Check] = Field(default_factory=list)
    rolls: list[RollRecord] = Field(default_factory=list)
    narration: str = ""
    notes: list[str] = Field(default_factory=list)  # what the GM dropped or fell back on, said plainly
    why: str = ""  # why an act was refused as impossible, when a rule could say
    refused: bool = False  # the act could not happen: later narration must not take it as having happened
    implausible: bool = False  # rolled at the hardest difficulty: even a success stops short of the impossible part
    failed: str = ""  # a step that broke this turn and was gone on without, e.g. the decision
    steps: list[dict[str, Any]] = Field(default_factory=list)  # per step: name, seconds, tokens
    at: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))


class Session(BaseModel):
    """A game at one table; saved after every turn."""

    version: int = SESSION_VERSION
    id: str = Field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6])
    ruleset: str
    scenario: Scenario
    pipeline: str = "tbs"
    characters: list[dict[str, Any]] = Field(default_factory=list)  # sheets as written (validated on resume)
    players: dict[str, str] = Field(default_factory=dict)  # player name -> character name
    log: list[Turn] = Field(default_factory=list)
    turns: list[TurnRecord] = Field(default_factory=list)
    free_rolls: list[RollRecord] = Field(default_factory=list)
    undone: list[TurnRecord] = Field(default_factory=list)  # inputs the table took back (undo, regenerate), dice and all (gm.undo)
    pending: list[PendingCheck] = Field(default_factory=list)
    pending_turn: TurnRecord | None = None  # the turn whose checks are waiting for player rolls
    revealed: list[str] = Field(default_factory=list)
    world: dict[str, Any] | None = None  # the world as play changed it (gm.world.World.model_dump): who holds what, facts decided
    combat: dict[str, Any] | None = None  # the fight in progress (gm.combat.Combat.to_dict): round, order, hp
    party: dict[str, Any] | None = None  # the characters between fights, before any fight (hp, spell slots ...): gm.party
    seed: int = Field(default_factory=lambda: uuid.uuid4().int % 2**31)
    rolls_made: int = 0
    player_rolls: bool = False
    lang: str = "en"  # the table's language (vgm play --lang): zh plays with the Chinese prompts and fixed sentences (gm.language)
    model: str | None = None  # the model string the game was played with: a resume keeps it
    memory: str | None = None  # "minilm", "hashing" or "off": a resume keeps it
    memory_dir: str | None = None
    path: str | None = None

    def save(self, path: str | Path | None = None) -> Path:
        """Write the session as JSON, atomically (write a temp file, then rename)."""
        target = Path(path or self.path or f"{self.id}.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        self.path = str(target)
        write_atomic(target, self.model_dump_json(indent=1))
        return target

    @classmethod
    def load(cls, path: str | Path) -> "Session":
        """A session saved by ``save``; a missing or damaged file is one ``SessionError`` line."""
        path = Path(path)
        if not _is_file(path):
            raise SessionError(f"session file {path} not found; give the path printed when the game started")
        try:
            data = read_json(path, what="session file")
        except FileProblem as problem:
            raise SessionError(str(problem)) from None
        session = _validate(cls, data, SessionError, path, "this is not a vgm play session file")
        session.path = str(path)
        return session

    def transcript(self) -> str:
        """The table log as text, one line per turn."""
        return "\n".join(str(t) for t in self.log)


_SLUG = re.compile(r"[^a-zA-Z0-9]+")


def slug(text: str) -> str:
    return _SLUG.sub("-", text).strip("-").lower() or "session"
