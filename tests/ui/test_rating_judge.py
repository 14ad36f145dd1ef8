"""A model judge beside the humans (issue 44): held to the scale, saved as it goes, its agreement reported."""
import json
import re
import sqlite3

from typer.testing import CliRunner

from eval.ratings import build_from_items, judge_agreement, judge_study, study_report
from pipelines.llm import ScriptedModel

ITEMS = [{"id": f"c{k}", "context": f"scene {k}", "candidates": [{"condition": "terse", "text": "Roll." * (k + 1)},
                                                                 {"condition": "rich", "text": "The door creaks; roll Perception."}]}
         for k in range(5)]


def make(tmp_path, mode="both"):
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ITEMS))
    study, _, _ = build_from_items(tmp_path / "items.jsonl", tmp_path / "s.db", mode=mode)
    return study


def judge_reply(step, messages):
    """Scores like the humans below (5 for the rich line, 2 for the terse one); the rich side in A/B."""
    text = messages[-1]["content"]
    if "Line A:" in text:
        return json.dumps({"choice": "a" if "Line A: The door" in text else "b"})
    good = "next line: The door" in text
    return json.dumps({c: 5 if good else 2 for c in ("naturalness", "groundedness", "factual")})


def test_the_judge_rates_every_item_held_to_the_scale_and_resumes(tmp_path):
    study = make(tmp_path)
    asked = []
    chat = ScriptedModel(responder=lambda step, msgs: asked.append(msgs) or judge_reply(step, msgs), name="scripted")
    first = judge_study(study, "scripted", limit=6, chat=chat)
    assert first.judged == 6 and first.resumed == 0 and first.unreadable == 0
    again = judge_study(study, "scripted", chat=chat)
    assert again.resumed == 6 and again.judged == 9 and len(asked) == 15  # nothing asked twice
    schemas = [json.dumps(r["json_schema"]) for r in chat.requests]
    # the scale travels as an enum, so a grammar-backed model (llama.cpp, OpenAI) cannot answer off it
    assert all('"enum": [1, 2, 3, 4, 5]' in x for x in schemas if "naturalness" in x)
    assert any('"enum": ["a", "b", "tie", "both_bad"]' in x for x in schemas)
    rows = sqlite3.connect(study.path).execute("SELECT COUNT(*), SUM(ok) FROM judge_ratings").fetchone()
    assert rows == (15, 15)


def test_an_answer_off_the_scale_is_kept_as_unreadable_not_stored_as_a_score(tmp_path):
    study = make(tmp_path, mode="score")
    chat = ScriptedModel(responder=lambda step, msgs: '{"naturalness": 9, "groundedness": 3, "factual": 3}', name="scripted")
    run = judge_study(study, "scripted", limit=2, chat=chat)
    assert run.unreadable == 2
    assert sqlite3.connect(study.path).execute("SELECT COUNT(*) FROM judge_ratings WHERE scores_json IS NULL").fetchone()[0] == 2


def test_report_sets_judge_human_agreement_beside_human_human(tmp_path):
    study = make(tmp_path)
    for name in ("ann", "ben"):
        view = study.rater(study.owner().add_rater(name).token)
        while (item := view.next_item()) is not None:
            if item.kind == "ab":
                view.choose(item.id, "a" if item.utterance.startswith("The door") else "b")
            else:
                good = item.utterance.startswith("The door")
                view.submit(item.id, *(5 if good else 2, 5 if good else 1, 4 if good else 2))
    judge_study(study, "scripted", chat=ScriptedModel(responder=judge_reply, name="scripted"))
    rep = study_report(study.owner(), bootstrap=0)
    agree = judge_agreement(study.owner(), "scripted", rep.alpha)
    assert agree.items == 15 and agree.ab_items == 5 and agree.ab_agree == 1.0
    assert agree.criteria["naturalness"]["judge_alpha"] == 1.0 and agree.criteria["naturalness"]["spearman"] > 0.9
    assert agree.criteria["naturalness"]["human_alpha"] == rep.alpha["naturalness"]
    from ui.cli import app

    out = CliRunner().invoke(app, ["rate", "report", str(study.path), "--bootstrap", "0"])
    assert out.exit_code == 0, out.output
    line = next(x for x in out.output.splitlines() if x.startswith("judge scripted"))
    assert re.search(r"Naturalness: judge alpha 1\.00, Spearman \d\.\d\d \(n 10\); humans alpha", line)
    assert "picks the humans' majority on 100% of 5" in line
