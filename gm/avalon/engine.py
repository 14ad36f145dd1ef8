"""The Avalon moderator (InMind appendix A; mission sizes and roles from the ``avalon`` pack).

One ``step()`` is one of: a leader's proposal, one speech, the public vote, one mission, an
evil player's word before the knife, the assassination. Rules that real tables vary are
options: discussion on/off and its length, early assassination, whether the Assassin may
name a teammate (a wasted knife; some sites allow it).
"""
from __future__ import annotations

from typing import Any

from gm.social.ask import Ask, one_of
from gm.social.speech import cap_speech
from gm.social.game import SocialGame
from rulesets import VgmError

from . import prompts
from .policies import POLICIES
from .table import AvalonTable, avalon_table

PHASES = ("setup", "propose", "discuss", "vote", "mission", "evil_talk", "assassinate", "over")


class AvalonGame(SocialGame):
    """An Avalon game for 5-10 seats.

    Options: ``roles`` (line-up override), ``discussion`` (default True), ``speeches`` (cap on
    speeches per proposal), ``early_assassination`` (default: the pack's rule),
    ``assassin_may_target_evil`` (default: the pack's ``evil_target_is_a_miss``), ``evil_talk`` (evil speak before the knife,
    default True), ``early_p`` (chance a random-legal evil seat calls the knife early),
    ``deal`` (name → role id, instead of a shuffled deal) and ``first_leader`` (a name).
    """

    engine = "avalon"
    prompts = prompts
    STATE_FIELDS = ("leader", "attempt", "rejections", "results", "team", "queue", "early", "evil_known")

    def _configure(self) -> None:
        o = self.options
        roles = tuple(o["roles"]) if o.get("roles") else None
        self.table: AvalonTable = avalon_table(self.n, roles, o.get("pack", "avalon"))
        self.discussion = bool(o.get("discussion", True))
        self.speeches = o.get("speeches")
        if self.speeches is not None and (isinstance(self.speeches, bool) or not isinstance(self.speeches, int) or self.speeches < 1):
            raise VgmError(f"--speeches {self.speeches}: give 1 or more speeches per proposal (or leave it out for all)")
        early = o.get("early_assassination")
        self.allow_early = self.table.early_assassination if early is None else bool(early)
        pack_may = self.table.rules.get("evil_target_is_a_miss", False)
        self.may_target_evil = bool(o.get("assassin_may_target_evil", pack_may))
        self.merlin = self.table.rules.get("assassination_target", "merlin")
        self.assassination = bool(self.table.rules.get("assassination", True))
        self.evil_talk = bool(o.get("evil_talk", True)) and self.discussion
        self.early_p = float(o.get("early_p", 0.02))
        self.leader = 0
        self.attempt = 0
        self.rejections = 0
        self.results: list[bool] = []
        self.team: list[str] = []
        self.queue: list[str] = []
        self.early = False
        self.evil_known: dict[str, list[str]] = {}
        self._steps = {p: getattr(self, "_" + p) for p in PHASES if p not in ("setup", "over")}

    def _deal(self) -> None:
        deal = self.options.get("deal")
        if deal:  # a fixed seating (replaying a recorded game)
            self.roles = {p: deal[p] for p in self.names}
        else:
            lineup = list(self.table.lineup)
            self.rng.shuffle(lineup)
            self.roles = dict(zip(self.names, lineup))
        first = self.options.get("first_leader")
        self.leader = self.names.index(first) if first else self.rng.randrange(self.n)

    # ---- knowledge ------------------------------------------------------------------
    def knowledge(self, name: str) -> list[str]:
        """Seats this seat learned about at night (the label is ``table.sees_as[role]``)."""
        seen = self.table.sees.get(self.roles[name], ())
        return [p for p in self.names if p != name and self.roles[p] in seen]

    def team_of(self, name: str) -> str:
        return self.table.team[self.roles[name]]

    def is_evil(self, name: str) -> bool:
        return self.table.team[self.roles[name]] == self.table.evil

    @property
    def mission(self) -> int:
        return len(self.results) + 1

    @property
    def team_size(self) -> int:
        return self.table.team_sizes[len(self.results)]

    @property
    def assassin(self) -> str:
        return next(p for p in self.names if self.roles[p] == self.table.assassin_role)

    def policy(self, style: str):
        return POLICIES[style]

    # ---- the game -----------------------------------------------------------------------
    async def _setup(self) -> None:
        t = self.table
        await self.emit("setup", to=[], engine="avalon", seed=self.seed,
                        players=[{"name": p, "seat": i + 1, "role": self.roles[p], "team": self.team_of(p),
                                  **self.seats[p].spec(), **self.persona_fields(p)} for i, p in enumerate(self.names)],
                        lineup=list(t.lineup), team_sizes=list(t.team_sizes), fails_required=list(t.fails_required),
                        rules={"max_rejections": t.max_rejections, "missions_to_win": t.missions_to_win,
                               "early_assassination": self.allow_early, "assassin_may_target_evil": self.may_target_evil})
        for p in self.names:  # before the first public event, so no seat is ever asked (or probed) without it
            seen = self.knowledge(p)
            self.evil_known[p] = [q for q in seen if self.is_evil(q)] if self.is_evil(p) or t.sees_as.get(self.roles[p]) == "evil" else []
            await self.emit("night_knowledge", to=[p], player=p, role=self.roles[p], sees=seen,
                            sees_as=t.sees_as.get(self.roles[p], ""))
        await self.emit("start", players=list(self.names), lineup=sorted(t.lineup), team_sizes=list(t.team_sizes),
                        fails_required=list(t.fails_required), first_leader=self.names[self.leader])
        self.next_round()
        self.phase = "propose"

    async def step(self) -> None:
        await self._steps[self.phase]()

    async def _propose(self) -> None:
        leader = self.names[self.leader]
        size = self.team_size
        names = self.names

        def check(team: Any) -> str | None:
            if not isinstance(team, list) or len(team) != size:
                return f"mission {self.mission} needs a team of exactly {size} players"
            if len(set(team)) != size:
                return "a player appears twice in the team"
            bad = [p for p in team if p not in names]
            return f"unknown player(s) {', '.join(map(str, bad))}; choose from {', '.join(names)}" if bad else None

        ask = Ask("propose", names, size=size, check=check, fallback=lambda rng: rng.sample(names, size),
                  question=lambda: prompts.propose_question(self, leader))
        team = await self.decide(leader, ask)
        self.attempt += 1
        self.team = list(team)
        await self.emit("proposal", player=leader, team=self.team, mission=self.mission, attempt=self.attempt,
                        size=size, rejections=self.rejections)
        self.leader = (self.leader + 1) % self.n
        if self.discussion:
            start = names.index(leader)
            order = names[start:] + names[:start]
            self.queue = order[: self.speeches] if self.speeches else order
            self.phase = "discuss"
        else:
            self.phase = "vote"

    async def _discuss(self) -> None:
        speaker = self.queue.pop(0)
        may_call = self.allow_early and self.assassination and self.merlin in self.table.lineup and self.is_evil(speaker)
        ask = Ask("speak", None, check=_may_knife if may_call else _no_knife, fallback=_silence,
                  question=lambda: prompts.speak_question(self, speaker, may_call), extra={"may_call": may_call})
        said = await self.decide(speaker, ask)
        mission = len(self.results) + 1
        await self.emit("speech", player=speaker, text=cap_speech(said.get("text", "")) if isinstance(said, dict) else "", mission=mission, attempt=self.attempt)
        if may_call and said.get("call_assassination"):
            await self.emit("early_assassination", player=speaker, mission=mission)
            self.early = True
            self._start_assassination()
        elif not self.queue:
            self.phase = "vote"

    async def _vote(self) -> None:
        team = self.team
        asks = {p: Ask("vote", check=_is_bool, fallback=_coin, question=lambda p=p: prompts.vote_question(self, p, team))
                for p in self.names}
        votes = await self.decide_all(asks)
        approvals = sum(1 for v in votes.values() if v)
        approved = approvals * 2 > self.n
        if approved:
            self.rejections = 0
        else:
            self.rejections += 1
        await self.emit("vote_result", votes=votes, approvals=approvals, approved=approved, team=list(team),
                        mission=self.mission, attempt=self.attempt, rejections=self.rejections)
        if approved:
            self.phase = "mission"
        elif self.rejections >= self.table.max_rejections:
            await self.finish(self.table.evil, f"{self.table.max_rejections} team proposals in a row rejected")
        else:
            self.phase = "propose"

    async def _mission(self) -> None:
        evil_members = [p for p in self.team if self.is_evil(p)]
        asks = {p: Ask("mission", check=_is_bool, fallback=lambda rng: True,
                       question=lambda p=p: prompts.mission_question(self, p)) for p in evil_members}
        cards = await self.decide_all(asks) if asks else {}
        for p in self.team:
            forced = p not in cards
            await self.emit("mission_card", to=[p], player=p, success=True if forced else bool(cards[p]),
                            forced=forced, mission=self.mission)
        fails = sum(1 for v in cards.values() if not v)
        needed = self.table.fails_required[len(self.results)]
        success = fails < needed
        mission = self.mission
        self.results.append(success)
        await self.emit("mission_result", mission=mission, team=list(self.team), fails=fails, fails_required=needed,
                        success=success, successes=sum(self.results), failures=len(self.results) - sum(self.results))
        self.attempt = 0
        self.team = []
        win = self.table.missions_to_win
        if len(self.results) - sum(self.results) >= win:
            await self.finish(self.table.evil, f"{win} missions failed")
        elif sum(self.results) >= win and (not self.assassination or self.merlin not in self.table.lineup):
            await self.finish(self.table.good, f"{win} missions succeeded")
        elif sum(self.results) >= win:
            self._start_assassination()
        else:
            self.next_round()
            self.phase = "propose"

    def _start_assassination(self) -> None:
        evil = [p for p in self.names if self.is_evil(p)]
        assassin = self.assassin
        # the Assassin speaks first and last (as InMind tables do); others in between
        self.queue = ([assassin] + [p for p in evil if p != assassin]) if self.evil_talk else []
        self.phase = "evil_talk" if self.queue else "assassinate"

    async def _evil_talk(self) -> None:
        speaker = self.queue.pop(0)
        ask = Ask("evil_talk", fallback=lambda rng: {"text": ""}, question=lambda: prompts.evil_talk_question(self, speaker))
        said = await self.decide(speaker, ask)
        await self.emit("speech", player=speaker, text=cap_speech(said.get("text", "")) if isinstance(said, dict) else "", phase="assassination")
        if not self.queue:
            self.phase = "assassinate"

    def assassination_options(self) -> list[str]:
        assassin = self.assassin
        known = set(self.evil_known.get(assassin, ()))
        return [p for p in self.names if p != assassin and (self.may_target_evil or p not in known)]

    async def _assassinate(self) -> None:
        assassin = self.assassin
        options = self.assassination_options()
        ask = Ask("assassinate", options, check=one_of(options), fallback=lambda rng: rng.choice(options),
                  question=lambda: prompts.assassinate_question(self, assassin, options))
        target = await self.decide(assassin, ask)
        hit = self.roles[target] == self.merlin
        await self.emit("assassination", player=assassin, target=target, hit=hit, early=self.early,
                        successes=sum(self.results))
        t = self.table
        if hit:
            await self.finish(t.evil, "Merlin assassinated" + (" (early)" if self.early else ""), assassinated=target)
        elif self.early:
            await self.finish(t.good, "early assassination missed Merlin", assassinated=target)
        else:
            await self.finish(t.good, f"{t.missions_to_win} missions succeeded and Merlin survived", assassinated=target)

    def result(self) -> dict[str, Any]:
        out = super().result()
        out.update(missions=[bool(r) for r in self.results], early=self.early)
        return out


def _no_knife(v: Any) -> str | None:
    if v.get("call_assassination"):
        return "only an evil player may call the early assassination, and only when the table allows it"
    return None


def _may_knife(v: Any) -> str | None:
    return None


def _silence(rng: Any) -> dict:
    return {"text": "", "call_assassination": False}


def _is_bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "answer approve/reject (true or false)"


def _coin(rng: Any) -> bool:
    return rng.random() < 0.5
