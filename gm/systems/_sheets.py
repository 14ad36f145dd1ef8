"""Reading character sheets: a YAML file or mapping → the pack mechanic's Sheet, and who is who.

Ready characters ship in ``gm/data/characters/<pack>/``; a user's own YAML sheet validates on
load and a mistake is one line naming the file, the line and the key.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rulesets import FileProblem, UnknownName, parse_yaml, read_text, yaml_line

from ._base import MECHANICS, CharacterError, Sheet, ability_key, system_of

DATA = Path(__file__).parent.parent / "data" / "characters"


def sheet_class(ruleset, data: dict[str, Any], source: str) -> type[Sheet]:
    """The Sheet shape for a pack: its mechanic's, else the one a user's sheet names with ``system:``.

    ``system:`` is taken out of ``data`` only when the pack itself has no mechanic, as a sheet
    for a known pack has no such field.
    """
    system = system_of(ruleset)
    if system in MECHANICS:
        return MECHANICS[system].sheet
    if system is not None:
        raise CharacterError(f"{source}: rule set {ruleset.name!r} plays system {system!r}, which has no mechanic; use one of {', '.join(MECHANICS)}")
    system = data.pop("system", None)
    if system in MECHANICS:
        return MECHANICS[system].sheet
    raise CharacterError(f"{source}: no sheet shape for rule set {ruleset.name!r}; add 'system: {'|'.join(MECHANICS)}' to the sheet")


def parse_character(data: Any, ruleset, source: str = "<sheet>", text: str | None = None) -> Sheet:
    """Validate a sheet mapping against its rule set; names of checks/abilities resolve to ids."""
    if not isinstance(data, dict):
        raise CharacterError(f"{source}: a character sheet is a mapping (name:, abilities: ...); see gm/data/characters/ for examples")
    data = dict(data)
    data.setdefault("ruleset", ruleset.name)
    if data["ruleset"] != ruleset.name:
        raise CharacterError(f"{source}: sheet is for {data['ruleset']!r} but the table plays {ruleset.name!r}; pick a {ruleset.name} character")
    cls = sheet_class(ruleset, data, source)

    def where(loc: tuple) -> str:
        line = yaml_line(text, loc) if text else None
        return f"{source}{f':{line}' if line else ''}: {'.'.join(str(p) for p in loc)}"

    # Resolve ability and check names to the pack's ids before validation, so "WIS",
    # "Wisdom" and "Perception check" are all fine in a hand-written sheet.
    probe = cls.model_construct(**{k: v for k, v in data.items() if k in cls.model_fields})
    for field in probe.ability_fields():
        raw = data.get(field)
        if isinstance(raw, dict):
            fixed = {}
            for key, value in raw.items():
                ident = ability_key(ruleset, str(key))
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


# checks every loaded sheet must pass, passed in from above (``gm.sheet_rules`` adds its game rules
# when ``gm.characters`` is imported): the rules need combat and the builder, which build on this
SHEET_CHECKS: list[Callable[[Sheet, Any, str], None]] = []


def load_character(path: str | Path, ruleset) -> Sheet:
    """Read and validate one YAML sheet; every problem is one line with the file and line."""
    path = Path(path)
    if not path.is_file():
        raise CharacterError(f"character file {path} not found; give a YAML sheet (see gm/data/characters/)")
    try:
        text = read_text(path, what="character sheet")
        data = parse_yaml(text, path)
    except FileProblem as problem:  # the one reader's line, with a syntax error still called "not valid YAML"
        raise CharacterError(str(problem).replace("malformed YAML", "not valid YAML", 1)) from None
    sheet = parse_character(data, ruleset, str(path), text)
    for check in SHEET_CHECKS:  # the game's rules over the shape: Parry from Fighting, HP from CON + SIZ
        check(sheet, ruleset, str(path))
    return sheet


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
