"""Mafia in Chinese: the same seat-facing text as ``prompts`` (same function names), for ``--lang zh``.

Terms follow Chinese tables of 黑手党 / 狼人杀: 黑手党 (杀手), 医生, 警长, 村民; 天黑/天亮, 发言,
投票放逐, 平票. ``prompts`` calls these through ``gm.social.lang.in_lang`` and imports this module,
never the reverse, so the English stays the one written there.
"""
from __future__ import annotations

from typing import Any

from gm.social.ask import Ask
from gm.social.lang import zh_list
from gm.social.speech import flatten, quote_speech

ROLE_NAMES = {"mafia": "黑手党", "doctor": "医生", "villager": "村民", "sheriff": "警长"}
TEAMS = {"mafia": "黑手党", "village": "村民阵营", "none": "无人"}

#: Why a typed answer was refused (``prompts.parse_human`` reads its reasons from here in Chinese).
REASONS = {
    "too_long": "这段话有 {n} 个字；请控制在 {max} 字以内",
    "no_abstain": "这里不允许弃票；请说出一名玩家",
    "not_a_player": "{s!r} 不是玩家",
}

_REASONS = {
    "every Mafia member is gone": "黑手党全部出局",
    "the Mafia are at least half of the living": "黑手党人数达到存活玩家的一半",
}
_NOTES = {
    "no majority": "没有人得票过半，无人出局。",
    "tie broken at random": "平票，随机决定。",
    "tie: revote between the tied": "平票：在平票玩家之间重新投票。",
    "tie: nobody is eliminated": "平票：无人出局。",
    "no votes": "没有人投票，无人出局。",
}


def role_name(game: Any, role: str) -> str:
    return ROLE_NAMES.get(role) or game.table.role_names.get(role, role)


def system_prompt(game: Any, name: str) -> str:
    t = game.table
    role = game.roles[name]
    counts: dict[str, int] = {}
    for r in t.lineup:
        counts[role_name(game, r)] = counts.get(role_name(game, r), 0) + 1
    roster = "、".join(f"{k}×{v}" if v > 1 else k for k, v in counts.items())
    mafia = game.is_mafia(name)
    e = game.night_event(name)
    know = ""
    if mafia:
        mates = (e or {}).get("sees", [])
        know = f"你的黑手党同伙：{zh_list(mates)}。" if mates else "你是唯一的黑手党。"
    duty = {
        t.mafia_role: "每天夜里你和同伙商量好杀掉一名玩家。白天要混在好人里，把票引开。",
        t.doctor_role: "每天夜里你选一名玩家保护，让他不被黑手党杀死。",
        t.sheriff_role: "每天夜里你查验一名玩家，得知他是不是黑手党。",
    }.get(role, "你夜里没有行动：靠发言和投票找出黑手党。")
    goal = "黑手党人数达到存活玩家的一半时，黑手党获胜。" if mafia else "所有黑手党都出局时，村民阵营获胜。"
    tie = {"no_elimination": "平票则无人出局", "revote": "平票则在平票玩家之间重新投票一次",
           "random": "平票则随机决定"}[game.vote_tie]
    vote = "得票最多的玩家出局" if game.day_vote == "plurality" else "得票超过存活玩家一半的玩家才出局"
    reveal = "出局玩家的身份会公开。" if game.reveal_day else "出局玩家的身份不公开。"
    return (
        f"你是{name}，正在玩一局{game.n}人的黑手党（杀人游戏）。玩家：{zh_list(game.names)}。\n"
        f"本局角色：{roster}。\n"
        f"你的角色：{role_name(game, role)}（{'黑手党' if mafia else '村民'}阵营）。{duty}{know}\n"
        f"{goal}每一轮：先是夜晚行动，然后公布夜里的结果，接着所有存活玩家依次发言一次，"
        f"最后公开投票：{vote}；{tie}。{reveal}出局的玩家不能发言，也不能投票。\n"
        "每次发言都要简短（一到三句话）。只用要求的 JSON 回答；'thought' 字段是私密的：别人看不到，之后也不会再给你看。"
    )


def render(game: Any, e: dict, viewer: str) -> str | None:
    if e.get("private") and viewer not in e.get("to", ()):
        return None
    k = e["kind"]
    tag = f"[{e['round']}.{e['public_msg_seq']}]"
    if k == "start":
        return f"{tag} 游戏开始。{'天黑请闭眼。' if game.first_phase == 'night' else '第一个白天开始。'}"
    if k == "mafia_pick":
        who = "你" if e["player"] == viewer else e["player"]
        return f"{tag} （仅黑手党可见）{who}想杀{e['target']}（第{e['attempt']}轮商量）。"
    if k == "mafia_kill":
        return f"{tag} （仅黑手党可见）今晚黑手党的目标：{e['target']}。"
    if k == "doctor_save":
        return f"{tag} （只有你知道）你今晚保护了{e['target']}。"
    if k == "sheriff_check":
        verdict = "是黑手党" if e["result"] == "mafia" else "不是黑手党"
        return f"{tag} （只有你知道）你的查验结果：{e['target']}{verdict}。"
    if k == "night_result":
        if not e.get("killed"):
            return f"{tag} 天亮了：昨晚是平安夜，没有人死亡。"
        role = f"他的身份是{role_name(game, e['role'])}。" if e.get("role") else ""
        return f"{tag} 天亮了：{e['killed']}昨晚被杀。{role}"
    if k == "speech":
        who = f"{e['player']}（你）" if e["player"] == viewer else e["player"]
        flat = flatten(e.get("text"))
        return f"{tag} {who}：（什么也没说）" if not flat else f"{tag} {who}说：{quote_speech(flat)}"
    if k == "vote_result":
        votes = "，".join(f"{p}→{v or '弃票'}" for p, v in e["votes"].items())
        end = f"{e['eliminated']}被放逐出局。" if e.get("eliminated") else (_NOTES.get(e.get("note") or "", e.get("note")) or "无人出局。")
        return f"{tag} 投票{'（重新投票）' if e.get('attempt') == 2 else ''}：{votes}。{end}"
    if k == "elimination":
        role = f"他的身份是{role_name(game, e['role'])}。" if e.get("role") else ""
        return f"{tag} {e['player']}离开了游戏。{role}"
    if k == "game_over":
        reason = e["reason"]
        if reason.startswith("round limit"):
            reason = "达到轮数上限"
        return f"{tag} 游戏结束：{TEAMS.get(e['winner'], e['winner'])}获胜（{_REASONS.get(reason, reason)}）。"
    return None


def kill_question(game: Any, name: str, targets: list[str], attempt: int) -> str:
    again = "你的同伙选的人和你不一样；看看上面他们的选择，商量出同一个人。" if attempt == 2 else ""
    return f"第{game.round}夜：选择黑手党要杀的玩家，从中选一人：{zh_list(targets)}。{again}"


def save_question(game: Any, options: list[str]) -> str:
    return f"第{game.round}夜：选择一名要保护的玩家，从中选一人：{zh_list(options)}。"


def check_question(game: Any, options: list[str]) -> str:
    return f"第{game.round}夜：选择一名要查验的玩家，从中选一人：{zh_list(options)}。"


def speak_question(game: Any, name: str) -> str:
    return (f"第{game.round}天：轮到你向存活的玩家（{zh_list(game.alive)}）发言。"
            f"以{name}的身份，说出你怀疑谁、为什么，或者为自己辩护，用你自己的一两句话（不要重复别人说过的话）。")


def vote_question(game: Any, name: str, options: list[str], attempt: int) -> str:
    rev = "这是平票玩家之间的重新投票。" if attempt == 2 else ""
    return f"第{game.round}天：投票放逐一名玩家，从中选一人：{zh_list(options)}。{rev}"


def human_question(game: Any, ask: Ask) -> str:
    if ask.kind == "speak":
        return f"{ask.text()}（输入你要说的话；直接回车表示过）"
    extra = "；输入 none 表示弃票" if ask.extra.get("abstain") else ""
    return f"{ask.text()}（输入名字或座位号{extra}）"
