"""The records of a fight: attacks, conditions, combatants, actions and events.

Plain pydantic data, so a ``Combat`` dumps to JSON and a session can store it and resume
mid-fight. Distances are feet everywhere (a stat block's ranges are converted on load).
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rulesets import VgmError

from ..dice import Roll

__all__ = ["CombatError", "OnHit", "Attack", "Condition", "Combatant", "Action", "CombatEvent", "Side", "Status",
           "RULES", "rules_for"]

Side = Literal["party", "foes"]
Status = Literal["up", "down", "dead", "fled"]


class CombatError(VgmError):
    """An action the rules do not allow: out of turn, no action left, a target that isn't there.

    The message is one line with the reason and what to do instead; the fight is unchanged.
    """


# The registry: a mechanic's name → its combat rules module. It lives at the bottom of the
# package because every rules module builds these records; ``gm/combat/__init__.py`` fills it.
RULES: dict[str, ModuleType] = {}


def rules_for(system: str) -> ModuleType:
    """The combat rules module of a mechanic (``d20``, ``degrees``, ``percentile``, ``trait``)."""
    if system not in RULES:
        raise CombatError(f"no combat rules for system {system!r}; use one of {', '.join(RULES)}")
    return RULES[system]


class OnHit(BaseModel):
    """A rider on a hit: a condition, avoided by a save when ``save`` is given (a wolf's bite: DC 11 STR or prone)."""

    model_config = ConfigDict(extra="forbid")
    condition: str
    save: str | None = None  # a check id of the pack, e.g. strength_save, reflex
    dc: int | None = None
    value: int | None = None  # pf2e condition value
    rounds: int | None = None


class Attack(BaseModel):
    """One way a combatant hurts someone, as its sheet or stat block says.

    ``damage`` is a d20 dice expression; ``db`` stands for a CoC damage bonus and ``str`` for a
    SWADE Strength die (``str+d6``). ``range`` is in feet here; stat blocks write their own units.
    """

    model_config = ConfigDict(extra="forbid")
    name: str
    kind: Literal["melee", "ranged"] = "melee"
    bonus: int = 0  # d20 / degrees: the attack roll's bonus
    skill: str | None = None  # percentile / trait: the skill rolled (fighting_brawl, firearms_handgun, shooting)
    damage: str
    damage_type: str = ""  # dnd5e: slashing, piercing, bludgeoning, fire ...
    reach: int = 5  # feet
    range: list[int] = Field(default_factory=list)  # feet: [normal, long] (dnd5e), [increment] (pf2e), [base] (coc7e), [short, medium, long] (swade)
    agile: bool = False  # pf2e: the multiple attack penalty is -4/-8
    impale: bool = False  # coc7e: an extreme success rolls the damage again
    ap: int = 0  # swade: armour piercing
    ready: bool = False  # coc7e: a firearm ready at the start adds 50 to DEX for the first round
    on_hit: OnHit | None = None
    ammo: str | None = None  # dnd5e (gm.items): what each shot uses up, a key of the combatant's ``ammo`` (arrows, javelin)


class Condition(BaseModel):
    """A condition on a combatant, with a value (pf2e frightened 2) and a duration in its own turns."""

    name: str
    value: int | None = None
    rounds: int | None = None  # turns of the bearer left; None lasts until removed
    tick: Literal["start", "end"] = "end"  # the duration counts down at the start or end of the bearer's turn
    source: str = ""
    save: str | None = None  # an ability whose save, at the end of each of the bearer's turns, ends it (Hold Person)
    dc: int | None = None  # that save's DC

    def label(self) -> str:
        return self.name + (f" {self.value}" if self.value is not None else "")


class Combatant(BaseModel):
    """One side's fighter: a player character built from a sheet, or an NPC from a stat block.

    The fields every system uses come first; the rest are read only by their own system and
    keep their defaults elsewhere.
    """

    name: str
    side: Side
    controller: Literal["player", "gm"] = "player"
    system: str
    monster: str | None = None  # the stat block id, for NPCs
    hp: int = 0  # swade: wounds it can still take before it is out (wild cards 4, extras 1)
    max_hp: int = 0
    temp_hp: int = 0
    ac: int | None = None  # dnd5e / pf2e
    parry: int | None = None  # swade
    toughness: int | None = None  # swade, armour included
    armor: int = 0  # swade: the armour part of toughness; coc7e: points taken off every hit
    speed: int = 30  # feet a turn
    position: int = 0  # feet along the field; the party starts at 0
    initiative: float | None = None
    init_mod: int = 0  # the number that breaks initiative ties (dnd5e DEX modifier, pf2e Perception, coc7e combat skill)
    init_roll: str = ""  # how the initiative came about, as shown
    attacks: list[Attack] = Field(default_factory=list)
    checks: dict[str, Any] = Field(default_factory=dict)  # check id -> modifier (d20/degrees), percent (percentile) or die (trait)
    conditions: list[Condition] = Field(default_factory=list)
    resistances: list[str] = Field(default_factory=list)
    vulnerabilities: list[str] = Field(default_factory=list)
    immunities: list[str] = Field(default_factory=list)
    condition_immunities: list[str] = Field(default_factory=list)
    morale: Literal["brave", "cowardly", "mindless"] = "brave"
    status: Status = "up"
    level: int = 1
    # the turn's bookkeeping
    actions_left: int = 0
    attacks_made: int = 0  # attacks this turn: pf2e's multiple attack penalty, dnd5e's Attack action
    attacks_per_action: int = 1  # dnd5e: Extra Attack / Multiattack
    moved: int = 0
    move_budget: int = 0
    acted_round: int = 0
    # dnd5e
    death_successes: int = 0
    death_failures: int = 0
    stable: bool = False
    hit_die: str = "d8"
    hit_dice: int = 1
    con_mod: int = 0
    passive_perception: int | None = None
    pack_tactics: bool = False
    # coc7e
    major_wound: bool = False
    luck: int | None = None
    sanity: int | None = None
    damage_bonus: str = "0"
    build: int = 0
    response: Literal["dodge", "fight_back"] | None = None  # what it does when attacked in melee; None picks the better skill
    responses: int = 0  # dodges / fights back this round (later attackers get a bonus die)
    sanity_loss: str | None = None  # seeing it costs "0/1d6"
    # swade
    wild_card: bool = False
    shaken: bool = False
    wounds: int = 0
    bennies: int = 0
    card: str | None = None
    auto_bennies: bool = True  # spend Bennies by themselves: soak wounds, shake off Shaken
    # dnd5e spellcasting (gm.spells): the sheet's spells, slots left and at most per slot level, DC, attack
    spells: list[str] = Field(default_factory=list)
    slots: dict[int, int] = Field(default_factory=dict)
    slots_max: dict[int, int] = Field(default_factory=dict)
    pact: bool = False  # warlock slots: back on a short rest
    spell_dc: int | None = None
    spell_attack: int = 0
    spell_mod: int = 0
    concentrating: str | None = None  # the spell id held
    magic_points: int | None = None  # coc7e casters (gm.combat.powers)
    magic_points_max: int | None = None  # what rest brings them back to (POW / 5)
    power_points: int | None = None  # swade casters (gm.combat.powers)
    power_points_max: int | None = None
    focus_points: int | None = None  # pf2e: back with the daily preparations (gm.combat.rest)
    focus_points_max: int | None = None
    bonus_left: int = 0  # dnd5e: the turn's bonus action (a bonus-action spell)
    cast_this_turn: list[str] = Field(default_factory=list)  # dnd5e: "bonus", "cantrip", "leveled": the bonus-action spell rule
    ammo: dict[str, int] = Field(default_factory=dict)  # gm.items: arrows, bolts ... carried
    items: dict[str, int] = Field(default_factory=dict)  # gm.items: potions and other things used up
    spent: dict[str, int] = Field(default_factory=dict)  # ammo keys shot or thrown since the last gathering (gm.combat.inventory.gather)
    gear: dict[str, int] = Field(default_factory=dict)  # everything else carried, by name: weapons, armour, things found (gm.combat.inventory)

    # ---------------------------------------------------------------- reading

    @property
    def is_player(self) -> bool:
        return self.controller == "player"

    @property
    def standing(self) -> bool:
        """In the fight and able to be a target: not down, dead or fled."""
        return self.status == "up"

    def condition(self, name: str) -> Condition | None:
        return next((c for c in self.conditions if c.name == name), None)

    def has(self, *names: str) -> bool:
        return any(c.name in names for c in self.conditions)

    def value(self, name: str) -> int:
        """A condition's value (0 when absent; 1 for a condition without a value)."""
        c = self.condition(name)
        return 0 if c is None else (c.value if c.value is not None else 1)

    def attack(self, name: str | None) -> Attack | None:
        if name is None:
            return None
        key = name.strip().lower()
        return next((a for a in self.attacks if a.name.lower() == key), None) or next(
            (a for a in self.attacks if a.name.lower().startswith(key)), None)

    def hp_text(self) -> str:
        """``31/31 HP`` (``+5 temp``), or in swade ``Shaken, 1 wound``: as the system counts health."""
        return rules_for(self.system).hp_text(self)

    def status_text(self) -> str:
        conds = ", ".join(c.label() for c in self.conditions)
        state = "" if self.status == "up" else f" [{self.status}]"
        return f"{self.name}: {self.hp_text()}{state}{f' ({conds})' if conds else ''}"

    # ---------------------------------------------------------------- changing

    def add(self, name: str, value: int | None = None, rounds: int | None = None, tick: str = "end", source: str = "") -> bool:
        """Give a condition (a higher value replaces a lower one); False when it is immune."""
        if name in self.condition_immunities:
            return False
        have = self.condition(name)
        if have is not None:
            if value is not None and (have.value or 0) < value:
                have.value = value
            if rounds is not None:
                have.rounds = max(have.rounds or 0, rounds)
            return True
        self.conditions.append(Condition(name=name, value=value, rounds=rounds, tick=tick, source=source))  # type: ignore[arg-type]
        return True

    def drop(self, *names: str) -> None:
        self.conditions = [c for c in self.conditions if c.name not in names]


class Action(BaseModel):
    """What a combatant does on its turn: ``attack`` with a named attack at a target, ``dodge``,
    ``move``, ``flee``, ``end`` ... (each system lists its own in ``ACTIONS``).

    ``options`` carries the rest: ``advantage`` (+1/-1), ``response`` (coc7e: dodge /
    fight_back), ``benny_reroll`` (swade), ``spend_luck`` (coc7e), ``to`` / ``distance`` (move).
    ``why`` says why an NPC chose it, for the log.
    """

    kind: str = "attack"
    attack: str | None = None
    target: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    why: str = ""

    def same(self, other: "Action") -> bool:
        return (self.kind, (self.attack or "").lower(), (self.target or "").lower()) == (
            other.kind, (other.attack or "").lower(), (other.target or "").lower())

    def __str__(self) -> str:
        what = self.kind + (f" with {self.attack}" if self.attack else "") + (f" → {self.target}" if self.target else "")
        return what + (f" ({self.why})" if self.why else "")


class CombatEvent(BaseModel):
    """One thing that happened, as the table sees it: a one-line ``text`` and the dice behind it."""

    round: int
    actor: str
    kind: str  # initiative, attack, damage, save, death_save, condition, turn, move, sanity, soak, deal, end ...
    text: str
    target: str | None = None
    rolls: list[Roll] = Field(default_factory=list)
    by: Literal["gm", "player"] = "gm"  # who rolled: the GM rolls NPCs' dice openly
    hit: bool | None = None
    amount: int | None = None

    @property
    def breakdown(self) -> str:
        return "; ".join(r.breakdown for r in self.rolls)

    def line(self) -> str:
        """``Goblin 1 attacks Ilya with Scimitar: 17 vs AC 16, hit [1d20 (13) + 4 = 17]``."""
        return f"{self.text} [{self.breakdown}]" if self.rolls else self.text

    def __str__(self) -> str:
        return self.line()
