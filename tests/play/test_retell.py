"""The fallback retells the player's act in the third person: found after any opening clause,
never a quote, a question or table talk handed back as if it were an act."""
import pytest

from gm.narration import fallback
from gm.retell import base_action, gist, third_person


@pytest.mark.parametrize("name, line, act", [
    ("Tomás", "While the guard dozes, Tomás slips the key off his belt.", "slip the key off his belt"),
    ("Eddie", "Quietly, Eddie pushes the door open.", "push the door open"),
    ("Eddie", "As the train slows, Eddie jumps off.", "jump off"),
    ("Eddie", "Eddie, rifle ready, walks toward the barn.", "walk toward the barn"),
    ("Eddie", "With a grunt, I heave the crate aside.", "heave the crate aside"),
    ("Eddie", "Eddie: I check the saddlebags.", "check the saddlebags"),
    ("Eddie", "I'm going to pick the lock", "pick the lock"),
    ("Ilya", "I try to fly to the moon", "fly to the moon"),  # "fly" is the act, not a manner word in -ly
    ("Ilya", "I'd like to quietly swim across the river", "swim across the river"),
    ("Eddie", "Let me look under the bed.", "look under the bed"),
    ("Pip", "Pip is hiding behind the barrels.", "hide behind the barrels"),
    ("Dutch", "Dutch unsaddles his horse and beds down.", "unsaddle his horse and bed down"),
    ("Pip", "Ooh. Pip peers at the glyphs - what kind of magic is this?", "peer at the glyphs"),
    ("Pip", "What is this thing? Pip studies the sigil.", "study the sigil"),
    ("Margaret", "Margaret opens the ledger and reads the entry.", "open the ledger and read the entry"),
    ("Hosea", "I dig the bullet out and bind my arm", "dig the bullet out and bind their arm"),
])
def test_the_act_is_found_where_its_doer_is_the_subject(name, line, act):
    assert base_action(line, name) == act


@pytest.mark.parametrize("name, line", [
    ("Brisa", '"I\'ll see that you hang for this," Brisa tells the sheriff.'),
    ("Brisa", 'Brisa says, "Give me the horse."'),
    ("Pip", "'Oh, that? Lute strings, officer. I'd open it for you, but the paper is delicate.'"),
    ("Oskar", "Do I recognise that banner?"),
    ("Margaret", "(OOC) what's the in-game date? I'm dating Margaret's diary entries"),
    ("Keth", "Keth knows this river well."),
])
def test_words_said_questions_and_states_are_no_act_to_retell(name, line):
    assert base_action(line, name) == ""


def test_a_title_does_not_hide_the_name_a_line_uses():
    assert third_person("Dr. Margaret Hale", "Margaret lifts the tarp.") == "Dr. Margaret Hale lifts the tarp"


def test_a_cut_act_never_ends_on_a_dangling_word():
    assert gist(base_action("Oskar kneels, tears away the old wrapping.", "Oskar")) == "kneel"
    assert gist("slip past the sentries to the horse line without being seen by anyone at all") == \
        "slip past the sentries to the horse line"


def test_a_rolled_plea_is_told_by_how_the_words_land_not_as_a_garbled_act():
    line = '"I\'ll see that you hang for this," Brisa tells the sheriff.'
    assert fallback("Brisa", line, "roll", True).startswith("Brisa makes their case, and the words land.")
    assert fallback("Brisa", line, "roll", False).startswith("Brisa makes their case, but the words fall flat.")
    assert fallback("Tomás", "As the train slows, Tomás jumps off.", "roll", False).startswith("Tomás tries to jump off, but")
