"""Players who roll their own dice (``--player-rolls``): the GM asks, waits, and reads what they type.

The pending rolls live in the session, so a game saved while waiting resumes still waiting.
"""
from __future__ import annotations

import re
import time

from .adjudication import Difficulty, make_roll, player_roll, record, roll_hint
from .characters import RollPlan, Sheet
from .dice import BadDice
from .reply import GMReply
from .table import PendingCheck, TurnRecord

__all__ = ["PlayerRolls", "AUTO_ROLL"]

AUTO_ROLL = re.compile(r"^\s*(/?roll|auto|r)\s*$", re.I)


class PlayerRolls:
    """The half of a turn that waits for players' dice (mixed into ``GameMaster``)."""

    def _ask_for_rolls(self, turn: TurnRecord, plans, difficulties, reasons, timing) -> GMReply:
        self.session.pending = [
            PendingCheck(check=c, check_name=p.check_name, expression=p.expression(d.advantage), hint=roll_hint(p),
                         plan=p.model_dump(), difficulty=d.model_dump())
            for (c, p), d in zip(plans, difficulties)
        ]
        self.session.pending_turn = turn
        asks = "; ".join(f"{c.character}, roll {p.check_name} ({p.expression(d.advantage)}) — type {roll_hint(p)}, or 'roll' and I will" for (c, p), d in zip(plans, difficulties))
        self._say(asks)
        self.save()
        return GMReply(player=turn.player, character=turn.character, decision="pending", checks=turn.checks, narration=asks,
                       difficulty=reasons, pending=list(self.session.pending), notes=turn.notes, steps=turn.steps, timing=timing)

    async def _answer_pending(self, player: str, sheet: Sheet, text: str, on_token) -> GMReply:
        started = time.perf_counter()
        owed = [p for p in self.session.pending if p.check.character == sheet.name]
        if not owed:
            waiting = ", ".join(f"{p.check.character} ({p.check_name})" for p in self.session.pending)
            return GMReply(player=player, character=sheet.name, decision="pending", notes=[f"waiting for rolls from {waiting} first"], pending=list(self.session.pending))
        pending = owed[0]
        plan, diff = RollPlan.model_validate(pending.plan), Difficulty.model_validate(pending.difficulty)
        if AUTO_ROLL.match(text):
            rec = record(sheet.name, plan, diff, make_roll(plan, diff, self._rng()))
        else:
            try:
                rec = record(sheet.name, plan, diff, player_roll(plan, diff, text), by="player")
            except BadDice as exc:
                return GMReply(player=player, character=sheet.name, decision="pending", notes=[str(exc)], pending=list(self.session.pending))
        turn = self.session.pending_turn
        assert turn is not None
        turn.rolls.append(rec)
        self.session.pending.remove(pending)
        if self.session.pending:
            self.save()
            return GMReply(player=player, character=sheet.name, decision="pending", rolls=[rec], pending=list(self.session.pending))
        self.session.pending_turn = None
        reasons = [f"{r.character} — {r.check_name}: {r.target_label} ({r.difficulty_why})" for r in turn.rolls]
        return await self._finish(turn, reasons, "roll", on_token, started, {}, reading=self._read(turn.text, turn.character))

