"""The one client every model call goes through.

``ClientModel`` adds, around any backend's single request: a bound on concurrent calls
(semaphore), a per-call timeout, retries with exponential backoff on 429/5xx, connection
errors, timeouts and unreadable answers, the persistent response cache, and the usage log.
``OpenAICompatModel`` is the backend for every OpenAI-compatible server (OpenAI, vLLM,
Ollama, LM Studio, llama.cpp, our local model).

Why ``aiohttp`` rather than the ``openai`` SDK (or ``httpx``, which the SDK uses) here: the
SDK retries on its own and hides the status and body we classify, and per-call CPU counts
when thousands of cheap calls run at concurrency 32 on a shared 2-core machine — measured
here, httpx's pool costs ~3 ms of CPU per call under load, aiohttp ~0.2 ms. The SDK is used
where users want it (``langchain_model``, tests). Structured output degrades by itself: JSON schema, else JSON mode, else plain text
(``complete_json`` then parses and repairs).
"""
from __future__ import annotations

import asyncio
import json
import random
import time
import weakref
from typing import Any

import aiohttp

from ._types import Message, ModelError, Reply, Usage
from .cache import ResponseCache, UsageLog, cache_disabled_by_env, request_key, shared_cache, shared_usage_log
from .tokens import count_tokens

STRUCTURED_MODES = ("json_schema", "json_object", "none")
# A schema's top-level "x-guidance" key (llguidance's name for its JSON options, e.g.
# {"whitespace_flexible": false}: no optional spaces) is honoured by our own llama.cpp server
# and removed before a schema goes to any other.
COMPACT_KEY = "x-guidance"


class Retryable(Exception):
    """A failure worth another try (server busy or broken for a moment)."""

    def __init__(self, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after


class FormatRejected(Exception):
    """The server refused the ``response_format`` we sent: use the next weaker mode."""


class ClientModel:
    """Concurrency, timeouts, retries, cache and usage accounting around one ``_request``.

    Subclasses implement ``_request(messages, params, timeout) -> (text, Usage)`` and may
    raise ``Retryable``, ``FormatRejected`` or ``ModelError`` (not worth retrying).

    Args:
        name: the model string the user gave (shown in errors and logs).
        cache_id: what identifies the model's answers in the cache (never a secret).
        concurrency: most calls in flight at once.
        timeout: seconds one attempt may take.
        retries: extra attempts after the first.
        backoff_s: first backoff; doubles each retry (with jitter), capped at 30 s.
        cache: True (shared cache), False (none), or a ``ResponseCache``; ``VGM_NO_CACHE=1`` turns it off.
        usage_log: a ``UsageLog``, None for the default file, False for none.
    """

    structured: str = "none"  # mode for schemas whose root is an object
    extra_body: dict[str, Any] = {}  # server-specific request fields (llama.cpp's cache_prompt); part of the cache key
    structured_other: str = "none"  # mode for other roots (a list of checks, any JSON)
    hint: str = "check the server and try again"

    def __init__(
        self,
        name: str,
        *,
        cache_id: str | None = None,
        concurrency: int = 8,
        timeout: float = 120.0,
        retries: int = 3,
        backoff_s: float = 0.5,
        cache: bool | ResponseCache = True,
        usage_log: UsageLog | None | bool = None,
    ) -> None:
        if concurrency < 1:
            raise ModelError(f"concurrency must be at least 1 (got {concurrency})")
        self.name = name
        self.cache_id = cache_id or name
        self.concurrency = concurrency
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        if cache is True and not cache_disabled_by_env():
            self.cache: ResponseCache | None = shared_cache()
        elif isinstance(cache, ResponseCache) and not cache_disabled_by_env():
            self.cache = cache
        else:
            self.cache = None
        self.usage_log: UsageLog | None = None if usage_log is False else (usage_log if isinstance(usage_log, UsageLog) else shared_usage_log())
        self.usage_total = Usage(calls=0)
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()
        self._inflight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Future]] = weakref.WeakKeyDictionary()

    # -- what subclasses provide ------------------------------------------------------------
    async def _request(self, messages: list[Message], params: dict[str, Any], timeout: float) -> tuple[str, Usage]:
        raise NotImplementedError

    async def _recover(self) -> None:
        """Called between attempts after a failure (the local model restarts a dead server)."""

    # -- the call --------------------------------------------------------------------------
    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            sem = self._semaphores[loop] = asyncio.Semaphore(self.concurrency)
        return sem

    async def complete(
        self,
        messages: list[Message],
        *,
        step: str | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> Reply:
        """Answer ``messages``; from the cache when this exact request was answered before."""
        params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        if seed is not None:
            params["seed"] = seed
        if json_schema is not None:
            params["json_schema"] = json_schema
        if self.extra_body:
            params["extra_body"] = self.extra_body
        if self.cache is None:
            text, usage, attempts = await self._attempts(messages, params, step)
            self._account(usage, step, attempts=attempts)
            return Reply(text=text, usage=usage, model=self.name, step=step)
        key = request_key(self.cache_id, messages, params)
        if (hit := self.cache.get(key)) is not None:
            return self._from_cache(hit, step)
        # Single flight: the same request already on its way (two pipelines sharing a step)
        # is awaited, not sent twice.
        inflight = self._inflight.setdefault(asyncio.get_running_loop(), {})
        if key in inflight:
            try:
                await asyncio.shield(inflight[key])
            except Exception:
                pass  # the first caller reports its own failure; we try ourselves below
            else:
                if (hit := self.cache.get(key)) is not None:
                    return self._from_cache(hit, step)
        done = inflight[key] = asyncio.get_running_loop().create_future()
        try:
            text, usage, attempts = await self._attempts(messages, params, step)
            self.cache.put(key, self.cache_id, {"text": text, "usage": usage.model_dump(include={"prompt_tokens", "completion_tokens", "cached_tokens"})})
            done.set_result(None)
        except BaseException as exc:
            done.set_exception(exc if isinstance(exc, Exception) else ModelError("cancelled"))
            done.exception()  # mark retrieved: waiters may be none
            raise
        finally:
            if inflight.get(key) is done:
                del inflight[key]
        self._account(usage, step, attempts=attempts)
        return Reply(text=text, usage=usage, model=self.name, step=step)

    def _from_cache(self, hit: dict[str, Any], step: str | None) -> Reply:
        """A cached answer as a reply. Callers pass only ``ResponseCache.get`` results, which are
        checked for shape (a wrong one is a miss); the usage counts are read defensively all the same."""
        raw = hit.get("usage") if isinstance(hit.get("usage"), dict) else {}
        counts = {k: raw[k] for k in ("prompt_tokens", "completion_tokens", "cached_tokens") if type(raw.get(k)) is int and raw[k] >= 0}
        usage = Usage(**counts, latency_s=0.0, cache_hit=True, calls=1)
        self._account(usage, step, attempts=0)
        return Reply(text=str(hit.get("text") or ""), usage=usage, model=self.name, step=step)

    async def _attempts(self, messages: list[Message], params: dict[str, Any], step: str | None) -> tuple[str, Usage, int]:
        last, hint = "no attempt made", self.hint
        attempt = 0
        while attempt <= self.retries:
            attempt += 1
            retry_after: float | None = None
            try:
                async with self._semaphore():
                    started = time.perf_counter()  # the wait for a free slot is not the model's time
                    async with asyncio.timeout(self.timeout):
                        text, usage = await self._request(messages, params, self.timeout)
                usage.latency_s = round(time.perf_counter() - started, 4)
                return text, usage, attempt
            except FormatRejected:
                self._weaken_structured(params.get("json_schema"))
                attempt -= 1  # not the server's fault; try at once with a weaker mode
                continue
            except TimeoutError:
                last = f"no answer within {self.timeout:g} s"
                hint = "allow more time with --timeout or VGM_TIMEOUT, or lower the load on the server"
            except Retryable as exc:
                last, retry_after, hint = exc.detail, exc.retry_after, self.hint
            if attempt <= self.retries:
                await self._recover()
                delay = retry_after if retry_after is not None else self.backoff_s * (2 ** (attempt - 1)) * (0.5 + random.random())
                await asyncio.sleep(min(delay, 30.0))
        self._log_failure(last, attempt, step)
        raise ModelError(f"{self.name}: {last} (after {attempt} attempt{'s' if attempt != 1 else ''}); {hint}")

    def structured_mode(self, schema: dict[str, Any] | None) -> str:
        """The structured-output mode used for this schema's shape (object roots and others apart)."""
        return self.structured if _object_root(schema) else self.structured_other

    def _weaken_structured(self, schema: dict[str, Any] | None) -> None:
        mode = self.structured_mode(schema)
        if mode == "none":
            raise ModelError(f"{self.name}: the server rejected the request even without response_format; {self.hint}")
        if _object_root(schema):
            self.structured = STRUCTURED_MODES[STRUCTURED_MODES.index(mode) + 1]
        else:  # JSON mode forces an object, which would wrap a list answer: go straight to plain text
            self.structured_other = "none"

    def _account(self, usage: Usage, step: str | None, *, attempts: int) -> None:
        self.usage_total = self.usage_total + usage
        if self.usage_log is not None:
            self.usage_log.write({
                "event": "call", "model": self.name, "step": step, "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens, "cached_tokens": usage.cached_tokens,
                "latency_s": usage.latency_s, "cache_hit": usage.cache_hit, "attempts": attempts,
            })

    def _log_failure(self, error: str, attempts: int, step: str | None) -> None:
        if self.usage_log is not None:
            self.usage_log.write({"event": "error", "model": self.name, "step": step, "error": error, "attempts": attempts, "cache_hit": False})


def _object_root(schema: dict[str, Any] | None) -> bool:
    return bool(schema) and (schema.get("type") == "object" or "properties" in schema)


def _error_message(body: bytes, reason: str) -> str:
    try:
        err = json.loads(body).get("error")
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return " ".join(str(msg).split())[:200]
    except (ValueError, AttributeError):
        pass
    return " ".join(body.decode("utf-8", "replace").split())[:120] or reason


async def _close_with_loop(session: aiohttp.ClientSession):
    """An async generator the loop closes at shutdown (``asyncio.run`` does), closing the session."""
    try:
        yield
    finally:
        await session.close()


class OpenAICompatModel(ClientModel):
    """Any server speaking ``POST {base_url}/chat/completions`` (OpenAI's chat API).

    Args:
        model_id: the ``model`` field sent to the server.
        base_url: e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8080/v1``.
        api_key: sent as a Bearer token; never logged, cached or shown.
        structured: the strongest structured-output mode to try first.
        extra_body: fields added to every request body, e.g. ``{"cache_prompt": False}`` for llama.cpp
            (an uncached reference run); they are part of the response-cache key.
    """

    hint = "check --base-url / OPENAI_BASE_URL and that the server is up"

    def __init__(
        self,
        name: str,
        *,
        model_id: str,
        base_url: str,
        api_key: str | None = None,
        structured: str = "json_schema",
        extra_body: dict[str, Any] | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("cache_id", f"{base_url.rstrip('/')}|{model_id}")
        super().__init__(name, **options)
        self.extra_body = dict(extra_body or {})
        self.model_id = model_id
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.structured = structured
        self.structured_other = structured if structured == "json_schema" else "none"
        self._sessions: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[aiohttp.ClientSession, Any]] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}({self.name!r}, base_url={self.base_url!r})"

    async def _base(self) -> str:
        return self.base_url

    async def _session(self) -> aiohttp.ClientSession:
        """One pooled HTTP session per event loop, closed when that loop shuts down."""
        loop = asyncio.get_running_loop()
        held = self._sessions.get(loop)
        if held is None or held[0].closed:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            connector = aiohttp.TCPConnector(limit=self.concurrency + 4, limit_per_host=self.concurrency + 4)
            session = aiohttp.ClientSession(headers=headers, connector=connector)
            keeper = _close_with_loop(session)
            await keeper.__anext__()
            held = self._sessions[loop] = (session, keeper)
        return held[0]

    async def aclose(self) -> None:
        held = self._sessions.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await held[0].close()

    def _body(self, messages: list[Message], params: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model_id, "messages": messages, "max_tokens": params["max_tokens"], "temperature": params["temperature"]}
        if "seed" in params:
            body["seed"] = params["seed"]
        schema = params.get("json_schema")
        mode = self.structured_mode(schema)
        if schema is not None and COMPACT_KEY in schema:  # llguidance's own key; other servers are not told it
            schema = {k: v for k, v in schema.items() if k != COMPACT_KEY}
        if schema is not None and mode == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": False}}
        elif schema is not None and mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        body.update(params.get("extra_body") or {})
        return body

    async def _request(self, messages: list[Message], params: dict[str, Any], timeout: float) -> tuple[str, Usage]:
        body = self._body(messages, params)
        url = f"{await self._base()}/chat/completions"
        session = await self._session()
        try:
            async with session.post(url, json=body, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                status, reason, raw = response.status, response.reason or "", await response.read()
                retry_header = response.headers.get("retry-after")
        except TimeoutError:
            raise
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, OSError) as exc:
            raise Retryable(f"cannot reach {self.base_url} ({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})") from None
        if status == 429 or status >= 500:
            try:
                retry_after = float(retry_header) if retry_header else None
            except ValueError:
                retry_after = None
            raise Retryable(f"server answered HTTP {status} ({_error_message(raw, reason)})", retry_after)
        if status >= 400:
            message = _error_message(raw, reason)
            if status == 400 and "response_format" in body and any(w in message.lower() for w in ("response_format", "json_schema", "json_object", "schema")):
                raise FormatRejected(message)
            if status in (401, 403):
                raise ModelError(f"{self.name}: the server refused the API key (HTTP {status}); check OPENAI_API_KEY")
            if status == 404:
                raise ModelError(f"{self.name}: HTTP 404 at {url} ({message}); check the model name and --base-url (it usually ends in /v1)")
            if "context" in message.lower() and any(w in message.lower() for w in ("exceed", "length", "too long", "maximum")):
                raise ModelError(f"{self.name}: the prompt is longer than the model's context ({message}); "
                                 "trim it (pipelines.llm.tokens.trim_to_budget) or, for local models, raise VGM_CTX")
            raise ModelError(f"{self.name}: the server rejected the request (HTTP {status}: {message})")
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise Retryable(f"the answer from {self.base_url} is not an OpenAI chat completion ({' '.join(raw.decode('utf-8', 'replace').split())[:60]!r})") from None
        raw_usage = data.get("usage") or {}
        details = raw_usage.get("prompt_tokens_details") or {}
        usage = Usage(
            prompt_tokens=int(raw_usage.get("prompt_tokens") or 0),
            completion_tokens=int(raw_usage.get("completion_tokens") or 0),
            cached_tokens=int(details.get("cached_tokens") or 0),
        )
        if not raw_usage:
            usage.prompt_tokens, usage.completion_tokens = count_tokens(messages), count_tokens(text)
        return text, usage



async def _stream_request(model: OpenAICompatModel, messages: list[Message], params: dict[str, Any], on_token) -> tuple[str, Usage]:
    """One streamed chat completion (server-sent events); each text delta goes to ``on_token``."""
    body = model._body(messages, params)
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    url = f"{await model._base()}/chat/completions"
    session = await model._session()
    parts: list[str] = []
    usage = Usage()
    try:
        async with session.post(url, json=body, timeout=aiohttp.ClientTimeout(total=model.timeout)) as response:
            if response.status >= 400:
                raw = await response.read()
                raise ModelError(f"{model.name}: the server refused a streamed request (HTTP {response.status}: {_error_message(raw, response.reason or '')})")
            if "event-stream" not in response.headers.get("Content-Type", ""):
                # a server that ignores "stream": a whole completion at once
                raw = await response.read()
                try:
                    whole = json.loads(raw)["choices"][0]["message"].get("content") or ""
                except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                    raise ModelError(f"{model.name}: the answer is not an OpenAI chat completion") from None
                if whole:
                    on_token(whole)
                return whole, usage
            async for raw_line in response.content:
                line = raw_line.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                try:
                    event = json.loads(payload)
                except ValueError:
                    continue
                for choice in event.get("choices") or []:
                    delta = (choice.get("delta") or {}).get("content")
                    if delta:
                        parts.append(delta)
                        on_token(delta)
                if event.get("usage"):
                    raw_usage = event["usage"]
                    details = raw_usage.get("prompt_tokens_details") or {}
                    usage = Usage(prompt_tokens=int(raw_usage.get("prompt_tokens") or 0),
                                  completion_tokens=int(raw_usage.get("completion_tokens") or 0),
                                  cached_tokens=int(details.get("cached_tokens") or 0))
    except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, OSError) as exc:
        raise ModelError(f"{model.name}: the stream from {model.base_url} broke ({type(exc).__name__}); {model.hint}") from None
    return "".join(parts), usage


async def stream_complete(model: Any, messages: list[Message], on_token, *, step: str | None = None,
                          max_tokens: int = 256, temperature: float = 0.0, seed: int | None = None) -> Reply:
    """Like ``model.complete``, but text reaches ``on_token`` as the model writes it.

    OpenAI-compatible servers stream token by token; a cached answer, or a backend that cannot
    stream (scripted, LangChain), hands its whole text over at once. The answer is cached and
    accounted like any other call. Only a failure before the first token is retried (by
    falling back to ``complete``): text already shown cannot be taken back.
    """
    if not isinstance(model, OpenAICompatModel):
        reply = await model.complete(messages, step=step, max_tokens=max_tokens, temperature=temperature, seed=seed)
        if reply.text:
            on_token(reply.text)
        return reply
    params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
    if seed is not None:
        params["seed"] = seed
    key = request_key(model.cache_id, messages, params) if model.cache is not None else None
    if key is not None and (hit := model.cache.get(key)) is not None:
        reply = model._from_cache(hit, step)
        if reply.text:
            on_token(reply.text)
        return reply
    seen = {"any": False}

    def relay(delta: str) -> None:
        seen["any"] = True
        on_token(delta)

    started = time.perf_counter()
    try:
        async with model._semaphore():
            started = time.perf_counter()
            async with asyncio.timeout(model.timeout):
                text, usage = await _stream_request(model, messages, params, relay)
    except (ModelError, TimeoutError):
        if seen["any"]:
            raise ModelError(f"{model.name}: the narration stream stopped half-way; {model.hint}") from None
        return await stream_complete_fallback(model, messages, on_token, step=step, params=params)
    usage.latency_s = round(time.perf_counter() - started, 4)
    if not usage.prompt_tokens:
        usage.prompt_tokens, usage.completion_tokens = count_tokens(messages), count_tokens(text)
    if key is not None:
        model.cache.put(key, model.cache_id, {"text": text, "usage": usage.model_dump(include={"prompt_tokens", "completion_tokens", "cached_tokens"})})
    model._account(usage, step, attempts=1)
    return Reply(text=text, usage=usage, model=model.name, step=step)


async def stream_complete_fallback(model: ClientModel, messages: list[Message], on_token, *, step: str | None, params: dict[str, Any]) -> Reply:
    """The unstreamed call with its retries, for when streaming failed before any text."""
    reply = await model.complete(messages, step=step, max_tokens=params["max_tokens"], temperature=params["temperature"], seed=params.get("seed"))
    if reply.text:
        on_token(reply.text)
    return reply
