"""Building a new D&D 5e character: ability scores, class, background, skills → a sheet.

    sheet = build_character("dnd5e", name="Wren Ashdown", klass="ranger", background="wanderer",
                            method="pointbuy", scores="STR=10,DEX=15,CON=14,INT=8,WIS=14,CHA=10")
    write_sheet(sheet, "wren.yaml")      # a YAML sheet that gm.characters.load_character reads

Scores come from the standard array (15, 14, 13, 12, 10, 8, each once) or from point buy (27
points, every score 8-15 before bonuses; 8 costs 0, 13 costs 5, 14 costs 7, 15 costs 9). Then
optional ability bonuses (a race's or background's +2/+1), the class (hit die, saving throws,
its skill list, starting armour) and a background (two skills). HP is the hit die's maximum
plus the CON modifier at level 1, the die's average (rounded up) plus CON after that; AC comes
from the class's usual starting armour. The classes and backgrounds are data
(``gm/data/classes/dnd5e.yaml``); every mistake is one line (``CharacterError``).
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from rulesets import FileProblem, read_model_file

from .systems import CharacterError, Sheet, ability_key, parse_character

__all__ = [
    "POINT_BUY_BUDGET",
    "POINT_COST",
    "STANDARD_ARRAY",
    "BackgroundDef",
    "ClassBook",
    "ClassDef",
    "best_skills",
    "build_character",
    "check_scores",
    "class_book",
    "parse_bonuses",
    "parse_scores",
    "point_cost",
    "sheet_yaml",
    "skill_choices",
    "write_sheet",
]

DATA = Path(__file__).parent / "data" / "classes"
STANDARD_ARRAY = (15, 14, 13, 12, 10, 8)
POINT_BUY_BUDGET = 27
POINT_COST = {8: 0, 9: 1, 10: 2, 11: 3, 12: 4, 13: 5, 14: 7, 15: 9}
ORDER = ["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"]
ABBR = {"strength": "STR", "dexterity": "DEX", "constitution": "CON", "intelligence": "INT", "wisdom": "WIS", "charisma": "CHA"}
Method = Literal["standard", "pointbuy"]


class Armor(BaseModel):
    model_config = ConfigDict(extra="forbid")
    base: int = Field(ge=10, le=20)
    dex_max: int | None = None  # None: all of the DEX modifier counts
    plus: str | None = None  # an ability whose modifier is added too (unarmoured defence)
    shield: bool = False


class SkillPick(BaseModel):
    model_config = ConfigDict(extra="forbid")
    choose: int = Field(ge=0, le=6)
    from_: list[str] | Literal["any"] = Field(alias="from")


class Expertise(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: int = Field(ge=1, le=20)
    count: int = Field(ge=1, le=4)


class ClassDef(BaseModel):
    """One class: what a new character of it gets."""

    model_config = ConfigDict(extra="forbid")
    hit_die: Literal[6, 8, 10, 12]
    saves: list[str] = Field(min_length=2, max_length=2)
    skills: SkillPick
    armor: Armor
    expertise: Expertise | None = None
    kit: str = ""


class BackgroundDef(BaseModel):
    """One background: two skills and a line about it."""

    model_config = ConfigDict(extra="forbid")
    skills: list[str] = Field(min_length=1, max_length=3)
    about: str = ""


class ClassBook(BaseModel):
    """The classes and backgrounds a rule set offers a new character."""

    model_config = ConfigDict(extra="forbid")
    ruleset: str
    classes: dict[str, ClassDef]
    backgrounds: dict[str, BackgroundDef]

    @field_validator("classes", "backgrounds")
    @classmethod
    def _some(cls, value: dict) -> dict:
        if not value:
            raise ValueError("must list at least one")
        return value

    def find(self, kind: str, name: str) -> str:
        """The id of a class or background from any spelling ("Street urchin" → ``street_urchin``)."""
        table = self.classes if kind == "class" else self.backgrounds
        key = _slug(name)
        if key in table:
            return key
        near = [k for k in table if k.startswith(key[:3])] if key else []
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise CharacterError(f"no {kind} {name!r}{hint}; choose one of {', '.join(table)}")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(name).strip().lower()).strip("_")


@cache
def class_book(ruleset: str = "dnd5e") -> ClassBook:
    """The shipped classes and backgrounds of ``ruleset`` (only dnd5e has them), checked against the pack."""
    import rulesets

    path = DATA / f"{ruleset}.yaml"
    if not path.is_file():
        shipped = ", ".join(sorted(p.stem for p in DATA.glob("*.yaml")))
        raise CharacterError(f"class books exist for {shipped} only; {ruleset} characters are made by gm.character_new "
                             f"(`vgm character new -r {ruleset}`)")
    try:
        book = read_model_file(path, ClassBook, what="class book")
    except FileProblem as exc:
        raise CharacterError(str(exc)) from None
    pack = rulesets.load(ruleset)
    for cid, c in book.classes.items():
        for ability in [*c.saves, *([c.armor.plus] if c.armor.plus else [])]:
            if ability_key(pack, ability) is None:
                raise CharacterError(f"{path}: classes.{cid}: {ability!r} is not an ability of {ruleset}")
        for skill in c.skills.from_ if c.skills.from_ != "any" else []:
            _skill(pack, skill, f"{path}: classes.{cid}.skills")
    for bid, b in book.backgrounds.items():
        for skill in b.skills:
            _skill(pack, skill, f"{path}: backgrounds.{bid}.skills")
    return book


def _skill(pack: Any, name: str, where: str) -> str:
    from rulesets import UnknownName

    try:
        ident = pack.resolve(str(name))
    except UnknownName as exc:
        near = f" (closest: {', '.join(exc.closest)})" if exc.closest else ""
        raise CharacterError(f"{where}: {name!r} is not a skill of {pack.name}{near}") from None
    if pack.checks[ident].kind != "skill":
        raise CharacterError(f"{where}: {pack.checks[ident].name} is not a skill; pick a skill")
    return ident


def _mod(score: int) -> int:
    return (score - 10) // 2


# ----- ability scores ---------------------------------------------------------------------------


def parse_scores(pack: Any, text: str | dict | list) -> dict[str, int]:
    """Six scores: ``"15,14,13,12,10,8"`` (STR DEX CON INT WIS CHA) or ``"DEX=15,STR=8,..."`` (any order)."""
    if isinstance(text, dict):
        pairs = list(text.items())
    elif isinstance(text, (list, tuple)):
        pairs = list(zip(ORDER, text))
        if len(text) != 6:
            raise CharacterError(f"--scores needs six numbers (STR DEX CON INT WIS CHA); got {len(text)}")
    else:
        parts = [p.strip() for p in re.split(r"[,\s]+", str(text).strip()) if p.strip()]
        if parts and all(re.fullmatch(r"-?\d+", p) for p in parts):
            if len(parts) != 6:
                raise CharacterError(f"--scores needs six numbers in the order STR DEX CON INT WIS CHA; got {len(parts)}")
            pairs = list(zip(ORDER, parts))
        else:
            pairs = []
            for part in parts:
                m = re.fullmatch(r"([A-Za-z]+)\s*[=:]\s*(-?\d+)", part)
                if not m:
                    raise CharacterError(f"--scores: {part!r} is not a score; write STR=15,DEX=14,... or 15,14,13,12,10,8")
                pairs.append((m.group(1), m.group(2)))
    scores: dict[str, int] = {}
    for key, value in pairs:
        ident = ability_key(pack, str(key))
        if ident is None:
            raise CharacterError(f"--scores: {key!r} is not an ability; use STR, DEX, CON, INT, WIS, CHA")
        if ident in scores:
            raise CharacterError(f"--scores: {ABBR.get(ident, ident)} is given twice")
        try:
            scores[ident] = int(value)
        except (TypeError, ValueError):
            raise CharacterError(f"--scores: {ABBR.get(ident, ident)} must be a whole number, not {value!r}") from None
    missing = [ABBR[a] for a in ORDER if a not in scores]
    if missing:
        raise CharacterError(f"--scores: no score for {', '.join(missing)}; give all six")
    return {a: scores[a] for a in ORDER}


def point_cost(scores: dict[str, int]) -> int:
    """What the scores cost in point buy (each must be 8-15)."""
    return sum(POINT_COST[s] for s in scores.values())


def check_scores(method: str, scores: dict[str, int]) -> None:
    """One line when the scores are not a legal standard array or point buy."""
    shown = ", ".join(f"{ABBR[a]} {s}" for a, s in scores.items())
    if method == "standard":
        if sorted(scores.values(), reverse=True) != list(STANDARD_ARRAY):
            raise CharacterError(f"standard array: the six scores are 15, 14, 13, 12, 10 and 8, each used once; you gave {shown}")
    elif method == "pointbuy":
        bad = [f"{ABBR[a]} {s}" for a, s in scores.items() if s not in POINT_COST]
        if bad:
            raise CharacterError(f"point buy: every score is 8 to 15 before bonuses; {', '.join(bad)} is not")
        cost = point_cost(scores)
        if cost > POINT_BUY_BUDGET:
            raise CharacterError(f"point buy: {shown} costs {cost} points, {cost - POINT_BUY_BUDGET} more than the {POINT_BUY_BUDGET} you have; lower a score")
    else:
        raise CharacterError(f"method {method!r}: use standard (the array 15, 14, 13, 12, 10, 8) or pointbuy (27 points)")


def parse_bonuses(pack: Any, text: str | dict | None) -> dict[str, int]:
    """Ability bonuses (a race's or background's): ``"DEX+2,WIS+1"``; each +1 or +2."""
    if not text:
        return {}
    pairs = list(text.items()) if isinstance(text, dict) else []
    if not isinstance(text, dict):
        for part in [p.strip() for p in re.split(r"[,\s]+", str(text).strip()) if p.strip()]:
            m = re.fullmatch(r"([A-Za-z]+)\s*[=:]?\s*([+-]?\d+)", part)
            if not m:
                raise CharacterError(f"--bonus: {part!r} is not a bonus; write DEX+2,WIS+1")
            pairs.append((m.group(1), m.group(2)))
    out: dict[str, int] = {}
    for key, value in pairs:
        ident = ability_key(pack, str(key))
        if ident is None:
            raise CharacterError(f"--bonus: {key!r} is not an ability; use STR, DEX, CON, INT, WIS, CHA")
        amount = int(value)
        if amount not in (1, 2) or ident in out:
            raise CharacterError(f"--bonus: each ability gets +1 or +2 once; {ABBR[ident]}{amount:+d} is not allowed")
        out[ident] = amount
    if sum(out.values()) > 6:
        raise CharacterError(f"--bonus: {sum(out.values())} points of bonuses is more than any race or background gives (at most 6)")
    return out


# ----- class, background, skills ---------------------------------------------------------------


def skill_choices(book: ClassBook, pack: Any, klass: str, background: str) -> tuple[list[str], list[str], int]:
    """(skills the background gives, the class's list minus those, how many to pick from it)."""
    c, b = book.classes[klass], book.backgrounds[background]
    given = [_skill(pack, s, f"background {background}") for s in b.skills]
    listed = [cid for cid, d in pack.checks.items() if d.kind == "skill"] if c.skills.from_ == "any" else [
        _skill(pack, s, f"class {klass}") for s in c.skills.from_]
    return given, [s for s in listed if s not in given], c.skills.choose


def best_skills(pack: Any, allowed: list[str], count: int, scores: dict[str, int]) -> list[str]:
    """The ``count`` skills of ``allowed`` on the character's best abilities (ties: the list's order)."""
    ranked = sorted(allowed, key=lambda s: (-scores.get(pack.checks[s].ability or "", 0), allowed.index(s)))
    return ranked[:count]


def _pick_skills(pack: Any, names: str | list[str] | None, allowed: list[str], count: int, klass: str,
                 scores: dict[str, int]) -> list[str]:
    if names is None:
        return best_skills(pack, allowed, count, scores)
    items = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n and n.strip()]
    picked: list[str] = []
    for item in items:
        ident = _skill(pack, item, "--skills")
        if ident not in allowed:
            shown = ", ".join(pack.checks[s].name for s in allowed)
            raise CharacterError(f"--skills: a {klass} picks from {shown}; {pack.checks[ident].name} is not one of them (or the background gives it)")
        if ident in picked:
            raise CharacterError(f"--skills: {pack.checks[ident].name} is picked twice")
        picked.append(ident)
    if len(picked) != count:
        raise CharacterError(f"--skills: a {klass} picks {count} skill{'s' if count > 1 else ''}; you gave {len(picked)}")
    return picked


def _armor_class(c: ClassDef, scores: dict[str, int], pack: Any) -> int:
    dex = _mod(scores["dexterity"])
    ac = c.armor.base + (dex if c.armor.dex_max is None else min(dex, c.armor.dex_max))
    if c.armor.plus:
        ac += _mod(scores[ability_key(pack, c.armor.plus) or "dexterity"])
    return ac + (2 if c.armor.shield else 0)


def _hit_points(c: ClassDef, con: int, level: int) -> int:
    return max(1, c.hit_die + con) + sum(max(1, c.hit_die // 2 + 1 + con) for _ in range(level - 1))


def build_character(
    ruleset: Any = "dnd5e",
    *,
    name: str,
    klass: str,
    background: str,
    method: str,
    scores: str | dict | list,
    bonuses: str | dict | None = None,
    skills: str | list[str] | None = None,
    expertise: str | list[str] | None = None,
    level: int = 1,
    concept: str | None = None,
    player: str | None = None,
) -> Sheet:
    """A new character sheet, validated as the table reads it.

    Args:
        ruleset: ``dnd5e`` (a name or the loaded pack).
        name: the character's name.
        klass: a class id or name (``fighter``, ``Rogue``).
        background: a background id or name (``acolyte``, ``street urchin``).
        method: ``standard`` (the array 15, 14, 13, 12, 10, 8) or ``pointbuy`` (27 points, 8-15).
        scores: the six scores before bonuses (``parse_scores``).
        bonuses: ``"DEX+2,WIS+1"``: a race's or background's increases, added after the method's check.
        skills: the class skills picked; None takes those on the character's best abilities.
        expertise: for classes with expertise by this level (rogue, bard from 3): skills already
            proficient; None takes those on the best abilities.
        level: 1-20 (no ability score improvements or feats are applied).
        concept: one line; default "<background> <class>".

    Raises:
        CharacterError: one line naming what is not allowed and what is.
    """
    import rulesets

    from .combat.spells import class_spells, slots_for

    pack = rulesets.load(ruleset) if isinstance(ruleset, str) else ruleset
    book = class_book(pack.name)
    if not str(name or "").strip():
        raise CharacterError("--name: a character needs a name")
    if not isinstance(level, int) or not 1 <= level <= 20:
        raise CharacterError(f"--level {level}: levels run 1 to 20")
    klass, background = book.find("class", klass), book.find("background", background)
    base = parse_scores(pack, scores)
    check_scores(method, base)
    added = parse_bonuses(pack, bonuses)
    final = {a: s + added.get(a, 0) for a, s in base.items()}  # at most 15 + 2: never over 20
    c = book.classes[klass]
    given, allowed, count = skill_choices(book, pack, klass, background)
    picked = _pick_skills(pack, skills, allowed, count, klass, final)
    proficient = [*given, *picked]
    expert: list[str] = []
    if c.expertise is not None and level >= c.expertise.level:
        if expertise is None:
            expert = best_skills(pack, proficient, c.expertise.count, final)
        else:
            items = [e.strip() for e in (expertise.split(",") if isinstance(expertise, str) else expertise) if e and e.strip()]
            expert = list(dict.fromkeys(_skill(pack, e, "--expertise") for e in items))
            if len(expert) != c.expertise.count or any(e not in proficient for e in expert):
                names = ", ".join(pack.checks[s].name for s in proficient)
                raise CharacterError(f"--expertise: a level {level} {klass} doubles {c.expertise.count} skills it is proficient in ({names})")
    elif expertise:
        raise CharacterError(f"--expertise: a level {level} {klass} has no expertise")
    saves = [f"{ability_key(pack, s)}_save" for s in c.saves]
    words = background.replace("_", " ")
    data = {
        "name": " ".join(str(name).split()),
        "ruleset": pack.name,
        **({"player": player} if player else {}),
        "concept": " ".join((concept or f"{words} {klass}").split()),
        "level": level,
        "abilities": {ABBR[a]: s for a, s in final.items()},
        "proficiencies": [pack.checks[s].name for s in proficient] + saves,
        **({"expertise": [pack.checks[s].name for s in expert]} if expert else {}),
        "hp": _hit_points(c, _mod(final["constitution"]), level),
        "ac": _armor_class(c, final, pack),
        "notes": f"{klass.title()} (hit die d{c.hit_die}); background: {words}. Starting kit: {c.kit}.",
        # said on the sheet, so a concept the player writes ("a quiet hermit") does not hide a wizard's spells
        "magic": bool(slots_for(klass, level)[0]),  # by the class's spell slots at this level: a ranger casts from level 2
        "spells": class_spells(klass, level),
    }
    return parse_character(data, pack, f"character {data['name']!r}")


def sheet_yaml(sheet: Sheet, pack: Any, how: str = "") -> str:
    """The sheet as YAML in the shape of the shipped ones (skills by name, abilities by abbreviation)."""
    dumped = sheet.model_dump(exclude_none=True)
    first = ["name", "ruleset", "player", "concept", "level", "wild_card", "abilities", "characteristics", "attributes",
             "proficiencies", "expertise", "skills", "ranks", "luck", "sanity", "hp", "ac", "toughness", "parry"]
    data = {k: dumped[k] for k in first if k in dumped} | {k: v for k, v in dumped.items() if k not in first}
    for key in ("proficiencies", "expertise"):
        if key in data:
            data[key] = [pack.checks[c].name if not c.endswith("_save") else c for c in data[key]]
        if key in data and not data[key]:
            del data[key]
    for key in ("abilities", "characteristics", "attributes"):  # by the names the shipped sheets use
        if key in data:
            data[key] = {ABBR.get(a, a) if key == "abilities" else pack.ability_name(a): s for a, s in data[key].items()}
    for key in ("skills", "ranks"):
        if key in data:
            data[key] = {_check_name(pack, c): v for c, v in data[key].items()}
    for key in ("aliases", "notes", "concept", "spells", "items"):
        if key in data and not data[key]:
            del data[key]
    head = f"# A {pack.name} character made by `vgm character new`{f' ({how})' if how else ''}.\n"
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _check_name(pack: Any, cid: str) -> str:
    """A check's name as a sheet writes it; a Lore (``lore:farming``) as ``Lore (farming)``."""
    if cid in pack.checks:
        return pack.checks[cid].name
    return f"Lore ({cid.split(':', 1)[1]})" if cid.startswith("lore:") else cid


def write_sheet(sheet: Sheet, path: str | Path, pack: Any, how: str = "", overwrite: bool = False) -> Path:
    """Write the YAML sheet; it is read back with ``load_character`` to be sure the table accepts it."""
    from .systems import load_character

    target = Path(path)
    if target.exists() and not overwrite:
        raise CharacterError(f"{target} already exists; pass --force to replace it or -o another file")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(sheet_yaml(sheet, pack, how), encoding="utf-8")
    load_character(target, pack)
    return target
