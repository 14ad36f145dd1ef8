"""D&D 5e spells by the rules: the pack's spell list, slots per class and level, casting in and out of a fight.

The data is ``rulesets/packs/spells/dnd5e.yaml`` (SRD 5.1 facts, CC-BY-4.0, see the NOTICE
beside it): each spell's level, school, casting time, range, components, concentration, attack
or save, and damage or healing by slot level; the slots of full, half and pact casters.

    caster = combatant_from_sheet(oskar, "dnd5e")          # a cleric: slots, DC and spells from the sheet
    events = cast(None, caster, "Cure Wounds", [brisa], slot=1, rng=rng)      # out of a fight
    fight.act("Oskar", Action(kind="cast", target="Goblin 1", options={"spell": "sacred flame"}))  # in one

A spell the sheet lacks, a slot the caster does not have or has spent, a fighter casting: each
is one ``CombatError`` line saying why and what is allowed.

In a fight a bonus-action spell (Healing Word, Shield of Faith, Spiritual Weapon, Misty Step)
takes the turn's bonus action, not its action; and by the 5e rule, a turn with a bonus-action
spell allows only a cantrip as the action's spell (either order). A condition a spell lays with
"repeat the save at the end of each of its turns" (Hold Person) is saved against again at the
end of each of the bearer's turns and ends on a success; ending the concentration ends it too.
"""
from __future__ import annotations

import math
import random
import re
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import _cast_targets as _targets  # a module, not names: it may still be loading (gm.combat loads this)
from ._common import double_dice, event, spend
from ._model import CombatError, Combatant, CombatEvent, rules_for
from ..dice import Roll, natural, roll

__all__ = ["SpellDef", "SpellBook", "spell_book", "class_spells", "find_spell", "slots_for", "caster_class", "caster_fields", "cast",
           "end_concentration", "concentration_check", "ordinal", "SPELLS_FILE", "bonus_cast", "bonus_spell_ready", "repeat_saves",
           "strike_again", "read_strike_again"]

SPELLS_FILE = Path(__file__).resolve().parents[2] / "rulesets" / "packs" / "spells" / "dnd5e.yaml"
ABILITIES = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Amount(_Strict):
    dice: str
    type: str = ""
    per_slot: str | None = None  # added once per slot level above the spell's (or per ``per_slots`` levels)
    per_slots: int = Field(1, ge=1)  # Spiritual Weapon: +1d8 for every two slot levels above 2nd
    add_mod: bool = False  # the casting ability modifier is added (Spiritual Weapon)
    half_on_save: bool = False


class Effect(_Strict):
    condition: str
    rounds: int | None = None
    targets: int = 1
    per_slot_targets: int = 0
    repeat_save: bool = False  # the target saves again at the end of each of its turns; a success ends it


class SpellDef(_Strict):
    """One spell as the SRD gives it, in our words."""

    name: str
    level: int = Field(ge=0, le=9)
    school: Literal["abjuration", "conjuration", "divination", "enchantment", "evocation", "illusion", "necromancy", "transmutation"]
    casting_time: str
    range: str
    components: list[Literal["V", "S", "M"]]
    duration: str
    concentration: bool = False
    classes: list[str] = Field(min_length=1)
    attack: Literal["ranged", "melee"] | None = None
    save: str | None = None
    damage: Amount | None = None
    heal: Amount | None = None
    missiles: int | None = None
    effect: Effect | None = None
    teleport: int | None = None  # feet the caster moves at once (Misty Step): away from the nearest enemy
    strikes_again: int | None = None  # rounds the caster may repeat the spell's attack with a bonus action (Spiritual Weapon)
    about: str = ""

    @field_validator("save")
    @classmethod
    def _ability(cls, value: str | None) -> str | None:
        if value is not None and value not in ABILITIES:
            raise ValueError(f"{value!r} is not an ability; use one of {', '.join(ABILITIES)}")
        return value

    @property
    def harmful(self) -> bool:
        return bool(self.attack or self.save or self.damage)

    @property
    def bonus_action(self) -> bool:
        """Cast with the turn's bonus action rather than its action."""
        return self.casting_time.strip().lower().startswith("1 bonus action")


class Caster(_Strict):
    kind: Literal["full", "half", "pact"]
    ability: str


class WeaponDef(_Strict):
    """A weapon (``gm.combat.items``): damage die, type, properties, range in feet, the ammunition it shoots."""

    damage: str
    type: str
    properties: list[str] = Field(default_factory=list)
    range: list[int] = Field(default_factory=list)
    ammunition: str | None = None


class ArmourDef(_Strict):
    """Body armour (base AC, how much DEX counts) or a shield (its bonus)."""

    ac: int | None = None
    dex_max: int | None = None
    bonus: int = 0


class Consumable(_Strict):
    """Something used up: a potion (what it heals) or ammunition."""

    name: str
    heal: str | None = None
    ammunition: bool = False


class SpellBook(_Strict):
    """The pack's spells and how each class casts (the weapon and armour tables ride along, see ``gm.combat.items``)."""

    ruleset: Literal["dnd5e"]
    casters: dict[str, Caster]
    slots: dict[int, list[int]]
    pact: dict[int, tuple[int, int]]
    spells: dict[str, SpellDef]
    weapons: dict[str, WeaponDef] = Field(default_factory=dict)
    armour: dict[str, ArmourDef] = Field(default_factory=dict)
    consumables: dict[str, Consumable] = Field(default_factory=dict)


@cache
def spell_book() -> SpellBook:
    """The shipped spell data, read and checked once (a mistake is one line naming the file and key)."""
    return _targets.read_book(SPELLS_FILE, SpellBook, "spell list")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def find_spell(name: str) -> tuple[str, SpellDef]:
    """A spell by id or name, any case (``"cure wounds"``, ``Cure_Wounds``); a one-line error naming the known ones."""
    book = spell_book()
    key = _slug(name)
    if key in book.spells:
        return key, book.spells[key]
    raise CombatError(f"no spell {name!r} in the pack; it knows {', '.join(s.name for s in book.spells.values())}")


def ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ---------------------------------------------------------------- who casts, with what


def caster_class(sheet: Any) -> str | None:
    """The casting class a dnd5e sheet names in its concept or notes ("human cleric"), if any."""
    words = set(re.findall(r"[a-z]+", f"{sheet.concept} {sheet.notes}".lower()))
    return next((k for k in spell_book().casters if k in words), None)


def slots_for(klass: str | None, level: int) -> tuple[dict[int, int], bool]:
    """({slot level: how many}, pact magic?) of a class at a character level; ({}, False) for a non-caster."""
    book = spell_book()
    caster = book.casters.get(klass or "")
    if caster is None:
        return {}, False
    if caster.kind == "pact":
        row = max(k for k in book.pact if k <= level)
        count, slot = book.pact[row]
        return {slot: count}, True
    row = level if caster.kind == "full" else math.ceil(level / 2) if level >= 2 else 0
    return ({i + 1: n for i, n in enumerate(book.slots[row])} if row else {}), False


def class_spells(klass: str, level: int) -> list[str]:
    """The shipped spells a new character of ``klass`` starts with: its list's cantrips and the levels it has slots for."""
    slots, _ = slots_for(klass, level)
    if not slots:
        return []
    top = max(slots)
    return [s.name for s in spell_book().spells.values() if klass in s.classes and s.level <= top]


def caster_fields(sheet: Any) -> dict[str, Any]:
    """The Combatant fields of a dnd5e sheet's spellcasting: spells, slots, save DC, attack bonus."""
    spells = [find_spell(s)[0] for s in getattr(sheet, "spells", [])]
    if not spells:
        return {}
    klass = caster_class(sheet)
    caster = spell_book().casters.get(klass or "")
    slots, pact = slots_for(klass, sheet.level)
    mod = (sheet.abilities.get(caster.ability, 10) - 10) // 2 if caster else 0
    prof = sheet.proficiency_bonus
    return {"spells": spells, "slots": dict(slots), "slots_max": dict(slots), "pact": pact,
            "spell_dc": 8 + prof + mod, "spell_attack": prof + mod, "spell_mod": mod}


# ---------------------------------------------------------------- casting


def _slot(caster: Combatant, spell: SpellDef, slot: int | None) -> int:
    """The slot level spent (0 for a cantrip), or one line on why there is none."""
    if spell.level == 0:
        return 0
    have = {lvl: n for lvl, n in caster.slots.items() if n > 0}
    if slot is None:
        usable = [lvl for lvl in sorted(have) if lvl >= spell.level]
        if not usable:
            spent = ", ".join(f"{ordinal(lvl)} {caster.slots.get(lvl, 0)}/{n}" for lvl, n in sorted(caster.slots_max.items()))
            raise CombatError(f"{caster.name} has no slot of {ordinal(spell.level)} level or higher left for {spell.name} "
                              f"(left/max: {spent or 'none'}); a long rest restores them")
        return usable[0]
    if slot < spell.level:
        raise CombatError(f"{spell.name} is a {ordinal(spell.level)}-level spell; it cannot be cast with a {ordinal(slot)}-level slot")
    if slot not in caster.slots_max:
        levels = ", ".join(ordinal(lvl) for lvl in sorted(caster.slots_max)) or "none"
        raise CombatError(f"{caster.name} has no {ordinal(slot)}-level slots (slot levels: {levels})")
    if caster.slots.get(slot, 0) <= 0:
        raise CombatError(f"{caster.name} has spent every {ordinal(slot)}-level slot (0 of {caster.slots_max[slot]}); a long rest restores them")
    return slot


def _knows(caster: Combatant, name: str) -> tuple[str, SpellDef]:
    if not caster.spells:
        raise CombatError(f"{caster.name} casts no spells: their sheet lists none (a spellcaster's sheet has 'spells:')")
    key, spell = find_spell(name)
    if key not in caster.spells:
        known = ", ".join(spell_book().spells[s].name for s in caster.spells)
        raise CombatError(f"{caster.name} does not have {spell.name}; their sheet lists {known}")
    return key, spell


def _scaled(amount: Amount, spell: SpellDef, slot: int, caster: Combatant) -> str:
    """The dice at this slot (cantrips grow at levels 5, 11 and 17)."""
    expr = amount.dice
    if spell.level == 0:
        times = 1 + (caster.level >= 5) + (caster.level >= 11) + (caster.level >= 17)
        expr = re.sub(r"(\d*)d(\d+)", lambda m: f"{times * int(m.group(1) or 1)}d{m.group(2)}", expr)
    extra = max(0, slot - spell.level) // amount.per_slots
    if amount.add_mod and caster.spell_mod:
        expr += f"{caster.spell_mod:+d}"
    if extra and amount.per_slot:
        expr += "".join(f"+{amount.per_slot}" for _ in range(extra))
    return expr


def _save_roll(c: Combatant, ability: str, dc: int, rng: random.Random) -> tuple[bool, list[Roll], str]:
    """A saving throw outside the fight's own bookkeeping: d20 + the save (+1d4 blessed); paralysed fails STR/DEX."""
    if ability in ("strength", "dexterity") and c.has("paralyzed", "stunned", "unconscious", "petrified"):
        return False, [], "fails automatically"
    mod = int(c.checks.get(f"{ability}_save", 0))
    r = roll(f"1d20{mod:+d}" if mod else "1d20", rng)
    rolls, total = [r], r.total
    if c.has("blessed"):
        b = roll("1d4", rng)
        rolls.append(b)
        total += b.total
    return total >= dc, rolls, f"{total} vs DC {dc}"


def _hurt(combat, t: Combatant, amount: int, kind: str, rolls: list[Roll], via: str, rng: random.Random, crit: bool = False) -> list[CombatEvent]:
    return rules_for(t.system).hurt(combat, t, amount, kind, crit=crit, rolls=rolls, via=via, rng=rng)


def end_concentration(combat, caster: Combatant, why: str = "") -> list[CombatEvent]:
    """Drop the spell ``caster`` concentrates on: its conditions leave every creature it touched."""
    if not caster.concentrating:
        return []
    spell = spell_book().spells.get(caster.concentrating)
    source = f"{caster.name}: {spell.name if spell else caster.concentrating}"
    for c in (combat.combatants.values() if combat is not None else [caster]):
        c.conditions = [x for x in c.conditions if x.source != source]
    caster.concentrating = None
    return [event(combat, caster, "concentration", f"{caster.name}'s {spell.name if spell else 'spell'} ends{f' ({why})' if why else ''}")]


def concentration_check(combat, c: Combatant, taken: int, rng: random.Random | None) -> list[CombatEvent]:
    """Damage breaks concentration unless a CON save beats DC 10 or half the damage, whichever is higher."""
    if not c.concentrating or taken <= 0:
        return []
    if c.status != "up":
        return end_concentration(combat, c, "they went down")
    dc = max(10, taken // 2)
    ok, rolls, how = _save_roll(c, "constitution", dc, rng or random.Random())
    out = [event(combat, c, "concentration", f"{c.name} keeps concentrating: CON save {how}, {'success' if ok else 'failure'}", rolls=rolls, hit=ok)]
    return out if ok else out + end_concentration(combat, c, "concentration broken")


def cast(combat, caster: Combatant, name: str, targets: list[Any] | None = None, slot: int | None = None,
         rng: random.Random | None = None) -> list[CombatEvent]:
    """Cast a spell the caster has: spend the slot, then heal, hurt, or lay the effect, by the rules.

    ``combat`` is None outside a fight; ``targets`` are then Combatants (default: the caster).

    Raises:
        CombatError: no spells, not on the sheet, no slot of the level, no target: nothing is spent.
    """
    rng = rng or random.Random()
    key, spell = _knows(caster, name)
    level = _slot(caster, spell, slot)
    chosen = _targets.choose_targets(combat, caster, spell.harmful and not spell.heal, list(targets or []), spell.name)
    if spell.attack and not spell.missiles:
        chosen = chosen[:1]  # a spell attack is made at one creature: the first named
    if spell.effect is not None and not (spell.attack or spell.save):
        most = spell.effect.targets + spell.effect.per_slot_targets * max(0, level - spell.level)
        if len(chosen) > most:
            raise CombatError(f"{spell.name} at a {ordinal(level or spell.level)}-level slot touches at most {most} creature{'s' if most != 1 else ''}")
    if combat is not None:
        _pay_the_turn(caster, spell)
    if level:
        caster.slots[level] -= 1
    slot_text = f" with a {ordinal(level)}-level slot ({caster.slots[level]} left)" if level else " (a cantrip)"
    out = [event(combat, caster, "cast", f"{caster.name} casts {spell.name}{slot_text}")]
    if spell.concentration:
        out += end_concentration(combat, caster, f"{caster.name} casts {spell.name}")
        caster.concentrating = key
    source = f"{caster.name}: {spell.name}"
    if spell.strikes_again:  # the weapon stays: a bonus action on a later turn strikes again, at this slot's damage
        caster.conditions = [x for x in caster.conditions if x.source != source]
        caster.add(spell.name.lower(), value=level, rounds=spell.strikes_again, source=source)
    if spell.teleport:
        out += _teleport(combat, caster, spell)
    if spell.heal is not None:
        for t in chosen:
            r = roll(_scaled(spell.heal, spell, level, caster) + (f"{caster.spell_mod:+d}" if caster.spell_mod else ""), rng)
            healed = rules_for(t.system).heal(combat, t, max(0, r.total))
            out += [e.model_copy(update={"rolls": [r], "text": e.text.replace("regains", f"regains (from {spell.name})", 1)}) for e in healed]
    if spell.missiles:
        t = chosen[0]
        darts = spell.missiles + max(0, level - spell.level)
        rolls = [roll(spell.damage.dice, rng) for _ in range(darts)]
        out += _hurt(combat, t, sum(r.total for r in rolls), spell.damage.type, rolls, f"{darts} darts of {spell.name}", rng)
        return out
    for t in chosen if spell.attack or spell.save else []:
        hit, crit, saved = True, False, False
        if spell.attack:
            edge = 1 if t.has("guided") else 0
            d20 = "2d20kh1" if edge else "1d20"
            r = roll(f"{d20}{caster.spell_attack:+d}", rng)
            nat = natural(r)
            ac = (t.ac or 10) + (2 if t.has("shield of faith") else 0)
            hit = nat == 20 or (nat != 1 and r.total >= ac)
            crit = nat == 20
            t.drop("guided")
            out.append(event(combat, caster, "attack", f"{caster.name}'s {spell.name} at {t.name}: {r.total} vs AC {ac}, "
                             + ("critical hit" if crit else "hit" if hit else "miss"), target=t, rolls=[r], hit=hit))
        else:
            saved, rolls, how = _save_roll(t, spell.save, caster.spell_dc or 10, rng)
            out.append(event(combat, t, "save", f"{t.name} saves against {spell.name} ({spell.save[:3].upper()}): {how}, "
                             + ("success" if saved else "failure"), target=t, rolls=rolls, hit=saved))
        if spell.damage is not None and hit and not (saved and not spell.damage.half_on_save):
            expr = _scaled(spell.damage, spell, level, caster)
            d = roll(double_dice(expr) if crit else expr, rng)
            amount = d.total // 2 if saved else d.total
            out += _hurt(combat, t, max(0, amount), spell.damage.type, [d], spell.name + (", halved by the save" if saved else ""), rng, crit)
        if spell.effect is not None and hit and not saved and t.status == "up":
            if t.add(spell.effect.condition, rounds=spell.effect.rounds, source=source):
                if spell.effect.repeat_save:  # saved against again at the end of each of its turns
                    held = t.condition(spell.effect.condition)
                    held.save, held.dc = spell.save, caster.spell_dc or 10
                out.append(event(combat, t, "condition", f"{t.name} is {spell.effect.condition} ({spell.name})", target=t))
    if spell.effect is not None and not (spell.attack or spell.save):
        for t in chosen:
            t.add(spell.effect.condition, rounds=spell.effect.rounds, source=source)
            out.append(event(combat, t, "condition", f"{t.name} is {spell.effect.condition} ({spell.name})", target=t))
    return out


def _pay_the_turn(caster: Combatant, spell: SpellDef) -> None:
    """Take the action or the bonus action the spell needs; one line when the turn has none left or
    the bonus-action spell rule forbids it (with a bonus-action spell, the action's spell is a cantrip)."""
    kind = "bonus" if spell.bonus_action else "cantrip" if spell.level == 0 else "leveled"
    if spell.bonus_action:
        if caster.bonus_left <= 0:
            raise CombatError(f"{caster.name} has used this turn's bonus action; {spell.name} takes one")
        if spell.level > 0 and "leveled" in caster.cast_this_turn:
            raise CombatError(f"{caster.name} cast a leveled spell with the action this turn; a bonus-action spell "
                              f"such as {spell.name} is allowed only beside a cantrip")
        caster.bonus_left -= 1
    else:
        if kind == "leveled" and "bonus" in caster.cast_this_turn:
            raise CombatError(f"{caster.name} cast a bonus-action spell this turn, so the action's spell must be a cantrip; "
                              f"{spell.name} is {ordinal(spell.level)} level")
        spend(caster, 1, f"casting {spell.name}")  # the turn's action (Combat.act checked the turn)
    caster.cast_this_turn.append(kind)


def bonus_cast(c: Combatant, name: str | None) -> bool:
    """The spell ``name`` is one ``c`` casts with a bonus action it still has (it needs no action left)."""
    if not name or c.bonus_left <= 0 or not rules_for(c.system).BONUS_ACTIONS:
        return False
    try:
        return find_spell(name)[1].bonus_action
    except CombatError:
        return False


def bonus_spell_ready(c: Combatant) -> bool:
    """``c`` still has a bonus action and a bonus-action spell it may cast with it now (the turn stays open)."""
    if c.bonus_left <= 0 or not rules_for(c.system).BONUS_ACTIONS:
        return False
    book = spell_book().spells
    if any(x.source == f"{c.name}: {s.name}" for x in c.conditions for s in book.values() if s.strikes_again):
        return True  # the spiritual weapon can strike again
    for key in c.spells:
        spell = book[key]
        if spell.bonus_action and (spell.level == 0 or ("leveled" not in c.cast_this_turn
                                                         and any(n > 0 for lvl, n in c.slots.items() if lvl >= spell.level))):
            return True
    return False


def strike_again(combat, caster: Combatant, name: str, targets: list[Any] | None = None,
                 rng: random.Random | None = None) -> list[CombatEvent]:
    """The spell's attack again with a bonus action and no slot, while it lasts (Spiritual Weapon's
    later turns); it is no spell cast, so the turn's action may still cast a leveled spell.

    Raises:
        CombatError: the spell is not lasting for ``caster``, or the bonus action is spent.
    """
    key, spell = find_spell(name)
    held = next((x for x in caster.conditions if x.source == f"{caster.name}: {spell.name}"), None)
    if held is None or not spell.strikes_again:
        raise CombatError(f"{caster.name} has no {spell.name} in the fight to strike with; cast it first")
    if combat is not None:
        if caster.bonus_left <= 0:
            raise CombatError(f"{caster.name} has used this turn's bonus action; {spell.name} strikes with one")
        caster.bonus_left -= 1
    rng = rng or random.Random()
    t = _targets.choose_targets(combat, caster, True, list(targets or []), spell.name)[0]
    r = roll(f"1d20{caster.spell_attack:+d}", rng)
    nat = natural(r)
    ac = (t.ac or 10) + (2 if t.has("shield of faith") else 0)
    hit, crit = nat == 20 or (nat != 1 and r.total >= ac), nat == 20
    out = [event(combat, caster, "attack", f"{caster.name}'s {spell.name} strikes again at {t.name}: {r.total} vs AC {ac}, "
                 + ("critical hit" if crit else "hit" if hit else "miss"), target=t, rolls=[r], hit=hit)]
    if hit and spell.damage is not None:
        expr = _scaled(spell.damage, spell, held.value or spell.level, caster)
        d = roll(double_dice(expr) if crit else expr, rng)
        out += _hurt(combat, t, max(0, d.total), spell.damage.type, [d], spell.name, rng, crit)
    return out


def read_strike_again(me: Combatant, text: str) -> str | None:
    """The lasting spell a line strikes with ("my spiritual weapon hits goblin 2"), not casting it anew; else None."""
    if _CAST.search(text):
        return None
    low = text.lower()
    book = spell_book().spells
    for cond in me.conditions:
        spell = book.get(_slug(cond.source.split(": ", 1)[-1])) if cond.source.startswith(f"{me.name}: ") else None
        if spell is not None and spell.strikes_again and spell.name.lower() in low:
            return spell.name
    return None


def _teleport(combat, caster: Combatant, spell: SpellDef) -> list[CombatEvent]:
    """Misty Step: ``spell.teleport`` feet at once, away from the nearest enemy (no movement spent)."""
    near = combat.nearest_enemy(caster) if combat is not None else None
    away = -1 if near is None or near.position >= caster.position else 1
    caster.position += away * (spell.teleport or 0)
    caster.drop("grappled")
    far = f", {abs(near.position - caster.position)} ft from {near.name}" if near is not None else ""
    return [event(combat, caster, "move", f"{caster.name} vanishes in silver mist and steps out {spell.teleport} ft away{far}")]


def repeat_saves(combat, c: Combatant, rng: random.Random) -> list[CombatEvent]:
    """At the end of ``c``'s turn: each spell condition that allows it is saved against again; a success ends that spell on ``c``."""
    out = []
    for held in [x for x in c.conditions if x.save and x.dc is not None]:
        if c.status != "up":
            break
        ok, rolls, how = _save_roll(c, held.save, held.dc, rng)
        what = held.source.split(": ", 1)[-1]
        out.append(event(combat, c, "save", f"{c.name} saves again against {what} ({held.save[:3].upper()}): {how}, "
                         + ("success" if ok else "failure"), rolls=rolls, hit=ok))
        if ok:
            c.conditions = [x for x in c.conditions if x.source != held.source]
            out.append(event(combat, c, "condition", f"{c.name} is no longer {held.name} ({what} ends on them)"))
    return out


_CAST = re.compile(r"\bcast(?:s|ing)?\b", re.I)
# an unknown spell's name: at most four words, up to what follows it ("cast Misty Step and hop up" → "Misty Step")
_UNKNOWN = re.compile(r"\bcast(?:s|ing)?\s+(?:a\s+|an\s+|the\s+|my\s+)?(?:spell\s+(?:of\s+)?)?([a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3}?)"
                      r"(?=\s+(?:on|at|upon|to|over|for|and|then|so|while|before|after|into|onto|from|with|as)\b|[,;:.!?]|$)", re.I)
_ME = re.compile(r"\b(me|myself|my wounds)\b", re.I)


def read_cast(names: list[str], actor: str, text: str) -> tuple[str, list[str]] | None:
    """A line that casts: (the spell named, the people it names), or None. A spell the pack does
    not know is returned as written, so casting it is refused by name; ``names`` are the people present."""
    if not _CAST.search(text):
        return None
    low = text.lower()
    from .powers import power_book

    book = power_book()
    known = [s.name for s in [*spell_book().spells.values(), *book.coc7e.values(), *book.pf2e.values(), *book.swade.values()]]
    spell = next((n for n in sorted(known, key=len, reverse=True) if re.search(rf"\b{re.escape(n.lower())}\b", low)), None)
    if spell is None:
        m = _UNKNOWN.search(text)
        if m is None or not (m.group(1)[0].isupper() or re.search(r"\bspell\b", low)):
            return None  # "I cast a glance at the door", "cast my net": not magic
        spell = m.group(1).strip()
    who = [n for n in names if n != actor and any(re.search(rf"\b{re.escape(part.lower())}\b", low) for part in (n, n.split()[0]))]
    return spell, ([actor] if _ME.search(text) else []) + who
