"""Stat blocks and encounters as data: the shipped ones load; a bad one is one line naming the file and the key."""
from pathlib import Path

import pytest

from gm.combat import CombatError, list_encounters, load_encounter, load_monster_file, load_monsters, monster
from gm.combat._data import MONSTERS
from rulesets import FileProblem

from .conftest import pack

GOOD = """ruleset: dnd5e
monsters:
  rat:
    name: Giant Rat
    ac: 12
    hp: 7
    abilities: {STR: 7, DEX: 15, CON: 11, INT: 2, WIS: 10, CHA: 4}
    attacks:
      - {name: Bite, bonus: 4, damage: 1d4+2}
"""


@pytest.mark.parametrize("ruleset", ["dnd5e", "pf2e", "coc7e", "swade"])
def test_every_pack_ships_monsters_that_build(ruleset):
    blocks = load_monsters(ruleset)
    assert len(blocks) >= 4
    for mid in blocks:
        foe = monster(ruleset, mid)
        assert foe.attacks and foe.side == "foes" and not foe.is_player


def test_srd_monsters_and_attribution():
    assert set(load_monsters("dnd5e")) == {"goblin", "wolf", "skeleton", "bandit", "ogre"}
    notice = (MONSTERS / "NOTICE").read_text(encoding="utf-8")
    assert "System Reference Document 5.1" in notice and "Creative Commons Attribution 4.0" in notice


def test_encounters_load_and_the_ambush_has_two_goblins():
    ids = {e.id: e for e in list_encounters()}
    assert {"ambush", "toll_fight", "lighthouse_horror", "payroll_raid"} <= set(ids)
    assert sum(f.count for f in ids["ambush"].foes) == 2 and ids["ambush"].ruleset == "dnd5e"


def _write(tmp_path: Path, text: str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path




@pytest.mark.parametrize("change,key,line", [
    (("ac: 12", "ac: twelve"), "monsters.rat.ac", 5),
    (("hp: 7", "hp: 7\n    armour: 3"), "monsters.rat.armour", 7),
    (("    attacks:\n      - {name: Bite, bonus: 4, damage: 1d4+2}\n", ""), "monsters.rat.attacks", None),
    (("damage: 1d4+2", "damage: a nasty bite"), "monsters.rat.attacks.0.damage", 9),
    (("{STR: 7,", "{STRENGTH: 7, LCK: 3,"), "monsters.rat.abilities.LCK", 7),
])
def test_a_bad_stat_block_is_one_line_naming_file_and_key(tmp_path, change, key, line):
    path = _write(tmp_path, GOOD.replace(*change))
    with pytest.raises(FileProblem) as err:
        load_monster_file(path, pack("dnd5e"))
    text = str(err.value)
    assert "\n" not in text and str(path) in text and f"key '{key}'" in text
    if line:
        assert f"{path}:{line}" in text


def test_an_unknown_skill_names_the_closest(tmp_path):
    path = _write(tmp_path, GOOD.replace("hp: 7", "hp: 7\n    skills: {Stelth: 4}"))
    with pytest.raises(FileProblem, match=r"key 'monsters.rat.skills.Stelth'.*stealth"):
        load_monster_file(path, pack("dnd5e"))


def test_good_user_file_and_wrong_pack(tmp_path):
    blocks = load_monster_file(_write(tmp_path, GOOD), pack("dnd5e"))
    assert blocks["rat"].abilities["dexterity"] == 15
    with pytest.raises(FileProblem, match="is for 'dnd5e'"):
        load_monster_file(_write(tmp_path, GOOD, "x.yaml"), pack("pf2e"))


def test_a_bad_swade_die_and_a_bad_sanity_loss(tmp_path):
    swade = "ruleset: swade\nmonsters:\n  x:\n    name: X\n    attributes: {Agility: d7}\n    attacks: [{name: Hit, damage: str}]\n"
    with pytest.raises(FileProblem, match=r"key 'monsters.x.attributes.agility'"):
        load_monster_file(_write(tmp_path, swade), pack("swade"))
    coc = "ruleset: coc7e\nmonsters:\n  x:\n    name: X\n    characteristics: {STR: 50}\n    sanity_loss: lots\n    attacks: [{name: Hit, damage: 1d3+db}]\n"
    with pytest.raises(FileProblem, match=r"key 'monsters.x.sanity_loss'.*0/1d6"):
        load_monster_file(_write(tmp_path, coc, "c.yaml"), pack("coc7e"))


def test_a_bad_encounter_names_the_monster_key(tmp_path):
    path = _write(tmp_path, "ruleset: dnd5e\nfoes:\n  - {monster: gobbo, count: 2}\n", "enc.yaml")
    with pytest.raises(FileProblem, match=r"enc.yaml:3: key 'foes.0.monster'.*goblin"):
        load_encounter(path)
    with pytest.raises(CombatError, match="not found"):
        load_encounter("no_such_fight")


def test_unknown_monster_is_one_line():
    with pytest.raises(CombatError, match="closest: goblin") as err:
        monster("dnd5e", "gobin")
    assert "\n" not in str(err.value)
