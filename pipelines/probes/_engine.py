"""The probe runner: after each event, privately question seats on throw-away copies of their context.

Non-invasive by construction: a probe's messages are a deep copy of ``seat.messages()`` plus
the question; nothing is written back to the seat, the game, or any list the game holds, and
probe calls carry their own step names (``probe:<id>``) so a request log can tell them apart.
The answers go only to the probe log.

Cheap by construction: a probe's prompt is its fixed ``instructions`` (if it has any), the seat's
system prompt and game log, then the question as its own last user message. From one step to
the next only the end of that prompt changes (new log lines and the question), so a server with
a prefix cache (llama.cpp's ``cache_prompt``, on by default) computes only those and the answer;
each record says how many prompt tokens the server reused (``cached_tokens``). The instructions
come first, before the seat's system prompt, so a probe prompt and the seat's game prompt differ
from their first tokens: llama.cpp then keeps each in its own slot or saves it to its host-RAM
prompt cache when a slot switches, instead of overwriting one with the other.
"""
from __future__ import annotations

import asyncio
import copy
import json
import time
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, create_model

from pipelines.llm import ChatModel, ModelError, Reply, Usage, complete_json
from pipelines.llm.structured import extract_json, parse_as

from . import _events as ev
from ._answers import ANSWER_SHAPES, dump_answer, keyed_shape, unkey
from ._dsl import NA, ProbeSet, ProbeSpec, load_probe_set, render_question
from ._log import ROUND_END_SEQ, ProbeLogWriter, ProbeRecord

PROBE_STEP_PREFIX = "probe:"


def _private_copy(messages: list[dict[str, Any]], question: str, instructions: str = "") -> list[dict[str, Any]]:
    """The seat's context plus the question, as a new list of new dicts (never the seat's own).

    The question is a user message of its own, as in the seat's game requests (``LlmSeat.act``
    sends ``seat.messages() + [question]``). ``instructions`` (a probe's fixed text) go at the
    very start of the system prompt: every probe prompt of the seat then starts with the same
    text up to the end of the game log, which a prefix-caching server reuses instead of computing.
    """
    out = copy.deepcopy(list(messages))
    if instructions:
        if out and out[0].get("role") == "system":
            out[0] = {**out[0], "content": f"{instructions}\n\n{out[0].get('content') or ''}"}
        else:
            out.insert(0, {"role": "system", "content": instructions})
    return out + [{"role": "user", "content": question}]


def _chain_text(record: ProbeRecord | None) -> tuple[str, bool]:
    """(text spliced into a later question, True when raw text had to stand in for a parse)."""
    if record is None:
        return NA, False
    if record.parse_ok and record.answer_parsed is not None:
        parsed = record.answer_parsed
        return (parsed if isinstance(parsed, str) else json.dumps(parsed, ensure_ascii=False)), False
    return (record.answer_raw.strip() or NA), True


class ProbeRunner:
    """Listens to a game and writes a probe log. Use ``attach_probes`` to create one.

    Args:
        probe_set: the probes (a ``ProbeSet``, a built-in name or a YAML path).
        model: the model answering probes; ``None`` = each seat's own model (``seat.model``).
        out_path: probe log JSONL (appended as answers arrive); ``None`` keeps records in memory only.
        batched: ask all of a seat's due probes in one call (cheaper; answers may differ).
        retry: re-ask once when an answer does not parse (doubles the cost of bad answers).
    """

    def __init__(
        self,
        probe_set: ProbeSet | str | Path,
        model: ChatModel | None = None,
        out_path: str | Path | None = None,
        *,
        batched: bool = False,
        retry: bool = False,
        game_id: str = "",
    ) -> None:
        self.probe_set = load_probe_set(probe_set)
        self.model = model
        self.batched = batched
        self.retry = retry
        self.game_id = game_id
        self.records: list[ProbeRecord] = []
        self.usage = Usage(calls=0)
        self.players: list[tuple[str, str]] = []
        self.alive: list[str] = []
        self.round = 0
        self.seq = 0
        self.over = False
        self._round_open = False  # public things happened this round and no round-end pass yet
        self._last: dict[str, dict[str, ProbeRecord]] = {}  # seat → probe id → latest answer
        self._writer = ProbeLogWriter(out_path)
        self.out_path = Path(out_path) if out_path else None

    # -- listener -----------------------------------------------------------------------
    def __call__(self, event: Any, game: Any = None) -> Any:
        """The ``game.add_listener`` hook: probe whoever this event concerns.

        Inside a running event loop it returns the coroutine (the engine awaits async listeners,
        so probe calls share the game's loop and model clients); otherwise it runs to completion.
        """
        coro = self.on_event(event, game)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        return coro

    async def on_event(self, event: Any, game: Any = None) -> list[ProbeRecord]:
        e = ev.as_dict(event)
        kind = ev.kind_of(e)
        if kind == "setup":
            self.players = ev.setup_players(e)
            self.alive = [n for n, _ in self.players]
            self.game_id = self.game_id or str(e.get("game_id") or e.get("id") or "")
            return []
        if kind == "game_over":
            self.over = True
            return []
        if self.over or not self.players:
            return []
        new_round = int(e.get("round", self.round) or 0)
        done: list[ProbeRecord] = []
        if new_round > self.round and self._round_open:
            # the engine announced no round end: close the old round before this event counts
            done = await self._probe_all([(n, "round_end", "round_end", ROUND_END_SEQ) for n in self.alive], game)
        if new_round != self.round:
            self._round_open = False
        self.round = new_round
        if "public_msg_seq" in e or "msg_seq" in e:
            self.seq = ev.msg_seq_of(e)
        for name in ev.deaths_in(e):
            if name in self.alive:
                self.alive.remove(name)
        jobs: list[tuple[str, str, str, int]] = []  # (seat, trigger, phase, seq)
        if ev.is_round_end(e):
            jobs = [(n, "round_end", "round_end", ROUND_END_SEQ) for n in self.alive]
            self._round_open = False
        elif ev.is_night_action(e):
            actor = ev.speaker_of(e)
            if actor in self.alive:
                jobs = [(actor, "night", "night", self.seq)]
        elif ev.is_public_message(e):
            speaker = ev.speaker_of(e)
            phase = ev.phase_of(e)
            for n in self.alive:
                jobs.append((n, "own_turn" if n == speaker else "always", phase, self.seq))
            self._round_open = True
        return done + await self._probe_all(jobs, game)

    def prime(self, events: list[Any]) -> None:
        """Catch up on events that happened before the runner was attached (a restored fork), without probing."""
        for event in events:
            e = ev.as_dict(event)
            kind = ev.kind_of(e)
            if kind == "setup":
                self.players = ev.setup_players(e)
                self.alive = [n for n, _ in self.players]
            elif kind == "fork":
                self.game_id = str(e.get("game_id") or self.game_id)
            elif kind == "game_over":
                self.over = True
            for name in ev.deaths_in(e):
                if name in self.alive:
                    self.alive.remove(name)
            self.round = int(e.get("round", self.round) or 0)
            self.seq = ev.msg_seq_of(e) if ("public_msg_seq" in e or "msg_seq" in e) else self.seq

    # -- one step -----------------------------------------------------------------------
    async def _probe_all(self, jobs: list[tuple[str, str, str, int]], game: Any) -> list[ProbeRecord]:
        tasks = []
        for name, trigger, phase, seq in jobs:
            seat = _find_seat(game, name)
            messages = _seat_messages(seat)
            if messages is None:
                continue  # not an LLM seat (scripted or human): nothing to probe
            role = dict(self.players).get(name, "")
            triggers = {"own_turn", "always"} if trigger == "own_turn" else {trigger}
            due = [p for p in self.probe_set.probes if (set(p.when) & triggers) and (p.roles is None or role in p.roles)]
            if not due:
                continue
            model = self.model or getattr(seat, "model", None)
            if model is None:
                continue
            tasks.append(self._probe_seat(name, role, trigger, phase, seq, due, messages, model))
        results = await asyncio.gather(*tasks)
        out: list[ProbeRecord] = []
        for recs in results:  # written in seat order, whatever order the calls finished in
            for r in recs:
                self._writer.write(r)
                self.records.append(r)
                self._last.setdefault(r.player, {})[r.probe_id] = r
            out.extend(recs)
        return out

    def _values(self, name: str, role: str, phase: str, this_step: dict[str, ProbeRecord]) -> tuple[dict[str, str], list[str]]:
        last = self._last.get(name, {})
        values = {
            "player": name,
            "role": role or "unknown",
            "players": ", ".join(n for n in self.alive if n != name),
            "round": str(self.round),
            "phase": phase,
        }
        raw_used: list[str] = []
        for pid in self.probe_set.ids():
            text, raw = _chain_text(last.get(pid))
            values[f"last_{pid}"] = text
            cur = this_step.get(pid, last.get(pid))
            ptext, praw = _chain_text(cur)
            values[f"prev_{pid}"] = ptext
            if praw:
                raw_used.append(f"prev_{pid}")
            if raw:
                raw_used.append(f"last_{pid}")
        return values, raw_used

    def _record(self, name: str, role: str, trigger: str, phase: str, seq: int, i: int, probe: ProbeSpec, **kw: Any) -> ProbeRecord:
        return ProbeRecord(
            game_id=self.game_id, round=self.round, public_msg_seq=seq,
            player_idx=[n for n, _ in self.players].index(name), player=name, probe_seq=i,
            probe_id=probe.id, role=role, phase=phase, trigger=trigger, **kw,
        )

    async def _probe_seat(self, name, role, trigger, phase, seq, due, messages, model) -> list[ProbeRecord]:
        if self.batched and len(due) > 1:
            return await self._probe_seat_batched(name, role, trigger, phase, seq, due, messages, model)
        this_step: dict[str, ProbeRecord] = {}
        out = []
        for i, probe in enumerate(due):
            values, raw_used = self._values(name, role, phase, this_step)
            question = render_question(probe.question, values)
            instructions = render_question(probe.instructions, values)
            chained_raw = [c for c in raw_used if c in probe.placeholders()]
            start = time.perf_counter()
            shape = ANSWER_SHAPES[probe.answer]
            step = PROBE_STEP_PREFIX + probe.id
            msgs = _private_copy(messages, question, instructions)
            try:
                if shape is None:  # free text
                    reply = await model.complete(msgs, step=step, max_tokens=probe.max_tokens)
                    raw, parsed, ok, err, usage, repaired = reply.text, reply.text.strip(), bool(reply.text.strip()), None, reply.usage, False
                else:
                    keyed = keyed_shape(shape, tuple(n for n in self.alive if n != name)) if probe.keyed else None
                    res = await complete_json(model, msgs, keyed or shape, step=step, max_tokens=probe.max_tokens, retry=self.retry)
                    value = shape.model_validate(unkey(res.value)) if keyed and res.parse_ok else res.value
                    raw, parsed, ok, err, usage, repaired = res.raw, dump_answer(value), res.parse_ok, res.error, res.usage, res.repaired
            except (ModelError, asyncio.TimeoutError) as exc:  # a failed probe is a recorded gap, never the game's end
                raw, parsed, ok, err, usage, repaired = "", None, False, f"model call failed: {exc}", Usage(calls=1), False
            self.usage = self.usage + usage
            rec = self._record(
                name, role, trigger, phase, seq, i, probe, question=question, instructions=instructions, answer_raw=raw,
                answer_parsed=parsed if ok else None, parse_ok=ok, error=err, repaired=repaired,
                latency_ms=int((time.perf_counter() - start) * 1000),
                tokens=usage.prompt_tokens + usage.completion_tokens, model=getattr(model, "name", ""),
                chained_from_raw=chained_raw, prompt_tokens=usage.prompt_tokens, cached_tokens=usage.cached_tokens,
            )
            this_step[probe.id] = rec
            out.append(rec)
        return out

    async def _probe_seat_batched(self, name, role, trigger, phase, seq, due, messages, model) -> list[ProbeRecord]:
        """All due probes in one call; ``{prev_x}`` can only see the previous step here."""
        values, raw_used = self._values(name, role, phase, {})
        parts = []  # one call asks them all, after the game log: each probe's instructions stay beside its question
        for p in due:
            text = "\n".join(t for t in (render_question(p.instructions, values).strip(), render_question(p.question, values).strip()) if t)
            parts.append(f'### "{p.id}"\n{text}')
        question = (
            "Answer each of the following private questions. Reply with ONE JSON object whose keys are the "
            f"question ids ({', '.join(p.id for p in due)}) and whose values are the answers in the shape each asks for.\n\n"
            + "\n\n".join(parts)
        )
        start = time.perf_counter()
        try:
            reply = await model.complete(
                _private_copy(messages, question), step=PROBE_STEP_PREFIX + "batch", max_tokens=sum(p.max_tokens for p in due),
                json_schema=batch_schema(due),
            )
        except (ModelError, asyncio.TimeoutError) as exc:
            reply = Reply(text="", usage=Usage(calls=1), model=getattr(model, "name", ""))
            question = f"{question}\n[model call failed: {exc}]"
        self.usage = self.usage + reply.usage
        latency = int((time.perf_counter() - start) * 1000)
        tokens = reply.usage.prompt_tokens + reply.usage.completion_tokens
        try:
            whole, _ = extract_json(reply.text)
        except Exception:  # json_repair can give up on arbitrary text
            whole = None
        out = []
        for i, probe in enumerate(due):
            sub = whole.get(probe.id) if isinstance(whole, dict) else None
            shape = ANSWER_SHAPES[probe.answer]
            if sub is None:
                parsed, ok, err = None, False, f"no key {probe.id!r} in the batched answer"
            elif shape is None:
                parsed, ok, err = str(sub), True, None
            else:
                value, _, err = parse_as(json.dumps(sub, ensure_ascii=False), shape)
                parsed, ok = dump_answer(value), err is None
            out.append(self._record(
                name, role, trigger, phase, seq, i, probe, question=question,
                answer_raw=json.dumps(sub, ensure_ascii=False) if sub is not None else reply.text,
                answer_parsed=parsed if ok else None, parse_ok=ok, error=err,
                latency_ms=latency // len(due), tokens=tokens // len(due) + (tokens % len(due) if i == 0 else 0),
                prompt_tokens=reply.usage.prompt_tokens if i == 0 else 0, cached_tokens=reply.usage.cached_tokens if i == 0 else 0,
                model=getattr(model, "name", ""), batched=True,
                chained_from_raw=[c for c in raw_used if c in probe.placeholders()],
            ))
        return out

    def close(self) -> None:
        self._writer.close()


def batch_schema(due: list[ProbeSpec]) -> dict[str, Any]:
    """One JSON schema for a batched answer: an object with one required key per probe id.

    Servers that constrain decoding to a schema (llama.cpp, OpenAI) then cannot answer only the
    last question, which is what a small model otherwise does.
    """
    fields = {p.id: (str if ANSWER_SHAPES[p.answer] is None else ANSWER_SHAPES[p.answer], ...) for p in due}
    return TypeAdapter(create_model("BatchedAnswer", **fields)).json_schema()


def _find_seat(game: Any, name: str) -> Any:
    if game is None:
        return None
    seats = getattr(game, "seats", None)
    if isinstance(seats, dict):
        return seats.get(name)
    for seat in seats or []:
        if getattr(seat, "name", None) == name:
            return seat
    finder = getattr(game, "seat", None)
    if callable(finder):
        try:
            return finder(name)
        except Exception:  # engines differ in how they look seats up; no seat = nothing to probe
            return None
    return None


def _seat_messages(seat: Any) -> list[dict[str, Any]] | None:
    getter = getattr(seat, "messages", None)
    if getter is None:
        return None
    messages = getter() if callable(getter) else getter
    return list(messages) if messages is not None else None


def attach_probes(game: Any, spec: str | Path | ProbeSet, model: ChatModel | None, out_path: str | Path | None, **options: Any) -> ProbeRunner:
    """Register a probe runner on ``game`` (``game.add_listener``); answers go to ``out_path`` as JSONL.

    ``spec`` is ``default``, ``cheap`` or a YAML file, optionally suffixed ``:batched``;
    ``model`` ``None`` = each seat's own model.
    Options: ``batched=True`` (one call per seat and step), ``retry=True``.
    """
    if isinstance(spec, str) and spec.endswith(":batched"):  # "default:batched" = one call per seat and step
        spec, options = spec.removesuffix(":batched"), {**options, "batched": True}
    runner = ProbeRunner(spec, model, out_path, game_id=str(getattr(game, "game_id", "") or getattr(game, "id", "") or ""), **options)
    log = getattr(game, "log", None)
    if log is not None and getattr(log, "events", None):
        runner.prime(log.events)  # attached mid-game (a fork): learn seats and deaths first
    game.add_listener(runner)
    return runner
