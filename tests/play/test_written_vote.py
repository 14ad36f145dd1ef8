"""The vote learned from written case lines: how play weighs it, the rule that refuses by it, its build."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rulesets
from eval.play import learn_written as build
from eval.play._cases import load_cases
from pipelines.decide import MODEL_FILE, Context, LearnedDecision, ModelFileError, apply_rules
from pipelines.decide.learned import WRITTEN_CLASSES, written_features
from pipelines.decide.registry import IMPOSSIBLE, NO_ROLL, ROLL

DND = rulesets.load("dnd5e")
GATE = {"ruleset": "dnd5e", "blocks": ["line"],
        "roll": {"weights": [0.0], "bias": 0.0, "platt": [1.0, 0.0], "threshold": 0.5},
        "checks": {"classes": ["athletics"], "weights": [[0.0]], "bias": [0.0]}}


def _model(written: dict | None = None) -> LearnedDecision:
    return LearnedDecision({**GATE, **({"written": written} if written else {})})


@settings(max_examples=80, deadline=None)
@given(p=st.floats(0.01, 0.99), probs=st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3))
def test_real_table_talk_keeps_the_gates_call_and_a_written_line_follows_the_vote(p, probs):
    """Weighed by style: at style 0 (real talk) the gate's probability stands; at style 1 the vote
    decides, "impossible" counting against "no roll" (an act that may not work is rolled, not told)."""
    probs = np.asarray(probs) / sum(probs)
    model = _model({"weights": [[0.0]] * 3, "bias": [0.0] * 3})
    talk, share, _, _ = model.weigh_written(p, 0.5, probs, style=0.0)
    assert talk == pytest.approx(p, abs=1e-3) and share == 0.0
    written, share, unlikely, _ = model.weigh_written(p, 0.5, probs, style=1.0)
    assert (written >= 0.5) == (probs[1] + probs[2] >= probs[0])
    assert share == pytest.approx(probs[2]) and unlikely == (probs[2] >= max(probs[0], probs[1]))


@settings(max_examples=60, deadline=None)
@given(p=st.floats(0.01, 0.99), probs=st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3), style=st.floats(0.0, 1.0))
def test_the_doubt_only_marks_lines_left_unrolled_that_lean_to_impossible(p, probs, style):
    """A doubted line is one the gate and vote leave unrolled while the vote, weighed by style,
    leans to "impossible" over "no roll" past ``doubt_at``; a model without the bar doubts nothing."""
    probs = np.asarray(probs) / sum(probs)
    section = {"weights": [[0.0]] * 3, "bias": [0.0] * 3, "power": 2.0}
    assert not _model(section).weigh_written(p, 0.5, probs, style).doubted
    weighed = _model({**section, "doubt_power": 1.0, "doubt_at": 0.6}).weigh_written(p, 0.5, probs, style)
    lean = style * probs[2] / (probs[2] + probs[0])
    assert weighed.doubted == (weighed.p_roll < 0.5 and lean >= 0.6)


def test_a_model_without_the_vote_keeps_the_gate_and_a_damaged_vote_says_how_to_rebuild():
    assert _model().p_written(np.zeros((1, 4))) is None
    with pytest.raises(ModelFileError, match="vgm play learn"):
        _model({"weights": [[0.0]] * 2, "bias": [0.0] * 2})
    model = _model({"weights": [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], "bias": [0.0] * 3})
    probs = model.p_written(np.array([[3.0, 0.0]]))
    assert probs.shape == (1, len(WRITTEN_CLASSES)) and np.allclose(probs.sum(), 1) and probs[0].argmax() == 0
    assert model.p_written(np.zeros((1, 5))) is None  # features of another width: no vote, not a crash


def test_the_features_are_the_vectors_then_what_the_gate_weighed():
    row = written_features(np.ones(3), np.zeros(3), p_play=0.5, threshold=0.5, p_real=0.5, style=0.7, not_no_roll=0.5)
    assert row.shape == (1, 10) and row[0, :3].tolist() == [1, 1, 1] and row[0, 6] == 0.0 and row[0, 8] == pytest.approx(0.7)
    acted = written_features(np.ones(3), np.zeros(3), 0.5, 0.5, 0.5, 0.7, 0.5, act=np.full(3, 2.0))
    assert acted.shape == (1, 13) and acted[0, 6:9].tolist() == [2, 2, 2] and acted[0, -2] == pytest.approx(0.7)  # style stays [-2]


def test_the_act_words_are_what_a_line_does_without_what_it_does_it_to():
    from pipelines.decide.features import act_words
    assert act_words("I read the open logbook.").split() == ["read", "open"]
    assert "logbook" not in act_words("I read the open logbook.") and "sneak" in act_words("I sneak past the ogre.")


def _ctx(line: str, p_written: float = 0.9, unlikely: bool = True, cued: list[str] | None = None, doubted: bool = False,
         **options) -> Context:
    return Context(line=line, act=line, scene="", speaker="Brisa", who="Brisa", pack=DND, decision=NO_ROLL, check="athletics",
                   ranked=["athletics"], p_written=p_written, unlikely=unlikely, doubted=doubted, cued=cued or [],
                   options={"written_refuse_at": 0.8, **options})


def test_the_written_vote_refuses_past_its_bar_but_never_words_a_named_challenge_or_a_secret():
    assert apply_rules(_ctx("I push the tower over."), ["impossible_written"]).decision == IMPOSSIBLE
    assert apply_rules(_ctx("I push the tower over.", p_written=0.5), ["impossible_written"]).decision == NO_ROLL
    assert apply_rules(_ctx("Could I push the tower over?"), ["impossible_written"]).decision == NO_ROLL
    assert apply_rules(_ctx("I swim the whole lake.", cued=["athletics"]), ["impossible_written"]).decision == NO_ROLL
    assert apply_rules(_ctx("I climb the stair.", secret_meant=True), ["impossible_written"]).decision == NO_ROLL


def test_an_act_the_written_vote_doubts_below_its_bar_is_rolled_at_the_hardest():
    """Below the refusal bar, an act whose likeliest reading is "impossible" is never told as done without dice."""
    doubted = apply_rules(_ctx("I wire the marshal for help.", p_written=0.6), ["impossible_written", "implausible"])
    assert (doubted.decision, doubted.check, doubted.hardest) == (ROLL, "athletics", True)
    plain = apply_rules(_ctx("I wire the marshal for help.", p_written=0.2, unlikely=False), ["impossible_written", "implausible"])
    assert plain.decision == NO_ROLL and not plain.hardest


def test_an_act_the_vote_only_doubts_is_rolled_at_the_hardest_but_words_never_are():
    """Leaning to impossible over no roll, without outweighing both: the act is rolled, not told as done;
    talk and questions are words, answered as usual."""
    act = apply_rules(_ctx("Dutch saddles his horse and rides after them.", p_written=0.1, unlikely=False, doubted=True), ["implausible"])
    assert (act.decision, act.hardest) == (ROLL, True)
    for words in ("Dutch asks the stable boy whether any horse is left.", "Is there a horse left in town?"):
        assert apply_rules(_ctx(words, p_written=0.1, unlikely=False, doubted=True), ["implausible"]).decision == NO_ROLL


def test_the_shipped_vote_was_measured_on_held_out_sets_and_reads_play_features():
    model = LearnedDecision.shipped()
    meta = model.meta
    blocks = 3 if model.written_act else 2  # the line, the scene and (when it reads them) the act words, then the gate's four
    assert model.written_w is not None and model.written_w.shape[1] == blocks * 384 + 4
    assert meta["written_held_out_possible_refused"] <= build.REFUSE_SHARE
    assert meta["written_held_out_roll_recall"] > meta["written_gate_roll_recall"]
    assert model.written_refuse_at == pytest.approx(meta["written_refuse_at"], abs=1e-4)
    doubt = meta["written_doubt"]  # chosen so no more than its share of held-out no-roll acts, or real turns, is rolled
    assert model.doubt_at == doubt["at"] and doubt["held_out_no_roll_rolled"] <= build.DOUBT_SHARE
    assert doubt["real_negatives_rolled"] <= build.DOUBT_REAL_SLACK and doubt["held_out_told_rolled"][0] > 0


SET = """role: dev
cases:
{cases}
"""
CASE = """- id: {id}
  ruleset: dnd5e
  scene: {scene}
  character: Brisa Tallowmere
  line: {line}
  expect: {expect}
"""
LINES = [
    ("I climb the slick wall to the window.", "{roll: true, checks: [athletics]}"),
    ("I sneak past the sleeping guard.", "{roll: true, checks: [stealth]}"),
    ("I say good morning to the innkeeper.", "{roll: false}"),
    ("I sit down and eat my bread.", "{roll: false}"),
    ("I lift the whole castle over my head.", "{impossible: true}"),
    ("I drink the entire river in one gulp.", "{impossible: true}"),
]


def test_the_build_fits_one_vote_from_sets_each_held_out_in_turn(tmp_path, monkeypatch):
    """Three small sets: the section has one row per class, a bar in range, and held-out measures."""
    pairs = []
    for n in range(3):
        text = SET.format(cases="".join(CASE.format(id=f"c{n}-{i}", scene="A muddy village square at dawn.", line=line, expect=expect)
                                        for i, (line, expect) in enumerate(LINES)))
        path = tmp_path / f"set{n}.yaml"
        path.write_text(text, encoding="utf-8")
        pairs += [(case, path.stem) for case in load_cases(path)]
    monkeypatch.setattr(build, "written_cases", lambda role="dev": pairs)
    model = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    section, measured = build.learn_written(model)
    built = LearnedDecision({**model, "written": section})
    assert built.written_w.shape == (3, (3 if build.ACT else 2) * 384 + 4) and built.written_act == build.ACT
    assert measured["written_cases"] == 18 and measured["written_sets"] == 3
    assert 0.5 <= section["refuse_at"] <= 1.01
    assert 0.0 <= measured["written_held_out_possible_refused"] <= build.REFUSE_SHARE
    assert measured["written_doubt"] is None or measured["written_doubt"]["held_out_no_roll_rolled"] <= build.DOUBT_SHARE


@pytest.mark.parametrize("line", ["Tomás flashes his press card and asks the nurse which room the burned man is in.",
                                  "Marisol asks the warden captain whether the wagons can get across."])
def test_speech_told_without_quotes_is_never_refused_by_a_vote(line):
    for rule in ("impossible_written", "impossible_learned"):
        ctx = Context(
            line=line, act=line, scene="", speaker="Tomás", who="Tomás", pack=DND, decision=ROLL, check="persuasion",
            ranked=["persuasion"], p_written=0.99, p_unworkable=0.99, options={"written_refuse_at": 0.5, "refuse_at": 0.5})
        assert apply_rules(ctx, [rule]).decision == ROLL
