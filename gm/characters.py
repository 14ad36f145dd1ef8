"""Character sheets, one small shape per rule system, and what each sheet adds to a check.

A sheet answers one question for the GM: "this character makes this check — what do they
roll?" (``sheet.plan(ruleset, check_id) -> RollPlan``).

- ``dnd5e``: ability scores → modifiers; proficiency (and expertise) by level.
- ``coc7e``: characteristics and skill percentages; hard = half, extreme = a fifth.
- ``pf2e``: attribute modifiers and proficiency ranks (trained +2 … legendary +8, plus level).
- ``swade``: die types per attribute/skill; Wild Cards add the Wild Die.

Ready characters ship in ``gm/data/characters/<pack>/``; a user's own YAML sheet validates on
load and a mistake is one line naming the file, the line and the key.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rulesets import VgmError

from .dice import BadDice, die_size

__all__ = [
    "CharacterError", "RollPlan", "Sheet", "Dnd5eSheet", "Coc7eSheet", "Pf2eSheet", "SwadeSheet",
    "SHEETS", "load_character", "parse_character", "ready_characters", "find_character",
]

DATA = Path(__file__).parent / "data" / "characters"


class CharacterError(VgmError):
    """A character sheet that cannot be used, or a character that is not at the table."""


class RollPlan(BaseModel):
    """What a character rolls for one check, before any difficulty is known."""

    system: Literal["d20", "percentile", "degrees", "trait"]
    check: str
    check_name: str
    modifier: int = 0  # d20 systems: added to the d20; swade: added to the trait roll
    value: int | None = None  # coc7e: the skill percentage
    die: str | None = None  # swade: the trait die, e.g. "d8"
    wild: bool = False  # swade: roll the Wild Die too
    why: str = ""  # "WIS +3, proficiency +2"

    def expression(self, advantage: int = 0) -> str:
        """The dice as a player would write them (``1d20+5``, ``2d20kh1+5``, ``1d100``, ``d8 + wild d6``)."""
        if self.system in ("d20", "degrees"):
            dice = "1d20" if advantage == 0 else ("2d20kh1" if advantage > 0 else "2d20kl1")
            return f"{dice}{self.modifier:+d}" if self.modifier else dice
        if self.system == "percentile":
            return "1d100"
        sides, bonus = die_size(self.die or "d4")
        mod = self.modifier + bonus
        return f"1d{sides}{' + wild d6' if self.wild else ''}{f' {mod:+d}' if mod else ''}"


def _ability_key(ruleset, key: str) -> str | None:
    """An ability id from its id, abbreviation, name or alias ("wis", "Wisdom", "WIS")."""
    want = re.sub(r"[^a-z]", "", key.lower())
    for ident, ability in ruleset.ability_defs.items():
        names = [ident, ability.name, ability.abbr or "", *ability.aliases]
        if want in {re.sub(r"[^a-z]", "", n.lower()) for n in names if n}:
            return ident
    return None


def _check_def(ruleset, check_id: str):
    """The pack's CheckDef for an id (``lore:sailing`` included), or a one-line error."""
    from rulesets import UnknownName

    try:
        return ruleset.check(check_id)
    except UnknownName:
        raise CharacterError(f"{ruleset.name} has no check {check_id!r}; use an id from `vgm rulesets show {ruleset.name}`") from None


def _abbr(ruleset, ability: str) -> str:
    d = ruleset.ability_defs.get(ability)
    return (d.abbr or d.name[:3]) if d else ability[:3]


class Sheet(BaseModel):
    """What every sheet has: a name to be addressed by, and who plays it."""

    model_config = ConfigDict(extra="forbid")
    system: ClassVar[str] = ""

    name: str
    ruleset: str
    player: str | None = None
    aliases: list[str] = Field(default_factory=list)
    concept: str = ""
    notes: str = ""

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a character needs a name")
        return value.strip()

    def names(self) -> list[str]:
        """Every way a player may address this character: full name, first name, aliases."""
        words = [w for w in self.name.split() if not w.endswith(".")]  # skip titles: "Dr. Margaret Hale" → Margaret
        first = words[0] if words else self.name
        return list(dict.fromkeys([self.name, first, *self.aliases]))

    def plan(self, ruleset, check_id: str) -> RollPlan:  # pragma: no cover - each system overrides
        raise NotImplementedError

    def check_keys(self) -> dict[str, list[str]]:
        """Sheet fields whose keys name checks (resolved through the pack on load)."""
        return {}

    def ability_fields(self) -> list[str]:
        """Sheet fields whose keys name abilities (resolved through the pack on load)."""
        return []

    def summary(self, ruleset) -> str:
        """One line for the table: name, concept and the numbers a player looks at most."""
        return f"{self.name} — {self.concept}" if self.concept else self.name


def _mod(score: int) -> int:
    return (score - 10) // 2


class Dnd5eSheet(Sheet):
    """D&D 5e: six ability scores; proficiency in skills and saves, expertise doubles it."""

    system: ClassVar[str] = "d20"
    level: int = Field(1, ge=1, le=20)
    abilities: dict[str, int]
    proficiencies: list[str] = Field(default_factory=list)
    expertise: list[str] = Field(default_factory=list)
    hp: int | None = None
    ac: int | None = None

    @field_validator("abilities")
    @classmethod
    def _scores(cls, value: dict[str, int]) -> dict[str, int]:
        for key, score in value.items():
            if not 1 <= score <= 30:
                raise ValueError(f"{key} is {score}; ability scores run 1-30")
        return value

    @property
    def proficiency_bonus(self) -> int:
        return 2 + (self.level - 1) // 4

    def check_keys(self) -> dict[str, list[str]]:
        return {"proficiencies": self.proficiencies, "expertise": self.expertise}

    def ability_fields(self) -> list[str]:
        return ["abilities"]

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = _check_def(ruleset, check_id)
        ability = check.ability
        parts: list[str] = []
        modifier = 0
        if ability and ability in self.abilities:
            modifier = _mod(self.abilities[ability])
            parts.append(f"{_abbr(ruleset, ability).upper()} {modifier:+d}")
        if check_id in self.expertise:
            modifier += 2 * self.proficiency_bonus
            parts.append(f"expertise +{2 * self.proficiency_bonus}")
        elif check_id in self.proficiencies:
            modifier += self.proficiency_bonus
            parts.append(f"proficiency +{self.proficiency_bonus}")
        return RollPlan(system="d20", check=check_id, check_name=check.name, modifier=modifier, why=", ".join(parts) or "no modifier")

    def summary(self, ruleset) -> str:
        scores = " ".join(f"{_abbr(ruleset, a).upper()} {s}" for a, s in self.abilities.items())
        return f"{super().summary(ruleset)} (level {self.level}; {scores})"


COC_DERIVED = {"idea": "intelligence", "know": "education"}  # 7e: Idea rolls use INT, Know rolls use EDU


class Coc7eSheet(Sheet):
    """Call of Cthulhu 7e: characteristics and skills as percentages (roll d100 under)."""

    system: ClassVar[str] = "percentile"
    characteristics: dict[str, int]
    skills: dict[str, int] = Field(default_factory=dict)
    luck: int | None = Field(None, ge=0, le=99)
    sanity: int | None = Field(None, ge=0, le=99)
    hp: int | None = None

    @field_validator("characteristics", "skills")
    @classmethod
    def _percent(cls, value: dict[str, int]) -> dict[str, int]:
        for key, pct in value.items():
            if not 0 <= pct <= 99 + 100:  # characteristics may pass 99 (SIZ/EDU after aging); skills cap at 99 by play
                raise ValueError(f"{key} is {pct}; percentages run 0-199")
        return value

    def check_keys(self) -> dict[str, list[str]]:
        return {"skills": list(self.skills)}

    def ability_fields(self) -> list[str]:
        return ["characteristics"]

    def _base(self, ruleset, check) -> tuple[int, str]:
        formula = getattr(check, "base_formula", None)
        if formula:
            m = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:([*/])\s*(\d+))?\s*", formula)
            key = _ability_key(ruleset, m.group(1)) if m else None
            if m and key in self.characteristics:
                value = self.characteristics[key]
                if m.group(2) == "/":
                    value //= int(m.group(3))
                elif m.group(2) == "*":
                    value *= int(m.group(3))
                return value, f"base {formula}"
        if check.base is not None:
            return check.base, "base value"
        return 0, "no value on the sheet"

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = _check_def(ruleset, check_id)
        if check_id in self.skills:
            value, why = self.skills[check_id], "from the sheet"
        elif check_id in self.characteristics:
            value, why = self.characteristics[check_id], "characteristic"
        elif check.ability == check_id and check_id in self.characteristics:
            value, why = self.characteristics[check.ability], "characteristic"
        elif check_id in COC_DERIVED and COC_DERIVED[check_id] in self.characteristics:
            value, why = self.characteristics[COC_DERIVED[check_id]], f"{COC_DERIVED[check_id].upper()[:3]}"
        elif check_id in ("luck",) and self.luck is not None:
            value, why = self.luck, "Luck"
        elif check_id in ("sanity", "san") and self.sanity is not None:
            value, why = self.sanity, "Sanity"
        else:
            value, why = self._base(ruleset, check)
        return RollPlan(system="percentile", check=check_id, check_name=check.name, value=value, why=f"{check.name} {value}% ({why})")

    def summary(self, ruleset) -> str:
        chars = " ".join(f"{_abbr(ruleset, k).upper()} {v}" for k, v in self.characteristics.items())
        return f"{super().summary(ruleset)} ({chars})"


PF2_RANKS = {"untrained": 0, "trained": 2, "expert": 4, "master": 6, "legendary": 8}


class Pf2eSheet(Sheet):
    """Pathfinder 2e: attribute modifiers, and a proficiency rank per skill/save/Perception."""

    system: ClassVar[str] = "degrees"
    level: int = Field(1, ge=1, le=20)
    attributes: dict[str, int]
    ranks: dict[str, Literal["untrained", "trained", "expert", "master", "legendary"]] = Field(default_factory=dict)
    hp: int | None = None
    ac: int | None = None

    @field_validator("attributes")
    @classmethod
    def _mods(cls, value: dict[str, int]) -> dict[str, int]:
        for key, mod in value.items():
            if not -5 <= mod <= 7:
                raise ValueError(f"{key} is {mod}; attribute modifiers run -5 to +7")
        return value

    def check_keys(self) -> dict[str, list[str]]:
        return {"ranks": list(self.ranks)}

    def ability_fields(self) -> list[str]:
        return ["attributes"]

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = _check_def(ruleset, check_id)
        ability = check.ability
        modifier, parts = 0, []
        if ability and ability in self.attributes:
            modifier = self.attributes[ability]
            parts.append(f"{_abbr(ruleset, ability).capitalize()} {modifier:+d}")
        rank = self.ranks.get(check_id, "untrained")
        if PF2_RANKS[rank]:
            bonus = self.level + PF2_RANKS[rank]
            modifier += bonus
            parts.append(f"{rank} +{bonus}")
        else:
            parts.append("untrained +0")
        return RollPlan(system="degrees", check=check_id, check_name=check.name, modifier=modifier, why=", ".join(parts))

    def summary(self, ruleset) -> str:
        attrs = " ".join(f"{_abbr(ruleset, k).capitalize()} {v:+d}" for k, v in self.attributes.items())
        return f"{super().summary(ruleset)} (level {self.level}; {attrs})"


SWADE_CORE = ("athletics", "common_knowledge", "notice", "persuasion", "stealth")  # core skills start at d4


class SwadeSheet(Sheet):
    """Savage Worlds: a die type per attribute and skill; Wild Cards roll the Wild Die too."""

    system: ClassVar[str] = "trait"
    wild_card: bool = True
    attributes: dict[str, str]
    skills: dict[str, str] = Field(default_factory=dict)
    toughness: int | None = None
    parry: int | None = None

    @field_validator("attributes", "skills")
    @classmethod
    def _dice(cls, value: dict[str, str]) -> dict[str, str]:
        for key, die in value.items():
            try:
                die_size(str(die))
            except BadDice:
                raise ValueError(f"{key} is {die!r}; use d4, d6, d8, d10, d12 or d12+N") from None
        return {k: str(v) for k, v in value.items()}

    def check_keys(self) -> dict[str, list[str]]:
        return {"skills": list(self.skills)}

    def ability_fields(self) -> list[str]:
        return ["attributes"]

    def plan(self, ruleset, check_id: str) -> RollPlan:
        check = _check_def(ruleset, check_id)
        modifier, why = 0, ""
        if check_id in self.skills:
            die, why = self.skills[check_id], f"{check.name} {self.skills[check_id]}"
        elif check.kind != "skill" and check.ability:  # attribute rolls, and Soak (Vigor) / Fear (Spirit)
            die = self.attributes.get(check.ability, "d4")
            why = f"{check.name} {die}" if check.ability == check_id else f"{check.name}: {ruleset.ability_name(check.ability)} {die}"
        elif getattr(check, "core", False) or check_id in SWADE_CORE:
            die, why = "d4", f"{check.name} d4 (core skill)"
        else:
            die, modifier, why = "d4", -2, f"{check.name} unskilled d4-2"
        return RollPlan(system="trait", check=check_id, check_name=check.name, die=die, modifier=modifier, wild=self.wild_card, why=why)

    def summary(self, ruleset) -> str:
        attrs = " ".join(f"{k.capitalize()} {v}" for k, v in self.attributes.items())
        return f"{super().summary(ruleset)} ({'Wild Card; ' if self.wild_card else ''}{attrs})"


SHEETS: dict[str, type[Sheet]] = {"dnd5e": Dnd5eSheet, "coc7e": Coc7eSheet, "pf2e": Pf2eSheet, "swade": SwadeSheet}
SYSTEMS = {cls.system: cls for cls in SHEETS.values()}


def _sheet_class(ruleset_name: str, data: dict[str, Any], source: str) -> type[Sheet]:
    if ruleset_name in SHEETS:
        return SHEETS[ruleset_name]
    system = data.pop("system", None)
    if system in SYSTEMS:
        return SYSTEMS[system]
    raise CharacterError(f"{source}: no sheet shape for rule set {ruleset_name!r}; add 'system: d20|percentile|degrees|trait' to the sheet")


def _line_of(text: str, loc: tuple) -> int | None:
    """The 1-based line of a key path in a YAML text, so a sheet error can point at it."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    line, node = key.start_mark.line + 1, value
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def parse_character(data: Any, ruleset, source: str = "<sheet>", text: str | None = None) -> Sheet:
    """Validate a sheet mapping against its rule set; names of checks/abilities resolve to ids."""
    from rulesets import UnknownName

    if not isinstance(data, dict):
        raise CharacterError(f"{source}: a character sheet is a mapping (name:, abilities: ...); see gm/data/characters/ for examples")
    data = dict(data)
    data.setdefault("ruleset", ruleset.name)
    if data["ruleset"] != ruleset.name:
        raise CharacterError(f"{source}: sheet is for {data['ruleset']!r} but the table plays {ruleset.name!r}; pick a {ruleset.name} character")
    cls = _sheet_class(ruleset.name, data, source)

    def where(loc: tuple) -> str:
        line = _line_of(text, loc) if text else None
        return f"{source}{f':{line}' if line else ''}: {'.'.join(str(p) for p in loc)}"

    # Resolve ability and check names to the pack's ids before validation, so "WIS",
    # "Wisdom" and "Perception check" are all fine in a hand-written sheet.
    probe = cls.model_construct(**{k: v for k, v in data.items() if k in cls.model_fields})
    for field in probe.ability_fields():
        raw = data.get(field)
        if isinstance(raw, dict):
            fixed = {}
            for key, value in raw.items():
                ident = _ability_key(ruleset, str(key))
                if ident is None:
                    names = ", ".join(ruleset.abilities)  # ids
                    raise CharacterError(f"{where((field, key))}: {key!r} is not an ability of {ruleset.name}; use one of {names}")
                fixed[ident] = value
            data[field] = fixed
    for field in ("proficiencies", "expertise", "skills", "ranks"):
        raw = data.get(field)
        if field not in cls.model_fields or raw is None:
            continue
        items = raw.items() if isinstance(raw, dict) else ((k, None) for k in raw) if isinstance(raw, list) else None
        if items is None:
            raise CharacterError(f"{where((field,))}: must be a {'mapping' if field in ('skills', 'ranks') else 'list'}")
        fixed_map: dict[str, Any] = {}
        for key, value in items:
            try:
                ident = ruleset.resolve(str(key))
            except UnknownName as exc:
                near = f" (closest: {', '.join(exc.closest)})" if exc.closest else ""
                raise CharacterError(f"{where((field, key) if isinstance(raw, dict) else (field,))}: {key!r} is not a check in {ruleset.name}{near}; use a name from `vgm rulesets show {ruleset.name}`") from None
            fixed_map[ident] = value
        data[field] = fixed_map if isinstance(raw, dict) else list(fixed_map)
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first.get("loc", ()))
        msg = first.get("msg", "invalid").removeprefix("Value error, ")
        fix = "remove it" if first.get("type") == "extra_forbidden" else "fix the value"
        raise CharacterError(f"{where(loc)}: {msg}; {fix}") from None


def load_character(path: str | Path, ruleset) -> Sheet:
    """Read and validate one YAML sheet; every problem is one line with the file and line."""
    path = Path(path)
    if not path.is_file():
        raise CharacterError(f"character file {path} not found; give a YAML sheet (see gm/data/characters/)")
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise CharacterError(f"{path}{line}: not valid YAML ({getattr(exc, 'problem', None) or 'syntax error'}); fix the indentation or quoting") from None
    return parse_character(data, ruleset, str(path), text)


def ready_characters(ruleset) -> list[Sheet]:
    """The characters that ship with the package for this rule set (may be empty)."""
    folder = DATA / ruleset.name
    return [load_character(p, ruleset) for p in sorted(folder.glob("*.yaml"))] if folder.is_dir() else []


def find_character(name: str, sheets: list[Sheet]) -> Sheet:
    """The sheet a player means by ``name`` (full name, first name or alias, any case)."""
    key = name.strip().lower()
    for sheet in sheets:
        if key in (n.lower() for n in sheet.names()):
            return sheet
    known = ", ".join(s.name for s in sheets) or "nobody"
    raise CharacterError(f"no character {name!r} at this table (here: {known}); write 'Name: what you do'")
