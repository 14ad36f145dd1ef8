"""Scripted Avalon players: ``random`` (uniform over legal moves), ``heuristic`` and ``bluff``.

Both use only what their seat may know: its own role and night knowledge (``game.knowledge``)
and the public history (proposals, votes, mission results). They are baselines and the
engine's load for property tests and the speed benchmark, so they are plain and fast.
"""
from __future__ import annotations

from typing import Any

from gm.social.ask import Ask

# What scripted seats say, per game language; an accusation is "<wary><name><end>" (others read it back).
_WARY = {"en": ("I am wary of ", "."), "zh": ("我怀疑", "。")}
_SPEECH = {"en": ("I trust this team.", "I am not sure about this team.", "Let's see how the votes go."),
           "zh": ("我信任这支队伍。", "这支队伍我不太确定。", "先看看投票情况吧。")}
_NO_READ = {"en": "No strong read yet.", "zh": "暂时还没有明确的判断。"}
_CHOOSE = {"en": "Let us choose carefully.", "zh": "我们好好选。"}
_GUESS = {"en": "I have a guess about Merlin.", "zh": "我心里有一个梅林人选。"}


def _accused(text: str) -> str | None:
    """The name in a scripted accusation (any language), else None."""
    for wary, end in _WARY.values():
        if text.startswith(wary):
            return text[len(wary):].removesuffix(end)
    return None


def random_policy(seat: Any, ask: Ask) -> Any:
    g, rng, kind = seat.game, seat.rng, ask.kind
    if kind == "propose":
        return rng.sample(g.names, ask.size)
    if kind == "vote":
        return rng.random() < 0.5
    if kind == "mission":
        return rng.random() < 0.5
    if kind == "speak":
        call = ask.extra.get("may_call") and rng.random() < g.early_p
        return {"text": rng.choice(_SPEECH[g.lang]), "call_assassination": bool(call)}
    if kind == "evil_talk":
        return {"text": _CHOOSE[g.lang]}
    if kind == "assassinate":
        return rng.choice(ask.options)
    raise ValueError(f"no random move for {kind}")


def _public_suspicion(g: Any) -> dict[str, tuple[float, dict[str, int]]]:
    """Per player: fail-card share from failed missions, and who accused them publicly.

    Cached per log length, so many seats deciding on the same state scan the log once.
    """
    cache = g.__dict__.get("_sus_cache")
    n = len(g.log.events)
    if cache is not None and cache[0] == n:
        return cache[1]
    start, fails, accusers = (cache[0], *cache[2]) if cache else (0, {p: 0.0 for p in g.names}, {p: {} for p in g.names})
    for e in g.log.events[start:]:
        k = e["kind"]
        if k == "mission_result" and e["fails"]:
            share = e["fails"] / len(e["team"])
            for p in e["team"]:
                fails[p] += share
        elif k == "mission_result":  # a clean mission vouches (weakly: evil may pass) for its team
            for p in e["team"]:
                fails[p] -= 0.3
        elif k == "speech" and (named := _accused(e["text"])) is not None:
            if named in accusers:
                accusers[named][e["player"]] = accusers[named].get(e["player"], 0) + 1
    out = {p: (fails[p], accusers[p]) for p in g.names}
    g._sus_cache = (n, out, (fails, accusers))
    return out


def _suspicion(g: Any, me: str) -> dict[str, float]:
    """How suspect each player looks to ``me``: public evidence plus my own night knowledge."""
    score = {}
    for p, (fails, accusers) in _public_suspicion(g).items():
        # a public accusation is weak evidence (evil accuse too); my own don't count
        score[p] = fails + 0.6 * (sum(accusers.values()) - accusers.get(me, 0))
    if not g.is_evil(me):  # a failed mission I was on: the fail cards came from the others
        for e in g.log.events:
            if e["kind"] == "mission_result" and e["fails"] and me in e["team"]:
                extra = e["fails"] / (len(e["team"]) - 1) - e["fails"] / len(e["team"])
                for p in e["team"]:
                    score[p] += extra
    sign = -10.0 if g.is_evil(me) else 10.0  # Merlin distrusts the evil he saw; evil shield their partners
    for p in g.evil_known.get(me, ()):
        score[p] += sign
    score[me] = -1.0
    return score


def heuristic_policy(seat: Any, ask: Ask) -> Any:
    g, rng, kind, me = seat.game, seat.rng, ask.kind, seat.name
    evil = g.is_evil(me)
    if kind == "propose":
        if evil:
            others = [p for p in g.names if p != me and p not in g.evil_known.get(me, ())]
            return [me] + rng.sample(others, ask.size - 1)
        sus = _suspicion(g, me)
        order = sorted(g.names, key=lambda p: (sus[p], rng.random()))
        return order[: ask.size]
    if kind == "vote":
        team = g.team
        if evil:
            if g.rejections == g.table.max_rejections - 1:
                return False  # the fifth rejection wins for evil
            return any(g.is_evil(p) and (p == me or p in g.evil_known.get(me, ())) for p in team)
        if g.rejections == g.table.max_rejections - 1:
            return True
        sus = _suspicion(g, me)
        if any(sus[p] >= 10 for p in team):
            return False
        sus[me] = 0.0  # I trust myself, but a team without me can be just as clean
        # approve only a team as clean as the cleanest team I could name myself
        best = sum(sorted(sus.values())[: len(team)])
        return sum(sus[p] for p in team) <= best + 1e-9 or rng.random() < 0.1
    if kind == "mission":
        # only the first evil member (in seat order) fails, unless the mission needs more
        evil_on_team = [p for p in g.team if p == me or p in g.evil_known.get(me, ())]
        needed = g.table.fails_required[len(g.results)]
        return evil_on_team.index(me) >= needed
    if kind == "speak":
        call = bool(ask.extra.get("may_call") and g.early_p and rng.random() < g.early_p / 2)
        # accuse only on hard evidence (failed missions, night knowledge), never on others' words,
        # so accusations do not snowball; evil point at a random good-looking player
        hard = {p: fails for p, (fails, _) in _public_suspicion(g).items()}
        for p in g.evil_known.get(me, ()):
            hard[p] += -10.0 if evil else 10.0
        others = [p for p in g.names if p != me and hard[p] > -5]
        top = max(others, key=lambda p: (hard[p], rng.random())) if others else None
        if evil:
            top = rng.choice(others) if others else None
        elif top is None or hard[top] <= 0:
            return {"text": _NO_READ[g.lang], "call_assassination": call}
        wary, end = _WARY[g.lang]
        return {"text": f"{wary}{top}{end}", "call_assassination": call}
    if kind == "evil_talk":
        return {"text": _GUESS[g.lang]}
    if kind == "assassinate":
        # Merlin tends to reject teams that hold evil: count such rejections per player
        score = {p: 0 for p in ask.options}
        mine = {me, *g.evil_known.get(me, ())}
        for e in g.log.events:
            if e["kind"] == "vote_result" and mine.intersection(e["team"]):
                for p, v in e["votes"].items():
                    if p in score and not v:
                        score[p] += 1
        return max(ask.options, key=lambda p: (score[p], rng.random()))
    raise ValueError(f"no heuristic move for {kind}")


def bluff_policy(seat: Any, ask: Ask) -> Any:
    """``heuristic``, except that evil lies low: it passes the first mission and accuses a good player it does not know.

    A second scripted strategy for the evil side (the heuristic evil fail every mission they are on).
    """
    g, me = seat.game, seat.name
    if g.is_evil(me) and ask.kind == "mission" and not g.results:
        return True
    if g.is_evil(me) and ask.kind == "speak":
        mine = {me, *g.evil_known.get(me, ())}
        others = [p for p in g.names if p not in mine]
        if others:
            wary, end = _WARY[g.lang]
            return {"text": f"{wary}{seat.rng.choice(others)}{end}", "call_assassination": False}
    return heuristic_policy(seat, ask)


POLICIES = {"random": random_policy, "heuristic": heuristic_policy, "bluff": bluff_policy}
