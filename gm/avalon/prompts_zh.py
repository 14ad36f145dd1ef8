"""Avalon in Chinese: the same seat-facing text as ``prompts`` (same function names), for ``--lang zh``.

Terms are the ones Chinese tables use (梅林, 派西维尔, 忠臣, 莫甘娜, 刺客, 莫德雷德, 奥伯伦, 爪牙;
队长, 组队, 任务, 成功票/失败票, 指认). ``prompts`` calls these through ``gm.social.lang.in_lang``;
this module imports nothing from it, so the English stays the one written there.
"""
from __future__ import annotations

import re
from typing import Any

from gm.social.ask import Ask
from gm.social.lang import zh_list
from gm.social.speech import flatten, quote_speech

#: Role ids -> the names Chinese tables use (the pack also lists 刀客 for the Assassin).
ROLE_NAMES = {"merlin": "梅林", "percival": "派西维尔", "loyal_servant": "忠臣", "morgana": "莫甘娜", "assassin": "刺客",
              "mordred": "莫德雷德", "oberon": "奥伯伦", "minion": "爪牙"}
TEAMS = {"good": "好人", "evil": "坏人"}

#: Why a typed answer was refused (``prompts.parse_human`` reads its reasons from here in Chinese).
REASONS = {
    "not_player": "{bad!r} 不是玩家（{names}）",
    "too_long": "这段话有 {n} 个字；请控制在 {max} 字以内",
    "yes_no": "请回答 y（同意）或 n（反对）",
    "card": "请回答 s（成功）或 f（失败）",
    "not_a_player": "{s!r} 不是玩家",
}


def role_name(game: Any, role: str) -> str:
    return ROLE_NAMES.get(role) or game.table.role_names.get(role, role)


def _said(who: str, text: Any) -> str:
    flat = flatten(text)
    return f"{who}：（过）" if not flat else f"{who}说：{quote_speech(flat)}"


def knowledge_text(game: Any, name: str) -> str:
    t = game.table
    e = game.night_event(name)
    if not e or not e.get("sees"):
        return "夜里你没有得知任何人的身份。"
    seen, label = e["sees"], e.get("sees_as", "")
    who = zh_list(seen)
    roles = [role_name(game, r) for r in t.sees.get(e["role"], ()) if r in t.lineup]
    if label == "evil":
        hidden = any(t.is_evil(r) and r not in t.sees.get(e["role"], ()) for r in t.lineup)
        return f"夜里你看到了坏人：{who}。" + ("（有的坏人角色不会出现在你的视野里。）" if hidden else "")
    if label == "teammate":
        return f"夜里你认出了你的坏人队友：{who}。"
    if label == "merlin_or_morgana" or len(roles) > 1:
        return f"夜里你得知{who}是{'和'.join(sorted(set(roles)))}，但不知道谁是谁。"
    return f"夜里你看到了这些玩家（{label or '视野'}）：{who}。"


def system_prompt(game: Any, name: str) -> str:
    t = game.table
    role = game.roles[name]
    evil = t.is_evil(role)
    team = "坏人阵营（莫德雷德的爪牙）" if evil else "好人阵营（亚瑟的忠臣）"
    counts: dict[str, int] = {}
    for r in t.lineup:
        counts[role_name(game, r)] = counts.get(role_name(game, r), 0) + 1
    roster = "、".join(f"{k}×{v}" if v > 1 else k for k, v in counts.items())
    missions = "、".join(f"{s}人{'（需要两张失败票）' if f > 1 else ''}" for s, f in zip(t.team_sizes, t.fails_required))
    goal = "让任务失败，或者找出并刺杀梅林。" if evil else f"让{t.missions_to_win}次任务成功，并藏好梅林，不让刺客认出来。"
    early = ("坏人可以在任何一次发言时停止游戏、提前发起刺杀；刺客指认中梅林则坏人获胜，否则好人获胜。"
             if game.allow_early else "")
    return (
        f"你是{name}，正在玩一局{game.n}人的《阿瓦隆》。按座位顺序的玩家：{zh_list(game.names)}。\n"
        f"本局角色：{roster}。\n"
        f"你的角色：{role_name(game, role)}，属于{team}。目标：{goal}\n"
        f"{knowledge_text(game, name)}\n"
        "规则：每一轮由队长提名一支任务队伍；所有人依次发言一次，然后公开投票，同意票超过半数才组队成功。"
        f"连续{t.max_rejections}次组队失败则坏人获胜。队员秘密地打出成功票或失败票；好人只能打成功票。"
        f"各次任务的人数：{missions}。先拿下{t.missions_to_win}次任务的一方获胜；"
        f"如果好人完成了{t.missions_to_win}次任务，刺客要指认一名玩家为梅林，指认正确则坏人获胜。{early}\n"
        "每次发言都要简短（一到三句话）。只用要求的 JSON 回答；'thought' 字段是私密的：别人看不到，之后也不会再给你看。"
    )


_REASONS = [
    (re.compile(r"(\d+) team proposals in a row rejected"), "连续{0}次组队失败"),
    (re.compile(r"(\d+) missions failed"), "{0}次任务失败"),
    (re.compile(r"(\d+) missions succeeded and Merlin survived"), "{0}次任务成功，梅林没有被指认"),
    (re.compile(r"(\d+) missions succeeded"), "{0}次任务成功"),
    (re.compile(r"Merlin assassinated \(early\)"), "提前指认中梅林"),
    (re.compile(r"Merlin assassinated"), "刺客指认中梅林"),
    (re.compile(r"early assassination missed Merlin"), "提前指认没有中梅林"),
]


def reason_text(reason: str) -> str:
    """The engine's reason for the end of the game, in Chinese (unknown reasons as they are)."""
    for pattern, words in _REASONS:
        hit = pattern.fullmatch(reason)
        if hit:
            return words.format(*hit.groups())
    return reason


def render(game: Any, e: dict, viewer: str) -> str | None:
    if e.get("private") and viewer not in e.get("to", ()):
        return None
    k = e["kind"]
    tag = f"[{e['round']}.{e['public_msg_seq']}]"
    if k == "start":
        return f"{tag} 游戏开始。第一任队长：{e['first_leader']}。"
    if k == "proposal":
        return f"{tag} 第{e['mission']}次任务，第{e['attempt']}次组队：队长{e['player']}提名{zh_list(e['team'])}。"
    if k == "speech":
        who = f"{e['player']}（你）" if e["player"] == viewer else e["player"]
        return f"{tag} {_said(who, e.get('text'))}"
    if k == "early_assassination":
        return f"{tag} {e['player']}停止了游戏：坏人提前发起刺杀梅林。"
    if k == "vote_result":
        yes = [p for p, v in e["votes"].items() if v]
        no = [p for p, v in e["votes"].items() if not v]
        verdict = "组队成功" if e["approved"] else f"组队失败（已连续否决{e['rejections']}次）"
        return f"{tag} 对{zh_list(e['team'])}的投票：同意 {zh_list(yes)}；反对 {zh_list(no)}。{verdict}。"
    if k == "mission_card" and e.get("player") == viewer:
        return f"{tag} （只有你{viewer}知道）你在第{e['mission']}次任务中打出了{'成功' if e['success'] else '失败'}票。"
    if k == "mission_result":
        return (f"{tag} 第{e['mission']}次任务（{zh_list(e['team'])}）：{'成功' if e['success'] else '失败'}，"
                f"{e['fails']}张失败票。比分：成功{e['successes']}次，失败{e['failures']}次。")
    if k == "assassination":
        return f"{tag} {e['player']}（刺客）指认{e['target']}是梅林：{'指认成功' if e['hit'] else '指认失败'}。"
    if k == "game_over":
        return f"{tag} 游戏结束：{TEAMS.get(e['winner'], e['winner'])}获胜（{reason_text(e['reason'])}）。"
    return None


def propose_question(game: Any, leader: str) -> str:
    return (f"你是第{game.mission}次任务的队长（第{game.attempt + 1}次组队，已连续否决{game.rejections}次）。"
            f"从这些玩家中提名正好{game.team_size}人的队伍：{zh_list(game.names)}。")


def speak_question(game: Any, name: str, may_call: bool) -> str:
    extra = "你也可以把 call_assassination 设为 true，立刻停止游戏并刺杀梅林。" if may_call else ""
    return (f"轮到你就提名的队伍{zh_list(game.team)}发言：说说你是否支持这支队伍，你信任谁、怀疑谁，"
            f"用你自己的一两句话（不要重复别人的话）。{extra}")


def vote_question(game: Any, name: str, team: list[str]) -> str:
    return f"对第{game.mission}次任务的队伍{zh_list(team)}投票：同意还是反对？"


def mission_question(game: Any, name: str) -> str:
    needed = game.table.fails_required[len(game.results)]
    return f"你在第{game.mission}次任务的队伍里（{needed}张失败票就会让任务失败）。打出成功票还是失败票？"


def evil_talk_question(game: Any, name: str) -> str:
    return "马上就要指认梅林了。简短地对你的队友说一句：你认为谁是梅林。"


def assassinate_question(game: Any, name: str, options: list[str]) -> str:
    return f"你是刺客。指认你认为是梅林的玩家，从中选一人：{zh_list(options)}。"


def human_question(game: Any, ask: Ask) -> str:
    k = ask.kind
    hint = {
        "propose": "输入名字或座位号，用逗号或空格隔开",
        "speak": "输入你要说的话（直接回车表示过）" + ("；以 !knife 开头可提前发起刺杀" if ask.extra.get("may_call") else ""),
        "evil_talk": "输入你要说的话（直接回车表示过）",
        "vote": "y = 同意，n = 反对",
        "mission": "s = 成功，f = 失败",
        "assassinate": "输入名字或座位号",
    }[k]
    return f"{ask.text()}（{hint}）"
