"""The shipped scenarios' worlds, and bad world: sections as one line naming file, item and key."""
import pytest

import rulesets
from gm.table import ScenarioError, list_scenarios, load_scenario
from gm.world import not_understood, read_world
from gm.world.report import leaks

IDS = [s.id for s in list_scenarios()]


@pytest.mark.parametrize("sid", IDS)
def test_a_shipped_world_is_complete_and_its_checks_resolve(sid):
    raw = load_scenario(sid)
    scenario = load_scenario(sid, rulesets.load(raw.ruleset))
    world = read_world(scenario)
    assert not_understood(world, scenario) == []
    written = {n["name"] for n in scenario.world["npcs"]}
    assert {n.name for n in raw.npcs} <= written
    for npc in world.npcs:
        if npc.name in written:
            assert 3 <= len(npc.knows) <= 6 and npc.voice and npc.role, npc.name


@pytest.mark.parametrize("sid", IDS)
def test_no_free_answer_tells_a_secret_or_a_hidden_npc_secret(sid):
    scenario = load_scenario(sid)
    world = read_world(scenario)
    assert leaks(world, scenario) == []
    free = " ".join(k.answer for n in world.npcs for k in n.knows if k.free).lower()
    for secret in scenario.secrets:
        assert secret.text.lower()[:40] not in free


def test_a_free_answer_carrying_a_secret_is_warned():
    scenario = load_scenario("lantern_house")
    scenario.world["npcs"][0]["knows"].append(
        {"topic": "the logbook", "answer": "the logbook's last pages record the same phrase each night, it answers the lamp, and tide times circled in red"})
    assert any("'logbook'" in w for w in not_understood(read_world(scenario), scenario))


def _write(tmp_path, world: str) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text("id: bad\nruleset: dnd5e\ntitle: Bad\nscene: A hall.\nopening: Hello.\nworld:\n" + world)
    return str(path)


@pytest.mark.parametrize("world, says", [
    ("  npcs:\n    - name: Bo\n      knows:\n        - topic: the door\n", "world.npcs[0] (Bo).knows[0] (the door): key 'answer': Field required"),
    ("  npcs:\n    - role: guard\n", "world.npcs[0]: key 'name': Field required"),
    ("  places:\n    - name: hall\n      exits:\n        - {to: yard, door: oak}\n", "world.places[0] (hall).exits[0] (yard): key 'door': unknown key"),
])
def test_a_bad_world_is_one_line_naming_file_item_and_key(tmp_path, world, says):
    path = _write(tmp_path, world)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(f"{path}: {says}") and "\n" not in str(caught.value)


def test_an_unknown_check_in_what_an_npc_knows_is_named(tmp_path):
    path = _write(tmp_path, "  npcs:\n    - name: Bo\n      knows:\n        - {topic: the door, answer: oak, checks: [Lockpicking Mastery]}\n")
    with pytest.raises(ScenarioError, match=r"world.npcs\[0\] \(Bo\).knows\[0\] \(the door\): key 'checks'"):
        load_scenario(path, rulesets.load("dnd5e"))
