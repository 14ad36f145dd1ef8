"""Which check a line calls for also depends on where it is said: "keep her going, slow and
steady" is a ride on a mule trail and a drive on an icy road."""
from __future__ import annotations

import asyncio

import pytest

import rulesets
from pipelines.check_index import CheckIndex
from tests.play.test_gm_turn import ROLLS, adjudicate, bag_of_words, instance

COC = rulesets.load("coc7e")
INDEX = CheckIndex([
    ("ride", "keep the mule going up the mountain trail"), ("ride", "I ride the horse along the trail"),
    ("drive_auto", "keep the car going on the icy road"), ("drive_auto", "I drive the car down the road"),
    ("no_roll", "what time is it"), ("no_roll", "I ask the sheriff his name"),
], embed=bag_of_words)
LINE = "keep her going slow and steady"
ROAD = "An icy road at night: the car slides on the road."
TRAIL = "A mountain trail: the mule and the horse pick along the trail."


def leading(scene: str, weight: float = 0.5) -> str:
    fit = INDEX.fit(INDEX.vote(LINE), scene, weight)
    return max(("ride", "drive_auto"), key=fit.__getitem__)


def test_the_scene_decides_between_checks_the_line_fits_alike():
    assert leading(ROAD) == "drive_auto"
    assert leading(TRAIL) == "ride"


@pytest.mark.parametrize("scene, weight", [(ROAD, 0.0), (TRAIL, 0.0), ("", 0.5), ("   ", 0.5)])
def test_without_a_scene_or_its_weight_the_vote_alone_ranks(scene, weight):
    vote = INDEX.vote(LINE)
    fit = INDEX.fit(vote, scene, weight)
    assert sorted(fit, key=fit.__getitem__) == sorted(vote.blend, key=vote.blend.__getitem__)


def test_the_scene_only_reorders_checks_the_line_points_at():
    """At the shipped weight a scene all about cars cannot make a line about a horse a driving roll."""
    vote = INDEX.vote("I ride the horse along the trail")
    fit = INDEX.fit(vote, "the car the car the car on the road", 0.5)
    assert max(("ride", "drive_auto"), key=fit.__getitem__) == "ride"


def roll(scene: str, **args) -> list[str]:
    pipeline = adjudicate(**args)  # where the learned model would roll: which check is the question
    result = asyncio.run(pipeline.run(instance(LINE), None, pack=COC, check_index=INDEX, scene=scene, decision_model=ROLLS))
    return [c.skill for c in result.checks]


def test_the_gm_turn_rolls_the_check_that_suits_the_scene():
    assert roll(ROAD) == ["drive_auto"]
    assert roll(TRAIL) == ["ride"]
    assert roll(ROAD, scene_weight=0) == roll(TRAIL, scene_weight=0)  # off: the scene changes nothing


def test_the_scene_cannot_overturn_a_vote_the_nearest_lines_give_one_check_alone():
    """The nearest line is a drive; a trail scene may not make it a ride that no near line backs."""
    assert INDEX.vote(LINE, k=1).scores == {"drive_auto": 1.0}
    assert roll(TRAIL, k=1, scene_weight=1.0, scene_floor=0) == ["ride"]   # no floor: the scene alone decides
    assert roll(TRAIL, k=1, scene_weight=1.0) == ["drive_auto"]
    assert roll(TRAIL, k=4) == ["ride"]                                    # where near lines back both, the scene still chooses
