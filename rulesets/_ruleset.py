"""A loaded rule set: the pack's data plus name resolution, built from a validated ``PackFile``."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ._errors import VgmError
from ._models import AbilityDef, CheckDef, FamilyDef, PackFile, RoleDef, SetupDef
from ._names import NameIndex
from ._normalize import DEFAULT_FILLER, loose_words, raw_key
from ._problems import PackError, UnknownName


class RuleSet(BaseModel):
    """One game's rules as data. ``resolve`` turns what people say into the pack's ids.

    TRPG packs fill ``checks``/``abilities``; social packs fill ``roles``/``setups``;
    ``rules`` carries the remaining numbers (Avalon's ``max_rejections``, Mafia's phases...).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    title: str
    kind: Literal["trpg", "social"]
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    source: str = ""
    ability_word: str = "ability"
    ability_defs: dict[str, AbilityDef] = Field(default_factory=dict)
    checks: dict[str, CheckDef] = Field(default_factory=dict)
    families: dict[str, FamilyDef] = Field(default_factory=dict)
    teams: dict[str, str] = Field(default_factory=dict)
    team_aliases: dict[str, list[str]] = Field(default_factory=dict)
    roles: dict[str, RoleDef] = Field(default_factory=dict)
    setups: dict[int, SetupDef] = Field(default_factory=dict)
    rules: dict = Field(default_factory=dict)
    no_roll: list[str] = Field(default_factory=list)  # lines a GM answers without dice
    impossible: list[str] = Field(default_factory=list)  # lines no roll can make succeed
    concepts: dict[str, list[str]] = Field(default_factory=dict)  # shared kind of act -> this pack's checks, usual first

    _check_index: NameIndex = PrivateAttr(default_factory=NameIndex)
    _role_index: NameIndex = PrivateAttr(default_factory=NameIndex)
    _ability_index: NameIndex = PrivateAttr(default_factory=NameIndex)
    _team_index: NameIndex = PrivateAttr(default_factory=NameIndex)

    def __str__(self) -> str:
        size = f"{len(self.checks)} checks" if self.kind == "trpg" else f"{len(self.roles)} roles"
        return f"{self.name}: {self.title} ({size})"

    # ----- TRPG checks -------------------------------------------------------------

    @property
    def abilities(self) -> list[str]:
        """Ability / characteristic / attribute ids, in the pack's order."""
        return list(self.ability_defs)

    def try_resolve(self, text: str) -> str | None:
        """The id ``text`` names (a check id, ``lore:<topic>``, or a role id in social packs), else None."""
        if self.kind == "social":
            return self.try_resolve_role(text)
        text = str(text)
        hit = self._check_index.lookup(text)
        return hit if hit is not None else self._family_id(text)

    def resolve(self, text: str) -> str:
        """The id ``text`` names; raises ``UnknownName`` listing the closest ids otherwise."""
        if self.kind == "social":
            return self.resolve_role(text)
        hit = self.try_resolve(text)
        if hit is None:
            hint = ""
            if self.families:
                fams = ", ".join(f"{f}:<topic>" for f in self.families)
                hint = f"use a check id from `vgm rulesets show {self.name}` or {fams}"
            raise UnknownName(text, self.name, "check", self._check_index.closest(text), hint)
        return hit

    def check(self, ident: str) -> CheckDef:
        """The definition behind a check id, including open-family ids like ``lore:sailing``."""
        if ident in self.checks:
            return self.checks[ident]
        family, _, topic = ident.partition(":")
        if topic and family in self.families:
            fam = self.families[family]
            label = topic.replace("_", " ").title()
            return CheckDef(id=ident, name=f"{fam.name} ({label})", kind=fam.kind, ability=fam.ability,
                            description=fam.description)
        raise UnknownName(ident, self.name, "check id", self._check_index.closest(ident))

    def _family_id(self, text: str) -> str | None:
        tokens = loose_words(text, self._check_index.filler)
        if len(tokens) < 2:
            return None
        for fid, fam in self.families.items():
            keys = {raw_key(k) for k in (fid, fam.name, *fam.aliases, *fam.zh)}
            if tokens[0] in keys:
                return f"{fid}:{'_'.join(tokens[1:])}"
            if tokens[-1] in keys:
                return f"{fid}:{'_'.join(tokens[:-1])}"
        return None

    def try_resolve_ability(self, text: str) -> str | None:
        """The ability id ``text`` names ("WIS", "Wisdom", "感知" → "wisdom"), else None."""
        return self._ability_index.lookup(text)

    def resolve_ability(self, text: str) -> str:
        """The ability id ``text`` names; raises ``UnknownName`` listing the closest abilities."""
        hit = self._ability_index.lookup(text)
        if hit is None:
            raise UnknownName(text, self.name, self.ability_word, self._ability_index.closest(text))
        return hit

    def ability_name(self, ident: str | None) -> str:
        """Display name of an ability id ("" for None)."""
        if not ident:
            return ""
        d = self.ability_defs.get(ident)
        return d.name if d else ident

    def check_menu(self, kinds: tuple[str, ...] | None = None, zh: bool = False) -> str:
        """One line per check for prompts: ``perception (Wisdom) — Perception``.

        Args:
            kinds: keep only these check kinds (e.g. ``("skill",)``); all when None.
            zh: append the first Chinese name, for prompts over Chinese logs.
        """
        lines = []
        for c in self.checks.values():
            if kinds and c.kind not in kinds:
                continue
            gov = f" ({self.ability_name(c.ability)})" if c.ability and c.ability != c.id else ""
            extra = f" / {c.zh[0]}" if zh and c.zh else ""
            lines.append(f"{c.id}{gov} — {c.name}{extra}")
        for fid, fam in self.families.items():
            if kinds and fam.kind not in kinds:
                continue
            gov = f" ({self.ability_name(fam.ability)})" if fam.ability else ""
            lines.append(f"{fid}:<topic>{gov} — {fam.name} (one id per topic, e.g. {fid}:{fam.example})")
        return "\n".join(lines)

    # ----- social roles ------------------------------------------------------------

    def try_resolve_role(self, text: str) -> str | None:
        """The role id ``text`` names ("梅林" → "merlin"), else None."""
        return self._role_index.lookup(str(text))

    def resolve_role(self, text: str) -> str:
        """The role id ``text`` names; raises ``UnknownName`` listing the closest role ids."""
        hit = self._role_index.lookup(str(text))
        if hit is None:
            raise UnknownName(str(text), self.name, "role", self._role_index.closest(text))
        return hit

    def try_resolve_team(self, text: str) -> str | None:
        """The team id ``text`` names ("蓝方阵营" → "good", "Villagers" → "village"), else None."""
        return self._team_index.lookup(str(text))

    def resolve_team(self, text: str) -> str:
        """The team id ``text`` names; raises ``UnknownName`` listing the closest team ids."""
        hit = self._team_index.lookup(str(text))
        if hit is None:
            raise UnknownName(str(text), self.name, "team", self._team_index.closest(str(text)))
        return hit

    def team_of(self, role: str) -> str:
        """Team id of a role (accepts any alias)."""
        return self.roles[self.resolve_role(role)].team

    def setup(self, players: int) -> SetupDef:
        """The setup for a player count; a ``VgmError`` names the supported counts otherwise."""
        if players not in self.setups:
            counts = ", ".join(map(str, sorted(self.setups)))
            raise VgmError(f"{self.name} has no setup for {players} players; use one of {counts}")
        return self.setups[players]

    def lineup(self, players: int, extra: tuple[str, ...] | list[str] = ()) -> list[str]:
        """The default line-up for ``players``, with each ``extra`` role replacing a plain role of its team.

        ``rs.lineup(7, ["sheriff"])`` in mafia gives 2 mafia, doctor, sheriff, 3 villagers.
        """
        roles = list(self.setup(players).lineup)
        plain = self.rules.get("plain_roles", {})
        for name in extra:
            role = self.resolve_role(name)
            swap = plain.get(self.roles[role].team)
            if swap not in roles:
                raise VgmError(f"{self.name}: no plain {self.roles[role].team} role left to replace with {role} "
                               f"at {players} players; use fewer extra roles")
            roles[len(roles) - 1 - roles[::-1].index(swap)] = role
        return roles


def build(pack: PackFile, name: str, source: str) -> RuleSet:
    """Check a validated pack's cross-references and index its names; ``PackError`` on any fault."""
    f = source

    def fail(key: str, problem: str, fix: str) -> PackError:
        return PackError(f, key, problem, fix)

    if pack.name is not None and pack.name != name:
        raise fail("name", f"name {pack.name!r} differs from the file name {name!r}",
                   f"rename the file to {pack.name}.yaml or set `name: {name}`")
    abilities = {k: v.model_copy(update={"id": k}) for k, v in pack.abilities.items()}
    checks: dict[str, CheckDef] = {}
    for aid, a in abilities.items():
        if a.check:
            checks[aid] = CheckDef(id=aid, name=a.name, kind=pack.ability_word, ability=aid,
                                   aliases=[x for x in [a.abbr, *a.aliases] if x], zh=a.zh,
                                   description=a.description, examples=a.examples)
    for cid, c in pack.checks.items():
        if cid in checks:
            raise fail(f"checks.{cid}", f"id {cid!r} is already the plain {pack.ability_word} check of abilities.{cid}",
                       "drop it from checks or set `check: false` on the ability")
        if c.ability is not None and c.ability not in abilities:
            raise fail(f"checks.{cid}.ability", f"unknown {pack.ability_word} {c.ability!r}",
                       _declared(abilities, c.ability))
        checks[cid] = c.model_copy(update={"id": cid})
    for fid, fam in pack.families.items():
        if fam.ability is not None and fam.ability not in abilities:
            raise fail(f"families.{fid}.ability", f"unknown {pack.ability_word} {fam.ability!r}",
                       _declared(abilities, fam.ability))
    for concept, ids in pack.concepts.items():
        for cid in ids:
            if cid not in checks:
                raise fail(f"concepts.{concept}", f"unknown check {cid!r}",
                           f"use a check id the pack declares (`vgm rulesets show {name}`) or drop it")
    if pack.kind == "trpg" and not checks:
        raise fail("checks", "a trpg pack lists no checks", "add `checks:` with at least one entry")

    roles = {k: v.model_copy(update={"id": k}) for k, v in pack.roles.items()}
    setups = {n: s.model_copy(update={"players": n}) for n, s in pack.setups.items()}
    if pack.kind == "social":
        _check_social(pack, roles, setups, fail)

    filler = DEFAULT_FILLER | {w.casefold() for w in pack.filler}
    rs = RuleSet(name=name, title=pack.title, kind=pack.kind, description=pack.description,
                 aliases=pack.aliases, source=source, ability_word=pack.ability_word,
                 ability_defs=abilities, checks=checks, families=pack.families,
                 teams=pack.teams, team_aliases=pack.team_aliases,
                 roles=roles, setups=setups, rules=pack.rules, no_roll=pack.no_roll, impossible=pack.impossible,
                 concepts=pack.concepts)
    rs._check_index = NameIndex(filler)
    rs._role_index = NameIndex({"the", "a", "an", "role", "player", "of", "arthur"})
    for cid, c in checks.items():
        spellings = [cid, c.name, *c.aliases, *c.zh]
        gov = abilities.get(c.ability) if c.ability and c.ability != cid else None
        if gov is not None and c.kind not in ("save",):
            for ab in (gov.name, gov.abbr):
                if ab:
                    spellings += [f"{ab} ({c.name})", f"{c.name} ({ab})"]
        _index(rs._check_index, cid, spellings, f"checks.{cid}", fail)
    for aid, a in abilities.items():
        _index(rs._ability_index, aid, [aid, a.name, *([a.abbr] if a.abbr else []), *a.aliases, *a.zh],
               f"abilities.{aid}", fail)
    team_ids = list(pack.teams) or sorted({r.team for r in roles.values()})
    rs._team_index = NameIndex({"the", "a", "an", "team", "side", "camp", "阵营"})
    for tid in team_ids:
        _index(rs._team_index, tid, [tid, pack.teams.get(tid, tid), *pack.team_aliases.get(tid, [])],
               f"team_aliases.{tid}", fail)
    for tid in pack.team_aliases:
        if tid not in team_ids:
            raise fail(f"team_aliases.{tid}", f"unknown team {tid!r}", f"use one of: {', '.join(team_ids)}")
    for rid, r in roles.items():
        _index(rs._role_index, rid, [rid, r.name, *r.aliases, *r.zh], f"roles.{rid}", fail)
    return rs


def _declared(abilities: dict, wanted: str) -> str:
    if abilities:
        return f"use one of: {', '.join(abilities)}"
    return f"declare it under `abilities:` ({wanted}: {{name: ...}}) or drop the `ability:` line"


def _index(index: NameIndex, ident: str, spellings: list[str], key: str, fail) -> None:
    for alias in spellings:
        if not raw_key(alias):
            raise fail(f"{key}.aliases", f"alias {alias!r} has no letters or digits", "remove it")
        clash = index.add(ident, alias)
        if clash is not None:
            other_id, other_alias = clash
            raise fail(f"{key}.aliases", f"alias {alias!r} also names {other_id!r} (as {other_alias!r})",
                       f"keep the alias on one of {ident!r} / {other_id!r} only")


def _check_social(pack: PackFile, roles: dict[str, RoleDef], setups: dict[int, SetupDef], fail) -> None:
    if not roles:
        raise fail("roles", "a social pack lists no roles", "add `roles:` with at least one entry")
    known = ", ".join(roles)
    for rid, r in roles.items():
        if pack.teams and r.team not in pack.teams:
            raise fail(f"roles.{rid}.team", f"unknown team {r.team!r}", f"use one of: {', '.join(pack.teams)}")
        for seen in r.sees:
            if seen not in roles:
                raise fail(f"roles.{rid}.sees", f"unknown role {seen!r}", f"use one of: {known}")
    for team, plain in pack.rules.get("plain_roles", {}).items():
        if plain not in roles:
            raise fail(f"rules.plain_roles.{team}", f"unknown role {plain!r}", f"use one of: {known}")
    for key in ("assassin_role", "assassination_target", "mafia_role", "doctor_role", "sheriff_role"):
        value = pack.rules.get(key)
        if value is not None and value not in roles:
            raise fail(f"rules.{key}", f"unknown role {value!r}", f"use one of: {known}")
    teams = set(pack.teams) or {r.team for r in roles.values()}
    for key in ("good_team", "evil_team", "mafia_team", "village_team"):
        value = pack.rules.get(key)
        if value is not None and value not in teams:
            raise fail(f"rules.{key}", f"unknown team {value!r}", f"use one of: {', '.join(sorted(teams))}")
    missions = pack.rules.get("missions")
    for n, s in setups.items():
        key = f"setups.{n}"
        if n < 1:
            raise fail(key, f"player count {n} is not positive", "key setups by the number of players")
        for rid in [*s.lineup, *s.optional]:
            if rid not in roles:
                raise fail(f"{key}.lineup", f"unknown role {rid!r}", f"use one of: {known}")
        if len(s.lineup) != n:
            raise fail(f"{key}.lineup", f"{len(s.lineup)} roles for {n} players",
                       f"list exactly {n} role ids (one per seat)")
        if missions is not None and s.team_sizes and len(s.team_sizes) != missions:
            raise fail(f"{key}.team_sizes", f"{len(s.team_sizes)} team sizes for {missions} missions",
                       f"give one team size per mission ({missions})")
        if any(t < 1 or t > n for t in s.team_sizes):
            raise fail(f"{key}.team_sizes", f"a team size is outside 1..{n}", f"use sizes between 1 and {n}")
        if s.fails_required and len(s.fails_required) != len(s.team_sizes):
            raise fail(f"{key}.fails_required", f"{len(s.fails_required)} entries for {len(s.team_sizes)} missions",
                       "give one number of fail cards per mission")
        if any(not 1 <= x <= t for x, t in zip(s.fails_required, s.team_sizes)):
            raise fail(f"{key}.fails_required", "a mission needs more fail cards than it has members",
                       "use numbers between 1 and the mission's team size")
