"""Every built-in pack loads, carries the ids the rest of the project uses, and resolves its own names."""
import pytest

import rulesets
from rulesets import CheckDef, RoleDef, RuleSet, SetupDef, UnknownName, load

BUILTIN = ["avalon", "coc7e", "dnd5e", "mafia", "pf2e", "swade"]


def test_all_six_packs_are_available_and_load():
    assert set(BUILTIN) <= set(rulesets.available())
    for name in BUILTIN:
        rs = load(name)
        assert isinstance(rs, RuleSet) and rs.name == name and rs.title
        assert rs.kind == ("social" if name in ("avalon", "mafia") else "trpg")


@pytest.mark.parametrize("alias, name", [
    ("D&D 5e", "dnd5e"), ("DND", "dnd5e"), ("COC", "coc7e"), ("Call of Cthulhu", "coc7e"),
    ("PF2", "pf2e"), ("Pathfinder 2e", "pf2e"), ("SW", "swade"), ("Savage Worlds", "swade"),
    ("AVALON", "avalon"), ("阿瓦隆", "avalon"), ("mafia", "mafia"),
])
def test_packs_load_by_the_names_people_use(alias, name):
    assert load(alias).name == name


def test_load_is_cached():
    assert load("dnd5e") is load("D&D 5e")


def test_unknown_pack_names_the_available_ones():
    with pytest.raises(UnknownName, match="closest: dnd5e"):
        load("dnd6e")


def test_dnd5e_has_the_design_ids():
    rs = load("dnd5e")
    assert rs.abilities == ["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"]
    skills = {c.id: c.ability for c in rs.checks.values() if c.kind == "skill"}
    assert len(skills) == 18
    assert skills["animal_handling"] == "wisdom" and skills["sleight_of_hand"] == "dexterity"
    assert skills["athletics"] == "strength" and skills["investigation"] == "intelligence"
    for ability in rs.abilities:
        assert rs.checks[ability].kind == "ability"
        assert rs.checks[f"{ability}_save"].kind == "save"
    assert {"initiative", "death_save"} <= set(rs.checks)
    assert isinstance(rs.checks["perception"], CheckDef)


@pytest.mark.parametrize("text, expected", [
    ("Wisdom (Perception)", "perception"), ("perception check", "perception"), ("per", "perception"),
    ("Dex save", "dexterity_save"), ("dexterity saving throw", "dexterity_save"),
    ("Sleight of Hand", "sleight_of_hand"), ("str check", "strength"), ("con save", "constitution_save"),
    ("athletics check", "athletics"), ("make a perception check", "perception"),
    ("roll a dexterity saving throw", "dexterity_save"), ("give me an athletics check", "athletics"),
    ("investigation check", "investigation"), ("insight", "insight"), ("wisdom saving throw", "wisdom_save"),
    ("constitution save", "constitution_save"), ("strength check", "strength"),
    ("Make a DC 15 Wisdom saving throw.", "wisdom_save"), ("roll initiative", "initiative"),
    ("death saving throw", "death_save"), ("Dexterity (Stealth)", "stealth"),
    ("make a perception check with advantage", "perception"), ("Thieves' Tools check", "tool:thieves"),
])
def test_dnd5e_resolves_what_a_dm_says(text, expected):
    assert load("dnd5e").resolve(text) == expected


def test_dex_save_is_not_a_dexterity_check():
    rs = load("dnd5e")
    assert rs.resolve("Dex save") != rs.resolve("Dex check") == "dexterity"


def test_coc7e_has_sixty_plus_checks_with_bases_and_chinese_names():
    rs = load("coc7e")
    assert len(rs.checks) >= 60
    assert [rs.checks[a].aliases[0] for a in rs.abilities] == ["STR", "CON", "SIZ", "DEX", "APP", "INT", "POW", "EDU"]
    assert rs.checks["spot_hidden"].base == 25 and rs.checks["library_use"].base == 20
    assert rs.checks["dodge"].base_formula == "DEX/2"
    skills = [c for c in rs.checks.values() if c.kind == "skill"]
    assert all(c.zh for c in rs.checks.values())
    assert all(c.base is not None or c.base_formula for c in skills)


@pytest.mark.parametrize("text, expected", [
    ("侦查", "spot_hidden"), ("聆听", "listen"), ("图书馆使用", "library_use"), ("心理学", "psychology"),
    ("话术", "fast_talk"), ("说服", "persuade"), ("潜行", "stealth"), ("闪避", "dodge"), ("斗殴", "fighting_brawl"),
    ("理智", "sanity"), ("幸运", "luck"), ("力量", "strength"), ("体质", "constitution"), ("体型", "size"),
    ("敏捷", "dexterity"), ("外貌", "appearance"), ("智力", "intelligence"), ("灵感", "idea"), ("意志", "power"),
    ("教育", "education"), ("SAN", "sanity"), ("Sanity roll (1/1d6)", "sanity"), ("Fighting (Brawl)", "fighting_brawl"),
    (".ra侦查60", "spot_hidden"), ("困难聆听", "listen"), ("侦查检定", "spot_hidden"), ("Hard Spot Hidden roll", "spot_hidden"),
    ("Idea roll", "idea"), ("Know", "know"), ("Luck roll", "luck"),
])
def test_coc7e_resolves_english_chinese_and_dice_bot_names(text, expected):
    assert load("coc7e").resolve(text) == expected


def test_pf2e_skills_saves_and_lore_family():
    rs = load("pf2e")
    skills = [c for c in rs.checks.values() if c.kind == "skill"]
    assert len(skills) == 16
    assert rs.checks["thievery"].ability == "dexterity" and rs.checks["society"].ability == "intelligence"
    assert {"perception", "fortitude", "reflex", "will"} <= set(rs.checks)
    assert rs.resolve("Lore (Sailing)") == rs.resolve("Sailing Lore") == rs.resolve("lore:sailing") == "lore:sailing"
    assert rs.resolve("Underworld Lore check") == "lore:underworld"
    assert rs.check("lore:sailing").name == "Lore (Sailing)" and rs.check("lore:sailing").ability == "intelligence"
    assert rs.resolve("Fort save") == "fortitude" and rs.resolve("Reflex saving throw") == "reflex"
    with pytest.raises(UnknownName, match="lore:<topic>"):
        rs.resolve("Lore")


def test_swade_attributes_and_core_skills():
    rs = load("swade")
    assert rs.abilities == ["agility", "smarts", "spirit", "strength", "vigor"]
    core = {c.id for c in rs.checks.values() if c.core}
    assert core == {"athletics", "common_knowledge", "notice", "persuasion", "stealth"}
    assert rs.checks["notice"].ability == "smarts" and rs.checks["fighting"].ability == "agility"
    assert rs.resolve("Vigor roll") == "vigor" and rs.resolve("Notice") == "notice"


def test_every_declared_name_resolves_to_its_own_id():
    for name in BUILTIN:
        rs = load(name)
        table = rs.roles if rs.kind == "social" else rs.checks
        for ident, d in table.items():
            for spelling in [ident, d.name, *d.aliases, *d.zh]:
                assert rs.resolve(spelling) == ident, (name, spelling)


def test_check_menu_lists_every_check_with_its_ability():
    rs = load("dnd5e")
    menu = rs.check_menu().splitlines()
    assert "perception (Wisdom) — Perception" in menu
    assert len(menu) == len(rs.checks) + len(rs.families)
    assert "lore:<topic> (Intelligence)" in load("pf2e").check_menu()
    assert "spot_hidden — Spot Hidden / 侦查" in load("coc7e").check_menu(zh=True)


def test_public_names_are_importable():
    from rulesets import PackError, VgmError  # noqa: F401

    assert issubclass(UnknownName, VgmError) and issubclass(PackError, VgmError)
    assert RoleDef and SetupDef


def test_abilities_resolve_by_abbreviation_name_and_chinese():
    assert load("dnd5e").resolve_ability("WIS") == "wisdom"
    assert load("coc7e").resolve_ability("意志") == "power"
    assert load("swade").resolve_ability("Vigour") == "vigor"
    with pytest.raises(UnknownName, match="closest: wisdom"):
        load("dnd5e").resolve_ability("wisdon")
