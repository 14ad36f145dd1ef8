"""Where retrieval meets Chinese text, the packaged multilingual-e5-small embeds it (issue 42), chosen once per corpus."""
import pytest

from pipelines.embeddings import choose_encoder, embed_with
from pipelines.records import Check, MoeInstance, Turn
from pipelines.statistic import ContextIndex
from rulesets import VgmError

SCENES = {  # training contexts and their checks
    "spot": ("林语：我趴在地上，仔细看看地板上有没有拖拽的痕迹。", "spot_hidden"),
    "library": ("周彦：我去市图书馆，翻找二十年前关于这栋宅子的旧报纸。", "library_use"),
    "brawl": ("陈默：那个醉汉扑过来了，我一拳打在他脸上！", "fighting_brawl"),
    "listen": ("林语：我贴着门听听里面有没有动静。", "listen"),
}
# paraphrases sharing few characters with their scene (English-only MiniLM sent 4 of these 6 to the wrong scene)
PARAPHRASES = [("周彦：档案室里的旧新闻能告诉我们什么？", "library"), ("陈默：我揍那个混蛋。", "brawl"),
               ("林语：我蹲下检查脚印和血迹。", "spot"), ("林语：屋里有声音吗？我把耳朵凑过去。", "listen"),
               ("周彦：查阅资料", "library"), ("陈默：我用拳头狠狠地揍他", "brawl")]


def instance(key: str, line: str, skill: str) -> MoeInstance:
    who, said = line.split("：", 1)
    return MoeInstance(id=key, ruleset="coc7e", context=[Turn(speaker="KP", text="你们来到了老宅。"), Turn(speaker=who, text=said)],
                       answers=[Check(character=who, skill=skill)], characters=[who])


def test_chinese_training_contexts_are_embedded_with_the_multilingual_encoder_and_find_their_paraphrases():
    index = ContextIndex([instance(k, line, skill) for k, (line, skill) in SCENES.items()])
    found = [index.nearest(instance(f"q{n}", line, "spot_hidden"), k=1)[0][1].id for n, (line, _) in enumerate(PARAPHRASES)]
    assert index.encoder == "e5"
    assert found == [scene for _, scene in PARAPHRASES]


def test_english_stays_on_minilm_and_a_named_encoder_wins(monkeypatch):
    assert choose_encoder(["Nott sneaks towards the purse."]) == "minilm"
    assert choose_encoder(["林语仔细侦查书房。"]) == "e5"
    assert choose_encoder(["林语仔细侦查书房。"], "minilm") == "minilm"
    monkeypatch.setenv("VGM_EMBEDDER", "e5")
    assert choose_encoder(["Nott sneaks towards the purse."]) == "e5"


def test_an_unknown_embedder_is_one_line(monkeypatch):
    monkeypatch.setenv("VGM_EMBEDDER", "bert")
    with pytest.raises(VgmError) as caught:
        choose_encoder(["hello"])
    assert "bert" in str(caught.value) and "minilm" in str(caught.value) and "\n" not in str(caught.value)


def test_e5_vectors_are_unit_rows_of_the_minilm_width():
    vectors = embed_with("e5", ["林语仔细侦查书房。", "", "The keeper's daughter waits."])
    assert vectors.shape == (3, 384)
    assert abs(float((vectors ** 2).sum(axis=1).max()) - 1.0) < 1e-4


async def test_the_knn_pipeline_on_chinese_data_votes_with_e5_and_says_so():
    from pipelines import load_pipeline
    from pipelines.statistic import SkillStats

    train = [instance(k, line, skill) for k, (line, skill) in SCENES.items()]
    result = await load_pipeline("knn").run(instance("q", "陈默：我揍那个混蛋。", "fighting_brawl"), None, stats=SkillStats(train))
    assert [c.skill for c in result.checks] == ["fighting_brawl"]
    assert result.steps[-1].parsed["encoder"] == "e5"
