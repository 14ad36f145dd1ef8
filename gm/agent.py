"""The TRPG Game Master loop: a player's line → roll or not, which check → dice → narration.

Built for a small model on a CPU (DESIGN.md, "The GM turn"): the rules and the pack's data
decide what they can, the model makes at most two calls a turn over one stable prompt prefix.

1. **Decide** with a pipeline (``adjudicate`` by default; any MOE pipeline such as ``tbs``
   works too): ``no_roll``, ``impossible``, or one check for the acting character.
2. **Clues by intent** (``gm.clues``): the act reaches for a scene secret by its words and
   meaning; any check of that secret's family can find it.
3. **Roll** with the character's sheet and the scene's difficulty (``gm.adjudication``);
   an impossible act is never rolled and never succeeds.
4. **Narrate** (``gm.narration``): streamed, guarded, with a descriptive fallback.

    gm = GameMaster("dnd5e", "drowned_chapel", get_model("local:small"))
    reply = gm.step("Brisa", "I search the altar for hidden catches", on_token=print)
    print(reply)          # the decision, rolls with breakdowns, the GM's words
"""
from __future__ import annotations

import asyncio
import random
import time
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence


from pipelines.records import Check, MoeInstance, Turn
from rulesets import UnknownName, VgmError

from pipelines.act_cues import CUE_CONCEPTS
from pipelines.steps import is_gm
from pipelines.steps.adjudicate import who_rolls

from . import language
from .answer import (Answer, answers_to_parts, answers_without_dice, asks_hint, choose_answer, hint, joined, own_business, remember_decided,
                     the_question)
from .decided import asks_to_decide, decide_fact
from .adjudication import Difficulty, choose_difficulty, hardest, make_roll, record
from .characters import RollPlan, ready_characters
from .clues import fits, meant, reaching_for
from .combat import Combat, CombatError, CombatEvent
from .dice import roll as roll_dice
from .intent import Intent, read_intent
from .world import foe_down, found as world_found, settle
from .world.reader import person_named
from pipelines.speech import addressed
from .fight import end_turn_after, fight_lines, linked_fight, npc_turns, opening_fight, player_acts, read_action, starts_fight, story_of, whose_turn
from .narration import NarrationRequest, contradicts, narrate
from .lines import MAX_LINE, EmptyInput, checked_line, split_speaker, with_apostrophes, with_double_quotes
from .party import carry_found, cast_between_fights, item_between_turns, party_for_fight, rest_between_fights
from .pending import PlayerRolls
from .reply import GMReply
from .session_setup import SessionSetup
from .sheet_view import own_check_told
from .table import RollRecord, Secret, TurnRecord, list_scenarios
from .undo import taken_back

__all__ = ["GameMaster", "GMReply", "EmptyInput", "split_speaker", "catalogue", "contradicts", "MAX_LINE"]

PROMPTS = Path(__file__).parent / "data" / "prompts"

class GameMaster(PlayerRolls, SessionSetup):
    """An AI Game Master for one table (set-up and arguments: ``gm.session_setup.SessionSetup``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.opening = self.open_scene()  # a scene that opens in a fight has begun it

    # ----- the table ----------------------------------------------------------------------

    def _rng(self) -> random.Random:
        """A fresh generator per roll from (seed, roll number): resuming rolls identical dice."""
        rng = random.Random(f"{self.session.seed}:{self.session.rolls_made}")
        self.session.rolls_made += 1
        return rng

    def roll(self, expr: str, who: str | None = None) -> RollRecord:
        """``/roll EXPR``: any d20 expression, logged with its breakdown."""
        result = roll_dice(expr, self._rng())
        rec = RollRecord(character=who, expression=result.expression, total=result.total, breakdown=result.breakdown, by="player" if who else "gm")
        self.session.free_rolls.append(rec)
        self.session.log.append(Turn(speaker=who or "GM", text=f"/roll {result.expression}: {result.breakdown}"))
        self.save()
        return rec

    def step(self, player: str, text: str, on_token: Callable[[str], None] | None = None,
             on_mechanics: Callable[[GMReply], None] | None = None) -> GMReply:
        """Synchronous ``astep`` (one event loop per GameMaster, so async model clients stay valid)."""
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(self.astep(player, text, on_token=on_token, on_mechanics=on_mechanics))

    # ----- one step -----------------------------------------------------------------------

    async def astep(self, player: str, text: str, *, on_token: Callable[[str], None] | None = None,
                    on_mechanics: Callable[[GMReply], None] | None = None) -> GMReply:
        """One input from ``player`` (a player or character name): decide, roll, narrate; saved.

        ``on_token`` gets the narration as it is written; ``on_mechanics`` gets the reply so far
        (rolls, fight, notes; no words yet) just before, so a screen can show the dice first.
        """
        # the last 20 inputs can be undone; each point is the whole session, compressed (about 10x), so a long game's
        # 20 copies stay small (uncompressed they grew by 20 times the session's own growth, every turn)
        self._history = [*getattr(self, "_history", [])[-19:], zlib.compress(self.session.model_dump_json().encode(), 1)]
        try:
            return await self._astep(player, text, on_token, on_mechanics)
        except BaseException:
            self._history.pop()  # a refused line changed nothing: nothing to undo
            raise

    async def _astep(self, player: str, text: str, on_token, on_mechanics) -> GMReply:
        started = time.perf_counter()
        self._on_mechanics = on_mechanics
        text = with_double_quotes(with_apostrophes(checked_line(text)))
        language.check_line(text, self.session.lang)  # an English table's rules cannot read a Chinese line: one line, not a wrong roll
        low = text.lower()
        if low.startswith("/roll"):
            who = self.character_for(player).name if player else None
            rec = self.roll(text[5:].strip(), who)
            return GMReply(player=player, character=who, decision="roll", rolls=[rec])
        if not (player or "").strip() and self.session.combat and not Combat.from_json(self.session.combat).over:
            player = Combat.from_json(self.session.combat).current.name  # in a fight, an unnamed line is whoever's turn it is
        sheet = self.character_for(player)
        if self.session.pending:
            return await self._answer_pending(player, sheet, text, on_token)
        turn = TurnRecord(player=player or self.player_of(sheet), character=sheet.name, text=text)
        fight, opened = self._fight_for(text)
        if fight is not None and opened and not fight.over and fight.current.name != sheet.name:
            self._hear(Turn(speaker=sheet.name, text=text))  # the attack starts the fight; it waits for its turn
            turn.notes.append(f"the fight begins; {fight.current.name} acts first")
            return await self._finish(turn, [], "roll", on_token, started, {}, fight, opened)
        try:
            cast = None if fight is not None or low.startswith("/") else cast_between_fights(
                self.session, self.ruleset, self.sheets, sheet.name, text, self._rng)
        except CombatError as exc:  # a spell the sheet lacks, or no slot left: refused with the reason, nothing spent
            self._hear(Turn(speaker=sheet.name, text=text))
            turn.notes.append(f"spell refused: {exc}")
            turn.why = str(exc)
            return await self._finish(turn, [], "impossible", on_token, started, {})
        if cast:
            # a spell on the sheet, cast by its rules (gm.party): its own dice, no check the GM calls
            self._hear(Turn(speaker=sheet.name, text=text))
            return await self._finish(turn, [], "no_roll", on_token, started, {}, None, cast)
        try:  # "I give the potion to Brisa", "I drink my healing potion": by what each carries (gm.party), no roll
            handed = None if opened or (low.startswith("/") and not low.startswith("/rest")) else item_between_turns(
                self.session, self.ruleset, self.sheets, self.world, sheet.name, text, self._rng) or rest_between_fights(
                self.session, self.ruleset, self.sheets, self.world, text, self._rng)  # "we take a long rest": by the game's rules
        except CombatError as exc:  # "Brisa Tallowmere has no healing potion": one line, no roll
            self._hear(Turn(speaker=sheet.name, text=text))
            turn.notes.append(f"refused: {exc}")
            turn.why, turn.refused = str(exc), True
            return await self._finish(turn, [], "impossible", on_token, started, {})
        if handed:
            self._hear(Turn(speaker=sheet.name, text=text))
            return await self._finish(turn, [], "no_roll", on_token, started, {}, None, handed)
        reading = self._read(text, sheet.name)
        if fight is not None and not opened and reading.kind in ("talk", "ask", "ooc") and fight.current.name != sheet.name:
            fight = None  # a question or a word out of turn is answered; it takes no turn and leaves the fight as it is
        if fight is not None:
            whose_turn(fight, sheet.name)
            action = None if low.startswith("/") else read_action(fight, sheet.name, text)
            if action is not None:
                self._hear(Turn(speaker=sheet.name, text=text))
                return await self._finish(turn, [], "roll", on_token, started, {}, fight, opened + player_acts(fight, sheet.name, action))
        answer = None if low.startswith("/check") else choose_answer(
            reading, self.world, table_said=self._table_said(), hidden=self.scenario.hidden_texts(set(self.session.revealed)), asker=sheet.name)
        told = own_check_told(text, sheet, self.ruleset) if reading is not None and reading.kind == "ooc" else None
        # "OOC: what's my Notice die?" is the player's own business; a nudge asked with it follows it
        if told:
            answer = Answer("ooc", " ".join([told, *([hint(self.world, self._table_said())] if asks_hint(text) else [])]), final=True)
        if reading is not None and reading.kind == "ooc" and answer is None:  # a rules question: said plainly, not made up by the model
            answer = Answer("ooc", own_business(text), final=True)
        if reading is not None and reading.kind in ("ask", "act") and not low.startswith("/") and (answer is None or answer.kind == "fact"):
            answer = await self._decide_unanswered(text, reading, answer, sheet.name)
        elif answer is not None and answer.kind in ("npc_unknown", "npc_ack") and asks_to_decide(text) == "name":
            # "Sheriff, what's the bartender's name?" of a bartender the world never names: decided once, and said by the one asked
            named = await decide_fact(self.model, text, self.world, self.scenario.scene, self.ruleset.name,
                                      hidden=self.scenario.hidden_texts(set(self.session.revealed)))
            if named is not None:
                told = named.content.rstrip(".").split(" is ", 1)[-1]
                answer = Answer("npc", named.content, speaker=answer.speaker, quote=f"That's {told}.", keys=named.keys, voice=answer.voice)
        if low.startswith("/check"):
            decision, checks = "roll", [Check(character=sheet.name, skill=self._named_check(text[6:]))]
            intent = self._last_line_of(sheet.name) or self.ruleset.check(checks[0].skill).name
            secret = reaching_for(self.scenario, intent, self.session.revealed)
        else:
            # the decision pipeline weighs the secret the act reaches for (its rule answers talk
            # instead) and whether the world's answer to a question makes dice needless
            intent, secret = text, reaching_for(self.scenario, text, self.session.revealed)
            outright = answer.kind if answer is not None and answers_without_dice(answer, reading) else ""
            decision, checks = await self._decide(Turn(speaker=sheet.name, text=text), turn, secret, world_answers=outright)
        if decision == "impossible":
            answer = None  # the refusal is the reply
        decided = time.perf_counter()
        self._hear(Turn(speaker=sheet.name, text=text))
        turn.checks = checks
        secret = secret if secret is not None and decision == "roll" and checks and fits(secret, checks[0].skill) else None
        if decision == "impossible":
            turn.notes.append("no roll: the act cannot succeed")
            turn.refused = True
        plans = [(c, self.sheet(c.character).plan(self.ruleset, c.skill)) for c in turn.checks]
        difficulties = [self._difficulty(p, c.skill, intent, secret) for c, p in plans]
        if turn.implausible:
            difficulties = [hardest(d, "the act is unlikely to work at all") for d in difficulties]
        reasons = [f"{c.character} — {p.check_name}: {d.label(p) or 'no target'} ({d.reason})" for (c, p), d in zip(plans, difficulties)]
        timing = {"decide_s": round(decided - started, 3)}
        if self.session.player_rolls and plans:
            return self._ask_for_rolls(turn, plans, difficulties, reasons, timing)
        turn.rolls = [record(c.character, p, d, make_roll(p, d, self._rng())) for (c, p), d in zip(plans, difficulties)]
        events = opened + end_turn_after(fight, sheet.name) if fight is not None else []
        return await self._finish(turn, reasons, decision, on_token, started, timing, fight, events, reading=reading, answer=answer)

    def _named_check(self, name: str) -> str:
        try:
            return self.ruleset.resolve(name.strip())
        except UnknownName as exc:
            raise VgmError(f"/check: {exc}") from None

    def _last_line_of(self, character: str) -> str | None:
        return next((t.text for t in reversed(self.session.log) if t.speaker == character), None)

    def _difficulty(self, plan: RollPlan, check_id: str, text: str, secret) -> Difficulty:
        """The check's difficulty; only the secret the act reaches for (if this check fits it) sets the number."""
        found = secret if secret is not None and fits(secret, check_id) else None
        only = [found.model_copy(update={"keywords": [], "checks": [check_id]})] if found else []
        scene = self.scenario.model_copy(update={"secrets": only})
        return choose_difficulty(plan.system, check_id, text, scene, set(self.session.revealed))

    @property
    def can_undo(self) -> bool:
        return bool(getattr(self, "_history", None))

    @property
    def can_regenerate(self) -> bool:
        """The last thing said at the table is the GM's answer to the last turn (not a free roll since)."""
        return self.can_undo and bool(self.session.turns) and self.session.log[-1].text == self.session.turns[-1].narration

    def undo(self, why: str = "undone") -> bool:
        """Take back the last input and everything the GM did with it (the host's undo); saved.

        The long-session memory keeps what it was told: only the session and the fight go back.
        What was taken back, dice and all, is listed in ``session.undone`` (``gm.undo``).
        """
        if not getattr(self, "_history", None):
            return False
        path, before = self.session.path, self.session
        self.session = type(self.session).model_validate_json(zlib.decompress(self._history.pop()))
        self.session.path = path
        self.session.undone = [*before.undone, *taken_back(before, self.session, why)]
        self.save()
        return True

    async def aregenerate(self, **listeners: Any) -> GMReply | None:
        """Undo the last input and play it again: same line, fresh words (and, past the undo, the same dice)."""
        last = self.session.turns[-1] if self.can_regenerate else None
        if last is None or not self.undo("regenerated"):
            return None
        return await self.astep(last.player if last.player in self.session.players else last.character or "", last.text, **listeners)

    def regenerate(self, **listeners: Any) -> GMReply | None:
        """Synchronous ``aregenerate``."""
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(self.aregenerate(**listeners))

    def _hear(self, said: Turn) -> None:
        self.session.log.append(said)
        self._remember(len(self.session.log) - 1, said)

    def _fight_for(self, text: str) -> tuple[Combat | None, list[CombatEvent]]:
        """The fight under way, or the one the scene breaks into when this line attacks (with its opening events)."""
        if self.session.combat is not None:
            fight = Combat.from_json(self.session.combat)
            return (None, []) if fight.over else (fight, [])
        if not text.startswith("/") and starts_fight(self.scenario, text):
            fight = linked_fight(self.scenario, party_for_fight(self.session, self.sheets), self.session.seed)  # slots spent before it stay spent
            return fight, list(fight.log) + npc_turns(fight)
        return None, []

    def open_scene(self) -> list[str]:
        """A scene that opens in a fight starts it: initiative, and the NPCs who act first (logged, saved)."""
        fight = opening_fight(self.scenario, self.sheets, self.session.seed) if self.session.combat is None and not self.session.turns else None
        if fight is None:
            return []
        lines = fight_lines(list(fight.log) + npc_turns(fight))
        self._keep_fight(fight, lines)
        return lines

    def _keep_fight(self, fight: Combat, lines: list[str]) -> None:
        for line in lines:
            self._say(f"[fight] {line}")
        self.session.combat = fight.to_dict()
        self.save()

    async def _finish(self, turn: TurnRecord, reasons: list[str], decision: str, on_token, started: float, timing: dict,
                      fight: Combat | None = None, events: list[CombatEvent] | None = None, *,
                      reading: Intent | None = None, answer: Answer | None = None) -> GMReply:
        """Reveal what the rolls found, keep the fight, narrate, log, save. ``reading`` is the line's
        intent (what the world keeps of the act); ``answer`` the content chosen for a question not rolled."""
        fought = fight_lines(events or [])
        if fight is not None:
            self._keep_fight(fight, fought)
            turn.notes += [f"the fight is over: {fight.outcome_text()}"] if fight.over else []
        found = []
        secrets = {s.id: s for s in self.scenario.secrets}
        for rec in turn.rolls:
            self._say(f"[roll] {rec.line()}")
            secret = secrets.get(rec.secret or "")
            if secret is not None and rec.success and secret.id not in self.session.revealed:
                self.session.revealed.append(secret.id)
                found.append(secret.text)
                world_found(self.world, secret.text, rec.character, len(self.session.turns))  # the finder holds what it names
            elif secret is not None and rec.success is False and secret.on_fail:
                found.append(secret.on_fail)
        first: list[float] = []

        def relay(delta: str) -> None:
            first.append(first[0] if first else time.perf_counter())
            if on_token is not None:
                on_token(delta)

        if getattr(self, "_on_mechanics", None) is not None:
            self._on_mechanics(GMReply(player=turn.player, character=turn.character, decision=decision, checks=turn.checks, rolls=turn.rolls,
                                       difficulty=reasons, notes=list(turn.notes), fight=fought, order=fight.order_text() if fight is not None and not fight.over else ""))
        if reading is not None and reading.kind == "talk" and decision == "roll" and any(r.success for r in turn.rolls):
            # words that needed a roll (a guarded NPC persuaded): what they know opens to the check that succeeded
            opened = choose_answer(reading, self.world, found_checks=[r.check for r in turn.rolls if r.success],
                                   hidden=self.scenario.hidden_texts(set(self.session.revealed)))
            if opened is not None and opened.kind == "npc":
                found.append(opened.spoken())
        if fight is not None:
            for c in fight.combatants.values():
                if not c.standing and (npc := self.world.npc(c.name)) is not None and npc.alive:
                    foe_down(self.world, c.name, dead=True, turn=len(self.session.turns))
        if reading is not None and reading.kind not in ("ask", "ooc", "talk") and decision != "impossible" and (
                decision == "no_roll" or (turn.rolls and all(r.success for r in turn.rolls))):
            settle(self.world, turn.text, turn.character or "", len(self.session.turns))  # the lantern taken is held; the door opened is open
        request = self._narration_request(turn, decision, " ".join(" ".join(f.split()) for f in found))
        request.answer = answer if decision == "no_roll" else None
        if decision == "roll" and not found and answer is not None and reading is not None and reading.kind in ("ask", "talk"):
            # a question the dice turned up nothing for ("what can I see in the cottage?", a failed Spot Hidden) is
            # answered from the world as anyone there would see it, not narrated as a deed ("the lighthouse is lit")
            request.answer, request.decision = answer, "no_roll"
        request.world = None if events else self.world  # an act's outcome is planned from the world, then worded (gm.outcome)
        if events:
            request.verdict, request.success = f"{request.verdict} In the fight: {story_of(events)}".strip(), None
            request.standing = [c.name for c in fight.combatants.values() if c.standing] if fight is not None else []
            mine = [e for e in events if e.kind == "attack" and e.actor == turn.character and e.hit is not None]
            request.struck = any(e.hit for e in mine) if mine else None  # the words must tell the hit or the miss the dice made
            request.struck_at = [e.target for e in mine if e.target]
        narration = await narrate(self.model, request, on_token=relay)
        turn.narration = _quotes_closed(narration.text)
        if request.answer is None and decision == "no_roll" and not events and reading is not None and reading.kind == "ask" and not narration.fell_back:
            remember_decided(self.world, turn.text, narration.text, len(self.session.turns))  # the same question, the same answer
        turn.notes += narration.notes
        turn.steps.append(_step_cost("narrate", narration.usage))
        self._say(turn.narration)
        self.session.turns.append(turn)
        turn.notes += carry_found(self.session, self.ruleset, self.sheets, self.world)  # a thing found or taken is now carried
        self.save()
        timing = {**timing, "turn_s": round(time.perf_counter() - started, 3),
                  "first_token_s": round(first[0] - started, 3) if first else None}
        return GMReply(player=turn.player, character=turn.character, decision=decision, checks=turn.checks, rolls=turn.rolls,
                       narration=turn.narration, difficulty=reasons, notes=turn.notes, steps=turn.steps, timing=timing,
                       fight=fought, order=fight.order_text() if fight is not None and not fight.over else "", failed=turn.failed,
                       speaker=request.answer.speaker if request.answer is not None and request.answer.kind != "npc_gone" and request.answer.speaker else None)

    def say(self, text: str) -> None:
        """Put a GM line in the log as said (a host's aside, an eval case's earlier GM line); saved."""
        self._say(" ".join(str(text).split()))
        self.save()

    def reword(self, text: str) -> bool:
        """The GM's last reply said in other words (an eval case's own GM line for an earlier turn): the
        log and the turn's record carry them, and a fact the old words decided is forgotten, so nothing
        recalls what was never said. False when there is no reply to reword; saved."""
        text = " ".join(str(text).split())
        turn = self.session.turns[-1] if self.session.turns and text else None
        at = next((i for i in range(len(self.session.log) - 1, -1, -1) if turn is not None and is_gm(self.session.log[i].speaker)
                   and self.session.log[i].text == turn.narration), None)
        if at is None:
            return False
        self.session.log[at] = Turn(speaker="GM", text=text)
        self._remember(at, self.session.log[at])
        decided = len(self.session.turns) - 1
        self.world.facts = [f for f in self.world.facts if not (f.source == "decided" and f.turn == decided)]
        turn.narration = text
        self.save()
        return True

    async def _decide_unanswered(self, text: str, reading: Intent, answer: Answer | None, asker: str) -> Answer | None:
        """"how tall is the lighthouse?" of a world that never says: the value is decided once and kept, then worded;
        of a line asking several things ("how wide is the bridge, and how many goblins?"), each part the world lacks.
        The parts are answered as ``choose_answer`` answers them (the same table, the same asker)."""
        hidden = self.scenario.hidden_texts(set(self.session.revealed))
        each = answers_to_parts(reading, self.world, table_said=self._table_said(), hidden=hidden, asker=asker)
        if not each:  # decide_fact leaves a question of no value it decides to the reply (None)
            if answer is not None:
                return answer
            return await decide_fact(self.model, the_question(text), self.world, self.scenario.scene, self.ruleset.name, hidden=hidden)
        told = [a or await decide_fact(self.model, q, self.world, self.scenario.scene, self.ruleset.name, hidden=hidden) for q, a in each]
        if all(told) or not any(told):
            return joined(told) if all(told) else answer
        # "how many pews are there? and who first heard the bell?": what the world holds is said as it stands, the
        # rest is left to the model alone (given the whole line, it answered neither, or one wrongly)
        return joined(told, rest=[q for (q, _), a in zip(each, told) if a is None])

    def _say(self, text: str) -> None:
        self.session.log.append(Turn(speaker="GM", text=text))
        self._remember(len(self.session.log) - 1, self.session.log[-1])

    # ----- reading the line -----------------------------------------------------------------

    def _read(self, text: str, speaker: str = "") -> Intent:
        """The line's one typed reading: whom it talks to, whether it asks the GM, out of character.
        Someone the scene's prose names but no NPC list does is met when first spoken to. The
        speaker is no listener: "Marisol turns to Sister Imara" is put to Imara."""
        pcs = [n for s in self.sheets if s.name != speaker for n in s.names()]
        last = getattr(self, "_spoken_to", None)  # "and where were you?" goes on to whom the table spoke to last
        reading = read_intent(text, npcs=self.world.npcs, pcs=pcs, last_npc=last)
        called = addressed(text) if reading.npc is None and reading.kind in ("talk", "act", "ask") else None
        met = person_named(" ".join([self.scenario.scene, self.scenario.opening]), called) if called and called not in pcs else None
        if met is not None and self.world.npc(met.name) is None:
            self.world.npcs.append(met)
            reading = read_intent(text, npcs=self.world.npcs, pcs=pcs, last_npc=last)
        if reading.kind == "talk" and reading.npc is None and (meant := self.world.described(text)):
            reading = reading.model_copy(update={"npc": meant})  # "asks the old guy mending nets how...": by what the scene says of him
        self._spoken_to = reading.npc if reading.kind == "talk" and reading.npc else last
        return reading

    def _table_said(self) -> list[str]:
        """What was said at this table (the GM's words, the players' lines by name), what was found and
        settled, oldest first: what a question about the table's past is answered from."""
        from .narration import split_sentences

        # a player's line with how its roll went: "Eddie Kowalczyk: I search the cottage for a key (Locksmith: fumble)"
        outcome = {t.text: "; ".join(f"{r.check_name}: {r.outcome}" for r in t.rolls) for t in self.session.turns if t.rolls}
        said = []
        for t in self.session.log[1:]:  # [1:]: the opening is a fact already
            if t.text.startswith(("[", "/")):
                continue
            if is_gm(t.speaker):
                said += split_sentences(t.text)
            else:
                said.append(f"{t.speaker}: {t.text}" + (f" ({outcome[t.text]})" if t.text in outcome else ""))
        said += [s.text for s in self.scenario.secrets if s.id in self.session.revealed]
        said += [f.text for f in self.world.facts if f.source == "outcome"]
        return [s for s in said if s and s.strip()]

    # ----- deciding -------------------------------------------------------------------------

    def _instance(self, said: Turn) -> MoeInstance:
        """The MOE question for this moment: recalled memory, the recent log, the new line."""
        context = [Turn(speaker="GM", text=self.scenario.public_scene(set(self.session.revealed)))]
        recalled = self._recalled(said.text)
        if recalled:
            context.append(Turn(speaker="GM", text="(Earlier at this table) " + " | ".join(m.text for m in recalled)))
        context += [t for t in self.session.log[-self.recent_turns:] if not t.text.startswith("[roll]")]
        context.append(said)
        # the acting character first: small models lean to the first name listed
        ordered = sorted(self.sheets, key=lambda s: s.name != said.speaker)
        names = [f"{s.name}|{'|'.join(n for n in s.names()[1:])}".rstrip("|") for s in ordered]
        return MoeInstance(id=f"{self.session.id}-{len(self.session.log)}", ruleset=self.ruleset.name, context=context, characters=names)

    async def _decide(self, said: Turn, turn: TurnRecord, secret: Secret | None, world_answers: str = "") -> tuple[str, list[Check]]:
        """Run the decision pipeline: every judgement of the line (secrets, the sheet's Lore, talk,
        impossible acts) is made there, one place, and each rule that fired comes back as a note.
        A failure or an answer the table cannot use means no roll, said plainly."""
        instance = self._instance(said)
        result = await self.pipeline.run(instance, self.model, pack=self.ruleset, prompts_dir=str(PROMPTS),
                                         scene=self.scenario.public_scene(set(self.session.revealed)),
                                         hint_checks=list(secret.checks) if secret else [],
                                         secret_meant=bool(secret) and meant(secret, said.text),
                                         own_checks={s.name: [k for keys in s.check_keys().values() for k in keys] for s in self.sheets},
                                         without_magic=[s.name for s in self.sheets if not s.works_magic(self.ruleset)],
                                         powers={s.name: {"spells": list(s.spells), "has": " ".join([s.concept, s.notes, *s.spells, *_carried(s)])}
                                                 for s in self.sheets if s.spells or not s.works_magic(self.ruleset)},
                                         game_spells=_game_spells(self.ruleset.name),
                                         blind_in_dark=[s.name for s in self.sheets if not s.sees_in_dark(self.ruleset)],
                                         world_answers=world_answers,
                                         **({"lang": self.session.lang} if self.session.lang != "en" else {}))
        turn.steps += [_step_cost(s.name, s.usage) for s in result.steps]
        turn.notes += [s.error for s in result.steps if s.error]
        if result.error:
            turn.notes.append(f"the decision step failed ({result.error}); no roll this time")
            turn.failed = f"decision step: {result.error}"
            return "no_roll", []
        dropped = [d.removeprefix("skill ") for s in result.steps for d in s.dropped if d.startswith("skill ")]
        if dropped:
            turn.notes.append(f"ignored {', '.join(dropped)}: not checks in {self.ruleset.name}")
        decision = result.decision or ("roll" if result.checks else "no_roll")
        parsed = [s.parsed for s in result.steps if isinstance(s.parsed, dict)]
        turn.why = next((p["rule"] for p in parsed if p.get("rule")), "")
        turn.implausible = any(p.get("hardest") for p in parsed)
        turn.notes += [f"{f['rule']}: {f['reason']} ({f['from']} -> {f['to']})" for p in parsed for f in p.get("fired", [])]
        if decision != "roll" or not result.checks:
            return ("no_roll" if decision == "roll" else decision), []
        # one check, for whoever the line makes act: the speaker unless it plainly names another
        who = who_rolls(said.speaker, said.text, instance) or said.speaker
        chosen = next((c for c in result.checks if c.character == who), None)
        if chosen is None:
            chosen = Check(character=who, skill=result.checks[0].skill)
            turn.notes.append(f"the model named {result.checks[0].character} for {result.checks[0].skill}, but {who} is acting; {who} rolls it")
        elif len(result.checks) > 1:
            turn.notes.append(f"one check at a time: {who} rolls {chosen.skill}")
        return "roll", [chosen]

    # ----- narrating ----------------------------------------------------------------------

    def _narration_request(self, turn: TurnRecord, decision: str, found: str) -> NarrationRequest:
        sheet = self.sheet(turn.character) if turn.character else self.sheets[0]
        revealed = set(self.session.revealed)
        # a refused act stays out of the lines the model reads: "I punch the lighthouse until it falls
        # over" there came back a turn later as "The lighthouse falls over"
        refused = {t.text for t in self.session.turns if t.refused}
        # only the players' own lines, and not the act itself (it comes after them): a small model
        # handed the GM's earlier words blends them into this turn ("Brisa's arm flies up to the bell
        # tower, holding wet footprints"), and the guards then cut the repeats and ask again
        # (bench/narration_sessions.py, local:small, 24 turns: 10 retried and 4 fell back with them, 9 and 3 without)
        recent = [f"{t.speaker}: {' '.join(t.text.split())}" for t in self.session.log[-9:-1]
                  if not t.text.startswith(("[roll]", "/roll")) and t.text not in refused and not is_gm(t.speaker) and t.text != turn.text]
        rolls = turn.rolls
        verdict = " ".join(f"{r.character}'s {r.check_name} roll: {r.outcome}." for r in rolls) if self.session.lang == "en" \
            else language.verdict(rolls, self.ruleset, self.session.lang)
        success = None if not rolls else all(r.success for r in rolls) if all(r.success is not None for r in rolls) else None
        said_before = [t.narration for t in self.session.turns[-12:] if t.narration]  # a small model repeats itself
        return NarrationRequest(
            pack=self.ruleset, scene=self.scenario.public_scene(revealed), name=sheet.names()[1] if len(sheet.names()) > 1 else sheet.name,
            line=turn.text if not turn.text.startswith("/check") else f"I make a {rolls[0].check_name} check" if rolls else "I try it", decision=decision,
            verdict=verdict, success=success, found=found, recent=recent[-2:],
            pc_names=[n for s in self.sheets for n in s.names()], hidden=self.scenario.hidden_texts(revealed),
            scene_line=self._scene_line(turn.text, revealed, said_before), max_tokens=self.narrate_tokens, why=turn.why,
            recall=bool(rolls) and all(r.check in self._knowledge for r in rolls), implausible=turn.implausible,
            said_before=said_before, silent=[n.name for n in self.world.npcs if not (n.alive and n.present)],
            facts=[f.text for f in self.world.public_facts()], lang=self.session.lang,
        )

    @property
    def _knowledge(self) -> set[str]:
        """The pack's checks for what a character knows (its History, Occult, Society...), the ones a
        "think back" calls: failing one teaches nothing, so the narration must not tell lore."""
        return {check for concept in CUE_CONCEPTS["recall"] for check in self.ruleset.concepts.get(concept, [])}

    def _scene_line(self, text: str, revealed: set[str], said: Sequence[str] = ()) -> str:
        """The public scene sentence nearest the act: what a fallback can truthfully say. The cast
        list's "Ruth Quist: the keeper, missing for four nights." is no sentence to narrate (and
        says nothing of where she is), so only the scene and what was found count. Only a sentence
        that shares a word with the act, one the table has not heard yet (the opening, an earlier
        narration), or for a question one heard before: an opening said again after every act reads as
        a GM not listening."""
        from pipelines.embeddings import embed_with

        from pipelines.decide.scene_facts import lemmas

        from .answer import content_words
        from .narration import split_sentences

        found = [s.text.strip() for s in self.scenario.secrets if s.id in revealed]
        heard = " ".join([self.scenario.opening, *said])
        asked = {lemma for word in content_words(text) for lemma in lemmas(word)}
        sentences = [s for s in split_sentences(" ".join([self.scenario.scene, *found])) or split_sentences(self.scenario.opening)
                     if asked & {lemma for word in content_words(s) for lemma in lemmas(word)}]
        # a question may be answered by what the table heard before; an act is not retold with it again
        sentences = [s for s in sentences if s not in heard] or (sentences if "?" in text else [])
        if not sentences:
            return ""
        vectors = embed_with("auto", [text, *sentences])  # a Chinese scene is read with the multilingual encoder
        return sentences[int((vectors[1:] @ vectors[0]).argmax())]


def _quotes_closed(text: str) -> str:
    """The words with a quote the model left open closed at their end: the log keeps whole quotes, so a later
    recall of what was said never runs on into the turns after it."""
    return f'{text}"' if (text.count('"') + text.count("“") + text.count("”")) % 2 else text


@lru_cache(maxsize=8)
def _game_spells(ruleset: str) -> tuple[str, ...]:
    """The game's own spells and powers by name, so "Dutch throws a Bolt" is known for a power his
    sheet lacks; D&D's single-word spells ("Light", "Shield") are everyday words and stay out."""
    from .combat.powers import power_book
    from .combat.spells import spell_book

    if ruleset == "dnd5e":
        return tuple(s.name for s in spell_book().spells.values() if " " in s.name)
    return tuple(p.name for p in (getattr(power_book(), ruleset, None) or {}).values())


def _carried(sheet: Any) -> list[str]:
    """What a sheet carries by name (only d20 sheets keep items), for the powers a worn or held item
    gives; a potion or scroll gives its power only when used, so it gives none standing."""
    items = getattr(sheet, "items", None)
    return [str(k) for k in items if not str(k).lower().startswith(("potion", "scroll"))] if isinstance(items, dict) else []


def _step_cost(name: str, usage: Any) -> dict[str, Any]:
    return {
        "name": name,
        "seconds": round(float(getattr(usage, "latency_s", 0.0) or 0.0), 3),
        "prompt_tokens": getattr(usage, "prompt_tokens", 0),
        "completion_tokens": getattr(usage, "completion_tokens", 0),
        "cached_tokens": getattr(usage, "cached_tokens", 0),
        "cache_hit": bool(getattr(usage, "cache_hit", False)),
    }


def catalogue(ruleset: str | None = None) -> list[dict[str, Any]]:
    """What can be played: each shipped scenario with its rule set and the ready characters."""
    import rulesets

    out = []
    for scen in list_scenarios(ruleset):
        pack = rulesets.load(scen.ruleset)
        sheets = ready_characters(pack)
        out.append({
            "scenario": scen.id, "ruleset": scen.ruleset, "title": scen.title,
            "characters": [{"name": s.name, "concept": s.concept, "summary": s.summary(pack)} for s in sheets],
        })
    return out
