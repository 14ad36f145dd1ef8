"""An act's reply is planned from data first (gm.outcome), and the model only words that plan."""
from __future__ import annotations

import asyncio

import pytest
import rulesets
from hypothesis import given, settings, strategies as st

from gm.narration import NarrationRequest, carries_plan, known_words, narrate, new_things
from gm.outcome import plan_act
from gm.world import World
from pipelines.llm import ScriptedModel

COTTAGE = World.model_validate({
    "here": "the keeper's cottage",
    "places": [{"name": "the keeper's cottage", "description": "a dark cottage with a cold stove and a table set for two"},
               {"name": "the assay office", "description": "the assay office, a brick office with a vault"}],
    "things": [{"name": "logbook", "where": "the keeper's cottage", "description": "the keeper's logbook, lying open"},
               {"name": "chain", "aliases": ["padlock"], "where": "the lighthouse door", "states": ["locked", "fixed"]},
               {"name": "silver reliquary", "where": "the cellar", "states": ["hidden"], "description": "a relic box under the flagstones"}],
    "npcs": [{"name": "Ruth Quist", "aliases": ["Ruth"], "role": "the keeper's daughter"},
             {"name": "Chief Nettlejaw", "aliases": ["Nettlejaw", "the Chief"], "role": "goblin boss"}],
})


def plan(line: str, decision: str = "roll", success: bool | None = False, **kw) -> str:
    made = plan_act("Eddie", line, decision, success, world=COTTAGE, **kw)
    return made.said() if made else ""


@pytest.mark.parametrize("line, success, says", [
    ("I search the cottage for a key to the padlock.", False, "Eddie searches the cottage but finds no key to the padlock."),
    ("I search the cottage for a key to the padlock.", True, "Eddie searches the cottage carefully. There is no key to the padlock here."),
    ("I pick the padlock on the lighthouse door.", False, "Eddie tries to pick the padlock on the lighthouse door, but the chain holds."),
    ("I read the last page of the logbook.", False, "Eddie reads the last page of the logbook but can make nothing of it."),
    ("I climb the rocks, testing each hold.", False, "Eddie tries to climb the rocks, but does not make it."),
    ("I tip my hat to the goblins.", False, "Eddie tips their hat to the goblins, but the goblins are not impressed."),
    ("I offer Nettlejaw a piece of cheese if he lets us through.", False, "Eddie makes their case to Nettlejaw, but Nettlejaw is not swayed."),
    ("I try to spot a way around the gate.", True, "Eddie spots a way around the gate."),
    ("I slip out to the assay office.", True, "Eddie slips out to the assay office. Eddie sees the assay office, a brick office with a vault."),
    ("I try to spot a way around the gate.", False, "Eddie looks for a way around the gate but finds none."),
    ("I feel around under the water for anything that doesn't belong, like a key or something dropped.", False,
     "Eddie feels around under the water but finds nothing that doesn't belong."),  # not "finds no anything", nor the examples
    ("I search the cottage for that logbook.", False, "Eddie searches the cottage but finds no sign of that logbook."),
])
def test_a_rolled_act_is_planned_as_what_its_outcome_means_at_the_table(line, success, says):
    assert plan(line, success=success) == says


def test_what_the_dice_revealed_or_met_is_said_word_for_word_and_a_fumble_goes_badly():
    found = "Wet footprints lead from the cellar hatch to the lighthouse door."
    assert plan("I look for footprints by the hatch.", success=True, found=found).endswith(found)
    met = "The floorboards show only old scuffs and spilled oil."
    failed = plan("I look for footprints on the path to the lighthouse.", found=met, degree="fumble")
    assert failed == f"Eddie looks on the path to the lighthouse but finds no footprints. {met} It could hardly have gone worse."


def test_a_refusal_gives_the_decisions_reason_and_invents_none():
    assert plan("I lift the cottage over my head.", "impossible", None, why="no one could lift a house") == \
        "Eddie cannot lift the cottage over their head: no one could lift a house."
    assert plan("I lift the cottage over my head.", "impossible", None) == "Eddie cannot lift the cottage over their head; nothing here allows it."


def test_an_act_without_a_roll_is_told_as_done_and_a_gift_is_taken():
    assert plan("I pour myself a glass of water at the table.", "no_roll", None) == "Eddie pours themselves a glass of water at the table."
    assert plan("I hand Nettlejaw a polished button.", "no_roll", None) == "Eddie hands Nettlejaw a polished button. Nettlejaw takes it."


@pytest.mark.parametrize("line", ["Ruth, when did you last see your father?", "What year is it?", '"We mean no harm," I say.', "/check spot hidden"])
def test_questions_words_and_commands_are_no_act_to_plan(line):
    assert plan_act("Eddie", line, "no_roll", None, world=COTTAGE) is None


def test_a_search_that_earns_nothing_never_names_what_the_world_hides():
    said = plan("I search the cellar for the silver reliquary.", success=True)
    assert "relic box" not in said and "flagstones" not in said


_VERBS = ["search", "pick", "read", "climb", "watch", "open", "tip", "offer", "slip", "look at", "push", "sit by"]
_OBJECTS = ["the logbook", "the padlock", "the stove", "the goblins", "Ruth", "the cellar", "the assay office", "the rocks"]
_TEMPLATE = set(known_words("tries to but it does not work holds finds no none here there is carefully can make nothing of it is noticed "
                            "note not impressed swayed won over makes their case and the words land fall flat does make takes it seem to take it well "
                            "look for sign of nothing out of place notices more to find they see could hardly have gone worse better "
                            "gets further than anyone expect but all way cannot here allows searches memory useful comes back themselves their nobody"))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_VERBS), st.sampled_from(_OBJECTS), st.sampled_from(["roll", "no_roll", "impossible"]), st.booleans())
def test_the_plan_invents_nothing(verb, obj, decision, success):
    """Every word a plan says comes from the line, the world's public records or the plan's own few frames."""
    line = f"I {verb} {obj}."
    made = plan_act("Eddie", line, decision, success if decision == "roll" else None, world=COTTAGE)
    if made is None:
        return
    public = [t for item in [*COTTAGE.npcs, *COTTAGE.places, *COTTAGE.things] if "hidden" not in getattr(item, "states", [])
              for t in (item.name, *item.aliases, getattr(item, "description", ""), getattr(item, "role", ""))]
    allowed = known_words(line, "Eddie", *public) | _TEMPLATE | {"eddie"}
    forms = lambda w: {w, w.removesuffix("s"), w.removesuffix("es"), w.removesuffix("ies") + "y"}  # noqa: E731 "tips", "searches", "tries"
    stray = {w for w in known_words(made.said()) if not forms(w) & allowed}
    assert not stray, (line, made.said())


def test_a_noun_the_scene_lacks_is_a_new_thing_but_flavour_and_verbs_are_not():
    known = known_words("The keeper's cottage is dark; the lighthouse door is chained.", "I search the cottage for a key to the padlock")
    assert new_things("The lighthouse door is locked with a chainsaw.", known) == ["chainsaw"]
    assert new_things("The glass is thick with dark blood.", known) == ["glass", "blood"]
    assert new_things("The desk is empty, and the keeper's desk is locked.", known) == ["desk", "desk"]
    assert new_things("Eddie turns the cottage over for a long moment, but no key turns up.", known) == []
    assert new_things("His fingers work along the door, but the padlock holds.", known) == []


def test_a_reply_carries_the_plan_only_when_it_tells_the_outcome_the_dice_made():
    made = plan_act("Eddie", "I search the cottage for a key to the padlock.", "roll", False, world=COTTAGE)
    assert carries_plan("Eddie turns the cottage over, but there is no key to the padlock anywhere.", made)
    assert not carries_plan("Eddie searches the cottage and the key to the padlock is in his hand.", made)
    assert not carries_plan("The cottage is dark and smells of lamp oil.", made)


def request(**kw) -> NarrationRequest:
    base = dict(pack=rulesets.load("coc7e"), scene="The keeper's cottage is dark; the lighthouse door is chained from the inside.",
                name="Eddie", line="I search the cottage for a key to the padlock.", decision="roll", verdict="Eddie's Locksmith roll: fumble.",
                success=False, pc_names=["Eddie Kowalczyk", "Eddie"], world=COTTAGE)
    base.update(kw)
    return NarrationRequest(**base)


@pytest.mark.parametrize("reply, kept, cause", [
    ("Eddie turns the cottage over from stove to table, but there is no key to the padlock anywhere.", True, None),
    ("The lighthouse door is locked with a chainsaw, and the chainsaw is stuck in the dark.", False, "brought in chainsaw"),
    ("Eddie searches the cottage and finds the key to the padlock under the stove.", False, "contradicted the dice"),
    ("The keeper's cottage is quiet.", False, "left the outcome out"),
])
def test_the_model_only_words_the_plan_and_anything_else_is_replaced_by_the_plan_said_plainly(reply, kept, cause):
    shown: list[str] = []
    out = asyncio.run(narrate(ScriptedModel(by_step={"narrate": [reply]}), request(), on_token=shown.append))
    plain = "Eddie searches the cottage but finds no key to the padlock. It could hardly have gone worse."
    assert out.text == (reply if kept else plain) and "".join(shown) == out.text
    assert out.fell_back is (not kept) and (cause is None or any(cause in n for n in out.notes))


def test_the_prompt_holds_the_plan_and_no_scene_prose_or_gm_only_text():
    model = ScriptedModel(by_step={"narrate": ["Eddie finds no key."]})
    asyncio.run(narrate(model, request(hidden=["Ruth hides that she heard him singing."])))
    asked = model.requests[-1]["messages"][-1]["content"]
    assert asked == "What happens: Eddie searches the cottage but finds no key to the padlock. It could hardly have gone worse."


def test_without_a_world_or_in_a_fight_the_open_narration_stays():
    said = "Your fingers find nothing but cold wet stone."
    assert asyncio.run(narrate(ScriptedModel(by_step={"narrate": [said]}), request(world=None))).text == said
    fight = request(standing=["Goblin 1"], struck=True, struck_at=["Goblin 1"], success=None, line="I hit the goblin", verdict="")
    assert asyncio.run(narrate(ScriptedModel(by_step={"narrate": ["Eddie's blow lands hard on Goblin 1's shoulder."]}), fight)).text.startswith("Eddie's blow")


def test_a_plea_put_as_a_question_and_rolled_is_told_as_how_it_was_taken_but_a_deed_with_a_question_is_not_planned():
    plea = plan_act("Hosea", '"Sheriff. Man drinks alone like that. Care to set some of it down with a preacher?"', "roll", True)
    assert plea is not None and "makes their case" in plea.said() and plea.success is True
    assert plan_act("Oskar", "I watch Maren's face. Is she lying?", "roll", True) is None  # what he reads is the open narration's
    assert plan_act("Hosea", "Sheriff, quiet night?", "no_roll", None) is None
