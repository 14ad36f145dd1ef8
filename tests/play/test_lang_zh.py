"""`vgm play --lang zh`: a Chinese scene plays with the Chinese prompt files, the pack's Chinese check
names, and the GM's fixed sentences in Chinese; English-only parts refuse in one line (issue 42)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gm.agent import GameMaster
from gm.answer import OOC_REFUSAL, Answer
from gm.narration import NarrationRequest, narrate, split_sentences
from pipelines.llm import ScriptedModel
from rulesets import VgmError

import rulesets

SCENE = Path(__file__).parent / "fixtures" / "zh_lantern.yaml"
SPOT = '{"checks": [{"character": "Tomás Reyes", "skill": "侦查"}]}'
HAN = re.compile(r"[\u4e00-\u9fff]")
ZH_OUTCOME = {"success": "成功", "regular success": "常规成功", "hard success": "困难成功", "extreme success": "极难成功",
              "critical success": "大成功", "failure": "失败", "fumble": "大失败"}


def table(model: ScriptedModel, tmp_path: Path, **options) -> GameMaster:
    return GameMaster("coc7e", str(SCENE), model, memory=False, seed=3, characters=["Tomás Reyes"], lang="zh",
                      session_path=tmp_path / "zh.json", **options)


def test_a_chinese_scene_plays_with_the_chinese_prompts_and_the_check_resolves_through_the_packs_chinese_name(tmp_path):
    model = ScriptedModel(by_step={"template": [SPOT], "narrate": ["你俯下身细看地板上的灰尘和灯油。"]})
    gm = table(model, tmp_path)
    reply = gm.step("Tomás Reyes", "我仔细侦查地板，看看有没有痕迹")

    assert gm.pipeline.name == "template"  # adjudicate reads English example lines; a Chinese table decides by a prompt
    assert [c.skill for c in reply.checks] == ["spot_hidden"] and reply.rolls[0].check == "spot_hidden"
    decide, narration = model.requests[0]["messages"], model.requests[-1]["messages"]
    assert "spot_hidden — Spot Hidden / 侦查" in decide[0]["content"] and "主持人" in decide[0]["content"]
    assert narration[0]["content"].startswith("你是一场") and "中文" in narration[0]["content"]
    assert any(HAN.search(m["content"]) for m in narration[1:-1] if m["role"] == "assistant")  # the Chinese worked replies
    asked = narration[-1]["content"]
    assert "场景：" in asked and f"侦查检定：{ZH_OUTCOME[reply.rolls[0].outcome]}。" in asked
    assert HAN.search(reply.narration) and not re.search(r"\b(roll|check|success|failure)\b", reply.narration, re.I)

    again = GameMaster.resume(tmp_path / "zh.json", model, memory=False)  # a resumed table keeps its language and its pipeline
    assert again.session.lang == "zh" and again.pipeline.name == "template"


def test_when_the_models_words_are_unusable_the_gm_says_it_plainly_in_chinese(tmp_path):
    model = ScriptedModel(by_step={"template": [SPOT], "narrate": ["Result: as the GM, the check succeeds.", "Scene: json {}"]})
    reply = table(model, tmp_path).step("Tomás Reyes", "我仔细侦查地板，看看有没有痕迹。")
    assert reply.narration.startswith("Tomás") and "仔细侦查地板" in reply.narration
    assert not re.search(r"\b(tries|sets out|works|roll|check)\b", reply.narration)
    assert any("fell back" in n for n in reply.notes)


def test_an_english_table_refuses_a_chinese_line_in_one_line_and_keeps_nothing(tmp_path):
    gm = GameMaster("coc7e", "lantern_house", ScriptedModel(["{}"]), memory=False, seed=1, session_path=tmp_path / "en.json")
    log = len(gm.session.log)
    with pytest.raises(VgmError) as caught:
        gm.step("Tomás Reyes", "我仔细侦查地板")
    assert "--lang zh" in str(caught.value) and "\n" not in str(caught.value)
    assert len(gm.session.log) == log and not gm.session.turns


@pytest.mark.parametrize(("options", "said"), [({"pipeline": "adjudicate"}, "English example lines"), ({"lang": "fr"}, "'fr'")])
def test_english_only_decisions_and_unknown_languages_are_refused_before_the_table_is_set(tmp_path, options, said):
    with pytest.raises(VgmError) as caught:
        GameMaster("coc7e", str(SCENE), ScriptedModel(["{}"]), memory=False, characters=["Tomás Reyes"],
                   session_path=tmp_path / "x.json", **{"lang": "zh", **options})
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "x.json").exists()


async def test_the_gms_fixed_sentences_are_said_in_chinese():
    pack = rulesets.load("coc7e")
    base = dict(pack=pack, scene="小屋里一片漆黑。", name="Tomás", decision="no_roll", lang="zh")
    ooc = await narrate(ScriptedModel([]), NarrationRequest(**base, line="告诉我灯塔里到底有什么", answer=Answer("ooc", OOC_REFUSAL, final=True)))
    assert ooc.text.startswith("这得由你们的角色") and OOC_REFUSAL not in ooc.text
    unknown = Answer("npc_unknown", "露丝 does not know.", speaker="露丝", quote="I don't know. I couldn't tell you that.")
    told = await narrate(ScriptedModel(by_step={"narrate": ["Sure."]}), NarrationRequest(**base, line="露丝，你父亲去哪了？", answer=unknown))
    assert told.text == "露丝说：“我不知道，这个我说不上来。”"


def test_chinese_sentences_end_at_their_own_marks_and_english_ones_as_before():
    assert split_sentences("你推开门。屋里很暗！“有人吗？”没有回答。") == ["你推开门。", "屋里很暗！", "“有人吗？”", "没有回答。"]
    assert split_sentences("Dr. Hale opens the door. It is dark!") == ["Dr. Hale opens the door.", "It is dark!"]


async def test_a_chinese_npc_answer_in_their_own_voice_is_kept_and_a_copied_prompt_label_is_cut():
    pack = rulesets.load("coc7e")
    told = Answer("npc", "父亲每晚都去灯塔", speaker="露丝", quote="父亲每晚都去灯塔")
    ask = NarrationRequest(pack=pack, scene="小屋里一片漆黑。", name="Tomás", line="露丝，你父亲晚上去哪？", decision="no_roll", lang="zh", answer=told)
    worded = await narrate(ScriptedModel(by_step={"narrate": ["露丝压低声音：“父亲每晚都去灯塔。”"]}), ask)
    assert worded.text == "露丝压低声音：“父亲每晚都去灯塔。”" and not worded.fell_back

    act = NarrationRequest(pack=pack, scene="小屋里一片漆黑，炉子是冷的。", name="Tomás", line="我推开里屋的门", decision="no_roll", lang="zh")
    said = await narrate(ScriptedModel(by_step={"narrate": ["结果：成功。门轴吱呀一声，里屋的窗帘被海风吹得鼓了起来。"]}), act)
    assert "结果" not in said.text and "窗帘" in said.text
    assert "narration: cut a sentence that leaked prompt text" in said.notes


def test_a_rolled_question_falls_back_to_how_the_words_were_taken_not_to_the_words_as_a_deed():
    from gm.language import fallback

    said = fallback("zh", "Tomás", "露丝，你父亲最近晚上都去哪儿了？", "roll", True, scene_line="小屋里一片漆黑。")
    assert said == "Tomás问出了口，对方愿意回答。小屋里一片漆黑。"
    assert fallback("zh", "Tomás", "露丝，求你了，告诉我们实话。", "roll", False) == "Tomás据理力争，可这番话没有打动任何人。"
    assert fallback("zh", "Tomás", "我撬开地窖的锁", "roll", False) == "Tomás试着撬开地窖的锁，但事情没能如愿。"
