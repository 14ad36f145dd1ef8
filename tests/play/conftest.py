"""Fixtures for the play tests: a scripted six-turn scene at the Drowned Chapel, and a toy learned decision."""
from __future__ import annotations

import json
import math

import pytest

from pipelines.decide import LearnedDecision
from pipelines.llm import ScriptedModel

# (player line, who acts, the check the scripted GM calls or None, the narration)
SCENE = [
    ("Brisa", "I search under the altar for a hidden catch", "Brisa Tallowmere", "investigation",
     "Brisa runs her fingers along the altar's slick lip."),
    ("Oskar", "I watch Maren's face while she talks. Is she lying?", "Oskar Venn", "insight",
     "Oskar holds Maren's gaze while she answers him slowly."),
    ("Ilya", "I wade over to the pews and sit down for a moment", "Ilya Thorncastle", None,
     "Ilya settles onto a floating pew, which bobs under her weight."),
    ("Ilya", "I climb the broken stair up to the bell tower", "Ilya Thorncastle", "athletics",
     "Ilya grips the wet stone and hauls herself slowly upward."),
    ("Brisa", "I sneak quickly behind Maren", "Brisa Tallowmere", "stealth",
     "Brisa slips through the dark water behind the old keeper."),
    ("Oskar", "I say a prayer and hold up my holy symbol to the bell", "Oskar Venn", "religion",
     "Oskar's prayer echoes long and low under the cracked bell."),
]


def scene_model() -> ScriptedModel:
    """A model that answers the TBS steps and the narration for SCENE, in order."""
    pre, char, skill, narrate = [], [], [], []
    for _player, _text, actor, check, words in SCENE:
        pre.append(json.dumps({"characters": [actor, "Maren"]}))
        char.append(json.dumps({"characters": [actor]}))
        skill.append(json.dumps({"checks": [{"character": actor, "skill": check}] if check else []}))
        narrate.append(words)
    return ScriptedModel(by_step={"pre_char": pre, "char": char, "skill": skill, "narrate": narrate})


@pytest.fixture
def scene():
    return SCENE


@pytest.fixture
def make_scene_model():
    return scene_model


def toy_decision(width: int, p_roll: float = 0.5, threshold: float = 0.5, blocks: tuple[str, ...] = ("line", "scene", "previous", "vote", "surface"),
                 implausible_at: float | None = None):
    """A learned decision for a test's toy embedding ``width`` dims wide: zero weights, so every
    line gets P(roll) = ``p_roll``; with the default threshold 0.5, ``p_roll=0.9`` is "this model
    would roll" and ``p_roll=0.1`` "it would not". It knows no pack (no learned check ranking:
    the example lines' vote alone ranks), and the ``implausible`` rule (the hardest roll for a line
    the impossible-act direction finds unlikely) only fires when ``implausible_at`` is given."""
    sizes = {"line": width, "scene": width, "previous": width + 1, "vote": 4, "surface": 11}
    features = sum(sizes[b] for b in blocks)
    bars = {} if implausible_at is None else {"implausible_at": implausible_at}
    return LearnedDecision({
        "ruleset": "toy", "blocks": list(blocks),
        "roll": {"weights": [0.0] * features, "bias": math.log(p_roll / (1 - p_roll)), "platt": [1.0, 0.0], "threshold": threshold},
        "checks": {"classes": ["toy"], "weights": [[0.0] * features], "bias": [0.0], "vote_weight": 0.0},
        "impossible": bars,
    }, source="toy decision")
