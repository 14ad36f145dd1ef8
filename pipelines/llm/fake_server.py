"""A small OpenAI-compatible chat server on 127.0.0.1 that can misbehave on purpose.

For tests and benchmarks of the client (and of any area's code that must survive a bad
server): it answers ``POST /v1/chat/completions`` after ``delay_s``, and a queue of faults
makes the next requests fail in a chosen way:

- ``"500"`` / ``"429"`` / ``"503"`` / ``"400"`` / ``"401"``: that HTTP status
- ``"400-response-format"``: a 400 that rejects ``response_format`` (structured output)
- ``"slow"``: sleep ``slow_s`` before answering (for timeouts)
- ``"garbage"``: 200 with a body that is not JSON
- ``"disconnect"``: close the connection without an answer
- ``"bad-json-answer"``: a normal completion whose content is broken JSON

Runs in its own thread and event loop, so synchronous and async callers alike can use it::

    with FakeServer(reply="[]") as server:
        model = get_model("openai:fake", base_url=server.base_url)
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web


class FakeServer:
    """An OpenAI-compatible fake; ``faults`` is consumed one per request, in order."""

    def __init__(
        self,
        *,
        reply: str | Callable[[dict[str, Any]], str] = "ok",
        delay_s: float = 0.0,
        slow_s: float = 5.0,
        faults: list[str] | None = None,
        cached_tokens: int = 0,
    ) -> None:
        self.reply = reply
        self.delay_s = delay_s
        self.slow_s = slow_s
        self.faults: list[str] = list(faults or [])
        self.cached_tokens = cached_tokens
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.base_url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    # -- the app -------------------------------------------------------------------------
    def _next_fault(self) -> str | None:
        with self._lock:
            return self.faults.pop(0) if self.faults else None

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        fault = self._next_fault()
        if fault == "disconnect":
            assert request.transport is not None
            request.transport.close()
            return web.Response(status=500)
        if fault == "slow":
            await asyncio.sleep(self.slow_s)
        if fault == "garbage":
            return web.Response(status=200, text="<html>proxy error: this is not json", content_type="text/html")
        if fault == "400-response-format":
            return web.json_response({"error": {"message": "response_format json_schema is not supported", "type": "invalid_request_error"}}, status=400)
        if fault and fault.isdigit():
            return web.json_response({"error": {"message": f"injected {fault}", "type": "server_error"}}, status=int(fault))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        text = self.reply(body) if callable(self.reply) else self.reply
        if fault == "bad-json-answer":
            text = '{"skills": ["perception", "stealth"'
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
        if body.get("stream"):  # server-sent events, a few characters a chunk, then usage and [DONE]
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            for start in range(0, len(text), 4):
                chunk = {"choices": [{"index": 0, "delta": {"content": text[start:start + 4]}}]}
                await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": max(1, len(text) // 4)}
            await response.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n".encode())
            await response.write_eof()
            return response
        return web.json_response({
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": max(1, len(text) // 4),
                "total_tokens": prompt_tokens + max(1, len(text) // 4),
                "prompt_tokens_details": {"cached_tokens": min(self.cached_tokens, prompt_tokens)},
            },
        })

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    # -- lifecycle -------------------------------------------------------------------------
    def _run(self) -> None:
        try:  # a faster loop when installed, so the fake costs the client under test less CPU
            import uvloop

            loop = self._loop = uvloop.new_event_loop()
        except ImportError:
            loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        self._runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=1024)
        loop.run_until_complete(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._runner.cleanup())
        loop.close()

    def start(self) -> "FakeServer":
        self._thread = threading.Thread(target=self._run, daemon=True, name="fake-openai-server")
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop and self._thread and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_main() -> None:
    """``python -m pipelines.llm.fake_server DELAY_MS``: a fake in its own process (benchmarks)."""
    import sys

    delay_ms = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    server = FakeServer(reply='{"ok": true}', delay_s=delay_ms / 1000).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    serve_main()
