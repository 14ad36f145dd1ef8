"""Gear kept up, a door shut, idle time: no roll when nothing presses, whatever check the nouns suggest."""
from __future__ import annotations

import asyncio

import pytest

import rulesets
from pipelines.check_index import CheckIndex
from pipelines.routine_acts import routine_only
from tests.play.test_gm_turn import adjudicate, bag_of_words, instance


@pytest.mark.parametrize("line, scene", [
    ("I load the revolver, holster it and lock the office door behind me.", "Past midnight in Eddie's office; he is heading out to meet an informant."),
    ("Keth waxes his bowstring and checks his arrows for warped shafts.", "Camp in a dry hollow; the fire is burning well."),
    ("Pip tunes his lute and hums through the riddle-song.", "A quiet attic room rented for the night."),
    ("I brush down my horse and feed her.", "The livery stable at dusk."),
    ("She sharpens her sword, then sheathes it.", "A quiet inn."),
    ("I load a fresh plate holder into the camera and check the flash powder.", "A quiet side street; nothing to do but wait."),
    ("While the others stretch their legs, Lottie leads the mules down to the spring to drink.", "A clear spring in the afternoon sun."),
])
def test_routine_upkeep_with_nothing_pressing_is_routine(line, scene):
    assert routine_only(line, scene)


@pytest.mark.parametrize("line, scene", [
    ("I load the rifle and fire at the wolf.", "A wolf pads out of the trees."),                 # a shot is no upkeep
    ("I load the revolver before they reach the door.", "Eddie's office."),                      # haste in the line
    ("I reload my pistol.", "Bullets splinter the bar as the gang charges in."),                 # danger in the scene
    ("Pip tunes his lute and plays for the crowd.", "A packed tavern."),                         # a performance
    ("I check the door for traps.", "A dusty corridor."),                                        # a search, not upkeep
    ('"Lock the door," I tell him.', "A quiet inn."),                                            # talk has its own rules
    ("I read the ancient runes on the door.", "A crypt."),                                       # reading a script may need a check
    ("While the guard dozes, I lead the horses out to the road.", "The stable yard at night."),     # timed past a watcher
    ("I lead the mules down to the river.", "Riders are closing in from the ridge."),               # danger in the scene
])
def test_acts_with_a_chance_to_fail_or_a_reason_to_hurry_are_not_routine(line, scene):
    assert not routine_only(line, scene)


def test_a_routine_line_gets_no_roll_though_its_nouns_sit_among_a_checks_lines():
    index = CheckIndex([("firearms_handgun", "I fire the revolver at him"), ("firearms_handgun", "I load the revolver and shoot"),
                        ("no_roll", "what time is it")], embed=bag_of_words)
    line, coc = "I load the revolver and holster it", rulesets.load("coc7e")

    def decide(**args):
        return asyncio.run(adjudicate(decide_k=3, dice_weight=0, **args).run(instance(line), None, pack=coc, check_index=index))

    assert [c.skill for c in decide(routine=False).checks] == ["firearms_handgun"]
    routine = decide()
    assert routine.decision == "no_roll" and routine.checks == []
    assert "routine" in routine.steps[-1].parsed


@pytest.mark.parametrize("line", [
    "Dutch ties his horse to the hitching post and pushes through the batwing doors.",
    "Lottie winds her pocket watch.",
    "We walk down the track to the village.",
    "I string my bow and check the fletching on my arrows.",
])
def test_hitching_a_horse_winding_a_watch_and_walking_somewhere_plain_are_routine(line):
    assert routine_only(line, "A sunny afternoon in a quiet town.")


@pytest.mark.parametrize("line, scene", [
    ("We walk along the ledge to the far side.", "A cliff path."),                     # keeping one's feet: not a plain walk
    ("I push through the crowd to the stage.", "A packed hall."),                    # a crowd in the way
    ("We walk down the track to the village.", "Wolves are closing in behind you."),  # danger in the scene
])
def test_a_walk_where_footing_or_danger_matters_is_not_routine(line, scene):
    assert not routine_only(line, scene)


def test_a_routine_line_the_vote_calls_impossible_gets_no_roll_but_a_rule_refusal_stands():
    index = CheckIndex([("impossible", "I stop the waterfall at the spring with my bare hands"),
                        ("impossible", "I drink the whole spring dry"), ("impossible", "I polish the moon like a camera lens"),
                        ("no_roll", "what time is it")], embed=bag_of_words)

    def decide(line, pack):
        return asyncio.run(adjudicate(decide_k=3, dice_weight=0, impossible_share=0.0).run(instance(line), None, pack=rulesets.load(pack),
                                                                                              check_index=index))

    # upkeep by a calm spring is never impossible, whatever lines its nouns sit among
    assert decide("I kneel at the spring and fill everyone's waterskins one by one", "pf2e").decision == "no_roll"
    refused = decide("I polish my Polaroid camera", "coc7e")  # routine in form, but the 1920s have no instant cameras
    assert refused.decision == "impossible" and "instant cameras" in refused.steps[-1].parsed["rule"]
