"""What the scene says no longer stands, and lines that act on it anyway (pipelines/scene_state.py)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pipelines.impossible_acts import impossible_in_scene
from pipelines.scene_state import acts_on_gone, gone_things, is_question


@pytest.mark.parametrize("scene, thing", [
    ("The rope bridge across the gorge snapped an hour ago under the snow.", "bridge"),   # the noun before "across", not "gorge"
    ("Both of her lifeboats were smashed to kindling when the mast came down.", "lifeboats"),
    ("The asylum's grand staircase collapsed years ago.", "staircase"),                  # not the possessor
    ("The circus sold its only elephant in Tulsa last month.", "elephant"),              # the object of an active verb
    ("Yesterday the defenders found the well poisoned and filled it to the brim with stones.", "well"),  # "it" read back
    ("Brisa's tallow candle stub fell into the cistern and sank out of reach.", "stub"),
    ("The storm drove the only rowboat onto the rocks, and its planks are strewn along the tideline.", "rowboat"),
    ("The lockkeeper rode off yesterday, and the only key to the sluice went with him.", "key"),
    ("The cell has no window, only a slot in the door.", "window"),
    ("The witness died last spring, a month before the trial.", "witness"),             # a death, by "died"
    ("The old keeper died of a fever in March.", "keeper"),                              # "of" follows a verb, never a noun
])
def test_the_scene_names_what_is_gone(scene, thing):
    assert thing in gone_things(scene)


@pytest.mark.parametrize("scene", [
    "A waterlogged letter was found in a drowned sailor's oilskin.",     # "drowned" describes the sailor, not the letter
    "The dealer has the receipt for the stolen lot in his vest pocket.",
    "A supply cart is sunk to its axles in the mud.",                    # stuck, not lost
    "There is no sign of the thieves, and no one answers the door.",     # "no" before no thing
    "No horse can cover that distance in a day.",                        # a claim about horses, not an absence
    "The sheriff put him down.",                                          # who was put down is not named
])
def test_words_that_only_look_like_ruin_mark_nothing_in_the_way(scene):
    things = gone_things(scene)
    assert not {"letter", "receipt", "cart", "sign", "one", "horse"} & set(things)


@pytest.mark.parametrize("line, scene, why", [
    ("Ilya walks across the rope bridge to the other side.", "The rope bridge across the gorge snapped an hour ago.",
     "the scene says the bridge snapped"),
    ("Margaret runs to the davits and starts lowering a lifeboat.", "Both of her lifeboats were smashed to kindling.",
     "the scene says the lifeboats were smashed"),
    ("Keth lowers the bucket into the well and draws up water.", "The defenders filled the well with rubble.",
     "the scene says the well was filled in"),
    ("Margaret climbs into the boat and rows out.", "Their rowboat was smashed to splinters on the reef.",  # "boat" names the rowboat
     "the scene says the rowboat was smashed"),
    ("Pip trots up the stairs to the landing.", "The grand staircase collapsed years ago.", "the scene says the staircase collapsed"),
    ("I take the lockkeeper's key and unlock the sluice.", "The only key to the sluice went with him.",
     "the scene says the key was taken away"),
    ("I climb out through the window.", "The cell has no window.", "the scene says there is no window"),
    ("I look out the window to judge the hour.", "They locked you in a windowless cell under the bank.",  # -less: none there
     "the scene says there is no window"),
    ("Brisa climbs onto the roof to keep watch.", "Rain pours into the roofless chapel.", "the scene says there is no roof"),
    ("I hop aboard the ferry and pole us across.", "The only ferry lies on the river bottom, its mast jutting from the "
     "water where bandits scuttled it last night.", "the scene says the ferry sank"),
])
def test_acting_on_a_thing_the_scene_says_is_gone_is_refused_with_the_scenes_fact(line, scene, why):
    assert acts_on_gone(line, scene) == why
    assert impossible_in_scene(line, scene)  # the GM's scene rules use it


@pytest.mark.parametrize("line, scene", [
    ("I search the wreck of the rowboat for the oars.", "Their rowboat was smashed to splinters on the reef."),  # searching the wreck
    ("I look down at what's left of the bridge.", "The rope bridge snapped an hour ago."),
    ("We rebuild the bridge with the ropes we have.", "The rope bridge snapped an hour ago."),                # mending it
    ("Can we still cross the bridge?", "The rope bridge snapped an hour ago."),                               # a question
    ("I step through the window into the hall.", "The window was smashed in the fight."),                     # through a broken window
    ("Ilya grabs the guide and drags him out of the fumes.", "The guide has collapsed on the far side, coughing."),
    ("Pip swears blind it's a writ signed by the harbourmaster.", "Pip has no writ, only a laundry bill."),     # a bluff about it
    ('"Oh, the writ! The captain took it," Pip says.', "Pip has no writ."),                                   # talk
    ("I tie my rope to the post and climb down.", "The rope bridge snapped an hour ago."),                    # "rope" is no head
    ("I ask the ferryman about the bridge.", "The rope bridge snapped an hour ago."),
    ("I jump out the windows and run.", "The windows shattered in the blast."),                                # out through them
    ("I get out my lantern.", "There is no way otherwise, and the guards took nothing."),                      # "otherwise" is no thing
    ("I search the rest of the hall.", "A restless crowd fills the hall."),                                    # "restless" lacks no rest
    ("I feel along the wall for a window.", "A windowless cell."),                                             # looking for it
    ("I shoot the nearest bandit.", "The ferry lies sunk where bandits scuttled it last night."),              # the doers live
    ("I question the guard.", "The guard lies on the floor, groaning."),
])
def test_acts_that_fit_a_ruined_thing_are_left_to_the_vote(line, scene):
    assert acts_on_gone(line, scene) is None


def test_without_a_scene_or_without_a_ruin_nothing_is_refused():
    assert acts_on_gone("I walk across the rope bridge.", "") is None
    assert acts_on_gone("I walk across the rope bridge.", "The rope bridge sways in the wind.") is None


_things = st.sampled_from(["bridge", "lantern", "lute", "rowboat", "ladder", "well"])
_ruins = st.sampled_from(["was smashed", "was destroyed", "collapsed", "was wrecked", "burned down", "is gone"])
_uses = st.sampled_from(["I use the {}", "Ilya climbs onto the {}", "She grabs the {} and goes", "I take the {} and leave"])


@given(_things, _ruins, _uses)
def test_any_use_of_any_ruined_thing_is_refused(thing, ruin, use):
    assert acts_on_gone(use.format(thing), f"Last night the old {thing} {ruin}.") is not None


@given(_things, _ruins, st.sampled_from(["I search the ruins of the {}", "I look at the {}", "Where was the {}?", "I walk past the {}"]))
def test_no_look_search_question_or_passing_by_is_refused(thing, ruin, line):
    assert acts_on_gone(line.format(thing), f"Last night the old {thing} {ruin}.") is None


def test_a_question_ends_in_a_question_mark_even_inside_quotes():
    assert is_question('"Is the bridge still up?"') and not is_question("I cross the bridge.")


@pytest.mark.parametrize("line, scene, why", [
    ("Oskar pushes our rowboat into the surf and rows out.",
     "Last night's gale hurled the only rowboat onto the rocks; its splintered planks are strewn along the shingle.",
     "the scene says the rowboat was wrecked"),                                 # the thing stands before the semicolon
    ("Pip tunes up his lute and plays a lullaby.", "The guards took all their gear, Pip's lute included, and locked it away.",
     "the scene says the lute was taken"),
    ("I whistle for Sorrel and swing into the saddle.", "The ambush cost Dutch his mare, Sorrel, who lies dead where she fell.",
     "the scene says Sorrel was dead"),                                        # the mare's name, with no article
    ("Hosea rides Bramble down the pass.", "Hosea's mule, Bramble, shattered a hoof on the scree, so Hosea had to put her down.",
     "the scene says Bramble was put down"),                                  # "her": the beast of the earlier clause
])
def test_wrecked_taken_and_dead_things_named_any_way_the_scene_names_them(line, scene, why):
    assert acts_on_gone(line, scene) == why


@pytest.mark.parametrize("line, scene", [
    ("I walk along the road to the mill.", "The caravan took the road north at dawn."),             # "took" takes nothing from anyone
    ("I kneel beside Sorrel and take the saddlebags.", "His mare, Sorrel, lies dead where she fell."),  # a dead mare is unpacked, not ridden
    ("I take the saddle off Bramble.", "Hosea's mule, Bramble, shattered a hoof on the scree, so Hosea had to put her down."),
    ("I wake the sheriff and ask for the keys.", "The sheriff put him down for the night in the back cell."),  # a bed, not a death
])
def test_took_a_road_and_a_dead_mares_saddlebags_are_left_to_the_vote(line, scene):
    assert acts_on_gone(line, scene) is None


@pytest.mark.parametrize("line, scene, why", [
    ("Lottie shoulders her rifle and fires at the rustler.", "Lottie left her rifle back at the livery with her saddle.",
     "the scene says the rifle was left elsewhere"),
    ("Dutch draws his revolver.", "His revolver is still back at the hotel, under the pillow.", "the scene says the revolver was left elsewhere"),
    ("I ride off after them.", "Tomás left his horse at the hitching post outside.", None),   # left nearby, not behind
    ("I walk back to the hotel for my revolver.", "His revolver is still back at the hotel.", None),  # going to get it
])
def test_a_thing_left_behind_elsewhere_is_not_at_hand(line, scene, why):
    assert acts_on_gone(line, scene) == why


def test_a_person_the_scene_says_died_cannot_be_questioned():
    scene = "The witness died last spring, a month before the trial."
    assert acts_on_gone("I go and question the witness.", scene) == "the scene says the witness died"
    assert acts_on_gone("I visit the witness's grave.", scene) is None
