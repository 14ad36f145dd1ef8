"""Worded content (an act's plan, an NPC's answer) reaches the table sentence by sentence: the first
words are shown as soon as a whole sentence passes the guards and carries the content, a later bad
sentence is dropped, and a bad start means the content is said plainly."""
from __future__ import annotations

import asyncio

import rulesets

from gm.answer import choose_answer
from gm.intent import read_intent
from gm.narration import NarrationRequest, narrate
from gm.world import Knowledge, Npc, World
from pipelines.llm import ScriptedModel, get_model
from pipelines.llm.fake_server import FakeServer

COTTAGE = World.model_validate({
    "here": "the keeper's cottage",
    "places": [{"name": "the keeper's cottage", "description": "a dark cottage with a cold stove and a table set for two"}],
    "things": [{"name": "chain", "aliases": ["padlock"], "where": "the lighthouse door", "states": ["locked", "fixed"]},
               {"name": "cellar hatch", "aliases": ["hatch"], "where": "the keeper's cottage"}],
    "npcs": [{"name": "Ruth Quist", "aliases": ["Ruth"], "role": "the keeper's daughter"}],
})
SEARCH = "I search the cottage for a key to the padlock."
PLAIN_FAILURE = "Eddie searches the cottage but finds no key to the padlock."


def act(**kw) -> NarrationRequest:
    base = dict(pack=rulesets.load("coc7e"), scene="The keeper's cottage is dark; the lighthouse door is chained from the inside.",
                name="Eddie", line=SEARCH, decision="roll", verdict="Eddie's Locksmith roll: failure.", success=False,
                pc_names=["Eddie Kowalczyk", "Eddie"], world=COTTAGE)
    return NarrationRequest(**(base | kw))


def told(model, req: NarrationRequest) -> tuple[str, list[str], list[str]]:
    shown: list[str] = []
    out = asyncio.run(narrate(model, req, on_token=shown.append))
    assert "".join(shown) == out.text  # what the table saw is what the log keeps
    return out.text, shown, out.notes


def test_streamed_from_a_server_the_first_sentence_is_shown_on_its_own_before_the_rest():
    first = "Eddie turns the cottage over from stove to table, but there is no key to the padlock anywhere."
    second = "It could hardly have gone worse."
    with FakeServer(reply=f"{first} {second}") as server:  # a few characters a chunk, as a real server streams
        model = get_model("openai:fake", base_url=server.base_url, cache=False)
        text, shown, notes = told(model, act(verdict="Eddie's Locksmith roll: fumble."))
    assert shown == [first, " " + second] and text == f"{first} {second}"
    assert notes == ["narration worded the planned outcome (failed)"]


def test_a_later_sentence_that_tells_of_a_death_is_dropped_and_the_first_stays():
    first = "Eddie turns the cottage over from stove to table, but there is no key to the padlock anywhere."
    worse = "It could hardly have gone worse."
    text, shown, notes = told(ScriptedModel(by_step={"narrate": [f"{first} Ruth Quist lies dead by the cold stove. {worse}"]}),
                              act(verdict="Eddie's Locksmith roll: fumble."))
    assert text == f"{first} {worse}" and shown == [first, " " + worse]
    assert any("cut a sentence that told of a death" in n for n in notes)


def test_the_scene_the_plan_sets_the_act_in_is_worded_and_not_cut_as_a_repeat_of_the_scene():
    first = "Eddie turns the cottage over from stove to table, but there is no key to the padlock anywhere."
    scene = "The keeper's cottage is dark and smells of lamp oil."
    req = act(scene=f"{scene} The lighthouse door is chained from the inside.", scene_line=scene)
    text, shown, notes = told(ScriptedModel(by_step={"narrate": [f"{first} {scene}"]}), req)
    assert text == f"{first} {scene}" and shown == [first, " " + scene] and not any("cut" in n for n in notes)


def test_a_bad_first_sentence_means_the_plan_is_said_plainly_and_nothing_after_it_is_shown():
    reply = "Eddie finds the key to the padlock under the stove. Eddie turns the cottage over, but there is no key anywhere."
    text, shown, notes = told(ScriptedModel(by_step={"narrate": [reply]}), act())
    assert text == PLAIN_FAILURE and shown == [PLAIN_FAILURE]
    assert any("contradicted the dice" in n for n in notes)


def test_once_the_plan_is_told_the_model_adds_nothing_more():
    first = "Eddie turns the cottage over from stove to table, but there is no key to the padlock anywhere."
    text, shown, _ = told(ScriptedModel(by_step={"narrate": [f"{first} Eddie wipes the dust from the keeper's cottage table."]}), act())
    assert text == first and shown == [first]


def test_what_was_found_and_the_reply_left_out_is_added_word_for_word():
    found = "Wet footprints lead from the cellar hatch to the lighthouse door."
    req = act(line="I look for footprints by the hatch.", verdict="Eddie's Spot Hidden roll: success.", success=True, found=found)
    text, shown, notes = told(ScriptedModel(by_step={"narrate": ["Eddie crouches and looks by the hatch."]}), req)
    assert text == f"Eddie crouches and looks by the hatch. {found}" and shown == ["Eddie crouches and looks by the hatch.", " " + found]
    assert "narration: added what was found, which the reply left out" in notes


RUTH = World(npcs=[Npc(name="Ruth Quist", aliases=["Ruth"], role="the keeper's daughter", voice="clipped, polite", knows=[
    Knowledge(topic="when she last saw her father", answer="four nights ago, at dusk, when he walked out to the lighthouse")])])
QUESTION = "Ruth, when did you last see your father?"
ANSWER = '"Four nights ago, at dusk, when he walked out to the lighthouse."'


def question() -> NarrationRequest:
    answer = choose_answer(read_intent(QUESTION, npcs=RUTH.npcs, pcs=["Eddie Kowalczyk", "Eddie"]), RUTH)
    assert answer is not None and answer.quote
    return act(line=QUESTION, decision="no_roll", verdict="", success=None, world=RUTH, answer=answer)


def test_an_npc_answer_is_held_until_ruth_has_said_it_then_a_later_bad_sentence_is_dropped():
    reply = f"Ruth twists her apron. {ANSWER} Her brother Jonah saw him go as well."
    text, shown, notes = told(ScriptedModel(by_step={"narrate": [reply]}), question())
    assert shown == [f"Ruth twists her apron. {ANSWER}"] and text == shown[0]
    assert any("named Jonah" in n for n in notes)


def test_an_answer_that_starts_with_a_stranger_is_said_plainly_by_the_npc():
    reply = f"Her brother Jonah twists his cap. {ANSWER}"
    text, shown, notes = told(ScriptedModel(by_step={"narrate": [reply]}), question())
    assert text.startswith('Ruth Quist says, "Four nights ago') and shown == [text]
    assert any("said the answer plainly" in n and "named Jonah" in n for n in notes)
