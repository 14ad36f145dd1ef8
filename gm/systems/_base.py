"""What every mechanic shares: the sheet base, the roll plan, the difficulty, and pack look-ups.

``RollPlan`` and ``Difficulty`` carry their mechanic's name (``system``) and ask the registry
for the mechanic when they print (``plan.expression()``, ``difficulty.label(plan)``), so the
records stay plain data that a session file can store and reload.

The registry dict itself (``MECHANICS``) is defined here, at the bottom of the package, because
every mechanic module builds on this one; ``gm/systems/__init__.py`` fills it.
"""
from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rulesets import UnknownName, VgmError

from ..dice import BadDice


class CharacterError(VgmError):
    """A character sheet that cannot be used, or a character that is not at the table."""


class UnknownMechanic(VgmError):
    """A rule system (or pack) with no mechanic in ``gm.systems.MECHANICS``."""


# The registry: a mechanic's name → its module (filled by gm/systems/__init__.py).
MECHANICS: dict[str, Any] = {}

# The shipped packs, which do not (yet) say ``system:`` themselves.
PACK_SYSTEMS: dict[str, str] = {"dnd5e": "d20", "coc7e": "percentile", "pf2e": "degrees", "swade": "trait"}


def system_of(pack: Any) -> str | None:
    """The mechanic name a pack plays, or None.

    ``pack`` is a pack name or a loaded pack; the pack's own ``system`` (or ``rules.system``)
    wins over ``PACK_SYSTEMS``. Anything else with a ``system`` (a sheet, a plan) gives it.
    """
    declared = getattr(pack, "system", None)
    rules = getattr(pack, "rules", None)
    if not declared and isinstance(rules, dict):
        declared = rules.get("system")
    if declared:
        return str(declared)
    return PACK_SYSTEMS.get(pack if isinstance(pack, str) else getattr(pack, "name", None) or "")


def _mechanic(system: str) -> Any:
    """The mechanic module of a system name (the records below hold only the name)."""
    try:
        return MECHANICS[system]
    except KeyError:
        raise UnknownMechanic(f"no dice mechanic for {system!r}; use a system ({', '.join(MECHANICS)})") from None


class RollPlan(BaseModel):
    """What a character rolls for one check, before any difficulty is known."""

    system: str  # the mechanic: a key of gm.systems.MECHANICS ("d20", "degrees", "percentile", "trait")
    check: str
    check_name: str
    modifier: int = 0  # d20 systems: added to the d20; swade: added to the trait roll
    value: int | None = None  # coc7e: the skill percentage
    die: str | None = None  # swade: the trait die, e.g. "d8"
    wild: bool = False  # swade: roll the Wild Die too
    why: str = ""  # "WIS +3, proficiency +2"

    @field_validator("system")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in MECHANICS:
            raise ValueError(f"{value!r} is not a mechanic; use one of {', '.join(MECHANICS)}")
        return value

    def expression(self, advantage: int = 0) -> str:
        """The dice as a player would write them (``1d20+5``, ``2d20kh1+5``, ``1d100``, ``d8 + wild d6``)."""
        return _mechanic(self.system).expression(self, advantage)


class Difficulty(BaseModel):
    """How hard one check is, and why, in the system's own terms."""

    system: str
    target: int | None = None  # dnd5e/pf2e DC; swade TN
    level: str | None = None  # coc7e: regular / hard / extreme
    modifier: int = 0  # swade: situational modifier to the roll
    advantage: int = 0  # dnd5e +1 advantage / -1 disadvantage; coc7e bonus (+) / penalty (-) dice
    reason: str = ""
    secret: str | None = None  # id of the scenario secret this check is for

    def label(self, plan: RollPlan | None = None) -> str | None:
        """``DC 15``, ``Hard (30)`` (with the character's target), ``TN 4 (-2)``."""
        return _mechanic(self.system).label(self, plan)


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
    magic: bool | None = None  # can this character cast spells or use powers? unset: told by the pack (``works_magic``)
    spells: list[str] = Field(default_factory=list)  # spells / powers it casts, by name (gm.spells for dnd5e, gm.powers for the rest)

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

    def works_magic(self, ruleset) -> bool:
        """Whether this character has spells or powers at all, so a line that casts one can be
        rolled rather than refused. The sheet's own ``magic:`` decides when given; otherwise the
        pack's ``rules.magic``: a casting class named in the concept or notes ("gnome bard"), or an
        arcane skill on the sheet (Savage Worlds' Faith, Spellcasting...), gives magic; a class
        the pack lists ``without`` it ("half-orc fighter") does not. A sheet of a class-based pack
        that names no class at all is given the benefit of the doubt (True): refusing a wizard's
        spell because the concept only says "elf" is worse than rolling a rogue's. Packs with no
        ``without`` list (magic by skill or by the sheet alone) answer False."""
        if self.magic is not None:
            return self.magic
        if self.spells:  # a sheet that lists spells casts them
            return True
        known = (getattr(ruleset, "rules", None) or {}).get("magic") or {}
        described = f"{self.concept} {self.notes}".lower()

        def names(words: list[str]) -> bool:
            return any(re.search(rf"\b{re.escape(word.lower())}\b", described) for word in words)

        skills = set(known.get("skills", []))
        if names(known.get("classes", [])) or any(key in skills for keys in self.check_keys().values() for key in keys):
            return True
        if "without" not in known or names(known["without"]):
            return False
        return True

    def sees_in_dark(self, ruleset) -> bool:
        """Whether this character sees without light: the concept or notes name darkvision or one of
        the pack's ``rules.darkvision`` ancestries ("half-orc fighter"). A human, or any sheet of a
        pack with no such list, needs a light to read by."""
        described = f"{self.concept} {self.notes}".lower()
        kinds = ["darkvision", *((getattr(ruleset, "rules", None) or {}).get("darkvision") or [])]
        return any(re.search(rf"\b{re.escape(kind.lower())}\b", described) for kind in kinds)

    def summary(self, ruleset) -> str:
        """One line for the table: name, concept and the numbers a player looks at most."""
        return f"{self.name} — {self.concept}" if self.concept else self.name


def ability_key(ruleset, key: str) -> str | None:
    """An ability id from its id, abbreviation, name or alias ("wis", "Wisdom", "WIS")."""
    want = re.sub(r"[^a-z]", "", key.lower())
    for ident, ability in ruleset.ability_defs.items():
        names = [ident, ability.name, ability.abbr or "", *ability.aliases]
        if want in {re.sub(r"[^a-z]", "", n.lower()) for n in names if n}:
            return ident
    return None


def check_def(ruleset, check_id: str):
    """The pack's CheckDef for an id (``lore:sailing`` included), or a one-line error."""
    try:
        return ruleset.check(check_id)
    except UnknownName:
        raise CharacterError(f"{ruleset.name} has no check {check_id!r}; use an id from `vgm rulesets show {ruleset.name}`") from None


def abbr(ruleset, ability: str) -> str:
    """The short name of an ability (``WIS``, ``Dex``), for a sheet's one-line summary."""
    d = ruleset.ability_defs.get(ability)
    return (d.abbr or d.name[:3]) if d else ability[:3]


def typed_numbers(typed: str, hint: str) -> list[int]:
    """The numbers in what a player typed as their roll; none at all is a ``BadDice`` naming ``hint``."""
    numbers = [int(n) for n in re.findall(r"-?\d+", typed)]
    if not numbers:
        raise BadDice(f"{typed!r} is not a roll; type {hint}")
    return numbers
