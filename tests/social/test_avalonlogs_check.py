"""`vgm avalon check`: recorded games replay through the engine; the first illegal step is named."""
import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eval.avalonlogs import check_file, replay, to_avalonlogs
from gm.avalon import AvalonGame
from gm.social import ScriptedSeat
from rulesets import VgmError

REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "avalonlogs" / "sample_6p.jsonl"

# A hand-written 6-player game in the site's format: good wins 3-1, the Assassin misses.
GAME = {
    "players": [{"name": n} for n in ["ANN", "BOB", "CAT", "DAN", "EVE", "FAY"]],
    "missions": [
        {"teamSize": 2, "failsRequired": 1, "state": "SUCCESS", "team": ["ANN", "BOB"], "numFails": 0,
         "proposals": [{"proposer": "ANN", "team": ["ANN", "BOB"], "votes": ["ANN", "BOB", "CAT", "DAN"], "state": "APPROVED"}]},
        {"teamSize": 3, "failsRequired": 1, "state": "FAIL", "team": ["BOB", "CAT", "EVE"], "numFails": 1,
         "proposals": [{"proposer": "BOB", "team": ["BOB", "CAT", "DAN"], "votes": ["BOB", "CAT", "DAN"], "state": "REJECTED"},
                       {"proposer": "CAT", "team": ["BOB", "CAT", "EVE"], "votes": ["BOB", "CAT", "EVE", "FAY"], "state": "APPROVED"}]},
        {"teamSize": 4, "failsRequired": 1, "state": "SUCCESS", "team": ["ANN", "BOB", "CAT", "DAN"], "numFails": 0,
         "proposals": [{"proposer": "DAN", "team": ["ANN", "BOB", "CAT", "DAN"], "votes": ["ANN", "BOB", "CAT", "DAN"], "state": "APPROVED"}]},
        {"teamSize": 3, "failsRequired": 1, "state": "SUCCESS", "team": ["ANN", "BOB", "DAN"], "numFails": 0,
         "proposals": [{"proposer": "EVE", "team": ["ANN", "BOB", "DAN"], "votes": ["ANN", "BOB", "CAT", "DAN", "EVE"], "state": "APPROVED"}]},
        {"teamSize": 4, "failsRequired": 1, "state": "PENDING", "team": [], "proposals": []},
    ],
    "outcome": {
        "state": "GOOD_WIN", "message": "Three successful missions", "assassinated": "BOB",
        "roles": [{"name": "ANN", "role": "MERLIN", "assassin": False}, {"name": "BOB", "role": "PERCIVAL", "assassin": False},
                  {"name": "CAT", "role": "LOYAL FOLLOWER", "assassin": False}, {"name": "DAN", "role": "LOYAL FOLLOWER", "assassin": False},
                  {"name": "EVE", "role": "MORGANA", "assassin": False}, {"name": "FAY", "role": "EVIL MINION", "assassin": True}],
        "votes": [{"ANN": True, "BOB": True}, {"BOB": True, "CAT": True, "EVE": False},
                  {"ANN": True, "BOB": True, "CAT": True, "DAN": True}, {"ANN": True, "BOB": True, "DAN": True}],
    },
    "_source_path": "logs/2020-01-01T00:00:00.000Z_TST",
}


def _write(tmp_path, *games, name="games.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(g) + "\n" for g in games))
    return path


def _broken(edit):
    g = copy.deepcopy(GAME)
    edit(g)
    return g


def test_a_legal_recorded_game_is_accepted():
    assert replay(GAME) == {"ok": True, "step": "", "problem": "", "tolerated": [], "winner": "good"}


@pytest.mark.parametrize("edit,step,problem", [
    (lambda g: g["missions"][0]["proposals"][0].update(team=["ANN", "BOB", "CAT"]), "mission 1, proposal 1 (propose)", "exactly 2"),
    (lambda g: g["missions"][1]["proposals"][0].update(proposer="DAN"), "mission 2, proposal 1 (proposal)", "out of turn"),
    (lambda g: g["missions"][1]["proposals"][0].update(votes=["BOB", "CAT", "DAN", "ANN"]), "mission 2, proposal 1 (vote)", "record says REJECTED"),
    (lambda g: g["outcome"]["votes"][2].update(CAT=False), "mission 3, proposal 1 (mission cards)", "good player CAT played Fail"),
    (lambda g: g["missions"][1].update(state="SUCCESS"), "mission 2, proposal 2 (mission result)", "record says SUCCESS"),
    (lambda g: g["outcome"].update(assassinated="ANN"), "outcome", "record says GOOD_WIN"),
])
def test_the_first_illegal_step_is_named(edit, step, problem):
    res = replay(_broken(edit))
    assert not res["ok"] and res["step"] == step and problem in res["problem"]


def test_assassin_naming_a_teammate_is_tolerated_and_reported(tmp_path):
    g = _broken(lambda g: g["outcome"].update(assassinated="EVE"))
    report = check_file(_write(tmp_path, GAME, g))
    assert report["accepted"] == 2 and not report["rejected"]
    assert report["tolerated"] == [{"game": "2020-01-01T00:00:00.000Z_TST",
                                    "note": "the Assassin named a teammate, EVE (morgana); counted as a miss"}]
    strict = check_file(_write(tmp_path, g, name="s.jsonl"), strict=True)
    assert strict["accepted"] == 0 and "teammate" in strict["rejected"][0]["problem"]


def test_five_rejections_end_the_recorded_game_for_evil():
    g = copy.deepcopy(GAME)
    names = [p["name"] for p in g["players"]]
    g["missions"] = [{"teamSize": 2, "failsRequired": 1, "state": "PENDING", "team": [],
                      "proposals": [{"proposer": names[i], "team": ["ANN", "BOB"], "votes": ["ANN"], "state": "REJECTED"} for i in range(5)]}] + [
        {"teamSize": s, "failsRequired": 1, "state": "PENDING", "team": [], "proposals": []} for s in (3, 4, 3, 4)]
    g["outcome"].update(state="EVIL_WIN", message="Five team proposals in a row rejected", assassinated=None, votes=[])
    assert replay(g)["ok"]
    g["missions"][0]["proposals"].append({"proposer": "FAY", "team": ["ANN", "BOB"], "votes": [], "state": "REJECTED"})
    res = replay(g)
    assert not res["ok"] and "goes on after the game ended" in res["problem"]


def test_our_own_games_exported_to_the_format_are_accepted():
    for seed in range(40):
        game = AvalonGame([ScriptedSeat("random") for _ in range(6)], seed=seed,
                          options={"early_assassination": False, "discussion": False})
        game.play()
        assert replay(to_avalonlogs(game.log.events))["ok"], seed


def test_a_malformed_record_is_one_line_naming_it(tmp_path):
    bad = {k: v for k, v in GAME.items() if k != "missions"}
    with pytest.raises(VgmError, match=r"games.jsonl:2 \(2020-01-01T00:00:00.000Z_TST\): key 'missions'"):
        check_file(_write(tmp_path, GAME, bad))
    (tmp_path / "x.jsonl").write_text("{not json\n")
    with pytest.raises(VgmError, match=r"x.jsonl:1: malformed JSON"):
        check_file(tmp_path / "x.jsonl")


def test_cli_check_prints_counts_and_json(tmp_path):
    from ui.cli import app

    path = _write(tmp_path, GAME, _broken(lambda g: g["missions"][1]["proposals"][0].update(proposer="DAN")))
    res = CliRunner().invoke(app, ["avalon", "check", str(path)], env={"COLUMNS": "200"})
    text = " ".join(res.output.split())
    assert res.exit_code == 0 and "1 of 2 games accepted" in text and "out of turn" in text
    res = CliRunner().invoke(app, ["avalon", "check", str(path), "--json"])
    data = json.loads(res.output)
    assert data["accepted"] == 1 and data["rejected"][0]["step"] == "mission 2, proposal 1 (proposal)"


@pytest.mark.skipif(not REAL.is_file(), reason="shared avalonlogs sample not present")
def test_the_real_shared_games_are_accepted():
    report = check_file(REAL)
    assert report["games"] == 5 and report["accepted"] == 5
