"""Making a new Call of Cthulhu, Pathfinder 2e or Savage Worlds character by its creation rules.

(D&D 5e has its own builder, ``gm.character_builder``.) The choices each game offers are data,
``gm/data/creation/<pack>.yaml``; the steps are the game's:

- coc7e: characteristics rolled (3D6 x 5; SIZ, INT, EDU (2D6+6) x 5), Luck 3D6 x 5, HP
  (CON + SIZ) / 10, Sanity = POW; the occupation's skill points (EDU x 4 or EDU x 2 + twice a
  characteristic) to Credit Rating within its range and the occupation skills, INT x 2 to
  personal interests.
- pf2e: all attributes at +0; the ancestry's boosts and flaw, the background's two, the class's
  key attribute, four free boosts (each +1, never two from one source to one attribute, +4 at
  most); the class's ranks and skills, the background's skill and Lore, more skills from the
  class's count + Int; HP ancestry + class + Con; AC 10 + Dex (armour's cap) + trained + armour.
- swade: every attribute d4 and 5 steps to spend; core skills d4 free and 12 points (a step
  above the linked attribute costs 2); Parry 2 + half Fighting, Toughness 2 + half Vigor.

Every character made is checked by ``gm.sheet_rules`` with the creation budget (``new=True``).

    sheet = build_new("coc7e", name="Ada Moss", klass="journalist", seed=7)
"""
from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rulesets import FileProblem, read_model_file

from .dice import die_size, roll
from .sheet_rules import check_sheet, swade_parry, swade_toughness
from .systems import CharacterError, Sheet, ability_key, parse_character

__all__ = ["CocBook", "Pf2Book", "SwadeBook", "creation_book", "choices", "build_new", "GAMES"]

DATA = Path(__file__).parent / "data" / "creation"
GAMES = ("coc7e", "pf2e", "swade")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Occupation(_Strict):
    points: Literal["EDU*4", "EDU*2+DEX*2", "EDU*2+STR*2", "EDU*2+APP*2", "EDU*2+POW*2"]
    credit: tuple[int, int]
    skills: list[str] = Field(min_length=4, max_length=10)


class CocBook(_Strict):
    ruleset: Literal["coc7e"]
    occupations: dict[str, Occupation] = Field(min_length=1)
    interests: list[str] = Field(min_length=1)


class Ancestry(_Strict):
    hp: int = Field(ge=6, le=12)
    boosts: list[str] = Field(min_length=2, max_length=3)
    flaw: str | None = None


class Armour(_Strict):
    name: str
    bonus: int = Field(ge=0, le=6)
    dex_cap: int = Field(ge=0, le=5)


class Pf2Class(_Strict):
    hp: int = Field(ge=6, le=12)
    key: str
    priority: list[str] = Field(min_length=6, max_length=6)
    ranks: dict[str, Literal["trained", "expert"]]
    skills: list[str]
    more_skills: int = Field(ge=0, le=8)
    armor: Armour


class Pf2Background(_Strict):
    boosts: list[str] = Field(min_length=2, max_length=2)
    skill: str
    lore: str


class Pf2Book(_Strict):
    ruleset: Literal["pf2e"]
    ancestries: dict[str, Ancestry] = Field(min_length=1)
    classes: dict[str, Pf2Class] = Field(min_length=1)
    backgrounds: dict[str, Pf2Background] = Field(min_length=1)


class Archetype(_Strict):
    attributes: list[str] = Field(min_length=5, max_length=5)
    skills: list[str] = Field(min_length=1)


class SwadeBook(_Strict):
    ruleset: Literal["swade"]
    archetypes: dict[str, Archetype] = Field(min_length=1)


BOOKS: dict[str, type[BaseModel]] = {"coc7e": CocBook, "pf2e": Pf2Book, "swade": SwadeBook}
CHOICE = {"coc7e": ("occupation", "occupations"), "pf2e": ("class", "classes"), "swade": ("archetype", "archetypes")}


@cache
def creation_book(ruleset: str) -> BaseModel:
    """The shipped creation choices of a pack, read and checked (every name against the pack)."""
    import rulesets

    if ruleset not in BOOKS:
        raise CharacterError(f"`vgm character new` makes dnd5e, {', '.join(GAMES)} characters; not {ruleset!r}")
    path = DATA / f"{ruleset}.yaml"
    try:
        book = read_model_file(path, BOOKS[ruleset], what="creation choices")
    except FileProblem as exc:
        raise CharacterError(str(exc)) from None
    pack = rulesets.load(ruleset)
    for where, name in _names(book):
        if name == "free":
            continue
        try:
            (ability_key(pack, name) or pack.resolve(name))
        except Exception:  # noqa: BLE001 - UnknownName, said as one line
            raise CharacterError(f"{path}: {where}: {name!r} is neither an attribute nor a check of {ruleset}") from None
    return book


def _names(book: BaseModel) -> list[tuple[str, str]]:
    """(where, name) for every attribute and skill the book names."""
    out: list[tuple[str, str]] = []
    if isinstance(book, CocBook):
        out += [(f"occupations.{k}.skills", s) for k, o in book.occupations.items() for s in o.skills]
        out += [("interests", s) for s in book.interests]
    elif isinstance(book, Pf2Book):
        out += [(f"ancestries.{k}", b) for k, a in book.ancestries.items() for b in [*a.boosts, *([a.flaw] if a.flaw else [])]]
        for k, c in book.classes.items():
            out += [(f"classes.{k}", n) for n in [c.key, *c.priority, *c.ranks, *c.skills]]
        out += [(f"backgrounds.{k}", n) for k, b in book.backgrounds.items() for n in [*b.boosts, b.skill, b.lore]]
    else:
        out += [(f"archetypes.{k}", n) for k, a in book.archetypes.items() for n in [*a.attributes, *a.skills]]
    return out


def choices(ruleset: str) -> dict[str, list[str]]:
    """What a new character of ``ruleset`` picks from: ``{"occupation": [...]}``, ``{"class": ..., "ancestry": ..., "background": ...}``."""
    book = creation_book(ruleset)
    if isinstance(book, Pf2Book):
        return {"class": list(book.classes), "ancestry": list(book.ancestries), "background": list(book.backgrounds)}
    kind, field = CHOICE[ruleset]
    return {kind: list(getattr(book, field))}


def _find(table: dict, kind: str, name: str | None) -> str:
    key = re.sub(r"[^a-z0-9]+", "_", str(name or "").strip().lower()).strip("_")
    if key in table:
        return key
    near = [k for k in table if key and k.startswith(key[:3])]
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise CharacterError(f"no {kind} {name!r}{hint}; choose one of {', '.join(table)}")


# ---------------------------------------------------------------- Call of Cthulhu


def _coc(pack: Any, book: CocBook, occupation: str, rng: random.Random) -> dict[str, Any]:
    occ = book.occupations[occupation]
    chars = {a: roll("3d6", rng).total * 5 for a in ("strength", "constitution", "dexterity", "appearance", "power")}
    chars |= {a: (roll("2d6", rng).total + 6) * 5 for a in ("size", "intelligence", "education")}
    chars = {a: chars[a] for a in pack.abilities}
    short = {"EDU": "education", "DEX": "dexterity", "STR": "strength", "APP": "appearance", "POW": "power"}
    points = sum(chars[short[p.split("*")[0]]] * int(p.split("*")[1]) for p in occ.points.split("+"))
    probe = parse_character({"name": "probe", "characteristics": chars}, pack)
    skills: dict[str, int] = {}

    def spend(names: list[str], budget: int, cap: int) -> None:
        ids = list(dict.fromkeys(pack.resolve(n) for n in names))
        while budget > 0:
            room = [s for s in ids if skills.get(s, probe.plan(pack, s).value or 0) < cap]
            if not room:
                return
            for sid in room:
                have = skills.get(sid, probe.plan(pack, sid).value or 0)
                step = min(5, budget, cap - have)
                skills[sid] = have + step
                budget -= step
                if budget <= 0:
                    return

    low, high = occ.credit
    credit = low + (high - low) // 2
    skills["credit_rating"] = credit
    spend(occ.skills, points - credit, 75)
    spend(book.interests, chars["intelligence"] * 2, 60)
    names = {sid: pack.checks[sid].name for sid in skills}
    return {"characteristics": chars, "skills": {names[s]: v for s, v in skills.items()},
            "luck": roll("3d6", rng).total * 5, "sanity": chars["power"], "hp": (chars["constitution"] + chars["size"]) // 10}


# ---------------------------------------------------------------- Pathfinder 2e


def _pf2e(pack: Any, book: Pf2Book, klass: str, ancestry: str, background: str) -> dict[str, Any]:
    c, a, b = book.classes[klass], book.ancestries[ancestry], book.backgrounds[background]
    attrs = {x: 0 for x in pack.abilities}
    order = [ability_key(pack, p) for p in c.priority]

    def boost(wanted: list[str]) -> None:
        """One source's boosts: each to a different attribute; ``free`` goes where the class wants it most."""
        given: list[str] = []
        for want in wanted:
            pick = ability_key(pack, want) if want != "free" else next(p for p in order if p not in given and attrs[p] < 4)
            given.append(pick)
            attrs[pick] += 1

    boost(a.boosts)
    if a.flaw:
        attrs[ability_key(pack, a.flaw)] -= 1
    first = min(b.boosts, key=lambda x: order.index(ability_key(pack, x)))
    boost([first, "free"])
    boost([c.key])
    boost(["free"] * 4)
    ranks: dict[str, str] = {pack.resolve(k): v for k, v in c.ranks.items()}
    trained = [pack.resolve(s) for s in [*c.skills, b.skill]]
    lore = pack.resolve(b.lore)
    extra = c.more_skills + attrs["intelligence"]
    by_attr = sorted((cid for cid, d in pack.checks.items() if d.kind == "skill"),
                     key=lambda cid: (-attrs.get(pack.checks[cid].ability or "", 0), cid))
    wanted = len(c.skills) + 1 + extra  # a skill given twice is replaced by another, as the rules say
    skills = list(dict.fromkeys(trained))
    skills += [cid for cid in by_attr if cid not in skills][: max(0, wanted - len(skills))]
    for cid in [*skills, lore]:
        ranks.setdefault(cid, "trained")
    dex = attrs["dexterity"]
    from .combat.powers import power_book

    casting = power_book().pf2e_casters.get(klass)
    spells = [p.name for p in power_book().pf2e.values() if casting and casting[0] in p.traditions and p.rank <= 1]
    return {"level": 1, "attributes": attrs, "ranks": ranks, "hp": a.hp + c.hp + attrs["constitution"], "spells": spells,
            "ac": 10 + min(dex, c.armor.dex_cap) + 1 + 2 + c.armor.bonus,
            "notes": f"{klass.title()}, {ancestry} ({background.replace('_', ' ')} background); wears {c.armor.name}."}


# ---------------------------------------------------------------- Savage Worlds


def _steps(die: str) -> int:
    sides, plus = die_size(die)
    return (sides - 4) // 2 + plus


def _die(steps: int) -> str:
    return f"d{4 + 2 * min(steps, 4)}" + (f"+{steps - 4}" if steps > 4 else "")


def _swade(pack: Any, book: SwadeBook, archetype: str, rng: random.Random) -> dict[str, Any]:
    arch = book.archetypes[archetype]
    attr_steps = {a: 0 for a in pack.abilities}
    for want in arch.attributes:  # 5 steps above d4
        key = ability_key(pack, want)
        if attr_steps[key] < 4:
            attr_steps[key] += 1
    core = [cid for cid, d in pack.checks.items() if getattr(d, "core", False)]
    have: dict[str, int] = {cid: 0 for cid in core}  # steps above d4; core skills start at d4 free
    wanted = [pack.resolve(s) for s in arch.skills]
    tail = wanted[3:]
    rng.shuffle(tail)  # the first picks are the archetype's heart; the rest vary
    points = 12
    for _ in range(3):
        for sid in [*wanted[:3], *tail]:
            linked = attr_steps.get(pack.checks[sid].ability or "", 0)
            if sid not in have:
                cost, after = 1, 0
            else:
                cost, after = (1 if have[sid] + 1 <= linked else 2), have[sid] + 1
            if cost <= points and after <= 4:
                have[sid] = after
                points -= cost
    attrs = {pack.ability_name(a): _die(s) for a, s in attr_steps.items()}
    skills = {pack.checks[s].name: _die(n) for s, n in have.items()}
    probe = parse_character({"name": "probe", "attributes": attrs, "skills": skills}, pack)
    from .combat.powers import ARCANE, power_book

    powers = [p.name for p in power_book().swade.values()] if any(s in have for s in ARCANE) else []  # an Arcane Background's starting powers
    return {"wild_card": True, "attributes": attrs, "skills": skills, "toughness": swade_toughness(probe), "parry": swade_parry(probe),
            "spells": powers}


# ---------------------------------------------------------------- the one call


def build_new(ruleset: Any, *, name: str, klass: str | None, ancestry: str | None = None, background: str | None = None,
              seed: int | None = None, concept: str | None = None, player: str | None = None) -> Sheet:
    """A new coc7e / pf2e / swade character, legal by its creation rules (``check_sheet(new=True)``).

    Args:
        klass: the occupation (coc7e), class (pf2e) or archetype (swade).
        ancestry, background: pf2e only (default: the first listed).
        seed: the dice of a coc7e investigator's characteristics, and the order of a swade
            archetype's lesser skills; None rolls fresh.

    Raises:
        CharacterError: one line naming the choice that is not offered, and what is.
    """
    import rulesets

    pack = rulesets.load(ruleset) if isinstance(ruleset, str) else ruleset
    book = creation_book(pack.name)
    if not str(name or "").strip():
        raise CharacterError("--name: a character needs a name")
    rng = random.Random(seed)
    kind, field = CHOICE[pack.name]
    pick = _find(getattr(book, field), kind, klass)
    words = pick.replace("_", " ")
    if isinstance(book, CocBook):
        data = _coc(pack, book, pick, rng)
    elif isinstance(book, Pf2Book):
        anc = _find(book.ancestries, "ancestry", ancestry or next(iter(book.ancestries)))
        bg = _find(book.backgrounds, "background", background or next(iter(book.backgrounds)))
        data = _pf2e(pack, book, pick, anc, bg)
        words = f"{anc} {pick}"
    else:
        data = _swade(pack, book, pick, rng)
    full = {"name": " ".join(str(name).split()), "ruleset": pack.name, **({"player": player} if player else {}),
            "concept": " ".join((concept or words).split()), **data}
    sheet = parse_character(full, pack, f"character {full['name']!r}")
    check_sheet(sheet, pack, f"character {full['name']!r}", new=True)
    return sheet
