"""Read the released data's Chinese system lines into game state (proposals, votes, results).

The lines are fixed phrases from the game server (FORMAT.md, "Missions"); anything that does
not match stays an ordinary utterance, so an odd line never stops an import.
"""
from __future__ import annotations

import re

from .session import EndPhase, GameState, MissionResult, Proposal, Utterance, Vote

_CN_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_SEATS = r"([0-9](?:\s*[,，、]\s*[0-9])*)"
_PROPOSAL = re.compile(r"([0-9])号玩家是队长，他(初步|最终)选择的队伍是[:：]\s*" + _SEATS)
_APPROVE = re.compile(_SEATS + r"号玩家同意组队")
_REJECT = re.compile(_SEATS + r"号玩家反对组队")
_VOTE_END = re.compile(r"组队(成功|失败)")
_MISSION = re.compile(r"第([一二三四五六1-6])局任务(成功|失败)(?:，有([0-9]+)张好票，([0-9]+)张坏票)?")
_FORCED = re.compile(r"强制轮")
_EARLY = re.compile(r"提前指认")
_ASSASSINATION = re.compile(r"指认([0-9])号玩家是梅林，指认(成功|失败)")
_THREE_SUCCESS = re.compile(r"三局任务成功")
_THREE_FAIL = re.compile(r"连炸三塔|三局任务失败")
_WINNER = re.compile(r"(红方|蓝方)阵营获胜")


def _seats(text: str) -> list[int]:
    return [int(s) for s in re.findall(r"[0-9]", text)]


def read_state(utterances: list[Utterance], mission: int) -> GameState:
    """Collect the proposals, votes and the mission result that the system lines announce."""
    state = GameState()
    for line in utterances:
        if not line.is_system:
            continue
        attempt = line.attempt or 1
        for match in _PROPOSAL.finditer(line.text):
            state.proposals.append(
                Proposal(attempt=attempt, leader=int(match.group(1)), team=_seats(match.group(3)), final=match.group(2) == "最终", forced=bool(_FORCED.search(line.text)))
            )
        end = _VOTE_END.search(line.text)
        if end and ("同意组队" in line.text or "反对组队" in line.text):
            approve = _APPROVE.search(line.text)
            reject = _REJECT.search(line.text)
            state.votes.append(
                Vote(attempt=attempt, approve=_seats(approve.group(1)) if approve else [], reject=_seats(reject.group(1)) if reject else [], approved=end.group(1) == "成功")
            )
        result = _MISSION.search(line.text)
        if result:
            number = _CN_NUM.get(result.group(1)) or int(result.group(1))
            state.mission = MissionResult(
                mission=number or mission,
                success=result.group(2) == "成功",
                success_cards=int(result.group(3)) if result.group(3) else None,
                fail_cards=int(result.group(4)) if result.group(4) else None,
            )
        if _EARLY.search(line.text):
            state.early_assassination = True
    return state


def read_end(utterances: list[Utterance]) -> EndPhase:
    """The end phase (``task6``): how the game got there, whom the Assassin named, who won."""
    end = EndPhase(utterances=utterances)
    text = "\n".join(u.text for u in utterances if u.is_system)
    if _EARLY.search(text):
        end.how = "early_assassination"
    elif _THREE_SUCCESS.search(text):
        end.how = "three_successes"
    elif _THREE_FAIL.search(text):
        end.how = "three_failures"
    hit = _ASSASSINATION.search(text)
    if hit:
        end.assassin_target = int(hit.group(1))
        end.assassination_hit = hit.group(2) == "成功"
    winner = _WINNER.search(text)
    if winner:
        end.winner = "evil" if winner.group(1) == "红方" else "good"
    elif end.how == "three_failures":
        end.winner = "evil"
    return end
