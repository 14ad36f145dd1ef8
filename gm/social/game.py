"""The moderator loop both engines share: events, listeners, asking seats, snapshots.

A game is a small state machine: ``phase`` plus a few counters, advanced by ``step()`` one
unit at a time (one speech, one vote, one mission, one night). Because the state between
steps is plain data, ``snapshot()`` can freeze it (RNG states and seat conversations too)
and ``restore()`` can continue from it: that is counterfactual replay.
"""
from __future__ import annotations

import asyncio
import inspect
import json
import random
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulesets import VgmError

from .ask import Ask
from .events import Event, EventLog, view_for
from .lang import LANGS, LOOP_TEXT
from .personas import persona_text, resolve_personas, trait_vector
from .seats import LlmSeat, ScriptedSeat, Seat, SeatSpec, build_seats

Listener = Callable[[Event, "SocialGame"], Any]


def _rng_state(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _set_rng_state(rng: random.Random, state: list) -> None:
    rng.setstate((state[0], tuple(state[1]), state[2]))


class SocialGame:
    """Base of ``AvalonGame`` and ``MafiaGame``.

    Subclasses implement ``_setup()``, ``step()``, the state fields in ``STATE_FIELDS``, the
    scripted ``policy(style)``, and the seat-facing text (``render``, ``system_prompt``, ...).
    """

    engine = "social"
    STATE_FIELDS: tuple[str, ...] = ()
    DEFAULT_NAMES = ("Alex", "Blair", "Casey", "Drew", "Ellis", "Finley", "Gray", "Harper", "Indigo", "Jordan",
                     "Kai", "Logan", "Morgan", "Noor", "Oakley", "Parker")

    def __init__(
        self,
        seats: list[Seat],
        *,
        names: list[str] | None = None,
        seed: int | None = None,
        log_path: str | Path | None = None,
        game_id: str | None = None,
        snapshots: bool = False,
        options: dict[str, Any] | None = None,
        _restoring: bool = False,
    ) -> None:
        self.n = len(seats)
        self.names = list(names) if names else list(self.DEFAULT_NAMES[: self.n])
        if len(self.names) != self.n or len(set(self.names)) != self.n:
            raise VgmError(f"need {self.n} distinct player names, got {self.names}; fix --names")
        self.seats = dict(zip(self.names, seats))
        self.seed = random.randrange(2**31) if seed is None else int(seed)
        self.rng = random.Random(self.seed)
        self.game_id = game_id or f"{self.engine}-{self.seed}-{uuid.uuid4().hex[:6]}"
        self.log = EventLog(None)  # the file is opened once the rules and options are known to be good
        self.snapshots = snapshots
        self.options = dict(options or {})
        self.lang = str(self.options.get("lang", "en"))  # the language seats are spoken to in
        if self.lang not in LANGS:
            raise VgmError(f"--lang {self.lang}: use {' or '.join(LANGS)}")
        self.round = 0
        self.seq = 0
        self.phase = "setup"
        self.winner: str | None = None
        self.reason = ""
        self.roles: dict[str, str] = {}
        self.forced: dict[str, Any] = {}  # "round|ask kind|seat" -> the move a fork's edit imposes (``force``)
        self._listeners: list[Listener] = []
        self._snap_fh = None
        if snapshots and log_path:
            self._snap_path = Path(log_path).with_suffix(".snapshots.jsonl")
        else:
            self._snap_path = None
        self._configure()
        self.personas = resolve_personas(self.options.get("personas"), self.names, self.seed)  # a bad persona: no log yet
        if not _restoring:
            self._deal()
        self.log = EventLog(log_path)  # after any option or deal error: a bad option leaves no empty log
        if not _restoring:
            for i, name in enumerate(self.names):
                self.seats[name].bind(self, name, self.roles[name], self.seed * 1009 + i)

    # ---- hooks for the engines -------------------------------------------------
    def _configure(self) -> None:
        """Read rules and options (called before dealing and on restore)."""

    def _deal(self) -> None:
        """Assign ``self.roles``."""
        raise NotImplementedError

    async def _setup(self) -> None:
        """Emit the setup and night-knowledge events."""
        raise NotImplementedError

    async def step(self) -> None:
        """Advance the game by one unit."""
        raise NotImplementedError

    def policy(self, style: str) -> Callable[[Seat, Ask], Any]:
        raise NotImplementedError

    # ---- events and listeners ---------------------------------------------------
    def add_listener(self, fn: Listener) -> None:
        """``fn(event, game)`` runs after every event, public and private; it may be async."""
        self._listeners.append(fn)

    async def emit(self, kind: str, *, to: list[str] | None = None, **fields: Any) -> Event:
        """Log one event: public unless ``to`` names who may see it (``[]`` = moderator only)."""
        if to is None:
            self.seq += 1
            event = {"game_id": self.game_id, "round": self.round, "public_msg_seq": self.seq, "kind": kind, **fields}
        else:
            event = {"game_id": self.game_id, "round": self.round, "public_msg_seq": self.seq, "kind": kind,
                     "private": True, "to": to, **fields}
        self.log.append(event)
        if self._listeners:
            for fn in self._listeners:
                out = fn(event, self)
                if inspect.isawaitable(out):
                    await out
        return event

    def next_round(self) -> None:
        self.round += 1
        self.seq = 0

    # ---- asking seats -----------------------------------------------------------
    def force(self, rnd: int, kind: str, name: str, value: Any) -> None:
        """In round ``rnd``, ``name``'s ``kind`` decisions are ``value`` instead of the seat's.

        A fork's edit (a forced vote, night action or speech). The seat is not asked; a
        moderator-only ``forced_move`` record says so, or why the move could not be played
        (e.g. the target died first), in which case the seat decides as usual.
        """
        self.forced[f"{rnd}|{kind}|{name}"] = value

    async def _forced_move(self, name: str, ask: Ask) -> tuple[bool, Any]:
        key = f"{self.round}|{ask.kind}|{name}"
        if key not in self.forced:
            return False, None
        value = self.forced[key]
        reason = ask.error(value)
        await self.emit("forced_move", to=[], player=name, decision=ask.kind, value=value, applied=reason is None,
                        **({"reason": reason} if reason else {}))
        return reason is None, value

    async def decide(self, name: str, ask: Ask) -> Any:
        """Ask one seat; record its notes (reasoning, illegal moves) to the moderator only."""
        if self.forced:
            done, value = await self._forced_move(name, ask)
            if done:
                return value
        seat = self.seats[name]
        value = await seat.act(ask)
        if type(seat) is ScriptedSeat:
            reason = ask.error(value)
            if reason is not None:  # a policy bug must not corrupt the game
                raise RuntimeError(f"scripted {seat.style} policy made an illegal {ask.kind} for {name}: {reason}")
        elif ask.notes:
            for note in ask.notes:
                await self.emit(note.pop("kind"), to=[], **note)
        return value

    async def decide_all(self, asks: dict[str, Ask]) -> dict[str, Any]:
        """Simultaneous decisions (votes, cards, night actions): model calls run concurrently."""
        if self.forced:
            fixed = {}
            for name, ask in asks.items():
                done, value = await self._forced_move(name, ask)
                if done:
                    fixed[name] = value
            if fixed:
                rest = await self.decide_all({n: a for n, a in asks.items() if n not in fixed}) if len(fixed) < len(asks) else {}
                return {n: fixed[n] if n in fixed else rest[n] for n in asks}
        if all(type(self.seats[n]) is ScriptedSeat for n in asks):
            out = {}
            for name, ask in asks.items():
                out[name] = await self.decide(name, ask)
            return out
        values = await asyncio.gather(*(self.seats[n].act(a) for n, a in asks.items()))
        out = {}
        for (name, ask), value in zip(asks.items(), values):
            if ask.notes:
                for note in ask.notes:
                    await self.emit(note.pop("kind"), to=[], **note)
            out[name] = value
        return out

    # ---- personas -------------------------------------------------------------------
    def persona_of(self, name: str) -> dict[str, Any] | None:
        """The seat's Big-Five persona; only LLM seats have one (scripted and human seats ignore personas)."""
        return self.personas.get(name) if isinstance(self.seats.get(name), LlmSeat) else None

    def persona_fields(self, name: str) -> dict[str, Any]:
        """``{"personality": {O, C, E, A, N}}`` for the setup event when the seat has a persona, else ``{}``."""
        persona = self.persona_of(name)
        return {"personality": trait_vector(persona)} if persona else {}

    # ---- what a seat sees ---------------------------------------------------------
    def seat_view(self, name: str) -> list[Event]:
        return view_for(self.log.events, name)

    def night_event(self, name: str) -> Event | None:
        """The seat's own ``night_knowledge`` event, read from its view (the source of its prompt's knowledge)."""
        for e in self.seat_view(name):
            if e["kind"] == "night_knowledge" and e.get("player") == name:
                return e
        return None

    def seat_messages(self, name: str) -> list[dict[str, str]]:
        """System prompt (rules, role, night knowledge) + the seat's view of the log, as text."""
        lines = [line for e in self.seat_view(name) if (line := self.render(e, name))]
        words = LOOP_TEXT[self.lang]
        log = "\n".join(lines) if lines else words["empty"]
        system = self.system_prompt(name)
        persona = self.persona_of(name)
        if persona:  # this seat's own persona only
            system += "\n\n" + persona_text(persona)
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": words["log"].format(log=log)},
        ]

    # the engine's ``prompts`` module holds all seat-facing text: render, system_prompt,
    # SHAPES (kind -> (pydantic action, JSON example)), llm_schema, human_question, parse_human
    prompts: Any = None

    def render(self, event: Event, viewer: str) -> str | None:
        if event["kind"] == "belief" and viewer in event.get("to", ()):  # a fork's injected private belief
            return LOOP_TEXT[self.lang]["belief"].format(text=event.get("text", ""))
        return self.prompts.render(self, event, viewer)

    def system_prompt(self, name: str) -> str:
        return self.prompts.system_prompt(self, name)

    def llm_schema(self, ask: Ask):
        return self.prompts.llm_schema(self, ask)

    def llm_question(self, ask: Ask) -> str:
        return f"{ask.text()}\n" + LOOP_TEXT[self.lang]["json"].format(shape=self.prompts.SHAPES[ask.kind][1])

    def human_question(self, ask: Ask) -> str:
        return self.prompts.human_question(self, ask)

    def parse_human(self, ask: Ask, text: str):
        return self.prompts.parse_human(self, ask, text)

    def seat_intro(self, name: str) -> str:
        """What a person in the seat reads first: the system prompt without the JSON instructions."""
        return "\n".join(line for line in self.system_prompt(name).splitlines() if "JSON" not in line)

    # ---- running ---------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == "over"

    async def run(self) -> dict[str, Any]:
        """Play to the end; returns the result (winner, reason, rounds)."""
        try:
            if self.phase == "setup":
                await self._setup()
                self._save_snapshot()
            while self.phase != "over":
                await self.step()
                if self.snapshots:
                    self._save_snapshot()
        finally:
            self.log.close()
            if self._snap_fh is not None:
                self._snap_fh.close()
                self._snap_fh = None
        return self.result()

    def play(self) -> dict[str, Any]:
        """``run()`` for callers without an event loop."""
        return asyncio.run(self.run())

    async def finish(self, winner: str, reason: str, **fields: Any) -> None:
        self.winner, self.reason, self.phase = winner, reason, "over"
        await self.emit("game_over", winner=winner, reason=reason, roles=dict(self.roles), **fields)

    def result(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "engine": self.engine, "seed": self.seed, "winner": self.winner,
                "reason": self.reason, "rounds": self.round, "roles": dict(self.roles)}

    # ---- snapshots ---------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The full state as plain JSON: rules/options, counters, RNGs, events, seat conversations."""
        state = {f: getattr(self, f) for f in self.STATE_FIELDS}
        return json.loads(json.dumps({
            "engine": self.engine, "game_id": self.game_id, "seed": self.seed, "names": self.names,
            "options": self.options, "round": self.round, "seq": self.seq, "phase": self.phase,
            "winner": self.winner, "reason": self.reason, "roles": self.roles, "state": state,
            "rng": _rng_state(self.rng),
            "seats": [{**s.spec(), "rng": _rng_state(s.rng) if s.rng is not self.rng else None} for s in self.seats.values()],
            "events": self.log.events, "forced": self.forced,
            "messages": {n: s.messages() for n, s in self.seats.items() if isinstance(s, LlmSeat)},
        }))

    def _save_snapshot(self) -> None:
        if not self.snapshots or self._snap_path is None:
            return
        if self._snap_fh is None:
            self._snap_fh = self._snap_path.open("a", encoding="utf-8")
        self._snap_fh.write(json.dumps({"key": [self.round, self.seq], "snapshot": self.snapshot()}, ensure_ascii=False) + "\n")
        self._snap_fh.flush()

    @classmethod
    def restore(
        cls,
        snapshot: dict[str, Any],
        seats: list[Seat] | None = None,
        *,
        log_path: str | Path | None = None,
        game_id: str | None = None,
        reseed: int | None = None,
        snapshots: bool = False,
        models: dict[str, Any] | None = None,
    ) -> "SocialGame":
        """Continue a game from ``snapshot``; ``reseed`` gives a fork its own future randomness.

        Without ``seats``, seats are rebuilt from the snapshot (LLM seats from their model strings).
        """
        snapshot = json.loads(json.dumps(snapshot))  # the game mutates its state; never the caller's copy
        if snapshot.get("engine") != cls.engine:
            raise VgmError(f"snapshot is a {snapshot.get('engine')!r} game, not {cls.engine!r}")
        if seats is None:
            specs = []
            for s in snapshot["seats"]:
                if s["kind"] == "scripted":
                    specs.append(SeatSpec("scripted", s.get("style", "heuristic")))
                elif s["kind"] == "llm":
                    specs.append(SeatSpec("llm", s.get("model", "")))
                else:
                    specs.append(SeatSpec(s["kind"]))
            seats = build_seats(specs, models=models)
        game = cls(seats, names=snapshot["names"], seed=snapshot["seed"], log_path=log_path,
                   game_id=game_id or snapshot["game_id"], snapshots=snapshots, options=snapshot["options"], _restoring=True)
        game.round, game.seq, game.phase = snapshot["round"], snapshot["seq"], snapshot["phase"]
        game.winner, game.reason, game.roles = snapshot["winner"], snapshot["reason"], dict(snapshot["roles"])
        game.forced = dict(snapshot.get("forced") or {})
        for f in cls.STATE_FIELDS:
            setattr(game, f, snapshot["state"][f])
        game._load_state()
        for event in snapshot["events"]:
            game.log.append(event)
        _set_rng_state(game.rng, snapshot["rng"])
        for i, (name, saved) in enumerate(zip(game.names, snapshot["seats"])):
            seat = game.seats[name]
            seat.bind(game, name, game.roles[name], (reseed or 0) * 1009 + i)
            if saved.get("rng") is not None and seat.rng is not game.rng and reseed is None:
                _set_rng_state(seat.rng, saved["rng"])
        if reseed is not None:
            game.rng.seed(reseed)
        return game

    def _load_state(self) -> None:
        """Fix up state fields after JSON (e.g. lists back to tuples); override when needed."""
