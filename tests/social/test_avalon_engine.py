"""Avalon: random legal play keeps every rule; planned games end the way the plan says."""
from collections import Counter

from hypothesis import given, settings, strategies as st

from gm.avalon import AvalonGame
from gm.social import LlmSeat, ScriptedSeat

NAMES6 = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley"]
DEAL6 = {"Alex": "merlin", "Blair": "percival", "Casey": "loyal_servant", "Drew": "loyal_servant",
         "Ellis": "morgana", "Finley": "assassin"}


def check_invariants(g: AvalonGame) -> None:
    ev = g.log.events
    t = g.table
    assert ev[0]["kind"] == "setup" and ev[0]["to"] == []
    assert ev[-1]["kind"] == "game_over" and ev[-1]["winner"] in (t.good, t.evil)
    assert sum(e["kind"] == "game_over" for e in ev) == 1
    keys = [(e["round"], e["public_msg_seq"]) for e in ev if not e.get("private")]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), "public keys are unique and increasing"
    leader = None
    rejections = 0
    results = []
    for e in ev:
        k = e["kind"]
        if k == "proposal":
            size = t.team_sizes[len(results)]
            assert len(e["team"]) == size == len(set(e["team"]))
            i = g.names.index(e["player"])
            if leader is not None:
                assert i == (leader + 1) % g.n, "the leader moves one seat per proposal"
            leader = i
            assert e["rejections"] == rejections
        elif k == "vote_result":
            assert len(e["votes"]) == g.n
            assert e["approved"] == (sum(e["votes"].values()) * 2 > g.n)
            rejections = 0 if e["approved"] else rejections + 1
            assert e["rejections"] == rejections <= t.max_rejections
        elif k == "mission_card":
            assert e["private"] and e["to"] == [e["player"]]
            if not g.is_evil(e["player"]):
                assert e["success"] is True, "good must play success"
        elif k == "mission_result":
            assert e["success"] == (e["fails"] < t.fails_required[e["mission"] - 1])
            results.append(e["success"])
            assert sum(results) <= t.missions_to_win and len(results) - sum(results) <= t.missions_to_win
    winner, reason = ev[-1]["winner"], ev[-1]["reason"]
    if rejections == t.max_rejections:
        assert winner == t.evil
    if len(results) - sum(results) == t.missions_to_win:
        assert winner == t.evil and "failed" in reason
    kn = [e for e in ev if e["kind"] == "assassination"]
    if kn:
        assert len(kn) == 1
        assert (winner == t.evil) == (g.roles[kn[0]["target"]] == "merlin")
        assert kn[0]["early"] or sum(results) == t.missions_to_win


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 10), seed=st.integers(0, 10**6), styles=st.lists(st.sampled_from(["random", "heuristic"]), min_size=10, max_size=10),
       discussion=st.booleans(), early=st.booleans())
def test_random_legal_play_keeps_the_rules(n, seed, styles, discussion, early):
    g = AvalonGame([ScriptedSeat(s) for s in styles[:n]], seed=seed,
                   options={"discussion": discussion, "early_assassination": early, "early_p": 0.05})
    result = g.play()
    check_invariants(g)
    assert result["winner"] == g.log.events[-1]["winner"]
    if not early:
        assert not any(e["kind"] == "early_assassination" for e in g.log.events)


def test_fourth_mission_needs_two_fails_at_seven():
    g = AvalonGame([ScriptedSeat() for _ in range(7)], seed=1)
    assert g.table.fails_required[3] == 2 and g.table.team_sizes == (2, 3, 3, 4, 4)
    assert AvalonGame([ScriptedSeat() for _ in range(6)], seed=1).table.fails_required == (1, 1, 1, 1, 1)


def _planned(make_responder, plan, speeches=1):
    model = make_responder(plan)
    seats = [LlmSeat(model) for _ in NAMES6]
    return AvalonGame(seats, names=NAMES6, seed=3, options={"deal": DEAL6, "first_leader": "Alex", "speeches": speeches})


def test_evil_on_every_team_fails_three_missions(make_responder):
    def plan(step, me, q, msgs):
        if step == "avalon.propose":
            size = int(q.split("exactly ")[1].split()[0])
            return {"thought": "", "team": ["Ellis"] + [n for n in NAMES6 if n != "Ellis"][: size - 1]}
        if step == "avalon.vote":
            return {"approve": True}
        if step == "avalon.mission":
            return {"success": False}
        return {"speech": "ok"}

    g = _planned(make_responder, plan)
    result = g.play()
    assert (result["winner"], result["reason"]) == ("evil", "3 missions failed")
    assert result["missions"] == [False, False, False]


def test_assassin_finds_merlin_after_three_successes(make_responder):
    def plan(step, me, q, msgs):
        if step == "avalon.propose":
            size = int(q.split("exactly ")[1].split()[0])
            return {"team": ["Alex", "Blair", "Casey", "Drew"][:size]}
        if step == "avalon.vote":
            return {"approve": True}
        if step == "avalon.assassinate":
            return {"target": "Alex"}
        return {"speech": "fine"}

    result = _planned(make_responder, plan).play()
    assert (result["winner"], result["reason"]) == ("evil", "Merlin assassinated")
    assert result["missions"] == [True, True, True]


def test_five_rejections_give_evil_the_game(make_responder):
    result = _planned(make_responder, lambda s, me, q, m: {"team": ["Alex", "Blair", "Casey", "Drew"][: int(q.split("exactly ")[1].split()[0])]}
                      if s == "avalon.propose" else {"approve": False} if s == "avalon.vote" else {"speech": ""}).play()
    assert (result["winner"], result["reason"]) == ("evil", "5 team proposals in a row rejected")


def test_early_assassination_that_misses_hands_good_the_win(make_responder):
    def plan(step, me, q, msgs):
        if step == "avalon.speak":
            return {"speech": "Enough.", "call_assassination": me == "Finley"}
        if step == "avalon.propose":
            return {"team": ["Alex", "Blair"]}
        if step == "avalon.assassinate":
            return {"target": "Blair"}
        return {"approve": True} if step == "avalon.vote" else {"speech": "hm"}

    g = _planned(make_responder, plan, speeches=None)
    result = g.play()
    assert (result["winner"], result["reason"], result["early"]) == ("good", "early assassination missed Merlin", True)
    kinds = [e["kind"] for e in g.log.events]
    assert kinds.index("early_assassination") < kinds.index("assassination")


def test_a_good_player_cannot_call_the_knife(make_responder):
    def plan(step, me, q, msgs):
        if step == "avalon.speak":
            return {"speech": "knife!", "call_assassination": True}  # every seat tries; only evil may
        if step == "avalon.propose":
            return {"team": ["Alex", "Blair", "Casey", "Drew"][: int(q.split("exactly ")[1].split()[0])]}
        if step == "avalon.assassinate":
            return {"target": "Casey"}
        return {"approve": True}

    g = _planned(make_responder, plan, speeches=None)
    g.play()
    calls = [e for e in g.log.events if e["kind"] == "early_assassination"]
    assert calls and all(g.is_evil(e["player"]) for e in calls)
    illegal = [e for e in g.log.events if e["kind"] == "illegal_move"]
    assert illegal and all(e["to"] == [] and not g.is_evil(e["player"]) for e in illegal)


def test_win_rates_are_stable_for_scripted_seats():
    wins = Counter(AvalonGame([ScriptedSeat("random") for _ in range(6)], seed=s).play()["winner"] for s in range(200))
    assert wins["evil"] > 0 and wins["good"] > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), replies=st.lists(st.sampled_from([
    '{"team": ["Alex", "Blair"]}', '{"team": ["Alex", "Alex", "Zed"]}', '{"team": ["1", "2", "3"]}', "not json at all",
    '{"approve": "maybe"}', '{"approve": false}', '{"success": false}', '{"speech": "x", "call_assassination": true}',
    '{"target": "Nobody"}', '{"target": "Casey"}', '```json\n{"team": ["Drew", "Ellis", "Finley", "Alex"]}\n```', "{}"]),
    min_size=1, max_size=12))
def test_garbage_from_a_model_never_breaks_the_rules(seed, replies):
    from itertools import cycle

    from pipelines.llm import ScriptedModel

    it = cycle(replies)
    model = ScriptedModel(responder=lambda step, msgs: next(it))
    g = AvalonGame([LlmSeat(model) for _ in range(6)], seed=seed, options={"speeches": 2})
    g.play()
    check_invariants(g)
    for e in g.log.events:
        if e["kind"] == "illegal_move":
            assert e["to"] == [] and e["reason"]
