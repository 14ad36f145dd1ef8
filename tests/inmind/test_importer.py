"""Released InMind-Avalon files become sessions; bad files fail with one clear line."""
from __future__ import annotations

import json

import pytest

from eval.inmind import InMindDataError, load_released, load_sessions
from eval.inmind.roles import UnknownRole


def test_participant_game_reads_roles_rounds_state_and_reflection(data_dir):
    session = load_released(data_dir / "2-participant.json")
    assert session.mode == "participant"
    assert (session.subject_seat, session.subject_role) == (6, "assassin")
    assert session.roles == {1: "loyal_servant", 2: "merlin", 3: "percival", 4: "loyal_servant", 5: "morgana", 6: "assassin"}
    assert [r.mission for r in session.rounds] == [1, 2]
    first, second = session.rounds
    assert [(p.leader, p.team, p.final) for p in first.state.proposals] == [(5, [4, 5], False), (5, [4, 5], True)]
    assert first.state.votes[0].approve == [1, 2, 3, 4, 5, 6] and first.state.votes[0].approved
    assert first.state.mission.model_dump() == {"mission": 1, "success": True, "success_cards": 2, "fail_cards": 0}
    # mission 2: a rejected first attempt, then an approved second one
    assert [(v.attempt, v.approve, v.reject, v.approved) for v in second.state.votes] == [(1, [1, 6], [2, 3, 4, 5], False), (2, [1, 2, 3, 4, 5], [6], True)]
    assert [n.attempt for n in second.strategy] == [1, 2]
    assert session.end.how == "early_assassination" and session.end.assassin_target == 2
    assert session.end.assassination_hit is True and session.end.winner == "evil"
    assert session.reflection.startswith("2号玩家梅林")


def test_folder_loads_observer_first_and_mode_from_file_name(data_dir):
    sessions = load_sessions(data_dir)
    assert [(s.id, s.mode) for s in sessions] == [("1-observer", "observer"), ("2-participant", "participant")]


def test_missing_field_names_file_and_key(tmp_path, participant, write_game):
    game = participant
    del game["user_info"]
    path = write_game(tmp_path / "3-participant.json", game)
    with pytest.raises(InMindDataError, match=r"3-participant.json: missing key 'user_info'"):
        load_released(path)


def test_missing_message_text_is_one_line_error(tmp_path, participant, write_game):
    game = participant
    game["task1"]["player_message"][1] = {"player": "5"}
    path = write_game(tmp_path / "4-participant.json", game)
    with pytest.raises(InMindDataError, match=r"task1.player_message\[1\]"):
        load_released(path)


def test_role_not_in_pack_says_which_role_and_where(tmp_path, participant, write_game):
    game = participant
    game["user_info"]["3"]["role"] = "狼人"
    path = write_game(tmp_path / "5-participant.json", game)
    with pytest.raises(UnknownRole, match=r"user_info.3.role: role '狼人' is not in the avalon pack"):
        load_released(path)


def test_broken_json_names_the_line(tmp_path):
    path = tmp_path / "6-participant.json"
    path.write_text('{"my_info": {\n  "1": oops}', encoding="utf-8")
    with pytest.raises(InMindDataError, match=r"6-participant.json:2: malformed JSON"):
        load_released(path)


def test_assassin_alias_used_by_prompts_resolves(tmp_path, participant, write_game):
    game = participant
    game["user_info"]["6"]["role"] = "刺客"
    session = load_released(write_game(tmp_path / "7-participant.json", game))
    assert session.roles[6] == "assassin"


def test_real_shared_files_import(real_dir):
    sessions = {s.id: s for s in load_sessions(real_dir)}
    observer, participant = sessions["26-observer"], sessions["1-participant"]
    assert observer.mode == "observer" and (observer.subject_seat, observer.subject_role) == (4, "loyal_servant")
    assert len(observer.rounds) == 1 and observer.rounds[0].state.early_assassination
    assert observer.end.winner == "good" and observer.end.assassination_hit is False
    assert (participant.subject_seat, participant.subject_role) == (6, "assassin")
    assert [r.state.mission.success for r in participant.rounds] == [True, False]
    assert participant.rounds[1].state.proposals[-1].team == [1, 4, 6]
    assert sorted(participant.roles.values()).count("loyal_servant") == 2
    assert json.loads(participant.model_dump_json())["reflection"] == participant.reflection


def test_full_release_matches_the_papers_counts(real_dir):
    """With all 24 released participant games present, the paper's digit-run counts come out exactly."""
    from eval.inmind import count_tasks

    if len(list(real_dir.glob("*-participant.json"))) < 24:
        pytest.skip("only part of the InMind-Avalon release is here")
    counts = count_tasks(real_dir)
    assert counts["spans"]["reflections"]["single_digit"] == 161 and counts["spans"]["reflections"]["multi_digit"] == 33
    assert counts["spans"]["traces"]["single_digit"] == 592 and counts["spans"]["traces"]["multi_digit"] == 199
    assert counts["units"]["role_inference"] == 92  # the 24 released games (the paper's 93 include game 16)
