"""`vgm avalon simulate --inmind-record`: each game becomes an InMind session our importer reads back exactly."""
import json
import re

import pytest
from typer.testing import CliRunner

from eval.inmind import load_released, load_sessions
from eval.inmind.tasks import SETTINGS
from gm.avalon.inmind_record import record, record_play
from pipelines.llm import ScriptedModel
from ui.cli import app


def _cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_ten_scripted_participant_games_build_every_inmind_task(tmp_path):
    res = _cli("avalon", "simulate", "--seats", "scripted", "--inmind-record", "participant", "-o", tmp_path, "-n", 10, "--json")
    assert res.exit_code == 0, res.output
    assert len(list(tmp_path.glob("avalon-*-participant.json"))) == 10
    res = _cli("inmind", "tasks", "--data", tmp_path, "--json")
    assert res.exit_code == 0, res.output
    counts = json.loads(res.output)
    assert counts["sessions"] == {"observer": 0, "participant": 10}
    for task, settings in SETTINGS.items():
        assert set(counts["instances"][task]) == set(settings), task
        assert all(n > 0 for n in counts["instances"][task].values()), task
    assert counts["instances"]["player_identification"]["profile"] == 10
    assert counts["skipped"]["reflection_alignment: reviews with no seat reference"] == 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_recorded_session_reads_back_as_the_game_was_played(tmp_path, lang):
    record(mode="participant", out=tmp_path, games=4, seed=5, lang=lang, subject_seat=2)
    for path in sorted(tmp_path.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        game = raw["game"]
        session = load_released(path)
        assert session.mode == "participant" and session.language == lang
        assert session.subject_seat == 3 and session.subject_role == game["roles"][("P3" if lang == "en" else "3号")]
        assert {s: r for s, r in session.roles.items()} == {i + 1: role for i, role in enumerate(game["roles"].values())}
        assert session.end.winner == game["winner"]
        assert [r.state.mission.success for r in session.rounds if r.state.mission] == game["missions"]
        assert all(rnd.state.votes and rnd.state.proposals for rnd in session.rounds)
        assert all(rnd.strategy for rnd in session.rounds), "a trace at every mission"
        assert len(session.rounds[-1].state.votes) == len(raw[f"task{len(session.rounds)}"]["strategy"]) or game["early"]
        assert session.reflection and re.search(r"[1-6]号|Player [1-6]", session.reflection)


def test_a_game_with_an_assassination_keeps_the_end_phase(tmp_path):
    record(mode="participant", out=tmp_path, games=10, seed=0, lang="zh")
    sessions = load_sessions(tmp_path)
    shot = [s for s in sessions if s.end.assassin_target is not None]
    assert shot, "ten heuristic games include an assassination"
    for s in shot:
        raw = json.loads((tmp_path / f"{s.id}.json").read_text(encoding="utf-8"))
        hit = s.roles[s.end.assassin_target] == "merlin"
        assert s.end.assassination_hit is hit and s.end.winner == ("evil" if hit else "good")
        assert s.end.how in ("early_assassination", "three_successes")
        assert raw["task6"]["player_message"][-1]["msg"].startswith("刀客指认")


def test_scripted_traces_say_whom_the_seat_suspects_and_why(tmp_path):
    record(mode="participant", out=tmp_path, games=6, seed=1, lang="en", subject_seat=0)
    notes = [n.text for s in load_sessions(tmp_path) for n in s.traces]
    assert len(set(notes)) > len(notes) // 2, "traces follow the game, they are not one fixed string"
    reasons = ("failed mission", "voted for a team that failed", "spoke against them", "saw them as evil", "My teammate", "Merlin and Morgana")
    assert any(any(r in n for r in reasons) for n in notes)
    assert all(re.search(r"Player [1-6]", n) for n in notes), "every trace names seats"


def test_observer_mode_watches_a_seat_it_does_not_play(tmp_path):
    record(mode="observer", out=tmp_path, games=2, seed=3, lang="zh", subject_seat=4)
    sessions = load_sessions(tmp_path)
    assert [s.mode for s in sessions] == ["observer", "observer"] and {s.subject_seat for s in sessions} == {5}
    assert all(n.text.startswith("站在5号的角度") for s in sessions for n in s.traces)
    assert all(s.reflection.startswith("这局我站在5号") for s in sessions)


def test_a_killed_run_keeps_finished_games_and_a_rerun_plays_only_the_rest(tmp_path):
    first = record(mode="participant", out=tmp_path, games=3, seed=7)
    files = sorted(tmp_path.glob("*.json"))
    kept = files[0].read_bytes()
    files[1].unlink()  # killed before the second game was written
    (tmp_path / ".avalon-000008-participant.json.x.tmp").write_text('{"my_info": ')  # an interrupted write
    again = record(mode="participant", out=tmp_path, games=3, seed=7)
    assert again["inmind"]["recorded"] == 1 and sum(bool(r.get("resumed")) for r in again["results"]) == 2
    assert files[0].read_bytes() == kept and files[1].is_file()
    assert [r["winner"] for r in again["results"]] == [r["winner"] for r in first["results"]]
    assert len(load_sessions(tmp_path)) == 3


def test_an_llm_subject_writes_its_own_traces_and_reflection(tmp_path):
    asked = []

    def respond(step, messages):
        asked.append(step)
        question = messages[-1]["content"]
        if step == "avalon.inmind_trace":
            return json.dumps({"trace": f"Trace {len(asked)}: P2 pushed for P4, I suspect P4."})
        if step == "avalon.inmind_reflection":
            assert "The true roles:" in question
            return json.dumps({"reflection": "P4 fooled me; P2 read it right."})
        size = re.search(r"exactly (\d) players", question)
        return json.dumps({"team": ["P1", "P2", "P3", "P4"][: int(size.group(1))] if size else [], "speech": f"Speech {len(asked)}.",
                           "approve": True, "success": True, "target": "P2"})

    record(mode="participant", out=tmp_path, games=1, seed=2, seats="llm:fake,scripted,scripted,scripted,scripted,scripted",
           models={"fake": ScriptedModel(responder=respond)})
    session = load_sessions(tmp_path)[0]
    assert session.reflection == "P4 fooled me; P2 read it right."
    assert session.traces and all(n.text.startswith("Trace ") for n in session.traces)
    first_trace = asked.index("avalon.inmind_trace")
    assert "avalon.speak" in asked[:first_trace], "the trace comes after the table has spoken, before the vote"


def test_a_person_plays_and_writes_the_notes_at_the_terminal(tmp_path, terminal_person):
    shown: list[str] = []

    result = record_play(mode="participant", out=tmp_path, seat=1, others="scripted", seed=11, input_fn=terminal_person(shown), output_fn=shown.append)
    session = load_released(result["log"])
    assert session.mode == "participant" and session.subject_seat == 1
    assert session.traces and all(n.text == "Player 2 sounds honest; I suspect Player 5." for n in session.traces)
    assert session.reflection == "Player 5 was the Assassin, as I thought."


@pytest.mark.parametrize("args, message", [
    (["--inmind-record", "participant"], "--inmind-record needs -o DIR"),
    (["--inmind-record", "participant", "-o", "{tmp}", "--subject-seat", "6"], "--subject-seat 6 is outside 0..5"),
    (["--inmind-record", "participant", "-o", "{tmp}", "--lang", "fr"], "--lang fr: use en or zh"),
    (["--inmind-record", "player", "-o", "{tmp}"], "--inmind-record player: use observer or participant"),
    (["--inmind-record", "observer", "-o", "{tmp}", "--probes", "default"], "--probes does not go with --inmind-record"),
])
def test_bad_recording_options_are_one_line(tmp_path, args, message):
    res = _cli("avalon", "simulate", "-n", 1, *[a.replace("{tmp}", str(tmp_path / "s")) for a in args])
    assert res.exit_code != 0 and message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "s").exists()


def test_a_bad_model_for_a_played_recording_is_one_line_and_makes_no_folder(tmp_path):
    res = _cli("avalon", "play", "--inmind-record", "observer", "-o", str(tmp_path / "s"), "--model", "local:nosuch")
    assert res.exit_code != 0 and "unknown local model 'local:nosuch'" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "s").exists()


def test_a_person_can_watch_a_seat_and_write_the_notes_in_chinese(tmp_path):
    shown: list[str] = []
    asked: list[str] = []

    def answer(_prompt):
        asked.append(shown[-1])
        return "3号在带节奏，我怀疑3号。" if "策略轨迹" in shown[-1] else "3号果然是坏人。"

    result = record_play(mode="observer", out=tmp_path, seat=2, others="scripted", seed=4, lang="zh",
                         input_fn=answer, output_fn=shown.append)
    session = load_released(result["log"])
    assert session.mode == "observer" and session.subject_seat == 2 and session.language == "zh"
    assert all("策略轨迹" in q or "复盘" in q for q in asked), "a watcher is asked only for notes, never for a move"
    assert session.traces and session.reflection == "3号果然是坏人。"
    assert any(line.startswith("你是2号") for line in shown), "the watcher sees the watched seat's view"


def test_vgm_inmind_import_lists_recorded_sessions(tmp_path):
    record(mode="observer", out=tmp_path, games=2, seed=8, lang="en", subject_seat=1)
    res = _cli("inmind", "import", "--data", tmp_path, "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["mode"] for r in rows] == ["observer", "observer"] and {r["subject_seat"] for r in rows} == {2}
    assert all(r["language"] == "en" and r["traces"] == r["proposals"] > 0 and r["winner"] in ("good", "evil") for r in rows)
