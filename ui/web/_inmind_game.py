"""An InMind recording played in a browser: the game runs in its own thread, the page answers what it asks.

``gm.avalon.inmind_record.prepare_play`` sets the game up exactly as ``vgm avalon play --inmind-record``
does (the same checks, seats, subject and session file). The person's seat and notes are the terminal's
(``HumanSeat``, ``HumanSubject``) reading a queue the page fills instead of the keyboard, so the game
waits for the person as long as it takes while each browser request returns as soon as the game asks
again. Nothing is written until the reflection is in: a game stopped half-way leaves the folder as it was.
"""
from __future__ import annotations

import asyncio
import logging
import queue
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any

from gm.avalon.inmind_record import PlayRecording, prepare_play
from gm.social.seats import HumanSeat
from gm.social.speech import clean_text
from rulesets import VgmError

log = logging.getLogger(__name__)

#: What the other seats may be besides a model string: the rule-based players of ``--others``.
RULE_SEATS = ("scripted", "scripted:heuristic", "scripted:random", "heuristic", "random")
NOTES = ("trace", "reflection")
_STOP = object()


class _Stopped(Exception):
    """The person stopped the game (or closed the page) while it waited for them."""


@dataclass
class Request:
    """What the game waits for from the person.

    Args:
        n: counts the requests of this game, so the page can tell a new one from the one it answered.
        kind: the seat's decision (``propose``, ``speak``, ``vote``, ``mission``, ``evil_talk``,
            ``assassinate``) or a note (``trace``, ``reflection``).
        question: the question in the game's language: a decision's own words (the page offers the
            choices, so the terminal's typing hint is left out), a note's as the terminal prints it.
        error: why the last answer was refused (the engine's words), else empty.
        options: the seats one may name (``propose``, ``assassinate``).
        size: the team size (``propose``).
        may_call: ``speak`` only: an evil seat may call the early assassination.
    """

    n: int
    kind: str
    question: str
    error: str = ""
    options: list[str] = field(default_factory=list)
    size: int = 0
    may_call: bool = False


def other_seats(text: str | None) -> tuple[str, str | None]:
    """``(others, model)`` for ``prepare_play``: a rule-based seat word, else a model string for LLM seats."""
    typed = (text or "").strip()
    if not typed:
        raise VgmError("give the other seats: a model string (local, openai:<model>, scripted:<file.yaml>) or scripted for rule-based players")
    if typed.lower() in RULE_SEATS:
        return typed.lower(), None
    return "llm", typed


class _PageSeat(HumanSeat):
    """The person's seat: the terminal seat, whose pending decision the page can read (to offer a team picker, a vote)."""

    def __init__(self, input_fn, output_fn) -> None:
        super().__init__(input_fn, output_fn)
        self.asking: Any = None

    async def act(self, ask):
        self.asking = ask
        try:
            return await super().act(ask)
        finally:
            self.asking = None


class WebRecording:
    """One game recorded with a person in the browser: ``start()``, then ``answer(text)`` for each ``request``.

    Args mirror ``vgm avalon play --inmind-record``: ``mode`` (participant or observer), ``out`` (the
    sessions folder), ``seat`` (1-based), ``others`` (a model string or a rule-based seat word), ``lang``,
    ``seed`` (None = random). Every mistake is one ``VgmError`` line before the game starts.
    """

    def __init__(self, *, mode: str, out: str, seat: int, others: str | None, lang: str = "en",
                 seed: int | None = None, players: int | None = None, options: dict[str, Any] | None = None) -> None:
        kind, model = other_seats(others)
        models = {}
        if model is not None:  # resolved before anything is made: a bad model string leaves no empty folder behind
            from pipelines.llm import get_model  # pipelines layer; lazy, so rule-based games stay light

            models[model] = get_model(model)
        self.mode, self.lang = mode, lang
        self._answers: queue.Queue = queue.Queue()
        self._changed = threading.Condition()
        self._lines: list[str] = []  # everything the terminal would have printed
        self._seen = 0
        self._count = 0
        self._last_ask: Any = None
        self._last_question = ""
        self.request: Request | None = None
        self.result: dict[str, Any] | None = None
        self.failure = ""
        self.stopped = False
        self.done = False
        self._stopping = False
        self.seat = _PageSeat(self._input, self._output) if mode == "participant" else None
        self.play: PlayRecording = prepare_play(mode=mode, out=out, seat=seat, players=players, model=model, others=kind,
                                                seed=seed, options=options, lang=lang, models=models, input_fn=self._input,
                                                output_fn=self._output, human=self.seat)
        _check_writable(self.play.path.parent)
        self._thread = threading.Thread(target=self._run, name=f"inmind-{self.play.table.game_id}", daemon=True)

    # ---- the game's side (its own thread) -------------------------------------------------------
    def _output(self, text: str) -> None:
        with self._changed:
            self._lines.append(str(text))

    def _input(self, _prompt: str) -> str:
        with self._changed:
            if self._stopping:
                raise _Stopped()
            new = self._lines[self._seen:]
            self._seen = len(self._lines)
            ask = self.seat.asking if self.seat is not None else None
            if ask is not None and ask is self._last_ask:  # the engine refused the last answer and asks again
                question, error = self._last_question, (new[-1] if new else "")
            else:
                question, error = (ask.text() if ask is not None else new[-1] if new else ""), ""
            self._last_ask, self._last_question = ask, question
            self._count += 1
            if ask is not None:
                self.request = Request(self._count, ask.kind, question, error, list(ask.options), ask.size,
                                       bool(ask.extra.get("may_call")))
            else:
                self.request = Request(self._count, "reflection" if self.play.table.over else "trace", question, error)
            self._changed.notify_all()
        answer = self._answers.get()
        if answer is _STOP:
            raise _Stopped()
        return answer

    def _run(self) -> None:
        result, failure, stopped = None, "", False
        try:
            result = asyncio.run(self._play_through())
        except _Stopped:
            stopped = True
        except VgmError as exc:
            failure = str(exc)
        except OSError as exc:  # the folder went away or filled up while the game ran
            failure = f"cannot write the session to {self.play.path} ({exc.strerror or exc})"
        except Exception as exc:  # shown on the page in one line; the traceback goes to the server log
            log.exception("InMind web game %s failed", self.play.table.game_id)
            failure = f"the game stopped on an error: {exc}"
        with self._changed:
            self.result, self.failure, self.stopped, self.done = result, failure, stopped, True
            self.request = None
            self._changed.notify_all()

    async def _play_through(self) -> dict[str, Any]:
        result = await self.play.table.run()
        return await self.play.finish(result)

    # ---- the page's side -------------------------------------------------------------------------
    def start(self, timeout: float = 20.0) -> WebRecording:
        """Deal and play until the game first asks the person (or ends, or ``timeout`` seconds pass)."""
        self._thread.start()
        self.wait(0, timeout)
        return self

    def wait(self, after: int, timeout: float) -> bool:
        """Wait until there is a request newer than number ``after`` or the game is over; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self.done or (self.request is not None and self.request.n > after), timeout)

    def answer(self, text: str, timeout: float = 20.0) -> None:
        """Give the pending request its answer (the terminal's text: ``P1, P3``, ``y``, ``s``, a speech, a note)."""
        with self._changed:
            request = self.request
            if self.done:
                raise VgmError("the game is over; start a new one")
            if request is None:
                raise VgmError("the game is not waiting for you yet; wait for your turn")
            if request.kind in NOTES and not clean_text(text or "").strip():
                what = "strategy trace" if request.kind == "trace" else "reflection"
                raise VgmError(f"the {what} is empty; write a sentence or two")
            self.request = None
        self._answers.put(text or "")
        self.wait(request.n, timeout)

    def stop(self, timeout: float = 0.0) -> None:
        """End the game (waiting up to ``timeout`` s for it); nothing is written for it, sessions finished before stay."""
        with self._changed:
            if self.done:
                return
            self.request, self._stopping = None, True
        self._answers.put(_STOP)
        if self._thread.is_alive():
            with self._changed:
                self._changed.wait_for(lambda: self.done, timeout)

    def view(self) -> list[str]:
        """What the subject's seat may see: its introduction (role, night knowledge) and its view of the log."""
        table, you = self.play.table, self.play.you
        return [table.seat_intro(you)] + [line for e in list(table.seat_view(you)) if (line := table.render(e, you))]


def _check_writable(folder) -> None:
    """A session is written only when the game ends: a folder that cannot take it must say so now."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".vgm-write-check-"):
            pass
    except OSError as exc:
        raise VgmError(f"cannot write to {folder} ({exc.strerror or exc}); give a folder you may write to") from None


__all__ = ["NOTES", "RULE_SEATS", "Request", "WebRecording", "other_seats"]
