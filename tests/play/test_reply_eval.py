"""Reply eval: earlier turns are played before the line, the words of the reply are scored
(grounded, contradictions, voice, secret leaks, recall), and a bad reply case fails in one line.

No model server: the GM is a fake that answers from a script, or the real GameMaster over a
scripted model.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import rulesets
import yaml
from rich.console import Console

from eval.play import CASES_DIR, CaseError, format_summary, load_cases, parse_cases, read_decisions, run_cases, set_role, summarize
from eval.play._runner import _default_gm
from eval.play._summary import carries, leaked_secrets, speaks
from gm.table import SCENARIOS, Secret, load_scenario
from pipelines.llm import ScriptedModel

REPLIES_DEV = CASES_DIR / "replies_dev.yaml"
CALM = "Cold water laps at the pews while the bell hums above you in the dark."


def reply_case(id: str, **over) -> dict:
    base = {"id": id, "ruleset": "dnd5e", "scenario": "drowned_chapel",
            "line": "Maren, how many nights has the bell rung?", "expect": {"reply": {"any": ["three nights"]}}}
    base.update(over)
    return base


# ----- history is played before the line ---------------------------------------------------------

class ScriptGM:
    """A GM that logs what it is told and answers each line from a script (in order)."""

    def __init__(self, answers: list[str], revealed_after: dict[str, str] | None = None):
        self.answers, self.log, self.session = list(answers), [], SimpleNamespace(revealed=[])
        self.revealed_after = revealed_after or {}

    def __call__(self, case, model, seed):  # make_gm
        return self

    def say(self, text):
        self.log.append(("GM", text))

    def step(self, character, line):
        self.log.append((character, line))
        if line in self.revealed_after:
            self.session.revealed.append(self.revealed_after[line])
        return SimpleNamespace(decision="no_roll", checks=[], rolls=[], narration=self.answers.pop(0), notes=[])

    def close(self):
        pass


def test_history_is_played_in_order_before_the_line_and_kept_in_the_record(tmp_path):
    [case] = parse_cases([reply_case("h", history=[
        {"speaker": "Ilya", "text": "I climb the broken stair."},
        {"speaker": "GM", "text": "At the top Ilya finds the reliquary in oilcloth."},
    ])])
    gm = ScriptGM(["Ilya hauls herself up the wet stair, stone by stone.", "Maren sighs. \"Three nights,\" she says."],
                  revealed_after={"I climb the broken stair.": "stair_climb"})
    run_cases([case], "fake", tmp_path / "run", make_gm=gm)
    assert gm.log == [("Ilya Thorncastle", "I climb the broken stair."), ("GM", "At the top Ilya finds the reliquary in oilcloth."),
                      ("Brisa Tallowmere", "Maren, how many nights has the bell rung?")]
    [record] = read_decisions(tmp_path / "run" / "decisions.jsonl")
    assert record["reply"] == "Maren sighs. \"Three nights,\" she says."
    assert record["history_played"][0] == {"speaker": "Ilya Thorncastle", "text": "I climb the broken stair.",
                                           "reply": "Ilya hauls herself up the wet stair, stone by stone."}
    assert record["history_played"][1] == {"speaker": "GM", "text": "At the top Ilya finds the reliquary in oilcloth."}
    assert record["revealed_before"] == ["stair_climb"]


def _played_by_the_real_gm(case, model, tmp_path):
    """Run one case on the real GameMaster: the GMs made, the summary and the case's record."""
    made = []

    def make(case, model, seed):
        made.append(_default_gm(case, model, seed))
        return made[-1]

    summary = run_cases([case], model, tmp_path / "run", make_gm=make)
    [record] = read_decisions(tmp_path / "run" / "decisions.jsonl")
    return made, summary, record


def test_the_real_gm_plays_the_history_over_a_scripted_model(tmp_path):
    """Ilya's line is a turn of its own (its narration is the first the model writes), and the table's
    log has Ilya's line, then the GM line, then the case's line."""
    narrations = iter([CALM, "Maren lifts her lantern. \"Three nights now,\" she says, and the bell hums overhead."])
    model = ScriptedModel(responder=lambda step, messages: next(narrations) if step == "narrate" else json.dumps({"choice": "no_roll"}))
    [case] = parse_cases([reply_case("real", history=[
        {"speaker": "Ilya Thorncastle", "text": "I wade over to the floating pews and sit down."},
        {"speaker": "GM", "text": "A hymnal drifts past with a silver key in its spine."},
    ], expect={"reply": {"any": ["three nights"], "voice": "Maren"}})])
    made, summary, record = _played_by_the_real_gm(case, model, tmp_path)
    assert record["history_played"][0]["reply"] == CALM
    assert [s.name for s in made[0].sheets] == ["Brisa Tallowmere", "Ilya Thorncastle"]
    log = [(t.speaker, t.text) for t in made[0].session.log]
    order = [log.index(("Ilya Thorncastle", "I wade over to the floating pews and sit down.")),
             log.index(("GM", "A hymnal drifts past with a silver key in its spine.")),
             log.index(("Brisa Tallowmere", "Maren, how many nights has the bell rung?"))]
    assert order == sorted(order)
    assert summary.grounded == 1.0 and summary.voice == 1.0 and summary.recall == 1.0 and summary.secret_leaks == 0


def test_a_history_turn_the_case_answers_has_the_case_s_gm_line_as_its_reply(tmp_path):
    """The model's own reply to an earlier question ("twenty feet") is replaced by the case's GM line
    ("120 feet"): a recall finds what the table was told, and the made-up words are nowhere in the log."""
    model = ScriptedModel(responder=lambda step, messages: "The rope bridge is about twenty feet long." if step == "narrate"
                          else json.dumps({"choice": "no_roll"}))
    [case] = parse_cases([{"id": "bridge", "ruleset": "dnd5e", "character": "Oskar Venn",
                           "scene": "The Gorge of Whispers, late afternoon. A rope bridge crosses to the far cliff.",
                           "history": [{"speaker": "Oskar Venn", "text": "How long is the rope bridge?"},
                                       {"speaker": "GM", "text": "It spans 120 feet of empty air, sagging in the middle."}],
                           "line": "How long did you say the bridge was?", "expect": {"reply": {"any": ["120 feet"], "none": ["twenty"]}}}])
    made, summary, record = _played_by_the_real_gm(case, model, tmp_path)
    assert "120 feet" in record["reply"]
    assert not any("twenty" in t.text for t in made[0].session.log)
    assert made[0].session.turns[0].narration == "It spans 120 feet of empty air, sagging in the middle."
    assert summary.recall == 1.0 and summary.contradictions == 0


def test_a_gm_that_cannot_take_a_gm_line_is_an_error_for_that_case(tmp_path):
    class Mute(ScriptGM):
        say = None

    [case] = parse_cases([reply_case("mute", history=[{"speaker": "GM", "text": "The bell stops."}])])
    summary = run_cases([case], "fake", tmp_path / "run", make_gm=Mute([CALM]))
    assert summary.errors == 1 and "say" in read_decisions(tmp_path / "run" / "decisions.jsonl")[0]["error"]


# ----- the metrics on hand-made records --------------------------------------------------------

def metric_cases():
    return parse_cases([
        reply_case("fact", line="How deep is the water?", expect={"reply": {"any": ["knee", "knee deep"], "none": ["waist deep"]}}),
        reply_case("npc", expect={"reply": {"any": ["three nights"], "voice": "Maren"}}),
        reply_case("npc2", line="Maren, who are you?", expect={"reply": {"voice": "Maren"}}),
        reply_case("recall", history=[{"speaker": "GM", "text": "You found a silver key."}], line="What did I find?",
                   expect={"reply": {"any": ["silver key", "key"]}}),
        reply_case("recall2", history=[{"speaker": "GM", "text": "You found a hymnal."}], line="What did I find earlier?",
                   expect={"reply": {"any": ["hymnal"], "none": ["found nothing"]}}),
        reply_case("ooc", line="(OOC) where is the reliquary?", expect={"reply": {"any": ["find out"]}}),
        reply_case("rolled", line="I climb the broken stair.", expect={"roll": True, "checks": ["athletics"], "reply": {"none": ["you fly"]}}),
    ])


def said(id, text, speaker=None, before=(), after=(), decision="no_roll"):
    return {"id": id, "decision": decision, "outcome": "none" if decision == "no_roll" else "success", "narration": text, "reply": text,
            "checks": [{"character": "Brisa Tallowmere", "skill": "athletics"}] if decision == "roll" else [],
            "speaker": speaker, "revealed_before": list(before), "revealed": list(after)}


def test_each_reply_metric_counts_what_it_says():
    s = summarize(metric_cases(), [
        said("fact", "The black water is knee deep and numbingly cold around your legs."),        # grounded
        said("npc", "Maren shakes her head. \"Three nights, and no wind at all,\" she whispers."),  # grounded, voiced
        said("npc2", "The keeper looks at you and says nothing, turning back to the water."),      # no quotes: not voiced
        said("recall", "You remember finding nothing of note in the chapel at all."),               # recall missed
        said("recall2", "The hymnal, you found nothing else, found nothing more."),                 # grounded and contradicted
        said("ooc", "A glyph of warding scratched inside the bell's rim makes it hum at every lie."),  # leaks bell_glyph, not grounded
        said("rolled", "You climb the slick stair and, at the top, find the silver reliquary wrapped in oilcloth.",
             decision="roll", after=["stair_climb"]),                                              # found by this very roll: no leak
    ])
    assert (s.reply_n, s.grounded_n, s.grounded) == (7, 5, pytest.approx(3 / 5))
    assert s.contradictions == 1 and s.contradiction_ids == ["recall2"]
    assert (s.voice_n, s.voice) == (2, 0.5)
    assert (s.recall_n, s.recall) == (2, 0.5)
    assert s.secret_leaks == 1 and s.leak_ids == ["ooc: bell_glyph"]


def test_reply_only_cases_stay_out_of_the_roll_metrics_unless_they_give_roll():
    s = summarize(metric_cases(), [said("fact", CALM), said("npc", CALM), said("rolled", CALM, decision="roll")])
    assert s.roll_n == 1 and s.no_roll_n == 0 and s.roll_recall == 1.0 and s.balanced_roll_accuracy == 1.0
    assert [c.kind for c in metric_cases()][:2] == ["reply", "reply"]


def test_the_reply_field_the_gm_says_is_speaking_counts_as_voice():
    s = summarize(metric_cases(), [said("npc2", "The keeper answers with a tired nod toward the steps.", speaker="Maren")])
    assert s.voice == 1.0


def test_a_secret_found_before_the_line_is_no_leak_and_an_old_run_is_not_judged_for_leaks():
    text = "A glyph of warding scratched inside the bell's rim makes it hum at every lie."
    assert summarize(metric_cases(), [said("ooc", text, before=["bell_glyph"])]).secret_leaks == 0
    old = said("ooc", text)
    del old["revealed_before"], old["revealed"]
    assert summarize(metric_cases(), [old]).secret_leaks == 0


def test_the_summary_table_and_json_show_the_reply_metrics(tmp_path):
    s = summarize(metric_cases(), [said("fact", "The black water is knee deep and numbingly cold around your legs.")])
    console = Console(record=True, width=250)
    console.print(format_summary(s))
    text = console.export_text()
    assert all(col in text for col in ("grounded", "contra", "voice", "leaks", "recall"))
    dumped = s.as_json()
    assert dumped["grounded"] == 1.0 and {"contradictions", "voice", "secret_leaks", "recall"} <= set(dumped)


# ----- phrases, voice, leaks ---------------------------------------------------------------------

@pytest.mark.parametrize("text, phrase, hit", [
    ("Maren says, \u201cno.\u201d", "Maren says", True),
    ("The water is knee-deep.", "knee deep", True),
    ("It happens often.", "ten", False),
    ("The captain's log lies open.", "captain", True),
    ("Two thousand feet (2,000 feet) up.", "2,000 feet", True),
    ("The password is 'thistledown'.", "thistledown", True),      # a word in single quotes is said
    ("Don't touch Maren's lamp.", "t", False), ("Maren's lamp", "s lamp", False),  # not a piece of a word
])
def test_phrases_match_whole_words_whatever_the_quotes_and_dashes(text, phrase, hit):
    assert carries(text, phrase) is hit


def test_voice_needs_quoted_words_and_the_npc_named():
    names = ["Maren"]
    assert speaks("\u201cThree nights,\u201d Maren says.", names)
    assert not speaks("Maren says it has been three nights.", names)       # told, not spoken
    assert not speaks("\"Three nights,\" says a voice from the steps.", names)  # spoken, but by whom?
    assert speaks("The keeper nods.", names, speaker="maren")


def chapel():
    return load_scenario("drowned_chapel", rulesets.load("dnd5e"))


def public(scenario, line=""):
    return " ".join([scenario.public_scene(set()), scenario.opening, line])


@pytest.mark.parametrize("reply, leaked", [
    ("Between us: altar_catch is what you want.", ["altar_catch"]),                                  # the GM's own id
    ("Scratched inside the rim is a glyph of warding that makes the bell hum.", ["bell_glyph"]),      # its rare words
    ("Under the lip a folded note reads: not until he leaves.", ["altar_catch"]),                     # the words it quotes
    ("There is a hidden catch under the altar's lip.", ["altar_catch"]),                              # three words in a row
])
def test_a_reply_that_gives_a_secret_away_is_a_leak(reply, leaked):
    s = chapel()
    assert leaked_secrets(reply, s.secrets, [], public(s)) == leaked


@pytest.mark.parametrize("reply", [
    "Black water, knee deep, covers the whole floor; loose pews float on it. At the far end an altar of stone stands under the bronze bell, which is cracked.",
    "Old Maren waits on the dry steps with her lantern. \"The bell rang three nights running,\" she says, \"and the silver reliquary is gone.\"",
    "You find out only by looking: the altar is slick with algae and the bell hums above it.",
])
def test_a_paraphrase_of_the_public_scene_is_no_leak(reply):
    s = chapel()
    assert leaked_secrets(reply, s.secrets, [], public(s)) == []


def test_what_the_player_said_is_public_too():
    """Asking about a glyph and hearing the word back is no leak; hearing what kind it is, and where, is."""
    s = chapel()
    line = "Is there a glyph on the bell?"
    assert leaked_secrets("You see no glyph from down here; the bell is too high.", s.secrets, [], public(s, line)) == []
    assert leaked_secrets("A glyph of warding is scratched inside the rim.", s.secrets, [], public(s, line)) == ["bell_glyph"]


def test_a_trigger_sentence_carried_whole_is_a_leak():
    secret = Secret(id="vault", text="The vault code is 4-7-1.", checks=["investigation"], difficulty=12,
                    trigger="studying the scratched brass dial beside the vault door")
    assert leaked_secrets("Try studying the scratched brass dial beside the door.", [secret], [], "A bank lobby with a vault door.") == ["vault"]
    assert leaked_secrets("The vault door is shut.", [secret], [], "A bank lobby with a vault door.") == []


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_no_shipped_scene_leaks_by_being_retold_and_each_secret_leaks_by_its_own_text(path):
    scenario = load_scenario(path.stem, rulesets.load(yaml.safe_load(path.read_text(encoding="utf-8"))["ruleset"]))
    told = public(scenario)
    assert leaked_secrets(told, scenario.secrets, [], told) == []
    for secret in scenario.secrets:
        assert secret.id in leaked_secrets(secret.text, scenario.secrets, [], told)


# ----- bad reply cases: one line naming the file, the case and the key ---------------------------

def error_of(tmp_path: Path, raw: dict) -> str:
    path = tmp_path / "cases.yaml"
    path.write_text(yaml.safe_dump({"cases": [raw]}, sort_keys=False), encoding="utf-8")
    with pytest.raises(CaseError) as info:
        load_cases(path)
    message = str(info.value)
    assert "\n" not in message and "cases.yaml:" in message and f"'{raw['id']}'" in message
    return message


@pytest.mark.parametrize("over, key, words", [
    ({"history": [{"speaker": "Gandalf", "text": "I wave."}]}, "history[0].speaker", "Brisa Tallowmere"),
    ({"history": [{"speaker": "Ilya"}]}, "history.0.text", "{speaker"),
    ({"history": [{"speaker": "Ilya", "text": "   "}]}, "history[0].text", "empty"),
    ({"history": ["I wave."]}, "history.0", "{speaker"),
    ({"expect": {"reply": {"anything": ["x"]}}}, "expect.reply.anything", "any (phrases)"),
    ({"expect": {"reply": {}}}, "expect.reply", "`any`"),
    ({"expect": {"reply": {"any": ["  "]}}}, "expect.reply.any[0]", "empty"),
    ({"expect": {"reply": {"voice": "Gandalf"}}}, "expect.reply.voice", "Maren"),
    ({"scenario": None, "scene": "A quiet inn kept by Hilda.", "expect": {"reply": {"voice": "Tobin"}}}, "expect.reply.voice", "not named"),
    ({"expect": {"checks": ["athletics"], "reply": {"any": ["x"]}}}, "expect.checks", "no checks"),
    ({"expect": {"checks": []}}, "expect.roll", "reply:"),
])
def test_bad_reply_cases_fail_in_one_line(tmp_path, over, key, words):
    raw = reply_case("bad-one", **over)
    if raw.get("scenario") is None:
        raw.pop("scenario")
    message = error_of(tmp_path, raw)
    assert f"'{key}'" in message and words in message


def test_voice_and_speakers_resolve_to_full_names(tmp_path):
    [case] = parse_cases([reply_case("names", history=[{"speaker": "ilya", "text": "I wait."}, {"speaker": "gm", "text": "Rain."}],
                                     expect={"reply": {"voice": "maren"}})])
    assert [h.speaker for h in case.history] == ["Ilya Thorncastle", "GM"] and case.expect.reply.voice == "Maren"
    assert case.speakers == ["Brisa Tallowmere", "Ilya Thorncastle"]


# ----- the dev set -----------------------------------------------------------------------------

def test_the_replies_dev_set_loads_with_the_promised_mix():
    cases = load_cases(REPLIES_DEV)
    assert set_role(REPLIES_DEV) == "dev" and len(cases) >= 48
    assert all(c.expect.reply is not None for c in cases)
    per_game = Counter(c.ruleset for c in cases)
    assert set(per_game) == {"dnd5e", "pf2e", "coc7e", "swade"} and min(per_game.values()) >= 12
    kinds = Counter(c.id.split("-")[1] for c in cases)  # ids read <game>-<kind>-<what>
    assert set(kinds) == {"npc", "fact", "recall", "absent", "dead", "ooc"}
    for game in per_game:
        mine = [c for c in cases if c.ruleset == game]
        assert any(c.scenario for c in mine) and any(c.scene for c in mine), game
        assert {c.id.split("-")[1] for c in mine} >= {"npc", "fact", "recall", "ooc"}, game
    assert all(c.history for c in cases if "-recall-" in c.id)
    assert all(c.expect.reply.voice for c in cases if "-npc-" in c.id)
    assert all(c.expect.reply.none for c in cases if "-dead-" in c.id or "-absent-" in c.id or "-ooc-" in c.id)
