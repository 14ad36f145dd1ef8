"""Done when: a scripted-model 7-seat Mafia run with --personas and the default probes is scored in full."""
import json
import re

from typer.testing import CliRunner

from pipelines.llm import ScriptedModel
from pipelines.probes import load_probe_set


def planning(respond):
    """``respond``, but a plan names the first living other its spliced role guesses mention (the shared
    answerer names the first seat, who may be dead: a plan nobody could vote on is, rightly, not graded)."""

    def reply(step, messages):
        if step == "probe:planned_action":
            names = re.findall(r'"player": "([A-Z][a-z]+)"', messages[-1]["content"])
            if names:
                return json.dumps({"action": "vote", "target": names[0], "reasoning": "x"})
        return respond(step, messages)

    return reply


def test_a_probed_persona_game_scores_personality_and_every_default_probe(tmp_path, monkeypatch, respond):
    from ui.cli import app

    model = ScriptedModel(responder=planning(respond), name="scripted:done")
    monkeypatch.setattr("pipelines.llm.get_model", lambda spec=None, **kw: model)
    run = CliRunner().invoke(app, ["mafia", "simulate", "--games", "1", "--players", "7", "--seats", "llm", "--model", "scripted:done",
                                   "--personas", "seeded", "--probes", "default", "--max-rounds", "1", "--seed", "5",
                                   "-o", str(tmp_path / "run"), "--json"])
    assert run.exit_code == 0, run.output
    out = CliRunner().invoke(app, ["mafia", "score", str(tmp_path / "run"), "--json", "-B", "20", "--plots", str(tmp_path / "plots")])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)

    assert report["personality_mae"] is not None and report["personality_mae"]["n"] > 0
    default_ids = load_probe_set("default").ids()
    assert sorted(report["scored_probes"]) == sorted(default_ids)  # every default probe was asked ...
    assert report["unscored_probes"] == []  # ... and every one of them graded
    assert all(report["scored_probes"][pid] > 0 for pid in default_ids)
    assert report["plan_follow_through"]["n"] > 0 and report["role_beliefs"]["true_role_probability"]["n"] > 0
    assert report["speech_by_game"][0]["speeches"] > 0  # and the talk is scored alongside
