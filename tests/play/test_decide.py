"""The GM's decision package: the rule registry (each rule switched off by deleting one spec
line, every firing recorded), the learned model file, and the features it reads."""
from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rulesets
from pipelines.decide import (
    DEFAULT_RULES, MODEL_FILE, RULES, STAGES, Context, LearnedDecision, ModelFileError, UnknownRule, Verdict,
    apply_rules, rule,
)
from pipelines.decide.features import BLOCKS, SURFACE_NAMES, scene_tail, surface
from pipelines.decide.learned import MIX_NAMES, candidate_features
from pipelines.check_index import Neighbour, Vote
from eval.play.learn_checks import fit_mix
from pipelines.decide.registry import IMPOSSIBLE, NO_ROLL, ROLL
from pipelines.pipeline import Pipeline, PipelineSpec, StepSpec, load_pipeline
from pipelines.records import MoeInstance, Turn

DND = rulesets.load("dnd5e")


def ctx(line: str, decision: str = ROLL, check: str | None = "athletics", scene: str = "") -> Context:
    return Context(line=line, act=line, scene=scene, speaker="Brisa", who="Brisa", pack=DND, decision=decision, check=check,
                   ranked=[check] if check else [])


# ---- the registry ---------------------------------------------------------------------------

def test_every_rule_the_shipped_spec_runs_is_registered_once_with_a_stage_and_a_reason():
    spec = load_pipeline("adjudicate").spec.steps[0].args["rules"]
    assert sorted(spec) == sorted(set(spec)) and set(spec) <= set(RULES)
    assert set(DEFAULT_RULES) == set(spec)
    for rule_id in spec:
        assert RULES[rule_id].stage in STAGES and RULES[rule_id].doc, rule_id


def test_a_refusal_ends_the_decision_and_every_firing_is_recorded_in_order():
    c = apply_rules(ctx("OOC: how far is the town?"), ["table_talk", "question_to_gm"])
    assert c.decision == NO_ROLL and [f["rule"] for f in c.fired] == ["table_talk"]
    c = apply_rules(ctx("How many guards are at the gate?"), ["table_talk", "question_to_gm"])
    assert c.decision == NO_ROLL and c.fired[0]["rule"] == "question_to_gm" and c.fired[0]["from"] == "athletics"


def test_an_unknown_rule_in_a_spec_is_one_clear_error_naming_the_rules():
    with pytest.raises(UnknownRule, match="registered rules are"):
        Pipeline(PipelineSpec(name="x", steps=[StepSpec(name="adjudicate", args={"rules": ["no_such_rule"]})]))


def test_a_verdict_that_names_a_check_makes_the_decision_a_roll():
    @rule("test_force_stealth", "check")
    def force(c: Context) -> Verdict | None:
        """test only: always stealth."""
        return Verdict(check="stealth", reason="test")

    try:
        c = apply_rules(ctx("I wait", decision=NO_ROLL, check=None), ["test_force_stealth"])
        assert (c.decision, c.check) == (ROLL, "stealth")
    finally:
        RULES.pop("test_force_stealth")


def run_line(line: str, rules: list[str] | None, scene: str = "A quiet hall with a locked door.", **options) -> dict:
    spec = PipelineSpec(name="t", steps=[StepSpec(name="adjudicate", args={} if rules is None else {"rules": rules})])
    instance = MoeInstance(id="t", ruleset="dnd5e", context=[Turn(speaker="GM", text=scene), Turn(speaker="Brisa", text=line)],
                           characters=["Brisa"])
    result = asyncio.run(Pipeline(spec).run(instance, None, pack=DND, scene=scene, **options))
    return {"decision": result.decision, "record": result.steps[0].parsed}


HALL = "A quiet hall with a locked door."


@pytest.mark.parametrize("rule_id,line,scene", [
    ("table_talk", "(OOC) can I move my character over there before I climb?", HALL),
    ("impossible_kind", "I pick up the whole church and carry it to the river.", HALL),
    ("impossible_learned", "I jump down to the valley floor and land on my feet.", "A narrow mountain ledge above a thousand-foot drop."),
    ("impossible_power", "I leap from the balcony and fly over the hall to the door.", HALL),
])
def test_each_rule_can_be_switched_off_in_a_spec(rule_id, line, scene):
    """With the rule listed it fires and is recorded; with its line deleted from the spec it does not."""
    sheets = {"powers": {"Brisa": {"spells": [], "has": "halfling rogue"}}}
    on = run_line(line, list(DEFAULT_RULES), scene, **sheets)
    off = run_line(line, [r for r in DEFAULT_RULES if r != rule_id], scene, **sheets)
    assert rule_id in [f["rule"] for f in on["record"]["fired"]]
    assert rule_id not in [f["rule"] for f in off["record"]["fired"]]
    changed = (on["decision"], on["record"]["choice"], on["record"].get("rule")) != (off["decision"], off["record"]["choice"], off["record"].get("rule"))
    assert changed


def test_a_question_the_world_answers_outright_is_settled_without_dice_by_its_own_rule():
    """The GM passes the kind of answer its world holds; the decision to drop the roll is the
    pipeline's, recorded with its reason, and deleting the rule's spec line brings the roll back."""
    line = "I try to pick the lock on the door."
    on = run_line(line, list(DEFAULT_RULES), HALL, world_answers="npc")
    off = run_line(line, [r for r in DEFAULT_RULES if r != "world_answers"], HALL, world_answers="npc")
    plain = run_line(line, list(DEFAULT_RULES), HALL)
    assert on["decision"] == NO_ROLL
    assert [f["reason"] for f in on["record"]["fired"] if f["rule"] == "world_answers"] == ["the world answers the question (npc)"]
    assert off["decision"] == plain["decision"] == ROLL


@pytest.mark.parametrize("kind,check,line,settled", [
    ("recall", "investigation", "What did we find in the chest?", True), ("ooc", "arcana", "OOC, what is the hum?", True),
    ("npc_gone", "deception", "I ask Oakes about the ledger.", True), ("npc", "survival", "Wren, which way did the cart go?", True),
    ("fact", "perception", "How many coffins are there?", True), ("npc", "insight", "Mr. Vane, what's the game tonight?", True),
    ("npc", "persuasion", "I gently ask the sheriff what weighs on him.", False),
    # words that only ask sway no one, whatever social check the ranking led with; a plea or a lie keeps it
    ("npc", "persuasion", "Amos, any letters come for me today?", True),
    ("npc", "deception", '"Captain," Oskar says, folding his hands, "where was the smuggler last seen?"', True),
    ("npc", "persuasion", "Please, Marta, I beg you, tell us where he went. The boy's life depends on it!", False),
    ("npc", "deception", "I tell the clerk I'm the mayor's nephew and ask where the ledger is kept.", False),
    ("npc", "insight", "I watch her hands. Is she telling us everything?", False),
    ("fact", "history", "Do I know whose banner that is?", False),
])
def test_the_world_answer_drops_a_finding_roll_but_not_one_that_sways_reads_or_recalls(kind, check, line, settled):
    """"Wren, which way did the cart go?" needs no Survival roll when Wren tells anyone; "Is she telling
    us everything?" keeps its Insight roll though the world holds something she says."""
    c = Context(line=line, act=line, scene="", speaker="Brisa", who="Brisa", pack=DND,
                decision=ROLL, check=check, ranked=[check], options={"world_answers": kind})
    out = apply_rules(c, ["world_answers"])
    assert (out.decision == NO_ROLL) is settled


def test_the_step_records_a_calibrated_probability_and_a_ranking():
    out = run_line("I try to pick the lock on the door.", None)["record"]
    assert 0.0 <= out["p_roll"] <= 1.0 and out["threshold"] > 0
    assert out["ranked"] and all(c in DND.checks or c.split(":")[0] in DND.families for c in out["ranked"])
    assert isinstance(out["fired"], list)


def test_an_ordinary_act_ranks_its_check_and_a_greeting_rolls_nothing():
    lock = run_line("I try to pick the lock on the door with my thieves' tools.", None)
    assert {"sleight_of_hand", "tool:thieves", "dexterity"} & set(lock["record"]["ranked"][:3])
    hello = run_line("Good morning! Lovely weather today.", None)
    assert hello["decision"] == NO_ROLL and hello["record"]["p_roll"] < run_line("I try to pick the lock on the door.", None)["record"]["p_roll"]


# ---- the model file ---------------------------------------------------------------------------

def test_the_shipped_model_reads_its_own_feature_width_and_knows_dnd_checks():
    model = LearnedDecision.shipped()
    assert model.ruleset == "dnd5e" and set(model.blocks) <= set(BLOCKS)
    assert "perception" in model.checks and set(model.checks) <= set(DND.checks)
    x = np.zeros((2, model.width), dtype=np.float32)
    p = model.p_roll(x)
    assert p.shape == (2,) and ((0 < p) & (p < 1)).all()
    scores = model.check_scores(np.zeros((2, model.check_w.shape[1]), dtype=np.float32))
    assert np.allclose(scores.sum(axis=1), 1.0)
    assert model.mix is not None and model.mix.shape == (len(MIX_NAMES),)
    assert model.meta["episodes"] and not set(model.meta["episodes"]) & {"C2E005", "C2E010", "C2E015", "C2E020", "C2E025", "C2E030"}


def test_the_impossible_vote_reads_the_line_in_its_scene_and_never_refuses_a_question():
    """The learned vote (line, scene and their product) refuses a leap the scene makes deadly, lets
    the same words pass on a low wall, and a question about it is asked, not done."""
    deadly = run_line("I jump down and land on my feet.", None, "A narrow mountain ledge above a thousand-foot drop.")
    low = run_line("I jump down and land on my feet.", None, "The top of a garden wall, five feet above the soft lawn.")
    asked = run_line("Could I jump down to the valley floor and land on my feet?", None, "A narrow mountain ledge above a thousand-foot drop.")
    assert deadly["record"]["p_unworkable"] > low["record"]["p_unworkable"]
    assert low["decision"] != IMPOSSIBLE and asked["decision"] != IMPOSSIBLE
    model = LearnedDecision.shipped()
    assert model.votes_impossible and 0 < model.meta["impossible_real_refused"] <= 0.002
    assert model.implausible_at is not None  # the hardest roll keeps its own bar (the packs' pooled direction)


def test_the_style_gate_tells_lines_written_for_the_gm_from_real_table_talk():
    """The gate that decides whose word counts for which check: an example-style line and the
    loose talk of a real table (lines written here, in the two manners) fall on either side."""
    model = LearnedDecision.shipped()
    from pipelines.vector_store import embed_cached

    written = ["I climb the crumbling wall to reach the window", "I try to pick the lock on the iron chest"]
    talk = ["Oh man. Okay, okay, wait, is he, like, still looking at us? Because I'm, yeah.",
            "Ha! No, no, that's fair, that's totally fair."]
    style = model.style(embed_cached(written + talk))
    assert (style[:2] > 0.5).all() and (style[2:] < 0.5).all()


def _vote(scores: dict[str, float], nearest: float) -> Vote:
    return Vote(neighbours=[Neighbour(label, "line", nearest) for label in scores], scores=scores, blend=scores)


def _mixing_model(mix: list[float]) -> LearnedDecision:
    return LearnedDecision({
        "ruleset": "dnd5e", "blocks": ["line"],
        "roll": {"weights": [0.0], "bias": 0.0, "platt": [1.0, 0.0], "threshold": 0.5},
        "checks": {"classes": ["stealth", "perception"], "weights": [[0.0], [0.0]], "bias": [0.0, 0.0], "mix": mix},
    })


def test_the_learned_mix_trusts_the_vote_on_written_lines_and_the_model_on_table_talk():
    """Fitted on lines where the example lines' vote is right when the line reads as written and
    the learned model is right when it reads as talk, the mix ranks each kind by its witness."""
    vote = _vote({"stealth": 0.9, "perception": 0.1}, nearest=0.6)
    learned = {"stealth": 0.1, "perception": 0.9}
    rows = []
    for style, gold in [(0.95, "stealth"), (0.9, "stealth"), (0.85, "stealth"), (0.05, "perception"), (0.1, "perception"), (0.15, "perception")] * 5:
        rows.append((*candidate_features(vote, {}, learned, style), {gold}))
    model = _mixing_model(fit_mix(rows).tolist())
    assert model.rank_checks(vote, {}, learned, style=0.9)[0] == "stealth"
    assert model.rank_checks(vote, {}, learned, style=0.1)[0] == "perception"


def test_a_check_only_the_vote_knows_still_ranks_and_no_mix_means_no_learned_ranking():
    vote = _vote({"tool:thieves": 0.8, "stealth": 0.2}, nearest=0.7)
    checks, rows = candidate_features(vote, {}, {"stealth": 0.5, "perception": 0.5}, 0.9)
    assert "tool:thieves" in checks and rows[checks.index("tool:thieves"), MIX_NAMES.index("unlearned")] == 1.0
    model = _mixing_model([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert model.rank_checks(vote, {}, {"stealth": 0.5, "perception": 0.5}, 0.9)[0] == "tool:thieves"
    bare = _mixing_model([0.0] * len(MIX_NAMES))
    bare.mix = None
    assert bare.rank_checks(vote, {}, {"stealth": 1.0}, 0.5) == []


def test_a_damaged_model_file_is_one_line_saying_how_to_rebuild(tmp_path):
    bad = tmp_path / "decision.json"
    bad.write_text(json.dumps({"roll": {"weights": [1, 2]}}), encoding="utf-8")
    with pytest.raises(ModelFileError, match="vgm play learn"):
        LearnedDecision.load(bad)
    with pytest.raises(ModelFileError, match="vgm play learn"):
        LearnedDecision.load(tmp_path / "missing.json")
    with pytest.raises(ModelFileError, match="rebuild"):
        LearnedDecision.shipped().p_roll(np.zeros((1, 3)))
    assert MODEL_FILE.stat().st_size < 400_000  # small enough to commit


# ---- features -----------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(line=st.text(max_size=300), scene=st.text(max_size=900))
def test_surface_features_are_finite_and_the_scene_tail_is_bounded(line, scene):
    marks = surface(line, scene)
    assert marks.shape == (len(SURFACE_NAMES),) and np.isfinite(marks).all()
    assert len(scene_tail(scene)) <= 600


def test_the_scene_tail_keeps_the_last_sentences():
    scene = " ".join(f"Sentence number {i} is here." for i in range(100))
    tail = scene_tail(scene)
    assert tail.endswith("Sentence number 99 is here.") and "number 1 is" not in tail


def test_the_learned_vote_never_refuses_an_act_that_reaches_for_a_scenario_secret():
    """The scenario says the broken stair can be climbed (a secret found by climbing it): the vote's doubt is no reason."""
    line = "I climb the broken stair up into the bell tower."
    def ctx(**options):
        return Context(line=line, act=line, scene="", speaker="Brisa", who="Brisa", pack=DND, decision=ROLL,
                       check="athletics", ranked=["athletics"], p_unworkable=0.9, options={"refuse_at": 0.5, **options})
    assert apply_rules(ctx(), ["impossible_learned"]).decision == IMPOSSIBLE
    assert apply_rules(ctx(hint_checks=["athletics"], secret_meant=True), ["impossible_learned"]).decision == ROLL
    assert apply_rules(ctx(hint_checks=["athletics"]), ["impossible_learned"]).decision == IMPOSSIBLE  # a shared word is not the act


def test_the_learned_vote_never_refuses_an_act_that_names_its_kind_of_challenge():
    """Swimming for a bank in flood is hard, not impossible: the line names a challenge the game has a
    check for (``cued``), so the vote's doubt over words and scene is no reason to refuse it."""
    line = "I wade in and swim hard for the far bank."
    def ctx(cued):
        return Context(line=line, act=line, scene="The river is in full flood.", speaker="Brisa", who="Brisa", pack=DND,
                       decision=ROLL, check="athletics", ranked=["athletics"], p_unworkable=0.9, options={"refuse_at": 0.5}, cued=cued)
    assert apply_rules(ctx(["athletics"]), ["impossible_learned"]).decision == ROLL
    assert apply_rules(ctx([]), ["impossible_learned"]).decision == IMPOSSIBLE


def test_an_act_the_nearest_example_lines_let_happen_is_never_refused_by_a_learned_vote():
    """"I order a whiskey and pay with a silver dollar" was refused as impossible in the Silver Spur saloon."""
    from types import SimpleNamespace
    line = "I order a whiskey and pay with a silver dollar."
    def ctx(no_roll_share):
        return Context(line=line, act=line, scene="The Silver Spur saloon is packed.", speaker="Dutch", who="Dutch", pack=DND,
                       decision=NO_ROLL, check=None, ranked=[], p_unworkable=0.9, options={"refuse_at": 0.5},
                       vote=SimpleNamespace(scores={"no_roll": no_roll_share}))
    assert apply_rules(ctx(0.99), ["impossible_learned"]).decision == NO_ROLL
    assert apply_rules(ctx(0.2), ["impossible_learned"]).decision == IMPOSSIBLE


@pytest.mark.parametrize("line, check, kept", [
    ("what's up there around the bell? is there a rope, a ladder, any way someone could get up to it?", "athletics", False),
    ("How heavy is the chain on the door? is it a padlock or just wrapped around?", "sleight_of_hand", False),
    ("Is there anything odd about the altar?", "perception", True),          # a roll to notice stays
    ("Do I know whose banner that is?", "history", True),                    # and one to know
    ("Can I climb up to the bell?", "athletics", True),                       # asking to act is an act
    ("I climb up to the bell. Is the rope still there?", "athletics", True),  # an act, then a question
    ("whats the bell hanging from, chain or rope or a beam? can i see the crack from here", "arcana", False),  # in plain sight
    ("can i see the crack from here? anything hidden in it?", "perception", True),  # a look for what is hidden stays
])
def test_a_line_that_only_asks_attempts_nothing_but_may_roll_to_notice_or_know(line, check, kept):
    c = apply_rules(ctx(line, check=check), ["question_attempts_nothing"])
    assert (c.decision == ROLL) == kept
    if not kept:
        assert c.fired[0]["rule"] == "question_attempts_nothing"


@pytest.mark.parametrize("line, answered", [
    ("I ask Ruth whether her father kept a logbook.", True),
    ("I ask Snik what he'd rather have, a honey cake or a strip of jerky, and whether the Chief ever sleeps.", True),
    ("I ask him whether he is lying to us.", False),  # a read of him: the roll stays
    ("I ask Ruth when she last saw him. Then I search the desk.", False),
])
def test_asking_someone_whether_something_is_so_is_answered_by_them_unless_it_reads_them(line, answered):
    c = apply_rules(ctx(line, check="insight"), ["question_for_facts"])
    assert (c.decision == NO_ROLL) == answered


def test_a_question_typed_on_after_another_without_its_mark_is_still_asking():
    from pipelines.decide.scene_facts import is_question
    assert is_question("dutch squints at it. how tall is that mesa? could we climb it before dark")
    assert not is_question("How tall is it? I start climbing.")
