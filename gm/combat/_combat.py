"""The state of one fight and the moves on it: whose turn, acting, ending a turn, NPC turns.

The rules of each system live in their own module (``d20``, ``degrees``, ``percentile``,
``trait``); ``Combat`` only keeps the order, checks that an action is legal here and now,
hands it to the system's rules, and writes every event to the log.
"""
from __future__ import annotations

import json
import random
import uuid
from functools import lru_cache
from typing import Any, Callable, Literal

import rulesets
from pydantic import BaseModel, Field, ValidationError

from ._common import INCAPACITATED, can_act, distance, event
from ._model import Action, CombatError, Combatant, CombatEvent, rules_for
from ._tactics import choose_npc_action

__all__ = ["Combat", "rules_for", "pack_rules"]

COMBAT_VERSION = 1


@lru_cache(maxsize=16)
def pack_rules(pack: str):
    """The loaded rule-set pack (cached: the rules read check names and abilities from it)."""
    return rulesets.load(pack)


class Combat(BaseModel):
    """One fight: the round, the initiative order, whose turn it is, every combatant and the log.

    JSON in and out (``to_json`` / ``from_json``), so a session saves it after every action.
    Rolls take an optional ``random.Random``; without one, a roll is drawn from
    ``(seed, rolls_made)``, so a resumed fight rolls exactly as it would have.
    """

    version: int = COMBAT_VERSION
    pack: str
    system: str
    seed: int = Field(default_factory=lambda: uuid.uuid4().int % 2**31)
    rolls_made: int = 0
    round: int = 1
    turn: int = 0  # index into ``order``
    order: list[str] = Field(default_factory=list)
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    log: list[CombatEvent] = Field(default_factory=list)
    deck: list[str] = Field(default_factory=list)  # swade: the action deck still to deal
    discard: list[str] = Field(default_factory=list)
    reshuffle: bool = False  # swade: a joker came up this round
    outcome: Literal["party", "foes"] | None = None  # the side left standing

    # ---------------------------------------------------------------- reading

    @property
    def rules(self):
        return rules_for(self.system)

    @property
    def ruleset(self):
        return pack_rules(self.pack)

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def current(self) -> Combatant:
        """Whose turn it is."""
        if not self.order:
            raise CombatError("the fight has no one in it; start it with start_combat")
        return self.combatants[self.order[self.turn]]

    def rng(self, rng: random.Random | None = None) -> random.Random:
        """``rng`` if given, else a generator drawn from the fight's seed and roll count."""
        if rng is not None:
            return rng
        self.rolls_made += 1
        return random.Random(f"{self.seed}:{self.rolls_made}")

    def get(self, name: str) -> Combatant:
        """A combatant by name, first word or unique prefix (any case); a one-line error otherwise."""
        key = " ".join(str(name).lower().split())
        exact = [c for c in self.combatants.values() if c.name.lower() == key]
        if exact:
            return exact[0]
        loose = [c for c in self.combatants.values() if c.name.lower().startswith(key) or key in c.name.lower().split()]
        up = [c for c in loose if c.standing] or loose
        if len(up) == 1:
            return up[0]
        if up:
            raise CombatError(f"{name!r} could be {', '.join(c.name for c in up)}; name one")
        raise CombatError(f"no one called {name!r} is in this fight; here: {', '.join(self.order)}")

    def standing(self, side: str | None = None) -> list[Combatant]:
        return [c for c in self.combatants.values() if c.standing and (side is None or c.side == side)]

    def enemies_of(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.combatants.values() if o.side != c.side and o.standing]

    def allies_of(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.combatants.values() if o.side == c.side and o.standing and o.name != c.name]

    def nearest_enemy(self, c: Combatant | str) -> Combatant | None:
        """The closest standing enemy (then the most hurt, then by name): "the nearest goblin"."""
        c = self.get(c) if isinstance(c, str) else c
        foes = self.enemies_of(c)
        return min(foes, key=lambda o: (distance(c, o), self.rules.health(o), o.name)) if foes else None

    def order_text(self) -> str:
        """``Round 1: Ilya 18 (31/31 HP) → Goblin 1 15 (7/7 HP) → ...``, the current one marked."""
        parts = []
        for i, name in enumerate(self.order):
            c = self.combatants[name]
            init = self.rules.initiative_text(c)
            mark = "▶ " if i == self.turn and not self.over else ""
            gone = "" if c.status == "up" else f", {c.status}"
            parts.append(f"{mark}{name} {init} ({c.hp_text()}{gone})")
        return f"Round {self.round}: " + " → ".join(parts)

    def status_lines(self) -> list[str]:
        return [self.combatants[n].status_text() for n in self.order]

    # ---------------------------------------------------------------- acting

    def act(self, actor: str, action: Action | str = "attack", target: str | None = None,
            rng: random.Random | None = None, **options: Any) -> list[CombatEvent]:
        """Resolve one action of ``actor`` by the rules and return what happened.

        ``action`` is an ``Action`` or its kind (``"attack"``, ``"dodge"``, ``"end"`` ...) or an
        attack's name (``"longsword"``). Without a target an attack goes at the nearest enemy.

        Raises:
            CombatError: out of turn, no action left, an unknown action, a target that is not
                here or is already down; the fight is unchanged.
        """
        if self.over:
            raise CombatError(f"the fight is over ({self.outcome_text()}); start a new one")
        a = self.get(actor)
        rules = self.rules
        if isinstance(action, str):
            kind = action.strip().lower().replace(" ", "_")
            action = Action(kind=kind) if kind in rules.ACTIONS or kind == "end" else Action(kind="attack", attack=action)
        else:
            action = action.model_copy(deep=True)
        if target is not None:
            action.target = target
        action.options.update(options)
        if action.kind == "end":
            if a.name != self.current.name:
                raise CombatError(f"it is {self.current.name}'s turn, not {a.name}'s")
            return self.next_turn(rng)
        if action.kind not in rules.ACTIONS:
            raise CombatError(f"{action.kind!r} is not an action here; use one of {', '.join([*rules.ACTIONS, 'end'])}")
        if a.name != self.current.name and not rules.may_interrupt(self, a):
            raise CombatError(f"it is {self.current.name}'s turn, not {a.name}'s; wait for your turn")
        if a.status != "up":
            raise CombatError(f"{a.name} is {a.status} and cannot act")
        snapshot = self.model_dump()
        if a.name != self.current.name:  # a joker acting out of turn
            rules.start_turn(self, a, self.rng(rng))
            a.acted_round = self.round
        free = action.kind in getattr(rules, "FREE_ACTIONS", ()) and a.status == "up" and not a.has(*INCAPACITATED)
        if action.kind == "cast" and a.status == "up" and not a.has(*INCAPACITATED):
            from .spells import bonus_cast

            free = free or bonus_cast(a, action.options.get("spell") or action.attack)  # a bonus-action spell needs no action
        if not can_act(a) and not free:
            self._restore(snapshot)
            why = next((c.name for c in a.conditions if c.name in INCAPACITATED), None)
            if why is None and a.actions_left <= 0:
                raise CombatError(f"{a.name} has no action left this turn; end the turn")
            raise CombatError(f"{a.name} cannot act{f' ({why})' if why else ''} this turn; end the turn")
        try:
            if action.kind in rules.TARGETED:
                action.target = self._target(a, action).name
            events = rules.ACTIONS[action.kind](self, a, action, self.rng(rng))
        except CombatError:
            self._restore(snapshot)
            raise
        if action.why and events and not a.is_player:
            events[0] = events[0].model_copy(update={"text": f"{events[0].text} ({action.why})"})
        return self._emit(events)

    def _target(self, a: Combatant, action: Action) -> Combatant:
        if action.target is None:
            t = self.nearest_enemy(a)
            if t is None:
                raise CombatError(f"{a.name} has no enemy left standing")
            return t
        t = self.get(action.target)
        if t.name == a.name:
            raise CombatError(f"{a.name} cannot target themself; name an enemy")
        if not t.standing:
            raise CombatError(f"{t.name} is {t.status}; pick a target still standing: {', '.join(o.name for o in self.enemies_of(a)) or 'none'}")
        return t

    def next_turn(self, rng: random.Random | None = None) -> list[CombatEvent]:
        """End the current turn and start the next one that can act (new rounds as needed).

        Start-of-turn rolls happen here: death saves and recovery checks of the dying, Spirit
        rolls of the Shaken; a combatant who cannot act is passed over with a line in the log.
        """
        if self.over:
            return []
        events = list(self.rules.end_turn(self, self.current, self.rng(rng)))
        for _ in range(4 * len(self.order) + 4):
            self.turn += 1
            if self.turn >= len(self.order):
                self.turn = 0
                self.round += 1
                for c in self.combatants.values():
                    c.responses = 0
                events.append(event(self, "GM", "round", f"Round {self.round} begins"))
                events += self.rules.new_round(self, self.rng(rng))
                if self.rules.REORDER_EACH_ROUND:
                    self.order = sorted(self.order, key=lambda n: self.rules.sort_key(self.combatants[n]))
                    events.append(event(self, "GM", "order", "Order: " + self.order_text().split(": ", 1)[1]))
            c = self.current
            if c.status in ("dead", "fled") or (c.acted_round == self.round and self.rules.INTERRUPT_USES_TURN):
                continue
            events += self.rules.start_turn(self, c, self.rng(rng))
            c.acted_round = self.round
            if can_act(c):
                events.append(event(self, c, "turn", f"{c.name}'s turn ({c.hp_text()})"))
                break
            if c.status == "up":
                events.append(event(self, c, "turn", f"{c.name} cannot act this turn"))
            events += self.rules.end_turn(self, c, self.rng(rng))
            if self._winner():
                break
        return self._emit(events)

    def npc_turn(self, rng: random.Random | None = None, decide: Callable | None = None) -> list[CombatEvent]:
        """Play the current NPC's whole turn by its tactics, then pass the turn on.

        Args:
            decide: the hook for a model-made choice (see ``choose_npc_action``); None uses the rules.
        """
        c = self.current
        if c.is_player:
            raise CombatError(f"it is {c.name}'s turn and a player plays {c.name}; ask them what they do")
        events: list[CombatEvent] = []
        for _ in range(6):
            if self.over or not can_act(c) or self.current.name != c.name:
                break
            action = choose_npc_action(self, c, self.rng(rng), decide=decide)
            if action.kind == "end":
                break
            try:
                events += self.act(c.name, action, rng=rng)
            except CombatError as exc:  # a rule the tactics missed: say so and end the turn
                events += self._emit([event(self, c, "turn", f"{c.name} holds ({exc})")])
                break
        if not self.over and self.current.name == c.name:
            events += self.next_turn(rng)
        return events

    def run_npcs(self, rng: random.Random | None = None, decide: Callable | None = None) -> list[CombatEvent]:
        """NPC turns one after another until it is a player's turn or the fight is over."""
        events: list[CombatEvent] = []
        for _ in range(50):
            if self.over or self.current.is_player:
                break
            events += self.npc_turn(rng, decide)
        return events

    # ---------------------------------------------------------------- the GM's hand

    def damage(self, target: str, amount: int | str, rng: random.Random | None = None, *,
               damage_type: str = "", source: str = "GM") -> list[CombatEvent]:
        """Hurt someone outside an attack (a trap, a spell, a fall): a number or a dice expression."""
        t = self.get(target)
        return self._emit(self.rules.damage(self, t, amount, self.rng(rng), damage_type=damage_type, source=source))

    def heal(self, target: str, amount: int) -> list[CombatEvent]:
        """Give back hit points (or, in swade, take off wounds); the dying come back up."""
        return self._emit(self.rules.heal(self, self.get(target), amount))

    def save(self, target: str, check: str, dc: int, rng: random.Random | None = None, advantage: int = 0) -> list[CombatEvent]:
        """A saving throw (or the system's nearest thing) against a DC / target number."""
        check_id = self.ruleset.resolve(check)
        return self._emit(self.rules.save(self, self.get(target), check_id, dc, self.rng(rng), advantage))

    def add_condition(self, target: str, condition: str, value: int | None = None, rounds: int | None = None,
                      tick: Literal["start", "end"] = "end") -> list[CombatEvent]:
        """Put a condition on someone, with a value and a duration in their turns."""
        t = self.get(target)
        if not t.add(condition, value, rounds, tick, source="GM"):
            return self._emit([event(self, t, "condition", f"{t.name} is immune to {condition}")])
        label = condition + (f" {value}" if value is not None else "")
        lasting = f" for {rounds} round{'s' if rounds != 1 else ''}" if rounds else ""
        return self._emit([event(self, t, "condition", f"{t.name} is {label}{lasting}")])

    def remove_condition(self, target: str, condition: str) -> list[CombatEvent]:
        t = self.get(target)
        t.drop(condition)
        return self._emit([event(self, t, "condition", f"{t.name} is no longer {condition}")])

    # ---------------------------------------------------------------- bookkeeping

    def outcome_text(self) -> str:
        if self.outcome == "party":
            return "the party won"
        if self.outcome == "foes":
            return "the party is down"
        return "still fighting"

    def _emit(self, events: list[CombatEvent]) -> list[CombatEvent]:
        self.log.extend(events)
        if self.outcome is None:
            winner = self._winner()
            if winner:
                self.outcome = winner
                end = event(self, "GM", "end", f"The fight is over after {self.round} round{'s' if self.round != 1 else ''}: {self.outcome_text()}")
                self.log.append(end)
                events = [*events, end]
        return events

    def _winner(self) -> str | None:
        if not self.standing("foes"):
            return "party"
        if not self.standing("party"):
            return "foes"
        return None

    def _restore(self, snapshot: dict) -> None:
        """Undo a refused action, in place: a caller holding a ``Combatant`` keeps a live one."""
        restored = Combat.model_validate(snapshot)
        for name in type(self).model_fields:
            if name != "combatants":
                setattr(self, name, getattr(restored, name))
        for name, back in restored.combatants.items():
            live = self.combatants.get(name)
            if live is None:
                self.combatants[name] = back
                continue
            for field in Combatant.model_fields:
                setattr(live, field, getattr(back, field))

    def to_dict(self) -> dict:
        """Plain JSON data: ``round``, ``order``, ``combatants`` (each with ``hp``), ``log`` ..."""
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes | dict) -> "Combat":
        """A fight saved by ``to_json`` / ``to_dict``; damaged data is one ``CombatError`` line."""
        try:
            raw = json.loads(data) if isinstance(data, (str, bytes)) else data
            return cls.model_validate(raw)
        except json.JSONDecodeError as exc:
            raise CombatError(f"saved combat is not valid JSON (line {exc.lineno}: {exc.msg}); the session file is damaged") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first.get("loc", ()))
            raise CombatError(f"saved combat: key {key!r}: {first.get('msg')}; the session file is damaged") from None
