"""The shared table over HTTP: a small FastAPI app (no Gradio) and Server-Sent Events.

Routes (every one needs the seat's token, as ``Authorization: Bearer T`` or ``?token=T``; a wrong
or revoked one gets 403 ``{"error": "access denied"}``, and every other failure is
``{"error": one line}`` too):

| route | what |
|---|---|
| ``GET /?token=T`` | the table page (``_table_page.PAGE``); a bad token sees only "access denied" |
| ``GET /api/state`` | the table as this seat sees it (``TableRoom.view``) |
| ``GET /api/events?after=N`` | Server-Sent Events after number N that this seat may hear: said, mechanics, token, done... |
| ``POST /api/act`` ``{text, character?}`` | a line (``/roll``, ``/check`` too); waits for the GM's reply |
| ``POST /api/undo``, ``/api/regenerate`` | the host's undo and regenerate |
| ``POST /api/notes`` ``{notes}`` | the host rewrites the scene's GM-only notes |
| ``POST /api/renew`` ``{seat}`` | the host revokes a seat's link and gets a new one |
| ``GET /healthz`` | liveness, no token |

The GM's turn runs in the request's worker thread (FastAPI runs plain ``def`` routes in a
thread pool) under the room's lock, publishing events that every open event stream forwards.
"""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from rulesets import VgmError

from ._address import check_address
from ._guard import RequestGuard, bearer_token, error, json_errors
from ._table import AccessDenied, TableFault, TableRoom
from ._table_page import DENIED, PAGE

__all__ = ["check_address", "create_table_app", "event_stream", "serve_table", "steady_heap"]

log = logging.getLogger("vgm.table")
PING_S = 15.0  # a comment line this often keeps proxies and browsers from closing a quiet stream
DENIED_BODY = {"error": "access denied"}
MAX_BODY = 64 * 1024  # a line, a seat, a token: far more than any of them needs
MAX_NOTES_BODY = 1024 * 1024  # 200 notes of 2,000 characters, in any script


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _denied(status: int = 403) -> JSONResponse:
    return JSONResponse(DENIED_BODY, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object the guard already checked and cleaned (``{}`` for an empty body)."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError:  # the guard lets no such body through; said plainly should that change
        raise VgmError("the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise VgmError('send a JSON object, e.g. {"text": "I look around"}')
    return data


def _sse(event: dict[str, Any]) -> str:
    return f"id: {event['seq']}\nevent: {event['kind']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


async def event_stream(room: TableRoom, token: str | None, after: int, disconnected=None):
    """The events after ``after`` that this seat may hear, as SSE text, until the page leaves, its
    link is revoked (an ``denied`` event) or the room closes."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def ping() -> None:
        loop.call_soon_threadsafe(wake.set)

    room.listen(ping)
    try:
        yield "retry: 1000\n\n"
        while True:
            wake.clear()
            try:
                seat = room.seat(token)
            except AccessDenied:
                yield f"event: denied\ndata: {json.dumps(DENIED_BODY)}\n\n"
                return
            last = room.seq
            events, lost = room.events_since(after, seat)
            if lost:
                yield f"event: state\ndata: {json.dumps({'seq': after, 'kind': 'state'})}\n\n"
            for event in events:
                yield _sse(event)
            after = max([after, last, *(e["seq"] for e in events)])  # events this seat may not hear are passed over
            if room.closed or any(e["kind"] == "closed" for e in events):
                return
            if events:
                continue
            if disconnected is not None and await disconnected():
                return
            try:
                await asyncio.wait_for(wake.wait(), PING_S)
            except TimeoutError:
                yield ": ping\n\n"
    finally:
        room.unlisten(ping)


def _after(value: str | None) -> int | None:
    """A page's last seen event number, from ``?after=`` or ``Last-Event-ID``; None when it is not a plain number."""
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 18:
        return None
    return int(value)


def create_table_app(room: TableRoom) -> FastAPI:
    """The web app of one room, behind the shared request guard (``ui.web._guard``).

    A POST carries its token in ``Authorization: Bearer T`` (or ``?token=T``): it is checked
    before one byte of the body is read, and a body over 64 KB (1 MB for the notes) is refused
    unread; the body is one JSON object, nested at most 32 deep, its text cleaned of control
    characters.
    """
    app = FastAPI(title="virtual-gm table", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.room = room

    def authorize(scope: dict) -> tuple[int, str] | None:
        if not scope["path"].startswith("/api/"):
            return None
        try:
            room.seat(bearer_token(scope))
        except AccessDenied:
            return 403, "access denied"
        return None

    app.add_middleware(RequestGuard, max_body=lambda scope: MAX_NOTES_BODY if scope["path"] == "/api/notes" else MAX_BODY,
                       authorize=authorize, json_body=lambda scope: True)
    json_errors(app)

    def fail(exc: Exception) -> JSONResponse:
        if isinstance(exc, AccessDenied):
            return _denied()
        if isinstance(exc, VgmError):
            return error(400, str(exc))
        if isinstance(exc, TableFault):
            return error(500, str(exc))
        log.exception("table: unexpected error")
        return error(500, f"the GM hit a bug ({type(exc).__name__}); try again")

    @app.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/", response_class=HTMLResponse)
    def page(request: Request) -> HTMLResponse:
        try:
            room.seat(bearer_token(request.scope))
        except AccessDenied:
            return HTMLResponse(DENIED, status_code=403)
        return HTMLResponse(PAGE, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    @app.get("/api/state")
    def state(request: Request):
        try:
            return JSONResponse(room.view(bearer_token(request.scope), _base(request)), headers={"Cache-Control": "no-store"})
        except Exception as exc:  # noqa: BLE001 - every error is one line to the page
            return fail(exc)

    @app.get("/api/events")
    async def events(request: Request):
        token = bearer_token(request.scope)
        try:
            room.seat(token)
        except AccessDenied:
            return _denied()
        start = _after(request.headers.get("last-event-id"))
        start = start if start is not None else _after(request.query_params.get("after"))
        return StreamingResponse(event_stream(room, token, room.seq if start is None else start, request.is_disconnected),
                                 media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @app.post("/api/act")
    async def act(request: Request):
        try:
            data = await _body(request)
            text, character = data.get("text"), data.get("character")
            if not isinstance(text, str):
                raise VgmError("say something: the line is empty")
            result = await asyncio.to_thread(room.act, bearer_token(request.scope), text,
                                             character if isinstance(character, str) else None)
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, **result}

    @app.post("/api/undo")
    async def undo(request: Request):
        try:
            done = await asyncio.to_thread(room.undo, bearer_token(request.scope))
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": done, **({} if done else {"error": "nothing to undo"})}

    @app.post("/api/regenerate")
    async def regenerate(request: Request):
        try:
            result = await asyncio.to_thread(room.regenerate, bearer_token(request.scope))
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, **result}

    @app.post("/api/notes")
    async def notes(request: Request):
        try:
            given = (await _body(request)).get("notes")
            if not isinstance(given, str) and not (isinstance(given, list) and all(isinstance(n, str) for n in given)):
                raise VgmError("notes are a list of lines (or one text, one note a line)")
            kept = await asyncio.to_thread(room.set_notes, bearer_token(request.scope), given)
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, "notes": kept}

    @app.post("/api/renew")
    async def renew(request: Request):
        try:
            seat = (await _body(request)).get("seat")
            if not isinstance(seat, str):
                raise VgmError("name the seat whose link to renew")
            link = room.renew_link(bearer_token(request.scope), seat, _base(request))
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, "link": link}

    return app


def steady_heap() -> bool:
    """Keep a long-served room's memory flat: large blocks go straight back to the system when freed.

    Every turn the session is written whole (and kept, compressed, for undo), so the server allocates
    a buffer a little larger than the last one, each turn. glibc raises its mmap threshold after the
    first such block is freed, so later ones come from the heap, never fit the hole the previous one
    left, and the heap grows: 0.15-0.45 MB a turn in ``bench/table_soak.py``, 9 KB with the threshold
    held at its default of 128 KB (setting it turns the adjustment off). Hand-written with ctypes: no
    library exposes ``mallopt``. Elsewhere than glibc it does nothing and returns False.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_mmap_threshold = -3  # malloc.h
    return bool(mallopt(m_mmap_threshold, 128 * 1024))


def serve_table(room: TableRoom, host: str = "127.0.0.1", port: int = 7861, announce=None, base_url: str | None = None) -> None:
    """Serve one room until interrupted (``vgm table serve``); ``announce`` gets the links.

    Only loopback unless ``host`` says otherwise. ``base_url`` is the address players reach
    (when the room sits behind a proxy or a tunnel); by default the served one.
    """
    import uvicorn

    from ._app import served_url

    check_address(host, port)
    steady_heap()
    app = create_table_app(room)
    url = (base_url or served_url(host, port)).rstrip("/")
    if announce:
        gm = room.gm
        announce(f"{gm.scenario.title} ({gm.ruleset.title}) on {url}/  (Ctrl+C stops it; the room is saved after every action)")
        announce(f"session: {gm.session.path} (reopen with: vgm table serve --resume {gm.session.path})")
        for seat, link in room.links(url).items():
            announce(f"{'host (keep it private)' if seat == 'host' else seat}: {link}")
        if host not in ("127.0.0.1", "localhost", "::1"):
            announce("note: links travel as plain http; on an untrusted network put the room behind https (--base-url)")

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:  # Ctrl+C: end the pages' event streams first, so shutdown is quick
            room.closing()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_keep_alive=30, timeout_graceful_shutdown=5)
    try:
        Server(config).run()
    finally:
        room.close()
    if announce:
        announce(f"the room is closed and saved; reopen it with: vgm table serve --resume {room.gm.session.path}")
