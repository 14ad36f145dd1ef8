"""No leaks: a seat's prompt holds its own role and knowledge and the public log, nothing else.

Every model call is recorded. Each seat's hidden ``thought`` carries a unique marker; no marker
may ever reach any prompt (not even the same seat's later prompts), and no private event may
reach a seat it was not addressed to.
"""
import itertools

from gm.avalon import AvalonGame
from gm.mafia import MafiaGame
from gm.social import LlmSeat, view_for



def _thinking_model(responder_model, legal_move):
    counter = itertools.count()

    def plan(step, me, q, msgs):
        out = legal_move(step, me, q)
        out["thought"] = f"SECRET-{me}-{next(counter)}"
        return out

    return responder_model(plan)


def _options(q):
    return q.split("one of: ")[1].split(".")[0].split(", ")


def _assert_no_leak(game, model, seat_name):
    assert model.requests, "the game made model calls"
    private = [e for e in game.log.events if e.get("private")]
    for req in model.requests:
        me = seat_name(req["messages"])
        text = "\n".join(m["content"] for m in req["messages"])
        assert "SECRET-" not in text, f"hidden reasoning reached {me}'s prompt"
        for e in private:
            if me in e["to"] or not e["to"]:
                continue
            line = game.render(e, e["to"][0])
            assert line is None or line not in text, f"{e['kind']} meant for {e['to']} reached {me}"
    reasoning = [e for e in game.log.events if e["kind"] == "reasoning"]
    assert reasoning and all(e["to"] == [] for e in reasoning), "reasoning is logged for the moderator only"
    for name in game.names:
        assert all(not e.get("private") or name in e["to"] for e in view_for(game.log.events, name))


def test_mafia_prompts_hold_no_one_elses_secrets(make_responder, seat_of):
    seat_name = seat_of
    def move(step, me, q):
        if step == "mafia.speak":
            return {"speech": f"I am {me}."}
        if step == "mafia.vote":
            return {"vote": _options(q)[0]}
        return {"target": _options(q)[-1]}

    model = _thinking_model(make_responder, move)
    g = MafiaGame([LlmSeat(model) for _ in range(7)], seed=11, options={"extra_roles": ["sheriff"]})
    g.play()
    _assert_no_leak(g, model, seat_name)
    for req in model.requests:
        me = seat_name(req["messages"])
        text = "\n".join(m["content"] for m in req["messages"])
        role = g.roles[me]
        if role != "mafia":
            assert "(Mafia only)" not in text and "Mafia partners" not in text
        if role != "doctor":
            assert "You protected" not in text
        if role != "sheriff":
            assert "Your investigation" not in text


def test_avalon_prompts_hold_no_one_elses_secrets(make_responder, seat_of):
    seat_name = seat_of
    def move(step, me, q):
        if step == "avalon.propose":
            size = int(q.split("exactly ")[1].split()[0])
            return {"team": _options(q.replace("from: ", "one of: "))[:size]}
        if step == "avalon.vote":
            return {"approve": True}
        if step == "avalon.mission":
            return {"success": False}
        if step == "avalon.assassinate":
            return {"target": _options(q)[0]}
        return {"speech": f"{me} speaks."}

    model = _thinking_model(make_responder, move)
    g = AvalonGame([LlmSeat(model) for _ in range(7)], seed=4, options={"speeches": 2})
    g.play()
    _assert_no_leak(g, model, seat_name)
    for req in model.requests:
        me = seat_name(req["messages"])
        text = req["messages"][0]["content"] + req["messages"][1]["content"]
        if g.roles[me] in ("loyal_servant",):
            assert "At night you learned nothing" in text
            assert "evil players:" not in text and "teammates" not in text
        if not g.is_evil(me):
            assert "You played Fail" not in text
