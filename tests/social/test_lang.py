"""Language packs: `--lang zh` speaks Chinese to every seat (Avalon and Mafia); English stays the default, as written."""
import json
import re

from typer.testing import CliRunner

from gm.avalon import AvalonGame
from gm.avalon.policies import _public_suspicion
from gm.mafia import MafiaGame
from gm.social.ask import Ask
from gm.social.seats import LlmSeat, ScriptedSeat
from pipelines.llm import ScriptedModel
from ui.cli import app

DEAL = {"Alex": "merlin", "Blair": "percival", "Casey": "loyal_servant", "Drew": "loyal_servant", "Ellis": "morgana", "Finley": "assassin"}
ENGLISH_TEMPLATE_WORDS = ("Mission ", "proposes", "Vote on", "You are", "Roles in this game", "The game so far")


def _avalon(lang="zh", seed=4, **options):
    return AvalonGame([ScriptedSeat() for _ in range(6)], seed=seed, options={"lang": lang, "deal": DEAL, **options})


def test_english_is_the_default_and_reads_as_before():
    game = AvalonGame([ScriptedSeat() for _ in range(6)], seed=4, options={"deal": DEAL})
    assert game.lang == "en"
    game.play()
    messages = game.seat_messages("Alex")
    assert messages[0]["content"].startswith("You are Alex, a player in a 6-player game of The Resistance: Avalon.")
    assert messages[1]["content"].startswith("The game so far, as you saw it:\n[0.1] The game starts.")
    assert game.llm_question(Ask("vote", question=lambda: "Vote?")) == 'Vote?\nAnswer with JSON only, shaped like {"approve": true, "thought": "..."}'


def test_a_chinese_avalon_seat_is_told_everything_in_chinese():
    game = _avalon()
    game.play()
    system, log = (m["content"] for m in game.seat_messages("Blair"))
    assert "你是Blair" in system and "你的角色：派西维尔" in system
    assert "梅林、派西维尔、忠臣×2、莫甘娜、刺客" in system
    assert "夜里你得知Alex、Ellis是梅林和莫甘娜，但不知道谁是谁" in system
    assert log.startswith("到目前为止你看到的对局：\n[0.1] 游戏开始。")
    assert "第1次任务，第1次组队" in log and "游戏结束" in log
    assert not any(word in system + log for word in ENGLISH_TEMPLATE_WORDS)
    assert game.llm_question(Ask("vote", question=lambda: "投票？")).endswith('只用 JSON 回答，格式如：{"approve": true, "thought": "..."}')


def test_chinese_night_knowledge_per_role():
    game = _avalon()
    game.play()
    assert "夜里你看到了坏人：Ellis、Finley。" in game.system_prompt("Alex")
    assert "夜里你认出了你的坏人队友：Finley。" in game.system_prompt("Ellis")
    assert "夜里你没有得知任何人的身份。" in game.system_prompt("Casey")


def test_scripted_seats_speak_the_game_language_and_still_read_each_other():
    game = _avalon(seed=9)
    game.play()
    speeches = [e["text"] for e in game.log.events if e["kind"] == "speech" and e.get("phase") != "assassination"]
    assert speeches and all(s in ("暂时还没有明确的判断。",) or s.startswith("我怀疑") for s in speeches)
    accused = sum(sum(accusers.values()) for _, accusers in _public_suspicion(game).values())
    assert accused == sum(s.startswith("我怀疑") for s in speeches), "every Chinese accusation is read back as one"


def test_a_person_can_answer_in_chinese_and_is_refused_in_chinese():
    game = _avalon()
    assert game.parse_human(Ask("vote"), "同意") == (True, None)
    assert game.parse_human(Ask("mission"), "失败") == (False, None)
    assert game.parse_human(Ask("propose", size=2), "1号、3号") == (["Alex", "Casey"], None)
    value, reason = game.parse_human(Ask("vote"), "也许")
    assert value is None and "同意" in reason
    assert "（y = 同意，n = 反对）" in game.human_question(Ask("vote", question=lambda: "投票"))


def test_an_llm_seat_gets_the_chinese_prompt():
    seen = []

    def respond(step, messages):
        seen.append(messages)
        size = re.search(r"正好(\d)人", messages[-1]["content"])
        return json.dumps({"team": ["1", "2", "3", "4", "5"][: int(size.group(1)) if size else 2], "speech": "我先听听。",
                           "approve": True, "success": True, "target": "2", "thought": "观察"})

    model = ScriptedModel(responder=respond)
    seats = [LlmSeat(model)] + [ScriptedSeat() for _ in range(5)]
    game = AvalonGame(seats, seed=2, options={"lang": "zh", "deal": DEAL})
    game.play()
    assert seen and all(m[0]["content"].startswith("你是Alex，正在玩一局6人的《阿瓦隆》") for m in seen)
    asked = [m for m in seen if len(m) == 3]  # first asks (a re-ask adds the answer and a note)
    assert asked and all("只用 JSON 回答" in m[-1]["content"] for m in asked)


def test_mafia_in_chinese():
    game = MafiaGame([ScriptedSeat() for _ in range(7)], seed=3, options={"lang": "zh"})
    game.play()
    villager = next(p for p in game.names if game.roles[p] == "villager")
    system, log = (m["content"] for m in game.seat_messages(villager))
    assert "黑手党×2、医生、村民×4" in system and "你的角色：村民（村民阵营）" in system
    assert "天黑请闭眼" in log and "天亮了" in log and "游戏结束" in log
    assert not any(word in system for word in ENGLISH_TEMPLATE_WORDS)
    assert game.parse_human(Ask("vote", extra={"abstain": False}), "弃票")[1] == "这里不允许弃票；请说出一名玩家"


def test_the_language_survives_a_snapshot():
    game = _avalon()
    game.play()
    again = AvalonGame.restore(game.snapshot())
    assert again.lang == "zh" and again.system_prompt("Alex") == game.system_prompt("Alex")


def test_lang_on_the_command_line(tmp_path):
    res = CliRunner().invoke(app, ["mafia", "simulate", "-n", "2", "--lang", "zh", "-o", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["avalon", "simulate", "-n", "1", "--lang", "fr", "-o", str(tmp_path / "x")])
    assert res.exit_code != 0 and "--lang fr: use en or zh" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x").exists(), "a bad language is refused before any file is written"


def test_scripted_mafia_seats_speak_chinese_and_read_chinese_claims():
    from gm.mafia.policies import _public_claims

    game = MafiaGame([ScriptedSeat() for _ in range(7)], seed=3, options={"lang": "zh"})
    game.play()
    speeches = [e["text"] for e in game.log.events if e["kind"] == "speech" and not e.get("private")]
    assert speeches and all(re.search(r"[\u4e00-\u9fff]", t) for t in speeches), speeches[:3]
    assert not any(re.search(r"\b(suspect|Sheriff|comment|lead)\b", t) for t in speeches)
    fresh = MafiaGame([ScriptedSeat() for _ in range(7)], seed=3, options={"lang": "zh"})
    a, b, c = fresh.names[:3]
    fresh.log.events += [{"kind": "speech", "player": a, "text": f"我是警长：{b}是黑手党，投他出局。"},
                         {"kind": "speech", "player": c, "text": f"我怀疑{b}。"}]
    claimed, accused, claimers = _public_claims(fresh)
    assert claimed == {b} and claimers == {a} and accused[b] == 1
