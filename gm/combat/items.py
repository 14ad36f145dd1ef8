"""What a D&D 5e character carries, by the rules: weapons make its attacks, armour its AC,
ammunition and potions are counted as they are used.

The tables are pack data beside the spells (``rulesets/packs/spells/dnd5e.yaml``: SRD 5.1
weapons with damage, properties and range; armour; consumables). A sheet lists what it carries
and how many: ``items: {Shortsword: 1, Shortbow: 1, Arrows: 20, Leather: 1, Potion of Healing: 1}``.

- An attack with a weapon: proficiency + STR (DEX for ranged weapons; the better of the two
  for finesse), the weapon's damage die + the same modifier. A javelin or spear is thrown
  (a ranged attack that uses one up); a light thrown weapon (dagger, handaxe) is struck with.
- A bow or crossbow spends one arrow or bolt a shot; none left, no shot.
- AC: the armour's base + DEX (up to its cap) + 2 for a shield; no armour, 10 + DEX.
- A Potion of Healing heals 2d4+2 (an action in a fight).
"""
from __future__ import annotations

import random
import re
from typing import Any

from ._common import event, spend
from ._model import Attack, CombatError, Combatant, CombatEvent, rules_for
from ..dice import roll
from . import spells as _spells  # a module, not names: gm.spells may still be loading (it builds on gm.combat, which loads this)

__all__ = ["words_of", "find_item", "attacks_from_items", "armour_class", "item_fields", "use_item", "item_problems"]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def find_item(name: str) -> tuple[str, str, Any]:
    """(kind, id, definition) of an item by id or name: ``weapon``, ``armour`` or ``consumable``; one line otherwise."""
    book = _spells.spell_book()
    key = _slug(name)
    tables = (("weapon", book.weapons), ("armour", book.armour), ("consumable", book.consumables))
    for kind, table in tables:
        if key in table:
            return kind, key, table[key]
    # "healing potion", "a potion", "arrow": the one item whose name holds every word asked
    asked = words_of(name)
    hits = [(kind, k, d) for kind, table in tables for k, d in table.items()
            if asked and asked <= words_of(k) | words_of(getattr(d, "name", "") or "")]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(k.replace("_", " ") for k in [*book.weapons, *book.armour, *book.consumables])
    raise CombatError(f"no item {name!r} in the pack; it knows {known}")


_FILLER = {"a", "an", "the", "my", "his", "her", "their", "our", "your", "this", "that", "some", "one", "of", "last", "spare", "little"}


def words_of(name: str) -> set[str]:
    """The words that tell an item apart, singular, without articles: "my healing potions" → {healing, potion}."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", str(name).lower().replace("'s", "")):
        if w not in _FILLER:
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _mod(sheet: Any, ability: str) -> int:
    return (sheet.abilities.get(ability, 10) - 10) // 2


def _title(key: str) -> str:
    return key.replace("_", " ").capitalize()


def attacks_from_items(sheet: Any) -> list[Attack]:
    """The attacks the sheet's weapons give, in the order the sheet lists them."""
    out = []
    for name in getattr(sheet, "items", {}):
        kind, key, weapon = find_item(name)
        if kind != "weapon":
            continue
        props = set(weapon.properties)
        thrown = "thrown" in props and "light" not in props  # a javelin is thrown, a dagger struck with
        ranged = bool(weapon.ammunition) or thrown
        strength, dex = _mod(sheet, "strength"), _mod(sheet, "dexterity")
        mod = max(strength, dex) if "finesse" in props else dex if weapon.ammunition else strength
        out.append(Attack(name=_title(key), kind="ranged" if ranged else "melee", bonus=sheet.proficiency_bonus + mod,
                          damage=f"{weapon.damage}{mod:+d}" if mod else weapon.damage, damage_type=weapon.type,
                          range=weapon.range if ranged else [], ammo=weapon.ammunition or (key if thrown else None)))
    return out


def armour_class(sheet: Any) -> int | None:
    """AC from the armour and shield carried; None when the sheet carries neither."""
    worn = [find_item(n) for n in getattr(sheet, "items", {})]
    armour = [d for kind, _, d in worn if kind == "armour" and d.ac]
    shields = [d for kind, _, d in worn if kind == "armour" and d.bonus]
    if not armour and not shields:
        return None
    dex = _mod(sheet, "dexterity")
    body = max(armour, key=lambda d: d.ac, default=None)
    base = 10 + dex if body is None else body.ac + (dex if body.dex_max is None else min(dex, body.dex_max))
    return base + (shields[0].bonus if shields else 0)


def item_fields(sheet: Any) -> dict[str, Any]:
    """Combatant fields from what the sheet carries: attacks, AC, ammunition and consumables counted."""
    items = getattr(sheet, "items", {})
    if not items:
        return {}
    attacks = attacks_from_items(sheet)
    ammo, stock, gear = {}, {}, {}
    for name, count in items.items():
        kind, key, _ = find_item(name)
        if kind == "consumable" or (kind == "weapon" and any(a.ammo == key for a in attacks)):
            (ammo if kind == "weapon" or _spells.spell_book().consumables[key].ammunition else stock)[key] = count
        else:
            gear[name] = count  # weapons and armour: carried, not used up
    out: dict[str, Any] = {"ammo": ammo, "items": stock, "gear": gear}
    if attacks:
        out["attacks"] = attacks
    ac = armour_class(sheet)
    if ac is not None:
        out["ac"] = ac
    return out


def item_problems(sheet: Any) -> list[str]:
    """``items:`` lines a sheet gets wrong: an unknown item, a count below 1, an AC its armour does not give."""
    out = []
    for name, count in getattr(sheet, "items", {}).items():
        try:
            find_item(name)
        except CombatError as exc:
            out.append(f"items: {exc}")
            continue
        if count < 1:
            out.append(f"items: {name} {count}; carry at least 1 or leave it off")
    if not out and sheet.ac is not None and (worn := armour_class(sheet)) is not None and worn != sheet.ac:
        out.append(f"ac: {sheet.ac}, but the armour carried gives {worn} (base + DEX up to its cap + 2 for a shield)")
    return out


def use_item(combat, user: Combatant, name: str, target: Combatant | None = None, rng: random.Random | None = None) -> list[CombatEvent]:
    """Use up one of a consumable (a Potion of Healing heals 2d4+2); in a fight it takes the action."""
    kind, key, item = find_item(name)
    if kind != "consumable" or not item.heal:
        raise CombatError(f"{_title(key)} is not something to drink or use up; {user.name} carries {', '.join(user.items) or 'nothing usable'}")
    if user.items.get(key, 0) <= 0:
        raise CombatError(f"{user.name} has no {item.name} left")
    if combat is not None:
        spend(user, 1, f"using a {item.name}")
    user.items[key] -= 1
    t = target or user
    r = roll(item.heal, rng or random.Random())
    healed = rules_for(t.system).heal(combat, t, r.total)
    out = [event(combat, user, "use", f"{user.name} uses a {item.name} ({user.items[key]} left)")]
    return out + [e.model_copy(update={"rolls": [r]}) for e in healed]
