"""Human seats through stdin, illegal LLM moves, listeners, snapshots and forks."""
import json

import pytest
from typer.testing import CliRunner

from gm.avalon import AvalonGame
from gm.mafia import MafiaGame
from gm.social import HumanSeat, LlmSeat, ScriptedSeat, read_log, view_for
from pipelines.llm import ScriptedModel
from rulesets import VgmError


class Bot:
    """Plays a human seat by reading the last question printed, like a person would."""

    def __init__(self, game_names, first_bad=True):
        self.out: list[str] = []
        self.names = game_names
        self.bad = first_bad

    def output(self, text):
        self.out.append(text)

    def input(self, prompt):
        q = next(line for line in reversed(self.out) if not line.startswith("Not allowed"))
        if self.bad and "Enter to pass" not in q:  # first answer is nonsense: the seat must explain and ask again
            self.bad = False
            return "zzz"
        if "Propose a team of exactly" in q:
            k = int(q.split("exactly ")[1].split()[0])
            return ", ".join(self.names[:k])
        if "y = approve" in q:
            return "y"
        if "s = success" in q:
            return "f"
        if "Enter to pass" in q:
            return "I trust nobody."
        if "one of: " in q:
            return q.split("one of: ")[1].split(".")[0].split(", ")[0]
        raise AssertionError(f"unexpected question {q!r}")


def test_human_avalon_seat_is_asked_again_after_a_bad_answer():
    names = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley"]
    bot = Bot(names)
    seats = [HumanSeat(bot.input, bot.output)] + [ScriptedSeat("heuristic") for _ in range(5)]
    g = AvalonGame(seats, names=names, seed=2)
    result = g.play()
    assert result["winner"] in ("good", "evil")
    text = "\n".join(bot.out)
    assert "Not allowed:" in text
    assert text.startswith("You are Alex")
    others_private = [e for e in g.log.events if e.get("private") and "Alex" not in e["to"] and e["to"]]
    for e in others_private:
        line = g.render(e, e["to"][0])
        assert line is None or line not in text


def test_mafia_play_through_stdin(tmp_path):
    from ui.cli import app

    answers = "zzz\n" + "hello\n2\n3\n4\n5\n6\n7\n1\n" * 60
    res = CliRunner().invoke(app, ["mafia", "play", "--others", "scripted", "--seat", "1", "--seed", "7",
                                   "--out", str(tmp_path), "--json"], input=answers)
    assert res.exit_code == 0, res.output
    result = json.loads(res.output.strip().splitlines()[-1])
    assert result["winner"] in ("mafia", "village", "none") and result["you"] == "Alex"
    events = read_log(result["log"])
    assert events[0]["kind"] == "setup" and events[-1]["kind"] == "game_over"
    assert "You are Alex" in res.output


def test_human_seat_stops_cleanly_when_input_ends():
    def no_more(prompt):
        raise EOFError

    g = MafiaGame([HumanSeat(no_more, lambda s: None)] + [ScriptedSeat() for _ in range(6)], seed=1,
                  options={"first_phase": "day"})
    with pytest.raises(VgmError, match="input ended"):
        g.play()


def test_illegal_llm_move_is_reasked_once_with_the_reason_then_falls_back():
    model = ScriptedModel(['{"team": ["Alex"]}', '{"team": ["Nobody", "Alex"]}'], repeat_last=True)
    seats = [LlmSeat(model)] + [ScriptedSeat() for _ in range(5)]
    g = AvalonGame(seats, seed=9, options={"first_leader": "Alex", "discussion": False})
    g.play()
    first, second = model.requests[0], model.requests[1]
    assert "needs a team of exactly 2" in second["messages"][-1]["content"]
    assert second["messages"][-2] == {"role": "assistant", "content": '{"team": ["Alex"]}'}
    illegal = next(e for e in g.log.events if e["kind"] == "illegal_move")
    assert illegal["to"] == [] and illegal["player"] == "Alex" and len(illegal["fallback"]) == 2
    proposal = next(e for e in g.log.events if e["kind"] == "proposal")
    assert proposal["team"] == illegal["fallback"]


def test_listeners_see_every_event_in_order():
    seen = []
    g = MafiaGame([ScriptedSeat() for _ in range(7)], seed=3)
    g.add_listener(lambda e, game: seen.append((e["kind"], len(game.log.events))))

    async def also_async(e, game):
        seen.append(("async", e["kind"]))

    g.add_listener(also_async)
    g.play()
    kinds = [k for k, _ in seen if k != "async"]
    assert kinds == [e["kind"] for e in g.log.events]
    assert [n for k, n in seen if k != "async"] == list(range(1, len(g.log.events) + 1))
    assert len([1 for k, _ in seen if k == "async"]) == len(g.log.events)


@pytest.mark.parametrize("cls,n", [(AvalonGame, 6), (MafiaGame, 7)])
def test_restoring_a_snapshot_replays_the_same_game(tmp_path, cls, n):
    log = tmp_path / "g.jsonl"
    g = cls([ScriptedSeat("random") for _ in range(n)], seed=21, log_path=log, snapshots=True)
    original = g.play()
    snaps = [json.loads(line) for line in log.with_suffix(".snapshots.jsonl").open()]
    assert len(snaps) > 3
    mid = snaps[len(snaps) // 2]
    assert tuple(mid["key"]) == (mid["snapshot"]["round"], mid["snapshot"]["seq"])
    again = cls.restore(mid["snapshot"], log_path=tmp_path / "fork.jsonl")
    result = again.play()
    assert (result["winner"], result["reason"], result["rounds"]) == (original["winner"], original["reason"], original["rounds"])
    assert read_log(tmp_path / "fork.jsonl") == read_log(log)
    forked = cls.restore(mid["snapshot"], seats=[ScriptedSeat("random") for _ in range(n)], reseed=99)
    assert forked.play()["winner"] is not None


def test_snapshot_carries_llm_seat_conversations():
    model = ScriptedModel(['{"speech": "hi", "vote": "Blair", "target": "Casey"}'], repeat_last=True)
    g = MafiaGame([LlmSeat(model) for _ in range(7)], seed=5, options={"max_rounds": 1})
    g.play()
    snap = g.snapshot()
    json.dumps(snap)
    assert set(snap["messages"]) == set(g.names)
    for name, msgs in snap["messages"].items():
        assert msgs == g.seats[name].messages()
        assert msgs[0]["role"] == "system" and name in msgs[0]["content"]
    assert len(view_for(snap["events"], "Alex")) < len(snap["events"])
