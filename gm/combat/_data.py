"""NPCs and monsters as data: stat blocks per pack, encounters, and the ready characters' weapons.

- ``gm/data/monsters/<pack>.yaml``: ``{ruleset: dnd5e, monsters: {goblin: {...}, ...}}``, one
  stat block shape per system (``Dnd5eBlock`` ...). Skill, save and ability names resolve
  through the pack, so ``Stealth`` and ``stealth``, ``DEX`` and ``dexterity`` are all fine.
- ``gm/data/encounters/<id>.yaml``: who the foes are and where they start; an encounter whose
  id is a scenario's id is that scenario's fight (``encounter_for(scenario)``).
- ``gm/data/encounters/gear/<pack>.yaml``: the shipped characters' weapons (sheets have none yet).

Every mistake is one ``FileProblem`` line naming the file, the line and the key.
"""
from __future__ import annotations

from difflib import get_close_matches
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import d20
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

import rulesets
from rulesets import FileProblem, UnknownName, parse_yaml, read_text, validation_problem, yaml_line

from ..dice import BadDice, die_size
from ..systems import ability_key, system_of
from ._combat import pack_rules
from ._model import Attack, CombatError, rules_for

__all__ = ["Dnd5eBlock", "Pf2eBlock", "Coc7eBlock", "SwadeBlock", "BLOCKS", "Encounter", "FoeRef", "Gear",
           "load_monsters", "load_monster_file", "monster_block", "find_monster", "load_encounter", "list_encounters", "encounter_for",
           "party_gear", "MONSTERS", "ENCOUNTERS"]

DATA = Path(__file__).resolve().parent.parent / "data"
MONSTERS = DATA / "monsters"
ENCOUNTERS = DATA / "encounters"


class _Block(BaseModel):
    """What every stat block has."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    morale: Literal["brave", "cowardly", "mindless"] = "brave"
    speed: int | None = None  # feet (dnd5e, pf2e), MOV (coc7e), Pace (swade)
    attacks: list[Attack] = Field(min_length=1)
    traits: list[str] = Field(default_factory=list)


class Dnd5eBlock(_Block):
    """A D&D 5e creature: AC, HP, the six scores, listed save / skill bonuses, damage types it shrugs off."""

    kind: str = ""  # "small humanoid (goblinoid)"
    challenge: str = ""
    ac: int = Field(ge=1, le=40)
    hp: int = Field(ge=1)
    hit_dice: str = ""
    abilities: dict[str, int]
    saves: dict[str, int] = Field(default_factory=dict)
    skills: dict[str, int] = Field(default_factory=dict)
    passive_perception: int | None = None
    resistances: list[str] = Field(default_factory=list)
    vulnerabilities: list[str] = Field(default_factory=list)
    immunities: list[str] = Field(default_factory=list)
    condition_immunities: list[str] = Field(default_factory=list)
    multiattack: int = Field(1, ge=1, le=6)
    pack_tactics: bool = False


class Pf2eBlock(_Block):
    """A Pathfinder 2e creature: level, AC, HP, Perception, the three saves, Strikes."""

    level: int = Field(ge=-1, le=25)
    ac: int = Field(ge=1, le=60)
    hp: int = Field(ge=1)
    perception: int
    saves: dict[str, int]
    attributes: dict[str, int] = Field(default_factory=dict)
    skills: dict[str, int] = Field(default_factory=dict)

    @field_validator("saves")
    @classmethod
    def _three(cls, value: dict[str, int]) -> dict[str, int]:
        missing = [s for s in ("fortitude", "reflex", "will") if s not in {k.lower() for k in value}]
        if missing:
            raise ValueError(f"needs fortitude, reflex and will; missing {', '.join(missing)}")
        return value


class Coc7eBlock(_Block):
    """A Call of Cthulhu 7e foe: characteristics, HP, skills in percent, armour, the Sanity it costs to see."""

    characteristics: dict[str, int]
    hp: int | None = Field(None, ge=1)
    damage_bonus: str | None = None  # default from STR+SIZ
    build: int | None = None
    armor: int = Field(0, ge=0)
    skills: dict[str, int] = Field(default_factory=dict)
    sanity_loss: str | None = None  # "0/1d6"

    @field_validator("sanity_loss")
    @classmethod
    def _loss(cls, value: str | None) -> str | None:
        if value is not None and not _sanity_ok(value):
            raise ValueError(f"{value!r} is not a Sanity loss; write success/failure like 0/1d6 or 1/1d4+1")
        return value


class SwadeBlock(_Block):
    """A Savage Worlds foe: dice for attributes and skills, Parry, Toughness (armour included), Wild Card or Extra."""

    wild_card: bool = False
    attributes: dict[str, str]
    skills: dict[str, str] = Field(default_factory=dict)
    parry: int | None = None
    toughness: int | None = None
    armor: int = Field(0, ge=0)
    bennies: int | None = None


BLOCKS: dict[str, type[_Block]] = {"d20": Dnd5eBlock, "degrees": Pf2eBlock, "percentile": Coc7eBlock, "trait": SwadeBlock}


class FoeRef(BaseModel):
    """Foes of one kind in an encounter: ``{monster: goblin, count: 2, distance: 30}``."""

    model_config = ConfigDict(extra="forbid")
    monster: str
    count: int = Field(1, ge=1, le=20)
    name: str | None = None  # "Nettlejaw"; several get "Name 1", "Name 2"
    distance: int | None = None  # feet from the party; the encounter's distance otherwise
    morale: Literal["brave", "cowardly", "mindless"] | None = None


class Encounter(BaseModel):
    """A fight: the foes, how far off they start, and whether they lie in ambush."""

    model_config = ConfigDict(extra="forbid")
    id: str
    ruleset: str
    title: str = ""
    foes: list[FoeRef] = Field(min_length=1)
    distance: int = Field(30, ge=0)  # feet
    ambush: bool = False  # dnd5e: the foes hide; a character whose passive Perception misses them is surprised
    sanity: bool = True  # coc7e: seeing a foe with sanity_loss costs a Sanity roll at the start
    notes: list[str] = Field(default_factory=list)


class Gear(BaseModel):
    """What a character fights with, where the sheet does not say it."""

    model_config = ConfigDict(extra="forbid")
    attacks: list[Attack] = Field(default_factory=list)
    hit_die: str | None = None  # dnd5e
    attacks_per_action: int | None = None  # dnd5e Extra Attack
    speed: int | None = None
    bennies: int | None = None  # swade
    response: Literal["dodge", "fight_back"] | None = None  # coc7e


# ---------------------------------------------------------------- helpers


def _sanity_ok(text: str) -> bool:
    parts = str(text).split("/")
    return len(parts) == 2 and all(_dice_ok(p) for p in parts)


def _dice_ok(expr: str) -> bool:
    try:
        d20.parse(expr.strip(), allow_comments=False)
        return True
    except Exception:  # noqa: BLE001 - any parse failure is "not dice"
        return False


def _problem(path: Path, text: str, loc: tuple, problem: str, fix: str) -> FileProblem:
    return FileProblem(path, problem, fix, line=yaml_line(text, loc), key=".".join(str(p) for p in loc))


def _read(path: Path, what: str) -> tuple[Any, str]:
    text = read_text(path, what=what)
    data = parse_yaml(text, path)
    if not isinstance(data, dict):
        raise FileProblem(path, f"a {what} is a mapping", "see gm/data/ for the shape")
    return data, text


def _validate(model: type[BaseModel], data: Any, path: Path, text: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        loc = tuple(exc.errors()[0].get("loc", ()))
        raise validation_problem(path, exc, line=yaml_line(text, loc)) from None


def _check_attacks(attacks: list[Attack], system: str, ruleset, path: Path, text: str, at: tuple) -> None:
    """Resolve skill / save names; convert ranges to feet; every damage must be dice.

    An attack without a skill rolls the system's default for its kind (coc7e Fighting
    (Brawl) / Firearms (Handgun), swade Fighting / Shooting); ranges are in the system's
    units (coc7e yards, swade inches) and become feet.
    """
    rules = rules_for(system)
    for i, atk in enumerate(attacks):
        where = (*at, i)
        probe = atk.damage.lower().replace("db", "0").replace("str", "1d6")
        if not _dice_ok(probe):
            raise _problem(path, text, (*where, "damage"), f"{atk.damage!r} is not a damage roll",
                           "write dice like 1d6+2 (db = CoC damage bonus, str = SWADE Strength die)")
        for field, value in (("skill", atk.skill), ("on_hit.save", atk.on_hit.save if atk.on_hit else None)):
            if value is None:
                continue
            try:
                resolved = ruleset.resolve(value)
            except UnknownName as exc:
                raise _problem(path, text, (*where, *field.split(".")), f"{value!r} is not a check in {ruleset.name}",
                               f"use one of {', '.join(exc.closest) or 'the pack check names'}") from None
            if field == "skill":
                atk.skill = resolved
            else:
                atk.on_hit.save = resolved
        if atk.skill is None:
            atk.skill = rules.DEFAULT_SKILLS.get(atk.kind)
        atk.range = [r * rules.RANGE_FEET for r in atk.range]


def _resolve_keys(mapping: dict[str, Any], ruleset, path: Path, text: str, at: tuple, abilities: bool = False) -> dict[str, Any]:
    out = {}
    for key, value in mapping.items():
        if abilities:
            ident = ability_key(ruleset, str(key))
            if ident is None:
                raise _problem(path, text, (*at, key), f"{key!r} is not an ability of {ruleset.name}", f"use one of {', '.join(ruleset.abilities)}")
        else:
            try:
                ident = ruleset.resolve(str(key))
            except UnknownName as exc:
                raise _problem(path, text, (*at, key), f"{key!r} is not a check in {ruleset.name}",
                               f"use one of {', '.join(exc.closest) or 'the pack check names'}") from None
        out[ident] = value
    return out


def _finish_block(block: _Block, system: str, ruleset, path: Path, text: str, at: tuple) -> _Block:
    if isinstance(block, Dnd5eBlock):
        block.abilities = _resolve_keys(block.abilities, ruleset, path, text, (*at, "abilities"), abilities=True)
        block.saves = _resolve_keys({(k if "save" in k.lower() else f"{k} save"): v for k, v in block.saves.items()}, ruleset, path, text, (*at, "saves"))
        block.skills = _resolve_keys(block.skills, ruleset, path, text, (*at, "skills"))
        block.resistances = [d.lower() for d in block.resistances]
        block.vulnerabilities = [d.lower() for d in block.vulnerabilities]
        block.immunities = [d.lower() for d in block.immunities]
    elif isinstance(block, Pf2eBlock):
        block.attributes = _resolve_keys(block.attributes, ruleset, path, text, (*at, "attributes"), abilities=True)
        block.saves = _resolve_keys(block.saves, ruleset, path, text, (*at, "saves"))
        block.skills = _resolve_keys(block.skills, ruleset, path, text, (*at, "skills"))
    elif isinstance(block, Coc7eBlock):
        block.characteristics = _resolve_keys(block.characteristics, ruleset, path, text, (*at, "characteristics"), abilities=True)
        block.skills = _resolve_keys(block.skills, ruleset, path, text, (*at, "skills"))
        if block.damage_bonus is not None and not _dice_ok(block.damage_bonus.replace("+", "", 1) if block.damage_bonus.startswith("+") else block.damage_bonus):
            raise _problem(path, text, (*at, "damage_bonus"), f"{block.damage_bonus!r} is not a damage bonus", "write 0, -1, +1d4 or +1d6")
    elif isinstance(block, SwadeBlock):
        block.attributes = _resolve_keys(block.attributes, ruleset, path, text, (*at, "attributes"), abilities=True)
        block.skills = _resolve_keys(block.skills, ruleset, path, text, (*at, "skills"))
        for field in ("attributes", "skills"):
            for key, die in getattr(block, field).items():
                try:
                    die_size(str(die))
                except BadDice:
                    raise _problem(path, text, (*at, field, key), f"{die!r} is not a trait die", "use d4, d6, d8, d10, d12 or d12+N") from None
    _check_attacks(block.attacks, system, ruleset, path, text, (*at, "attacks"))
    return block


# ---------------------------------------------------------------- loading


def load_monster_file(path: str | Path, ruleset=None) -> dict[str, _Block]:
    """Stat blocks from one YAML file: ``{ruleset: <pack>, monsters: {id: block}}``, validated for the pack's system."""
    path = Path(path)
    data, text = _read(path, "monster file")
    pack_name = data.get("ruleset")
    if not isinstance(pack_name, str):
        raise _problem(path, text, ("ruleset",), "says no ruleset", "add 'ruleset: dnd5e' (or coc7e, pf2e, swade)")
    if ruleset is None:
        try:
            ruleset = rulesets.load(pack_name)
        except rulesets.VgmError as exc:
            raise _problem(path, text, ("ruleset",), str(exc), "name a shipped pack") from None
    elif ruleset.name != pack_name:
        raise _problem(path, text, ("ruleset",), f"is for {pack_name!r}, the fight plays {ruleset.name!r}", f"use {ruleset.name} monsters")
    system = system_of(ruleset)
    if system not in BLOCKS:
        raise _problem(path, text, ("ruleset",), f"{ruleset.name!r} has no combat rules", f"use a pack of {', '.join(BLOCKS)}")
    model = create_model(f"{BLOCKS[system].__name__}File", __config__=ConfigDict(extra="forbid"), ruleset=(str, ...),
                         source=(str, ""), monsters=(dict[str, BLOCKS[system]], ...))
    parsed = _validate(model, data, path, text)
    return {mid: _finish_block(block, system, ruleset, path, text, ("monsters", mid)) for mid, block in parsed.monsters.items()}


@lru_cache(maxsize=16)
def _shipped(pack: str) -> dict[str, _Block]:
    path = MONSTERS / f"{pack}.yaml"
    if not path.is_file():
        return {}
    return load_monster_file(path, pack_rules(pack))


def load_monsters(pack: str) -> dict[str, _Block]:
    """The shipped stat blocks of a pack, by id (a copy: change it freely)."""
    return {k: v.model_copy(deep=True) for k, v in _shipped(pack).items()}


def find_monster(pack: str, monster: str) -> tuple[str, _Block]:
    """(id, stat block) of a shipped monster by id or name (any case); a one-line error otherwise."""
    blocks = _shipped(pack)
    key = monster.strip().lower().replace(" ", "_")
    for mid, block in blocks.items():
        if key in (mid, block.name.lower().replace(" ", "_")):
            return mid, block.model_copy(deep=True)
    near = ", ".join(get_close_matches(key, list(blocks), n=3))
    closest = f" (closest: {near})" if near else ""
    shipped = ", ".join(blocks) or "none"
    raise CombatError(f"no monster {monster!r} in {pack}{closest}; shipped: {shipped} (gm/data/monsters/{pack}.yaml)")


def monster_block(pack: str, monster: str) -> _Block:
    """One shipped stat block by id or name (any case)."""
    return find_monster(pack, monster)[1]


def load_encounter(name_or_path: str | Path, ruleset=None) -> Encounter:
    """An encounter by id (``ambush``) or a YAML file; its monsters must exist in the pack."""
    path = Path(name_or_path)
    if not path.suffix:
        path = ENCOUNTERS / f"{name_or_path}.yaml"
    if not path.is_file():
        raise CombatError(f"encounter {str(name_or_path)!r} not found; use one of {', '.join(e.id for e in list_encounters()) or 'none'} or a .yaml file")
    data, text = _read(path, "encounter")
    data.setdefault("id", path.stem)
    enc = _validate(Encounter, data, path, text)
    pack = ruleset or pack_rules(enc.ruleset)
    if ruleset is not None and enc.ruleset != ruleset.name:
        raise _problem(path, text, ("ruleset",), f"is for {enc.ruleset!r}, the table plays {ruleset.name!r}", f"pick a {ruleset.name} encounter")
    blocks = _shipped(pack.name)
    for i, foe in enumerate(enc.foes):
        key = foe.monster.strip().lower().replace(" ", "_")
        if key not in blocks:
            near = get_close_matches(key, list(blocks), n=3)
            raise _problem(path, text, ("foes", i, "monster"), f"no monster {foe.monster!r} in {pack.name}",
                           f"use {' or '.join(near) if near else 'one of ' + ', '.join(blocks)}")
        foe.monster = key
    return enc


def list_encounters(ruleset: str | None = None) -> list[Encounter]:
    out = [load_encounter(p) for p in sorted(ENCOUNTERS.glob("*.yaml"))]
    return [e for e in out if ruleset is None or e.ruleset == ruleset]


def encounter_for(scenario) -> Encounter | None:
    """The fight a scenario opens with: the encounter of the same id (or named by ``scenario.encounter``)."""
    name = getattr(scenario, "encounter", None) or getattr(scenario, "id", None) or str(scenario)
    path = ENCOUNTERS / f"{name}.yaml"
    return load_encounter(path) if path.is_file() else None


@lru_cache(maxsize=16)
def _gear(pack: str) -> dict[str, Gear]:
    path = ENCOUNTERS / "gear" / f"{pack}.yaml"
    if not path.is_file():
        return {}
    data, text = _read(path, "gear file")
    parsed = _validate(create_model("GearFile", __config__=ConfigDict(extra="forbid"), ruleset=(str, ...), characters=(dict[str, Gear], ...)),
                       data, path, text)
    system = system_of(pack)
    for name, gear in parsed.characters.items():
        _check_attacks(gear.attacks, system, pack_rules(pack), path, text, ("characters", name, "attacks"))
    return {name.lower(): gear for name, gear in parsed.characters.items()}


def party_gear(pack: str, name: str) -> Gear | None:
    """The shipped weapons of a ready character, by name (None for anyone else)."""
    found = _gear(pack).get(name.lower())
    return found.model_copy(deep=True) if found else None
