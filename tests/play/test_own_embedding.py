"""An index a caller embeds itself (a test's bag of words) decides without the packaged MiniLM.

The pooled impossible-act direction is fitted in MiniLM's space on every pack's lines; building it
for such an index loaded MiniLM and embedded thousands of lines (a minute on the 2-core CI) for a
number read in another space.
"""
from __future__ import annotations

import asyncio

import pytest

import rulesets
from tests.play.test_gm_turn import INDEX, STAYS, adjudicate, instance


def test_an_index_with_its_own_embedding_reads_no_pooled_direction_and_never_loads_minilm(monkeypatch):
    def no_minilm():
        raise AssertionError("MiniLM was loaded")

    monkeypatch.setattr("pipelines.check_index._minilm", no_minilm)
    monkeypatch.setattr("pipelines.check_index._sense", lambda *a: pytest.fail("the pooled direction was built"))
    state = asyncio.run(adjudicate(rules=["implausible"]).run(instance("I flap my arms and fly up to the clock tower"), None,
                                                              pack=rulesets.load("dnd5e"), check_index=INDEX, decision_model=STAYS))
    parsed = state.steps[0].parsed
    assert parsed["p_impossible"] == 0.0 and parsed["fired"] == [] and state.decision == "no_roll"
