"""The InMind model steps alone, with scripted models: what they send and what they read back."""
from __future__ import annotations

from pipelines.inmind import build_profile, infer_roles, rank_players
from pipelines.llm import ScriptedModel


async def test_profile_accumulates_over_observer_games():
    model = ScriptedModel(['{"profile": "v1: trusts votes"}', '{"profile": "v2: trusts votes, doubts early claims"}'])
    result = await build_profile(model, ["GAME ONE", "GAME TWO"])
    assert result.profile == "v2: trusts votes, doubts early claims"
    assert result.history == ["v1: trusts votes", "v2: trusts votes, doubts early claims"]
    first, second = (r["messages"][-1]["content"] for r in model.requests)
    assert "GAME ONE" in first and "(empty)" in first
    assert "GAME TWO" in second and "v1: trusts votes" in second  # the profile so far is carried forward
    assert result.usage.calls == 2


async def test_ranking_only_accepts_candidate_labels():
    model = ScriptedModel(['{"ranking": ["Merlin", "Percival"]}', '{"ranking": ["C", "A"]}'])
    parsed = await rank_players(model, profile="p", game="g", candidates=list("ABCDEF"))
    assert parsed.value.ranking == ["C", "A"] and parsed.repaired  # the first answer was re-asked
    assert "Rank all of A, B, C, D, E, F" in model.requests[0]["messages"][-1]["content"]


async def test_unreadable_answer_is_recorded_not_raised():
    model = ScriptedModel(["no idea", "still no idea"])
    parsed = await infer_roles(model, profile="", game="g", perspective="p", ask="a", mission=1)
    assert parsed.value is None and not parsed.parse_ok and parsed.raw == "still no idea"
