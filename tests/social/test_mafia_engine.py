"""Mafia: random legal play keeps every rule; planned games end the way the plan says; vote rules as stated."""
from hypothesis import given, settings, strategies as st

from gm.mafia import MafiaGame
from gm.social import LlmSeat, ScriptedSeat

NAMES = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley", "Gray"]
DEAL = {"Alex": "mafia", "Blair": "mafia", "Casey": "doctor", "Drew": "villager", "Ellis": "villager",
        "Finley": "villager", "Gray": "sheriff"}


def check_invariants(g: MafiaGame) -> None:
    ev = g.log.events
    assert ev[0]["kind"] == "setup" and ev[-1]["kind"] == "game_over"
    dead: set[str] = set()
    kills_per_round: dict[int, int] = {}
    for e in ev:
        k = e["kind"]
        actor = e.get("player")
        if k in ("speech", "mafia_pick", "doctor_save", "sheriff_check"):
            assert actor not in dead, f"dead {actor} acted ({k})"
        if k == "vote_result":
            assert not dead & set(e["votes"]), "dead players do not vote"
            assert all(v not in dead for v in e["votes"].values())
        if k == "night_result":
            kills_per_round[e["round"]] = kills_per_round.get(e["round"], 0) + 1
            if e["killed"]:
                assert not g.is_mafia(e["killed"]) and e["killed"] not in dead
                dead.add(e["killed"])
        if k == "elimination":
            assert e["player"] not in dead
            dead.add(e["player"])
        if k in ("mafia_pick", "mafia_kill"):
            assert e["private"] and all(g.is_mafia(p) for p in e["to"])
    assert all(v == 1 for v in kills_per_round.values()), "one night result (at most one kill) per night"
    alive = [p for p in g.names if p not in dead]
    assert alive == g.alive
    mafia = sum(g.is_mafia(p) for p in alive)
    w = ev[-1]["winner"]
    if w == "village":
        assert mafia == 0
    elif w == "mafia":
        assert mafia * 2 >= len(alive)
    else:
        assert w == "none" and ev[-1]["round"] >= g.max_rounds


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 12), seed=st.integers(0, 10**6), styles=st.lists(st.sampled_from(["random", "heuristic"]), min_size=12, max_size=12),
       sheriff=st.booleans(), tie=st.sampled_from(["no_elimination", "revote", "random"]),
       vote=st.sampled_from(["plurality", "majority"]), abstain=st.booleans(), first=st.sampled_from(["night", "day"]))
def test_random_legal_play_keeps_the_rules(n, seed, styles, sheriff, tie, vote, abstain, first):
    g = MafiaGame([ScriptedSeat(s) for s in styles[:n]], seed=seed,
                  options={"extra_roles": ["sheriff"] if sheriff else [], "vote_tie": tie, "day_vote": vote,
                           "allow_abstain": abstain, "first_phase": first})
    g.play()
    check_invariants(g)


def _planned(make_responder, plan, **options):
    model = make_responder(plan)
    return MafiaGame([LlmSeat(model) for _ in NAMES], names=NAMES, seed=5,
                     options={"roles": [DEAL[n] for n in NAMES], "deal": DEAL, **options})


def test_village_votes_out_both_mafia(make_responder):
    def plan(step, me, q, msgs):
        if step == "mafia.kill":
            return {"target": "Drew"}
        if step in ("mafia.save", "mafia.check"):
            return {"target": "Casey" if step == "mafia.save" else "Alex"}
        if step == "mafia.vote":
            options = q.split("one of: ")[1].split(".")[0].split(", ")  # the living, minus me
            return {"vote": "Alex" if "Alex" in options else "Blair" if "Blair" in options else options[0]}
        return {"speech": "I think Alex."}

    g = _planned(make_responder, plan)
    result = g.play()
    assert (result["winner"], result["reason"]) == ("village", "every Mafia member is gone")
    elim = [e["player"] for e in g.log.events if e["kind"] == "elimination"]
    assert elim == ["Alex", "Blair"]
    assert [e["role"] for e in g.log.events if e["kind"] == "elimination"] == ["mafia", "mafia"]
    check = next(e for e in g.log.events if e["kind"] == "sheriff_check")
    assert check["result"] == "mafia" and check["to"] == ["Gray"]


def test_doctor_save_stops_the_kill(make_responder):
    def plan(step, me, q, msgs):
        if step in ("mafia.kill", "mafia.save"):
            return {"target": "Ellis"}
        if step == "mafia.check":
            return {"target": "Drew"}
        return {"vote": "Drew"} if step == "mafia.vote" and me != "Drew" else {"vote": "Finley"} if step == "mafia.vote" else {"speech": "hi"}

    g = _planned(make_responder, plan, max_rounds=1)
    g.play()
    night = next(e for e in g.log.events if e["kind"] == "night_result")
    assert night["killed"] is None


def test_tied_vote_eliminates_nobody_by_default(make_responder):
    def plan(step, me, q, msgs):
        if step == "mafia.vote":  # Finley dies at night; 3 vote Drew, 3 vote Casey
            return {"vote": "Drew" if me in ("Alex", "Blair", "Casey") else "Casey"}
        if step == "mafia.kill":
            return {"target": "Finley"}
        return {"target": "Casey"} if step in ("mafia.save", "mafia.check") else {"speech": "hmm"}

    g = _planned(make_responder, plan, max_rounds=1)
    g.play()
    vote = next(e for e in g.log.events if e["kind"] == "vote_result")
    assert vote["eliminated"] is None and vote["note"].startswith("tie")
    assert g.log.events[0]["rules"]["vote_tie"] == "no_elimination"


def test_revote_between_the_tied(make_responder):
    def plan(step, me, q, msgs):
        if step == "mafia.vote":
            if "revote" in q:
                return {"vote": "Drew" if me != "Drew" else "Casey"}
            return {"vote": "Drew" if me in ("Alex", "Blair", "Casey") else "Casey"}
        if step == "mafia.kill":
            return {"target": "Finley"}
        return {"target": "Casey"} if step in ("mafia.save", "mafia.check") else {"speech": "hmm"}

    g = _planned(make_responder, plan, max_rounds=1, vote_tie="revote")
    g.play()
    votes = [e for e in g.log.events if e["kind"] == "vote_result"]
    assert [v["attempt"] for v in votes] == [1, 2]
    assert votes[1]["eliminated"] == "Drew"


def test_mafia_split_picks_get_a_second_talk(make_responder):
    def plan(step, me, q, msgs):
        if step == "mafia.kill":
            if "Your partners picked differently" in q:
                return {"target": "Drew"}
            return {"target": "Drew" if me == "Alex" else "Ellis"}
        return {"target": "Casey"} if step in ("mafia.save", "mafia.check") else {"vote": "Alex"} if step == "mafia.vote" else {"speech": "x"}

    g = _planned(make_responder, plan, max_rounds=1)
    g.play()
    picks = [e for e in g.log.events if e["kind"] == "mafia_pick"]
    assert [p["attempt"] for p in picks] == [1, 1, 2, 2]
    kill = next(e for e in g.log.events if e["kind"] == "mafia_kill")
    assert kill["target"] == "Drew" and kill["agreed"]


def test_majority_rule_needs_more_than_half_of_the_living(make_responder):
    def plan(step, me, q, msgs):
        if step == "mafia.vote":  # Finley dies; 3 of 6 vote Drew: a plurality, not a majority
            return {"vote": "Drew" if me in ("Alex", "Blair", "Casey") else "Ellis" if me != "Ellis" else "Casey"}
        if step == "mafia.kill":
            return {"target": "Finley"}
        return {"target": "Casey"} if step in ("mafia.save", "mafia.check") else {"speech": "hmm"}

    g = _planned(make_responder, plan, max_rounds=1, day_vote="majority")
    g.play()
    vote = next(e for e in g.log.events if e["kind"] == "vote_result")
    assert vote["tally"]["Drew"] == 3 and vote["eliminated"] is None and vote["note"] == "no majority"


def test_a_bad_vote_rule_is_one_line():
    import pytest

    from rulesets import VgmError

    with pytest.raises(VgmError, match="vote_tie must be"):
        MafiaGame([ScriptedSeat() for _ in range(7)], options={"vote_tie": "coin"})


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), replies=st.lists(st.sampled_from([
    '{"target": "Alex"}', '{"target": "Ghost"}', '{"vote": null}', '{"vote": "Gray"}', '{"vote": "3"}', "garbage",
    '{"speech": "I suspect Drew."}', "{}", '{"target": "player 5"}']), min_size=1, max_size=9))
def test_garbage_from_a_model_never_breaks_the_rules(seed, replies):
    from itertools import cycle

    from pipelines.llm import ScriptedModel

    it = cycle(replies)
    model = ScriptedModel(responder=lambda step, msgs: next(it))
    g = MafiaGame([LlmSeat(model) for _ in range(7)], seed=seed, options={"extra_roles": ["sheriff"], "max_rounds": 4})
    g.play()
    check_invariants(g)
