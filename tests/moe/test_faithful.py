"""Issue 16: the paper's ablation as written (faithful prompting), the extra baselines, the GM-utterance
conditions of Fig. 5, `vgm moe score`, and the cost columns."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from eval.moe import build_report, load_moe
from eval.moe.runner import run_pipelines
from eval.ratings import HUMAN, Study, build_study, study_report
from pipelines import Check, MoeInstance, SkillStats, Turn, load_pipeline
from pipelines.llm import ScriptedModel
import rulesets
from ui.cli import app

from .test_runner import oracle

cli = CliRunner()
NOTT = '{"checks": [{"character": "Nott", "skill": "sleight_of_hand"}, {"character": "Nott", "skill": "sleight_of_hand"}]}'


class Recording(ScriptedModel):
    """A scripted model that also keeps the JSON schema each request carried."""

    async def complete(self, messages, **kwargs):
        reply = await super().complete(messages, **kwargs)
        self.requests[-1]["json_schema"] = kwargs.get("json_schema")
        return reply


def scripted():
    return Recording(by_step={"template": [NOTT], "pre_char": ['{"characters": ["Nott"]}'], "char": ['{"characters": ["Nott"]}'],
                                  "skill": [NOTT], "gm_utterance": ["Nott, roll Sleight of Hand."]})


# --- faithful prompting ------------------------------------------------------------------------

async def test_faithful_gives_only_what_the_paper_gives(tavern):
    train = [MoeInstance(id=f"x{k}", ruleset="dnd5e", context=[Turn(speaker="GM", text=".")], answers=[Check(character="Nott", skill="stealth")]) for k in range(3)]
    model = scripted()
    result = await load_pipeline("template").run(tavern, model, stats=SkillStats(train), prompting="faithful")
    request = model.requests[0]
    system, log = request["messages"][0]["content"], request["messages"][1]["content"]
    pack = rulesets.load("dnd5e")
    assert pack.check_menu() in system  # the pack's own order, not sorted by training frequency
    assert "Player characters: Jester, Nott, Caleb" in log  # the cast's own order, not the most recent speaker first
    assert "Based on the TRPG game record provided above" in log
    assert "maxItems" not in json.dumps(request.get("json_schema"))  # no answer cap
    # the paper's p counts every predicted tuple: a repeated check is kept
    assert result.checks == [Check(character="Nott", skill="sleight_of_hand")] * 2


async def test_faithful_tbs_uses_the_papers_step_wording(tavern):
    model = scripted()
    await load_pipeline("tbs").run(tavern, model, prompting="faithful")
    pre, char, skill = (r["messages"][-1]["content"] for r in model.requests)
    assert "identify the characters or NPCs that exist in the current scenarios" in pre
    assert "Which character or NPC is expected to carry out activities next?" in char
    assert "What skills are required for the mentioned characters (Nott)" in skill


async def test_assisted_is_unchanged_when_no_prompting_is_given(tavern):
    model = scripted()
    result = await load_pipeline("template").run(tavern, model)
    assert "most recent speaker first" in model.requests[0]["messages"][1]["content"]
    assert '"maxItems": 3' in json.dumps(model.requests[0]["json_schema"])
    assert result.checks == [Check(character="Nott", skill="sleight_of_hand")]


async def test_the_report_says_which_prompting(tmp_path):
    out = {"template": tmp_path / "template", "last_speaker": tmp_path / "last_speaker"}
    await run_pipelines(list(out), "sample", out, model=oracle(), model_name="scripted", limit=3)
    report = build_report([tmp_path])
    assert "Prompting: faithful." in report.markdown() and report.as_json()["prompting"] == "faithful"
    assert "formulas (1)-(6) as written" in report.markdown()
    with pytest.raises(Exception, match="holds a run with prompting='faithful'"):
        await run_pipelines(["template"], "sample", {"template": out["template"]}, model=oracle(), model_name="scripted", limit=3, prompting="assisted")


# --- baselines ---------------------------------------------------------------------------------

def words(texts):
    """A bag-of-words embedding for tests: similar logs share words."""
    import zlib

    rows = []
    for text in texts:
        row = np.zeros(256)
        for word in text.lower().replace(".", " ").split():
            row[zlib.crc32(word.encode()) % 256] += 1
        rows.append(row)
    return np.array(rows)


async def test_knn_takes_the_skill_of_the_most_similar_context(tavern):
    def inst(iid, text, skill):
        return MoeInstance(id=iid, ruleset="dnd5e", context=[Turn(speaker="Nott", text=text)], answers=[Check(character="Nott", skill=skill)])

    train = [inst("a", "I slip under the table and sneak towards his purse.", "sleight_of_hand"),
             inst("b", "I climb the wall of the tower.", "athletics"), inst("c", "I climb up the rope quickly.", "athletics")]
    result = await load_pipeline("knn").run(tavern, None, stats=SkillStats(train), embedder=words)
    assert result.checks == [Check(character="Nott", skill="sleight_of_hand")]
    assert result.steps[-1].parsed["neighbours"][0][0] == "a"


async def test_knn_leave_one_out_never_votes_for_itself(tavern):
    result = await load_pipeline("knn").run(tavern, None, stats=SkillStats([tavern]), leave_one_out=True, embedder=words)
    assert result.steps[-1].parsed["neighbours"] == []


async def test_oracle_char_takes_the_gold_characters(tavern):
    stats = SkillStats([MoeInstance(id="x", ruleset="dnd5e", context=[Turn(speaker="GM", text=".")], answers=[Check(character="Nott", skill="stealth")])])
    result = await load_pipeline("oracle_char").run(tavern, None, stats=stats)
    assert result.checks == [Check(character="Nott", skill="stealth")]


def test_compare_default_holds_the_papers_eight_and_the_baselines():
    from eval.moe.runner import COMPARE_DEFAULT

    assert COMPARE_DEFAULT == ["last_speaker", "statistic", "template", "template_zcot", "char_skill", "tbs", "tbs_zcot", "tbs_statistic", "knn", "oracle_char"]


# --- GM-utterance conditions and a study over them --------------------------------------------

async def test_gold_and_nomoe_conditions(tavern):
    model = ScriptedModel(by_step={"gm_utterance": ["Nott, sleight of hand please.", "The stranger stares back at you."]})
    gold = await load_pipeline("gold_gm").run(tavern, model)
    assert gold.checks == tavern.answers and "Nott: Sleight of Hand" in model.requests[0]["messages"][-1]["content"]
    nomoe = await load_pipeline("nomoe_gm").run(tavern, model)
    assert nomoe.checks == [] and nomoe.utterance == "The stranger stares back at you."
    assert "ask for these checks" not in model.requests[1]["messages"][-1]["content"]


async def test_a_study_with_gold_predicted_nomoe_and_human_conditions(tmp_path):
    data = tmp_path / "data.jsonl"
    lines = []
    for inst in load_moe("sample")[:4]:
        lines.append(json.dumps({**inst.model_dump(exclude_none=True), "gm_reply": f"{inst.answers[0].character}, roll it."}))
    data.write_text("\n".join(lines) + "\n")

    def respond(step, messages):
        if step == "gm_utterance":
            return "GM: " + messages[-1]["content"][:30]
        return oracle()._responder(step, messages)

    out = {name: tmp_path / "runs" / name for name in ("gold_gm", "tbs_gm", "nomoe_gm")}
    await run_pipelines(list(out), data, out, model=ScriptedModel(responder=respond), model_name="scripted")
    study, token, summary = build_study(list(out.values()), tmp_path / "study.db", n=4, include_human=True)
    assert summary.conditions == ["gold_gm", "tbs_gm", "nomoe_gm", HUMAN] and summary.contexts == 4
    admin = Study.open(tmp_path / "study.db").admin(token)
    rater = admin.add_rater("alice")
    view = Study.open(tmp_path / "study.db").rater(rater.token)
    while (item := view.next_item()) is not None:
        view.submit(item.id, 4, 4, 5)
    report = study_report(Study.open(tmp_path / "study.db").admin(token))
    assert set(report.conditions) >= {"gold_gm", "tbs_gm", "nomoe_gm", HUMAN}
    assert all(report.mean_of(cond, "naturalness").n == 4 for cond in report.conditions)


# --- vgm moe score -----------------------------------------------------------------------------

def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_score_gives_the_papers_worked_cases(tmp_path):
    context = [{"speaker": "A", "text": "I try."}]
    gold = write_jsonl(tmp_path / "gold.jsonl", [
        {"id": "1", "ruleset": "dnd5e", "context": context, "answers": [{"character": "A", "skill": "strength"}, {"character": "A", "skill": "athletics"}]},
    ])
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "1", "prediction": [{"character": "A", "skill": "Perception"}]}])
    result = cli.invoke(app, ["moe", "score", str(gold), str(pred), "--json"])
    assert result.exit_code == 0, result.output
    score = json.loads(result.output)
    assert set(score) == {"CP", "CR", "SP", "SR", "CF", "SF", "n"} and score["CR"] == 0.5 and score["n"] == 1
    gold2 = write_jsonl(tmp_path / "gold2.jsonl", [{"id": "2", "ruleset": "dnd5e", "context": context, "answers": [{"character": "A", "skill": "stealth"}]}])
    pred2 = write_jsonl(tmp_path / "pred2.jsonl", [{"id": "2", "prediction": [{"character": "A", "skill": "stealth"}, {"character": "A", "skill": "stealth"}]}])
    assert json.loads(cli.invoke(app, ["moe", "score", str(gold2), str(pred2), "--json"]).output)["SP"] == 0.5
    tuple_score = json.loads(cli.invoke(app, ["moe", "score", str(gold2), str(pred2), "--json", "--metric", "tuple"]).output)
    assert tuple_score["SP"] == 1.0


def test_score_on_a_run_folder_and_bad_input(tmp_path):
    cli.invoke(app, ["moe", "run", "-p", "last_speaker", "--limit", "3", "-o", str(tmp_path / "run")])
    ok = cli.invoke(app, ["moe", "score", "sample", str(tmp_path / "run" / "predictions.jsonl"), "--json"])
    assert ok.exit_code == 0 and json.loads(ok.output)["n"] == 3
    stray = write_jsonl(tmp_path / "p.jsonl", [{"id": "nope-1", "prediction": []}, {"id": "nope-2", "prediction": []}])
    bad = cli.invoke(app, ["moe", "score", "sample", str(stray)])
    assert bad.exit_code != 0 and "2 prediction id(s) are not in sample (first: 'nope-1')" in str(bad.exception)
    metric = cli.invoke(app, ["moe", "score", "sample", str(tmp_path / "run" / "predictions.jsonl"), "--metric", "f1"])
    assert "choose one of paper, tuple" in str(metric.exception)
    prompting = cli.invoke(app, ["moe", "run", "-p", "last_speaker", "--prompting", "smart", "-o", str(tmp_path / "run2")])
    assert "choose one of faithful, assisted" in str(prompting.exception) and not (tmp_path / "run2").exists()


# --- costs -------------------------------------------------------------------------------------

async def test_cache_hits_are_split_from_model_calls(tmp_path):
    from pipelines.llm import Reply, Usage

    class Cached(ScriptedModel):
        async def complete(self, messages, **kwargs):
            reply = await super().complete(messages, **kwargs)
            return Reply(text=reply.text, usage=Usage(prompt_tokens=100, cached_tokens=0, cache_hit=True, calls=1), model="m")

    def respond(step, messages):
        return oracle()._responder(step, messages)

    out = {"tbs_statistic": tmp_path / "ts"}
    await run_pipelines(list(out), "sample", out, model=Cached(responder=respond), model_name="scripted", limit=2)
    row = build_report([tmp_path]).rows[0].metrics
    assert row["calls_per_instance"] == 2 and row["cache_hits_per_instance"] == 2 and row["model_calls_per_instance"] == 0
    assert row["computed_prompt_tokens_per_instance"] == 0
    assert "(100% cached)" in build_report([tmp_path]).markdown()
