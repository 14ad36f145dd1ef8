"""What a scene says became of a thing (``pipelines.decide.scene_state``), and a line acting on that very thing (``impossible.acts_on_gone``)."""
from __future__ import annotations

import pytest

from pipelines.decide.impossible import acts_on_gone, impossible_in_scene
from pipelines.decide.scene_facts import is_question
from pipelines.decide.scene_state import gone_things


@pytest.mark.parametrize("scene,thing,said", [
    ("The rope bridge across the gorge snapped an hour ago.", "bridge", "the bridge snapped"),
    ("Both of her lifeboats were smashed to kindling.", "lifeboats", "the lifeboats were smashed"),
    ("The cell has no window.", "window", "there is no window"),
    ("There is no boat here.", "boat", "there is no boat"),
    ("The courier lies dead in the mud.", "courier", "the courier lies dead"),
    ("His lute was stolen in the night.", "lute", "the lute was stolen"),
])
def test_plain_statements_about_a_thing_are_facts(scene, thing, said):
    assert gone_things(scene)[thing] == said


@pytest.mark.parametrize("scene", [
    "There's no boats at the dock that are being manned.",   # a negation describing other things
    "No one has crossed the bridge in years.",
    "The guards haven't taken anything from you.",
    "The bridge looks old but sturdy.",
    "You see no sign of the boat.",
])
def test_no_fact_from_descriptions_of_other_things(scene):
    assert gone_things(scene) == {}


@pytest.mark.parametrize("line,scene", [
    ("I walk across the rope bridge.", "The rope bridge across the gorge snapped an hour ago."),
    ("Margaret starts lowering a lifeboat.", "Both of her lifeboats were smashed to kindling."),
    ("I open the window and climb out.", "The cell has no window."),
    ("I row the boat to shore.", "There is no boat here."),
    ("I ask the courier who sent him.", "The courier lies dead in the mud."),
    ("I play my lute to calm them.", "His lute was stolen in the night."),
])
def test_acting_on_the_gone_thing_is_refused(line, scene):
    why = impossible_in_scene(line, scene, "Margaret")
    assert why is not None and why.kind == "scene_gone" and why.startswith("the scene says"), why


@pytest.mark.parametrize("line,scene", [
    ("I hop off the boat", "There's no boats at the dock that are being manned."),   # the real-table failure
    ("I look at the wreck of the bridge.", "The rope bridge across the gorge snapped an hour ago."),
    ("I search the courier's pockets.", "The courier lies dead in the mud."),
    ("I pick up the courier and carry him to the cart.", "The courier lies dead in the mud."),
    ("Can I cross the bridge?", "The rope bridge across the gorge snapped an hour ago."),
    ("I don't cross the bridge.", "The rope bridge across the gorge snapped an hour ago."),
    ("Jester rows the boat.", "There is no boat here."),
    ("I row the boat.", "The boat rocks gently at the dock."),
    ("I say \"let's cross the bridge\".", "The rope bridge across the gorge snapped an hour ago."),
    ("Could one of us carry it until she returns?", "The wagon was smashed."),
])
def test_other_acts_on_or_near_it_are_left_to_the_dice(line, scene):
    assert acts_on_gone(line, scene, "Margaret") is None


def test_a_question_is_not_an_act():
    assert is_question("Can I cross?") and is_question('"Is it gone?"') and not is_question("I cross.")


@pytest.mark.parametrize("scene,things", [
    # a list after the verb, and what the list's second verb did to all of it
    ("At the toll gate the sergeant took our swords and crossbows and chained them in the guardhouse.", {"swords", "crossbows"}),
    ("Overnight the oars and the boathook slid overboard and sank.", {"oars", "boathook"}),
    ("The clerk threw the contract into the fireplace an hour ago.", set()),  # a fireplace is no fire word: left alone
    ("The clerk threw the contract into the brazier an hour ago.", {"contract"}),
    ("The ferry cast off at dawn and is now a speck on the lake.", {"ferry"}),
    ("They lock you in a windowless storeroom.", {"window"}),
    ("The mule was sold to a tinker last spring.", {"mule"}),
])
def test_what_was_done_to_a_thing_is_read_from_the_sentence_parse(scene, things):
    from pipelines.decide.scene_state import lost_things

    assert set(lost_things(scene)) == things


@pytest.mark.parametrize("scene", [
    "If the guards take your swords, you will have to fight with your fists.",   # not done: only if
    "The ferry will cast off at noon.",
    "The rope bridge is sagging and might snap under any weight.",
    "The sergeant didn't take your crossbows.",
    "The barge is sinking fast.",                                                 # still there to climb aboard
    "The thieves tried to steal the mule.",
])
def test_what_may_happen_or_did_not_is_no_loss(scene):
    from pipelines.decide.scene_state import lost_things

    assert lost_things(scene) == {}


@pytest.mark.parametrize("line,scene", [
    ("I draw my crossbow and shoot the sergeant.", "At the toll gate the sergeant took our swords and crossbows and chained them in the guardhouse."),
    ("I jump into the ferry before it leaves.", "The ferry cast off at dawn and is now a speck on the lake."),
    ("I read the contract again.", "The clerk threw the contract into the brazier an hour ago."),
    ("Margaret grabs the oars and pulls for the shore.", "Overnight the oars and the boathook slid overboard and sank."),
    ("I clamber up onto the mule and ride for town.", "The mule was sold to a tinker last spring."),
])
def test_using_a_thing_the_scene_says_was_lost_is_refused_with_the_reason(line, scene):
    why = impossible_in_scene(line, scene, "Margaret")
    assert why is not None and why.kind == "scene_gone", why


def test_taking_a_pause_is_no_thing_taken():
    """Found on real play (CRD3): "You guys took a long rest." then "No, we took a long rest." was refused as acting on a rest taken away."""
    from pipelines.decide.scene_state import lost_things

    assert lost_things("You guys took a long rest. Then he took a look around and took a deep breath.") == {}
    assert acts_on_gone("No, we took a long rest.", "How is she out of spells? You guys took a long rest.", "Margaret") is None


@pytest.mark.parametrize("line,scene,said", [
    # the weight names itself ("a thirty-ton"), the thing goes by another name ("the engine"), the lifter's own
    # body is no one else ("braces her back against it")
    ("Ada braces her back against it and lifts the engine off the rails.", "A thirty-ton locomotive lies across the siding.", "30 tons"),
    ("I just lift it up and toss it in the river.", "The toppled statue, many tons of granite, blocks the lane.", "many tons"),
    ("Ada heaves the cannon onto the wagon by herself.", "The bronze cannon weighs three tons.", "3 tons"),
])
def test_lifting_what_the_scene_says_weighs_tons_is_refused(line, scene, said):
    why = impossible_in_scene(line, scene, "Ada Quill")
    assert why is not None and why.kind == "lift_tons" and said in why, why


@pytest.mark.parametrize("line,scene", [
    ("I lift the crate onto the cart.", "A thirty-ton locomotive lies across the siding. A crate of tools sits by the track."),
    ("We all lift the engine together with the crane.", "A thirty-ton locomotive lies across the siding."),
    ("Could I lift the engine?", "A thirty-ton locomotive lies across the siding."),
    ("He lifts the engine.", "A thirty-ton locomotive lies across the siding."),
])
def test_lifting_something_else_or_with_help_or_asked_is_not_refused(line, scene):
    assert impossible_in_scene(line, scene, "Ada Quill") is None


@pytest.mark.parametrize("line,scene,said", [
    # the time left said as "N hours away"; the scene says when it is and the line by when; "miles down the road" is a distance
    ("I ride to Harlow and bring the doctor back before sundown.", "Harlow lies ninety miles east, and sundown is two hours away.", "90 miles in 2 hours"),
    ("Ada saddles up and rides to the fort, aiming to be there before nightfall.", "It is mid-afternoon at the ferry; the fort is two hundred miles upriver.", "200 miles in 3 hours"),
    ("I run to the mill and warn them.", "The dam will burst in ten minutes, and the mill is fifteen miles down the valley road.", "15 miles in 10 minutes"),
    ("I floor it to the pier.", "It is 11:40 p.m.; the boat sails at midnight sharp from the pier, thirty miles away.", "30 miles in 20 minutes"),
])
def test_a_journey_the_time_left_cannot_hold_is_refused(line, scene, said):
    why = impossible_in_scene(line, scene, "Ada Quill")
    assert why is not None and why.kind == "travel_time" and said in why, why


@pytest.mark.parametrize("line,scene", [
    ("I ride to Harlow before sundown.", "Harlow lies ten miles east, and sundown is two hours away."),
    ("I climb down to the ledge.", "The ledge is forty feet down the cliff; sundown is an hour away."),
])
def test_a_journey_that_fits_is_left_to_the_dice(line, scene):
    assert impossible_in_scene(line, scene, "Ada Quill") is None


def test_a_journey_of_days_is_not_made_by_the_deadline_the_line_claims():
    scene = "Dusk at the ford. The bishop's seat is an eight-day ride away, and the bridge court sits at dawn."
    why = impossible_in_scene("I ride to the bishop tonight and get back before dawn.", scene, "Ada Quill")
    assert why is not None and why.kind == "travel_time" and "8 days" in why, why
    assert impossible_in_scene("I ride for the bishop's seat.", scene, "Ada Quill") is None  # no deadline claimed: the ride is just long
