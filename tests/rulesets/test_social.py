"""Avalon and Mafia packs: roles, who sees whom, setups per player count, table rules."""
import pytest

from rulesets import UnknownName, VgmError, load


@pytest.mark.parametrize("text, role", [
    ("梅林", "merlin"), ("派西维尔", "percival"), ("忠臣", "loyal_servant"), ("亚瑟的忠臣", "loyal_servant"),
    ("莫甘娜", "morgana"), ("刀客", "assassin"), ("刺客", "assassin"), ("奥伯伦", "oberon"), ("莫德雷德", "mordred"),
    ("爪牙", "minion"), ("LOYAL FOLLOWER", "loyal_servant"), ("EVIL MINION", "minion"), ("Loyal Servant of Arthur", "loyal_servant"),
])
def test_avalon_role_names_from_inmind_and_avalonlogs(text, role):
    assert load("avalon").resolve_role(text) == role


def test_avalon_night_knowledge_follows_the_rules():
    roles = load("avalon").roles
    assert set(roles["merlin"].sees) == {"morgana", "assassin", "oberon", "minion"}  # not Mordred
    assert set(roles["percival"].sees) == {"merlin", "morgana"}
    assert roles["percival"].sees_as == "merlin_or_morgana"
    assert roles["oberon"].sees == [] and roles["loyal_servant"].sees == []
    assert all("oberon" not in roles[r].sees for r in ("morgana", "assassin", "mordred", "minion"))
    assert {r.team for r in roles.values()} == {"good", "evil"}


def test_avalon_setups_for_five_to_ten_players():
    rs = load("avalon")
    assert sorted(rs.setups) == list(range(5, 11))
    evil = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
    for n, setup in rs.setups.items():
        assert len(setup.lineup) == n
        assert sum(rs.roles[r].team == "evil" for r in setup.lineup) == evil[n]
        assert len(setup.team_sizes) == 5
        assert setup.fails_required[3] == (2 if n >= 7 else 1)
    assert rs.setups[6].team_sizes == [2, 3, 4, 3, 4]
    assert sorted(rs.setups[6].lineup) == sorted(["merlin", "percival", "loyal_servant", "loyal_servant", "morgana", "assassin"])
    assert rs.rules["max_rejections"] == 5 and rs.rules["missions_to_win"] == 3
    assert rs.rules["early_assassination"] is True


def test_mafia_roles_lineups_and_rules():
    rs = load("mafia")
    assert rs.resolve_role("Detective") == "sheriff" and rs.resolve_role("Villagers") == "villager"
    seven = rs.setup(7).lineup
    assert sorted(seven) == sorted(["mafia", "mafia", "doctor"] + ["villager"] * 4)
    assert rs.lineup(7, ["Sheriff"]).count("villager") == 3
    assert rs.team_of("Doctor") == "village" and rs.team_of("mafioso") == "mafia"
    assert rs.rules["first_phase"] == "night" and rs.rules["vote_tie"] == "no_elimination"
    for n, s in rs.setups.items():
        mafia = s.lineup.count("mafia")
        assert 0 < mafia < n - mafia


def test_unsupported_player_count_names_the_supported_ones():
    with pytest.raises(VgmError, match="5, 6, 7, 8, 9, 10"):
        load("avalon").setup(4)


def test_unknown_role_lists_closest():
    with pytest.raises(UnknownName, match="closest: merlin"):
        load("avalon").resolve_role("Merlyn")


def test_team_names_from_the_data_resolve():
    avalon, mafia = load("avalon"), load("mafia")
    assert avalon.resolve_team("蓝方阵营") == "good" and avalon.resolve_team("红方") == "evil"
    assert mafia.resolve_team("Villagers") == "village" and mafia.resolve_team("Mafia") == "mafia"
    with pytest.raises(UnknownName, match="closest: good"):
        avalon.resolve_team("goodies")
