"""``read_world_with_model``: what a model reads is merged after the written world and the prose, never over them."""
import json

from gm.table import load_scenario
from gm.world import read_world, read_world_with_model
from pipelines.llm import ScriptedModel


async def test_a_model_fills_gaps_but_does_not_overwrite_the_written_world():
    scenario = load_scenario("lantern_house")
    reply = {"era": "1890", "npcs": [{"name": "Ruth Quist", "role": "a sailor"}, {"name": "Constable Frye", "role": "the town constable"}],
             "things": [{"name": "stove", "where": "the keeper's cottage"}]}
    model = ScriptedModel([json.dumps(reply)])
    world = await read_world_with_model(scenario, model)
    assert world.era == "October 1925" and world.npc("Ruth").role == "the keeper's grown daughter"
    assert world.npc("Constable Frye").role == "the town constable" and world.thing("stove") is not None
    assert "Abner" in model.requests[0]["messages"][-1]["content"]
    assert all(s.text[:30] not in json.dumps(model.requests) for s in scenario.secrets)


async def test_an_unreadable_answer_leaves_the_deterministic_world():
    scenario = load_scenario("copper_flats")
    world = await read_world_with_model(scenario, ScriptedModel(["no json here"], repeat_last=True))
    assert world == read_world(scenario)
