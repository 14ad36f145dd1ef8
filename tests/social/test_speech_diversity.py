"""A speech that repeats an earlier one is re-asked once, with the repeat pointed out, and the log says so."""
import json
import re

import pytest

from gm.mafia import MafiaGame
from gm.social import LlmSeat
from gm.social.speech import REPEAT_NOTE, REPEAT_THRESHOLD, nearest_earlier, repeat_flags, repeat_note
from pipelines.llm import ScriptedModel

PARROT = "Alex is suspecting that Casey is the target tonight."
NAMES = ("Alex", "Blair", "Casey", "Drew", "Ellis", "Finley", "Gray")


def first_option(question):
    """The first player a question offers (after "one of:" in English, after the last "：" in Chinese)."""
    tail = re.split(r"one of:|：", question.splitlines()[0])[-1]
    return min((n for n in NAMES if n in tail), key=tail.index)


def move(step, messages):
    return json.dumps({("vote" if step == "mafia.vote" else "target"): first_option(messages[-1]["content"]), "thought": ""})


def game_with(speak, tmp_path, **options):
    """A 7-seat Mafia game whose seats say ``speak(name, messages)``; every other move is the first option."""
    calls = []

    def respond(step, messages):
        calls.append((step, messages))
        if step == "mafia.speak":
            me = re.search("|".join(NAMES), messages[0]["content"]).group(0)
            return json.dumps({"speech": speak(me, messages), "thought": "SECRET-THOUGHT"})
        return move(step, messages)

    model = ScriptedModel(responder=respond, name="scripted:parrot")
    game = MafiaGame([LlmSeat(model) for _ in range(7)], seed=2, log_path=tmp_path / "g.jsonl",
                     options={"max_rounds": 1, **options})
    return game, calls


def reasks(game):
    return [e for e in game.log.events if e["kind"] == "speech_reask"]


def test_a_parroted_speech_is_reasked_once_with_the_repeat_quoted(tmp_path):
    def speak(name, messages):
        asked_again = "repeats what was already said" in messages[-1]["content"]
        return f"{name} here: I have a new point about the vote." if asked_again else PARROT

    game, calls = game_with(speak, tmp_path)
    game.play()
    speeches = [e for e in game.log.events if e["kind"] == "speech"]
    records = reasks(game)
    assert speeches[0]["text"] == PARROT  # the first speaker repeats nobody
    assert len(records) == len(speeches) - 1  # everyone after copies it, and is asked again exactly once
    for r, s in zip(records, speeches[1:]):
        assert r["private"] is True and r["to"] == []  # the moderator's record, never in a seat's view
        assert r["player"] == s["player"] and r["first"] == PARROT and r["similarity"] >= REPEAT_THRESHOLD
        assert r["repeats"]["player"] == speeches[0]["player"] and r["kept"] == "retry"
        assert s["text"] == f"{s['player']} here: I have a new point about the vote."
    retries = [m for step, m in calls if step == "mafia.speak" and m[-1]["content"].startswith("Your speech repeats")]
    assert len(retries) == len(records)
    assert all(f'"{PARROT}"' in m[-1]["content"] for m in retries)  # the repeat is pointed out, quoted
    assert all("SECRET-THOUGHT" not in json.dumps(m) for m in retries)  # its answer comes back without the thought


def test_a_retry_that_still_repeats_is_kept_and_not_asked_a_third_time(tmp_path):
    game, calls = game_with(lambda name, m: PARROT, tmp_path)
    game.play()
    speak_calls = sum(step == "mafia.speak" for step, _ in calls)
    speeches = [e for e in game.log.events if e["kind"] == "speech"]
    assert speak_calls == len(speeches) + len(reasks(game))
    assert all(r["retry_similarity"] >= REPEAT_THRESHOLD for r in reasks(game))


def test_distinct_speeches_are_not_reasked(tmp_path):
    lines = {"Alex": "I watched Blair hesitate before voting.", "Blair": "The night kill makes me doubt Drew.",
             "Casey": "Nobody has mentioned the doctor yet; let us be careful.", "Drew": "I am a plain villager and I trust Ellis.",
             "Ellis": "Finley's silence worries me more than anything else.", "Finley": "Gray accused too fast yesterday.",
             "Gray": "Let us vote on evidence, not on a hunch."}
    game, _ = game_with(lambda name, m: lines[name], tmp_path)
    game.play()
    assert reasks(game) == []


def test_the_reask_can_be_turned_off(tmp_path):
    game, calls = game_with(lambda name, m: PARROT, tmp_path, speech_reask=False)
    game.play()
    assert reasks(game) == []
    assert sum(step == "mafia.speak" for step, _ in calls) == sum(e["kind"] == "speech" for e in game.log.events)


def test_the_note_follows_the_game_language(tmp_path):
    game, calls = game_with(lambda name, m: PARROT, tmp_path, lang="zh")
    game.play()
    retries = [m[-1]["content"] for step, m in calls if step == "mafia.speak" and m[-1]["role"] == "user" and len(m) > 3]
    assert retries and all(r.startswith("你的发言重复了") and PARROT in r for r in retries)
    assert repeat_note("xx", "Alex", "hi") == repeat_note("en", "Alex", "hi")  # an unknown language reads English
    assert set(REPEAT_NOTE) == {"en", "zh"}


def test_an_unreadable_retry_keeps_the_first_speech_and_says_why(tmp_path):
    def respond(step, messages):
        if step == "mafia.speak":
            return "not json" if "repeats what was already said" in messages[-1]["content"] else json.dumps({"speech": PARROT})
        return move(step, messages)

    game = MafiaGame([LlmSeat(ScriptedModel(responder=respond)) for _ in range(7)], seed=2, options={"max_rounds": 1})
    game.play()
    records = reasks(game)
    assert records and all(r["kept"] == "first" and r["retry_error"] for r in records)
    assert all(e["text"] == PARROT for e in game.log.events if e["kind"] == "speech")


# ---- the threshold on real embeddings ------------------------------------------------------
@pytest.mark.parametrize("a, b", [
    (PARROT, PARROT),
    (PARROT, "Alex is suspecting that Casey is the target tonight!"),
    ("I think Gray is the Mafia.", "I think Gray is Mafia."),
    ("Alex is suspicious of Blair. Blair is also suspicious of Casey, because she lied.", "Alex is suspicious of Blair."),
])
def test_copies_of_a_speech_reach_the_threshold(a, b):
    assert nearest_earlier(b, [a])[1] >= REPEAT_THRESHOLD


@pytest.mark.parametrize("a, b", [
    ("I think Gray is the Mafia.", "Blair was quiet all day, which worries me."),
    ("I trust Alex; he defended Casey well.", "We should vote out Drew, his story changed twice."),
    (PARROT, "Casey survived the night, so the doctor may have saved her."),
    ("I suspect Gray. He was quiet.", "I suspect Gray. But Blair voting against the doctor yesterday worries me more."),
])
def test_different_speeches_stay_below_it(a, b):
    assert nearest_earlier(b, [a])[1] < REPEAT_THRESHOLD


def test_a_copy_with_the_speakers_own_name_put_in_is_a_repeat_but_a_new_accusation_is_not():
    earlier = "Alex is suspicious of Blair's murder, as he is not in the game."
    assert nearest_earlier("Casey is suspicious of Blair's murder as he is not in the game.", [earlier],
                           speaker="Casey", speakers=["Alex"])[1] >= REPEAT_THRESHOLD
    assert nearest_earlier("I suspect Gray because he was quiet.", ["I suspect Drew because he was quiet."],
                           speaker="Alex", speakers=["Blair"])[1] < REPEAT_THRESHOLD


def test_repeat_flags_point_at_the_earlier_copy_and_skip_empty_speeches():
    texts = ["I suspect Gray.", "", "Blair was quiet all day.", "I suspect Gray.", ""]
    flags = repeat_flags(texts)
    assert flags[0] is None and flags[1] is None and flags[2] is None and flags[4] is None
    assert flags[3][0] == 0 and flags[3][1] == pytest.approx(1.0, abs=1e-4)


def test_a_speech_already_compared_is_not_embedded_again(monkeypatch):
    """Each speech is compared with every earlier one; a game embeds each text once, not once a turn."""
    import pipelines.embeddings

    real, embedded = pipelines.embeddings.embed, []
    monkeypatch.setattr(pipelines.embeddings, "embed", lambda texts: embedded.extend(texts) or real(texts))
    earlier = ["Blair voted for Drew and never said why.", "I trust Ellis. Finley has been too quiet."]
    first = nearest_earlier("Gray keeps changing the subject.", earlier)
    embedded.clear()
    again = nearest_earlier("Gray keeps changing the subject.", earlier)
    assert again == first and embedded == []
    nearest_earlier("Casey is hiding something.", earlier)
    assert embedded and all("Casey" in t or "hiding" in t for t in embedded)
