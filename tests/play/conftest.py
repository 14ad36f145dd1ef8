"""Fixtures for the play tests: a scripted six-turn scene at the Drowned Chapel."""
from __future__ import annotations

import json

import pytest

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
