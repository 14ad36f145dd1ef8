"""A value the world lacks (a height, a count, an age, a name) is decided once, said plainly, and kept:
asking again gets the same answer, and nothing hidden is decided over."""
from __future__ import annotations

import asyncio

import pytest

from gm.agent import GameMaster
from gm.decided import asks_to_decide, decide_fact
from gm.world import Npc, World
from pipelines.llm import ScriptedModel
from pipelines.numbers import number_value


def decide(question: str, world: World, model=None, **kw):
    model = model or ScriptedModel(by_step={"decide_fact": ['{"number": 40, "unit": "feet"}']}, repeat_last=True)
    return asyncio.run(decide_fact(model, question, world, **kw))


@pytest.mark.parametrize("question, kind", [("how tall is the lighthouse?", "span"), ("How old is the sheriff?", "age"),
                                            ("How many men are sitting at Vane's table?", "count"), ("how many guards are there?", "count"),
                                            ("What's the name of the bartender?", "name"), ("what's the blacksmith's name?", "name"),
                                            ("Where is the sheriff?", None), ("How did he die?", None)])
def test_only_a_measure_a_count_an_age_or_a_name_is_decided(question, kind):
    assert asks_to_decide(question) == kind


def test_a_height_of_a_thing_of_no_known_kind_is_the_models_value_in_a_sentence_built_from_the_question_and_is_stored():
    world = World(era="1925")
    answer = decide("how tall is the reliquary?", world)
    assert answer.content == "The reliquary is about 40 feet tall." and world.facts[-1].text == answer.content


@pytest.mark.parametrize("question, low, high", [("how tall is the lighthouse?", 45, 110), ("how tall is the old watchtower?", 35, 90),
                                                 ("how deep is the well?", 25, 60), ("how wide is the bridge?", 8, 20),
                                                 ("how tall is the keeper?", 5, 6.3), ("how deep is the water?", 2, 6)])
def test_a_size_of_a_known_kind_of_thing_is_as_big_as_such_things_are_whatever_the_model_says(question, low, high):
    # the small model gave a lighthouse "four feet" and "ten feet"; a keeper is someone, of a person's height
    world = World(npcs=[Npc(name="Abner Quist", role="the lighthouse keeper")])
    said = decide(question, world, ScriptedModel(by_step={"decide_fact": ['{"number": 4, "unit": "feet"}']}, repeat_last=True)).content
    assert "feet" in said and low <= number_value(said.split("about ")[1].split()[0]) <= high


def test_an_age_of_a_known_kind_is_as_old_as_such_things_are_and_a_far_landmark_is_told_in_yards_or_miles():
    world = World()
    assert 30 <= number_value(decide("how old is the lighthouse?", world).content.split()[-3]) <= 120  # not a grown man's 22 to 68
    assert 3 <= number_value(decide("how old is the saloon?", world).content.split()[-3]) <= 20
    far = decide("how far is the town?", world).content
    assert far.endswith("miles away.") and far.startswith("The town is about ")


def test_a_secret_that_names_a_thing_keeps_back_its_size_only_when_it_states_one():
    prints = ["Wet footprints lead from the cellar hatch to the lighthouse door, bare, long-toed, and not quite human."]
    assert decide("how tall is the lighthouse?", World(), hidden=prints) is not None  # "long-toed" states no length
    assert decide("how tall is the lighthouse?", World(), hidden=["The lighthouse is 80 feet tall, and hollow."]) is None


def test_a_model_reply_that_is_no_value_decides_nothing():
    model = ScriptedModel(by_step={"decide_fact": ["The lighthouse is very tall and the keeper is 18 feet tall."]}, repeat_last=True)
    world = World()
    assert decide("how tall is the reliquary?", world, model) is None and not world.facts


def test_a_count_age_or_name_is_the_same_for_the_same_question_and_fits_the_setting():
    frontier, fantasy = World(era="1879, the Arizona Territory", npcs=[Npc(name="Silas Vane")]), World()
    assert decide("How many men are sitting at Vane's table?", frontier).content == decide("How many men are sitting at Vane's table?", World()).content
    assert decide("how many men are sitting at the bar?", frontier).content.split()[0] in {"Two", "Three", "Four", "Five", "Six"}
    assert 22 <= number_value(decide("How old is the sheriff?", frontier, ruleset="swade").content.split()[-3]) <= 68
    named = decide("What's the name of the bartender?", frontier).content
    assert named.startswith("The bartender is ") and "Silas" not in named and "Vane" not in named
    assert decide("What's the name of the bartender?", fantasy, ruleset="dnd5e").content != named  # another setting's names


def test_what_a_hidden_text_holds_is_found_not_decided():
    assert decide("how many tunnels are there?", World(), hidden=["A tunnel runs from the cellar to the vault."]) is None


def test_in_play_the_decided_answer_is_the_reply_and_asking_again_gets_the_same(tmp_path):
    model = ScriptedModel(by_step={"decide_fact": ['{"number": 12, "unit": "feet"}'], "narrate": ["Dutch looks around."]}, repeat_last=True)
    gm = GameMaster(None, "copper_flats", model, characters=["Dutch"], memory=False, seed=3, session_path=tmp_path / "s.json")
    first = gm.step("", "How many men are sitting at Vane's table?")
    assert not first.rolls and "men are sitting at Vane's table" in first.narration
    gm.save()
    again = GameMaster.resume(tmp_path / "s.json", model, memory=False).step("", "How many men are at Vane's table again?")
    assert first.narration.split()[0] in again.narration


def test_a_crowd_asked_after_in_a_packed_room_is_a_crowd_and_other_counts_stay_few():
    packed = "The Silver Spur saloon is packed the night before the payroll arrives."
    crowd = decide("how many people in here, roughly?", World(), scene=packed).content
    assert crowd.startswith("There are ") and crowd.endswith(" people in here.") and number_value(crowd.split()[2]) >= 18
    assert number_value(decide("how many people are in here?", World(), scene=packed).content.split()[0]) >= 18  # asked with its verb
    assert number_value(decide("how many guards on the wall?", World(), scene=packed).content.split()[2]) <= 6


def test_in_play_each_part_of_a_two_question_line_the_world_lacks_is_decided_and_the_rest_told():
    model = ScriptedModel(by_step={"decide_fact": ['{"number": 10, "unit": "feet"}'], "narrate": ["Keth looks."]}, repeat_last=True)
    gm = GameMaster(None, "broken_bridge", model, characters=["Keth"], memory=False, seed=3)
    reply = gm.step("", "I stop well back from the gate. how wide is the bridge, and how many goblins can I actually see?")
    assert "feet wide" in reply.narration and "goblins" in reply.narration.lower()
    assert "answered without the model (fact)" in reply.notes  # several answers are said as they stand, not reworded


def test_a_decided_size_is_a_round_figure_and_it_in_a_second_question_is_what_the_first_asked_of():
    from gm.answer import answers_to_parts
    from gm.intent import read_intent
    model = ScriptedModel(by_step={"decide_fact": ['{"number": 10.25, "unit": "feet"}']}, repeat_last=True)
    assert decide("how tall is the reliquary?", World(), model).content == "The reliquary is about ten feet tall."
    parts = answers_to_parts(read_intent("How far is the lighthouse from the cottage, and how tall is it?"), World())
    assert [q for q, _ in parts] == ["How far is the lighthouse from the cottage?", "how tall is the lighthouse?"]


def test_what_a_thing_is_made_of_is_what_such_things_are_made_of_or_the_models_pick_of_plain_stuff():
    world = World()
    gate = decide("what's the gate made of?", world).content
    assert gate.startswith("The gate is made of ") and any(w in gate for w in ("oak", "timber"))
    picked = ScriptedModel(by_step={"decide_fact": ['{"material": "bronze"}']}, repeat_last=True)
    assert decide("what is the gizmo made of?", world, picked).content == "The gizmo is made of bronze."
    dreamt = ScriptedModel(by_step={"decide_fact": ['{"material": "dragon glass and starlight"}']}, repeat_last=True)
    assert decide("what is the gizmo made of?", World(), dreamt) is None  # only plain stuff may be picked
    assert decide("what's the idol made of?", World(), hidden=["The idol is carved from a meteorite."]) is None


def test_in_play_a_line_part_answered_is_said_as_it_stands_and_only_the_rest_goes_to_the_model():
    model = ScriptedModel(by_step={"narrate": ["Nobody remembers who heard it first."]}, repeat_last=True)
    gm = GameMaster(None, "drowned_chapel", model, characters=["Ilya"], memory=False, seed=3)
    reply = gm.step("", "how many pews are floating around in here? and whats the name of the fisherman's wife")
    assert reply.narration.split()[1:5] == ["pews", "are", "floating", "around"] and "answered without the model (fact)" in reply.notes
    narrated = [r for r in model.requests if r.get("step") == "narrate"]
    asked = narrated[-1]["messages"][-1]["content"]
    assert "name of the fisherman's wife" in asked and "how many pews" not in asked


def test_a_distance_between_two_named_things_is_decided_of_them_and_a_trailing_roughly_still_asks():
    assert decide("how far is it from the door to the altar?", World()).content.endswith(" feet from the door.")
    assert decide("how far is the mill from the town?", World()).content.startswith("The mill is about ")
    assert "feet tall" in decide("how tall is the tower, roughly", World()).content
