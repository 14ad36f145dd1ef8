"""The edge both web servers share (``vgm table serve`` and ``vgm ui``): what a request may be
before any handler reads it, and the one shape every failure is answered in.

    app.add_middleware(RequestGuard, max_body=lambda scope: 64_000, authorize=check_token, json_body=is_api)
    json_errors(app)   # FastAPI's own errors (404, 405, 422, HTTPException) as {"error": one line}

In order, before a handler runs:

1. ``authorize(scope)`` may refuse from the headers and the query alone (403/401), before one byte
   of the body is read;
2. a body over ``max_body(scope)`` bytes is refused (413) from its Content-Length, or as soon as
   the bytes read pass the limit; it is never read whole;
3. a body that must be JSON (``json_body(scope)``) is parsed by orjson, which refuses invalid
   UTF-8, lone surrogates, NaN and nesting past 1024 by itself, and refused past ``MAX_DEPTH``
   levels (nothing a client sends here nests deeper than 3);
4. every string in it is cleaned (``ui._text.clean_text``: no control characters but newline and
   tab), and the handler reads the cleaned body.

Every refusal, and every error no handler caught, is ``{"error": "one line"}``: 4xx when the
client is at fault, 500 (logged) when the server is.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson  # a dependency of gradio; unlike json, its parser is not recursive and refuses lone surrogates
from starlette.datastructures import Headers, QueryParams
from starlette.responses import JSONResponse

from .._text import clean_text

__all__ = ["MAX_DEPTH", "Refused", "RequestGuard", "bearer_token", "error", "is_form", "json_errors", "parse_json"]

log = logging.getLogger("vgm.web")

MAX_DEPTH = 32  # levels of nesting a JSON body may have (Gradio's payloads reach about 8)
BODY_TIMEOUT_S = 20.0  # a body that trickles in slower than this is refused (408), not waited on forever
BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


class Refused(Exception):
    """A request refused at the edge: ``status`` and one line for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The one error shape of both servers."""
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status,
                        headers={"Cache-Control": "no-store", **(headers or {})})


def bearer_token(scope: dict[str, Any]) -> str | None:
    """The token a request carries: ``Authorization: Bearer T`` first, else ``?token=T``."""
    auth = Headers(scope=scope).get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    given = QueryParams(scope.get("query_string", b"")).getlist("token")
    return given[0] or None if len(given) == 1 else None  # two tokens in one address: neither is taken


def _depth(value: Any) -> int:
    """How deep a parsed JSON value nests (iterative: no recursion on what a client sent)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                return deepest
            stack.extend((child, level + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _clean(value: Any, changed: list[bool]) -> Any:
    """Every string (keys too) through ``clean_text``; only called once the depth is known small."""
    if isinstance(value, str):
        kept = clean_text(value)
        if kept != value:
            changed[0] = True
        return kept
    if isinstance(value, dict):
        return {_clean(k, changed): _clean(v, changed) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v, changed) for v in value]
    return value


def parse_json(body: bytes) -> tuple[Any, bool]:
    """A client's JSON body, checked and cleaned, and whether cleaning changed it; ``Refused(400)``
    with the reason when it is not JSON a handler may read."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        reason = str(exc).split(":")[0]
        if "surrogate" in reason or "UTF-8" in reason:
            raise Refused(400, f"the body is not valid UTF-8 JSON ({reason}); send text as UTF-8") from None
        if "depth" in reason:
            raise Refused(400, f"the JSON nests deeper than {MAX_DEPTH} levels") from None
        raise Refused(400, f"the body is not valid JSON ({reason})") from None
    if _depth(data) > MAX_DEPTH:
        raise Refused(400, f"the JSON nests deeper than {MAX_DEPTH} levels")
    changed = [False]
    return _clean(data, changed), changed[0]


async def _read_body(receive, limit: int) -> bytes:
    chunks, size = [], 0
    async with asyncio.timeout(BODY_TIMEOUT_S):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ConnectionResetError("the client left while sending its body")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise Refused(413, f"the body is over {limit:,} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


class RequestGuard:
    """Pure ASGI middleware (a ``BaseHTTPMiddleware`` would buffer the table's event streams).

    Args:
        app: the app it guards.
        max_body: the largest body in bytes a request may send, by request.
        authorize: the headers-and-query check of a request with a body; returns ``None`` to let
            it in or ``(status, message)`` to refuse it before its body is read. May block (it runs
            in a worker thread).
        json_body: which requests' bodies must be JSON, whatever their Content-Type says (parsed,
            checked, cleaned); the others (forms) pass with their size checked.
    """

    def __init__(self, app, max_body: Callable[[dict], int], authorize: Callable[[dict], tuple[int, str] | None] | None = None,
                 json_body: Callable[[dict], bool] | None = None) -> None:
        self.app = app
        self.max_body = max_body
        self.authorize = authorize
        self.json_body = json_body or (lambda scope: False)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            receive, scope = await self._admit(scope, receive)
        except Refused as exc:
            # the body may be unread: close the connection after answering rather than drain it
            await error(exc.status, exc.message, {"Connection": "close"})(scope, receive, send)
            return
        except (TimeoutError, ConnectionResetError) as exc:
            if isinstance(exc, TimeoutError):
                await error(408, f"the body took over {BODY_TIMEOUT_S:.0f} s to arrive", {"Connection": "close"})(scope, receive, send)
            return
        try:
            await self.app(scope, receive, watched)
        except Exception as exc:  # noqa: BLE001 - the last word on a request is one JSON line, never a bare 500
            log.exception("unexpected error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            await error(500, f"the server hit a bug ({type(exc).__name__}); try again")(scope, receive, send)

    async def _admit(self, scope, receive) -> tuple[Callable[[], Awaitable[dict]], dict]:
        """Check a request's size, token and JSON; the receive callable its handler should read."""
        if scope.get("method") not in BODY_METHODS:
            return receive, scope
        if self.authorize is not None:
            denied = await asyncio.to_thread(self.authorize, scope)
            if denied is not None:
                raise Refused(*denied)
        limit = self.max_body(scope)
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isascii() or not declared.isdigit():
                raise Refused(400, "Content-Length is not a number")
            if int(declared) > limit:
                raise Refused(413, f"the body is over {limit:,} bytes")
        body = await _read_body(receive, limit)
        if body.strip() and self.json_body(scope):
            data, changed = parse_json(body)
            if changed:  # only a body that cleaning changed is rewritten
                body = orjson.dumps(data)
                scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
                         + [(b"content-length", str(len(body)).encode())]}
        given = False

        async def replay() -> dict:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect, when it comes

        return replay, scope


def is_form(scope: dict[str, Any]) -> bool:
    """A form post (urlencoded or multipart): what the crowd pages and Gradio's uploads send."""
    kind = Headers(scope=scope).get("content-type", "").split(";")[0].strip().lower()
    return kind in ("application/x-www-form-urlencoded", "multipart/form-data")


def json_errors(app) -> None:
    """FastAPI's own answers (404, 405, 422, ``HTTPException``) in the one error shape."""
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException

    @app.exception_handler(HTTPException)
    async def http_error(request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else "refused"
        return error(exc.status_code, message, dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(request, exc: RequestValidationError):
        first = (exc.errors() or [{}])[0]
        where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "header", "path"))
        return error(422, f"{where + ': ' if where else ''}{first.get('msg', 'invalid request')}")
