"""Read the released data's Chinese system lines into game state (proposals, votes, results).

The lines are fixed phrases from the game server (FORMAT.md, "Missions"); anything that does
not match stays an ordinary utterance, so an odd line never stops an import. Sessions we record
in English (``vgm avalon simulate --inmind-record … --lang en``) use the same lines in English
(``gm.avalon.inmind_record.PHRASES``); both are read here.
"""
from __future__ import annotations

import re

from .session import EndPhase, GameState, MissionResult, Proposal, Utterance, Vote

_CN_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_SEATS = r"([0-9](?:\s*[,，、]\s*[0-9])*)"
_PROPOSAL = re.compile(r"([0-9])号玩家是队长，他(初步|最终)选择的队伍是[:：]\s*" + _SEATS
                       + r"|Player ([0-9]) is the leader; the (initial|final) team is:\s*" + _SEATS)
_APPROVE = re.compile(_SEATS + r"号玩家同意组队|[Pp]layers? " + _SEATS + r" approves? the team")
_REJECT = re.compile(_SEATS + r"号玩家反对组队|[Pp]layers? " + _SEATS + r" rejects? the team")
_VOTE_END = re.compile(r"组队(成功|失败)|the team is (approved|rejected)")
_MISSION = re.compile(r"第([一二三四五六1-6])局任务(成功|失败)(?:，有([0-9]+)张好票，([0-9]+)张坏票)?"
                      r"|Mission ([1-6]) (succeeded|failed)(?:, with ([0-9]+) success cards? and ([0-9]+) fail cards?)?")
_FORCED = re.compile(r"强制轮|forced round")
_EARLY = re.compile(r"提前指认|early identification")
_ASSASSINATION = re.compile(r"指认([0-9])号玩家是梅林，指认(成功|失败)|names Player ([0-9]) as Merlin; the identification (succeeds|fails)")
_THREE_SUCCESS = re.compile(r"三局任务成功|has won three missions")
_THREE_FAIL = re.compile(r"连炸三塔|三局任务失败|Three missions failed")
_WINNER = re.compile(r"(红方|蓝方)阵营获胜|the (evil|good) side wins")
_YES = ("最终", "final", "成功", "approved", "succeeded", "succeeds", "蓝方", "good")


def _groups(match: re.Match, n: int) -> tuple:
    """The ``n`` groups of whichever language's alternative matched (Chinese first, then English)."""
    groups = match.groups()
    return groups[:n] if any(g is not None for g in groups[:n]) else groups[n : 2 * n]


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
            leader, which, team = _groups(match, 3)
            state.proposals.append(
                Proposal(attempt=attempt, leader=int(leader), team=_seats(team), final=which in _YES, forced=bool(_FORCED.search(line.text)))
            )
        end = _VOTE_END.search(line.text)
        approve = _APPROVE.search(line.text)
        reject = _REJECT.search(line.text)
        if end and (approve or reject):
            state.votes.append(
                Vote(attempt=attempt, approve=_seats(_groups(approve, 1)[0]) if approve else [], reject=_seats(_groups(reject, 1)[0]) if reject else [],
                     approved=_groups(end, 1)[0] in _YES)
            )
        result = _MISSION.search(line.text)
        if result:
            which, outcome, good, bad = _groups(result, 4)
            number = _CN_NUM.get(which) or int(which)
            state.mission = MissionResult(
                mission=number or mission,
                success=outcome in _YES,
                success_cards=int(good) if good else None,
                fail_cards=int(bad) if bad else None,
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
        target, outcome = _groups(hit, 2)
        end.assassin_target = int(target)
        end.assassination_hit = outcome in _YES
    winner = _WINNER.search(text)
    if winner:
        end.winner = "good" if _groups(winner, 1)[0] in _YES else "evil"
    elif end.how == "three_failures":
        end.winner = "evil"
    return end
