"""The TRPG Game Master loop: a player's words → which checks (a MOE pipeline) → difficulty → dice → narration.

Tachikuma (section 5) asks a GM to understand who acts and which check that calls for before
speaking; here that understanding comes from a MOE pipeline (``tbs`` by default) run on the
session log, and the GM then does what a human GM does next: sets the difficulty, has the dice
rolled (or lets the player roll), and narrates the outcome without contradicting it.

    gm = GameMaster("dnd5e", "drowned_chapel", get_model("local:small"))
    reply = gm.step("Brisa", "I search the altar for hidden catches")
    print(reply)          # checks, rolls with breakdowns, the GM's words
"""
from __future__ import annotations

import asyncio
import random
import re
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pipelines.records import Check, MoeInstance, Turn
from rulesets import VgmError

from .adjudication import Difficulty, choose_difficulty, make_roll, player_roll, record, roll_hint
from .characters import CharacterError, RollPlan, Sheet, find_character, load_character, parse_character, ready_characters
from .dice import BadDice, roll as roll_dice
from .memory import Memo, Memory
from .table import PendingCheck, RollRecord, Scenario, Session, TurnRecord, list_scenarios, load_scenario

__all__ = ["GameMaster", "GMReply", "EmptyInput", "split_speaker", "catalogue", "contradicts"]

PROMPTS = Path(__file__).parent / "data" / "prompts"
AUTO_ROLL = re.compile(r"^\s*(/?roll|auto|r)\s*$", re.I)


class EmptyInput(VgmError):
    """The player pressed Enter without saying anything."""


class GMReply(BaseModel):
    """What the GM answers to one input: checks called, dice rolled, and the words said."""

    player: str
    character: str | None = None
    checks: list[Check] = Field(default_factory=list)
    rolls: list[RollRecord] = Field(default_factory=list)
    narration: str = ""
    difficulty: list[str] = Field(default_factory=list)  # one short reason per check
    pending: list[PendingCheck] = Field(default_factory=list)  # rolls the players still owe
    notes: list[str] = Field(default_factory=list)  # what the GM dropped or fell back on
    steps: list[dict[str, Any]] = Field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"[check] {c.character} → {c.skill}" for c in self.checks if not self.rolls and not self.pending]
        lines += [f"[roll] {r.line()}" for r in self.rolls]
        lines += [f"[why] {d}" for d in self.difficulty]
        lines += [f"[note] {n}" for n in self.notes]
        if self.narration:
            lines.append(f"GM: {self.narration}")
        return "\n".join(lines)


_NAME_LIKE = re.compile(r"^[A-Z][\w'.-]*( [A-Z][\w'.-]*){0,2}$")


def split_speaker(line: str, names: list[str]) -> tuple[str | None, str]:
    """``"Jester: I search the altar"`` → ("Jester", "I search the altar").

    A known name, or anything that looks like a name ("Zed:"), is split off — so an unknown
    name becomes an "unknown character" error rather than words spoken by someone else.
    """
    m = re.match(r"^\s*([^:]{1,40}?)\s*:\s*(.*)$", line, re.S)
    if m and (m.group(1).strip().lower() in {n.lower() for n in names} or _NAME_LIKE.match(m.group(1).strip())):
        return m.group(1).strip(), m.group(2).strip()
    return None, line.strip()


def _prompt(name: str) -> str:
    return (PROMPTS / f"{name}.txt").read_text(encoding="utf-8").strip()


_GROUP = re.compile(r"\b(we|us|our|everyone|everybody|all of us|the party|together)\b", re.I)
_FAIL_WORDS = re.compile(r"\b(fail|fails|failed|failure|miss|misses|missed|nothing|no sign|can't|cannot|couldn't|unable)\b", re.I)
_WIN_WORDS = re.compile(r"\b(succeed|succeeds|succeeded|success|successfully|manages?|find|finds|found|discovers?|spots?|notices?|uncovers?|reveals?|realizes?)\b", re.I)


def contradicts(narration: str, rolls: list[RollRecord]) -> bool:
    """A narration that only speaks of success when every roll failed (or the reverse)."""
    judged = [r.success for r in rolls if r.success is not None]
    if not judged or len(set(judged)) > 1:
        return False
    won, lost = bool(_WIN_WORDS.search(narration)), bool(_FAIL_WORDS.search(narration))
    return (judged[0] is False and won and not lost) or (judged[0] is True and lost and not won)


class GameMaster:
    """An AI Game Master for one table.

    Args:
        ruleset: a pack name (``dnd5e``, ``coc7e``, ``pf2e``, ``swade``) or a loaded ``RuleSet``.
        scenario: a shipped scenario id, a YAML path, a ``Scenario``, or None for the pack's first.
        model: a ``ChatModel`` or a model string (``local``, ``local:small``, ``scripted:f.yaml``).
        pipeline: the MOE pipeline that decides checks (``tbs``; any name from ``vgm moe pipelines``).
        characters: sheets, YAML paths or ready-character names; None takes the pack's ready ones.
        memory: a ``Memory``, ``"minilm"`` (default), ``"hashing"``, or ``False`` for none.
        players: player name → character name (hot-seat players may also use character names).
        seed: makes every roll reproducible (and a resumed game rolls the same dice).
        player_rolls: players type their own dice results instead of the GM rolling.
        session_path: where the session JSON goes (written after every turn).
    """

    def __init__(
        self,
        ruleset: Any,
        scenario: Any = None,
        model: Any = None,
        pipeline: str = "tbs",
        characters: list[Any] | None = None,
        memory: Any = "minilm",
        *,
        players: dict[str, str] | None = None,
        seed: int | None = None,
        player_rolls: bool = False,
        session_path: str | Path | None = None,
        recent_turns: int = 12,
        memory_budget: int = 300,
        narrate_tokens: int = 140,
        session: Session | None = None,
    ) -> None:
        import rulesets
        from pipelines import load_pipeline

        if ruleset is None:  # the scenario says which rules it is for; else D&D 5e
            ruleset = scenario.ruleset if isinstance(scenario, Scenario) else load_scenario(scenario).ruleset if scenario else "dnd5e"
        self.ruleset = rulesets.load(ruleset) if isinstance(ruleset, str) else ruleset
        if self.ruleset.kind != "trpg":
            raise VgmError(f"{self.ruleset.name} is a social deduction game; `vgm play` runs dnd5e, coc7e, pf2e or swade (use `vgm social` for {self.ruleset.name})")
        self.model = self._model(model)
        self.pipeline = load_pipeline(pipeline)
        self.recent_turns = recent_turns
        self.memory_budget = memory_budget
        self.narrate_tokens = narrate_tokens
        self._loop: asyncio.AbstractEventLoop | None = None

        if session is not None:
            self.session = session
            self.sheets = [parse_character(dict(c), self.ruleset, f"{session.path}: characters") for c in session.characters]
        else:
            scen = self._scenario(scenario)
            self.sheets = self._characters(characters, scen)
            self.session = Session(
                ruleset=self.ruleset.name, scenario=scen, pipeline=pipeline,
                characters=[s.model_dump(exclude_none=True) for s in self.sheets],
                player_rolls=player_rolls,
                **({"seed": seed} if seed is not None else {}),
            )
            self.session.players = self._players(players)
            self.session.log.append(Turn(speaker="GM", text=" ".join(scen.opening.split())))
            if session_path is not None:
                target = Path(session_path)
                # a folder (anything not .json) gets one file per session, named by its id
                self.session.path = str(target if target.suffix == ".json" else target / f"{self.session.id}.json")
        if not self.sheets:
            raise CharacterError(f"no characters at the table; give --characters (ready ones: see `vgm play --list --ruleset {self.ruleset.name}`)")
        self.memory = self._memory(memory)
        if self.memory is not None and len(self.memory) == 0:
            # a new game, or a resumed one whose memory was off or kept in RAM: (re)build it from the log
            self.memory.add_notes(self.scenario.notes)  # NPCs are always in the briefing
            self.memory.add_turns(list(enumerate(self.session.log)))
        self.save()

    # ----- construction helpers -------------------------------------------------------------

    @staticmethod
    def _model(model: Any):
        from pipelines.llm import get_model

        return get_model(model) if model is None or isinstance(model, str) else model

    def _scenario(self, scenario: Any) -> Scenario:
        if isinstance(scenario, Scenario):
            return scenario
        if scenario is None:
            found = list_scenarios(self.ruleset.name)
            if not found:
                raise VgmError(f"no scenario ships for {self.ruleset.name}; give --scenario FILE.yaml")
            return load_scenario(found[0].id, self.ruleset)
        return load_scenario(scenario, self.ruleset)

    def _characters(self, given: list[Any] | None, scenario: Scenario) -> list[Sheet]:
        ready = ready_characters(self.ruleset)
        if not given:
            if scenario.characters:
                return [find_character(n, ready) for n in scenario.characters]
            return ready
        out: list[Sheet] = []
        for item in given:
            if isinstance(item, Sheet):
                out.append(item)
            elif isinstance(item, dict):
                out.append(parse_character(item, self.ruleset))
            elif isinstance(item, Path) or str(item).endswith((".yaml", ".yml")):
                out.append(load_character(item, self.ruleset))
            else:
                out.append(find_character(str(item), ready))
        names = [s.name.lower() for s in out]
        if len(set(names)) != len(names):
            raise CharacterError("the same character is at the table twice; give each character once")
        return out

    def _players(self, players: dict[str, str] | None) -> dict[str, str]:
        table: dict[str, str] = {}
        for sheet in self.sheets:
            if sheet.player:
                table[sheet.player] = sheet.name
        for player, character in (players or {}).items():
            table[player] = find_character(character, self.sheets).name
        return table

    def _memory(self, memory: Any) -> Memory | None:
        if memory is False or memory is None:
            return None
        if isinstance(memory, Memory):
            return memory
        from pipelines.embeddings import default_embedding

        path = self.session.memory_dir
        if path is None and self.session.path:
            path = str(Path(self.session.path).with_suffix("")) + ".memory"
        self.session.memory_dir = path
        return Memory(self.session.id, path, embedding=default_embedding(str(memory) if isinstance(memory, str) else "minilm"), budget_tokens=self.memory_budget)

    @classmethod
    def resume(cls, path: str | Path, model: Any = None, **options: Any) -> "GameMaster":
        """Continue a saved session: same table, same log, the dice continue where they stopped."""
        session = Session.load(path)
        return cls(session.ruleset, session.scenario, model, pipeline=options.pop("pipeline", session.pipeline),
                   session=session, **options)

    # ----- the table ----------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        return self.session.scenario

    @property
    def names(self) -> list[str]:
        """Every name a line may start with: players, characters, first names, aliases."""
        out = list(self.session.players)
        for sheet in self.sheets:
            out += sheet.names()
        return out

    def character_for(self, who: str) -> Sheet:
        """The sheet a player (or a character name) stands for; ``CharacterError`` otherwise."""
        if not who or not who.strip():
            if len(self.sheets) == 1:
                return self.sheets[0]
            raise CharacterError(f"who is acting? start the line with a name, e.g. '{self.sheets[0].names()[-1]}: I look around'")
        for player, character in self.session.players.items():
            if player.lower() == who.strip().lower():
                return find_character(character, self.sheets)
        return find_character(who, self.sheets)

    def player_of(self, sheet: Sheet) -> str:
        for player, character in self.session.players.items():
            if character == sheet.name:
                return player
        return sheet.player or sheet.name

    def sheet(self, name: str) -> Sheet:
        return find_character(name, self.sheets)

    def save(self) -> Path | None:
        """Write the session JSON (a session made without a path is kept in memory only)."""
        return self.session.save() if self.session.path else None

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

    # ----- one step -----------------------------------------------------------------------

    def step(self, player: str, text: str) -> GMReply:
        """Synchronous ``astep`` (one event loop per GameMaster, so async model clients stay valid)."""
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(self.astep(player, text))

    def close(self) -> None:
        """Close the model's HTTP session on our loop, then the loop (no "unclosed session" noise)."""
        if self._loop is not None and not self._loop.is_closed():
            aclose = getattr(self.model, "aclose", None)
            if aclose is not None:
                try:
                    self._loop.run_until_complete(aclose())
                    self._loop.run_until_complete(self._loop.shutdown_asyncgens())
                except Exception:  # closing must never turn a clean exit into a traceback
                    pass
            self._loop.close()

    async def astep(self, player: str, text: str) -> GMReply:
        """One input from ``player`` (a player or character name): checks, dice, narration; saved."""
        text = (text or "").strip()
        if not text:
            raise EmptyInput("nothing was said; type what your character does (or /roll 1d20, /quit)")
        if text.lower().startswith("/roll"):
            who = self.character_for(player).name if player else None
            rec = self.roll(text[5:].strip(), who)
            return GMReply(player=player, character=who, rolls=[rec])
        sheet = self.character_for(player)
        if self.session.pending:
            return await self._answer_pending(player, sheet, text)

        said = Turn(speaker=sheet.name, text=text)
        turn = TurnRecord(player=player or self.player_of(sheet), character=sheet.name, text=text)
        checks, steps, notes = await self._propose_checks(said)
        turn.steps += steps
        turn.notes += notes
        turn.checks = checks
        plans = [(c, self.sheet(c.character).plan(self.ruleset, c.skill)) for c in checks]
        difficulties = [choose_difficulty(p.system, c.skill, text, self.scenario, set(self.session.revealed)) for c, p in plans]
        reasons = [f"{c.character} — {p.check_name}: {d.label(p) or 'no target'} ({d.reason})" for (c, p), d in zip(plans, difficulties)]

        self.session.log.append(said)
        self._remember(len(self.session.log) - 1, said)
        if self.session.player_rolls and plans:
            self.session.pending = [
                PendingCheck(check=c, check_name=p.check_name, expression=p.expression(d.advantage), hint=roll_hint(p),
                             plan=p.model_dump(), difficulty=d.model_dump())
                for (c, p), d in zip(plans, difficulties)
            ]
            self.session.pending_turn = turn
            asks = "; ".join(f"{c.character}, roll {p.check_name} ({p.expression(d.advantage)}) — type {roll_hint(p)}, or 'roll' and I will" for (c, p), d in zip(plans, difficulties))
            self._say(asks)
            self.save()
            return GMReply(player=turn.player, character=sheet.name, checks=checks, narration=asks, difficulty=reasons,
                           pending=list(self.session.pending), notes=notes, steps=turn.steps)
        turn.rolls = [record(c.character, p, d, make_roll(p, d, self._rng())) for (c, p), d in zip(plans, difficulties)]
        return await self._finish(turn, reasons)

    async def _answer_pending(self, player: str, sheet: Sheet, text: str) -> GMReply:
        owed = [p for p in self.session.pending if p.check.character == sheet.name]
        if not owed:
            waiting = ", ".join(f"{p.check.character} ({p.check_name})" for p in self.session.pending)
            return GMReply(player=player, character=sheet.name, notes=[f"waiting for rolls from {waiting} first"], pending=list(self.session.pending))
        pending = owed[0]
        plan, diff = RollPlan.model_validate(pending.plan), Difficulty.model_validate(pending.difficulty)
        if AUTO_ROLL.match(text):
            rec = record(sheet.name, plan, diff, make_roll(plan, diff, self._rng()))
        else:
            try:
                rec = record(sheet.name, plan, diff, player_roll(plan, diff, text), by="player")
            except BadDice as exc:
                return GMReply(player=player, character=sheet.name, notes=[str(exc)], pending=list(self.session.pending))
        turn = self.session.pending_turn
        assert turn is not None
        turn.rolls.append(rec)
        self.session.pending.remove(pending)
        if self.session.pending:
            self.save()
            return GMReply(player=player, character=sheet.name, rolls=[rec], pending=list(self.session.pending))
        self.session.pending_turn = None
        return await self._finish(turn, [f"{r.character} — {r.check_name}: {r.target_label} ({r.difficulty_why})" for r in turn.rolls])

    async def _finish(self, turn: TurnRecord, reasons: list[str]) -> GMReply:
        """Reveal what the rolls found, narrate, log, save."""
        for rec in turn.rolls:
            self._say(f"[roll] {rec.line()}")
            if rec.secret and rec.success and rec.secret not in self.session.revealed:
                self.session.revealed.append(rec.secret)
        turn.narration, step = await self._narrate(turn)
        turn.steps.append(step)
        self._say(turn.narration)
        self.session.turns.append(turn)
        self.save()
        return GMReply(player=turn.player, character=turn.character, checks=turn.checks, rolls=turn.rolls, narration=turn.narration,
                       difficulty=reasons, notes=turn.notes, steps=turn.steps)

    def _say(self, text: str) -> None:
        self.session.log.append(Turn(speaker="GM", text=text))
        self._remember(len(self.session.log) - 1, self.session.log[-1])

    def _remember(self, index: int, turn: Turn) -> None:
        if self.memory is not None:
            self.memory.add_turn(index, turn)

    # ----- checks (the MOE pipeline) -------------------------------------------------------

    def _recalled(self, query: str) -> list[Memo]:
        if self.memory is None:
            return []
        window_start = max(0, len(self.session.log) - self.recent_turns)
        return self.memory.recall(query, before=window_start) if window_start > 0 else [
            m for m in self.memory.recall(query) if m.kind == "note"
        ]

    def _instance(self, said: Turn) -> MoeInstance:
        """The MOE question for this moment: scene briefing, recalled memory, recent log, the new line."""
        brief = Turn(speaker="GM", text=self.scenario.briefing(set(self.session.revealed)))
        context = [brief]
        recalled = self._recalled(said.text)
        if recalled:
            context.append(Turn(speaker="GM", text="(Earlier at this table) " + " | ".join(m.text for m in recalled)))
        context += self.session.log[-self.recent_turns :]
        context.append(said)
        # the acting character first: the table lists them in that order, and small models lean to the first name
        ordered = sorted(self.sheets, key=lambda s: s.name != said.speaker)
        names = [f"{s.name}|{'|'.join(n for n in s.names()[1:])}".rstrip("|") for s in ordered]
        return MoeInstance(id=f"{self.session.id}-{len(self.session.log)}", ruleset=self.ruleset.name, context=context, characters=names)

    async def _propose_checks(self, said: Turn) -> tuple[list[Check], list[dict[str, Any]], list[str]]:
        """Run the pipeline; a skill the pack lacks gets one re-ask, then no check (said plainly)."""
        instance = self._instance(said)
        steps: list[dict[str, Any]] = []
        notes: list[str] = []
        for attempt in range(2):
            started = time.perf_counter()
            # prompts_dir: at a live table the last line is the action being resolved, so our
            # char prompt asks who must roll for it (the MOE one asks who acts next).
            result = await self.pipeline.run(instance, self.model, pack=self.ruleset, prompts_dir=str(PROMPTS))
            steps += [_step_cost(s.name, s.usage, attempt) for s in result.steps]
            if not result.steps:
                steps.append({"name": self.pipeline.name, "seconds": round(time.perf_counter() - started, 3)})
            if result.error:
                notes.append(f"the check pipeline failed ({result.error}); no check this time")
                return [], steps, notes
            bad_skills = [d.removeprefix("skill ") for s in result.steps for d in s.dropped if d.startswith("skill ")]
            checks = self._table_sense(said, result.checks, notes)
            if not bad_skills or checks:
                if bad_skills:
                    notes.append(f"ignored {', '.join(bad_skills)}: not checks in {self.ruleset.name}")
                return checks, steps, notes
            if attempt == 0:
                hint = (f"(GM's note: {', '.join(bad_skills)} is not a check in {self.ruleset.title}; "
                        f"only the check ids in the rules count.)")
                instance = instance.model_copy(update={"context": [*instance.context[:-1], Turn(speaker="GM", text=hint), instance.context[-1]]})
        notes.append(f"the model asked for {', '.join(bad_skills)}, which {self.ruleset.name} does not have, twice; no check this time")
        return [], steps, notes

    def _table_sense(self, said: Turn, checks: list[Check], notes: list[str]) -> list[Check]:
        """Keep the checks a GM would call on this line, one per character.

        The character who speaks is the one acting: when the model gave them no check but named
        someone else (small models lean to the first name listed), the check it chose is for this
        action, so the speaker rolls it. Others roll too only on a group line ("we", "everyone")
        or when named in a line whose speaker also rolls.
        """
        group = bool(_GROUP.search(said.text))
        lowered = said.text.lower()
        named = {s.name for s in self.sheets if any(re.search(rf"\b{re.escape(n.lower())}\b", lowered) for n in s.names())}
        checks = list(dict.fromkeys(checks))
        if checks and not group and not any(c.character == said.speaker for c in checks):
            first = checks.pop(0)
            notes.append(f"the model named {first.character} for {first.skill}, but {said.speaker} is acting; {said.speaker} rolls it")
            checks.insert(0, Check(character=said.speaker, skill=first.skill))
        allowed = {s.name for s in self.sheets} if group else {said.speaker} | named
        kept: list[Check] = []
        for check in checks:
            if check.character not in allowed:
                notes.append(f"no {check.skill} check for {check.character}: they are not acting on this line")
            elif any(k.character == check.character for k in kept):
                notes.append(f"one check at a time for {check.character}; dropped {check.skill}")
            else:
                kept.append(check)
        return kept

    # ----- narration ----------------------------------------------------------------------

    def _keep_consistent(self, text: str, turn: TurnRecord) -> str:
        """The narration up to its first sentence that disagrees with the dice, then the result
        said plainly (with what the scene says a success finds or a failure meets)."""
        kept: list[str] = []
        for sentence in _SENTENCE.split(text or ""):
            if contradicts(sentence, turn.rolls):
                break
            if sentence.strip():
                kept.append(sentence.strip())
        secrets = {s.id: s for s in self.scenario.secrets}
        outcome = [_plain_narration(turn)]
        for rec in turn.rolls:
            secret = secrets.get(rec.secret or "")
            if secret is not None:
                outcome.append(" ".join((secret.text if rec.success else secret.on_fail).split()))
        return " ".join([*kept[:3], *[o for o in outcome if o]]).strip()

    def _echoes(self, turn: TurnRecord) -> list[str]:
        """Lines a small model tends to copy back instead of narrating."""
        return [turn.text, self._results(turn)] + [t.text for t in self.session.log[-8:]]

    def _results(self, turn: TurnRecord) -> str:
        """The dice's verdict in plain words (numbers invite a small model to recite them)."""
        if not turn.rolls:
            return "No roll is needed: just describe what happens."
        secrets = {s.id: s for s in self.scenario.secrets}
        lines = []
        for rec in turn.rolls:
            verdict = "succeeds" if rec.success else "fails" if rec.success is False else f"rolls {rec.total}"
            detail = f" ({rec.outcome})" if rec.outcome and rec.outcome not in ("success", "failure") else ""
            lines.append(f"{rec.character}'s {rec.check_name} check {verdict}{detail}.")
            secret = secrets.get(rec.secret or "")
            if secret and rec.success:
                lines.append(f"What they discover: {' '.join(secret.text.split())}")
            elif secret and rec.success is False:
                lines.append(f"They discover nothing. {' '.join(secret.on_fail.split())}".strip())
        return "\n".join(lines)

    def _narration_messages(self, turn: TurnRecord) -> list[dict[str, str]]:
        """Its own short conversation: the scene, recalled memory, the last lines, the verdict."""
        system, user = (part.strip() for part in _prompt("narrate").split("\n---\n", 1))
        sheet = self.sheet(turn.character) if turn.character else self.sheets[0]
        recalled = self._recalled(turn.text)
        memory = ("Remembered from earlier: " + " | ".join(m.text for m in recalled)) if recalled else ""
        recent = [t for t in self.session.log[-8:] if not t.text.startswith("[roll]")]
        if recent and recent[-1].speaker == sheet.name and recent[-1].text == turn.text:
            recent = recent[:-1]
        user = user.format(
            scene=" ".join(self.scenario.briefing(set(self.session.revealed)).split()), memory=memory,
            log="\n".join(f"{t.speaker}: {' '.join(t.text.split())}" for t in recent[-6:]),
            character=sheet.name, text=turn.text, results=self._results(turn), name=sheet.names()[1] if len(sheet.names()) > 1 else sheet.name,
        )
        return [{"role": "system", "content": system.format(ruleset=self.ruleset.title)}, {"role": "user", "content": user}]

    async def _narrate(self, turn: TurnRecord) -> tuple[str, dict[str, Any]]:
        """The GM utterance: narrate the outcome, re-asked once if it contradicts the dice."""
        messages = self._narration_messages(turn)
        started = time.perf_counter()
        reply = await self.model.complete(messages, step="narrate", max_tokens=self.narrate_tokens, temperature=0.7)
        usage = reply.usage
        text = _clean(reply.text, self._echoes(turn), self.names)
        if not text or contradicts(text, turn.rolls):
            fix = "Your answer was empty." if not text else "That contradicts the dice: " + "; ".join(f"{r.character}'s {r.check_name} was a {r.outcome}" for r in turn.rolls) + "."
            again = messages + [{"role": "assistant", "content": reply.text}, {"role": "user", "content": fix + " Narrate again, following the results exactly."}]
            reply = await self.model.complete(again, step="narrate", max_tokens=self.narrate_tokens, temperature=0.3)
            usage = usage + reply.usage
            text = _clean(reply.text, self._echoes(turn), self.names)
            if not text or contradicts(text, turn.rolls):
                text = self._keep_consistent(text, turn)
                turn.notes.append("the narration contradicted the dice twice; the contradicting sentences were cut and the result stated")
        step = _step_cost("narrate", usage, 0)
        if not step.get("seconds"):
            step["seconds"] = round(time.perf_counter() - started, 3)
        return text, step


def _flat(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def _clean(text: str, echoes: list[str] | None = None, names: list[str] | None = None) -> str:
    """The GM's words only.

    Drops the "GM:" label, dice lines, and any sentence the model copied from the prompt or the
    recent log (small models recite the verdict line or repeat last turn's narration), and any
    sentence that puts words in a player character's mouth ("Brisa says: ...").
    """
    echoes = [_flat(e) for e in (echoes or []) if e.strip()]
    speaking = re.compile(r"^(%s)\s+(says|said|asks|replies)\b" % "|".join(re.escape(n) for n in names), re.I) if names else None
    lines = []
    for line in (text or "").splitlines():
        line = re.sub(r"^(GM|Game Master|DM)\s*:\s*", "", line.strip(), flags=re.I)
        if line and not line.startswith(("[roll]", "- ")) and "→" not in line:
            lines.append(line)
    kept = []
    for sentence in _SENTENCE.split(" ".join(lines)):
        sentence = sentence.strip()
        flat = _flat(sentence)
        if not flat or (len(flat) > 12 and any(flat in echo or (len(echo) > 20 and echo in flat) for echo in echoes)):
            continue
        if speaking is not None and speaking.match(sentence.lstrip("\"'")):
            continue
        kept.append(sentence)
    return _tidy(_balance_quotes(" ".join(kept)))


def _balance_quotes(text: str) -> str:
    """Drop a lone double quote left behind when a copied sentence was cut out."""
    text = text.strip()
    if text.count('"') % 2 == 1:
        text = text.replace('"', "", 1) if text.startswith('"') else text[::-1].replace('"', "", 1)[::-1]
    return text


_SENTENCE = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"')\]]))\s+")


def _tidy(text: str, max_sentences: int = 4) -> str:
    """At most a few sentences, each said once, no half sentence at the end.

    Small local models loop ("The lid is a small box. The lid is a small box. ...") and stop
    mid-sentence at the token limit; a GM at the table does neither.
    """
    sentences = [p.strip() for p in _SENTENCE.split(text) if p.strip()]
    seen: set[str] = set()
    kept: list[str] = []
    for sentence in sentences:
        key = re.sub(r"\W+", " ", sentence.lower()).strip()
        if key in seen:
            continue
        seen.add(key)
        kept.append(sentence)
    if len(kept) > 1 and not re.search(r"[.!?…][\"')\]]*$", kept[-1]):
        kept.pop()
    return " ".join(kept[:max_sentences])


def _plain_narration(turn: TurnRecord) -> str:
    parts = [f"{r.character}'s {r.check_name} check {'succeeds' if r.success else 'fails' if r.success is False else 'is ' + r.outcome}." for r in turn.rolls]
    return " ".join(parts) or "The scene moves on."


def _step_cost(name: str, usage: Any, attempt: int) -> dict[str, Any]:
    return {
        "name": name if attempt == 0 else f"{name} (re-ask)",
        "seconds": round(float(getattr(usage, "latency_s", 0.0) or 0.0), 3),
        "prompt_tokens": getattr(usage, "prompt_tokens", 0),
        "completion_tokens": getattr(usage, "completion_tokens", 0),
        "cached_tokens": getattr(usage, "cached_tokens", 0),
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
