"""A shared table: one room, one Game Master, several players each in their own browser.

    room = TableRoom.open(GameMaster("dnd5e", "ambush", model, session_path="runs/table"))
    room.links("http://127.0.0.1:7861")    # {"host": url, "Brisa Tallowmere": url, ...}
    room.act(brisa_token, "I attack the nearest goblin")   # streamed to everyone as events

Everything a browser may do goes through a private token: one per character (a join link) and
one for the host. A wrong or revoked token gets ``AccessDenied`` and nothing else. The room
runs one GM turn at a time (``GameMaster`` is not thread-safe): a second player's line waits
for the first to finish. While a turn runs, what happens is published as numbered events
(the line said, the dice and fight lines, the narration as it streams, done), which the web
server forwards to every open page it is meant for (``ui.web._table_app``); a page that joins
late reads the room's last snapshot and the events after it. Every line the room takes is written
to its journal first (``ui.web._journal``), and a turn's session is written once, whole, before it
is acknowledged: a killed server reopens between two turns and lists what it never answered.
"""
from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.ratings import AccessDenied
from rulesets import FileProblem, VgmError, read_json

from .._text import clean_text
from ._journal import Journal, journal_path

__all__ = ["AccessDenied", "Seat", "Seats", "TableFault", "TableRoom", "links_path"]

log = logging.getLogger("vgm.table")

HOST = "host"
KEEP_EVENTS = 5000  # events kept for pages that reconnect; older ones mean "reload the state"
LOG_SHOWN = 400  # lines of the table log a page gets


def new_token() -> str:
    """An unguessable URL-safe token (128 bits)."""
    return secrets.token_urlsafe(16)


def links_path(session_path: str | Path) -> Path:
    """Where a room keeps its links: beside the session (``room.json`` → ``room.links.json``)."""
    path = Path(session_path)
    return path.with_name(path.stem + ".links.json")


@dataclass(frozen=True)
class Seat:
    """Who a token belongs to: the host, or the player of one character."""

    role: str  # "host" or "player"
    character: str | None = None

    @property
    def name(self) -> str:
        """``host``, or the character's name: how events name their audience."""
        return HOST if self.role == HOST else str(self.character)


class Seats:
    """The room's private tokens: one per character and one for the host, kept in a file (mode 600).

    Renewing a seat's token revokes the old one at once. The file is read again when it changes
    on disk, so ``vgm table revoke`` takes effect on a room that is being served.
    """

    def __init__(self, path: str | Path | None = None, characters: list[str] | None = None) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._mtime: float | None = None
        self.tokens: dict[str, str] = {}
        if self.path is not None and self.path.is_file():
            self._read()
        if characters is not None:  # the seats of this table: new ones get a token, gone ones lose theirs
            seats = [HOST, *characters]
            self.tokens = {name: self.tokens.get(name) or new_token() for name in seats}
            self._write()
        elif not self.tokens:
            raise VgmError(f"{self.path}: no links kept here; serve the room once to make them")

    def _read(self) -> None:
        assert self.path is not None
        bad = f"{self.path}: not a links file of a vgm table; delete it and serve again (new links are made)"
        try:
            data = read_json(self.path, what="links file")
        except FileProblem as exc:
            raise VgmError(f"{self.path}: not a links file of a vgm table ({exc.problem}); delete it and serve again (new links are made)") from None
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, dict) or not tokens or not all(isinstance(v, str) and 16 <= len(v) <= 200 for v in tokens.values()):
            raise VgmError(bad)
        self.tokens = dict(tokens)
        self._mtime = self.path.stat().st_mtime

    def _write(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"tokens": self.tokens}, fh, indent=1)
        os.replace(tmp, self.path)
        self._mtime = self.path.stat().st_mtime

    def _fresh(self) -> None:
        """Re-read the file if someone else changed it (a revoke from the command line)."""
        if self.path is None:
            return
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            return
        if mtime != self._mtime:
            self._read()

    def seat_of(self, token: str | None) -> Seat:
        """The seat ``token`` opens; ``AccessDenied`` for a wrong, revoked or missing one."""
        if not token or not isinstance(token, str) or len(token) > 200:
            raise AccessDenied()
        with self._lock:
            try:
                self._fresh()
            except VgmError:  # the links file was damaged while the room is served: nobody gets in
                raise AccessDenied() from None
            for name, held in self.tokens.items():
                if hmac.compare_digest(held.encode(), token.encode()):
                    return Seat(HOST) if name == HOST else Seat("player", name)
        raise AccessDenied()

    def renew(self, seat: str) -> str:
        """A new token for ``seat`` (a character name or ``host``); the old link stops working."""
        with self._lock:
            self._fresh()
            name = next((n for n in self.tokens if n.lower() == seat.strip().lower()), None)
            if name is None:
                name = next((n for n in self.tokens if n != HOST and n.lower().split()[0] == seat.strip().lower()), None)
            if name is None:
                raise VgmError(f"no seat {seat!r} at this table; seats: {', '.join(self.tokens)}")
            self.tokens[name] = new_token()
            self._write()
            return name

    def links(self, base_url: str) -> dict[str, str]:
        """Seat name → its private link."""
        with self._lock:
            self._fresh()
            return {name: f"{base_url.rstrip('/')}/?token={token}" for name, token in self.tokens.items()}


def mechanics_lines(reply) -> list[str]:
    """What a reply shows before its words, as the terminal prints it: the dice, the fight, why."""
    lines = ["[no roll] that cannot work"] if reply.decision == "impossible" else []
    lines += [f"[check] {c.character} → {c.skill}" for c in reply.checks if not reply.rolls and not reply.pending]
    lines += [f"[roll] {r.line()}" for r in reply.rolls] + [f"[fight] {f}" for f in reply.fight]
    lines += [f"[order] {reply.order}"] if reply.order else []
    lines += [f"[why] {d}" for d in reply.difficulty]
    return lines


class TableFault(Exception):
    """The server's fault on one line (a bug, a session that would not save): 500 with one line saying
    what became of the line and of the table."""


class TableRoom:
    """One table: a ``GameMaster``, its seats, one turn at a time, and the events pages follow.

    A line is written to the room's journal (``ui.web._journal``) before it waits for its turn or
    anything about it is streamed. Inside a turn the GM's own saves are held and the session is
    written once, whole, when the turn is done, before it is acknowledged (``done``, the answer to
    the request); a turn that fails part-way puts the session back as last saved. So a killed server
    reopens on a session from between two turns, and a line it accepted without answering is listed
    for its player (``view()["unanswered"]``), never silently gone.

    Events carry an audience: a line the GM refuses (out of turn, an unknown check) is heard by its
    sender only; the others hear of a line once the GM has taken it (its dice or its first words).

    Args:
        gm: the Game Master of this room (its session file is saved after every action).
        seats: the room's tokens; ``TableRoom.open`` makes them beside the session file.
        journal: the accepted lines; ``TableRoom.open`` keeps it beside the session file.
    """

    def __init__(self, gm: Any, seats: Seats, journal: Journal | None = None) -> None:
        self.gm = gm
        self.seats = seats
        self.journal = journal or Journal(None)
        self._turn = threading.Lock()  # one GM action at a time
        # ...and always on the same thread: the GM's event loop and model client stay on one thread, and
        # its allocations in one malloc arena (turns spread over a pool's threads grew the server's memory)
        self._gm_thread: ThreadPoolExecutor | None = ThreadPoolExecutor(max_workers=1, thread_name_prefix="table-gm")
        self._events_lock = threading.Lock()
        self._events: list[dict[str, Any]] = []
        self._seq = 0
        self._listeners: set[Callable[[], None]] = set()
        self._last: dict[str, Any] | None = None  # the last reply's mechanics and notes
        self.closed = False
        self._snapshot = self._build()

    @classmethod
    def open(cls, gm: Any, new_links: bool = False) -> TableRoom:
        """A room for ``gm``, with its links kept beside the session file (kept across restarts
        unless ``new_links``, which revokes every old link) and its journal beside them (lines a
        killed server accepted without answering are listed again for their players)."""
        path = links_path(gm.session.path) if gm.session.path else None
        if new_links and path is not None and path.is_file():
            path.unlink()
        journal = Journal(journal_path(gm.session.path), log_len=len(gm.session.log)) if gm.session.path else None
        return cls(gm, Seats(path, [s.name for s in gm.sheets]), journal)

    # ----- access -------------------------------------------------------------------------

    def seat(self, token: str | None) -> Seat:
        return self.seats.seat_of(token)

    def links(self, base_url: str) -> dict[str, str]:
        return self.seats.links(base_url)

    def view(self, token: str | None, base_url: str = "") -> dict[str, Any]:
        """What this seat's page shows: the table, plus (for the host) the notes, the GM's notes and the links."""
        seat = self.seat(token)
        state = dict(self._snapshot)
        state["you"] = {"role": seat.role, "character": seat.character}
        last = state.pop("last_reply", None)
        if last is not None:
            state["last_reply"] = last if seat.role == HOST else {k: v for k, v in last.items() if k != "notes"}
        state["unanswered"] = self.journal.unanswered_for(None if seat.role == HOST else seat.character)
        if seat.role == HOST:
            state["notes"] = list(self.gm.scenario.notes)
            state["links"] = self.links(base_url) if base_url else {}
        else:
            state.pop("can_undo", None)
            state.pop("can_regenerate", None)
        return state

    # ----- what players and the host do ----------------------------------------------------

    def act(self, token: str | None, text: str, character: str | None = None) -> dict[str, Any]:
        """A player's line (``/roll`` and ``/check`` too), as their character; the host may speak for any.

        Raises:
            AccessDenied: a wrong or revoked token.
            VgmError: what the table cannot take (out of turn, an unknown check...), as one line;
                nothing changes and only the sender hears of it.
            TableFault: the server failed on the line; it was not taken and the table is as last saved.
        """
        seat = self.seat(token)
        text = clean_text(text) if isinstance(text, str) else ""
        who = seat.character if seat.role == "player" else clean_text(character or "").strip()
        if seat.role == HOST and who:
            who = self.gm.sheet(who).name
        n = self.journal.accept(who or None, seat.name, text)
        with self._turn:
            return self._play(lambda **listen: self.gm.step(who or "", text, **listen), who or None, text, n, seat.name)

    def undo(self, token: str | None) -> bool:
        """The host takes back the last input and everything the GM did with it; False when there is none."""
        self._host(token)
        with self._turn:
            notes = list(self.gm.scenario.notes)
            done = self.gm.undo()
            if done:
                self._keep_notes(notes)
                self._last = None
            self._refresh("undo" if done else None)
        return done

    def regenerate(self, token: str | None) -> dict[str, Any]:
        """The host has the GM answer the last line again: same dice, fresh words, streamed to everyone."""
        seat = self._host(token)
        with self._turn:
            if not self.can_regenerate():
                raise VgmError("nothing to regenerate: the last thing at the table was not a GM reply")
            last = self.gm.session.turns[-1]
            notes = list(self.gm.scenario.notes)

            def run(**listen):
                reply = self.gm.regenerate(**listen)
                self._keep_notes(notes)
                return reply

            n = self.journal.accept(last.character, seat.name, last.text, kind="regenerate")
            return self._play(run, last.character, last.text, n, seat.name, regenerated=True)

    def set_notes(self, token: str | None, notes: list[str] | str) -> list[str]:
        """The host rewrites the scene's GM-only notes (one a line); saved, and the GM's memory told."""
        self._host(token)
        if isinstance(notes, str):
            notes = notes.splitlines()
        clean = [" ".join(clean_text(str(n)).split()) for n in notes if str(n).strip()]
        clean = [n for n in clean if n]
        if any(len(n) > 2000 for n in clean) or len(clean) > 200:
            raise VgmError("notes are one short line each (under 2,000 characters, at most 200 of them)")
        with self._turn:
            old = list(self.gm.scenario.notes)
            self.gm.session.scenario.notes = clean
            try:
                self.gm.save()
            except Exception as exc:
                self.gm.session.scenario.notes = old
                log.exception("table: the notes would not save")
                raise TableFault(f"the notes could not be saved ({type(exc).__name__}); the old notes stand") from None
            self._tell_memory(old, clean)
            self._snapshot = self._build()
            self._publish("notes", to={HOST})
        return clean

    def renew_link(self, token: str | None, seat: str, base_url: str = "") -> str:
        """The host revokes a seat's link and gets a new one (the old token sees "access denied")."""
        self._host(token)
        name = self.seats.renew(clean_text(seat))
        self._publish("revoked", to={HOST}, seat=name)
        return self.links(base_url)[name] if base_url else name

    def can_regenerate(self) -> bool:
        """The last thing at the table is a GM reply to a line (not a free roll, not the opening)."""
        s = self.gm.session
        return bool(s.turns and s.log and getattr(self.gm, "_history", None)
                    and s.log[-1].speaker == "GM" and s.log[-1].text == s.turns[-1].narration)

    def _host(self, token: str | None) -> Seat:
        seat = self.seat(token)
        if seat.role != HOST:
            raise AccessDenied()
        return seat

    def _keep_notes(self, notes: list[str]) -> None:
        """Undo puts the whole session back, notes included; the host's later edits stay."""
        if list(self.gm.scenario.notes) != notes:
            self.gm.session.scenario.notes = notes
            self.gm.save()

    def _tell_memory(self, old: list[str], new: list[str]) -> None:
        memory = getattr(self.gm, "memory", None)
        if memory is None:
            return
        memory.add_notes(new)
        gone = [f"note-{i}" for i in range(len(new), len(old))]
        if gone:
            memory.collection.delete(ids=gone)

    # ----- one turn, streamed -----------------------------------------------------------------

    @contextmanager
    def _one_save(self):
        """Hold the GM's own saves for one turn (it saves after the fight's dice, after a roll, after
        the reply); the room writes the session once, when the turn is whole. Done here, by shadowing
        ``save`` on the instance, so the Game Master's code stays the same for ``vgm play``."""
        self.gm.save = lambda: None
        try:
            yield
        finally:
            del self.gm.save

    def _restore(self, before: str | None) -> bool:
        """The session as last saved (the file, or ``before`` for a room without one); False if it cannot be read."""
        current = self.gm.session
        try:
            if current.path and Path(current.path).is_file():
                self.gm.session = type(current).load(current.path)
            elif before is not None:
                self.gm.session = type(current).model_validate_json(before)
                self.gm.session.path = current.path
            else:
                return False
        except Exception:  # noqa: BLE001 - said in the fault's message
            log.exception("table: the session could not be read back")
            return False
        return True

    def _play(self, run: Callable[..., Any], who: str | None, text: str, n: int, actor: str,
              regenerated: bool = False) -> dict[str, Any]:
        """Run one GM action (journal line ``n``, sent by seat ``actor``) with the listeners that publish it."""
        said: dict[str, Any] = {"who": None, "shown": False}
        history = list(getattr(self.gm, "_history", []))
        sender = {actor}

        def announce(character: str | None) -> None:
            if said["who"] is None:  # the GM has taken the line: now everyone hears of it
                said["who"] = character or who or "?"
                self._publish("busy", not_to=sender, who=said["who"], regenerated=regenerated)
                self._publish("said", who=said["who"], text=text, regenerated=regenerated)

        def on_mechanics(reply) -> None:
            announce(reply.character)
            said["shown"] = True
            lines = mechanics_lines(reply)
            if lines:
                self._publish("mechanics", lines=lines)

        def on_token(delta: str) -> None:
            announce(None)
            self._publish("token", text=delta)

        self._publish("busy", to=sender, who=who, regenerated=regenerated)
        self.journal.start(n, len(self.gm.session.log))
        before = None if self.gm.session.path else self.gm.session.model_dump_json()
        try:
            with self._one_save():
                if self._gm_thread is None:
                    raise VgmError("the room is closed")
                reply = self._gm_thread.submit(run, on_token=on_token, on_mechanics=on_mechanics).result()
            if reply is None:
                raise VgmError("nothing to regenerate")
            self.gm.save()
        except Exception as exc:
            restored = self._restore(before)
            self.gm._history = history  # the line changed nothing, so there is nothing to undo
            if said["who"] is None:  # nobody else heard of it
                self._snapshot = self._build()
                self._publish("idle", to=sender)
            else:  # the others saw it begin: their pages read the table again
                self._refresh("error")
            if isinstance(exc, VgmError):
                self.journal.close(n, "refused" if said["who"] is None else "failed", error=" ".join(str(exc).split())[:300])
                raise
            self.journal.close(n, "failed", error=type(exc).__name__)
            log.exception("table: a turn failed")
            kept = "the table is as it was last saved" if restored else \
                f"the table could not be put back; restart it (vgm table serve --resume {self.gm.session.path})"
            raise TableFault(f"the GM hit a bug ({type(exc).__name__}) on that line; it was not taken and {kept}; try again") from None
        self.journal.close(n, "answered", character=reply.character)
        announce(reply.character)
        if not said["shown"]:  # a free roll: no narration, so no listener was called
            lines = mechanics_lines(reply)
            if lines:
                self._publish("mechanics", lines=lines)
        self._last = {"who": reply.character, "text": text, "lines": mechanics_lines(reply), "notes": list(reply.notes)}
        self._refresh("done")
        return {"character": reply.character, "decision": reply.decision, "narration": reply.narration,
                "lines": mechanics_lines(reply), "notes": list(reply.notes)}

    # ----- the state pages read ------------------------------------------------------------------

    def _refresh(self, kind: str | None) -> None:
        self._snapshot = self._build()
        if kind:
            self._publish(kind)
        else:
            self._publish("idle")

    def _build(self) -> dict[str, Any]:
        """The whole table as pages show it (the same for everyone; ``view`` adds the seat's own parts)."""
        from gm.combat import Combat
        from gm.sheet_view import sheet_rows

        gm = self.gm
        fight = Combat.from_json(gm.session.combat) if gm.session.combat else None
        order, turn, fight_text = [], None, ""
        if fight is not None:
            for i, name in enumerate(fight.order):
                c = fight.combatants[name]
                order.append({"name": name, "side": c.side, "initiative": fight.rules.initiative_text(c), "hp": c.hp_text(),
                              "status": c.status, "current": i == fight.turn and not fight.over,
                              "conditions": [x.label() for x in c.conditions]})
            turn = None if fight.over else fight.current.name
            fight_text = fight.outcome_text() if fight.over else fight.order_text()
        hp_now = {o["name"]: o["hp"] for o in order}
        from gm.combat.inventory import things_line
        from gm.party import carried_now

        carries = carried_now(gm.session, gm.ruleset, gm.sheets)  # what each holds now: found, given, drunk (gm.party)
        party = []
        for sheet in gm.sheets:
            hp = hp_now.get(sheet.name) or (f"{sheet.hp}/{sheet.hp} HP" if getattr(sheet, "hp", None) else "")
            party.append({"name": sheet.name, "player": gm.player_of(sheet), "summary": sheet.summary(gm.ruleset), "hp": hp,
                          "notes": " ".join((sheet.notes or "").split()), "carries": things_line(carries.get(sheet.name, {})),
                          "rows": [list(r) for r in sheet_rows(sheet, gm.ruleset)]})
        with self._events_lock:
            seq = self._seq
        return {
            "seq": seq,
            "title": gm.scenario.title, "ruleset": gm.ruleset.name, "ruleset_title": gm.ruleset.title,
            "session": Path(gm.session.path).name if gm.session.path else None,
            "fight": fight is not None and not fight.over, "round": fight.round if fight is not None else None,
            "turn": turn, "order": order, "fight_text": fight_text,
            "party": party,
            "log": [{"speaker": t.speaker, "text": t.text} for t in gm.session.log[-LOG_SHOWN:]],
            "last_reply": self._last,
            "can_undo": bool(getattr(gm, "_history", None)),
            "can_regenerate": self.can_regenerate(),
        }

    # ----- events -----------------------------------------------------------------------------

    def _publish(self, kind: str, to: set[str] | None = None, not_to: set[str] | None = None, **data: Any) -> None:
        """Number and keep an event, and wake the pages; ``to`` (seat names: ``host`` or a character)
        limits who hears it, ``not_to`` leaves seats out."""
        with self._events_lock:
            self._seq += 1
            event = {"seq": self._seq, "kind": kind, **data}
            if to is not None or not_to is not None:
                event["_audience"] = (frozenset(to) if to is not None else None, frozenset(not_to or ()))
            self._events.append(event)
            if len(self._events) > KEEP_EVENTS + KEEP_EVENTS // 10:  # dropped in batches: one copy per 500 events
                del self._events[: len(self._events) - KEEP_EVENTS]
            listeners = list(self._listeners)
        for wake in listeners:
            try:
                wake()
            except RuntimeError:  # a page's event loop already closed
                self._listeners.discard(wake)

    def events_since(self, seq: int, seat: Seat | None = None) -> tuple[list[dict[str, Any]], bool]:
        """The events after ``seq`` that ``seat`` may hear (all of them for ``None``), and whether
        some were already dropped (the page must reload the state)."""
        with self._events_lock:
            if not self._events:
                return [], False
            first = self._events[0]["seq"]
            lost = seq < first - 1
            found = self._events[max(0, seq - first + 1):] if not lost else list(self._events)
        if seat is None:
            return [{k: v for k, v in e.items() if k != "_audience"} for e in found], lost
        name = seat.name
        heard = []
        for e in found:
            audience = e.get("_audience")
            if audience is not None:
                to, not_to = audience
                if (to is not None and name not in to) or name in not_to:
                    continue
                e = {k: v for k, v in e.items() if k != "_audience"}
            heard.append(e)
        return heard, lost

    @property
    def seq(self) -> int:
        with self._events_lock:
            return self._seq

    def listen(self, wake: Callable[[], None]) -> None:
        """Call ``wake()`` (from any thread) whenever an event is published."""
        with self._events_lock:
            self._listeners.add(wake)

    def unlisten(self, wake: Callable[[], None]) -> None:
        with self._events_lock:
            self._listeners.discard(wake)

    def closing(self) -> None:
        """Tell every page the room is closing: their event streams end (safe from a signal handler)."""
        if not self.closed:
            self.closed = True
            self._publish("closed")

    def close(self) -> None:
        """Stop the room: pages stop following, the session is saved, the model closed (once)."""
        self.closing()
        with self._turn:
            if self._gm_thread is None:
                return
            self.gm.save()
            self._gm_thread.submit(self.gm.close).result()  # the model client closes on the loop it ran on
            self._gm_thread.shutdown()
            self._gm_thread = None
