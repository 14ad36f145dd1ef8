"""Counterfactual replay from snapshots, and the probe-set commands."""
import json

import pytest
from typer.testing import CliRunner

from eval.beliefs import ForkError, find_snapshot, fork_game
from eval.beliefs import load_games
from pipelines.llm import ScriptedModel


@pytest.fixture
def recorded(tmp_path, respond, monkeypatch):
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat

    model = ScriptedModel(responder=respond, name="scripted:fork")
    monkeypatch.setattr("pipelines.llm.get_model", lambda spec=None, **kw: model)  # forks rebuild seats by model string
    game = MafiaGame([LlmSeat(model, model_spec="scripted:fork") for _ in range(7)], seed=5, game_id="parent",
                     log_path=tmp_path / "parent.jsonl", snapshots=True)
    game.play()
    return tmp_path / "parent.jsonl"


async def test_fork_resimulates_n_times_into_ordinary_logs_pointing_to_the_parent(recorded, tmp_path):
    report = await fork_game(recorded, (1, 2), 3, out_dir=tmp_path / "forks", probes="cheap", model="scripted:fork")
    assert report["n"] == 3 and abs(sum(report["winners"].values()) - 1) < 1e-9
    games = load_games(tmp_path / "forks")
    assert len(games) == 3 and {g.parent for g in games} == {"parent"}
    assert all(g.game_id.startswith("parent-fork1.") and g.probes for g in games)
    # every fork replays the parent's history up to the branch point unchanged
    parent_events = [json.loads(line) for line in recorded.read_text().splitlines()]
    fork_events = [json.loads(line) for line in (tmp_path / "forks" / f"{games[0].game_id}.jsonl").read_text().splitlines()]
    _, snap = find_snapshot(recorded, (1, 2))
    upto = len(snap["events"])
    assert upto > 3 and fork_events[:upto] == parent_events[:upto]
    assert fork_events[upto]["kind"] == "fork" and fork_events[upto]["parent"] == "parent"


def test_fork_without_snapshots_says_how_to_record_them(tmp_path):
    (tmp_path / "g.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ForkError, match="--snapshots"):
        find_snapshot(tmp_path / "g.jsonl", (1, 1))


def test_probes_show_and_check(tmp_path):
    from ui.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["probes", "show", "default", "--json"])
    assert out.exit_code == 0 and json.loads(out.output)["probes"][0]["id"] == "role_assessment"
    bad = tmp_path / "bad.yaml"
    bad.write_text("probes:\n  - id: a\n    question: '{prev_b}'\n  - id: b\n    question: x\n", encoding="utf-8")
    out = runner.invoke(app, ["probes", "check", str(bad)])
    assert out.exit_code != 0 and "probe 'a' uses {prev_b} but 'b' runs later" in out.output


def test_compare_two_probe_logs_of_one_game(tmp_path, respond):
    """Separate and batched runners on the same game: the comparison counts calls and agreement."""
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat
    from pipelines.probes import attach_probes
    from ui.cli import app

    model = ScriptedModel(responder=respond)
    game = MafiaGame([LlmSeat(model) for _ in range(5)], seed=3, game_id="cmp", log_path=tmp_path / "cmp.jsonl",
                     options={"max_rounds": 1})
    a = attach_probes(game, "default", None, tmp_path / "a.probes.jsonl")
    b = attach_probes(game, "default:batched", None, tmp_path / "b.probes.jsonl")
    game.play()
    a.close(), b.close()
    out = CliRunner().invoke(app, ["probes", "compare", str(tmp_path / "a.probes.jsonl"), str(tmp_path / "b.probes.jsonl"), "--json"])
    assert out.exit_code == 0, out.output
    r = json.loads(out.output)
    assert r["b"]["calls"] * 3 < r["a"]["calls"] and r["matched_answers"] > 0
    assert 0 <= r["role_agreement"] <= 1 and r["role_pairs"] > 0
