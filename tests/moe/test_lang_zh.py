"""`--lang zh`: Chinese prompt files beside the English ones, check ids still the answer; MiniLM says when it reads Chinese."""
import json
import warnings
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from eval.moe.dataset import write_moe
from eval.moe.importers import import_dicebot
from pipelines import load_pipeline
from pipelines.llm import ScriptedModel
from pipelines.steps._conversation import PROMPTS
from rulesets import VgmError
from ui.cli import app

from .conftest import FIXTURES

LIN = '{"checks": [{"character": "林语", "skill": "图书馆"}]}'


def library_instance():
    report = import_dicebot(FIXTURES / "dicebot" / "sealdice-standard-log.json")
    return next(i for i in report.instances if [a.skill for a in i.answers] == ["library_use"])


def test_every_english_moe_prompt_has_a_chinese_twin_with_the_same_slots():
    import re

    for name in ("system", "log", "pre_char", "char", "skill", "template", "zcot", "gm", "gm_nomoe"):
        for stem in (name, f"faithful_{name}"):
            english = (PROMPTS / f"{stem}.txt").read_text(encoding="utf-8")
            chinese = (PROMPTS / f"{stem}.zh.txt").read_text(encoding="utf-8")
            slots = lambda text: sorted(set(re.findall(r"(?<!\{)\{[a-z_]+\}(?!\})", text)))  # noqa: E731
            assert slots(chinese) == slots(english), stem
            assert re.search(r"[\u4e00-\u9fff]", chinese), stem


@pytest.mark.parametrize("prompting", ["faithful", "assisted"])
async def test_zh_prompts_reach_the_model_and_answers_resolve_to_pack_ids(prompting):
    model = ScriptedModel(by_step={"pre_char": ['{"characters": ["林语", "周彦"]}'], "char": ['{"characters": ["林语"]}'], "skill": [LIN]})
    result = await load_pipeline("tbs").run(library_instance(), model, lang="zh", prompting=prompting)
    assert [(c.character, c.skill) for c in result.checks] == [("林语", "library_use")]
    system, log = model.requests[0]["messages"][:2]
    assert "library_use" in system["content"] and "图书馆使用" in system["content"]  # ids, with their Chinese names
    assert "主持人" in system["content"] and "林语: 我去书房翻一翻那些旧报纸。" in log["content"]
    assert "角色" in model.requests[-1]["messages"][-1]["content"]


async def test_an_unknown_language_is_one_line():
    result = await load_pipeline("template").run(library_instance(), ScriptedModel(by_step={"template": [LIN]}), lang="fr")
    assert "--lang 'fr'" in result.error


def test_run_with_lang_zh_on_imported_logs_records_the_language(tmp_path):
    data = tmp_path / "zh.jsonl"
    write_moe(import_dicebot(FIXTURES / "dicebot" / "dice_session.txt").instances, data)
    script = tmp_path / "model.yaml"
    script.write_text(yaml.safe_dump({"default": ['{"checks": [{"character": "苏晴", "skill": "锁匠"}]}'], "repeat_last": True}, allow_unicode=True), encoding="utf-8")
    out = tmp_path / "template"
    result = CliRunner().invoke(app, ["moe", "run", "--lang", "zh", "--pipeline", "template", "--data", str(data),
                                      "-m", f"scripted:{script}", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    predicted = [json.loads(line)["prediction"] for line in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert predicted and all(p == [{"character": "苏晴", "skill": "locksmith"}] for p in predicted)
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["lang"] == "zh"
    again = CliRunner().invoke(app, ["moe", "run", "--pipeline", "template", "--data", str(data), "-m", f"scripted:{script}", "-o", str(out)])
    assert isinstance(again.exception, VgmError) and "lang='zh'" in str(again.exception)  # an English resume is refused


def test_minilm_says_once_when_it_reads_chinese(monkeypatch):
    from pipelines import embeddings

    monkeypatch.setattr(embeddings, "_warned_cjk", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        embeddings.warn_if_not_english(["Nott sneaks towards the purse."])
        assert not caught
        embeddings.warn_if_not_english(["林语：我去书房翻一翻那些旧报纸。"])
        embeddings.warn_if_not_english(["周彦：我凑到门口仔细听。"])
    assert [w.category for w in caught] == [embeddings.NotEnglish]
    assert "English" in str(caught[0].message) and "\n" not in str(caught[0].message)
