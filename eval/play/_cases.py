"""Play-eval case files: one player line each, the scene it is said in, and what a fair GM would do.

A case file is YAML, either a list of cases or a mapping with ``cases:`` (and an optional
``description:`` and ``role:``)::

    cases:
      - id: dnd-climb-wall
        ruleset: dnd5e
        scene: A rain-slick courtyard wall, twelve feet high, topped with broken tiles.
        character: Ilya            # optional: the pack's first ready character otherwise
        line: I climb the wall and drop into the garden beyond.
        expect: {roll: true, checks: [athletics, acrobatics]}

``scene`` (inline text) or ``scenario`` (a shipped id, see ``vgm play --list``) — exactly one.
``history`` (optional) lists earlier turns, played through the same GM in order before ``line``:
``{speaker, text}`` where ``speaker`` is a ready character (played as a turn; when the next item is a
GM line, that line is the turn's reply) or ``GM`` (a GM line put in the log as said, not played);
without a speaker, or with a name an inline scene gives its own hero, it is the case's character.
``expect.reply`` judges the words the player sees: ``any`` (one of these phrases must appear),
``none`` (none may: a contradiction), ``voice`` (an NPC who must speak in quotes). With
``expect.reply`` the ``roll`` key is optional; a case without it counts in the reply metrics only.
``expect.checks`` lists every check a reasonable GM might call (any alias the pack knows; they
are resolved to ids on load). ``expect.impossible: true`` marks an act no roll can make succeed;
it implies ``roll: false``. Every mistake is one line naming the file, the case id and the key.

``role`` says what the set may be used for (``set_role``): ``train`` (tuned on, or its lines are
in the packs' example lines), ``dev`` (scored, then read for development; the default) or
``test`` (scored, never read; no line of it may be a pack example line, see ``leaked_lines``).
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

import rulesets
from gm.characters import CharacterError, find_character, ready_characters
from gm.table import Scenario, ScenarioError, keep_gm_only, load_scenario
from rulesets import FileProblem, UnknownName, VgmError, parse_yaml, read_text

__all__ = [
    "CASES_DIR", "ROLES", "CaseError", "Expect", "HistoryLine", "PlayCase", "ReplyExpect", "load_cases", "name_words", "npc_names", "parse_cases",
    "set_role", "trpg_packs",
]

SHAPE_HINT = "see eval/play/cases/dev.yaml for the shape"
CASES_DIR = Path(__file__).parent / "cases"  # the shipped case sets
ROLES = ("train", "dev", "test")  # what a set may be used for; a file without `role:` is "dev"


class CaseError(VgmError):
    """A play-eval case file that cannot be scored as written."""


class ReplyExpect(BaseModel):
    """What the reply must carry (``any``: one of these phrases), must not (``none``), and who speaks in it (``voice``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    any_of: list[str] = Field(default_factory=list, alias="any")
    none: list[str] = Field(default_factory=list)
    voice: str | None = None


class Expect(BaseModel):
    """What a fair GM does with the line: roll or not, which checks fit, whether it cannot succeed, what it says."""

    model_config = ConfigDict(extra="forbid")
    roll: bool | None = None  # required unless impossible (which implies no roll) or a reply is judged
    checks: list[str] = Field(default_factory=list)
    impossible: bool = False
    reply: ReplyExpect | None = None


class HistoryLine(BaseModel):
    """An earlier turn: a character's line (played) or a ``GM`` line (logged as said). Without a
    ``speaker`` it is the case's own character's line (as a player's own earlier turns usually are)."""

    model_config = ConfigDict(extra="forbid")
    speaker: str = ""
    text: str = Field(min_length=1)


class PlayCase(BaseModel):
    """One player line to adjudicate from a fresh scene."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    ruleset: str = Field(min_length=1)
    scene: str | None = None
    scenario: str | None = None
    character: str | None = None
    history: list[HistoryLine] = Field(default_factory=list)
    line: str = Field(min_length=1)
    expect: Expect
    note: str = ""  # why the expectation is what it is (for people; never scored)

    _scene: Scenario | None = PrivateAttr(default=None)

    @property
    def kind(self) -> str:
        """``impossible``, ``no_roll``, ``roll`` or ``reply`` (only the words are judged) — what the case tests."""
        if self.expect.impossible:
            return "impossible"
        if self.expect.roll is None:
            return "reply"
        return "roll" if self.expect.roll else "no_roll"

    @property
    def speakers(self) -> list[str]:
        """The characters at the table: the case's, then each other one who speaks in the history."""
        return list(dict.fromkeys([self.character or "", *(h.speaker for h in self.history if h.speaker != "GM")]))

    def to_scenario(self) -> Scenario:
        """The scene to play: the shipped scenario, or one built from the inline ``scene`` text."""
        if self._scene is None:
            if self.scenario:
                self._scene = load_scenario(self.scenario, rulesets.load(self.ruleset))
            else:
                text = " ".join((self.scene or "").split())
                self._scene = keep_gm_only(Scenario(id=f"case_{self.id}", ruleset=self.ruleset, title=f"Eval case {self.id}",
                                                    scene=text, opening=text), rulesets.load(self.ruleset))
        return self._scene


def trpg_packs() -> list[str]:
    """The installed rule sets a GM can play (dnd5e, coc7e, pf2e, swade, and any user pack of kind trpg)."""
    out = []
    for name in rulesets.available():
        try:
            if rulesets.load(name).kind == "trpg":
                out.append(name)
        except VgmError:  # a broken user pack is reported by `vgm rulesets validate`, not here
            continue
    return out


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _case_lines(text: str) -> dict[int, int]:
    """Index of each case → its 1-based line in the file (best effort; {} if the shape is odd)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    if isinstance(node, yaml.MappingNode):
        node = next((v for k, v in node.value if getattr(k, "value", None) == "cases"), None)
    if not isinstance(node, yaml.SequenceNode):
        return {}
    return {i: item.start_mark.line + 1 for i, item in enumerate(node.value)}


def _read(path: Path) -> tuple[Any, str]:
    if not path.exists():
        raise CaseError(f"{path}: no such case file; give a YAML file of play-eval cases ({SHAPE_HINT})")
    try:
        text = read_text(path, what="case file")
        return parse_yaml(text, path), text
    except FileProblem as problem:  # the one reader's line, with a syntax error still called "not valid YAML"
        raise CaseError(str(problem).replace("malformed YAML", "not valid YAML", 1)) from None


def _role_of(data: Any, source: str) -> str:
    role = data.get("role", "dev") if isinstance(data, dict) else "dev"
    if role not in ROLES:
        raise CaseError(f"{source}: key 'role': unknown role {role!r}; use one of {', '.join(ROLES)}")
    return role


def set_role(path: str | Path) -> str:
    """The set's ``role:`` (``train``, ``dev`` or ``test``; ``dev`` when the file gives none).

    Raises:
        CaseError: one line naming the file when it cannot be read or the role is unknown.
    """
    path = Path(path)
    return _role_of(_read(path)[0], str(path))


def load_cases(path: str | Path) -> list[PlayCase]:
    """Read and check a case file: rule sets, scenarios, characters and check names all resolve.

    Raises:
        CaseError: one line naming the file (and line), the case id and the key, and the fix.
    """
    path = Path(path)
    data, text = _read(path)
    return parse_cases(data, str(path), _case_lines(text))


def parse_cases(data: Any, source: str = "<cases>", lines: dict[int, int] | None = None) -> list[PlayCase]:
    """Validate already-parsed case data (a list, or a mapping with ``cases:``); see ``load_cases``."""
    lines = lines or {}
    if isinstance(data, dict):
        extra = sorted(set(data) - {"cases", "description", "role"})
        if extra:
            raise CaseError(f"{source}: key {extra[0]!r} is not known at the top level; use `cases:` (and optionally `description:`, `role:`)")
        _role_of(data, source)
        data = data.get("cases")
    if not isinstance(data, list) or not data:
        raise CaseError(f"{source}: no cases; write a list of cases (or `cases:` holding one); {SHAPE_HINT}")
    packs: dict[str, Any] = {}
    sheets: dict[str, list[Any]] = {}  # pack name -> its ready characters, read once per file
    seen: dict[str, int] = {}
    out = []
    for index, raw in enumerate(data):
        where = f"{source}:{lines[index]}" if index in lines else source
        case = _parse_case(raw, index, where, packs, sheets)
        if case.id in seen:
            raise CaseError(f"{where}: case {case.id!r}: key 'id': duplicate (first is case #{seen[case.id] + 1}); ids must be unique so runs can resume")
        seen[case.id] = index
        out.append(case)
    return out


def _parse_case(raw: Any, index: int, where: str, packs: dict[str, Any], sheets_of: dict[str, list[Any]]) -> PlayCase:
    label = f"case #{index + 1}"
    if isinstance(raw, dict) and isinstance(raw.get("id"), (str, int)) and str(raw.get("id")).strip():
        label = f"case {str(raw['id'])!r}"
    if not isinstance(raw, dict):
        raise CaseError(f"{where}: {label}: a case is a mapping (id, ruleset, scene or scenario, line, expect); {SHAPE_HINT}")

    def fail(key: str, problem: str, fix: str = "") -> CaseError:
        return CaseError(_one_line(f"{where}: {label}: key {key!r}: {problem}" + (f"; {fix}" if fix else "")))

    try:
        case = PlayCase.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "case"
        msg = "required" if first["type"] == "missing" else first["msg"]
        hint = {"history": "a history item is {speaker: a ready character or GM, text: what was said}",
                "expect.reply": "`reply:` takes any (phrases), none (phrases), voice (an NPC name)"}
        raise fail(key, msg, next((h for k, h in hint.items() if key.startswith(k)), SHAPE_HINT)) from None

    # the rule set: any name the packs answer to, but only the TRPG ones
    if case.ruleset not in packs:
        try:
            packs[case.ruleset] = rulesets.load(case.ruleset)
        except VgmError:
            packs[case.ruleset] = None
    pack = packs[case.ruleset]
    if pack is None or pack.kind != "trpg":
        raise fail("ruleset", f"unknown TRPG rule set {case.ruleset!r}", f"use one of {', '.join(trpg_packs())}")
    case.ruleset = pack.name

    # where it is played: exactly one of scene / scenario
    if case.scene is not None and case.scenario is not None:
        raise fail("scenario", "give either `scene` (inline text) or `scenario` (a shipped id), not both")
    if case.scene is None and case.scenario is None:
        raise fail("scene", "required: give `scene` (inline text) or `scenario` (a shipped id, see `vgm play --list`)")
    if case.scene is not None and not case.scene.strip():
        raise fail("scene", "empty", "describe where the character is and what is around")
    if case.scenario is not None:
        try:
            scenario = load_scenario(case.scenario, pack)
        except ScenarioError as exc:
            raise fail("scenario", str(exc)) from None
        case.scenario = scenario.id
        case._scene = scenario

    # who speaks: a ready character of the pack
    if pack.name not in sheets_of:
        sheets_of[pack.name] = ready_characters(pack)
    sheets = sheets_of[pack.name]
    if not sheets:
        raise fail("ruleset", f"{pack.name} has no ready characters to play the line", "add sheets under gm/data/characters/")
    if case.character is None:
        case.character = sheets[0].name
    else:
        try:
            case.character = find_character(case.character, sheets).name
        except CharacterError:
            known = ", ".join(s.name for s in sheets)
            raise fail("character", f"no ready {pack.name} character {case.character!r}", f"use one of {known}") from None

    # earlier turns: each by a ready character of the pack, or the GM
    for k, said in enumerate(case.history):
        said.text = " ".join(said.text.split())
        if not said.text:
            raise fail(f"history[{k}].text", "empty", "write what was said")
        if not said.speaker.strip() and not case.character and sheets:
            case.character = sheets[0].name  # the one who speaks the history speaks the line too
        said.speaker = said.speaker.strip() or case.character or ""
        if said.speaker.strip().lower() == "gm":
            said.speaker = "GM"
            continue
        try:
            said.speaker = find_character(said.speaker, sheets).name
        except CharacterError:
            if case.scene and sheets:  # an inline scene's own hero ("Wren") is played by the case's character
                case.character = case.character or sheets[0].name
                said.speaker = case.character
                continue
            known = ", ".join(s.name for s in sheets)
            raise fail(f"history[{k}].speaker", f"no ready {pack.name} character {said.speaker!r}", f"use GM or one of {known}") from None

    # what is expected
    expect = case.expect
    if expect.reply is not None:
        _check_reply(expect.reply, case, fail)
    if expect.impossible:
        if expect.roll:
            raise fail("expect.roll", "an impossible act expects no roll", "write `roll: false` (or leave it out)")
        expect.roll = False
    elif expect.roll is None and expect.reply is None:
        raise fail("expect.roll", "required", "write `roll: true` or `roll: false` (or judge the words with `reply:`)")
    if not expect.roll and expect.checks:
        raise fail("expect.checks", "a case without a roll lists no checks", "drop `checks` or set `roll: true`")
    resolved = []
    for k, name in enumerate(expect.checks):
        try:
            resolved.append(pack.resolve(name))
        except UnknownName as exc:
            raise fail(f"expect.checks[{k}]", str(exc)) from None
    expect.checks = list(dict.fromkeys(resolved))
    case.line = " ".join(case.line.split())
    return case


_TITLES = {"the", "old", "young", "chief", "sheriff", "captain", "dr", "mr", "mrs", "miss", "sir", "lady", "lord",
           "father", "mother", "sister", "brother", "master", "mistress", "doctor", "professor", "saint"}


def name_words(name: str, aliases: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The ways a reply may name someone: the full name, the aliases, and each name word but titles ("Chief")."""
    words = [w for w in re.findall(r"[\w'-]+", name) if w.lower().strip(".") not in _TITLES and len(w) > 2]
    return list(dict.fromkeys([name, *aliases, *words]))


def npc_names(scenario: Scenario) -> dict[str, list[str]]:
    """Each NPC of a scenario → the words that name them (full name, aliases, name words without titles).

    Read from ``npcs:`` and, when the scenario carries one, its ``world:`` (names and aliases). A word
    two NPCs share (a family name) names neither.
    """
    out: dict[str, list[str]] = {}
    world = getattr(scenario, "world", None)
    people = getattr(world, "npcs", None) if world is not None and not isinstance(world, dict) else (world or {}).get("npcs")
    listed = [(n.name, []) for n in scenario.npcs]
    for person in people or []:
        name = person.get("name") if isinstance(person, dict) else getattr(person, "name", None)
        aliases = person.get("aliases", []) if isinstance(person, dict) else getattr(person, "aliases", [])
        if name:
            listed.append((name, list(aliases or [])))
    for name, aliases in listed:
        known = out.setdefault(name, [])
        known += [n for n in name_words(name, aliases) if n not in known]
    shared = Counter(w.lower() for words in out.values() for w in words)  # "Quist" names Ruth and Abner: neither
    return {name: [w for w in words if w == name or shared[w.lower()] == 1] for name, words in out.items()}


def _named(name: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text.lower()) is not None


def _check_reply(reply: ReplyExpect, case: PlayCase, fail: Any) -> None:
    """Phrases are non-empty; the ``voice`` is an NPC of the scenario, or a name the inline scene gives."""
    if not (reply.any_of or reply.none or reply.voice):
        raise fail("expect.reply", "empty", "give `any` (phrases a right reply carries), `none` (contradictions) or `voice` (an NPC)")
    for key, phrases in (("any", reply.any_of), ("none", reply.none)):
        for k, phrase in enumerate(phrases):
            if not " ".join(str(phrase).split()):
                raise fail(f"expect.reply.{key}[{k}]", "empty phrase", "write a word or phrase, or drop the item")
    if reply.voice is None:
        return
    reply.voice = " ".join(reply.voice.split())
    if case.scenario:
        names = npc_names(case.to_scenario())
        hit = next((full for full, words in names.items() if any(w.lower() == reply.voice.lower() for w in words)), None)
        if hit is None:
            raise fail("expect.reply.voice", f"no NPC {reply.voice!r} in scenario {case.scenario}", f"use one of {', '.join(names) or '(none listed)'}")
        reply.voice = hit
    elif not _named(reply.voice, case.scene or ""):
        raise fail("expect.reply.voice", f"{reply.voice!r} is not named in the scene", "name the NPC in `scene` or fix the spelling")
