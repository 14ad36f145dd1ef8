"""A user adds a rule set by dropping one YAML file in VGM_RULESETS_PATH; a broken one fails in one line."""
import os
import textwrap

import pytest

import rulesets
from rulesets import PackError, load

GOOD = """\
title: Tiny Heist
kind: trpg
aliases: [TH]
abilities:
  nerve: {name: Nerve, abbr: NRV}
checks:
  lockpicking: {name: Lockpicking, ability: nerve, aliases: [pick the lock], zh: [开锁]}
  bluff: {name: Bluff, ability: nerve}
"""

SOCIAL = """\
title: Tiny Werewolf
kind: social
teams: {village: Village, wolves: Wolves}
roles:
  wolf: {name: Werewolf, team: wolves, sees: [wolf], sees_as: teammate, zh: [狼人]}
  seer: {name: Seer, team: village}
  villager: {name: Villager, team: village}
setups:
  4: {lineup: [wolf, seer, villager, villager]}
"""


def write(folder, name, text):
    path = folder / f"{name}.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_dropped_file_loads_like_a_built_in(user_dir):
    write(user_dir, "heist", GOOD)
    assert "heist" in rulesets.available() and "dnd5e" in rulesets.available()
    rs = load("TH")
    assert rs.resolve("Nerve (Lockpicking)") == "lockpicking" and rs.resolve("开锁") == "lockpicking"
    assert rs.check_menu().splitlines()[1] == "lockpicking (Nerve) — Lockpicking"


def test_a_social_pack_loads_and_resolves_roles(user_dir):
    write(user_dir, "werewolf", SOCIAL)
    rs = load("werewolf")
    assert rs.resolve_role("狼人") == "wolf" and rs.setup(4).lineup.count("villager") == 2


def test_several_folders_separated_by_pathsep(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    write(a, "heist", GOOD)
    write(b, "werewolf", SOCIAL)
    monkeypatch.setenv("VGM_RULESETS_PATH", f"{a}{os.pathsep}{b}")
    assert {"heist", "werewolf"} <= set(rulesets.available())


def test_user_pack_replaces_a_built_in_of_the_same_name(user_dir):
    write(user_dir, "dnd5e", GOOD)
    assert load("dnd5e").title == "Tiny Heist"


def test_an_edited_pack_is_reloaded(user_dir):
    path = write(user_dir, "heist", GOOD)
    assert load("heist").title == "Tiny Heist"
    path.write_text(GOOD.replace("Tiny Heist", "Big Heist!"), encoding="utf-8")
    assert load("heist").title == "Big Heist!"


BAD = {
    "malformed YAML": ("title: [unclosed\nkind: trpg\n", "broken.yaml:2", "flow sequence that starts on line 1"),
    "missing key": ("kind: trpg\nchecks:\n  a: {name: A}\n", "key 'title'", "add `title:`"),
    "duplicate id": (GOOD + "  bluff: {name: Bluff again}\n", "key 'bluff'", "given twice"),
    "ambiguous alias": (GOOD.replace("ability: nerve}", "ability: nerve, aliases: [pick the lock]}"),
                        "key 'checks.bluff.aliases'", "also names 'lockpicking'"),
    "unknown ability": (GOOD.replace("{name: Bluff, ability: nerve}", "{name: Bluff, ability: guile}"),
                        "key 'checks.bluff.ability'", "use one of: nerve"),
    "misspelt key": (GOOD.replace("{name: Bluff, ability: nerve}", "{name: Bluff, abilty: nerve}"),
                     "key 'checks.bluff.abilty'", "unknown key"),
    "bad kind": (GOOD.replace("kind: trpg", "kind: boardgame"), "key 'kind'", "allowed values"),
    "yaml boolean": (GOOD.replace("aliases: [TH]", "aliases: [TH, on]"), "key 'aliases.1'", "quote it"),
    "lineup too short": (SOCIAL.replace("[wolf, seer, villager, villager]", "[wolf, seer, villager]"),
                         "key 'setups.4.lineup'", "3 roles for 4 players"),
    "unknown role in lineup": (SOCIAL.replace("[wolf, seer, villager, villager]", "[wolf, seer, villager, hunter]"),
                               "key 'setups.4.lineup'", "unknown role 'hunter'"),
    "unknown team": (SOCIAL.replace("{name: Seer, team: village}", "{name: Seer, team: town}"),
                     "key 'roles.seer.team'", "use one of: village, wolves"),
    "unknown role in rules": (SOCIAL + "rules: {mafia_role: werewolf}\n", "key 'rules.mafia_role'", "unknown role 'werewolf'"),
    "no checks": ("title: Empty\nkind: trpg\n", "key 'checks'", "add `checks:`"),
    "unknown check in a concept": (GOOD + "concepts: {locks: [lockpicking, lockpick]}\n", "key 'concepts.locks'",
                                   "unknown check 'lockpick'"),
    "not a mapping": ("- just\n- a list\n", "not a mapping", "title:"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_broken_pack_gives_one_line_with_file_key_and_fix(user_dir, case):
    text, where, what = BAD[case]
    (user_dir / "broken.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PackError) as info:
        load("broken")
    message = str(info.value)
    assert "\n" not in message
    assert "broken.yaml" in message and where in message and what in message
    assert "fix:" in message


def test_name_key_must_match_the_file(user_dir):
    write(user_dir, "heist", "name: caper\n" + GOOD)
    with pytest.raises(PackError, match="heist.yaml: key 'name'.*rename the file to caper.yaml"):
        load("heist")


def test_a_missing_folder_in_the_path_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_RULESETS_PATH", str(tmp_path / "nowhere"))
    with pytest.raises(PackError, match="nowhere.*does not exist"):
        rulesets.available()


def test_a_broken_user_pack_does_not_break_the_others(user_dir):
    (user_dir / "broken.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    assert load("DND").name == "dnd5e"
    rows = {r["name"]: r for r in rulesets._report.pack_summaries()}
    assert "malformed YAML" in rows["broken"]["error"] and not rows["dnd5e"]["error"]


def test_a_pack_file_loads_by_its_path(tmp_path):
    path = write(tmp_path, "heist", GOOD)
    assert load(str(path)).name == "heist" and load(path).resolve("bluff") == "bluff"
    with pytest.raises(PackError, match="no such pack file"):
        load(tmp_path / "nope.yaml")
