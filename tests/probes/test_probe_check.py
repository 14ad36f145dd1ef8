"""A probe the game's logs cannot score is named before the run: `vgm probes check --game`, and a warning on simulate."""
import pytest
from typer.testing import CliRunner

from pipelines.probes import load_probe_set, parse_probe_set
from pipelines.probes._check import SCORED
from rulesets import VgmError

Q = "(Private note, {player}.) About {players}: answer with JSON."


def probe_set(*probes):
    return parse_probe_set({"probes": [{"question": Q, **p} for p in probes]}, "t.yaml")


def flagged(s, game="mafia", **kw):
    return {p.probe: p.reason for p in s.scoring_problems(game, **kw)}


def test_the_default_set_is_fully_scored_on_mafia_with_personas():
    assert flagged(load_probe_set("default"), personas=True) == {}


def test_personality_without_recorded_personas_is_flagged():
    reason = flagged(load_probe_set("default"))["personality"]
    assert "--personas" in reason


def test_planned_action_cannot_be_scored_on_avalon():
    assert set(flagged(load_probe_set("default"), "avalon", personas=True)) == {"planned_action"}
    assert flagged(load_probe_set("avalon"), "avalon") == {}


@pytest.mark.parametrize("probe, words", [
    ({"id": "free_notes", "answer": "text"}, "no scorer"),
    ({"id": "raw", "answer": "json"}, "no scorer"),
    ({"id": "my_roles", "answer": "role_assessment"}, "only under the id 'role_assessment'"),
    ({"id": "suspicion_ranking", "answer": "json"}, "set answer: suspicion_ranking"),
    ({"id": "planned_action", "answer": "planned_action", "when": ["night"]}, "add own_turn"),
    ({"id": "social_map", "answer": "social_map"}, "add a role_assessment probe"),
])
def test_an_unscorable_probe_is_flagged_with_the_fix(probe, words):
    reasons = flagged(probe_set(probe), personas=True)
    assert list(reasons) == [probe["id"]]
    assert words in reasons[probe["id"]]


def test_social_map_with_role_assessment_in_the_set_is_scored():
    s = probe_set({"id": "role_assessment", "answer": "role_assessment"}, {"id": "social_map", "answer": "social_map"})
    assert flagged(s) == {}


def test_an_unknown_game_is_one_line():
    with pytest.raises(VgmError, match="give one of mafia, avalon"):
        load_probe_set("cheap").scoring_problems("chess")


def test_the_check_and_the_report_name_the_same_probe_ids():
    from eval.beliefs import BeliefGame
    from eval.beliefs._report import scored_probes
    from pipelines.probes import ProbeRecord

    game = BeliefGame("g", ["A", "B"], {"A": "villager", "B": "mafia"})
    game.probes = [ProbeRecord(game_id="g", round=1, public_msg_seq=1, player_idx=0, player="A", probe_seq=i, probe_id=pid,
                               question="q", answer_raw="[]", answer_parsed=[], parse_ok=True) for i, pid in enumerate(SCORED)]
    assert set(scored_probes([game])) == set(SCORED)


def test_probes_check_prints_one_line_per_flagged_probe(tmp_path):
    from ui.cli import app

    f = tmp_path / "p.yaml"
    f.write_text("probes:\n"
                 "  - {id: suspicion_ranking, answer: suspicion_ranking, question: 'rank {players}'}\n"
                 "  - {id: notes, answer: text, question: 'notes, {player}'}\n"
                 "  - {id: personality, answer: personality, question: 'Big Five of {players}'}\n")
    out = CliRunner().invoke(app, ["probes", "check", str(f), "--game", "mafia"])
    assert out.exit_code == 0, out.output
    lines = [line for line in out.output.splitlines() if "probe '" in line]
    assert len(lines) == 2
    assert "probe 'notes'" in lines[0] and "probe 'personality'" in lines[1]
    assert "2 of 3 probes cannot be scored on mafia logs" in out.output
    quiet = CliRunner().invoke(app, ["probes", "check", str(f)])  # without --game: syntax only, as before
    assert quiet.exit_code == 0 and "probe '" not in quiet.output


def test_a_probed_simulate_warns_first_about_probes_it_cannot_score(tmp_path):
    from ui.cli import app

    f = tmp_path / "p.yaml"
    f.write_text("probes:\n  - {id: notes, answer: text, when: [round_end], question: 'notes, {player}'}\n"
                 "  - {id: suspicion_ranking, answer: suspicion_ranking, when: [round_end], question: 'rank {players}'}\n")
    out = CliRunner().invoke(app, ["mafia", "simulate", "--games", "1", "--seats", "scripted", "--probes", str(f),
                                   "--max-rounds", "1", "-o", str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    warnings = [line for line in out.output.splitlines() if line.startswith("warning")]
    assert len(warnings) == 1 and "probe 'notes'" in warnings[0] and "no scorer" in warnings[0]
    assert out.output.index("warning") < out.output.index("games")  # before the run, not after it
    clean = CliRunner().invoke(app, ["mafia", "simulate", "--games", "1", "--seats", "scripted", "--probes", "cheap",
                                     "--max-rounds", "1", "-o", str(tmp_path / "run2")])
    assert clean.exit_code == 0 and "warning" not in clean.output
