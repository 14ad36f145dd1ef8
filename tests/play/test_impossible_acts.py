"""Acts whose own words say they cannot happen are refused before any vote, with a reason."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pipelines.impossible_acts import impossible_act


@pytest.mark.parametrize("line", [
    "I lift the loaded ore wagon over my head and throw it at the bandits.",
    "Dutch hoists the whole assay office onto his back.",
    "i pick up the church and move it ten feet left",
    "I brace my shoulder against the wall and push the whole tower over.",
    "I flap my arms as hard as I can to get up to the roof.",
    "I sprint across the surface of the lake to the island.",
    "I'll hold my breath until dawn.",
    "I outrun the bullet.",
    "I swim across the Atlantic to warn them.",
    "I take a photo of the room the way it looked last week.",
    "I squeeze my whole body through the keyhole.",
])
def test_plainly_impossible_acts_are_named_with_a_reason(line):
    why = impossible_act(line)
    assert why and len(why.split()) >= 3


@pytest.mark.parametrize("line", [
    "I throw open the tavern door and stride in.",
    "I toss the inn keeper a silver coin.",
    "I lift the crate over my head.",
    "I carry the wounded miner out of the bank.",
    "I lift the boulder off his leg.",
    "I knock the door down and push the table over.",
    "Dutch heaves the wagon up so we can pull the wheel free.",
    "I throw a rock at the lighthouse window.",
    "I run along the river bank after him.",
    "I hold my breath and dive for the key.",
    "I swim across the river with the rope in my teeth.",
    "I climb the hill and look for the mill.",
])
def test_ordinary_acts_near_the_patterns_are_left_to_the_vote(line):
    assert impossible_act(line) is None


_ordinary = st.sampled_from(["crate", "barrel", "chair", "rope", "lantern", "sack of flour", "wounded guard", "ladder", "door"])
_huge = st.sampled_from(["lighthouse", "saloon", "standing stone", "castle", "bridge", "windmill"])
_heavy = st.sampled_from(["ore wagon", "boulder", "stagecoach", "cart"])
_verb = st.sampled_from(["lift", "hoist", "pick up", "heave", "throw", "carry", "hurl", "toss"])
_tail = st.sampled_from(["", ".", " over my head", " onto my back", " across the street", " and walk off"])


@given(_verb, _ordinary, _tail)
def test_moving_an_ordinary_thing_is_never_refused(verb, thing, tail):
    assert impossible_act(f"I {verb} the {thing}{tail}") is None


@given(_verb, _huge, _tail)
def test_moving_a_building_sized_thing_always_is(verb, thing, tail):
    assert impossible_act(f"I {verb} the whole {thing}{tail}") == "no one could move that"


def test_the_decision_step_refuses_it_without_dice_and_names_the_rule():
    """End to end through the adjudicate step: no roll, the rule named in the step record."""
    import asyncio

    import rulesets
    from pipelines.check_index import IMPOSSIBLE
    from pipelines.pipeline import load_pipeline
    from pipelines.records import MoeInstance, Turn

    pack = rulesets.load("swade")
    pipe = load_pipeline("adjudicate")
    instance = MoeInstance(id="x", ruleset="swade", context=[Turn(speaker="GM", text="The street is quiet."),
                                                              Turn(speaker="Dutch", text="I lift the loaded ore wagon over my head.")],
                           characters=["Dutch"])
    result = asyncio.run(pipe.run(instance, None, pack=pack))
    assert result.decision == IMPOSSIBLE and result.checks == []
    assert any(isinstance(s.parsed, dict) and s.parsed.get("rule") == "no one could lift that so high" for s in result.steps)


@given(_heavy)
def test_a_heavy_thing_may_be_heaved_but_never_held_overhead_or_thrown(thing):
    assert impossible_act(f"I heave the {thing} up an inch so they can crawl out") is None
    assert impossible_act(f"I lift the {thing} over my head") == "no one could lift that so high"
    assert impossible_act(f"I hurl the {thing} at the guards") == "no one could throw that"
