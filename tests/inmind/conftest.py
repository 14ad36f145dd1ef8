"""Small InMind-Avalon games written for the tests, in the released schema (FORMAT.md)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROLES = {"1": "忠臣", "2": "梅林", "3": "派西维尔", "4": "忠臣", "5": "莫甘娜", "6": "刀客"}


def system(msg: str, attempt: int = 1) -> dict:
    return {"player": "system", "msg": msg, "round": attempt}


def say(seat: int, msg: str, attempt: int = 1) -> dict:
    return {"player": str(seat), "msg": msg, "round": attempt}


def participant_game() -> dict:
    """The subject is the Assassin in seat 6; two missions, the second with two attempts."""
    return {
        "my_info": {"1": {"role": "刀客", "msg": "队友莫甘娜是5号玩家", "player": "6"}},
        "task1": {
            "player_message": [
                system("5号玩家是队长，他初步选择的队伍是:4,5。"),
                say(5, "我先上，4号也上。"),
                say(6, "过吧，第一轮随便。"),
                say(1, ""),
                say(2, "5/6谁是莫甘娜？"),
                say(3, "好人牌。"),
                say(4, "本人忠臣。"),
                system("5号玩家是队长，他最终选择的队伍是:4,5。"),
                system("1,2,3,4,5,6号玩家同意组队，组队成功。"),
                system("第一局任务成功，有2张好票，0张坏票。"),
            ],
            "strategy": [{"msg": "5号是我的队友。2号问5/6谁是莫甘娜，怀疑2号是梅林。", "round": 1}],
        },
        "task2": {
            "player_message": [
                system("6号玩家是队长，他初步选择的队伍是:2,4,5。"),
                say(6, "2号你上车看看。"),
                system("6号玩家是队长，他最终选择的队伍是:1,4,6。"),
                system("1,6号玩家同意组队，2,3,4,5号玩家反对组队，组队失败。"),
                system("1号玩家是队长，他初步选择的队伍是:1,3,4。", 2),
                say(1, "我带34。", 2),
                system("1号玩家是队长，他最终选择的队伍是:1,3,4。", 2),
                system("1,2,3,4,5号玩家同意组队，6号玩家反对组队，组队成功。", 2),
                system("第二局任务成功，有3张好票，0张坏票。", 2),
            ],
            "strategy": [
                {"msg": "只有2号反对，我觉得2号必定是梅林。", "round": 1},
                {"msg": "1号带了34，第2轮我投反对，3个好人在车上。", "round": 2},
            ],
        },
        "task6": {
            "player_message": [
                {"player": "system", "msg": "红方阵营发起提前指认，进入指认环节。"},
                {"player": "6", "role": "刀客", "msg": "我刀2。"},
                {"player": "system", "msg": "刀客指认2号玩家是梅林，指认成功，红方阵营获胜。"},
            ]
        },
        "user_info": {k: {"role": v, "player": k} for k, v in ROLES.items()},
        "my_review": {"player": "6", "role": "刀客", "msg": "2号玩家梅林暴露太明显，34排水也明显，第2轮我就看出来了。"},
    }


def observer_game() -> dict:
    game = participant_game()
    game["my_info"] = {"1": {"role": "忠臣", "msg": "", "player": "4"}}
    game["my_review"] = {"player": "4", "role": "忠臣", "msg": "4号发言太少，16不像匪。"}
    return game


def write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "inmind"
    folder.mkdir()
    write(folder / "1-observer.json", observer_game())
    write(folder / "2-participant.json", participant_game())
    return folder


@pytest.fixture
def real_dir() -> Path:
    """The shared real files, when this checkout sits beside them (skipped otherwise)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent.parent / "shared" / "data" / "inmind"
        if candidate.is_dir() and any(candidate.glob("*-participant.json")):
            return candidate
    pytest.skip("the shared InMind-Avalon files are not beside this checkout")


@pytest.fixture
def participant() -> dict:
    """A fresh copy of the participant game, to break in a test."""
    return participant_game()


@pytest.fixture
def write_game():
    return write


def _terminal_person(shown: list[str]):
    """A person at the terminal who answers each question the same way (what the tests compare)."""

    def answer(_prompt):
        question = shown[-1]
        if "strategy trace" in question:
            return "Player 2 sounds honest; I suspect Player 5."
        if "reflection" in question:
            return "Player 5 was the Assassin, as I thought."
        if "Propose a team" in question:
            return " ".join(str(i) for i in range(1, int(re.search(r"exactly (\d)", question).group(1)) + 1))
        if "Vote on" in question:
            return "y"
        if "Success or Fail" in question:
            return "s"
        if "Name the player" in question:
            return "2"
        return "I trust this team."

    return answer


@pytest.fixture
def terminal_person():
    """``terminal_person(shown)``: an ``input_fn`` that answers the last question in ``shown``."""
    return _terminal_person
