"""Memory over a long session: in a 5,000-turn synthetic log, a question about an early event
recalls that event, within the token budget, fast enough for every turn."""
from __future__ import annotations

import random
import time

import pytest

from gm.memory import Memory, count_tokens
from pipelines.embeddings import HashingEmbedding
from pipelines.records import Turn

SPEAKERS = ["Brisa", "Oskar", "Ilya", "GM"]
VERBS = ["walks toward", "looks at", "asks about", "points at", "laughs near", "waits beside", "sketches", "counts"]
THINGS = ["the door", "a barrel", "the cart", "the river", "a lantern", "the old map", "a fishing net", "the market stall",
          "the chimney", "a rusty gate", "the well", "a sleeping dog", "the bakery", "a pile of crates", "the bridge"]
PLACES = ["in the square", "at the docks", "by the mill", "on the hill road", "near the inn", "under the eaves"]
EVENT = Turn(speaker="Brisa", text="I hide the obsidian key inside the hollow fox statue in the chapel garden.")
EVENT_AT = 17


def synthetic_log(n: int, seed: int = 0) -> list[Turn]:
    rng = random.Random(seed)
    log = [Turn(speaker=rng.choice(SPEAKERS), text=f"{rng.choice(VERBS).capitalize()} {rng.choice(THINGS)} {rng.choice(PLACES)}.")
           for _ in range(n)]
    log[EVENT_AT] = EVENT
    return log


def _fill(memory: Memory, log: list[Turn]) -> float:
    started = time.perf_counter()
    memory.add_turns(list(enumerate(log)))
    return time.perf_counter() - started


def _recall_checks(memory: Memory, record_property, label: str) -> None:
    latencies = []
    for question in ("Where did Brisa hide the obsidian key?", "what happened to the key in the fox statue"):
        started = time.perf_counter()
        memos = memory.recall(question, k=6, budget_tokens=120, before=4990)
        latencies.append(time.perf_counter() - started)
        assert EVENT.text in [m.text.split(": ", 1)[1] for m in memos]
        assert sum(count_tokens(m.text) for m in memos) <= 120
        assert all(m.index is None or m.index < 4990 for m in memos)
    mean_ms = 1000 * sum(latencies) / len(latencies)
    record_property(f"{label}_recall_ms", round(mean_ms, 1))
    print(f"\n{label}: recall over 5,000 turns {mean_ms:.1f} ms per question")
    assert mean_ms < 2000


def test_recall_early_event_in_5000_turns_hashing(record_property):
    memory = Memory("long-hashing", None, HashingEmbedding())
    fill = _fill(memory, synthetic_log(5000))
    assert len(memory) == 5000
    print(f"\nhashing: stored 5,000 turns in {fill:.1f} s")
    _recall_checks(memory, record_property, "hashing")


@pytest.mark.slow
def test_recall_early_event_in_5000_turns_minilm(record_property, tmp_path):
    from pipelines.embeddings import MiniLMEmbedding

    memory = Memory("long-minilm", tmp_path / "mem", MiniLMEmbedding())
    fill = _fill(memory, synthetic_log(5000))
    record_property("minilm_store_s", round(fill, 1))
    print(f"\nminilm: stored 5,000 turns in {fill:.1f} s")
    _recall_checks(memory, record_property, "minilm")
    # the store is on disk: a new client on the same folder sees the same collection
    assert len(Memory("long-minilm", tmp_path / "mem", MiniLMEmbedding())) == 5000


def test_notes_recalled_and_recent_window_excluded():
    memory = Memory("notes", None, HashingEmbedding())
    memory.add_notes(["High tide is at 11:40 tonight.", "The payroll coach arrives at dawn."])
    memory.add_turns([(0, Turn(speaker="GM", text="The tide is rising fast.")), (1, Turn(speaker="Eddie", text="When is high tide?"))])
    memos = memory.recall("when is high tide", before=1)
    assert memos[0].kind == "note" and memos[0].text.startswith("High tide")
    assert all(m.index != 1 for m in memos)
    assert memory.recall("tide", budget_tokens=0) == []
