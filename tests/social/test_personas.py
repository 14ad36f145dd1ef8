"""Big-Five personas: seeded alike, each LLM seat conditioned on its own only, recorded for personality scoring."""
import hashlib
import json
import re

import pytest
from typer.testing import CliRunner

from gm.mafia import MafiaGame
from gm.social import LlmSeat, ScriptedSeat
from gm.social.personas import PersonaError, load_personas, persona_text, resolve_personas, seeded_persona
from pipelines.llm import ScriptedModel

NAMES = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley", "Gray"]


def responder(step, messages):
    """Legal game moves picked by a hash of the prompt; probe answers naming the players asked about (50 for every trait)."""
    q = messages[-1]["content"]
    h = int(hashlib.sha256(json.dumps(messages).encode()).hexdigest(), 16)
    if step and step.startswith("probe:"):
        m = re.search(r"\(([A-Z][a-z]+(?:, [A-Z][a-z]+)*)\)", q)
        players = m.group(1).split(", ") if m else NAMES
        pid = step.removeprefix("probe:")
        if pid == "personality":
            return json.dumps([{"player": p, "O": 50, "C": 50, "E": 50, "A": 50, "N": 50} for p in players])
        if pid in ("role_assessment", "role_beliefs"):
            return json.dumps([{"player": p, "guessed_role": "Villager", "confidence": 60} for p in players])
        return json.dumps([{"player": p, "score": 50} for p in players])
    if step == "mafia.speak":
        return json.dumps({"thought": "", "speech": "No strong read yet."})
    m = re.search(r"one of: ([^.\n]+)", q)
    options = [o.strip() for o in m.group(1).split(",")] if m else NAMES[:1]
    key = "vote" if step == "mafia.vote" else "target"
    return json.dumps({"thought": "", key: options[h % len(options)]})


def _setup_players(path):
    events = [json.loads(line) for line in path.read_text().splitlines()]
    return next(e for e in events if e["kind"] == "setup")["players"]


def test_seeded_personas_are_the_same_for_the_same_seed_and_differ_across_seeds():
    a = resolve_personas("seeded", NAMES, 7)
    assert a == resolve_personas("seeded", NAMES, 7)
    assert a != resolve_personas("seeded", NAMES, 8)
    assert len({json.dumps(v, sort_keys=True) for v in a.values()}) == len(NAMES)
    assert all(0 <= x <= 100 for v in a.values() for x in v.values())


def test_a_seat_prompt_holds_its_own_persona_and_no_other_seats(probe_model_game):
    game, model = probe_model_game
    for name in NAMES:
        own = persona_text(game.personas[name])
        system = game.seats[name].messages()[0]["content"]
        assert own in system
        for other in NAMES:
            if other != name and persona_text(game.personas[other]) != own:
                assert persona_text(game.personas[other]) not in system
    # every request a seat's model received carries exactly that seat's persona
    for req in model.requests:
        system = req["messages"][0]["content"]
        name = re.match(r"You are (\w+)", system).group(1)
        assert persona_text(game.personas[name]) in system
        assert sum(persona_text(game.personas[o]) in system for o in NAMES) == 1


@pytest.fixture
def probe_model_game(tmp_path):
    model = ScriptedModel(responder=responder, name="scripted:personas")
    game = MafiaGame([LlmSeat(model) for _ in range(7)], seed=3, game_id="p", log_path=tmp_path / "p.jsonl",
                     options={"personas": "seeded", "max_rounds": 1})
    game.play()
    return game, model


def test_scripted_seats_ignore_personas(tmp_path):
    game = MafiaGame([ScriptedSeat() for _ in range(7)], seed=3, log_path=tmp_path / "s.jsonl", options={"personas": "seeded"})
    game.play()
    assert all("personality" not in p for p in _setup_players(tmp_path / "s.jsonl"))
    assert "Big Five" not in game.seat_messages("Alex")[0]["content"]


def test_personality_mae_is_scored_on_a_game_with_personas(tmp_path):
    from eval.beliefs import score_path
    from pipelines.probes import attach_probes
    model = ScriptedModel(responder=responder, name="scripted:personas")
    game = MafiaGame([LlmSeat(model) for _ in range(7)], seed=4, game_id="g", log_path=tmp_path / "g.jsonl",
                     options={"personas": "seeded", "max_rounds": 1})
    runner = attach_probes(game, "default", None, tmp_path / "g.probes.jsonl")
    game.play()
    runner.close()
    players = _setup_players(tmp_path / "g.jsonl")
    assert {p["name"]: p["personality"] for p in players} == {n: seeded_persona(4, n) for n in NAMES}
    report = score_path(tmp_path, b=50)
    pm = report["personality_mae"]
    assert pm is not None and pm["n"] > 0
    # the scripted answerer says 50 for every trait, so its error equals the always-50 baseline
    assert pm["value"] == pytest.approx(pm["baseline_always_50"])


def test_a_persona_file_sets_each_named_seat(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("Alex: {O: 90, C: 10, E: 95, A: 5, N: 50}\n", encoding="utf-8")
    spec = load_personas(f)
    model = ScriptedModel(responder=lambda step, m: "{}", name="s")
    game = MafiaGame([LlmSeat(model) for _ in range(7)], seed=1, options={"personas": spec})
    assert game.persona_of("Alex")["O"] == 90 and game.persona_of("Blair") is None
    assert "Extraversion 95/100: outgoing" in game.seat_messages("Alex")[0]["content"]


@pytest.mark.parametrize("text, problem", [
    ("Alex: {O: 140, C: 10, E: 95, A: 5, N: 50}\n", "seat 'Alex': trait 'O' is 140; give a number from 0 to 100"),
    ("Alex: {O: 40, C: 10, E: 95, A: 5}\n", "trait 'N' (neuroticism) is missing"),
])
def test_a_bad_persona_file_is_one_line(tmp_path, text, problem):
    f = tmp_path / "bad.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(PersonaError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        load_personas(f)
    from ui.cli import app

    out = CliRunner().invoke(app, ["mafia", "simulate", "--games", "1", "--personas", str(f), "-o", str(tmp_path / "r")])
    assert out.exit_code != 0 and problem in out.output and "Traceback" not in out.output
    assert not (tmp_path / "r").exists()


def test_simulate_with_personas_records_them_for_llm_seats(tmp_path, monkeypatch):
    from ui.cli import app

    model = ScriptedModel(responder=responder, name="scripted:sim")
    monkeypatch.setattr("pipelines.llm.get_model", lambda spec=None, **kw: model)
    out = CliRunner().invoke(app, ["mafia", "simulate", "--games", "1", "--seats", "llm", "--model", "scripted:sim",
                                   "--personas", "seeded", "--max-rounds", "1", "-o", str(tmp_path), "--json"])
    assert out.exit_code == 0, out.output
    players = _setup_players(next(tmp_path.glob("mafia-*.jsonl")))
    assert all(set(p["personality"]) == {"O", "C", "E", "A", "N"} for p in players)
