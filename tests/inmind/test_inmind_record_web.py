"""The seam the web app records through: ``prepare_play`` sets a game up, ``PlayRecording.finish`` writes it.

The terminal path (``record_play``) is the two run back to back, so a front end that runs the game on
its own loop, with its own seat for the person, writes the very same session file.
"""
import asyncio
import json

import pytest

from eval.inmind import load_released, load_sessions
from gm.avalon.inmind_record import prepare_play, record_play
from gm.social.seats import HumanSeat


def _play_through(play) -> dict:
    """What a front end with its own event loop does: run the table, then finish (reflection + file)."""

    async def own_loop():
        return await play.finish(await play.table.run())

    return asyncio.run(own_loop())


def test_a_game_set_up_and_finished_by_hand_writes_the_terminals_session(tmp_path, terminal_person):
    shown: list[str] = []
    terminal = record_play(mode="participant", out=tmp_path / "terminal", seat=3, others="scripted", seed=21,
                           input_fn=terminal_person(shown), output_fn=shown.append)
    shown2: list[str] = []
    play = prepare_play(mode="participant", out=tmp_path / "web", seat=3, others="scripted", seed=21,
                        input_fn=terminal_person(shown2), output_fn=shown2.append)
    result = _play_through(play)
    assert result["you"] == terminal["you"] == "P3" and result["your_role"] == terminal["your_role"]
    written = json.loads((tmp_path / "web" / "avalon-play-21-participant.json").read_text(encoding="utf-8"))
    assert written == json.loads((tmp_path / "terminal" / "avalon-play-21-participant.json").read_text(encoding="utf-8"))
    assert load_released(result["log"]).reflection == "Player 5 was the Assassin, as I thought."


def test_the_persons_own_seat_is_the_one_asked_for_every_move(tmp_path, terminal_person):
    shown: list[str] = []
    asked: list[str] = []

    class CountingSeat(HumanSeat):
        async def act(self, ask):
            asked.append(ask.kind)
            return await super().act(ask)

    play = prepare_play(mode="participant", out=tmp_path, seat=2, others="scripted", seed=5, input_fn=terminal_person(shown),
                        output_fn=shown.append, human=CountingSeat(terminal_person(shown), shown.append))
    assert isinstance(play.table.seats["P2"], CountingSeat) and play.you == "P2"
    _play_through(play)
    assert "vote" in asked and "speak" in asked
    session = load_released(play.path)
    assert session.subject_seat == 2 and session.traces
    assert all(n.text == "Player 2 sounds honest; I suspect Player 5." for n in session.traces)


def test_a_game_stopped_half_way_writes_nothing_and_keeps_the_finished_ones(tmp_path, terminal_person):
    shown: list[str] = []
    record_play(mode="observer", out=tmp_path, seat=1, others="scripted", seed=1, input_fn=terminal_person(shown), output_fn=shown.append)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def leaves(_prompt):
        raise RuntimeError("the page was closed")

    play = prepare_play(mode="participant", out=tmp_path, seat=1, others="scripted", seed=2, input_fn=leaves, output_fn=shown.append)
    with pytest.raises(RuntimeError, match="page was closed"):
        asyncio.run(play.table.run())
    assert not play.path.exists()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert [s.mode for s in load_sessions(tmp_path)] == ["observer"]
