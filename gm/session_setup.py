"""Setting the table: rule set, scenario, model, decision pipeline, characters, memory, session.

``GameMaster`` (``gm.agent``) keeps the turn loop; everything about building or resuming the
table it plays at lives here, so the loop reads as a turn and nothing else.
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pipelines.records import Turn
from rulesets import VgmError

from . import language
from .characters import CharacterError, Sheet, find_character, load_character, parse_character, ready_characters
from .memory import Memo, Memory
from .table import Scenario, Session, list_scenarios, load_scenario
from .world import World, read_world

__all__ = ["SessionSetup", "DEFAULT_PIPELINE"]

DEFAULT_PIPELINE = "adjudicate"
DEFAULT_PIPELINE_ZH = "template"  # adjudicate reads English example lines; a Chinese table decides with a prompt that has a Chinese twin


class SessionSetup:
    """The table an AI Game Master runs.

    Args:
        ruleset: a pack name (``dnd5e``, ``coc7e``, ``pf2e``, ``swade``) or a loaded ``RuleSet``.
        scenario: a shipped scenario id, a YAML path, a ``Scenario``, or None for the pack's first.
        model: a ``ChatModel`` or a model string (``local``, ``local:small``, ``scripted:f.yaml``).
        pipeline: the decision pipeline (``adjudicate``; any MOE pipeline such as ``tbs`` also works; None: ``adjudicate``,
            or ``template`` at a Chinese table).
        characters: sheets, YAML paths or ready-character names; None takes the pack's ready ones.
        memory: a ``Memory``, ``"minilm"`` (default), ``"hashing"``, or ``False`` for none.
        players: player name → character name (hot-seat players may also use character names).
        seed: makes every roll reproducible (and a resumed game rolls the same dice).
        player_rolls: players type their own dice results instead of the GM rolling.
        session_path: where the session JSON goes (written after every turn).
        lang: ``en`` or ``zh``: the language the GM narrates in and reads lines in (a resumed session keeps its own).
    """

    def __init__(
        self,
        ruleset: Any,
        scenario: Any = None,
        model: Any = None,
        pipeline: str | None = None,
        characters: list[Any] | None = None,
        memory: Any = "minilm",
        *,
        players: dict[str, str] | None = None,
        seed: int | None = None,
        player_rolls: bool = False,
        session_path: str | Path | None = None,
        recent_turns: int = 8,
        memory_budget: int = 300,
        narrate_tokens: int = 90,
        session: Session | None = None,
        lang: str = "en",
    ) -> None:
        import rulesets
        from pipelines import load_pipeline

        if ruleset is None:  # the scenario says which rules it is for; else D&D 5e
            ruleset = scenario.ruleset if isinstance(scenario, Scenario) else load_scenario(scenario).ruleset if scenario else "dnd5e"
        self.ruleset = rulesets.load(ruleset) if isinstance(ruleset, str) else ruleset
        if self.ruleset.kind != "trpg":
            raise VgmError(f"{self.ruleset.name} is a social deduction game; `vgm play` runs dnd5e, coc7e, pf2e or swade (use `vgm social` for {self.ruleset.name})")
        lang = language.check_lang(session.lang if session is not None else lang)
        pipeline = pipeline or (DEFAULT_PIPELINE if lang == "en" else DEFAULT_PIPELINE_ZH)
        language.check_pipeline(pipeline, lang)
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
                player_rolls=player_rolls, lang=lang,
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
        if self.session.model is None and getattr(self.model, "name", None):
            self.session.model = str(self.model.name)
        if self.session.memory is None:
            self.session.memory = memory if isinstance(memory, str) else "off" if memory is False or memory is None else "custom"
        self.memory = self._memory(memory)
        if self.memory is not None and len(self.memory) == 0:
            # a new game, or a resumed one whose memory was off or kept in RAM: (re)build it from the log
            self.memory.add_notes(self.scenario.notes)  # the GM's own notes: recalled for deciding, never narrated
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
            from .combat import encounter_for

            calm = [s for s in found if encounter_for(s) is None]  # a first game opens in talk, not in a fight
            return load_scenario((calm or found)[0].id, self.ruleset)
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
    def resume(cls, path: str | Path, model: Any = None, **options: Any):
        """Continue a saved session: same table, same log, same model and memory unless told
        otherwise, and the dice continue where they stopped."""
        session = Session.load(path)
        if model is None and session.model:
            model = session.model
        if "memory" not in options and session.memory in ("minilm", "hashing", "off"):
            options["memory"] = False if session.memory == "off" else session.memory
        return cls(session.ruleset, session.scenario, model, pipeline=options.pop("pipeline", session.pipeline),
                   session=session, **options)

    # ----- who is who -----------------------------------------------------------------------

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

    # ----- saving, memory, closing -----------------------------------------------------------

    @property
    def world(self) -> World:
        """The scene's world as play has changed it: read from the scenario once, then kept in the
        session (saved every turn, so ``--resume`` and undo bring back who holds what and what was decided)."""
        if getattr(self, "_world_of", None) is not self.session:
            self._world = World.model_validate(self.session.world) if self.session.world else read_world(self.scenario)
            party = {n.lower() for s in getattr(self, "sheets", []) for n in s.names()}
            # the prose may name the players' own characters ("Marisol waits with her shield lowered"): no NPC answers for them
            self._world.npcs = [n for n in self._world.npcs if n.name.lower() not in party and n.name.split()[0].lower() not in party]
            self._world_of = self.session
        return self._world

    def save(self) -> Path | None:
        """Write the session JSON (a session made without a path is kept in memory only)."""
        if getattr(self, "_world_of", None) is self.session:
            self.session.world = self._world.model_dump(exclude_defaults=True)
        return self.session.save() if self.session.path else None

    def _remember(self, index: int, turn: Turn) -> None:
        if self.memory is not None:
            self.memory.add_turn(index, turn)

    def _recalled(self, query: str) -> list[Memo]:
        """Older lines (and the GM's notes) that bear on ``query``, outside the recent window."""
        if self.memory is None:
            return []
        window_start = max(0, len(self.session.log) - self.recent_turns)
        return self.memory.recall(query, before=window_start) if window_start > 0 else [
            m for m in self.memory.recall(query) if m.kind == "note"
        ]

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
