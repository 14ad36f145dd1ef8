"""A short Mafia game played by the real embedded model (local:small) in every seat.

Kept to one day (5 speeches, 5 votes) so it stays within the slow-test budget on a CPU.
"""
import pytest

from gm.mafia import MafiaGame
from gm.social import LlmSeat, view_for


@pytest.mark.slow
def test_local_small_seats_play_a_legal_mafia_game(tmp_path):
    from pipelines.llm import get_model
    from pipelines.llm.local import ensure_installed

    ensure_installed("local:small")
    model = get_model("local:small")
    seats = [LlmSeat(model, model_spec="local:small", max_tokens=60) for _ in range(5)]
    game = MafiaGame(seats, seed=1, log_path=tmp_path / "g.jsonl",
                     options={"first_phase": "day", "discussion_rounds": 1, "max_rounds": 1})
    result = game.play()
    events = game.log.events
    assert result["winner"] in ("mafia", "village", "none")
    assert events[0]["kind"] == "setup" and events[-1]["kind"] == "game_over"
    speeches = [e for e in events if e["kind"] == "speech"]
    assert speeches and all(e["player"] in game.names for e in speeches)
    assert any(e["kind"] == "vote_result" for e in events) or result["winner"] != "none"
    # every move the model made is legal (or was replaced by a logged fallback), and no seat saw another's secrets
    for e in events:
        if e["kind"] == "illegal_move":
            assert e["to"] == [] and e["fallback"] is not None
    for name, seat in game.seats.items():
        text = "\n".join(m["content"] for m in seat.messages())
        for e in events:
            if e.get("private") and e["to"] and name not in e["to"]:
                line = game.render(e, e["to"][0])
                assert line is None or line not in text
    assert all(len(view_for(events, n)) < len(events) for n in game.names)
