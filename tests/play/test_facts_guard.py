"""The guards that keep a reply from unsaying the world: numbers it states, the dead and gone who cannot speak."""
from hypothesis import given, strategies as st

from gm.facts_guard import contradicts_numbers, quantities, speaks_for_the_silent


def test_quantities_read_words_digits_and_abbreviations_alike():
    assert quantities("a drop of forty feet, 12 ft across, twenty-five yards on") == {(40, "foot"), (12, "foot"), (25, "yard")}
    assert quantities("She left four nights ago, in 1925.") == {(4, "night")}
    assert quantities("a few feet more") == set()


def test_a_reply_giving_another_span_than_the_scene_is_caught():
    facts = ["The bridge's broken span leaves a forty-foot gap over the gorge."]
    assert contradicts_numbers("The drop is about two hundred feet.", facts)
    assert not contradicts_numbers("The gap is 40 feet across.", facts)
    assert not contradicts_numbers("The gap is forty feet; the water roars below.", facts)


def test_units_the_scene_never_states_are_not_judged():
    # the scene gives feet; a reply in miles says something else (a town's distance), not a contradiction of it
    assert not contradicts_numbers("Cray's Ford is two miles on.", ["The gap is forty feet."])
    assert not contradicts_numbers("It creaks.", ["The gap is forty feet."])


@given(st.integers(min_value=2, max_value=900), st.integers(min_value=2, max_value=900))
def test_a_number_is_only_wrong_when_the_facts_hold_another(stated, known):
    said = f"It is {stated} feet down."
    assert contradicts_numbers(said, [f"The drop is {known} feet."]) == (stated != known)


def test_the_dead_and_the_absent_do_not_speak():
    silent = ["Ruth Quist", "Captain Arlo Venn"]
    assert speaks_for_the_silent('Ruth says, "He went up at dusk."', silent) == "Ruth Quist"
    assert speaks_for_the_silent('"Leave," Arlo mutters from the doorway.', silent) == "Captain Arlo Venn"
    assert speaks_for_the_silent("Ruth's chair stands empty; nobody answers.", silent) is None
    assert speaks_for_the_silent('Maren says, "Ruth is gone."', silent) is None


def test_fight_words_never_tell_the_other_outcome_than_the_dice():
    import asyncio

    import rulesets
    from gm.narration import NarrationRequest, narrate
    from pipelines.llm import ScriptedModel

    def told(struck: bool, words: str) -> str:
        req = NarrationRequest(pack=rulesets.load("dnd5e"), scene="A forest road. Goblin 1 snarls by the cart.", name="Brisa Tallowmere",
                               line="I hack at Goblin 1 with my longsword", decision="roll", verdict="In the fight: Brisa hits Goblin 1.",
                               pc_names=["Brisa Tallowmere", "Brisa"], standing=["Brisa Tallowmere"], struck=struck, struck_at=["Goblin 1"])
        return asyncio.run(narrate(ScriptedModel(replies=[words], repeat_last=True), req)).text

    hit_words = "Brisa's longsword bites deep into Goblin 1's shoulder. The creature howls and staggers back toward the cart."
    miss_words = "Brisa's swing misses Goblin 1 by a hair. The creature howls and staggers back toward the cart."
    assert "bites deep" in told(True, hit_words) and "misses" not in told(True, miss_words)
    assert "misses" in told(False, miss_words) and "bites deep" not in told(False, hit_words)
