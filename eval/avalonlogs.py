"""Recorded human Avalon games (avalonlogs format) replayed through the GM's Avalon engine.

Each game is played again by ``AvalonGame`` with seats that answer from the record: the
recorded proposer must be the engine's leader, the team must be legal, the votes must give
the recorded verdict, the mission cards the recorded result, and the game must end the way the
record says. The first step where record and engine part ways is reported.

Site rules this replay follows (they are the avalonlogs site's and our pack's): a 3-3 tie
rejects, the rejection counter is per mission, the leader moves one seat per proposal in the
``players`` order, no early assassination. Tolerated by default, as the site allows it: an
Assassin naming a teammate (a wasted knife: a miss); ``strict=True`` rejects it.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import rulesets
from gm.avalon import AvalonGame
from gm.social.ask import Ask
from gm.social.events import LogFormatError, iter_json_lines
from gm.social.seats import Seat

RULES_NOTE = ("Rules checked: team sizes and fail cards from the avalon pack; strict majority (a tie rejects); "
              "5 rejections in one mission end the game for evil; good must play Success; first to 3 missions; "
              "assassination after 3 successes only (these sites have no early assassination); leader moves one "
              "seat per proposal. Tolerated (real sites allow it): the Assassin naming a teammate counts as a miss.")

_WINNER = {"GOOD_WIN": "good", "EVIL_WIN": "evil"}


class Illegal(Exception):
    """The record's next step is not legal here, or does not match what the engine did."""

    def __init__(self, step: str, problem: str) -> None:
        super().__init__(f"{step}: {problem}")
        self.step, self.problem = step, problem


def read_records(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line number, game)`` for each JSON line; a broken line is one error naming it."""
    return iter_json_lines(path, "one game object")


def _shape_problem(rec: Any) -> str | None:
    if not isinstance(rec, dict):
        return "a game must be a JSON object"
    for key, kind in (("players", list), ("missions", list), ("outcome", dict)):
        if not isinstance(rec.get(key), kind):
            return f"key '{key}' is missing or not a {kind.__name__}"
    if not all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in rec["players"]):
        return "every players[i] needs a 'name'"
    out = rec["outcome"]
    if out.get("state") not in _WINNER:
        return "outcome.state must be GOOD_WIN or EVIL_WIN"
    if not isinstance(out.get("roles"), list) or not all(isinstance(r, dict) and "name" in r and "role" in r for r in out["roles"]):
        return "outcome.roles must list {name, role, assassin}"
    for i, m in enumerate(rec["missions"]):
        if not isinstance(m, dict) or not isinstance(m.get("proposals"), list) or "state" not in m:
            return f"missions[{i}] needs 'state' and 'proposals'"
        for j, p in enumerate(m["proposals"]):
            if not isinstance(p, dict) or not {"proposer", "team", "votes", "state"} <= p.keys():
                return f"missions[{i}].proposals[{j}] needs proposer, team, votes and state"
    return None


def game_name(rec: dict[str, Any], lineno: int) -> str:
    src = rec.get("_source_path") if isinstance(rec, dict) else None
    return str(src).rsplit("/", 1)[-1] if src else f"line {lineno}"


class _Record:
    """The recorded moves, consumed in the order the engine asks for them."""

    def __init__(self, rec: dict[str, Any], strict: bool) -> None:
        self.rec = rec
        self.strict = strict
        self.proposals = [(mi, pi, p) for mi, m in enumerate(rec["missions"]) for pi, p in enumerate(m["proposals"])]
        self.cursor = -1  # index of the proposal being played
        self.tolerated: list[str] = []
        self.cards = rec["outcome"].get("votes") or []

    @property
    def current(self) -> tuple[int, int, dict[str, Any]]:
        return self.proposals[self.cursor]

    def where(self, what: str) -> str:
        if 0 <= self.cursor < len(self.proposals):
            mi, pi, _ = self.current
            return f"mission {mi + 1}, proposal {pi + 1} ({what})"
        return what


class _ReplaySeat(Seat):
    kind = "replay"

    def __init__(self, record: _Record) -> None:
        super().__init__()
        self.record = record

    async def act(self, ask: Ask) -> Any:
        r, g = self.record, self.game
        if ask.kind == "propose":
            r.cursor += 1
            if r.cursor >= len(r.proposals):
                raise Illegal(f"mission {g.mission}", "the engine expects another proposal but the record has none")
            mi, pi, prop = r.current
            if mi + 1 != g.mission:
                raise Illegal(r.where("proposal"), f"recorded for mission {mi + 1} but the engine is on mission {g.mission}")
            if prop["proposer"] != self.name:
                raise Illegal(r.where("proposal"), f"proposer {prop['proposer']} is out of turn; the leader is {self.name}")
            value = list(prop["team"])
        elif ask.kind == "vote":
            value = self.name in r.current[2]["votes"]
        elif ask.kind == "mission":
            mi = r.current[0]
            if mi >= len(r.cards) or self.name not in r.cards[mi]:
                raise Illegal(r.where("mission cards"), f"no recorded card for {self.name}")
            value = bool(r.cards[mi][self.name])
        elif ask.kind == "assassinate":
            value = r.rec["outcome"].get("assassinated")
            if value is None:
                raise Illegal("assassination", "good won three missions but the record has no assassination")
            if value in g.names and g.is_evil(value):
                if r.strict:
                    raise Illegal("assassination", f"the Assassin named a teammate, {value} ({g.roles[value]})")
                r.tolerated.append(f"the Assassin named a teammate, {value} ({g.roles[value]}); counted as a miss")
        else:
            raise Illegal(r.where(ask.kind), f"the record has no '{ask.kind}' step")
        problem = ask.error(value)
        if problem:
            raise Illegal(r.where(ask.kind), problem)
        return value


def _listener(record: _Record):
    def on_event(e: dict[str, Any], game: AvalonGame) -> None:
        k = e["kind"]
        if k == "vote_result":
            mi, pi, prop = record.current
            want = prop["state"] == "APPROVED"
            if e["approved"] != want:
                raise Illegal(record.where("vote"), f"{e['approvals']} of {game.n} approved, so the team is "
                              f"{'approved' if e['approved'] else 'rejected'}, but the record says {prop['state']}")
        elif k == "mission_card" and e.get("forced"):
            mi = record.current[0]
            card = record.cards[mi].get(e["player"]) if mi < len(record.cards) else None
            if card is False:
                raise Illegal(record.where("mission cards"), f"good player {e['player']} played Fail")
        elif k == "mission_result":
            mi, _, prop = record.current
            m = record.rec["missions"][mi]
            cards = record.cards[mi] if mi < len(record.cards) else {}
            if sorted(cards) != sorted(e["team"]):
                raise Illegal(record.where("mission cards"), "the recorded card holders are not the approved team")
            state = "SUCCESS" if e["success"] else "FAIL"
            if m["state"] != state:
                raise Illegal(record.where("mission result"), f"{e['fails']} fail card(s) make it {state}, but the record says {m['state']}")
            if "numFails" in m and m["numFails"] != e["fails"]:
                raise Illegal(record.where("mission result"), f"numFails {m['numFails']} but the cards hold {e['fails']} fails")
            if m.get("team") and sorted(m["team"]) != sorted(e["team"]):
                raise Illegal(record.where("mission result"), "the mission team differs from the approved proposal")
    return on_event


def replay(rec: dict[str, Any], *, strict: bool = False) -> dict[str, Any]:
    """Replay one recorded game; returns ``{ok, step, problem, tolerated, winner}``."""
    rs = rulesets.load("avalon")
    names = [p["name"] for p in rec["players"]]
    roles_by_name = {r["name"]: r for r in rec["outcome"]["roles"]}
    try:
        if sorted(roles_by_name) != sorted(names):
            raise Illegal("setup", "outcome.roles does not name the same players as players")
        deal = {}
        for n in names:
            r = roles_by_name[n]
            deal[n] = rs.resolve_role(r["role"])
        assassins = [n for n in names if roles_by_name[n].get("assassin")]
        if len(assassins) > 1:
            raise Illegal("setup", f"{len(assassins)} players carry the assassin flag")
        if assassins:  # whoever carries the knife plays the pack's Assassin (same night knowledge at these tables)
            deal[assassins[0]] = rs.rules.get("assassin_role", "assassin")
        if len(names) not in rs.setups:
            raise Illegal("setup", f"{len(names)} players; the pack has setups for {sorted(rs.setups)}")
        table_sizes = list(rs.setups[len(names)].team_sizes)
        for i, m in enumerate(rec["missions"]):
            if "teamSize" in m and i < len(table_sizes) and m["teamSize"] != table_sizes[i]:
                raise Illegal(f"mission {i + 1}", f"teamSize {m['teamSize']} but the pack says {table_sizes[i]}")
        first = rec["missions"][0]["proposals"][0]["proposer"] if rec["missions"] and rec["missions"][0]["proposals"] else names[0]
        record = _Record(rec, strict)
        options = {"deal": deal, "roles": [deal[n] for n in names], "first_leader": first, "discussion": False,
                   "early_assassination": False, "assassin_may_target_evil": True}
        game = AvalonGame([_ReplaySeat(record) for _ in names], names=names, seed=0, options=options)
        game.add_listener(_listener(record))
        result = game.play()
        if record.cursor != len(record.proposals) - 1:
            mi, pi, _ = record.proposals[record.cursor + 1]
            raise Illegal(f"mission {mi + 1}, proposal {pi + 1}", f"the record goes on after the game ended ({result['reason']})")
        out = rec["outcome"]
        if _WINNER[out["state"]] != result["winner"]:
            raise Illegal("outcome", f"the engine ends '{result['winner']} wins ({result['reason']})' but the record says {out['state']}")
        if out.get("assassinated") is not None and not any(e["kind"] == "assassination" for e in game.log.events):
            raise Illegal("outcome", "the record has an assassination the engine never reached")
        return {"ok": True, "step": "", "problem": "", "tolerated": record.tolerated, "winner": result["winner"]}
    except Illegal as exc:
        return {"ok": False, "step": exc.step, "problem": exc.problem, "tolerated": [], "winner": None}
    except rulesets.VgmError as exc:
        return {"ok": False, "step": "setup", "problem": str(exc), "tolerated": [], "winner": None}


def check_file(path: str | Path, *, strict: bool = False) -> dict[str, Any]:
    """Replay every game in an avalonlogs file: counts, each rejected game's first illegal step, tolerances."""
    games = accepted = 0
    rejected: list[dict[str, str]] = []
    tolerated: list[dict[str, str]] = []
    for lineno, rec in read_records(path):
        problem = _shape_problem(rec)
        name = game_name(rec, lineno)
        if problem:
            raise LogFormatError(f"{path}:{lineno} ({name}): {problem}; see the avalonlogs FORMAT.md")
        games += 1
        res = replay(rec, strict=strict)
        if res["ok"]:
            accepted += 1
            tolerated.extend({"game": name, "note": t} for t in res["tolerated"])
        else:
            rejected.append({"game": name, "line": lineno, "step": res["step"], "problem": res["problem"]})
    if games == 0:
        raise LogFormatError(f"{path}: no games in the file; give avalonlogs JSON Lines, one game object per line")
    return {"file": str(path), "games": games, "accepted": accepted, "rejected": rejected, "tolerated": tolerated,
            "strict": strict, "rules_note": RULES_NOTE}


def to_avalonlogs(events: list[dict[str, Any]]) -> dict[str, Any]:
    """One of our Avalon logs in the avalonlogs shape (to compare with, or feed to, other tools).

    Role ids go out as the pack's display names in upper case; an early assassination has no
    avalonlogs form, so such a game keeps ``outcome.message`` = ``Merlin assassinated (early)``.
    """
    rs = rulesets.load("avalon")
    setup = next(e for e in events if e["kind"] == "setup")
    over = next(e for e in events if e["kind"] == "game_over")
    names = [p["name"] for p in setup["players"]]
    missions: list[dict[str, Any]] = [{"teamSize": s, "failsRequired": f, "state": "PENDING", "team": [], "proposals": []}
                                      for s, f in zip(setup["team_sizes"], setup["fails_required"])]
    cards: list[dict[str, bool]] = []
    for e in events:
        k = e["kind"]
        if k == "proposal":
            missions[e["mission"] - 1]["proposals"].append({"proposer": e["player"], "team": list(e["team"]), "votes": [], "state": "REJECTED"})
        elif k == "vote_result":
            prop = missions[e["mission"] - 1]["proposals"][-1]
            prop["votes"] = [p for p, v in e["votes"].items() if v]
            prop["state"] = "APPROVED" if e["approved"] else "REJECTED"
        elif k == "mission_card":
            if len(cards) < e["mission"]:
                cards.append({})
            cards[e["mission"] - 1][e["player"]] = bool(e["success"])
        elif k == "mission_result":
            m = missions[e["mission"] - 1]
            m.update(state="SUCCESS" if e["success"] else "FAIL", team=list(e["team"]), numFails=e["fails"])
    assassination = next((e for e in events if e["kind"] == "assassination"), None)
    reason = over["reason"]
    if assassination and assassination["hit"]:
        message = "Merlin assassinated" + (" (early)" if assassination["early"] else "")
    elif assassination:
        message = "Three successful missions"
    elif "rejected" in reason:
        message = "Five team proposals in a row rejected"
    elif "failed" in reason:
        message = "Three failed missions"
    else:
        message = "Three missions succeeded"
    assassin_role = rs.rules.get("assassin_role", "assassin")
    return {
        "players": [{"name": n} for n in names],
        "missions": missions,
        "outcome": {
            "state": "GOOD_WIN" if over["winner"] == "good" else "EVIL_WIN",
            "message": message,
            "assassinated": assassination["target"] if assassination else None,
            "roles": [{"name": p["name"], "role": rs.roles[p["role"]].name.upper(), "assassin": p["role"] == assassin_role}
                      for p in setup["players"]],
            "votes": cards,
        },
        "_source_path": over.get("game_id", ""),
    }
