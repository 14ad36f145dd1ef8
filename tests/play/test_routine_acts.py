"""Gear kept up, a door shut, idle time: no roll when nothing presses, whatever check the nouns suggest."""
from __future__ import annotations

import asyncio

import pytest

import rulesets
from pipelines.check_index import CheckIndex
from pipelines.routine_acts import routine_only
from pipelines.decide import DEFAULT_RULES
from tests.play.test_gm_turn import ROLLS, adjudicate, bag_of_words, instance


@pytest.mark.parametrize("line, scene", [
    ("I load the revolver, holster it and lock the office door behind me.", "Past midnight in Eddie's office; he is heading out to meet an informant."),
    ("Keth waxes his bowstring and checks his arrows for warped shafts.", "Camp in a dry hollow; the fire is burning well."),
    ("Pip tunes his lute and hums through the riddle-song.", "A quiet attic room rented for the night."),
    ("I brush down my horse and feed her.", "The livery stable at dusk."),
    ("She sharpens her sword, then sheathes it.", "A quiet inn."),
    ("I load a fresh plate holder into the camera and check the flash powder.", "A quiet side street; nothing to do but wait."),
    ("While the others stretch their legs, Lottie leads the mules down to the spring to drink.", "A clear spring in the afternoon sun."),
    ("I tip my hat to the goblins.", "Goblins guard a gate on the bridge; the river below runs fast and high."),  # a courtesy asks nothing
    ("Marisol bows deeply to old Mother Kell.", "A reed hut on stilts."),
    ("I salute the captain.", "The guard captain inspects the caravan."),
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
    ("I smile at the guard so he lets me pass.", "A guard at the gate."),                          # a courtesy that asks
    ("I wave my torch at the wolves.", "Wolves circle the fire."),                                  # a torch waved is no greeting
])
def test_acts_with_a_chance_to_fail_or_a_reason_to_hurry_are_not_routine(line, scene):
    assert not routine_only(line, scene)


def test_a_routine_line_gets_no_roll_though_its_nouns_sit_among_a_checks_lines():
    index = CheckIndex([("firearms_handgun", "I fire the revolver at him"), ("firearms_handgun", "I load the revolver and shoot"),
                        ("no_roll", "what time is it")], embed=bag_of_words)
    line, coc = "I load the revolver and holster it", rulesets.load("coc7e")

    def decide(**args):  # where the learned model would roll
        return asyncio.run(adjudicate(k=3, **args).run(instance(line), None, pack=coc, check_index=index, decision_model=ROLLS))

    assert [c.skill for c in decide(rules=[r for r in DEFAULT_RULES if r != "routine_upkeep"]).checks] == ["firearms_handgun"]
    routine = decide()
    assert routine.decision == "no_roll" and routine.checks == []
    assert [(f["rule"], f["from"], f["to"]) for f in routine.steps[-1].parsed["fired"]] == [("routine_upkeep", "firearms_handgun", "no_roll")]


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


def test_a_routine_line_among_impossible_lines_gets_no_roll_but_a_rule_refusal_stands():
    index = CheckIndex([("impossible", "I stop the waterfall at the spring with my bare hands"),
                        ("impossible", "I drink the whole spring dry"), ("impossible", "I polish the moon like a camera lens"),
                        ("survival", "I fill the waterskins at the spring"), ("craft", "I load the camera"),
                        ("no_roll", "what time is it")], embed=bag_of_words)

    def decide(line, pack):
        return asyncio.run(adjudicate(k=3).run(instance(line), None, pack=rulesets.load(pack), check_index=index, decision_model=ROLLS))

    # upkeep by a calm spring is never impossible, whatever lines its nouns sit among
    filled = decide("I kneel at the spring and fill everyone's waterskins one by one", "pf2e")
    assert filled.decision == "no_roll" and [f["rule"] for f in filled.steps[-1].parsed["fired"]] == ["routine_upkeep"]
    line = "I load film into my Polaroid camera"
    assert routine_only(line, "")
    refused = decide(line, "coc7e")  # routine in form, but the 1920s have no instant cameras
    assert refused.decision == "impossible" and "instant cameras" in refused.steps[-1].parsed["rule"]
    assert [f["rule"] for f in refused.steps[-1].parsed["fired"]] == ["impossible_era"]
