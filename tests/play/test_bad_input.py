"""What a table throws at the GM: unknown names, impossible dice, a model that invents a skill,
empty lines, players rolling their own dice, and narration that contradicts the dice."""
from __future__ import annotations

import json

import pytest

from gm.agent import EmptyInput, GameMaster, contradicts, split_speaker
from gm.characters import CharacterError
from gm.dice import BadDice
from gm.table import RollRecord
from pipelines.llm import ScriptedModel


def tbs(actor, *skills, narrate=("The GM nods slowly and the cold water laps at the pews.",)):
    """Scripted replies: one TBS pass per skill given (None = no check)."""
    n = len(skills)
    return ScriptedModel(by_step={
        "pre_char": [json.dumps({"characters": [actor]})] * n,
        "char": [json.dumps({"characters": [actor]})] * n,
        "skill": [json.dumps({"checks": [{"character": actor, "skill": s}] if s else []}) for s in skills],
        "narrate": list(narrate),
    })


def gm_with(model, **kw):
    return GameMaster("dnd5e", "drowned_chapel", model, pipeline="tbs", memory=False, seed=1, **kw)


def test_unknown_character_and_missing_name():
    gm = gm_with(tbs("Brisa Tallowmere"))
    with pytest.raises(CharacterError, match="no character 'Zed'.*Brisa Tallowmere"):
        gm.step("Zed", "I dance")
    with pytest.raises(CharacterError, match="who is acting"):
        gm.step("", "I dance")
    with pytest.raises(EmptyInput):
        gm.step("Brisa", "   ")
    assert len(gm.session.log) == 1  # nothing was logged


def test_roll_command_logs_breakdown_and_rejects_nonsense():
    gm = gm_with(tbs("Brisa Tallowmere"))
    reply = gm.step("Brisa", "/roll 2d20kh1+7")
    (rec,) = reply.rolls
    assert 8 <= rec.total <= 27 and "2d20kh1" in rec.breakdown
    assert gm.session.log[-1].text.startswith("/roll 2d20kh1+7") and gm.session.free_rolls == [rec]
    with pytest.raises(BadDice):
        gm.step("Brisa", "/roll 1d0")


def test_no_check_is_a_valid_answer():
    reply = gm_with(tbs("Oskar Venn", None, narrate=["Maren dips her head and murmurs a tired welcome to you."])).step("Oskar", "I greet Maren")
    assert reply.decision == "no_roll" and reply.checks == [] and reply.rolls == []
    assert reply.narration == "Maren dips her head and murmurs a tired welcome to you."


def test_one_check_at_a_time_for_the_character_acting():
    model = ScriptedModel(by_step={
        "pre_char": ['{"characters": ["Brisa Tallowmere", "Oskar Venn"]}'],
        "char": ['{"characters": ["Brisa Tallowmere", "Oskar Venn"]}'],
        "skill": ['{"checks": [{"character": "Oskar Venn", "skill": "insight"}, {"character": "Brisa Tallowmere", "skill": "stealth"}, {"character": "Brisa Tallowmere", "skill": "perception"}]}'],
        "narrate": ["Brisa melts into the shadows between the floating pews."],
    })
    reply = gm_with(model).step("Brisa", "I sneak behind the pews")
    assert [(c.character, c.skill) for c in reply.checks] == [("Brisa Tallowmere", "stealth")]
    assert any("one check at a time" in n for n in reply.notes)


def test_a_check_named_for_the_wrong_character_goes_to_the_one_acting():
    model = tbs("Oskar Venn", "insight")
    reply = gm_with(model).step("Brisa", "I watch Maren's face")
    assert [(c.character, c.skill) for c in reply.checks] == [("Brisa Tallowmere", "insight")]
    assert any("Brisa Tallowmere rolls it" in n for n in reply.notes)


def test_player_rolls_their_own_dice():
    gm = gm_with(tbs("Brisa Tallowmere", "stealth", narrate=["Brisa slips past the keeper without a sound."]), player_rolls=True)
    ask = gm.step("Brisa", "I sneak past Maren")
    assert ask.pending and ask.rolls == [] and "1d20+7" in ask.narration
    assert gm.step("Oskar", "I hum a hymn").notes[0].startswith("waiting for rolls from Brisa Tallowmere")
    wrong = gm.step("Brisa", "23")
    assert "cannot come up on a d20" in wrong.notes[0] and wrong.pending
    done = gm.step("Brisa", "14")
    (rec,) = done.rolls
    assert rec.total == 21 and rec.by == "player" and rec.success is True
    assert done.narration == "Brisa slips past the keeper without a sound." and not gm.session.pending


def test_pending_roll_survives_a_resume(tmp_path):
    model = tbs("Brisa Tallowmere", "stealth", narrate=["Done."])
    gm = gm_with(model, player_rolls=True, session_path=tmp_path / "p.json")
    gm.step("Brisa", "I sneak past Maren")
    again = GameMaster.resume(tmp_path / "p.json", model)
    assert again.step("Brisa", "roll").rolls[0].by == "gm"


def test_narration_that_contradicts_the_dice_is_cut_and_the_outcome_said_plainly():
    fail = RollRecord(character="Brisa", check="stealth", check_name="Stealth", expression="1d20", total=3,
                      breakdown="3", target=15, target_label="DC 15", outcome="failure", success=False)
    assert contradicts("You succeed and slip past.", fail.success)
    assert contradicts("She finds a small silver coin hidden in the crack.", fail.success)
    assert not contradicts("You fail to stay hidden.", fail.success)
    assert not contradicts("She searches but finds nothing.", fail.success)
    assert not contradicts("The bell hums on.", fail.success)
    model = tbs("Brisa Tallowmere", "stealth", narrate=["You succeed brilliantly!", "The water is cold around your knees. Maren turns her head toward the splash."])
    import random

    from gm.dice import roll

    # the first roll of a session draws from Random(f"{seed}:0"): pick a seed whose Stealth (+7) misses DC 20 ("quickly")
    seed = next(s for s in range(100) if roll("1d20+7", random.Random(f"{s}:0")).total < 15)
    gm = GameMaster("dnd5e", "drowned_chapel", model, pipeline="tbs", memory=False, seed=seed)
    reply = gm.step("Brisa", "I sneak past Maren")
    assert reply.rolls[0].success is False
    # an act's words are checked whole against its planned outcome: the contradiction gives way to the plan, said plainly
    assert reply.narration.startswith("Brisa tries to sneak past Maren, but is noticed.")
    assert "sneak past Maren" not in reply.narration.split("noticed.", 1)[1]  # not the line again, nor a scene sentence off the act
    assert any("contradicted the dice" in n for n in gm.session.turns[-1].notes)


def test_lines_a_table_cannot_take_are_one_line_and_the_game_goes_on(tmp_path):
    from rulesets import VgmError

    gm = gm_with(tbs("Brisa Tallowmere", None), session_path=tmp_path / "s.json")
    for bad, why in [("x" * 5000, "5,000 characters"), ("I say h\udcffi", "not UTF-8"), ("   ", "nothing was said")]:
        with pytest.raises(VgmError, match=why) as caught:
            gm.step("Brisa", bad)
        assert "\n" not in str(caught.value)
    assert len(gm.session.log) == 1 and json.loads((tmp_path / "s.json").read_text())["log"]
    assert gm.step("Brisa", "I greet Maren").narration  # still playing


def test_hot_seat_lines():
    names = ["Brisa", "Oskar Venn"]
    assert split_speaker("Oskar Venn: I pray", names) == ("Oskar Venn", "I pray")
    assert split_speaker("brisa:I hide", names) == ("brisa", "I hide")
    assert split_speaker("I say: hello", names) == (None, "I say: hello")
    assert split_speaker("Zed: I dance", names) == ("Zed", "I dance")  # then: unknown character
    assert split_speaker("OOC: what's my Notice die?", names) == (None, "OOC: what's my Notice die?")  # said to the table
    assert split_speaker("GM: how far is the mill?", names) == (None, "GM: how far is the mill?")


def test_a_rolled_question_that_finds_nothing_is_answered_from_the_world_not_narrated_as_a_deed():
    """The pipeline rolls Perception on "how deep is the water?": whatever the dice, nothing hidden
    is found, so the reply is the scene's answer (knee-deep), never the model's guess at a deed."""
    model = tbs("Brisa Tallowmere", "perception", narrate=["Brisa dives to the bottom and finds a golden key."])
    gm = gm_with(model)
    reply = gm.step("Brisa", "How deep is the water in here?")
    assert reply.rolls and reply.decision == "roll"
    assert "knee" in reply.narration.lower() and "golden key" not in reply.narration


@pytest.mark.parametrize("typed, meant", [
    ("whats inside??", "what's inside??"),
    ("Whered he go? i dont know", "Where'd he go? i don't know"),
    ("he lets me in, its fine", "he lets me in, its fine"),  # bare words that are words too stay as typed
    ("Nott knows a little Thieves' Cant. Whats that?", "Nott knows a little Thieves' Cant. What's that?"),  # a name stays
])
def test_contractions_typed_without_their_apostrophe_are_read_as_contractions(typed, meant):
    from gm.lines import with_apostrophes

    assert with_apostrophes(typed) == meant
