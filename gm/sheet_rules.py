"""Is a character sheet legal by its game's rules? The derived numbers and the limits, per game.

A sheet validates on load when its fields have the right shape; this checks what the shape
cannot: that Savage Worlds Parry is 2 + half the Fighting die, that a CoC investigator's HP
is (CON + SIZ) / 10, that a level 1 Pathfinder character has no master rank. Every sheet
(shipped, imported, made) must pass ``sheet_problems``; a character just made by
``vgm character new`` must also fit the creation budget (``new=True``): points bought, boosts
given, skill points spent.

    problems = sheet_problems(sheet, pack)          # [] when legal
    check_sheet(sheet, pack, "dutch.yaml")          # or one CharacterError line naming the first
"""
from __future__ import annotations

from typing import Any

from .dice import die_size
from .systems import SHEET_CHECKS, CharacterError, Sheet

__all__ = ["sheet_problems", "check_sheet", "swade_parry", "swade_toughness", "coc_hp", "coc_skill_points",
           "swade_points", "SWADE_ATTRIBUTE_POINTS", "SWADE_SKILL_POINTS", "PF2_BOOSTS_AT_1"]

SWADE_ATTRIBUTE_POINTS = 5  # each step above d4
SWADE_SKILL_POINTS = 12  # a step up to the linked attribute costs 1, above it 2
SWADE_HINDRANCE_POINTS = 4  # at most, from Hindrances: 2 buy an attribute step, 1 a skill point
PF2_BOOSTS_AT_1 = 9  # ancestry 2 (or 3 less a flaw), background 2, class 1, free 4; each +1
COC_OCCUPATION_FORMULAS = ("EDU*4", "EDU*2+DEX*2", "EDU*2+STR*2", "EDU*2+APP*2", "EDU*2+POW*2")


def _half(die: str) -> int:
    """Half a trait die (d8 → 4; d12+1 → 6, the +1 halved down)."""
    sides, plus = die_size(die)
    return sides // 2 + plus // 2


def swade_parry(sheet: Sheet) -> int:
    """2 + half the Fighting die (2 without Fighting)."""
    fighting = sheet.skills.get("fighting")
    return 2 + (_half(fighting) if fighting else 0)


def swade_toughness(sheet: Sheet) -> int:
    """2 + half the Vigor die, before armour."""
    return 2 + _half(sheet.attributes.get("vigor", "d4"))


def _steps(die: str) -> int:
    """Steps above d4: d4 0, d6 1 ... d12 4, d12+1 5."""
    sides, plus = die_size(die)
    return (sides - 4) // 2 + max(0, plus)


def swade_points(sheet: Sheet, pack: Any) -> tuple[int, int]:
    """(attribute points, skill points) the sheet's dice cost at creation."""
    attrs = sum(_steps(sheet.attributes.get(a, "d4")) for a in pack.abilities)
    skills = 0
    for sid, die in sheet.skills.items():
        check = pack.checks.get(sid)
        linked = _steps(sheet.attributes.get(check.ability, "d4")) if check and check.ability else 0
        core = bool(getattr(check, "core", False))
        skills += (0 if core else 1) + sum(1 if k <= linked else 2 for k in range(1, _steps(die) + 1))
    return attrs, skills


def coc_hp(sheet: Sheet) -> int:
    c = sheet.characteristics
    return (c.get("constitution", 0) + c.get("size", 0)) // 10


def coc_skill_points(sheet: Sheet, pack: Any) -> int:
    """Points spent above the base values (Credit Rating from 0, Dodge from DEX/2, Language (Own) from EDU)."""
    return sum(max(0, value - _coc_base(sheet, pack, sid)) for sid, value in sheet.skills.items())


def _coc_base(sheet: Sheet, pack: Any, sid: str) -> int:
    return sheet._base(pack, pack.checks[sid])[0] if sid in pack.checks else 0


def coc_budget(sheet: Sheet) -> int:
    """The most skill points any occupation gives, plus INT x 2 personal interest points."""
    c = sheet.characteristics
    names = {"EDU": "education", "DEX": "dexterity", "STR": "strength", "APP": "appearance", "POW": "power"}
    best = max(sum(c.get(names[part.split("*")[0]], 0) * int(part.split("*")[1]) for part in f.split("+"))
               for f in COC_OCCUPATION_FORMULAS)
    return best + 2 * c.get("intelligence", 0)


# ---------------------------------------------------------------- per game


def _dnd5e(sheet: Sheet, pack: Any, new: bool) -> list[str]:
    from .character_builder import class_book

    out = []
    con = (sheet.abilities.get("constitution", 10) - 10) // 2
    saves = [p for p in sheet.proficiencies if p.endswith("_save")]
    if len(saves) != 2:
        out.append(f"proficiencies: {len(saves)} saving throws ({', '.join(saves) or 'none'}); a class gives exactly 2")
    not_proficient = [pack.checks[e].name for e in sheet.expertise if e not in sheet.proficiencies]
    if not_proficient:
        out.append(f"expertise: {', '.join(not_proficient)} without proficiency; expertise doubles a proficient skill")
    book = class_book("dnd5e")
    words = {w.strip(",.").lower() for w in sheet.concept.split()}
    klass = next((k for k in book.classes if k in words), None)
    dies = [book.classes[klass].hit_die] if klass else [6, 12]
    if klass and sorted(s.removesuffix("_save") for s in saves) != sorted(_ability(pack, s) for s in book.classes[klass].saves):
        out.append(f"proficiencies: a {klass} is proficient in {' and '.join(book.classes[klass].saves)} saves, not {', '.join(saves)}")
    if sheet.hp is not None:
        low = max(1, 1 + con) * sheet.level  # the least: every Hit Die rolled 1
        high = max(dies) + con + (sheet.level - 1) * (max(dies) + con) + sheet.level  # the most, with the Tough feat
        if not low <= sheet.hp <= high:
            out.append(f"hp: {sheet.hp} at level {sheet.level} with CON {con:+d}; the rules allow {low} to {high}")
    low = 10 + min(0, (sheet.abilities.get("dexterity", 10) - 10) // 2) + min(0, (min(sheet.abilities.values(), default=10) - 10) // 2)
    if sheet.ac is not None and not low <= sheet.ac <= 25:  # the low end: a monk's unarmoured defence with a poor WIS
        out.append(f"ac: {sheet.ac} is outside what armour, shield, DEX and unarmoured defence can give ({low} to 25)")
    out += _dnd5e_spells(sheet, klass)
    from .combat.items import item_problems

    out += item_problems(sheet)
    if new:
        scores = sorted(sheet.abilities.values())
        if max(scores) > 17 or min(scores) < 8:
            out.append("abilities: a new character's scores run 8 to 17 (15 before a +2 bonus)")
    return out


def _dnd5e_spells(sheet: Sheet, klass: str | None) -> list[str]:
    """Every spell is one the pack knows, on the class's list, of a level the character has slots for."""
    from .combat import CombatError
    from .combat.spells import caster_class, find_spell, ordinal, slots_for

    if not sheet.spells:
        return []
    klass = caster_class(sheet)
    if klass is None:
        return [f"spells: {', '.join(sheet.spells)} on a sheet whose concept names no casting class; name one (cleric, wizard ...)"]
    slots, _ = slots_for(klass, sheet.level)
    out = []
    for name in sheet.spells:
        try:
            _, spell = find_spell(name)
        except CombatError as exc:
            out.append(f"spells: {exc}")
            continue
        if klass not in spell.classes:
            out.append(f"spells: {spell.name} is not a {klass} spell (it is on the {', '.join(spell.classes)} lists)")
        elif spell.level and spell.level > max(slots, default=0):
            top = f"slots up to {ordinal(max(slots))} level" if slots else "no spell slots yet"
            out.append(f"spells: {spell.name} is {ordinal(spell.level)} level; a level {sheet.level} {klass} has {top}")
    return out


def _ability(pack: Any, name: str) -> str:
    from .systems import ability_key

    return ability_key(pack, name) or name


def _coc7e(sheet: Sheet, pack: Any, new: bool) -> list[str]:
    out = []
    c = sheet.characteristics
    missing = [a for a in pack.abilities if a not in c]
    if missing:
        out.append(f"characteristics: no {', '.join(missing)}; an investigator has all eight")
        return out
    if sheet.hp is not None and sheet.hp > coc_hp(sheet):
        out.append(f"hp: {sheet.hp} is more than (CON + SIZ) / 10 = {coc_hp(sheet)}")
    mythos = sheet.skills.get("cthulhu_mythos", 0)
    if sheet.sanity is not None and sheet.sanity > 99 - mythos:
        out.append(f"sanity: {sheet.sanity} is more than 99 - Cthulhu Mythos ({99 - mythos})")
    for sid, value in sheet.skills.items():
        base = _coc_base(sheet, pack, sid)
        if value < base:
            out.append(f"skills: {pack.checks[sid].name} {value} is below its base value {base}")
        if value > 99:
            out.append(f"skills: {pack.checks[sid].name} {value}; a skill goes no higher than 99")
    spent, budget = coc_skill_points(sheet, pack), coc_budget(sheet)
    if spent > budget:
        out.append(f"skills: {spent} points above the base values; occupation and personal interest give at most {budget}")
    if new:
        for a in ("strength", "constitution", "dexterity", "appearance", "power"):
            if not 15 <= c[a] <= 90:
                out.append(f"characteristics: {pack.ability_name(a)} {c[a]}; 3D6 x 5 gives 15 to 90")
        for a in ("size", "intelligence", "education"):
            if not 40 <= c[a] <= 90:
                out.append(f"characteristics: {pack.ability_name(a)} {c[a]}; (2D6+6) x 5 gives 40 to 90")
        if sheet.sanity != c["power"]:
            out.append(f"sanity: a new investigator starts at POW ({c['power']}), not {sheet.sanity}")
        if sheet.hp != coc_hp(sheet):
            out.append(f"hp: a new investigator has (CON + SIZ) / 10 = {coc_hp(sheet)}, not {sheet.hp}")
        if sheet.luck is None or not 15 <= sheet.luck <= 90:
            out.append(f"luck: {sheet.luck}; 3D6 x 5 gives 15 to 90")
    return out


def _pf2e(sheet: Sheet, pack: Any, new: bool) -> list[str]:
    out = []
    level = sheet.level
    top = 4 + level // 10  # a boost past +4 counts half (remaster): +5 at 10, +6 at 20
    for a, mod in sheet.attributes.items():
        if not -1 <= mod <= top:
            out.append(f"attributes: {pack.ability_name(a)} {mod:+d}; at level {level} a modifier runs -1 to +{top}")
    boosts = PF2_BOOSTS_AT_1 + 4 * (level // 5)
    if sum(sheet.attributes.values()) > boosts:
        out.append(f"attributes: they add up to {sum(sheet.attributes.values()):+d}; {boosts} boosts at level {level} give at most +{boosts}")
    for cid in ("perception", "fortitude", "reflex", "will"):
        if sheet.ranks.get(cid, "untrained") == "untrained":
            out.append(f"ranks: {pack.checks[cid].name} untrained; every class is at least trained in it")
    for cid, rank in sheet.ranks.items():
        need = {"master": 5, "legendary": 13}.get(rank, 1)
        if level < need:
            out.append(f"ranks: {pack.checks[cid].name if cid in pack.checks else cid} {rank} at level {level}; {rank} comes at level {need} at the earliest")
    con = sheet.attributes.get("constitution", 0)
    if sheet.hp is not None:
        low, high = 6 + (6 + con) * level, 12 + (12 + con) * level + level  # ancestry 6-12, class 6-12, Toughness
        if not low <= sheet.hp <= high:
            out.append(f"hp: {sheet.hp} at level {level} with Con {con:+d}; ancestry and class give {low} to {high}")
    dex = sheet.attributes.get("dexterity", 0)
    if sheet.ac is not None and sheet.ac < 10 + min(0, dex) + level + 2:
        out.append(f"ac: {sheet.ac} is below 10 + Dex + trained ({10 + min(0, dex) + level + 2}), the least any class has")
    if new and sum(sheet.attributes.values()) != boosts:
        out.append(f"attributes: a new character spends all {boosts} boosts; these add up to {sum(sheet.attributes.values()):+d}")
    return out


def _swade(sheet: Sheet, pack: Any, new: bool) -> list[str]:
    out = []
    for key, die in [*sheet.attributes.items(), *sheet.skills.items()]:
        sides, _ = die_size(die)
        if sides not in (4, 6, 8, 10, 12):
            out.append(f"{'attributes' if key in sheet.attributes else 'skills'}: {key} {die}; trait dice are d4 to d12")
    parry = swade_parry(sheet)
    if sheet.parry is not None and sheet.parry not in (parry, parry + 1, parry + 2):  # a shield adds 1 or 2
        fighting = sheet.skills.get("fighting")
        out.append(f"parry: {sheet.parry}; 2 + half the Fighting die ({fighting or 'none'}) is {parry} (a shield adds 1 or 2)")
    tough = swade_toughness(sheet)
    if sheet.toughness is not None and sheet.toughness < tough:
        out.append(f"toughness: {sheet.toughness}; 2 + half the Vigor die ({sheet.attributes.get('vigor', 'd4')}) is {tough}, armour only adds")
    attrs, skills = swade_points(sheet, pack)
    extra = 0 if new else SWADE_HINDRANCE_POINTS
    if attrs > SWADE_ATTRIBUTE_POINTS + extra // 2:
        out.append(f"attributes: {attrs} steps above d4; creation gives {SWADE_ATTRIBUTE_POINTS}" + (" (+2 from Hindrances)" if extra else ""))
    if new and skills > SWADE_SKILL_POINTS:
        out.append(f"skills: cost {skills} points; creation gives {SWADE_SKILL_POINTS} (a step above the linked attribute costs 2)")
    return out


RULES = {"dnd5e": _dnd5e, "coc7e": _coc7e, "pf2e": _pf2e, "swade": _swade}


def sheet_problems(sheet: Sheet, pack: Any, *, new: bool = False) -> list[str]:
    """What breaks the game's rules, one ``key: what; what is allowed`` line each ([] when legal)."""
    rule = RULES.get(pack.name)
    out = rule(sheet, pack, new) if rule else []
    if pack.name in ("coc7e", "pf2e", "swade") and sheet.spells:
        from .combat.powers import problems

        out += problems(sheet, pack.name)
    return out


def check_sheet(sheet: Sheet, pack: Any, source: str = "", *, new: bool = False) -> None:
    """Raise one ``CharacterError`` line naming the sheet and its first problem."""
    problems = sheet_problems(sheet, pack, new=new)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CharacterError(f"{source or sheet.name}: {problems[0]}{more}")


if check_sheet not in SHEET_CHECKS:  # every sheet read from a file is checked by its game's rules
    SHEET_CHECKS.append(check_sheet)
