"""Studies from an items file (issue 44): any context, one or two candidates a line, metadata kept; mistakes are one line."""
import json
import sqlite3

import pytest
from typer.testing import CliRunner

from eval.ratings import StudyError, build_from_items, study_report

LINES = [
    {"id": "s1", "context": [{"speaker": "Ann", "text": "I pick the lock."}], "ruleset": "dnd5e",
     "candidates": [{"condition": "gpt", "text": "Roll Sleight of Hand."}, {"condition": "human", "text": "Give me a DEX check."}],
     "metadata": {"source": "pilot", "turn": 12}},
    {"id": "s2", "context": "某人推门而入。", "candidates": [{"condition": "gpt", "text": "请进行侦查检定。"},
                                                        {"condition": "human", "text": "大家看向门口。"}]},
    {"id": "s3", "context": "The bridge creaks.", "candidates": [{"condition": "gpt", "text": "Everyone, roll Dexterity."}]},
]


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_items_file_gives_score_and_ab_items_with_metadata_kept_out_of_sight(tmp_path):
    study, _, summary = build_from_items(write(tmp_path / "items.jsonl", LINES[:2]), tmp_path / "s.db", mode="both")
    assert summary.contexts == 2 and summary.items == 6 and summary.conditions == ["gpt", "human"]  # 2 x (2 score + 1 A/B)
    view = study.rater(study.owner().add_rater("ann").token)
    seen = []
    while (item := view.next_item()) is not None:
        seen.append(item)
        view.choose(item.id, "a") if item.kind == "ab" else view.submit(item.id, 4, 4, 4)
    assert {i.kind for i in seen} == {"score", "ab"}
    chinese = next(i for i in seen if i.instance_id == "s2")
    assert chinese.context == [{"speaker": "", "text": "某人推门而入。"}]
    assert all("pilot" not in json.dumps(i.__dict__, ensure_ascii=False) for i in seen)  # metadata is not shown
    conn = sqlite3.connect(study.path)
    assert json.loads(conn.execute("SELECT metadata_json FROM items WHERE metadata_json IS NOT NULL").fetchone()[0])["turn"] == 12
    rep = study_report(study.owner())
    assert rep.ratings == 4 and rep.choices == 2 and rep.mean_of("human", "factual").mean == 4.0


def test_one_candidate_is_a_score_item_and_ab_mode_needs_two(tmp_path):
    _, _, summary = build_from_items(write(tmp_path / "items.jsonl", LINES), tmp_path / "s.db")
    assert summary.items == 5
    with pytest.raises(StudyError, match=r"items.jsonl:3: --mode ab needs two 'candidates'"):
        build_from_items(tmp_path / "items.jsonl", tmp_path / "t.db", mode="ab")


@pytest.mark.parametrize("line, message", [
    ({"id": "x", "candidates": ["hi"]}, "bad.jsonl:2: missing key 'context'"),
    ({"id": "x", "context": "c"}, "bad.jsonl:2: missing key 'candidates'"),
    ({"context": [{"speaker": "a"}], "candidates": ["hi"]}, "bad.jsonl:2: 'context'[0] lacks the key 'text'"),
    ({"context": "c", "candidates": [{"condition": "a"}]}, "bad.jsonl:2: 'candidates'[0] lacks the key 'text'"),
    ({"context": "c", "candidates": ["a", "b", "c"]}, "bad.jsonl:2: 'candidates' must list one line to score or two"),
    ({"id": "s1", "context": "c", "candidates": ["a"]}, "bad.jsonl:2: the id 's1' is used twice"),
    ("{not json", "bad.jsonl:2: malformed JSON"),
])
def test_a_bad_line_is_one_line_naming_the_file_the_line_and_the_key(tmp_path, line, message):
    path = write(tmp_path / "bad.jsonl", [LINES[0], line])
    with pytest.raises(StudyError) as err:
        build_from_items(path, tmp_path / "s.db")
    assert message in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "s.db").exists()


def test_cli_takes_items_instead_of_runs_and_refuses_both(tmp_path, monkeypatch):
    from ui.cli import app

    monkeypatch.chdir(tmp_path)
    write(tmp_path / "items.jsonl", LINES)
    made = CliRunner().invoke(app, ["rate", "create", "--items", "items.jsonl", "-o", "s.db", "--per-item", "2", "--per-rater", "3"])
    assert made.exit_code == 0, made.output
    assert "3 contexts, 5 score items" in made.output and "quota 4 participants" in made.output
    both = CliRunner().invoke(app, ["rate", "create", "--items", "items.jsonl", "--from", "runs/x", "-o", "t.db"])
    assert both.exit_code != 0 and "not both" in both.output and "Traceback" not in both.output
