"""A game played by our Avalon engine, plus one person's traces, becomes an InMind session."""
from __future__ import annotations

import json

import pytest

from eval.inmind import InMindDataError, build_tasks, load_avalon_log, load_sessions
from gm.avalon import AvalonGame
from gm.social.seats import ScriptedSeat


@pytest.fixture
def game_log(tmp_path):
    path = tmp_path / "games" / "g1.jsonl"
    result = AvalonGame([ScriptedSeat("heuristic") for _ in range(6)], seed=3, log_path=path).play()
    return path, result


def test_played_game_and_traces_make_a_session(game_log, tmp_path):
    path, result = game_log
    names = list(result["roles"])
    traces = path.with_name("g1.traces.jsonl")
    traces.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"subject": names[1]},
                {"mission": 1, "attempt": 1, "text": f"{names[3]} looks nervous; I suspect P4 and 5."},
                {"reflection": f"I should have trusted {names[0]} earlier; 2 missions were lost."},
            ]
        ),
        encoding="utf-8",
    )
    [session] = load_sessions(path.parent)
    assert session.subject_seat == 2 and session.subject_role == result["roles"][names[1]]
    assert session.roles == {i + 1: result["roles"][n] for i, n in enumerate(names)}
    assert len(session.rounds) == len(result["missions"])
    assert [r.state.mission.success for r in session.rounds] == result["missions"]
    assert session.rounds[0].strategy[0].text == "Player 4 looks nervous; I suspect P4 and 5."
    assert session.reflection == "I should have trusted Player 1 earlier; 2 missions were lost."
    assert session.end.winner == result["winner"]
    instances, report = build_tasks([session])
    assert report.units["trace_attribution"] == 3 and report.units["reflection_alignment"] == 1
    assert report.units["role_inference"] == len(result["missions"])
    ra = next(i for i in instances if i.task == "reflection_alignment")
    assert ra.gold["answers"] == {"MASK_1": "1"}  # "2 missions" is a count, not a seat


def test_without_traces_the_log_still_imports(game_log):
    path, _ = game_log
    session = load_avalon_log(path, subject=3)
    assert session.subject_seat == 3 and session.traces == [] and session.language == "en"


def test_unknown_subject_is_a_clear_error(game_log):
    path, _ = game_log
    with pytest.raises(InMindDataError, match="unknown player 'Nobody'"):
        load_avalon_log(path, subject="Nobody")
