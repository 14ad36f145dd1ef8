"""A shared table: one room, one Game Master, several players each in their own browser.

    room = TableRoom.open(GameMaster("dnd5e", "ambush", model, session_path="runs/table"))
    room.links("http://127.0.0.1:7861")    # {"host": url, "Brisa Tallowmere": url, ...}
    room.act(brisa_token, "I attack the nearest goblin")   # streamed to everyone as events

Everything a browser may do goes through a private token: one per character (a join link) and
one for the host. A wrong or revoked token gets ``AccessDenied`` and nothing else. The room
runs one GM turn at a time (``GameMaster`` is not thread-safe): a second player's line waits
for the first to finish. While a turn runs, what happens is published as numbered events
(the line said, the dice and fight lines, the narration as it streams, done), which the web
server forwards to every open page (``ui.web._table_app``); a page that joins late reads the
room's last snapshot and the events after it.
"""
from __future__ import annotations

import hmac
import json
import os
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.ratings import AccessDenied
from rulesets import FileProblem, VgmError, read_json

__all__ = ["AccessDenied", "Seat", "Seats", "TableRoom", "links_path"]

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


class TableRoom:
    """One table: a ``GameMaster``, its seats, one turn at a time, and the events pages follow.

    Args:
        gm: the Game Master of this room (its session file is saved after every action).
        seats: the room's tokens; ``TableRoom.open`` makes them beside the session file.
    """

    def __init__(self, gm: Any, seats: Seats) -> None:
        self.gm = gm
        self.seats = seats
        self._turn = threading.Lock()  # one GM action at a time
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
        unless ``new_links``, which revokes every old link)."""
        path = links_path(gm.session.path) if gm.session.path else None
        if new_links and path is not None and path.is_file():
            path.unlink()
        return cls(gm, Seats(path, [s.name for s in gm.sheets]))

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
                nothing is published and nothing changes.
        """
        seat = self.seat(token)
        who = seat.character if seat.role == "player" else (character or "").strip()
        if seat.role == HOST and who:
            who = self.gm.sheet(who).name
        with self._turn:
            return self._play(lambda **listen: self.gm.step(who or "", text, **listen), who or None, text)

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
        self._host(token)
        with self._turn:
            if not self.can_regenerate():
                raise VgmError("nothing to regenerate: the last thing at the table was not a GM reply")
            last = self.gm.session.turns[-1]
            notes = list(self.gm.scenario.notes)

            def run(**listen):
                reply = self.gm.regenerate(**listen)
                self._keep_notes(notes)
                return reply

            return self._play(run, last.character, last.text, regenerated=True)

    def set_notes(self, token: str | None, notes: list[str] | str) -> list[str]:
        """The host rewrites the scene's GM-only notes (one a line); saved, and the GM's memory told."""
        self._host(token)
        if isinstance(notes, str):
            notes = notes.splitlines()
        clean = [" ".join(str(n).split()) for n in notes if str(n).strip()]
        if any(len(n) > 2000 for n in clean) or len(clean) > 200:
            raise VgmError("notes are one short line each (under 2,000 characters, at most 200 of them)")
        with self._turn:
            old = list(self.gm.scenario.notes)
            self.gm.session.scenario.notes = clean
            self.gm.save()
            self._tell_memory(old, clean)
            self._refresh("notes")
        return clean

    def renew_link(self, token: str | None, seat: str, base_url: str = "") -> str:
        """The host revokes a seat's link and gets a new one (the old token sees "access denied")."""
        self._host(token)
        name = self.seats.renew(seat)
        self._publish("revoked", seat=name)
        return self.links(base_url)[name] if base_url else name

    def can_regenerate(self) -> bool:
        """The last thing at the table is a GM reply to a line (not a free roll, not the opening)."""
        s = self.gm.session
        return bool(s.turns and s.log and getattr(self.gm, "_history", None)
                    and s.log[-1].speaker == "GM" and s.log[-1].text == s.turns[-1].narration)

    def _host(self, token: str | None) -> None:
        if self.seat(token).role != HOST:
            raise AccessDenied()

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

    def _play(self, run: Callable[..., Any], who: str | None, text: str, regenerated: bool = False) -> dict[str, Any]:
        """Run one GM action with the listeners that publish it; on a ``VgmError`` nothing changes."""
        said: dict[str, Any] = {"who": None, "shown": False}
        history = list(getattr(self.gm, "_history", []))

        def announce(character: str | None) -> None:
            if said["who"] is None:
                said["who"] = character or who or "?"
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

        self._publish("busy", who=who, regenerated=regenerated)
        try:
            reply = run(on_token=on_token, on_mechanics=on_mechanics)
        except VgmError:
            self.gm._history = history  # a refused line changed nothing, so there is nothing to undo
            self._publish("idle")
            raise
        except Exception:
            self._refresh("error")
            raise
        if reply is None:
            self._refresh(None)
            raise VgmError("nothing to regenerate")
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
        party = []
        for sheet in gm.sheets:
            hp = hp_now.get(sheet.name) or (f"{sheet.hp}/{sheet.hp} HP" if getattr(sheet, "hp", None) else "")
            party.append({"name": sheet.name, "player": gm.player_of(sheet), "summary": sheet.summary(gm.ruleset), "hp": hp,
                          "notes": " ".join((sheet.notes or "").split()),
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

    def _publish(self, kind: str, **data: Any) -> None:
        with self._events_lock:
            self._seq += 1
            self._events.append({"seq": self._seq, "kind": kind, **data})
            if len(self._events) > KEEP_EVENTS:
                del self._events[: len(self._events) - KEEP_EVENTS]
            listeners = list(self._listeners)
        for wake in listeners:
            try:
                wake()
            except RuntimeError:  # a page's event loop already closed
                self._listeners.discard(wake)

    def events_since(self, seq: int) -> tuple[list[dict[str, Any]], bool]:
        """The events after ``seq``, and whether some were already dropped (the page must reload the state)."""
        with self._events_lock:
            if self._events and seq < self._events[0]["seq"] - 1:
                return list(self._events), True
            return [e for e in self._events if e["seq"] > seq], False

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
        """Stop the room: pages stop following, the session is saved, the model closed."""
        self.closing()
        with self._turn:
            self.gm.save()
            self.gm.close()
