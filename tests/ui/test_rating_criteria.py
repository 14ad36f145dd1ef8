"""Criteria from a YAML file (issue 44): any ids, scales and anchors, per language; the rater page in Chinese."""
import json

import gradio as gr
import pytest
from typer.testing import CliRunner

from eval.ratings import InvalidRating, StudyError, build_from_items, default_criteria, export_csv, read_criteria, study_report
from ui.web._common import AppContext
from ui.web._rate import RateTab

OWN = """languages: [en, zh]
criteria:
  - id: tension
    label: {en: Tension, zh: 紧张感}
    question: {en: "Does the line raise the stakes?", zh: 这句话有没有提高紧张感？}
    scale:
      min: 0
      max: 6
      anchors:
        0: {en: flat, zh: 平淡}
        6: {en: gripping, zh: 扣人心弦}
  - id: rules
    label: {en: Rules, zh: 规则}
    question: {en: "Is the check the right one?", zh: 检定是否正确？}
    scale: {min: 1, max: 3}
  - id: pick
    label: {en: Pick, zh: 选择}
    question: {en: "Which line would you rather hear?", zh: 你更想听哪一句？}
    scale: ab
"""

ITEMS = [{"id": f"c{k}", "context": [{"speaker": "Ann", "text": f"我推开门 {k}"}],
          "candidates": [{"condition": "gpt", "text": "请进行侦查检定。"}, {"condition": "human", "text": "门后一片漆黑。"}]}
         for k in range(3)]


@pytest.fixture
def own_study(tmp_path):
    (tmp_path / "own.yaml").write_text(OWN, encoding="utf-8")
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ITEMS), encoding="utf-8")
    study, _, _ = build_from_items(tmp_path / "items.jsonl", tmp_path / "s.db", mode="both",
                                   criteria=read_criteria(tmp_path / "own.yaml"), lang="zh")
    return study


def test_the_default_file_is_the_papers_three_factors_in_english_and_chinese():
    crit = default_criteria()
    assert crit.ids() == ("naturalness", "groundedness", "factual") and crit.legacy() and crit.languages == ["en", "zh"]
    assert [c.label for c in crit.in_lang("zh")] == ["自然度", "贴合场景", "事实正确性"]
    assert crit.in_lang("en")[2].anchors[0] == (1, "poor")


def test_own_criteria_are_stored_rated_on_their_own_scales_and_reported(own_study):
    view = own_study.rater(own_study.owner().add_rater("王").token)
    with pytest.raises(InvalidRating, match="tension=7: scores go from 0 to 6"):
        view.rate(view.next_item().id, {"tension": 7, "rules": 2})
    with pytest.raises(InvalidRating, match="'naturalness' is not a criterion of this study"):
        view.rate(view.next_item().id, {"naturalness": 3, "tension": 1, "rules": 2})
    while (item := view.next_item()) is not None:
        if item.kind == "ab":
            view.choose(item.id, "both_bad")
        else:
            view.rate(item.id, {"tension": 0 if "侦查" in item.utterance else 6, "rules": 3})
    rep = study_report(own_study.owner(), bootstrap=0)
    assert [c.id for c in rep.criteria] == ["tension", "rules"] and rep.criteria[0].label == "紧张感"
    assert rep.mean_of("human", "tension").mean == 6 and rep.mean_of("gpt", "tension").mean == 0
    assert rep.ab_answers["both_bad"] == 3
    header = export_csv(own_study.owner()).splitlines()[0]
    assert ",tension,rules," in header and "naturalness" not in header


def test_the_rater_page_speaks_chinese_with_the_files_criteria(own_study):
    token = own_study.owner().add_rater("李").token
    with gr.Blocks():
        tab = RateTab(AppContext(study=own_study), gr.State(None))
    assert [r.label for r in tab.scores] == ["紧张感", "规则"]
    assert [c[0] for c in tab.scores[0].choices] == [str(n) for n in range(7)] and "平淡" in tab.scores[0].info
    assert tab.submit_btn.value == "提交并继续" and tab.choice.label == "你更想听哪一句？"
    assert [c[0] for c in tab.choice.choices] == ["A 更好", "B 更好", "差不多", "两句都不好"]
    shown = tab.on_load(token)
    assert "欢迎。" in shown[tab.progress] and "评分说明" in shown[tab.progress] and "到目前为止的记录" in shown[tab.context]
    item = shown[tab.item_id]
    kind = own_study.rater(token).item(item).kind
    out = tab._submit(token, item, None, None, None, None)
    assert ("请选择" if kind == "ab" else "请给 紧张感, 规则 打分") in out[tab.alert]
    after = tab._submit(token, item, "5", "2", "a", "") if kind != "ab" else tab._submit(token, item, None, None, "a", "")
    assert "已保存。" in after[tab.progress]


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("scale: {min: 1, max: 3}", "scale: likert"), "own.yaml:12: scale 'likert' of 'rules' is not known"),
    (lambda t: t.replace(", zh: 这句话有没有提高紧张感？", ""), "own.yaml:3: 'tension.question' has no 'zh' text"),
    (lambda t: t.replace("id: rules", "id: tension"), "own.yaml:12: id 'tension' is used twice"),
    (lambda t: t.replace('    question: {en: "Is the check the right one?", zh: 检定是否正确？}\n', ""), "own.yaml:12: missing key 'question'"),
    (lambda t: t.replace("0: {en: flat", "9: {en: flat"), "own.yaml:3: anchor 9 of 'tension' is not on its scale 0-6"),
    (lambda t: t.replace("languages: [en, zh]", "langs: [en]"), "own.yaml: missing key 'languages'"),
])
def test_a_bad_criteria_file_is_one_line_naming_the_file_the_line_and_the_key(tmp_path, edit, message):
    (tmp_path / "own.yaml").write_text(edit(OWN), encoding="utf-8")
    with pytest.raises(StudyError) as err:
        read_criteria(tmp_path / "own.yaml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_cli_lang_needs_the_language_in_the_criteria(tmp_path, monkeypatch):
    from ui.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ITEMS), encoding="utf-8")
    made = CliRunner().invoke(app, ["rate", "create", "--items", "items.jsonl", "--lang", "zh", "-o", "zh.db"])
    assert made.exit_code == 0, made.output
    refused = CliRunner().invoke(app, ["rate", "create", "--items", "items.jsonl", "--lang", "fr", "-o", "fr.db"])
    assert refused.exit_code != 0 and "--lang fr: the criteria have texts in en, zh only" in refused.output


def test_the_start_page_speaks_the_study_language_and_counts_one_share(tmp_path):
    from eval.ratings import crowd_settings
    from ui.web._api import start_page

    rows = ITEMS * 1
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    study, _, _ = build_from_items(tmp_path / "items.jsonl", tmp_path / "zh.db", lang="zh", per_item=1, per_rater=2,
                                   crowd=crowd_settings("generic"), consent="# 知情同意\n\n自愿参加。")
    html = start_page(study, f"/enroll/{study.enroll_key()}", {}).body.decode()
    assert '<html lang="zh">' in html and "开始之前" in html and "我已阅读以上信息，同意参加。" in html
    assert "你将阅读 2 段" in html  # a design: the participant's share, not the study's 6 items
