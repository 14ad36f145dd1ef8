"""Who sits at the table: an LLM, a person at the terminal, or a rule-based player.

Every seat answers ``await seat.act(ask)`` with a legal value. What a seat may know comes
only from ``game.seat_view(name)`` (its role and night knowledge, then the events it saw);
an LLM seat's prompt is rebuilt from that view on every call, so its own hidden reasoning
from an earlier call can never come back (reasoning is logged to the moderator only).
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rulesets import VgmError

from .ask import Ask
from .speech import REPEAT_THRESHOLD, clean_text, nearest_earlier, repeat_note

SEAT_KINDS = ("scripted", "random", "heuristic", "human", "llm")
SCRIPTED_STYLES = ("random", "heuristic", "bluff")
"""Rule-based players every engine provides (its ``POLICIES``); ``bluff`` lies on the hidden side."""
SPEECH_EVENT_KINDS = ("speech",)
"""Public events whose ``text`` is a seat's speech (what a new speech is compared with)."""


class Seat:
    """Base seat; the game binds it to a name and role before play."""

    kind = "seat"

    def __init__(self) -> None:
        self.name = ""
        self.role = ""
        self.game: Any = None
        self._seed = 0
        self._rng: random.Random | None = None

    def bind(self, game: Any, name: str, role: str, seed: int) -> None:
        self.game, self.name, self.role = game, name, role
        self._seed, self._rng = seed, None

    @property
    def rng(self) -> random.Random:
        """This seat's own randomness (fallback moves), made on first use: seeding costs time."""
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    async def act(self, ask: Ask) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def messages(self) -> list[dict[str, str]]:
        """What a model in this seat would be shown now (system prompt + the seat's view)."""
        return self.game.seat_messages(self.name)

    def spec(self) -> dict[str, Any]:
        return {"kind": self.kind}


class ScriptedSeat(Seat):
    """Rule-based baseline: ``random`` (uniform over legal moves), ``heuristic`` or ``bluff``."""

    kind = "scripted"

    def __init__(self, style: str = "heuristic") -> None:
        super().__init__()
        if style not in SCRIPTED_STYLES:
            raise VgmError(f"unknown scripted style {style!r}; use {', '.join('scripted:' + s for s in SCRIPTED_STYLES)}")
        self.style = style
        self._policy: Callable[[Seat, Ask], Any] | None = None

    def bind(self, game: Any, name: str, role: str, seed: int) -> None:
        super().bind(game, name, role, seed)
        self._rng = game.rng  # scripted seats draw from the game's RNG: one seeding per game, and snapshots hold it
        self._policy = game.policy(self.style)

    async def act(self, ask: Ask) -> Any:
        return self._policy(self, ask)

    def spec(self) -> dict[str, Any]:
        return {"kind": "scripted", "style": self.style}


class HumanSeat(Seat):
    """A person at the terminal; ``input_fn``/``output_fn`` are injectable so tests drive it."""

    kind = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output_fn: Callable[[str], None] = print) -> None:
        super().__init__()
        self.input_fn = input_fn
        self.output_fn = output_fn
        self._shown = 0  # how many of this seat's visible events were printed already

    def show_news(self) -> None:
        view = self.game.seat_view(self.name)
        if self._shown == 0:
            self.output_fn(self.game.seat_intro(self.name))
        for event in view[self._shown:]:
            line = self.game.render(event, self.name)
            if line:
                self.output_fn(line)
        self._shown = len(view)

    async def act(self, ask: Ask) -> Any:
        self.show_news()
        self.output_fn(self.game.human_question(ask))
        while True:
            try:
                text = clean_text(self.input_fn("> "))  # a stray non-UTF-8 byte must not crash the log
            except EOFError:
                raise VgmError(f"input ended while {self.name} had to {ask.kind}; type an answer (or run `simulate` for a game without you)") from None
            value, reason = self.game.parse_human(ask, text)
            if reason is None:
                reason = ask.error(value)
            if reason is None:
                return value
            self.output_fn(f"Not allowed: {reason}. Try again.")

    def spec(self) -> dict[str, Any]:
        return {"kind": "human"}


class LlmSeat(Seat):
    """A model plays the seat through ``complete_json`` with the engine's action schemas.

    An unreadable or illegal answer is re-asked once with the reason; then a legal fallback
    is used and an ``illegal_move`` record goes to the log (moderator only). A public speech
    that near-duplicates an earlier one (``gm.social.speech.REPEAT_THRESHOLD``) is re-asked
    once with the repeat pointed out, and a ``speech_reask`` record says so (game option
    ``speech_reask``, on by default): small models otherwise echo the previous speaker.
    """

    kind = "llm"

    def __init__(self, model: Any, *, model_spec: str = "", max_tokens: int = 200, temperature: float = 0.0) -> None:
        super().__init__()
        self.model = model
        self.model_spec = model_spec or getattr(model, "name", "")
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.calls = 0

    async def act(self, ask: Ask) -> Any:
        from pipelines.llm import complete_json  # pipelines layer; imported here so scripted play stays import-light

        schema, to_native = self.game.llm_schema(ask)
        messages = self.messages() + [{"role": "user", "content": self.game.llm_question(ask)}]
        step = f"{self.game.engine}.{ask.kind}"
        parsed = await complete_json(self.model, messages, schema, step=step, max_tokens=self.max_tokens, temperature=self.temperature)
        self.calls += 1
        value, reason = self._read(parsed, ask, to_native)
        raw_first = parsed.raw
        if reason is not None and parsed.parse_ok:
            retry = messages + [
                {"role": "assistant", "content": _without_thought(parsed)},  # its move, never its private thought
                {"role": "user", "content": f"That move is not allowed: {reason}. Answer again with JSON in the same shape."},
            ]
            parsed = await complete_json(self.model, retry, schema, step=step, max_tokens=self.max_tokens, temperature=self.temperature, retry=False)
            self.calls += 1
            value, reason = self._read(parsed, ask, to_native)
        if reason is None and self.game.options.get("speech_reask", True):
            parsed, value = await self._reask_repeat(ask, messages, parsed, value, schema, to_native, step)
        thought = getattr(parsed.value, "thought", None) if parsed.value is not None else None
        if thought:
            ask.notes.append({"kind": "reasoning", "player": self.name, "decision": ask.kind, "text": str(thought)})
        if reason is not None:
            value = ask.fallback(self.rng)
            ask.notes.append({"kind": "illegal_move", "player": self.name, "decision": ask.kind, "reason": reason,
                              "raw": [raw_first, parsed.raw] if raw_first != parsed.raw else [raw_first], "fallback": value})
        return value

    async def _reask_repeat(self, ask: Ask, messages: list[dict[str, str]], parsed: Any, value: Any, schema: Any,
                            to_native: Callable[[Any], Any], step: str) -> tuple[Any, Any]:
        """A speech that repeats an earlier public speech: asked once more, the repeat quoted back.

        The new answer is kept when it is legal (even if it still repeats: one re-ask only), else
        the first; either way a moderator-only ``speech_reask`` record keeps both and their scores.
        """
        from pipelines.llm import complete_json

        text = value.get("text") if isinstance(value, dict) else None
        if not isinstance(text, str) or not text.strip():
            return parsed, value
        earlier = [e for e in self.game.log.events if e.get("kind") in SPEECH_EVENT_KINDS and not e.get("private") and e.get("text")]
        hit = nearest_earlier(text, [e["text"] for e in earlier], speaker=self.name, speakers=[e.get("player") for e in earlier])
        if hit is None or hit[1] < self.game.options.get("speech_repeat_threshold", REPEAT_THRESHOLD):
            return parsed, value
        first = earlier[hit[0]]
        note = repeat_note(getattr(self.game, "lang", "en"), first.get("player", ""), first["text"])
        retry = messages + [{"role": "assistant", "content": _without_thought(parsed)}, {"role": "user", "content": note}]
        again = await complete_json(self.model, retry, schema, step=step, max_tokens=self.max_tokens, temperature=self.temperature, retry=False)
        self.calls += 1
        new_value, reason = self._read(again, ask, to_native)
        kept = reason is None and isinstance(new_value, dict)
        new_text = new_value.get("text", "") if kept else ""
        after = nearest_earlier(new_text, [e["text"] for e in earlier], speaker=self.name,
                                speakers=[e.get("player") for e in earlier]) if kept else None
        ask.notes.append({"kind": "speech_reask", "player": self.name, "decision": ask.kind, "similarity": round(hit[1], 4),
                          "repeats": {"round": first.get("round"), "public_msg_seq": first.get("public_msg_seq"), "player": first.get("player")},
                          "first": text, "kept": "retry" if kept else "first",
                          "retry_similarity": round(after[1], 4) if after else None,
                          **({} if kept else {"retry_error": reason or "the answer was not a speech"})})
        return (again, new_value) if kept else (parsed, value)

    @staticmethod
    def _read(parsed: Any, ask: Ask, to_native: Callable[[Any], Any]) -> tuple[Any, str | None]:
        if not parsed.parse_ok:
            return None, parsed.error or "the answer was not valid JSON"
        try:
            value = to_native(parsed.value)
        except ValueError as exc:
            return None, str(exc)
        return value, ask.error(value)

    def spec(self) -> dict[str, Any]:
        return {"kind": "llm", "model": self.model_spec}


def _without_thought(parsed: Any) -> str:
    """The seat's answer as JSON with the private ``thought`` left out (what a retry may show it again)."""
    value = parsed.value
    if hasattr(value, "model_dump"):
        value = value.model_dump(exclude={"thought"})
    elif isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "thought"}
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass
class SeatSpec:
    """A seat as written on the command line: ``scripted[:random|:heuristic|:bluff]``, ``human``, ``llm[:<model>]``."""

    kind: str
    arg: str = ""

    @classmethod
    def parse(cls, text: str) -> "SeatSpec":
        text = text.strip()
        head, _, arg = text.partition(":")
        head = head.lower()
        if head in SCRIPTED_STYLES:
            return cls("scripted", head)
        if head == "scripted":
            return cls("scripted", arg or "heuristic")
        if head in ("human", "llm"):
            return cls(head, arg)
        raise VgmError(f"unknown seat {text[:60]!r}; use scripted, scripted:random, scripted:heuristic, human, llm or llm:<model string>")


def parse_seats(text: str | list[str], n: int) -> list[SeatSpec]:
    """``"scripted"`` (all seats) or a comma list of exactly ``n`` seats, e.g. ``human,llm:local:small,...``."""
    items = [t for t in (text.split(",") if isinstance(text, str) else text) if str(t).strip()]
    if not items:
        raise VgmError("no seats given; use scripted, scripted:random, scripted:heuristic, llm or llm:<model string>")
    specs = [SeatSpec.parse(t) for t in items]
    if len(specs) == 1:
        return [SeatSpec(specs[0].kind, specs[0].arg) for _ in range(n)]
    if len(specs) != n:
        raise VgmError(f"--seats lists {len(specs)} seats for a {n}-player game; give one kind for all or exactly {n}")
    return specs


def build_seats(
    specs: list[SeatSpec],
    *,
    default_model: str | None = None,
    models: dict[str, Any] | None = None,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
    max_tokens: int = 200,
) -> list[Seat]:
    """Seats from specs; LLM seats with the same model string share one model object."""
    models = models if models is not None else {}
    seats: list[Seat] = []
    for spec in specs:
        if spec.kind == "scripted":
            seats.append(ScriptedSeat(spec.arg or "heuristic"))
        elif spec.kind == "human":
            seats.append(HumanSeat(input_fn, output_fn))
        else:
            name = spec.arg or default_model or "local"
            if name not in models:
                from pipelines.llm import get_model  # lazy, like complete_json above

                models[name] = get_model(name)
            seats.append(LlmSeat(models[name], model_spec=name, max_tokens=max_tokens))
    return seats
