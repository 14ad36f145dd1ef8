"""A prose scene's notes for the GM ("(GM only: ...)", "Secret: ...") never reach the players."""
from __future__ import annotations

import json

import pytest

import rulesets
from eval.play import parse_cases
from eval.play._runner import _default_gm
from gm.gm_only import split_gm_only
from gm.table import Scenario, keep_gm_only
from pipelines.llm import ScriptedModel

ROAD = ("The forest road out of Hollin climbs through mixed woods. A milestone reads HOLLIN 4. "
        "(GM only: six bandits wait in the birch grove past the second bend, with a tripwire across the road.)")


@pytest.mark.parametrize("prose, public, hidden", [
    (ROAD, "The forest road out of Hollin climbs through mixed woods. A milestone reads HOLLIN 4.",
     ["six bandits wait in the birch grove past the second bend, with a tripwire across the road."]),
    ("Prior Anselm offers bread and beds. (Secret: he has not eaten in a century.) The gate shuts at dusk.",
     "Prior Anselm offers bread and beds. The gate shuts at dusk.", ["he has not eaten in a century."]),
    ("The saloon is loud. Secret: the payroll is buried under the stage.", "The saloon is loud.",
     ["the payroll is buried under the stage."]),
    ("[Keeper's note - the tide turns at 11:40.] The cottage is dark.", "The cottage is dark.", ["the tide turns at 11:40."]),
])
def test_the_gm_s_notes_leave_the_players_scene(prose, public, hidden):
    assert split_gm_only(prose) == (public, hidden)


@pytest.mark.parametrize("prose", [
    "She keeps her secret: nobody asks.",               # the word in a sentence of the story
    "A hidden door stands ajar behind the shelf.",
    "The GM screen is a prop on the innkeeper's bar.",
])
def test_prose_that_only_mentions_secrets_stays_whole(prose):
    assert split_gm_only(prose) == (prose, [])


def test_a_note_becomes_a_secret_the_pack_s_searching_checks_find():
    pack = rulesets.load("pf2e")
    scenario = keep_gm_only(Scenario(id="road", ruleset="pf2e", title="Road", scene=ROAD, opening=ROAD), pack)
    [secret] = scenario.secrets
    assert "bandits" not in scenario.scene and "bandits" not in scenario.opening
    assert secret.text.startswith("six bandits") and "perception" in secret.checks
    assert secret.text in scenario.hidden_texts()


def test_out_of_character_the_gm_will_not_count_the_hidden_bandits():
    model = ScriptedModel(responder=lambda step, messages: "The road is quiet." if step == "narrate" else json.dumps({"choice": "no_roll"}))
    [case] = parse_cases([{"id": "road", "ruleset": "pf2e", "character": "Pip Quillon", "scene": ROAD,
                           "line": "OOC how many enemies are waiting up the road, roughly?",
                           "expect": {"reply": {"any": ["find out"], "none": ["six", "bandits", "birch"]}}}])
    gm = _default_gm(case, model, 7)
    reply = gm.step("Pip Quillon", case.line)
    assert "find out" in reply.narration and "bandit" not in reply.narration.lower()
