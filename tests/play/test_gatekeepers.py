"""Words said to a gatekeeper the scene sets against the speaker are a social roll: a threat is
intimidation, a plea persuasion, a story or a claim deception."""
from __future__ import annotations

import asyncio

import pytest

import rulesets
from pipelines.check_index import CheckIndex
from pipelines.gatekeepers import consoles, informs_willing, keeper_in, said_kind, social_kind
from pipelines.records import MoeInstance, Turn
from pipelines.decide import DEFAULT_RULES
from tests.play.test_gm_turn import STAYS, adjudicate, bag_of_words

COC, PF2 = rulesets.load("coc7e"), rulesets.load("pf2e")


@pytest.mark.parametrize("scene, keeper", [
    ("Two guards in Baron Vell's livery block the gate to the granary.", True),
    ("A river customs officer taps the crate Pip is escorting.", True),
    ("At the hospital, a night orderly stands between Tomás and the ward.", True),
    ("The innkeeper is rationing the last beds and will give them only to riders on the baron's business.", True),
    ("The innkeeper is wiping down the bar and humming.", False),          # at work, not in the way
    ("A guard dozes on a stool at the far end of the market.", False),
    ("A tanner named Gorrick owes Ilya nine silver and has dodged him for a month.", True),   # set against the asking
    ("The old woman would not say where her son went.", True),
    ("The miller will not be home until dark.", False),
])
def test_a_scene_sets_a_gatekeeper_only_where_someone_stops_checks_or_refuses(scene, keeper):
    assert keeper_in(scene) is keeper


@pytest.mark.parametrize("line, kind", [
    ('"Move the cart, or I move it with you still in it."', "intimidate"),
    ('"Please, ma\'am. He\'s my brother and he might not see morning."', "persuade"),
    ('"Hymnals, sir, nothing but hymnals for the temple."', "deceive"),
    ('"I\'m his cousin from Providence, came straight off the train."', "deceive"),
    ('Ilya taps the ledger and leans over the vat until his shadow covers the tanner. "Nine silver. Today."', "intimidate"),
    ('Ilya leans over the table to show him the ledger. "Nine silver, as we agreed."', "deceive"),
])
def test_the_words_say_which_social_act_they_are(line, kind):
    assert social_kind(line) == kind


INDEX = CheckIndex([("no_roll", "good evening sir how are you"), ("no_roll", "nice weather for it"),
                    ("no_roll", "what time is it"), ("stealth", "I sneak past the guard")], embed=bag_of_words)
ORDERLY = "At the hospital, a night orderly stands between Tomás and the ward. Visiting hours ended at eight."


def decide(line: str, scene: str, pack=COC, **args):
    """The decision where the learned model heard small talk (it would not roll), and the rules then ran."""
    instance = MoeInstance(id="t", ruleset=pack.name, context=[Turn(speaker="GM", text=scene), Turn(speaker="Tomás", text=line)],
                           characters=["Tomás", "Eddie"])
    return asyncio.run(adjudicate(k=3, **args).run(instance, None, pack=pack, check_index=INDEX, scene=scene, decision_model=STAYS))


def test_a_story_told_to_a_gatekeeper_is_rolled_where_the_learned_model_heard_small_talk():
    line = '"Good evening sir, I\'m his cousin, came straight off the train."'
    assert decide(line, ORDERLY, rules=[r for r in DEFAULT_RULES if r != "gatekeeper"]).decision == "no_roll"
    rolled = decide(line, ORDERLY)
    assert [c.skill for c in rolled.checks] == ["fast_talk"]
    assert [(f["rule"], f["to"]) for f in rolled.steps[-1].parsed["fired"]] == [("gatekeeper", "fast_talk")]
    assert "gatekeeper" in rolled.steps[-1].parsed["fired"][0]["reason"]
    assert [c.skill for c in decide(line, ORDERLY, pack=PF2).checks] == ["deception"]


@pytest.mark.parametrize("line, scene", [
    ('"Good evening sir, I\'m his cousin, came straight off the train."', "A quiet hospital corridor at night."),  # no one in the way
    ('"What time is it, sir?"', ORDERLY),                                                                         # a question for facts
    ('Eddie, "good evening sir, nice weather for it," right?', ORDERLY),                                        # words to a fellow player
])
def test_talk_with_no_gatekeeper_to_get_past_stays_unrolled(line, scene):
    assert decide(line, scene).decision == "no_roll"


def test_a_request_told_not_quoted_to_those_in_the_way_is_persuasion():
    from pipelines.gatekeepers import asks_in_words

    line = "Tomás stands before the orderly and asks him to let him through, promising to be quick."
    assert asks_in_words(line) and social_kind(line) == "persuade"
    assert social_kind("Tomás claims to be the man's cousin and asks to go in.") == "deceive"
    assert social_kind("Tomás warns him what happens to men who cross Vinnie.") == "intimidate"
    assert not asks_in_words('"You can ask Master Feld, he knows us," I tell the doorman.')  # the asking is inside the quote
    assert [c.skill for c in decide(line, ORDERLY).checks] == ["persuade"]


@pytest.mark.parametrize("line", [
    "I go back to the guard and ask where the inn is.",     # a fact asked for
    "Let's pretend we're whispering.",                      # no claim made to anyone
    "I'll go up and ask the tavern keeper.",
])
def test_asking_for_a_fact_or_table_chatter_is_no_request_to_get_past_anyone(line):
    from pipelines.gatekeepers import asks_in_words

    assert not asks_in_words(line)


SHERIFF = "Sheriff Pruett, who asked you to look into the mill, is waiting on the porch and is glad to see you back."


@pytest.mark.parametrize("line, scene, free", [
    ("Margaret tells the sheriff plainly what we found at the mill: the broken lock and the carvings.", SHERIFF, True),
    ('Dutch tosses the wanted bill on the desk: "Name\'s Eli Crane."', "The marshal is expecting you; he asked for the name of the man you hunt.", True),
    ("Margaret tells the sheriff what we found and asks him to lend us two deputies.", SHERIFF, False),   # wants something back
    ('"Could you open the cells for us, Sheriff?"', SHERIFF, False),                                      # a request
    ("Margaret tells the sheriff she is the mayor's niece.", SHERIFF, False),                            # a claim, not a report
    ("Margaret tells the clerk plainly what we found at the mill.", "The clerk is sorting the mail.", False),  # no one asked
])
def test_telling_a_listener_what_they_asked_to_hear_needs_no_roll(line, scene, free):
    assert informs_willing(line, scene) is free


@pytest.mark.parametrize("line, kind", [
    ('Eddie grabs Sal by the lapels and pins him to the wall. "Last time I ask nice, Sal. Who bought the crates?"', "intimidate"),
    ('"There\'s a sick child on the other side. Please, take us across tonight."', "persuade"),
    ('"Nice hat."', None),                                   # nothing in the words says which
])
def test_what_the_words_plainly_are(line, kind):
    assert said_kind(line) == kind


@pytest.mark.parametrize("line, sympathy", [
    ("Hosea sits down next to her and tells her he's sorry for her loss, and that he'll say words at the burying if she'd like.", True),
    ('"Sorry for your loss, ma\'am. Now, who had reason to want him dead?"', False),   # asks for something
    ('Hosea takes the widow\'s hands in his. "He was a good man, ma\'am. Anything you need, you send for me."', True),
    ('"He was a good man. Now tell me where he hid the money."', False),               # a eulogy, then a demand
])
def test_sympathy_that_asks_nothing_is_known(line, sympathy):
    assert consoles(line) is sympathy


def test_an_archivist_locking_up_keeps_the_door_and_a_grateful_request_is_a_plea():
    scene = ("It is past closing time at the historical society, and the archivist is locking up. "
             "The rare books room is open only to members by appointment.")
    assert keeper_in(scene)
    line = '"I realise the hour, but it is urgent. Might I have twenty minutes in the rare books room? I\'d be very grateful."'
    assert social_kind(line) == "persuade"
    assert [c.skill for c in decide(line, scene).checks] == ["persuade"]
