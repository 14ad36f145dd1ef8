"""The probe runner: chaining, logging, batching, and above all: it never changes the game."""
import json

import pytest

from pipelines.llm import ScriptedModel
from pipelines.probes import ProbeRunner, attach_probes, parse_probe_set



class FakeSeat:
    def __init__(self, name):
        self.name = name
        self.history = [{"role": "system", "content": f"You are {name}."}, {"role": "user", "content": "The game so far: ..."}]

    def messages(self):
        return self.history  # the live list: a probe that appended to it would show here


class FakeGame:
    def __init__(self, names):
        self.seats = {n: FakeSeat(n) for n in names}
        self.listeners = []

    def add_listener(self, fn):
        self.listeners.append(fn)


SETUP = {"kind": "setup", "private": True, "to": [], "players": [{"name": "Ann", "role": "villager"}, {"name": "Bob", "role": "mafia"}]}


def speech(seq, who="Ann", rnd=1):
    return {"kind": "speech", "round": rnd, "public_msg_seq": seq, "player": who, "text": "hello"}


CHAIN_SET = parse_probe_set({"probes": [
    {"id": "a", "question": "A for {player} ({role}) among {players}; before: {last_a}", "answer": "text"},
    {"id": "b", "question": "B sees a={prev_a} and last b={last_b}", "answer": "suspicion_ranking"},
]})


async def test_chaining_prev_last_and_na():
    counter = {"n": 0}

    def reply(step, messages):
        counter["n"] += 1
        if step == "probe:a":
            return f"answer-a-{counter['n']}"
        return "oops, no json" if counter["n"] == 2 else '[{"player": "Bob", "score": 90}]'

    runner = ProbeRunner(CHAIN_SET, ScriptedModel(responder=reply))
    game = FakeGame(["Ann", "Bob"])
    await runner.on_event(SETUP, game)
    first = await runner.on_event(speech(1, "Bob"), game)
    ann_a, ann_b = [r for r in first if r.player == "Ann"]
    assert ann_a.question == "A for Ann (villager) among Bob; before: N/A"
    assert ann_b.question == f"B sees a={ann_a.answer_raw} and last b=N/A"  # prev_a = this step's answer
    assert not ann_b.parse_ok and ann_b.answer_parsed is None  # recorded, not fatal
    second = await runner.on_event(speech(2, "Ann"), game)
    ann_a2, ann_b2 = [r for r in second if r.player == "Ann"]
    assert ann_a2.question.endswith(f"before: {ann_a.answer_raw}")  # last_a = previous step's
    assert "last b=oops, no json" in ann_b2.question and ann_b2.chained_from_raw == ["last_b"]  # raw fallback flagged
    bob_b2 = [r for r in second if r.player == "Bob" and r.probe_id == "b"][0]
    assert 'last b=[{"player": "Bob", "score": 90.0}]' in bob_b2.question  # parsed answer re-serialised


async def test_triggers_own_turn_night_round_end_and_deaths():
    s = parse_probe_set({"probes": [
        {"id": "every", "question": "q", "when": ["always", "night", "round_end"], "answer": "text"},
        {"id": "mine", "question": "q", "when": "own_turn", "answer": "text"},
    ]})
    runner = ProbeRunner(s, ScriptedModel(responder=lambda step, m: "ok"))
    game = FakeGame(["Ann", "Bob"])
    await runner.on_event(SETUP, game)
    recs = await runner.on_event(speech(1, "Ann"), game)
    assert sorted((r.player, r.probe_id, r.trigger) for r in recs) == [
        ("Ann", "every", "own_turn"), ("Ann", "mine", "own_turn"), ("Bob", "every", "always")]
    night = await runner.on_event({"kind": "mafia_pick", "round": 2, "public_msg_seq": 0, "private": True, "to": ["Bob"], "player": "Bob", "target": "Ann"}, game)
    # the round changed without a round-end event: everyone gets a round-end pass first, then Bob his night probe
    assert [(r.player, r.trigger, r.public_msg_seq, r.round) for r in night] == [
        ("Ann", "round_end", -1, 1), ("Bob", "round_end", -1, 1), ("Bob", "night", 0, 2)]
    dawn = await runner.on_event({"kind": "night_result", "round": 2, "public_msg_seq": 1, "killed": "Ann"}, game)
    assert [r.player for r in dawn] == ["Bob"]  # the dead are not probed
    knowledge = await runner.on_event({"kind": "night_knowledge", "round": 0, "public_msg_seq": 1, "private": True, "to": ["Bob"], "player": "Bob"}, game)
    assert knowledge == []


async def test_probes_never_touch_the_seats_messages(respond):
    runner = ProbeRunner("default", ScriptedModel(responder=respond))
    game = FakeGame(["Ann", "Bob"])
    before = json.dumps({n: s.history for n, s in game.seats.items()})
    await runner.on_event(SETUP, game)
    recs = await runner.on_event(speech(1), game)
    assert recs and all(r.parse_ok for r in recs)
    assert json.dumps({n: s.history for n, s in game.seats.items()}) == before


def test_probe_log_jsonl_has_the_documented_fields(tmp_path, respond):
    game = FakeGame(["Ann", "Bob"])
    out = tmp_path / "g.probes.jsonl"
    runner = attach_probes(game, "cheap", ScriptedModel(responder=respond), out)
    assert game.listeners == [runner]
    runner(SETUP, game)
    runner(speech(1), game)  # no running loop: the listener runs to completion itself
    runner.close()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2
    need = {"round", "public_msg_seq", "player_idx", "player", "probe_seq", "probe_id", "question", "answer_raw",
            "answer_parsed", "parse_ok", "role", "phase", "latency_ms", "tokens"}
    assert need <= rows[0].keys()
    assert (rows[0]["round"], rows[0]["public_msg_seq"], rows[0]["player"], rows[0]["role"]) == (1, 1, "Ann", "villager")
    assert rows[0]["answer_parsed"][0]["player"] == "Bob"


async def test_batched_mode_one_call_per_seat_same_answers_shape(respond):
    model = ScriptedModel(responder=respond)
    runner = ProbeRunner("default", model, batched=True)
    game = FakeGame(["Ann", "Bob"])
    await runner.on_event(SETUP, game)
    recs = await runner.on_event(speech(1, "Ann"), game)
    assert len(model.requests) == 2  # one call per seat
    assert {r.probe_id for r in recs if r.player == "Ann"} == {"role_assessment", "role_beliefs", "suspicion_ranking", "social_map", "planned_action", "personality"}
    assert all(r.batched and r.parse_ok for r in recs)


# ---- the non-invasiveness proof on the real Mafia engine -------------------------------------------------
def _play(tmp_path, responder, probes, batched=False):
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat

    model = ScriptedModel(responder=responder, name="scripted:shared")
    game = MafiaGame([LlmSeat(model) for _ in range(7)], seed=11, game_id="g", log_path=tmp_path / f"{probes}{batched}.jsonl")
    runner = attach_probes(game, probes, None, tmp_path / f"{probes}{batched}.probes.jsonl", batched=batched) if probes else None
    result = game.play()
    game_facing = [r for r in model.requests if not str(r["step"]).startswith("probe:")]
    return result, json.dumps(game_facing, sort_keys=True).encode(), game.log.events, runner


@pytest.mark.parametrize("probes,batched", [("default", False), ("default", True), ("cheap", False)])
def test_probed_game_sends_byte_identical_game_requests(tmp_path, respond, probes, batched):
    plain_result, plain_bytes, plain_events, _ = _play(tmp_path, respond, None)
    result, probed_bytes, events, runner = _play(tmp_path, respond, probes, batched)
    assert runner.records, "the probes must actually have run"
    assert probed_bytes == plain_bytes
    assert events == plain_events and result == plain_result


def test_the_identity_check_catches_a_probe_that_leaks_into_the_game(tmp_path, respond):
    """Control: a listener that writes an answer into the game log changes the game-facing bytes."""
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat

    _, plain_bytes, _, _ = _play(tmp_path, respond, None)
    model = ScriptedModel(responder=respond)
    game = MafiaGame([LlmSeat(model) for _ in range(7)], seed=11, game_id="g", log_path=tmp_path / "leaky.jsonl")
    leaked = []

    def leaky(event, g):
        if event["kind"] == "speech" and not leaked:
            leaked.append(event)
            g.log.append({**event, "text": "(a probe answer that should have stayed private)"})

    game.add_listener(leaky)
    game.play()
    game_facing = [r for r in model.requests if not str(r["step"]).startswith("probe:")]
    assert json.dumps(game_facing, sort_keys=True).encode() != plain_bytes


def test_avalon_game_is_probed_with_the_avalon_set(tmp_path, respond):
    from gm.avalon import AvalonGame
    from gm.social import ScriptedSeat

    from eval.beliefs import load_games

    game = AvalonGame([ScriptedSeat("random") for _ in range(6)], seed=2, game_id="av", log_path=tmp_path / "av.jsonl")
    runner = attach_probes(game, "avalon", ScriptedModel(responder=respond), tmp_path / "av.probes.jsonl")
    game.play()
    runner.close()
    assert runner.records and {r.probe_id for r in runner.records} == {"role_assessment", "suspicion_ranking", "social_map"}
    assert {r.trigger for r in runner.records} >= {"always", "own_turn", "round_end"}
    (scored,) = load_games(tmp_path)
    assert scored.teams and any(scored.evil(p) for p in scored.players)


async def test_a_failing_model_call_is_recorded_not_fatal():
    from pipelines.llm import ModelError

    def broken(step, messages):
        raise ModelError("server down; start it")

    runner = ProbeRunner("cheap", ScriptedModel(responder=broken))
    game = FakeGame(["Ann", "Bob"])
    await runner.on_event(SETUP, game)
    recs = await runner.on_event(speech(1), game)
    assert len(recs) == 2 and not any(r.parse_ok for r in recs)
    assert "server down" in recs[0].error


async def test_instructions_open_the_system_prompt_alone_and_sit_beside_their_question_when_batched():
    s = parse_probe_set({"probes": [
        {"id": "a", "instructions": "Fixed A for {player}.", "question": "Ask A about {players}.", "answer": "text"},
        {"id": "b", "instructions": "Fixed B.", "question": "Ask B.", "answer": "text"},
    ]})
    for batched in (False, True):
        model = ScriptedModel(responder=lambda step, m: "ok")
        runner = ProbeRunner(s, model, batched=batched)
        game = FakeGame(["Ann", "Bob"])
        await runner.on_event(SETUP, game)
        await runner.on_event(speech(1), game)
        ann = [r["messages"] for r in model.requests if "You are Ann." in r["messages"][0]["content"]]
        if not batched:
            assert [m[0]["content"] for m in ann] == ["Fixed A for Ann.\n\nYou are Ann.", "Fixed B.\n\nYou are Ann."]
            assert [m[1:] for m in ann] == [game.seats["Ann"].history[1:] + [{"role": "user", "content": q}] for q in ("Ask A about Bob.", "Ask B.")]
            assert [r.instructions for r in runner.records if r.player == "Ann"] == ["Fixed A for Ann.", "Fixed B."]
        else:  # one question after the log: the system prompt stays the seat's own
            (only,) = ann
            assert only[0]["content"] == "You are Ann." and '### "a"\nFixed A for Ann.\nAsk A about Bob.' in only[-1]["content"]


async def test_a_keyed_probe_asks_for_every_living_other_by_name_and_logs_the_usual_list():
    keyed = parse_probe_set({"probes": [{"id": "suspicion_ranking", "question": "Scores ({players})?",
                                         "answer": "suspicion_ranking", "keyed": True}]})
    model = ScriptedModel(responder=lambda step, messages: '{"Bob": 80, "Cy": 5}')
    runner = ProbeRunner(keyed, model)
    game = FakeGame(["Ann", "Bob", "Cy"])
    await runner.on_event({**SETUP, "players": [*SETUP["players"], {"name": "Cy", "role": "villager"}]}, game)
    recs = await runner.on_event(speech(1), game)
    ann = next(r for r in recs if r.player == "Ann")
    assert ann.parse_ok and ann.answer_parsed == [{"player": "Bob", "score": 80.0}, {"player": "Cy", "score": 5.0}]
    schema = next(r["json_schema"] for r in model.requests if "You are Ann." in r["messages"][0]["content"])
    assert schema["required"] == ["Bob", "Cy"] and set(schema["properties"]) == {"Bob", "Cy"}  # no one skipped, no one invented
    bob = next(r for r in recs if r.player == "Bob")
    assert not bob.parse_ok  # Bob's answer lacks Ann: a keyed answer must score every living other


def test_keyed_needs_an_answer_that_lists_players():
    from pipelines.probes._dsl import ProbeSpecError

    with pytest.raises((ProbeSpecError, ValueError), match="keyed"):
        parse_probe_set({"probes": [{"id": "social_map", "question": "?", "answer": "social_map", "keyed": True}]})
