"""`vgm avalon simulate` / `vgm mafia simulate`: a win-rate table, logs in a folder, resume, --json."""
import json

from typer.testing import CliRunner

from gm.social import read_log
from gm.games import simulate
from ui.cli import app


def test_avalon_simulate_writes_logs_and_a_json_report(tmp_path):
    res = CliRunner().invoke(app, ["avalon", "simulate", "--games", "20", "--seats", "scripted", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output[res.output.index("{"):])
    assert report["games"] == 20 and sum(w["games"] for w in report["wins"]) == 20
    assert {w["winner"] for w in report["wins"]} <= {"good", "evil"}
    logs = sorted(tmp_path.glob("avalon-*.jsonl"))
    assert len(logs) == 20
    events = read_log(logs[0])
    assert events[0]["kind"] == "setup" and events[-1]["kind"] == "game_over"
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 20


def test_mafia_simulate_prints_a_table(tmp_path):
    res = CliRunner().invoke(app, ["mafia", "simulate", "--games", "10", "--seats", "scripted:random", "--sheriff",
                                   "--vote-tie", "revote", "--out", str(tmp_path)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "win rate" in res.output and "mafia" in res.output


def test_a_second_run_resumes_finished_games(tmp_path):
    first = simulate("mafia", games=6, out=tmp_path, seed=10)
    (tmp_path / "mafia-000013.jsonl").write_text((tmp_path / "mafia-000013.jsonl").read_text().splitlines()[0] + "\n")
    again = simulate("mafia", games=6, out=tmp_path, seed=10)
    resumed = [r for r in again["results"] if r.get("resumed")]
    assert len(resumed) == 5, "five finished games are read back, the cut-off one is replayed"
    assert [r["winner"] for r in again["results"]] == [r["winner"] for r in first["results"]]


def test_bad_seat_spec_is_one_line():
    res = CliRunner().invoke(app, ["mafia", "simulate", "--games", "1", "--seats", "robot", "--out", ""])
    assert res.exit_code != 0
    assert "unknown seat 'robot'" in res.output and "Traceback" not in res.output


def test_an_unfinished_game_continues_from_its_last_snapshot(tmp_path):
    import json as _json

    full = simulate("avalon", games=1, out=tmp_path / "a", seed=3, snapshots=True)
    log = tmp_path / "a" / "avalon-000003.jsonl"
    snaps = (tmp_path / "a" / "avalon-000003.snapshots.jsonl").read_text().splitlines()
    # simulate a crash halfway: keep half the snapshots (and a torn line), cut the log before game_over
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "avalon-000003.snapshots.jsonl").write_text("\n".join(snaps[: len(snaps) // 2]) + "\n{\"key\": [9,")
    cut = _json.loads(snaps[len(snaps) // 2 - 1])["snapshot"]["events"]
    (tmp_path / "b" / "avalon-000003.jsonl").write_text("".join(_json.dumps(e) + "\n" for e in cut))
    again = simulate("avalon", games=1, out=tmp_path / "b", seed=3, snapshots=True)
    assert again["results"][0]["winner"] == full["results"][0]["winner"]
    assert read_log(tmp_path / "b" / "avalon-000003.jsonl") == read_log(log)


def test_an_unwritable_log_folder_is_one_line_before_any_game_is_played(tmp_path, monkeypatch):
    """Root passes os.access on a read-only mount, so the folder is tried with a real write; a
    refusal must come before the games, not after a long game at its first write."""
    import gm.social.runner as runner

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(runner.tempfile, "TemporaryFile", refuse)
    played = []
    monkeypatch.setattr(runner, "play_games", lambda *a, **k: played.append(1))
    for folder in (tmp_path / "new", tmp_path):  # made by the run, or already there
        res = CliRunner().invoke(app, ["avalon", "simulate", "-n", "1", "-o", str(folder)])
        assert res.exit_code != 0 and not played
        assert "cannot write in the log folder" in res.output and "Traceback" not in res.output
    assert res.output.strip().startswith("error:") and len(res.output.strip().splitlines()) == 1  # before any progress bar
