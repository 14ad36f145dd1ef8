"""The shared table over HTTP: a small FastAPI app (no Gradio) and Server-Sent Events.

Routes (every one needs the seat's token; a wrong or revoked one gets 403 "access denied"):

| route | what |
|---|---|
| ``GET /?token=T`` | the table page (``_table_page.PAGE``); a bad token sees only "access denied" |
| ``GET /api/state?token=T`` | the table as this seat sees it (``TableRoom.view``) |
| ``GET /api/events?token=T&after=N`` | Server-Sent Events after number N: said, mechanics, token, done... |
| ``POST /api/act`` ``{token, text, character?}`` | a line (``/roll``, ``/check`` too); waits for the GM's reply |
| ``POST /api/undo``, ``/api/regenerate`` ``{token}`` | the host's undo and regenerate |
| ``POST /api/notes`` ``{token, notes}`` | the host rewrites the scene's GM-only notes |
| ``POST /api/renew`` ``{token, seat}`` | the host revokes a seat's link and gets a new one |
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

from ._table import AccessDenied, TableRoom
from ._table_page import DENIED, PAGE

__all__ = ["check_address", "create_table_app", "event_stream", "serve_table"]

log = logging.getLogger("vgm.table")
PING_S = 15.0  # a comment line this often keeps proxies and browsers from closing a quiet stream
DENIED_BODY = {"error": "access denied"}


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _denied(status: int = 403) -> JSONResponse:
    return JSONResponse(DENIED_BODY, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _sse(event: dict[str, Any]) -> str:
    return f"id: {event['seq']}\nevent: {event['kind']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


async def event_stream(room: TableRoom, token: str | None, after: int, disconnected=None):
    """The events after ``after`` for one page, as SSE text, until the page leaves, its link is
    revoked (an ``denied`` event) or the room closes."""
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
                room.seat(token)
            except AccessDenied:
                yield f"event: denied\ndata: {json.dumps(DENIED_BODY)}\n\n"
                return
            events, lost = room.events_since(after)
            if lost:
                yield f"event: state\ndata: {json.dumps({'seq': after, 'kind': 'state'})}\n\n"
            for event in events:
                yield _sse(event)
                after = event["seq"]
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


def create_table_app(room: TableRoom) -> FastAPI:
    """The web app of one room."""
    app = FastAPI(title="virtual-gm table", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.room = room

    def fail(exc: Exception) -> JSONResponse:
        if isinstance(exc, AccessDenied):
            return _denied()
        if isinstance(exc, VgmError):
            return JSONResponse({"error": " ".join(str(exc).split())}, status_code=400)
        log.exception("table: unexpected error")
        return JSONResponse({"error": f"the GM hit a bug ({type(exc).__name__}); the table is saved, try again"}, status_code=500)

    @app.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/", response_class=HTMLResponse)
    def page(token: str | None = None) -> HTMLResponse:
        try:
            room.seat(token)
        except AccessDenied:
            return HTMLResponse(DENIED, status_code=403)
        return HTMLResponse(PAGE, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    @app.get("/api/state")
    def state(request: Request, token: str | None = None):
        try:
            return JSONResponse(room.view(token, _base(request)), headers={"Cache-Control": "no-store"})
        except Exception as exc:  # noqa: BLE001 - every error is one line to the page
            return fail(exc)

    @app.get("/api/events")
    async def events(request: Request, token: str | None = None, after: int | None = None):
        try:
            room.seat(token)
        except AccessDenied:
            return _denied()
        last = request.headers.get("last-event-id")
        start = int(last) if last and last.isdigit() else after if after is not None else room.seq
        return StreamingResponse(event_stream(room, token, start, request.is_disconnected), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    def _token_of(data: dict[str, Any]) -> str | None:
        token = data.get("token")
        return token if isinstance(token, str) else None

    @app.post("/api/act")
    async def act(request: Request):
        data = await _body(request)
        text = data.get("text")
        character = data.get("character")
        try:
            if not isinstance(text, str):
                room.seat(_token_of(data))
                raise VgmError("say something: the line is empty")
            result = await asyncio.to_thread(room.act, _token_of(data), text, character if isinstance(character, str) else None)
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, **result}

    @app.post("/api/undo")
    async def undo(request: Request):
        data = await _body(request)
        try:
            done = await asyncio.to_thread(room.undo, _token_of(data))
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": done, **({} if done else {"error": "nothing to undo"})}

    @app.post("/api/regenerate")
    async def regenerate(request: Request):
        data = await _body(request)
        try:
            result = await asyncio.to_thread(room.regenerate, _token_of(data))
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, **result}

    @app.post("/api/notes")
    async def notes(request: Request):
        data = await _body(request)
        given = data.get("notes")
        try:
            if not isinstance(given, (str, list)):
                room.seat(_token_of(data))
                raise VgmError("notes are a list of lines (or one text, one note a line)")
            kept = await asyncio.to_thread(room.set_notes, _token_of(data), given)
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, "notes": kept}

    @app.post("/api/renew")
    async def renew(request: Request):
        data = await _body(request)
        seat = data.get("seat")
        try:
            if not isinstance(seat, str):
                room.seat(_token_of(data))
                raise VgmError("name the seat whose link to renew")
            link = room.renew_link(_token_of(data), seat, _base(request))
        except Exception as exc:  # noqa: BLE001
            return fail(exc)
        return {"ok": True, "link": link}

    return app


def check_address(host: str, port: int) -> None:
    """One line, before anything slow, when ``host:port`` cannot be listened on."""
    import errno
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a closed room's port is free again at once
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise VgmError(f"{host}:{port} is already in use; pass another --port (e.g. --port {port + 1})") from None
            raise VgmError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); give --host an address of this machine (127.0.0.1, 0.0.0.0)") from None


def serve_table(room: TableRoom, host: str = "127.0.0.1", port: int = 7861, announce=None, base_url: str | None = None) -> None:
    """Serve one room until interrupted (``vgm table serve``); ``announce`` gets the links.

    Only loopback unless ``host`` says otherwise. ``base_url`` is the address players reach
    (when the room sits behind a proxy or a tunnel); by default the served one.
    """
    import uvicorn

    from ._app import served_url

    check_address(host, port)
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
