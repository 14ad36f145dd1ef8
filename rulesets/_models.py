"""The shapes of a rule-set pack: what a pack file may say, validated by pydantic on load.

A pack file (YAML) holds a ``PackFile``; the loader turns it into a ``RuleSet`` (see
``_ruleset.py``), which adds the name index. Unknown keys are errors, so a typo in a pack
never silently drops data.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Def(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AbilityDef(_Def):
    """An ability score / characteristic / attribute that skills hang from (D&D Wisdom, CoC POW)."""

    id: str = ""
    name: str
    abbr: str | None = None
    aliases: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)
    check: bool = True  # also a plain check of its own ("Strength check", CoC "力量")
    description: str = ""
    examples: list[str] = Field(default_factory=list)  # player lines answered with the plain check


class CheckDef(_Def):
    """One thing a GM can ask a player to roll, named by its id everywhere in the project.

    ``kind`` is "skill", "ability", "save", "special", "lore", ...; ``ability`` the id of the
    governing ability (None when the system has none); ``base`` the CoC base percentage.
    """

    id: str = ""
    name: str
    kind: str = "skill"
    ability: str | None = None
    aliases: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)
    base: int | None = None
    base_formula: str | None = None  # CoC bases that derive from a characteristic, e.g. "DEX/2"
    core: bool = False  # Savage Worlds core skills every character starts with
    description: str = ""
    examples: list[str] = Field(default_factory=list)  # player lines a GM answers with this check (our own words)


class FamilyDef(_Def):
    """An open family of checks, one per topic: Pathfinder's Lore gives ``lore:sailing``."""

    name: str
    kind: str = "skill"
    ability: str | None = None
    aliases: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)
    example: str = "topic"  # a topic to show in menus: lore:sailing
    description: str = ""
    examples: list[str] = Field(default_factory=list)  # player lines that call for a check of this family


class RoleDef(_Def):
    """A hidden role in a social deduction game.

    ``sees`` lists the role ids whose seats this role learns at night (the engine skips the
    seat itself); ``sees_as`` is the label that knowledge carries ("evil",
    "merlin_or_morgana", "teammate"), empty when the role learns nothing.
    """

    id: str = ""
    name: str
    team: str
    sees: list[str] = Field(default_factory=list)
    sees_as: str = ""
    aliases: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)
    description: str = ""


class SetupDef(_Def):
    """The table for one player count: the default line-up and, for Avalon, mission sizes.

    ``optional`` roles may replace a plain role of their team (``rules.plain_roles``).
    """

    players: int = 0
    lineup: list[str]
    team_sizes: list[int] = Field(default_factory=list)
    fails_required: list[int] = Field(default_factory=list)
    optional: list[str] = Field(default_factory=list)


class PackFile(_Def):
    """Everything one pack file may contain."""

    name: str | None = None
    title: str
    kind: Literal["trpg", "social"]
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    ability_word: str = "ability"
    filler: list[str] = Field(default_factory=list)
    abilities: dict[str, AbilityDef] = Field(default_factory=dict)
    checks: dict[str, CheckDef] = Field(default_factory=dict)
    families: dict[str, FamilyDef] = Field(default_factory=dict)
    teams: dict[str, str] = Field(default_factory=dict)  # team id -> display name
    team_aliases: dict[str, list[str]] = Field(default_factory=dict)  # team id -> other names (蓝方, Villagers)
    roles: dict[str, RoleDef] = Field(default_factory=dict)
    setups: dict[int, SetupDef] = Field(default_factory=dict)
    rules: dict = Field(default_factory=dict)
    # Player lines a GM answers without dice (questions, talk, trivial acts) and lines no roll can
    # make succeed (flying unaided, punching down a tower). The GM turn retrieves the nearest of
    # these and of the checks' examples to decide whether, and what, to roll.
    no_roll: list[str] = Field(default_factory=list)
    impossible: list[str] = Field(default_factory=list)
    # Kinds of act every game has a check for, named in a vocabulary shared by the packs
    # (``endure``: D&D's Constitution save, Pathfinder's Fortitude, Savage Worlds' Vigor), each
    # with this pack's checks for it, the usual one first. The GM turn lends each pack the other
    # packs' example lines through them (``pipelines.check_index.borrowed_examples``).
    concepts: dict[str, list[str]] = Field(default_factory=dict)
