"""The small-model GM turn: a constrained choice that can only be valid, clues found by intent,
impossible acts never rolled, narration that is streamed and guarded."""
from __future__ import annotations

import asyncio
import json
import re
import zlib

import numpy as np
import pytest
from hypothesis import given, strategies as st

import rulesets
from gm.agent import GameMaster
from gm.clues import is_talk, reaching_for
from gm.narration import NarrationRequest, fallback, narrate, speaks_for, split_sentences, third_person
from gm.table import load_scenario
from pipelines.check_index import CheckIndex
from pipelines.decide import DEFAULT_RULES
from pipelines.llm import ScriptedModel, get_model
from pipelines.llm.fake_server import FakeServer
from pipelines.pipeline import Pipeline, PipelineSpec, StepSpec
from pipelines.records import MoeInstance, Turn
from pipelines.speech import spoken_checks
from pipelines.steps.adjudicate import without_names
from tests.play.conftest import toy_decision

DND = rulesets.load("dnd5e")


def bag_of_words(texts: list[str]) -> np.ndarray:
    """A tiny deterministic embedding for tests: hashed word counts (crc32: the same in every process, unlike hash()), L2-normalised."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in text.lower().split():
            out[i, zlib.crc32(word.strip(".,!?").encode()) % 64] += 1.0
    return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-9, None)


INDEX = CheckIndex([
    ("stealth", "I sneak past the guard"), ("stealth", "I creep quietly past"),
    ("perception", "I look around for danger"), ("athletics", "I climb the wall"),
    ("no_roll", "What does the room look like"), ("impossible", "I fly to the moon"),
], embed=bag_of_words)


ROLLS, STAYS = toy_decision(64, p_roll=0.9), toy_decision(64, p_roll=0.1)  # the learned decision, for bag_of_words


def instance(line: str) -> MoeInstance:
    return MoeInstance(id="t", ruleset="dnd5e", context=[Turn(speaker="GM", text="A quiet hall."), Turn(speaker="Brisa", text=line)],
                       characters=["Brisa"])


def adjudicate(**args) -> Pipeline:
    return Pipeline(PipelineSpec(name="adjudicate_test", steps=[StepSpec(name="adjudicate", args=args)]))


def test_the_server_is_asked_for_an_enum_and_an_invalid_choice_falls_back_to_the_learned_decision():
    with FakeServer(reply='{"choice": "flying"}') as server:
        model = get_model("openai:fake", base_url=server.base_url, cache=False)
        result = asyncio.run(adjudicate(mode="model").run(instance("I sneak past the guard"), model, pack=DND, check_index=INDEX))
    sent = server.requests[0]["response_format"]["json_schema"]["schema"]
    assert sent["properties"]["choice"]["enum"][0] == "no_roll" and sent["properties"]["choice"]["enum"][-1] == "impossible"
    assert "stealth" in sent["properties"]["choice"]["enum"]
    assert result.decision == "roll" and [c.skill for c in result.checks] == ["stealth"]
    (step,) = result.steps
    assert not step.parse_ok and "not one of" in step.error and "flying" in step.dropped[0]


def test_a_valid_choice_from_the_server_is_taken():
    with FakeServer(reply='{"choice": "impossible"}') as server:
        model = get_model("openai:fake", base_url=server.base_url, cache=False)
        result = asyncio.run(adjudicate(mode="model").run(instance("I sneak past the guard"), model, pack=DND, check_index=INDEX))
    assert result.decision == "impossible" and result.checks == []


def test_hybrid_asks_the_model_only_for_a_close_call_among_the_leading_checks():
    """Clear (P(roll) 0.9 against 0.5: 2.2 log-odds off) is the learned model's; close (0.55) goes to the model
    (no rules listed: "sneak" names its act, and that rule would have the last word on the check)."""
    model = ScriptedModel(by_step={"adjudicate": ['{"choice": "perception"}']})
    clear = asyncio.run(adjudicate(mode="hybrid").run(instance("I sneak past the guard"), model, pack=DND, check_index=INDEX,
                                                      decision_model=ROLLS))
    assert clear.decision == "roll" and clear.checks[0].skill == "stealth" and model.requests == []
    assert clear.steps[0].parsed["by"] == "learned"
    close = asyncio.run(adjudicate(mode="hybrid", candidates=2, rules=[]).run(instance("I look around and sneak past"), model, pack=DND, check_index=INDEX,
                                                                    decision_model=toy_decision(64, p_roll=0.55)))
    (asked,) = model.requests
    enum = asked["json_schema"]["properties"]["choice"]["enum"]
    assert enum[0] == "no_roll" and enum[-1] == "impossible" and len(enum) == 4 and "perception" in enum
    assert close.checks[0].skill == "perception" and close.steps[0].parsed["by"] == "model"


@pytest.mark.parametrize("line, decision", [
    ("Out of character: can my paladin keep the reward under her oath?", "no_roll"),
    ("(OOC) I sneak past the guard, right? that's what I said last time", "no_roll"),
    ("OOC: can I google the grappling rules on my phone?", "no_roll"),  # table talk, not an act the era rule refuses
    ("I sneak past the guard", "roll"),
    ("I sneak past the guard, though out of character I'm nervous", "roll"),  # only a line that opens as table talk
])
def test_table_talk_marked_out_of_character_is_answered_without_dice(line, decision):
    result = asyncio.run(adjudicate().run(instance(line), None, pack=DND, check_index=INDEX, decision_model=ROLLS))
    assert result.decision == decision and (result.checks == []) is (decision != "roll")
    assert (result.steps[0].parsed.get("rule") == "out of character") is (decision != "roll")


def test_the_line_can_name_who_rolls():
    inst = MoeInstance(id="t", ruleset="dnd5e", context=[Turn(speaker="Brisa", text="Oskar, climb the wall for us")],
                       characters=["Brisa", "Oskar"])
    result = asyncio.run(adjudicate().run(inst, None, pack=DND, check_index=INDEX, decision_model=ROLLS))
    assert [(c.character, c.skill) for c in result.checks] == [("Oskar", "athletics")]


def test_a_characters_name_does_not_choose_the_check():
    index = CheckIndex([("intimidation", "Dutch Calloway scowls"), ("athletics", "swims hard"),
                        ("no_roll", "what time is it")], embed=bag_of_words)
    inst = MoeInstance(id="t", ruleset="swade", context=[Turn(speaker="Dutch Calloway", text="Dutch Calloway swims")],
                       characters=["Dutch Calloway|Dutch"])
    uncued = [r for r in DEFAULT_RULES if r != "named_act"]  # "swims" names its act: the rule would say athletics either way
    named = asyncio.run(adjudicate(drop_names=False, rules=uncued).run(inst, None, pack=DND, check_index=index, decision_model=ROLLS))
    unnamed = asyncio.run(adjudicate(rules=uncued).run(inst, None, pack=DND, check_index=index, decision_model=ROLLS))
    assert named.checks[0].skill == "intimidation"
    assert [(c.character, c.skill) for c in unnamed.checks] == [("Dutch Calloway", "athletics")]
    assert without_names("dutch's rope and Dutch Calloway's knife", inst) == "rope and knife"


def test_the_needs_dice_direction_hears_effort_that_the_nearest_lines_miss():
    from pipelines.check_index import LineSense

    dice = LineSense.from_packs("dice")
    assert dice("I grab the healer's kit and try to treat the bite before the venom spreads") > 0.6
    assert dice("ok I'm just gonna climb out. jams my fingers in the cracks and hauls myself up") > 0.6
    assert dice("I sit down by the fire") < 0.3 and dice("I pay the gate fee for both of us.") < 0.5
    # questions it cannot tell (knowledge checks are asked as questions too): that is the vote's part
    assert 0.3 < dice("What does the innkeeper look like?") < 0.7


def gm(pack, scenario, decisions, narrations, **kw):
    """A GM whose decision model answers ``decisions`` in order (mode=model) and narrates ``narrations``."""
    spec = kw.pop("spec", None)
    model = ScriptedModel(by_step={"adjudicate": [json.dumps({"choice": d}) for d in decisions], "narrate": list(narrations)})
    g = GameMaster(pack, scenario, model, memory=False, seed=4, **kw)
    g.pipeline = spec or adjudicate(mode="model")
    return g, model


def test_an_impossible_act_is_never_rolled_and_never_succeeds():
    said = "Brisa flaps her arms hard, but she cannot fly; no one flies by flapping their arms, and she stays where she is."
    g, _ = gm("dnd5e", "drowned_chapel", ["impossible"], [said])
    reply = g.step("Brisa", "I flap my arms and fly up to the bell tower")
    assert reply.decision == "impossible" and reply.rolls == [] and reply.checks == []
    assert reply.narration == said  # it says the act fails, and the decision's reason


def test_a_refusal_that_leaves_out_the_decisions_reason_is_said_plainly_with_it():
    """The reason a refusal gives is the one the decision recorded, never one the model makes up."""
    g, _ = gm("dnd5e", "drowned_chapel", ["impossible"], ["The tower is sheer wet stone, and arms are not wings; you stay where you are."])
    reply = g.step("Brisa", "I flap my arms and fly up to the bell tower")
    assert reply.narration == "Brisa cannot flap their arms and fly up to the bell tower: no one flies by flapping their arms."
    assert any("planned outcome plainly" in n for n in reply.notes)


def test_a_question_gets_an_answer_and_no_dice():
    worded = "The floodwater comes up to your knees, and anyone who falls in will come up soaked and shivering."
    g, model = gm("dnd5e", "drowned_chapel", ["no_roll"], [worded])
    reply = g.step("Brisa", "How deep is the water in here?")
    assert reply.decision == "no_roll" and reply.rolls == [] and reply.narration == worded  # the model's words of the depth are kept
    asked = model.requests[-1]["messages"][-1]["content"]
    assert re.search(r"knee.deep", asked, re.I)  # the model words the scene's own depth; it does not make one up


def test_clues_open_by_intent_even_when_the_model_says_no_roll():
    pack = rulesets.load("coc7e")
    g, _ = gm("coc7e", "lantern_house", ["no_roll"], ["You crouch low; the boards are cold and gritty under your palm."])
    reply = g.step("Margaret", "I kneel and look closely at the floorboards by the cellar hatch")
    (roll,) = reply.rolls
    assert roll.check in load_scenario("lantern_house", pack).secrets[1].checks and roll.secret == "wet_prints"
    assert roll.target_label.startswith("Hard")
    assert reaching_for(load_scenario("lantern_house", pack), "I say good evening to Ruth", set()) is None


def test_a_question_put_to_someone_is_answered_even_when_it_touches_a_secret():
    g, _ = gm("dnd5e", "drowned_chapel", ["no_roll"] * 3, ["Maren twists her hands. The bell began on the night of the storm, she says."] * 3)
    assert reaching_for(g.scenario, "Maren, what do you know about the bell?", set()) is not None  # it does touch the bell's secret
    for line in ("Maren, what do you know about the bell?", '"Maren, when did the bell first start ringing?" I ask.'):
        reply = g.step("Brisa", line)
        assert reply.decision == "no_roll" and reply.rolls == [], line
    reply = g.step("Brisa", "I wade under the bell and look closely at it for any mark or rite")
    assert reply.rolls and reply.rolls[0].secret == "bell_glyph"  # an act that says how it reaches for it still rolls
    reply = g.step("Brisa", "I wade slowly down the aisle toward the bell, pushing the pews aside")
    assert not reply.rolls  # walking toward it shares its words, not the search (the decider said no roll)


@pytest.mark.parametrize("line, talk", [
    ('"Thank you for waiting up for us," I say to Maren.', True),
    ("I nod to Maren: 'Evening. We're here about the bell. Mind if we look around?'", True),
    ("Maren, when did the bell start?", True),
    ('"Where would they hide it?" I ask, watching her hands while she answers.', False),
    ("Maren, I search the altar.", False),
    ("I search the altar for a hidden catch", False),
    ('"Open this gate, or you swim," Marisol says, and kicks the barrel.', False),
    ("Miss Quist, when did you last see your father? Did he say anything odd?", True),
    ("Oh, what? Amazing. I move my full speed, 40 feet. Does it get me in?", False),  # an interjection is no one's name
    ("Ja, I can, but I poof into Frumpkin's senses. Do I hear anything?", False),  # a statement, then the question
])
def test_talk_is_told_from_an_act_around_the_words(line, talk):
    assert is_talk(line) is talk


TALK_INDEX = CheckIndex([
    ("dexterity_save", "the bell tower collapses and I throw myself clear"),
    ("persuasion", '"Please, let us in," I beg'), ("no_roll", "What does the room look like"),
], embed=bag_of_words)


@pytest.mark.parametrize("line, chosen, expected", [
    ("Maren, what do you know about the bell tower?", "dexterity_save", ("no_roll", [])),  # a question: answered, whatever was picked
    ('"Please, Maren, let us in," I beg.', "persuasion", ("roll", [("Brisa", "persuasion")])),  # ...but can call a plea
    ("I throw myself clear as the bell tower collapses", "dexterity_save", ("roll", [("Brisa", "dexterity_save")])),  # an act
    ('"Who paid for the new bell, Maren?"', "persuasion", ("no_roll", [])),      # a question for facts is answered
    ('"Why don\'t you let us in, Maren?"', "persuasion", ("roll", [("Brisa", "persuasion")])),  # a plea dressed as a question
])
def test_a_question_for_facts_is_answered_but_a_plea_or_an_act_is_rolled(line, chosen, expected):
    model = ScriptedModel(by_step={"adjudicate": [json.dumps({"choice": chosen})]})
    result = asyncio.run(adjudicate(mode="model").run(instance(line), model, pack=DND, check_index=TALK_INDEX))
    assert (result.decision, [(c.character, c.skill) for c in result.checks]) == expected
    settled = [f["rule"] for f in result.steps[0].parsed["fired"] if f["stage"] == "settle"]
    assert ("question_for_facts" in settled) is (expected[0] == "no_roll")


@pytest.mark.parametrize("pack, spoken, not_spoken", [
    ("dnd5e", {"persuasion", "deception", "intimidation"}, {"dexterity_save", "perception", "arcana", "history"}),
    ("coc7e", {"persuade", "fast_talk", "intimidate", "charm"}, {"dodge", "spot_hidden", "occult", "listen"}),
    ("pf2e", {"diplomacy", "deception", "intimidation"}, {"reflex", "perception", "religion"}),
    ("swade", {"persuasion", "intimidation", "taunt"}, {"agility", "notice", "shooting"}),
])
def test_the_packs_own_examples_say_which_checks_are_spoken(pack, spoken, not_spoken):
    found = spoken_checks(rulesets.load(pack))
    assert spoken <= found and not (not_spoken & found)


class PicksFrom(ScriptedModel):
    """Answers the decision step with the first of ``wanted`` it is offered (the ranking decides which are)."""

    def __init__(self, wanted: list[str], **kw):
        super().__init__(**kw)
        self.wanted, self.picked = wanted, []

    async def complete(self, messages, *, step=None, json_schema=None, **kw):
        if step == "adjudicate":
            offered = json_schema["properties"]["choice"]["enum"]
            self.picked.append(next((c for c in offered if c in self.wanted), "none offered"))
            self._by_step.setdefault("adjudicate", []).append(json.dumps({"choice": self.picked[-1]}))
        return await super().complete(messages, step=step, json_schema=json_schema, **kw)


def test_a_question_to_someone_does_not_turn_into_the_secrets_check():
    glyph = next(s for s in load_scenario("drowned_chapel", DND).secrets if s.id == "bell_glyph")
    model = PicksFrom(glyph.checks, by_step={"narrate": ["Maren shakes her head. The bell was cast before her time, she says."]})
    g = GameMaster(DND, "drowned_chapel", model, memory=False, seed=4)
    g.pipeline = adjudicate(mode="model")
    reply = g.step("Brisa", "Maren, what do you know about the bell?")  # the model picks one of the bell secret's checks
    (picked,) = model.picked
    assert picked in glyph.checks
    assert reply.decision == "no_roll" and reply.rolls == []
    assert any(note.startswith("question_for_facts: a question for facts is answered by the one asked") for note in reply.notes), reply.notes


def test_a_check_outside_the_secrets_family_becomes_one_that_can_find_it():
    pack = rulesets.load("coc7e")
    scene = load_scenario("lantern_house", pack)
    g, _ = gm("coc7e", scene, [], ["The logbook's ink has run in places, but the pages still turn."], spec=adjudicate())
    reply = g.step("Margaret", "I read the keeper's logbook closely, page by page")
    assert reply.rolls and reply.rolls[0].check in scene.secrets[0].checks


@pytest.mark.parametrize("threshold", [0.0, 1.0])  # rolled or not by the learned decision
def test_an_act_that_only_shares_a_secrets_words_never_rolls_the_secrets_check(threshold):
    g, _ = gm("dnd5e", "drowned_chapel", [], ["You sail over the water and catch nothing but air."], spec=adjudicate(threshold=threshold))
    glyph = next(s for s in g.scenario.secrets if s.id == "bell_glyph")
    reply = g.step("Ilya", "I take a running start and leap across the nave to the bell rope")
    assert len(reply.rolls) == (1 if threshold == 0.0 else 0), reply.notes
    assert all(r.check not in glyph.checks and r.secret is None for r in reply.rolls)  # a leap is no study of the bell


def test_picking_a_lock_by_the_secret_stays_a_lock_pick_not_a_search():
    g, _ = gm("coc7e", "lantern_house", [], ["The old lock grinds under the pick."], spec=adjudicate())
    reply = g.step("Tomás", "I pick the lock on the cellar door.")  # "cellar" is one of the footprints' words
    (roll,) = reply.rolls
    assert roll.check == "locksmith" and not any(note.startswith("secret_within_reach:") for note in reply.notes), reply.notes


def test_check_command_rolls_the_named_check_with_the_sheet_modifier():
    g, _ = gm("dnd5e", "drowned_chapel", [], ["You move through the flooded nave as quietly as the water allows."])
    reply = g.step("Brisa", "/check stealth")
    (roll,) = reply.rolls
    assert roll.check == "stealth" and roll.expression == "1d20+7" and reply.decision == "roll"
    with pytest.raises(rulesets.VgmError, match="/check: unknown check 'flying'"):
        g.step("Brisa", "/check flying")


def test_narration_streams_what_it_finally_says():
    g, _ = gm("dnd5e", "drowned_chapel", ["no_roll"], ["Maren looks up from her candles. Her eyes are red from smoke and tiredness."])
    pieces: list[str] = []
    reply = g.step("Brisa", "I wave at Maren from the doorway", on_token=pieces.append)
    assert "".join(pieces) == reply.narration and reply.timing["first_token_s"] is not None
    assert reply.timing["turn_s"] >= reply.timing["first_token_s"]


def request(**kw) -> NarrationRequest:
    base = dict(pack=DND, scene="A flooded chapel.", name="Brisa", line="I search the altar for a hidden catch", decision="roll",
                verdict="Brisa's Investigation roll: success.", success=True, pc_names=["Brisa Tallowmere", "Brisa", "Oskar"],
                hidden=["Maren moved the reliquary herself."], scene_line="The altar is slick with algae.")
    base.update(kw)
    return NarrationRequest(**base)


@pytest.mark.parametrize("first, cause", [
    ("I search the altar for a hidden catch. You search the altar for the hidden catch.", "echoed the player's line"),
    ('Brisa says, "I found it!" Oskar replies that he is glad.', "put words in Brisa's mouth"),
    ("Now, as the GM, tell Brisa what happens next? Result: success.", "leaked prompt text"),
    ("Maren moved the reliquary herself, you realise.", "leaked GM-only text"),
    ("You fail, and there is no sign of anything.", "contradicted the dice"),
    ("Behind the altar, Father Aldous waits with a knife.", "named Father, Aldous, who is nowhere in the scene"),
    ("The lantern glows a ghostly ghostly ghostly ghostly ghostly ghostly green.", "repeated itself"),
    ("The catch will not give, and your pick slips with a sharp click.", "copied a worked example"),
    ("The stones are cold and the stones are wet, and the stones are cold and the stones are wet.", "repeated itself"),
])
def test_bad_sentences_are_cut_retried_and_the_note_names_the_cause(first, cause):
    model = ScriptedModel(by_step={"narrate": [first, "Under the lip your fingers meet a cold brass ring set into the stone."]})
    said = asyncio.run(narrate(model, request()))
    assert said.text == "Under the lip your fingers meet a cold brass ring set into the stone."
    assert any(cause in note for note in said.notes)


def test_names_the_gm_was_given_pass_and_sentence_starts_quotes_and_abbreviations_are_not_names():
    from gm.narration import known_words, strangers

    known = known_words("Old Maren waits by the bell of the Lantern Saint.", "Brisa")
    assert strangers("Maren watches you; the Saint's bell hums over Brisa.", known) == []
    assert strangers('She smiles. "Welcome back, friend," says Maren at 10 PM.', known) == []
    assert strangers("His wife, Sarah, has been away for years.", known) == ["Sarah"]


def test_after_two_bad_replies_the_fallback_describes_instead_of_a_bare_verdict():
    model = ScriptedModel(by_step={"narrate": ["I search the altar for a hidden catch.", "Brisa says: found it."]})
    said = asyncio.run(narrate(model, request(found="A dry cavity holds a folded note.")))
    assert said.fell_back and "check succeeds" not in said.text and "folded note" in said.text
    assert len(said.text.split()) >= 8 and any("fell back" in n and "put words" in n for n in said.notes)


def test_fallback_sentences_read_as_the_table_would_say_them():
    assert third_person("Brisa", "I search the altar and lift my lamp") == "Brisa searches the altar and lifts their lamp"
    assert fallback("Ilya", "I try to fly to the moon", "impossible", None).startswith("Ilya cannot fly to the moon")
    assert "does not go their way" in fallback("Oskar", "I pick the lock", "roll", False)
    asked = fallback("Margaret", '"Ruth, did your father ever talk about the lamp?"', "no_roll", None, scene_line="The stove is cold.")
    assert asked == "Margaret waits for an answer. The stove is cold."  # spoken words are not retold as an act ('Margaret "Ruth,s did...')


@pytest.mark.parametrize("name, line, decision, success, starts", [
    ("Brisa", "Brisa edges along the ledge, back pressed to the cliff, one careful step at a time.", "roll", True,
     "Brisa sets out to edge along the ledge, and it works."),
    ("Brisa", "brisa casts fireball right into the middle of them", "impossible", None, "Brisa cannot cast fireball right into"),
    ("Keth", "Keth draws his longbow and shoots out the lantern.", "impossible", None, "Keth cannot draw his longbow and shoot out the lantern"),
    ("Lottie", "Lottie crawls under the engine with her big wrench and goes to work on that valve.", "roll", False,
     "Lottie tries to crawl under the engine with her big wrench, but"),
    ("Pip", "Pip is hiding behind the barrels, very still.", "roll", True, "Pip sets out to hide behind the barrels, and it works."),
    ("Marisol", "She holds her breath as best she can and pushes through the reek.", "roll", False,
     "Marisol tries to hold her breath as best she can, but"),
])
def test_a_line_told_in_the_third_person_is_retold_briefly_not_handed_back(name, line, decision, success, starts):
    """'Brisa sets out to Brisa edges along the ledge, back pressed to the cliff...' was an echo of the whole line."""
    from eval.play._summary import is_echo

    text = fallback(name, line, decision, success, why="no one could do that", scene_line="Cold wind pulls at the ropes.")
    assert text.startswith(starts) and not is_echo(text, line)


def test_speech_for_a_player_character_is_spotted_but_describing_them_is_fine():
    names = ["Brisa", "Oskar Venn", "Oskar"]
    assert speaks_for('"Let us go," Oskar says.', names)
    assert speaks_for("Brisa: I'll take the left door.", names)
    assert not speaks_for("Brisa's lamp gutters as the wind rises.", names)
    assert not speaks_for("Maren says the bell has hummed all week.", names)


def test_sentences_split_with_abbreviations_in_mind():
    assert split_sentences("Dr. Hale opens the door. Mr. Quist is not there! St. Brendan's bell rings... Then silence.") == [
        "Dr. Hale opens the door.", "Mr. Quist is not there!", "St. Brendan's bell rings...", "Then silence."]
    assert split_sentences("J. R. Quist wrote it, e.g. in red ink. Done.") == ["J. R. Quist wrote it, e.g. in red ink.", "Done."]


@given(st.lists(st.sampled_from(["Dr.", "Hale", "walks", "in.", "St.", "Mary", "waits!", "Why?", "e.g.", "the", "bell", "rings."]), max_size=30))
def test_splitting_never_loses_or_invents_words(words):
    text = " ".join(words)
    assert " ".join(split_sentences(text)).split() == text.split()


def test_the_host_can_undo_and_regenerate_the_last_reply(tmp_path):
    model = ScriptedModel(replies=[  # the dice find the catch: two wordings of that outcome
        "Brisa searches the altar until a hidden catch under the altar's lip opens a dry cavity holding wet footprints of small bare "
        "feet and a folded note that reads \"not until he leaves\".",
        "Brisa's fingers work along the altar. A hidden catch under its lip opens a dry cavity: wet footprints of small bare feet, "
        "and a folded note that reads \"not until he leaves\"."])
    g = GameMaster("dnd5e", "drowned_chapel", model, memory=False, seed=2, session_path=tmp_path / "s.json")
    first = g.step("Brisa", "I search the altar for a hidden catch")
    again = g.regenerate()
    assert again.narration != first.narration and [r.total for r in again.rolls] == [r.total for r in first.rolls]
    assert len(g.session.turns) == 1
    assert g.undo() and g.session.turns == [] and len(g.session.log) == 1
    assert json.loads((tmp_path / "s.json").read_text())["turns"] == []


def test_acts_the_impossible_direction_finds_unlikely_are_rolled_at_the_hardest_difficulty():
    from pipelines.check_index import LineSense

    sense = LineSense.from_packs("impossible")
    assert sense("I flap my arms and fly up to the clock tower") > 0.6
    assert sense("I lift the whole cathedral over my head") > 0.6
    assert sense("I climb the rope up to the hayloft") < 0.5
    assert sense("What does the innkeeper look like?") < 0.4
    line = instance("I flap my arms and fly up to the clock tower")

    def decide(at):  # where the learned model would not roll: the direction alone makes it a roll, at the hardest
        return asyncio.run(adjudicate(rules=["implausible"]).run(line, None, pack=DND, check_index=INDEX, impossible_sense=sense,
                                                                 decision_model=toy_decision(64, p_roll=0.1, implausible_at=at)))
    hard = decide(0.6)
    assert hard.decision == "roll" and hard.steps[0].parsed["p_impossible"] > 0.6 and hard.steps[0].parsed["hardest"]
    assert [(f["rule"], f["from"]) for f in hard.steps[0].parsed["fired"]] == [("implausible", "no_roll")]
    below = decide(0.99)
    assert below.decision == "no_roll" and not below.steps[0].parsed["hardest"] and below.steps[0].parsed["fired"] == []


def test_an_impossible_act_is_never_narrated_as_done():
    model = ScriptedModel(by_step={"narrate": ["The lighthouse falls over, and you feel a strong sensation.",
                                               "Your fists only bruise against the granite; the tower does not so much as tremble."]})
    said = asyncio.run(narrate(model, request(line="I punch the lighthouse until it falls over", decision="impossible", verdict="", success=None)))
    assert said.text.startswith("Your fists only bruise") and any("let the impossible succeed" in n for n in said.notes)


def test_a_reply_that_tells_the_impossible_act_as_done_is_cut():
    """'The fireball strikes the bell tower... Brisa cannot cast fireball' told both at once (a real 0.5B reply)."""
    model = ScriptedModel(by_step={"narrate": ["The fireball strikes the bell tower at the far end. Water laps at the pews."]})
    out = asyncio.run(narrate(model, request(line="I cast fireball at the bell", decision="impossible", verdict="", success=None,
                                             why="Brisa has no magic for a spell")))
    assert "strikes" not in out.text and "no magic for a spell" in out.text
    assert any("let the impossible succeed" in n for n in out.notes)


@pytest.mark.parametrize("said, why, added", [
    ("The bell tower rises above you, black against the storm clouds.", "", "nothing in this world allows it"),
    ("You brace your hands against the chapel wall and strain with all you have.", "no one could move that", "no one could move that"),
    ("You strain until your arms shake; no one could move a building that size.", "no one could move that", None),
    ("The tower is sheer wet stone, and arms are not wings; you stay where you are.", "", None),
    ("The far wall of the chapel is 200 feet away across the water.", "no one jumps 200 feet", "no one jumps 200 feet"),  # the reason's words, not that it fails
])
def test_the_player_hears_why_an_impossible_act_fails(said, why, added):
    """The reason the rules found, or at least that it cannot work, reaches the table even when the reply leaves it out."""
    shown: list[str] = []
    model = ScriptedModel(by_step={"narrate": [said]})
    out = asyncio.run(narrate(model, request(line="I heave the whole chapel off its footings", decision="impossible", verdict="",
                                             success=None, why=why), on_token=shown.append))
    assert out.text.startswith(said)
    if added:
        assert added in out.text.removeprefix(said) and "Brisa cannot heave the whole chapel" in out.text
        assert any("why the act cannot work" in n for n in out.notes) and "".join(shown).strip() == out.text
    else:
        assert out.text == said and not any("cannot work" in n for n in out.notes)


class DecisionServerDown(ScriptedModel):
    """Narrates from its script, but the decision call finds the server gone."""

    async def complete(self, messages, *, step=None, **kw):
        if step == "adjudicate":
            raise ConnectionError("the model server went away")
        return await super().complete(messages, step=step, **kw)


def test_a_decision_step_that_breaks_is_reported_as_failed_not_passed_off_as_no_roll():
    model = DecisionServerDown(by_step={"narrate": ["Cold water laps at the pews, and the bell hangs silent above."]})
    g = GameMaster(DND, "drowned_chapel", model, memory=False, seed=4)
    g.pipeline = adjudicate(mode="model")
    reply = g.step("Brisa", "I wave to the others and sit down on a dry pew.")
    assert reply.decision == "no_roll" and reply.rolls == []
    assert reply.failed.startswith("decision step:") and any("decision step failed" in n for n in reply.notes)


def test_an_act_its_own_words_rule_out_is_refused_unasked_and_the_fallback_says_why():
    line = "I lift the whole chapel off its stones and carry it to the shore."
    g, model = gm("dnd5e", "drowned_chapel", ["athletics"], [line, line])  # the model would roll it; two echoes as narration
    reply = g.step("Brisa", line)
    assert reply.decision == "impossible" and reply.rolls == []
    assert not [r for r in model.requests if r.get("step") == "adjudicate"]  # the rule decided; no model call
    assert "no one could move that" in reply.narration


def test_what_the_dice_found_reaches_the_table_even_when_the_reply_leaves_it_out():
    found = "Under the lip of the altar a brass ring is set into the stone."
    model = ScriptedModel(by_step={"narrate": ["Cold water laps at the pews while the bell hums above you."]})
    shown: list[str] = []
    said = asyncio.run(narrate(model, request(found=found), on_token=shown.append))
    assert said.text.endswith(found) and "".join(shown).endswith(found)
    assert any("added what was found" in n for n in said.notes)
    told = ScriptedModel(by_step={"narrate": ["Your fingers find a brass ring set into the stone under the altar's lip."]})
    assert asyncio.run(narrate(told, request(found=found))).notes == []
    missed = ScriptedModel(by_step={"narrate": ["Your fingers slide over cold wet stone and find nothing at all."]})
    failed = asyncio.run(narrate(missed, request(found="The altar seems solid stone.", success=False, verdict="Brisa's Investigation roll: failure.")))
    assert failed.text == "Your fingers slide over cold wet stone and find nothing at all."  # a failure's flavour text is optional


def test_a_looping_sentence_is_spotted_but_plain_prose_is_not():
    from gm.narration import repeats_itself

    assert repeats_itself("The padlock is locked with a sharp click, and your pick slips with a sharp click.")
    assert not repeats_itself("Rain drums on the chapel roof while Maren mends a net by the door of the vestry.")
    assert not repeats_itself("The door of the barn is open and the door of the house is shut.")


def test_a_failed_recall_tells_no_lore_and_falls_back_to_not_knowing():
    """'Which noble house is it?' failed Society: a 0.5B reply invented 'a common crest in ancient societies'."""
    lore = "The silver stag is the crest of an old river family, long loyal to the crown."
    model = ScriptedModel(by_step={"narrate": [lore, lore]})
    out = asyncio.run(narrate(model, request(line="Do I know whose crest that is?", verdict="Brisa's History roll: failure.",
                                             success=False, recall=True)))
    assert "river family" not in out.text and "nothing useful comes back" in out.text and out.text.endswith("slick with algae.")
    assert any("told lore a failed recall did not earn" in n for n in out.notes)


def test_a_failed_recall_may_say_what_is_not_known_and_a_success_may_tell_lore():
    unsure = "The crest tugs at your memory, but the name will not come."
    said = asyncio.run(narrate(ScriptedModel(by_step={"narrate": [unsure]}),
                               request(line="Do I know whose crest that is?", verdict="Brisa's History roll: failure.", success=False, recall=True)))
    assert said.text == unsure
    lore = "The silver stag is the crest of an old river family, long loyal to the crown."
    told = asyncio.run(narrate(ScriptedModel(by_step={"narrate": [lore]}),
                               request(line="Do I know whose crest that is?", verdict="Brisa's History roll: success.", success=True, recall=True)))
    assert told.text == lore


def test_the_gm_counts_a_packs_knowledge_checks_as_recall_and_nothing_else():
    knowledge = GameMaster(DND, "drowned_chapel", ScriptedModel(replies=["x"]), memory=False, seed=4)._knowledge
    assert {"history", "religion", "arcana", "nature"} <= knowledge and not {"athletics", "perception", "investigation"} & knowledge


def test_a_refused_act_is_not_among_the_lines_the_next_narration_reads():
    """'I punch the lighthouse until it falls over' came back a turn later as 'The lighthouse falls over'."""
    model = ScriptedModel(by_step={"narrate": ["Cold water laps at the pews, and the bell hangs silent above the nave."]}, repeat_last=True)
    g = GameMaster(DND, "drowned_chapel", model, memory=False, seed=4)
    first = g.step("Brisa", "I lift the whole chapel off its stones and carry it to the shore.")
    assert first.decision == "impossible" and g.session.turns[-1].refused
    g.step("Brisa", "I wave to the others and sit down on a dry pew.")
    asked = [m["content"] for r in model.requests if r.get("step") == "narrate" for m in r["messages"] if m["role"] == "user"][-1]
    assert "sits down on a dry pew" in asked and "lift the whole chapel" not in asked  # the act's planned outcome, nothing else


def test_a_sentence_the_gm_said_turns_ago_is_not_said_again():
    """At temperature 0.3 local:small answered a question about the lamp with a refusal from four turns before."""
    old = "Eddie cannot punch the lighthouse: nothing in this world allows it, however hard they try."
    model = ScriptedModel(by_step={"narrate": [old, old]})
    out = asyncio.run(narrate(model, request(said_before=["The keeper shrugs. " + old], recent=[])))
    assert "punch the lighthouse" not in out.text and any("repeated earlier lines" in n for n in out.notes)


def test_the_fallbacks_scene_sentence_is_never_a_line_of_the_cast_list():
    """A cast entry ("Maren: the chapel's elderly keeper.") read out as narration sounds like a
    prompt, and may place someone who is missing; the fallback draws on the scene's own prose."""
    g = GameMaster(DND, "drowned_chapel", ScriptedModel(replies=["x"]), memory=False, seed=4)
    npc = g.scenario.npcs[0]
    line = g._scene_line(f"I walk over to {npc.name} and look at {npc.description}", set())
    assert line and f"{npc.name}:" not in line
    assert line in " ".join([g.scenario.opening, g.scenario.scene])


def test_the_fallbacks_scene_sentence_is_one_the_table_has_not_heard_yet():
    g = GameMaster(DND, "drowned_chapel", ScriptedModel(replies=["x"]), memory=False, seed=4)
    first = g._scene_line("I look at the bell", set())
    again = g._scene_line("I look at the bell", set(), [f"Brisa looks up. {first}"])
    assert again and again != first
    assert first not in g.scenario.opening


def test_a_clause_the_table_already_heard_is_dropped_from_a_new_sentence():
    """local:small said "the pews are loose" in three turns running, each time inside a new sentence."""
    model = ScriptedModel(by_step={"narrate": [
        "Your fingers find a cold brass ring under the lip, and the pews are loose. The water laps at the altar steps."]})
    out = asyncio.run(narrate(model, request(said_before=["The chapel is empty, and the pews are loose."], recent=[])))
    assert out.text.startswith("Your fingers find a cold brass ring under the lip.")
    assert "pews" not in out.text and not out.fell_back
    assert "narration: dropped a clause that repeated earlier lines" in out.notes


def test_a_short_answer_to_talk_is_finished_with_the_scene_not_with_waiting_for_an_answer():
    line = '"Maren, where is your father tonight?"'
    model = ScriptedModel(by_step={"narrate": [f"Maren looks away. {line}"]})
    out = asyncio.run(narrate(model, request(line=line, decision="no_roll", verdict="", success=None, recent=[]), on_token=lambda _: None))
    assert out.fell_back and out.text == "Maren looks away. The altar is slick with algae."


@pytest.mark.parametrize("scene, kept", [
    ("A flooded chapel. The keeper has been missing for four nights.", False),   # the model may not kill him
    ("A flooded chapel. The keeper's body lies under the altar cloth.", True),   # the scene already holds the death
])
def test_a_death_the_scene_does_not_hold_is_not_told(scene, kept):
    said = "The keeper is dead, and the water is cold."
    model = ScriptedModel(by_step={"narrate": [f"{said} Ripples spread across the flooded nave floor.", said]})
    out = asyncio.run(narrate(model, request(scene=scene, decision="no_roll", verdict="", success=None, recent=[],
                                             line="I ask where the keeper is")))
    assert ("keeper is dead" in out.text) is kept
    assert any("told of a death" in n for n in out.notes) is (not kept)


@pytest.mark.parametrize("line, plain", [
    ("How many goblins are behind the gate?", True),
    ("What's the name on the boat?", True),
    ("wait, how far off is the bridge, and which way does the trail go?", True),
    ("Which god is this shrine for, and what do the nails mean?", False),   # lore: the players roll for it
    ("Whose crest is that on the carriage door?", False),
    ("What do I know about the Cult of the Eye?", False),
    ("How far off are the goblins? Can I reach them this turn?", False),    # a move asked about, not a fact
    ('"How many are behind the gate?" I ask the guard.', False),            # put to someone: talk, not the GM
    ("I count the goblins behind the gate.", False),
    ("Sorry, quick question before I do anything, which side did we come in from, north or east?", True),  # the table's lead-in
])
def test_a_plain_question_to_the_gm_is_told_from_one_reaching_for_lore_or_an_act(line, plain):
    from pipelines.speech import asks_the_gm

    assert asks_the_gm(line) is plain


@pytest.mark.parametrize("line, told", [
    ("I ask Ruth gently when she last saw her father", True),
    ("Margaret asks the clerk where the records are kept.", True),
    ("I ask him whether he is lying", False),                          # a read of him, not a fact
    ("I ask the guard where the inn is, then slip past him", False),   # an act besides
    ('"Where is the inn?" I ask.', False),                              # quoted: asks_only's part
])
def test_a_question_for_facts_told_not_quoted_is_known(line, told):
    from pipelines.speech import asks_in_report

    assert asks_in_report(line) is told


def test_asking_the_gate_chief_politely_about_a_secret_rolls_only_the_family_check_for_words():
    """The troll secret lists Perception first; a polite question reaching it is Diplomacy if anything
    (and no fight: "the club took the bridge" names the goblins' Club, not a blow). Since the written
    vote learned everyday acts (session 60) the greeting and question roll nothing: the chief keeps
    his secret until the player presses."""
    g, _ = gm("pf2e", "broken_bridge", [], ["Nettlejaw tugs at his enormous hat and glances downriver."], spec=adjudicate())
    asked = g.step("Marisol", "I greet the chief politely and ask him why the club took the bridge")
    assert [c.skill for c in asked.checks] in ([], ["diplomacy"]) and not asked.fight, asked.notes
    assert "troll" not in asked.narration.lower() or asked.checks


def test_asking_the_gambler_about_his_cards_is_answered_not_rolled_as_gambling():
    """The marked deck's family is Notice, Gambling, Thievery: no check for words. Asking Vane where
    he learned to play is his to answer; watching his hands at the table still reads the deck."""
    g, _ = gm("swade", "copper_flats", [], ["Vane only smiles and cuts the deck."], spec=adjudicate())
    asked = g.step("Lottie", "I ask Vane where he learned to play cards")
    assert asked.decision == "no_roll" and asked.rolls == [], asked.notes
    watched = g.step("Lottie", "I watch Vane's hands closely while he deals the cards")
    assert watched.decision == "roll" and watched.checks[0].skill in {"notice", "gambling"}, watched.notes


def test_a_plain_question_to_the_gm_is_answered_even_when_it_touches_a_secret():
    g, _ = gm("dnd5e", "drowned_chapel", ["perception"], ["Cold water laps at the pews; the bell hangs silent above."])
    line = "What's hanging in the bell tower?"
    assert reaching_for(g.scenario, line, set()) is not None  # it touches the bell's secret
    reply = g.step("Brisa", line)
    assert reply.decision == "no_roll" and reply.rolls == []
    assert any("question to the GM" in note for note in reply.notes), reply.notes


@pytest.mark.parametrize("sentence, line, other", [
    ("Eddie's revolver is aimed at a nearby gunfight.", "I load my revolver and holster it.", "Eddie"),
    ("Tomás checks the cylinder and slides the gun home.", "I load my revolver and holster it.", None),   # the one acting
    ("Hale's lamp throws his shadow up the stairs.", "I load my revolver and holster it.", "Hale"),
    ("Eddie steadies the ladder while Tomás climbs.", "I climb the ladder while Eddie holds it.", None),  # the line brought him in
    ("The wind rattles the shutters.", "I load my revolver and holster it.", None),
])
def test_narration_about_another_player_character_on_this_ones_turn_is_caught(sentence, line, other):
    from gm.narration import acts_for_another

    names = ["Tomás Reyes", "Tomás", "Eddie Kowalczyk", "Eddie", "Dr. Margaret Hale", "Margaret", "Hale"]
    assert acts_for_another(sentence, "Tomás Reyes", names, line) == other
    assert acts_for_another("Hale climbs the stairs.", "Dr. Margaret Hale", names, "I climb the stairs.") is None  # her own surname


@pytest.mark.parametrize("sentence, cut", [
    ("The camera pans to the doorway, revealing a lamp.", True),
    ("The scene shifts to the harbour.", True),
    ("The camera in his hands catches the lamp room.", False),   # a camera in the story
    ("The stairs are slick with brine.", False),
])
def test_narration_told_as_film_is_cut(sentence, cut):
    from gm.narration import _Gate

    req = NarrationRequest(pack=None, scene="A lighthouse on the coast; the keeper's cottage smells of lamp oil and brine.",
                           name="Tomás Reyes", line="I climb the stairs to the lamp room.", decision="no_roll")
    assert (_Gate(req, None)._verdict(sentence) is not None) is cut


def test_the_narrator_reads_the_players_last_lines_not_its_own_earlier_words():
    """A small model handed the GM's earlier narration blends it into the next one ("Brisa's arm
    flies up to the bell tower, holding wet footprints"); only the players' own lines go in, and
    for an act (gm.outcome) only its planned outcome."""
    first = "Cold water laps at the pews while the bronze bell hangs silent above the altar."
    g, model = gm("dnd5e", "drowned_chapel", ["no_roll", "no_roll"], [first, "The stone stays cold and silent under the chapel bell."],
                  spec=adjudicate())
    g.step("Brisa", "I wade toward the altar")
    g.step("Oskar", "I look up at the bell")
    asked = [r for r in model.requests if r.get("step") == "narrate"][-1]["messages"][-1]["content"]
    assert asked.startswith("What happens: Oskar") and "Brisa" not in asked  # this act's planned outcome alone
    assert first not in asked and "GM:" not in asked


@pytest.mark.parametrize("scene, line, skill", [
    ("The river is unusually low after a dry summer, and the smugglers' flatboat slipped into the reeds ahead. Three channels branch off.",
     "Which of those channels could a loaded flatboat still get through? Keth thinks back on every trip he's made down this stretch.",
     "lore:river"),                                                                  # his own Lore: the scene's river is the line's
    ("At a riverbank camp a boatwoman stirs a stew of pale mushrooms she gathered this morning.",
     'Keth turns one of the mushrooms over. "Hang on, are these safe to eat?"', "nature"),  # a riverbank is not what he asks about
])
def test_a_recall_goes_by_the_characters_own_lore_where_its_topic_is_in_play(scene, line, skill):
    from gm.table import Scenario

    g = GameMaster("pf2e", Scenario(id="lore_case", ruleset="pf2e", title="t", scene=scene, opening=scene),
                   ScriptedModel(by_step={"narrate": ["The water slides brown and slow between the reeds on either side."]}),
                   pipeline="adjudicate", characters=["Keth"], memory=False, seed=3)
    g.pipeline = adjudicate(threshold=0.0)  # every line rolls: which check is the question here
    reply = g.step("Keth", line)
    assert [c.skill for c in reply.checks] == [skill], reply.notes
    assert any(note.startswith("own_lore:") for note in reply.notes) is skill.startswith("lore:"), reply.notes


@pytest.mark.parametrize("ruleset, character, scene, line, expect", [
    ("coc7e", "Eddie", "In the back room of a speakeasy a nervous bootlegger named Sal swears he sold nothing to the dead chemist.",
     'Eddie grabs Sal by the lapels and pins him to the wall. "Last time I ask nice, Sal. Who bought the crates?"', "intimidate"),
    ("pf2e", "Marisol", "At the landing after sunset the ferry master ties off his raft. He says he doesn't cross in the dark.",
     '"I understand your fear, and I\'ll stand at the bow the whole way," Marisol says. "Please, take us across tonight."', "diplomacy"),
    ("swade", "Hosea", "On the porch of a homestead the widow of the murdered rancher sits with her hands in her lap.",
     "Hosea sits down next to her and tells her he's sorry for her loss, and that he'll say words at the burying if she'd like.", None),
])
def test_what_the_words_plainly_are_decides_the_social_roll(ruleset, character, scene, line, expect):
    """Menace with the words is intimidation, not a grapple; a plea is persuasion whatever the nearest
    lines heard; sympathy that asks nothing is not rolled."""
    from gm.table import Scenario

    g = GameMaster(ruleset, Scenario(id="words_case", ruleset=ruleset, title="t", scene=scene, opening=scene),
                   ScriptedModel(by_step={"narrate": ["The lamp swings once on its hook, and the room holds its breath."]}),
                   pipeline="adjudicate", characters=[character], memory=False, seed=3)
    g.pipeline = adjudicate(threshold=0.0)  # every line would roll: the words' own rules decide
    reply = g.step(character, line)
    assert [c.skill for c in reply.checks] == ([expect] if expect else []), reply.notes
    assert any(note.startswith("condolence:") for note in reply.notes) is (expect is None), reply.notes


@pytest.mark.parametrize("line, told", [
    ("Keth turns to Marisol and asks which way she'd rather take, the river or the pines.", True),
    ("Brisa turns to the guard and asks where the inn is, then slips past him.", False),  # an act besides
])
def test_a_question_put_to_the_one_turned_to_is_answered_by_them(line, told):
    from pipelines.speech import asks_in_report

    assert asks_in_report(line) is told


def test_the_act_a_secret_describes_is_told_from_one_that_shares_its_words():
    from gm.clues import meant, reaching_for
    from gm.table import load_scenario
    chapel = load_scenario("drowned_chapel")
    stair = reaching_for(chapel, "I climb the broken stair up into the bell tower.")
    altar = reaching_for(chapel, "I pick up the whole stone altar and hurl it up through the chapel roof.")
    assert meant(stair, "I climb the broken stair up into the bell tower.")
    assert altar is not None and not meant(altar, "I pick up the whole stone altar and hurl it up through the chapel roof.")


def test_the_fallbacks_scene_sentence_is_about_the_act_or_there_is_none():
    """An act retold with an unrelated scene sentence after it ("...but is noticed. They have built a
    ramshackle gate...") reads as a GM not listening: the sentence must share a word with the act."""
    g = GameMaster(DND, "drowned_chapel", ScriptedModel(replies=["x"]), memory=False, seed=4)
    assert "altar" in g._scene_line("I climb onto the altar", set()).lower()
    assert g._scene_line("I wring out my cloak and hum a tune", set()) == ""


def test_speech_in_single_quotes_is_said_to_the_one_it_names():
    from gm.lines import with_double_quotes
    assert with_double_quotes("Keth raises a hand. 'Morning, Chief. What's this riddle then?'") == \
        'Keth raises a hand. "Morning, Chief. What\'s this riddle then?"'
    assert with_double_quotes("the goblins' gate and Rock 'n' roll") == "the goblins' gate and Rock 'n' roll"
    gm = GameMaster(None, "broken_bridge", ScriptedModel(["Nettlejaw puffs up."], repeat_last=True), characters=["Keth"], memory=False, seed=3)
    reply = gm.step("", "Keth raises a hand. 'Morning, Chief. Nice hat. What's this riddle then?'")
    assert "What runs but never walks" in reply.narration and not reply.rolls
