"""Token counts with no network, trimming a table log to a budget, and cost."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.llm import Usage
from pipelines.llm.tokens import count_tokens, estimate_cost, seed_tiktoken_cache, trim_to_budget
from pipelines.records import Turn


def test_tiktoken_works_offline_from_the_seeded_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tk"))
    folder = seed_tiktoken_cache()
    assert len(os.listdir(folder)) == 2
    import tiktoken

    def no_network(*args, **kwargs):
        raise AssertionError("tiktoken tried to download")

    monkeypatch.setattr("tiktoken.load.read_file", no_network)
    assert tiktoken.get_encoding("o200k_base").encode("Roll for perception") != []
    assert tiktoken.get_encoding("cl100k_base").decode(tiktoken.get_encoding("cl100k_base").encode("Stealth!")) == "Stealth!"


def test_counts_text_messages_and_turns():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    one = count_tokens([{"role": "user", "content": "hello world"}])
    assert one == 2 + 3 + 3  # content + per-message framing + reply priming
    assert count_tokens([Turn(speaker="Jester", text="I look around.")]) > 3


def test_trim_keeps_system_and_instruction_and_drops_oldest():
    system = {"role": "system", "content": "You are the GM."}
    log = [{"role": "user", "content": f"Player{i}: I open door {i} slowly and listen."} for i in range(30)]
    ask = {"role": "user", "content": "Who acts next?"}
    messages = [system, *log, ask]
    trimmed = trim_to_budget(messages, 120)
    assert trimmed[0] == system and trimmed[-1] == ask
    assert count_tokens(trimmed) <= 120
    kept = trimmed[1:-1]
    assert kept == log[-len(kept):] and 0 < len(kept) < 30


def test_trim_of_turns_keeps_the_newest():
    turns = [Turn(speaker=f"P{i}", text="I swing my axe at the goblin.") for i in range(50)]
    trimmed = trim_to_budget(turns, 60)
    assert trimmed == turns[-len(trimmed):] and count_tokens(trimmed) <= 60


def test_trim_never_cuts_the_instruction_even_over_budget():
    messages = [{"role": "system", "content": "x " * 100}, {"role": "user", "content": "y " * 100}]
    assert trim_to_budget(messages, 10) == messages


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=40), max_size=25), st.integers(min_value=0, max_value=200))
def test_trim_result_is_a_suffix_within_budget_or_minimal(lines, budget):
    trimmed = trim_to_budget(lines, budget)
    assert trimmed == lines[len(lines) - len(trimmed):]
    assert count_tokens(trimmed) <= budget or trimmed == []


def test_cost():
    usage = Usage(prompt_tokens=1_000_000, cached_tokens=400_000, completion_tokens=100_000)
    assert estimate_cost(usage, "openai:gpt-4o-mini") == pytest.approx(0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.60)
    assert estimate_cost(usage, "openai:gpt-4o-2024-08-06") == pytest.approx(0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10)
    assert estimate_cost(usage, "local:small") == 0.0
    assert estimate_cost(Usage(prompt_tokens=5, cache_hit=True), "openai:gpt-4o") == 0.0
    assert estimate_cost(usage, "openai:some-server-model") is None
