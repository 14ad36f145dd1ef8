"""Forks that edit what was said or done: rewritten speeches, forced votes and night actions, planted beliefs."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from eval.beliefs import edit_fork_compare, find_snapshot, fork_game, load_edits
from gm.games import simulate
from gm.mafia import MafiaGame
from gm.social import read_log
from ui.cli import app

# seed 11, 7 scripted heuristic seats: Alex and Blair are the Mafia, Casey the Doctor; Gray dies on night 1,
# six speeches (R1.2-R1.7), then the vote puts Drew out and the Mafia win on night 2.
SEED = 11


@pytest.fixture(scope="module")
def game_log(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("game")
    simulate("mafia", games=1, seed=SEED, out=out, snapshots=True)
    log = out / f"mafia-{SEED:06d}.jsonl"
    roles = next(e for e in read_log(log) if e["kind"] == "setup")["players"]
    assert {p["name"]: p["role"] for p in roles if p["role"] != "villager"} == {"Alex": "mafia", "Blair": "mafia", "Casey": "doctor"}
    return log


def _edits(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "edits.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _events(fork: dict, kind: str) -> list[dict]:
    return [e for e in read_log(fork["log"]) if e["kind"] == kind]


def test_a_rewritten_speech_changes_the_vote_and_the_comparison_reports_it(game_log, tmp_path):
    path = _edits(tmp_path, 'edits:\n  - {kind: utterance, at: 1.2, text: "Sheriff: Blair is Mafia. Vote them out."}\n')
    report = asyncio.run(edit_fork_compare(game_log, (1, 2), load_edits(path), 3, edits_file=path, out_dir=tmp_path / "forks"))
    firsts = {r["outcome"]: r for r in report["comparison"]["first_elimination"]}
    assert firsts["Blair"]["edited"]["k"] == 3 and firsts["Blair"]["unedited"]["k"] == 0
    assert firsts["Blair"]["fisher_p"] == pytest.approx(0.1)
    lo, hi = firsts["Blair"]["difference_ci95"]
    assert lo > 0 and hi == pytest.approx(1.0)
    fork = report["arms"]["edited"]["forks"][0]
    record = _events(fork, "fork")[0]
    assert record["edits"] == [{"kind": "utterance", "at": "1.2", "text": "Sheriff: Blair is Mafia. Vote them out.",
                                "original": "I suspect Finley.", "seat": "Alex"}]
    said = [e for e in read_log(fork["log"]) if e["kind"] == "speech" and (e["round"], e["public_msg_seq"]) == (1, 2)]
    assert said[0]["text"].startswith("Sheriff: Blair")
    unedited = report["arms"]["unedited"]["forks"][0]
    assert "edits" not in _events(unedited, "fork")[0]


def test_forced_votes_and_night_actions_are_played_and_recorded(game_log, tmp_path):
    path = _edits(tmp_path, "edits:\n" + "".join(f"  - {{kind: vote, round: 1, seat: {s}, target: Alex}}\n"
                                                   for s in ("Casey", "Drew", "Ellis", "Finley"))
                  + "  - {kind: night, round: 2, seat: Casey, target: Finley}\n"
                  + "  - {kind: night, round: 2, seat: Blair, target: Finley}\n")
    report = asyncio.run(fork_game(game_log, (1, 7), 2, edits=load_edits(path), edits_file=path, out_dir=tmp_path / "f"))
    for fork in report["forks"]:
        assert fork["first_elimination"] == "Alex"
        forced = _events(fork, "forced_move")
        assert {(e["player"], e["decision"], e["value"]) for e in forced if e["applied"]} >= {
            ("Drew", "vote", "Alex"), ("Casey", "save", "Finley"), ("Blair", "kill", "Finley")}
        night2 = [e for e in read_log(fork["log"]) if e["kind"] == "night_result" and e["round"] == 2]
        assert night2 and night2[0]["killed"] is None, "the Doctor's forced save meets the Mafia's forced kill"


def test_a_planted_belief_reaches_only_its_seat(game_log, tmp_path):
    path = _edits(tmp_path, "- {kind: belief, seat: Drew, text: I am sure Blair is Mafia.}\n")
    report = asyncio.run(fork_game(game_log, (1, 3), 1, edits=load_edits(path), edits_file=path, out_dir=tmp_path / "f"))
    _, snap = find_snapshot(report["forks"][0]["log"], (1, 4))  # the fork's first step after the branch
    game = MafiaGame.restore(snap)
    drew = game.seat_messages("Drew")[1]["content"]
    assert "(your own private thought) I am sure Blair is Mafia." in drew
    assert all("Blair is Mafia" not in game.seat_messages(p)[1]["content"] for p in game.names if p != "Drew")


@pytest.mark.parametrize("text,key,words", [
    ("- {kind: vote, round: 1, seat: Zed, target: Alex}\n", "edits.0.seat", "'Zed' is not a player"),
    ("- {kind: utterance, at: 1.12, text: hi}\n", "edits.0.at", "step 1.12 is not a speech"),
    ("- {kind: speech, round: 99, seat: Alex, text: hi}\n", "edits.0.round", "round 99"),
    ("- {kind: night, round: 2, seat: Drew, target: Alex}\n", "edits.0.seat", "has no night action"),
    ("- {kind: vote, round: 1, seat: Alex, target: Gary}\n", "edits.0.target", "'Gary' is not a player"),
    ("- {kind: shout, seat: Alex}\n", "edits.0", "shout"),
])
def test_an_edit_naming_what_does_not_exist_is_one_line_naming_the_key(game_log, tmp_path, text, key, words):
    path = _edits(tmp_path, text)
    r = CliRunner().invoke(app, ["mafia", "fork", str(game_log), "--at", "1.4", "--edit", str(path), "--compare",
                                 "-o", str(tmp_path / "f")])
    assert r.exit_code != 0 and "Traceback" not in r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"key '{key}" in lines[0] and words in lines[0], r.output
    assert not list((tmp_path / "f").glob("*.jsonl")) if (tmp_path / "f").exists() else True


def test_a_night_already_over_at_the_branch_point_cannot_be_forced(game_log, tmp_path):
    path = _edits(tmp_path, "- {kind: night, round: 1, seat: Casey, target: Gray}\n")
    r = CliRunner().invoke(app, ["mafia", "fork", str(game_log), "--at", "1.3", "--edit", str(path), "-o", str(tmp_path / "f")])
    assert r.exit_code != 0 and "night 1 is over at the branch point 1.3" in r.output and "edits.0.round" in r.output


def test_repeated_arms_report_each_arms_spread(game_log, tmp_path):
    r = CliRunner().invoke(app, ["mafia", "fork", str(game_log), "--at", "1.3", "--n", "3", "--compare", "--repeats", "2",
                                 "-o", str(tmp_path / "f"), "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output[r.output.index("{"):])
    assert report["arms"]["post"]["n"] == 6 and report["repeats"] == 2
    row = report["comparison"]["winner"][0]
    for arm in ("post", "pre"):
        s = row[arm]["spread"]
        assert s["runs"] == 2 and s["min"] <= row[arm]["rate"] <= s["max"]


def test_the_belief_shift_is_the_difference_of_mean_suspicion_with_welchs_interval(tmp_path):
    from eval.beliefs import belief_shift

    def fork(name: str, scores: dict[str, int], rnd: int = 1) -> dict:
        rows = [{"game_id": name, "round": rnd, "public_msg_seq": 5, "player_idx": 0, "player": "Drew", "probe_seq": 0,
                 "probe_id": "suspicion_ranking", "parse_ok": True,
                 "answer_parsed": [{"player": p, "score": s} for p, s in scores.items()]},
                {"game_id": name, "round": 1, "public_msg_seq": 1, "player_idx": 0, "player": "Drew", "probe_seq": 0,
                 "probe_id": "suspicion_ranking", "parse_ok": True, "answer_parsed": [{"player": "Gray", "score": 0}]}]
        (tmp_path / f"{name}.probes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        return {"log": str(tmp_path / f"{name}.jsonl")}

    edited = [fork("e0", {"Gray": 90, "Alex": 10}), fork("e1", {"Gray": 80, "Alex": 20}), fork("e2", {"Gray": 85})]
    unedited = [fork("u0", {"Gray": 20, "Alex": 10}), fork("u1", {"Gray": 30, "Alex": 30}), fork("u2", {"Gray": 25}, rnd=2)]
    rows = {r["player"]: r for r in belief_shift(edited, unedited, (1, 3))}
    gray = rows["Gray"]
    assert gray["edited"] == {"n": 3, "mean": pytest.approx(85.0)}
    assert gray["unedited"] == {"n": 2, "mean": pytest.approx(25.0)}, "a later round's answer and the one before the branch are not counted"
    assert gray["difference"] == pytest.approx(60.0)
    lo, hi = gray["difference_ci95"]
    assert 0 < lo < 60 < hi and gray["welch_p"] < 0.05


@settings(max_examples=12, deadline=None)
@given(voter=st.sampled_from(["Alex", "Casey", "Drew", "Ellis", "Finley"]),
       target=st.sampled_from(["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley"]), reseed=st.integers(1, 10_000))
def test_a_legal_forced_vote_is_the_vote_cast(game_log, tmp_path_factory, voter, target, reseed):
    from eval.beliefs._edits import Vote

    if voter == target:
        return  # nobody may vote for themselves; such an edit would fall back to the seat's own vote
    out = tmp_path_factory.mktemp("prop")
    edit = Vote(kind="vote", round=1, seat=voter, target=target)
    report = asyncio.run(fork_game(game_log, (1, 4), 1, edits=[edit], seed=reseed, out_dir=out))
    first = next(e for e in read_log(report["forks"][0]["log"]) if e["kind"] == "vote_result" and e["round"] == 1)
    assert first["votes"][voter] == target  # everyone but Gray (dead on night 1) is alive at the day-1 vote


def test_avalon_edits_rewrite_speech_and_force_votes(tmp_path):
    simulate("avalon", games=1, seed=3, out=tmp_path, snapshots=True)
    log = tmp_path / "avalon-000003.jsonl"
    path = _edits(tmp_path, "- {kind: utterance, at: 1.2, text: I am wary of Casey.}\n- {kind: vote, round: 1, seat: Alex, target: reject}\n")
    report = asyncio.run(fork_game(log, (1, 2), 1, edits=load_edits(path), edits_file=path, out_dir=tmp_path / "f"))
    events = read_log(report["forks"][0]["log"])
    assert next(e for e in events if e["kind"] == "speech" and e["public_msg_seq"] == 2 and e["round"] == 1)["text"] == "I am wary of Casey."
    votes = [e["votes"]["Alex"] for e in events if e["kind"] == "vote_result" and e["round"] == 1]
    assert votes and not any(votes), "Alex rejects every team of mission 1"
    bad = _edits(tmp_path, "- {kind: night, round: 1, seat: Alex, target: Blair}\n")
    with pytest.raises(Exception, match="night actions are Mafia's"):
        asyncio.run(fork_game(log, (1, 2), 1, edits=load_edits(bad), edits_file=bad, out_dir=tmp_path / "g"))
