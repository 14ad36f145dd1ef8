"""role_beliefs (MafiaScope's sixth default probe): a distribution over roles per player, parsed and scored."""
import json

import pytest

from eval.beliefs import load_vgm_game, score_games
from eval.beliefs import _metrics as m
from pipelines.llm.structured import parse_as
from pipelines.probes import ANSWER_SHAPES, dump_answer, load_probe_set


def parse(text):
    value, _, err = parse_as(text, ANSWER_SHAPES["role_beliefs"])
    assert err is None, err
    return dump_answer(value)


def test_role_beliefs_is_in_the_default_set():
    probe = next(p for p in load_probe_set("default").probes if p.id == "role_beliefs")
    assert probe.answer == "role_beliefs" and "always" in probe.when


@pytest.mark.parametrize("text", [
    '[{"player": "B", "beliefs": {"Mafia": 60, "Villager": 40}}]',
    '```json\n{"beliefs": [{"player": "B", "probs": {"Mafia": "60", "Villager": "40%"}}]}\n```',
    '{"B": {"Mafia": 60, "Villager": 40}}',
])
def test_the_parser_reads_the_shapes_models_write(text):
    assert parse(text)[0]["player"] == "B" and parse(text)[0]["beliefs"] == {"Mafia": 60.0, "Villager": 40.0}


def test_a_role_assessment_style_entry_puts_its_confidence_on_the_named_role():
    assert parse('[{"player": "B", "guessed_role": "Mafia", "confidence": 70}]')[0]["beliefs"] == {"Mafia": 70.0}


def _write_game(tmp_path):
    """A, B villagers, C Mafia, D Doctor; two role_beliefs answers by A and one by C (Mafia, not scored)."""
    setup = {"game_id": "g", "round": 0, "public_msg_seq": 0, "kind": "setup", "private": True, "to": [],
             "players": [{"name": n, "seat": i + 1, "role": r, "team": "mafia" if r == "mafia" else "village"}
                         for i, (n, r) in enumerate([("A", "villager"), ("B", "villager"), ("C", "mafia"), ("D", "doctor")])]}
    events = [setup, {"game_id": "g", "round": 1, "public_msg_seq": 1, "kind": "speech", "player": "A", "text": "hi"}]
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    answers = [
        ("A", '[{"player": "B", "beliefs": {"Villager": 50, "Mafia": 50}},'
              ' {"player": "C", "beliefs": {"Mafia": 3, "Villager": 1}},'
              ' {"player": "D", "beliefs": {"Unknown": 100}}]'),
        ("C", '[{"player": "A", "beliefs": {"Villager": 100}}]'),
        ("B", "not json"),
    ]
    rows = []
    for player, raw in answers:
        try:
            parsed, ok = parse(raw), True
        except AssertionError:
            parsed, ok = None, False
        rows.append({"game_id": "g", "round": 1, "public_msg_seq": 1, "player_idx": "ABCD".index(player), "player": player,
                     "probe_seq": 0, "probe_id": "role_beliefs", "answer_raw": raw, "answer_parsed": parsed, "parse_ok": ok})
    (tmp_path / "g.probes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load_vgm_game(tmp_path / "g.jsonl")


def test_role_beliefs_scored_by_hand(tmp_path):
    game = _write_game(tmp_path)
    rows = m.role_belief_rows(game)
    # A about B (Villager): p=0.5; base rate among A's others (B villager, C mafia, D doctor) = 1/3
    # A about C (Mafia): p=0.75; base rate 1/3. A about D: all Unknown → not scored. C is Mafia → not scored.
    assert rows[:, 1].tolist() == pytest.approx([0.5, 0.75])
    assert rows[:, 2].tolist() == pytest.approx([1 / 3, 1 / 3])
    # multi-class Brier over the game's roles {Villager, Mafia, Doctor}
    assert rows[:, 3].tolist() == pytest.approx([0.25 + 0.25, 0.0625 + 0.0625])
    base = (2 / 3) ** 2 + (1 / 3) ** 2 + (1 / 3) ** 2
    assert rows[:, 4].tolist() == pytest.approx([base, base])
    assert rows[:, 5].tolist() == [1.0, 1.0]  # a tie goes to the role listed first (Villager for B)

    report = score_games([game], b=20)
    rb = report["role_beliefs"]
    assert rb["true_role_probability"]["value"] == pytest.approx(0.625) and rb["true_role_probability"]["chance"] == pytest.approx(1 / 3)
    assert rb["brier"]["value"] == pytest.approx((0.5 + 0.125) / 2) and rb["brier"]["base_rate"] == pytest.approx(base)
    assert rb["top_role_accuracy"]["n"] == 2
    assert report["parse_rate"]["role_beliefs"]["parse_rate"] == pytest.approx(2 / 3)


def test_the_score_command_prints_role_beliefs(tmp_path):
    from typer.testing import CliRunner

    from ui.cli import app

    _write_game(tmp_path)
    out = CliRunner().invoke(app, ["mafia", "score", str(tmp_path), "-B", "20", "--plots", str(tmp_path / "plots")])
    assert out.exit_code == 0, out.output
    assert "probability on the true role 62.5%" in " ".join(out.output.split())
