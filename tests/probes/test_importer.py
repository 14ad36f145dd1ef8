"""MafiaScope's own logs (and ours) import into one game record and score as one report."""
import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eval.beliefs import ImportError_, complete_prefix, load_games
from eval.beliefs import score_path

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "mafiascope"

PLAYERS = [("Ann", "Villager"), ("Bo", "Mafia"), ("Cy", "Doctor"), ("Di", "Villager")]


def _write(path: Path, rows: list[dict], gz: bool) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if gz:
        with gzip.open(path.with_name(path.name + ".gz"), "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def _probe(rnd, seq, idx, pseq, pid, raw, ok=True, phase="day_discuss"):
    name, role = PLAYERS[idx]
    parsed = json.loads(raw) if ok else None
    return {"timestamp": 1.0, "game_id": "g1", "round": rnd, "public_msg_seq": seq, "player_idx": idx, "player_name": name,
            "probe_seq": pseq, "probe_id": pid, "question": "…", "answer_raw": raw, "answer_parsed": parsed,
            "answer_parse_ok": ok, "model": "m", "role": role, "phase": phase, "latency_ms": 100}


def make_mafiascope_game(folder: Path, gz: bool = True) -> None:
    """A 4-player game in MafiaScope's schema: night kill of Di, one day of talk, Bo voted out."""
    folder.mkdir(parents=True)
    game = [
        {"game_id": "g1", "kind": "setup", "round": 0, "players": [{"name": n, "role": r, "model": "m"} for n, r in PLAYERS]},
        {"game_id": "g1", "kind": "night_mafia", "round": 1, "player": "Bo", "response": "ДЕЙСТВИЕ: Убить Di", "msg_seq": 1},
        {"game_id": "g1", "kind": "night_doctor", "round": 1, "player": "Cy", "response": "save Ann", "msg_seq": 2},
        {"game_id": "g1", "kind": "night_kill", "round": 1, "victim": "Di"},
        {"game_id": "g1", "kind": "night_analysis", "round": 1, "night_result": "Di was killed by the Mafia."},
        {"game_id": "g1", "kind": "day_discuss", "round": 1, "player": "Ann", "response": "Bo is odd", "msg_seq": 4},
        {"game_id": "g1", "kind": "day_vote", "round": 1, "player": "Ann", "response": "Bo", "msg_seq": 5},
        {"game_id": "g1", "kind": "day_vote", "round": 1, "player": "Bo", "response": "Ann", "msg_seq": 6},
        {"game_id": "g1", "kind": "day_vote", "round": 1, "player": "Cy", "response": "Bo", "msg_seq": 7},
        {"game_id": "g1", "kind": "vote_tally", "round": 1, "tally": {"Bo": 2, "Ann": 1}, "votes": {"Ann": "Bo", "Bo": "Ann", "Cy": "Bo"}},
        {"game_id": "g1", "kind": "day_eliminate", "round": 1, "eliminated": "Bo", "role": "Mafia", "votes": 2},
        {"game_id": "g1", "kind": "game_over", "round": 1, "winner": "Villagers"},
    ]
    truncated = '[\n {"player": "Bo", "guessed_role": "Mafia", "confidence": 70, "reason": "odd"},\n {"player": "Cy", "guessed_ro'
    probes = [
        _probe(1, 4, 0, 0, "role_assessment", truncated, ok=False),
        _probe(1, 4, 0, 1, "suspicion_ranking", '[{"player": "Bo", "score": 80}, {"player": "Cy", "score": 20}]'),
        _probe(1, 4, 0, 2, "social_map", '{"toward_me": [{"player": "Bo", "attitude": "suspects", "confidence": 60}, '
                                          '{"player": "Cy", "attitude": "trusts", "confidence": 60}]}'),
        _probe(1, 4, 1, 0, "role_assessment", '[{"player": "Ann", "guessed_role": "Villager", "confidence": 90}]'),
        _probe(1, 4, 2, 0, "role_assessment", '[{"player": "Ann", "guessed_role": "Villager", "confidence": 60}, '
                                               '{"player": "Bo", "guessed_role": "Unknown", "confidence": 10}]'),
        _probe(1, 4, 2, 1, "suspicion_ranking", '[{"player": "Ann", "score": 30}, {"player": "Bo", "score": 60}]'),
        _probe(1, 5, 2, 1, "suspicion_ranking", '[{"player": "Ann", "score": 70}, {"player": "Bo", "score": 60}]'),
    ]
    _write(folder / "game.jsonl", game, gz)
    _write(folder / "introspection.jsonl", probes, gz)


def test_reads_mafiascope_schema_and_repairs_truncated_answers_by_prefix(tmp_path):
    make_mafiascope_game(tmp_path / "g1")
    (game,) = load_games(tmp_path)
    assert game.source == "mafiascope" and game.winner == "Villagers"
    assert game.roles["Bo"] == "Mafia" and set(game.deaths) == {"Di", "Bo"}
    assert not game.alive_at("Di", 1, 4) and game.alive_at("Bo", 1, 7) and not game.alive_at("Bo", 1, -1)
    assert [(v.voter, v.target, v.seq) for v in game.votes] == [("Ann", "Bo", 5), ("Bo", "Ann", 6), ("Cy", "Bo", 7)]
    repaired = game.probes[0]
    assert repaired.parse_ok and repaired.repaired
    assert [e["player"] for e in repaired.answer_parsed] == ["Bo"]  # the cut-off Cy entry is dropped, not invented


def test_complete_prefix_never_invents():
    assert complete_prefix('[{"a": 1}, {"b": 2}, {"c": ') == [{"a": 1}, {"b": 2}]
    assert complete_prefix('```json\n{"toward_me": [{"p": 1}, {"p"') == {"toward_me": [{"p": 1}]}
    assert complete_prefix('[{"a": ') is None
    assert complete_prefix("no json") is None


def test_scores_the_fixture_with_hand_checked_figures(tmp_path):
    make_mafiascope_game(tmp_path / "g1", gz=False)
    r = score_path(tmp_path, b=50)
    # villager-side committed guesses: Ann→Bo Mafia (right); Cy→Ann Villager (right); Cy→Bo Unknown (left out)
    assert r["first_order_accuracy"]["value"] == 1.0 and r["first_order_accuracy"]["n"] == 3
    # Ann predicts Bo suspects her (Bo's guess: Villager 90 → trusts) and Cy trusts her (Cy: Villager 60 → trusts)
    assert r["overprediction_ratio"]["value"] is None and r["agreement"]["value"] == 0.5
    # Ann's vote at 1.5 follows her ranking at 1.4 (top Bo): hit; Cy's at 1.7 follows 1.5 (top Ann) but names Bo: miss
    assert r["vote_coupling"]["innocent"]["top_suspect"]["value"] == 0.5
    assert r["parse_rate"]["role_assessment"]["repaired"] == 1


def test_missing_or_broken_input_is_one_clear_error(tmp_path):
    with pytest.raises(ImportError_, match="no such file"):
        load_games(tmp_path / "nope")
    with pytest.raises(ImportError_, match="no games found"):
        load_games(tmp_path)
    bad = tmp_path / "g2"
    bad.mkdir()
    (bad / "game.jsonl").write_text('{"kind": "setup", "players": []}\nnot json\n', encoding="utf-8")
    with pytest.raises(ImportError_, match=r"game\.jsonl:2: malformed JSON"):
        load_games(tmp_path)


def test_cli_score_json_keys_are_the_figures(tmp_path):
    from ui.cli import app

    make_mafiascope_game(tmp_path / "g1")
    out = CliRunner().invoke(app, ["mafia", "score", str(tmp_path), "--json", "-B", "20", "--plots", str(tmp_path / "plots")])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    for key in ("ece", "brier", "overprediction_ratio", "volatility", "flip_rate", "return_rate", "agreement", "mafia_recall"):
        assert key in report
    assert {Path(p).name for p in report["plots"]} == {"reliability.png", "first_order.png", "second_order_sweep.png"}


@pytest.mark.skipif(not REAL.is_dir(), reason="real MafiaScope games not present")
def test_real_mafiascope_games_score():
    r = score_path(REAL, b=100)
    assert r["games"] == 3 and r["probe_answers"] > 1500
    assert r["parse_rate"]["role_assessment"]["parse_rate"] > 0.95  # the legacy 400-token cut-offs are repaired
    assert 0.0 < r["ece"]["value"] < 0.5 and r["overprediction_ratio"]["value"] > 1.0
    assert 20 < r["cost"]["traffic_multiplier"] < 30  # the paper's "roughly 24x"
