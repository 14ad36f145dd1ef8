"""The World the GM answers from: lookups a player's wording reaches, changes that stick, a JSON round trip."""
import pytest

from gm.world import Fact, Knowledge, Npc, Place, Thing, World, world_problem


@pytest.fixture
def world():
    return World(
        era="1890s", here="the mill",
        places=[Place(name="the mill"), Place(name="Elm Street")],
        things=[Thing(name="brass key", aliases=["key"], where="Widow Ash"), Thing(name="cellar door", where="the mill", states=["locked", "fixed"])],
        npcs=[Npc(name="Widow Ash", aliases=["the widow"], knows=[Knowledge(topic="the key", answer="she wears it on a string")]),
              Npc(name="Sheriff Dorn Price", present=False), Npc(name="Tom Ash", alive=False)],
        facts=[Fact(text="The mill wheel is still.", public=True), Fact(text="The widow poisoned the miller.", public=False)],
    )


def test_an_npc_is_found_by_name_alias_or_a_word_of_the_name_in_any_case(world):
    assert world.npc("widow ash").name == "Widow Ash"
    assert world.npc("The Widow").name == "Widow Ash"
    assert world.npc("Dorn").name == world.npc("the sheriff").name == "Sheriff Dorn Price"
    assert world.npc("Ash") is None  # two NPCs share it: the GM asks which one rather than guess
    assert world.npc("nobody") is None


def test_things_know_their_holder_and_places_are_not_holders(world):
    assert world.holder_of("the key") == "Widow Ash"
    assert world.holder_of("cellar door") is None
    world.give("key", "Brisa")
    assert world.holder_of("brass key") == "Brisa"
    assert world.give("lantern", "Brisa").name == "lantern" and world.holder_of("lantern") == "Brisa"


def test_opening_a_locked_thing_ends_locked_and_closed(world):
    assert world.set_state("cellar door", "open").states == ["fixed", "open"]
    assert world.set_state("cellar door", "open", on=False).states == ["fixed"]


def test_a_fact_is_stored_once_and_gm_only_facts_stay_out_of_public_facts(world):
    first = world.add_fact("The bridge is out.", ["bridge"], "decided", turn=3)
    again = world.add_fact("the bridge is  out.", source="decided")
    assert again is first and first.turn == 3
    assert [f.text for f in world.public_facts()] == ["The mill wheel is still.", "The bridge is out."]


def test_only_the_living_and_present_can_be_talked_to(world):
    assert [n.name for n in world.npcs_present()] == ["Widow Ash"]


def test_json_round_trip_keeps_everything(world):
    world.add_fact("Brisa has the brass key", ["Brisa"], "outcome", 4)
    assert World.model_validate_json(world.model_dump_json()) == world


@pytest.mark.parametrize("data, line", [
    ({"npcs": [{"name": "Bo", "knows": [{"topic": "the door"}]}]}, "world.npcs[0] (Bo).knows[0] (the door): key 'answer': Field required"),
    ({"npcs": [{"role": "a guard"}]}, "world.npcs[0]: key 'name': Field required"),
    ({"places": [{"name": "hall", "exit": []}]}, "world.places[0] (hall): key 'exit': unknown key"),
    ({"weather": "rain"}, "world: key 'weather': unknown key"),
])
def test_a_bad_world_is_one_line_naming_the_item_and_the_key(data, line):
    assert world_problem(data) == line


def test_a_good_world_has_no_problem():
    assert world_problem({}) is None and world_problem({"era": "1925"}) is None
