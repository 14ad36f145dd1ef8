"""The Mafia moderator (MafiaScope section 3): night (kill, save, check) → dawn → talk → vote.

Round ``r`` is night ``r`` followed by day ``r``. Day-vote rules differ between tables, so they
are options with the pack's values as defaults, and every game's ``setup`` event states them:

- ``day_vote``: ``plurality`` (most votes goes) or ``majority`` (more than half of the living
  voters, else nobody goes);
- ``vote_tie``: ``no_elimination`` (pack default), ``revote`` (one more vote between the tied,
  then nobody), or ``random`` (the moderator draws one of the tied);
- ``allow_abstain`` (default False): a voter may name nobody;
- Mafia agreement: each Mafioso names a target; if they differ they see each other's picks and
  name again; still split → the most-named, ties to the pick of the Mafioso seated first;
- ``max_rounds`` (default 3 × players): a game still running then ends with no winner.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from gm.social.ask import Ask, one_of
from gm.social.speech import cap_speech
from rulesets import VgmError
from gm.social.game import SocialGame

from . import prompts
from .policies import POLICIES
from .table import MafiaTable, mafia_table


class MafiaGame(SocialGame):
    """A Mafia game (default 7: 2 Mafia, Doctor, 4 Villagers; ``extra_roles=["sheriff"]`` adds a Sheriff)."""

    engine = "mafia"
    prompts = prompts
    STATE_FIELDS = ("alive", "queue", "doctor_last", "checked", "speaker_start")

    def _configure(self) -> None:
        o = self.options
        roles = tuple(o["roles"]) if o.get("roles") else None
        self.table: MafiaTable = mafia_table(self.n, roles, tuple(o.get("extra_roles") or ()), o.get("pack", "mafia"))
        r = self.table.rules
        self.first_phase = o.get("first_phase", r.get("first_phase", "night"))
        self.day_vote = o.get("day_vote", r.get("day_vote", "plurality"))
        self.vote_tie = o.get("vote_tie", r.get("vote_tie", "no_elimination"))
        self.allow_abstain = bool(o.get("allow_abstain", r.get("allow_abstain", False)))
        self.self_save = bool(o.get("doctor_self_save", r.get("doctor_self_save", True)))
        self.same_save = bool(o.get("doctor_same_target_twice", r.get("doctor_same_target_twice", True)))
        self.reveal_day = bool(o.get("reveal_role_on_elimination", r.get("reveal_role_on_elimination", True)))
        self.reveal_night = bool(o.get("reveal_role_on_night_kill", r.get("reveal_role_on_night_kill", False)))
        self.discussion_rounds = int(o.get("discussion_rounds", 1))
        self.max_rounds = int(o.get("max_rounds", 3 * self.n))
        if self.discussion_rounds < 0:
            raise VgmError(f"--discussion-rounds {self.discussion_rounds}: give 0 (no speeches) or more")
        if self.max_rounds < 1:
            raise VgmError(f"--max-rounds {self.max_rounds}: give 1 or more")
        if self.first_phase not in ("night", "day"):
            raise VgmError(f"first_phase must be night or day, not {self.first_phase!r}")
        if self.day_vote not in ("plurality", "majority"):
            raise VgmError(f"day_vote must be plurality or majority, not {str(self.day_vote)[:60]!r}")
        if self.vote_tie not in ("no_elimination", "revote", "random"):
            raise VgmError(f"vote_tie must be no_elimination, revote or random, not {str(self.vote_tie)[:60]!r}")
        self.alive: list[str] = []
        self.queue: list[str] = []
        self.doctor_last: str | None = None
        self.checked: dict[str, str] = {}
        self.speaker_start = 0
        self._steps = {p: getattr(self, "_" + p) for p in ("night", "discuss", "vote")}

    def _deal(self) -> None:
        deal = self.options.get("deal")  # a fixed seating (tests, replays), else a shuffled deal
        if deal:
            self.roles = {p: deal[p] for p in self.names}
        else:
            lineup = list(self.table.lineup)
            self.rng.shuffle(lineup)
            self.roles = dict(zip(self.names, lineup))
        self.alive = list(self.names)

    def is_mafia(self, name: str) -> bool:
        return self.table.team[self.roles[name]] == self.table.mafia_team

    def living(self, role: str) -> list[str]:
        return [p for p in self.alive if self.roles[p] == role]

    @property
    def mafia_alive(self) -> list[str]:
        return [p for p in self.alive if self.is_mafia(p)]

    def policy(self, style: str):
        return POLICIES[style]

    def rules_stated(self) -> dict[str, Any]:
        return {"first_phase": self.first_phase, "day_vote": self.day_vote, "vote_tie": self.vote_tie,
                "allow_abstain": self.allow_abstain, "doctor_self_save": self.self_save,
                "doctor_same_target_twice": self.same_save, "reveal_role_on_elimination": self.reveal_day,
                "reveal_role_on_night_kill": self.reveal_night, "discussion_rounds": self.discussion_rounds,
                "max_rounds": self.max_rounds, "mafia_agreement": "pick, then see partners' picks and pick again; most-named wins"}

    # ---- the game ---------------------------------------------------------------------------
    async def _setup(self) -> None:
        t = self.table
        await self.emit("setup", to=[], engine="mafia", seed=self.seed,
                        players=[{"name": p, "seat": i + 1, "role": self.roles[p], "team": t.team[self.roles[p]],
                                  **self.seats[p].spec(), **self.persona_fields(p)} for i, p in enumerate(self.names)],
                        lineup=list(t.lineup), rules=self.rules_stated())
        for p in self.names:  # before the first public event, so no seat is ever asked (or probed) without it
            seen = self.table.sees.get(self.roles[p], ())
            mates = [q for q in self.names if q != p and self.roles[q] in seen]
            await self.emit("night_knowledge", to=[p], player=p, role=self.roles[p], sees=mates)
        await self.emit("start", players=list(self.names), lineup=sorted(t.lineup), rules=self.rules_stated())
        self.next_round()
        if self.first_phase == "day":
            self._start_day()
        else:
            self.phase = "night"

    async def step(self) -> None:
        await self._steps[self.phase]()

    async def _night(self) -> None:
        t = self.table
        mafia = self.mafia_alive
        targets = [p for p in self.alive if not self.is_mafia(p)]
        victim = await self._mafia_agree(mafia, targets)
        asks: dict[str, Ask] = {}
        doctor = next(iter(self.living(t.doctor_role)), None)
        sheriff = next(iter(self.living(t.sheriff_role)), None)
        if doctor:
            opts = [p for p in self.alive if (self.self_save or p != doctor) and (self.same_save or p != self.doctor_last)]
            if opts:
                asks[doctor] = Ask("save", opts, check=one_of(opts), fallback=lambda rng, o=opts: rng.choice(o),
                                   question=lambda o=opts: prompts.save_question(self, o))
        if sheriff:
            opts = [p for p in self.alive if p != sheriff]
            asks[sheriff] = Ask("check", opts, check=one_of(opts), fallback=lambda rng, o=opts: rng.choice(o),
                                question=lambda o=opts: prompts.check_question(self, o))
        picks = await self.decide_all(asks) if asks else {}
        saved = picks.get(doctor) if doctor else None
        if doctor and saved is not None:
            self.doctor_last = saved
            await self.emit("doctor_save", to=[doctor], player=doctor, target=saved)
        if sheriff and sheriff in picks:
            found = "mafia" if self.is_mafia(picks[sheriff]) else "not_mafia"
            self.checked[picks[sheriff]] = found
            await self.emit("sheriff_check", to=[sheriff], player=sheriff, target=picks[sheriff], result=found)
        killed = victim if victim is not None and victim != saved else None
        fields: dict[str, Any] = {"killed": killed}
        if killed:
            self.alive.remove(killed)
            if self.reveal_night:
                fields["role"] = self.roles[killed]
        await self.emit("night_result", **fields)
        if not await self._check_win():
            self._start_day()

    async def _mafia_agree(self, mafia: list[str], targets: list[str]) -> str | None:
        if not mafia or not targets:
            return None
        picks: dict[str, str] = {}
        for attempt in (1, 2):
            asks = {m: Ask("kill", targets, check=one_of(targets), fallback=lambda rng: rng.choice(targets),
                           question=lambda m=m, a=attempt: prompts.kill_question(self, m, targets, a)) for m in mafia}
            picks = await self.decide_all(asks)
            for m in mafia:
                await self.emit("mafia_pick", to=list(mafia), player=m, target=picks[m], attempt=attempt)
            if len(set(picks.values())) == 1:
                break
        counts = Counter(picks.values())
        top = max(counts.values())
        victim = next(picks[m] for m in mafia if counts[picks[m]] == top)
        await self.emit("mafia_kill", to=list(mafia), target=victim, agreed=len(counts) == 1)
        return victim

    def _start_day(self) -> None:
        start = self.speaker_start % len(self.alive)
        order = self.alive[start:] + self.alive[:start]
        self.speaker_start += 1
        self.queue = order * self.discussion_rounds
        self.phase = "discuss" if self.queue else "vote"

    async def _discuss(self) -> None:
        speaker = self.queue.pop(0)
        if speaker in self.alive:
            ask = Ask("speak", fallback=lambda rng: {"text": ""}, question=lambda: prompts.speak_question(self, speaker))
            said = await self.decide(speaker, ask)
            await self.emit("speech", player=speaker, text=cap_speech(said.get("text", "")) if isinstance(said, dict) else "")
        if not self.queue:
            self.phase = "vote"

    async def _collect_votes(self, candidates: list[str], attempt: int) -> dict[str, str | None]:
        asks = {}
        for p in self.alive:
            opts = [c for c in candidates if c != p]
            legal = opts + ([None] if self.allow_abstain or not opts else [])
            asks[p] = Ask("vote", opts, check=one_of(legal, "candidate"), fallback=lambda rng, o=legal: rng.choice(o),
                          question=lambda p=p, o=opts: prompts.vote_question(self, p, o, attempt),
                          extra={"abstain": None in legal})
        return await self.decide_all(asks)

    async def _vote(self) -> None:
        votes = await self._collect_votes(list(self.alive), 1)
        out = await self._tally(votes, 1)
        if out == "revote":
            tied = self._top(votes)
            votes = await self._collect_votes(tied, 2)
            out = await self._tally(votes, 2, final=True)
        if out and out != "revote":
            self.alive.remove(out)
            fields = {"role": self.roles[out]} if self.reveal_day else {}
            await self.emit("elimination", player=out, votes=Counter(v for v in votes.values() if v)[out], **fields)
        if not await self._check_win():
            if self.round >= self.max_rounds:
                await self.finish("none", f"round limit ({self.max_rounds}) reached")
                return
            self.next_round()
            self.phase = "night"

    @staticmethod
    def _top(votes: dict[str, str | None]) -> list[str]:
        counts = Counter(v for v in votes.values() if v)
        if not counts:
            return []
        top = max(counts.values())
        return [c for c, k in counts.items() if k == top]

    async def _tally(self, votes: dict[str, str | None], attempt: int, final: bool = False) -> str | None:
        counts = Counter(v for v in votes.values() if v)
        top = self._top(votes)
        out: str | None = None
        note = ""
        if top and self.day_vote == "majority" and counts[top[0]] * 2 <= len(self.alive):
            note = "no majority"
        elif len(top) == 1:
            out = top[0]
        elif len(top) > 1:
            if self.vote_tie == "random":
                out = self.rng.choice(sorted(top))
                note = "tie broken at random"
            elif self.vote_tie == "revote" and not final:
                out, note = "revote", "tie: revote between the tied"
            else:
                note = "tie: nobody is eliminated"
        else:
            note = "no votes"
        await self.emit("vote_result", votes=votes, tally=dict(counts), attempt=attempt,
                        eliminated=out if out != "revote" else None, note=note)
        return out

    async def _check_win(self) -> bool:
        mafia = len(self.mafia_alive)
        if mafia == 0:
            await self.finish(self.table.village_team, "every Mafia member is gone")
            return True
        if mafia * 2 >= len(self.alive):
            await self.finish(self.table.mafia_team, "the Mafia are at least half of the living")
            return True
        return False

    def result(self) -> dict[str, Any]:
        out = super().result()
        out["alive"] = list(self.alive)
        return out
