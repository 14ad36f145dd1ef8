"""The real local model answers a probe on a copy of a seat's context (slow: starts llama.cpp)."""
import pytest

from pipelines.probes import ProbeRunner


class Seat:
    def __init__(self, name):
        self.name = name
        self.history = [
            {"role": "system", "content": f"You are {name}, a Villager in a game of Mafia with Ann, Bob and Cy."},
            {"role": "user", "content": "The game so far: Night 1: nobody died. Bob: 'I think Cy is lying.' Cy: 'Bob is Mafia!'"},
        ]

    def messages(self):
        return self.history


class Game:
    def __init__(self):
        self.seats = {"Ann": Seat("Ann")}


@pytest.mark.slow
async def test_local_small_answers_a_suspicion_probe_without_touching_the_seat():
    from pipelines.llm import get_model

    model = get_model("local:small")
    game = Game()
    before = [dict(m) for m in game.seats["Ann"].history]
    runner = ProbeRunner("cheap", model)
    await runner.on_event({"kind": "setup", "players": [{"name": n, "role": r} for n, r in (("Ann", "villager"), ("Bob", "mafia"), ("Cy", "doctor"))]}, game)
    records = await runner.on_event({"kind": "speech", "round": 1, "public_msg_seq": 3, "player": "Cy", "text": "Bob is Mafia!"}, game)
    assert len(records) == 1 and records[0].probe_id == "suspicion_ranking"
    assert records[0].answer_raw  # parsed or not, the raw answer is kept
    assert game.seats["Ann"].history == before
