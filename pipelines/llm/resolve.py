"""Model strings → models: ``local``, ``local:small``, ``local:/x.gguf``, ``openai:<m>``, ``scripted:<f>``.

One string picks a model everywhere (``--model``, ``VGM_MODEL``). Anything a user can get
wrong here (an unknown prefix, a missing key, a file that is not there) is one line.
"""
from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from urllib.parse import urlsplit, urlunsplit

from ._env import env_number
from ._types import ChatModel, Message, ModelError
from .cache import redact
from .client import COMPACT_KEY, OpenAICompatModel, Retryable
from .local import ALIASES, WEIGHTS, installed_path
from .scripted import ScriptedModel

DEFAULT_MODEL = "local"
OPENAI_URL = "https://api.openai.com/v1"
USAGE = "use local, local:small, local:/path/model.gguf, openai:<model> or scripted:<file.yaml>"


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model string."""

    kind: str  # "local" | "openai" | "scripted"
    text: str  # the string as given
    target: str  # local: "local"/"local:small"/a .gguf path; openai: model id; scripted: file


def parse_spec(spec: str | None = None) -> ModelSpec:
    """Split a model string (default ``$VGM_MODEL`` or ``local``) into kind and target."""
    if spec is not None and not spec.strip():
        raise ModelError(f"the model string is empty; {USAGE} (or leave --model out for $VGM_MODEL or local)")
    text = (spec or os.environ.get("VGM_MODEL") or DEFAULT_MODEL).strip()
    kind, _, rest = text.partition(":")
    if kind == "local":
        if not rest or text in WEIGHTS or text in ALIASES:
            return ModelSpec("local", text, ALIASES.get(text, text if rest else "local"))
        if rest.endswith(".gguf") or "/" in rest or rest.startswith("~"):
            return ModelSpec("local", text, rest)
        raise ModelError(f"unknown local model {text!r}; use local, local:small or local:/path/to/model.gguf")
    if kind == "openai":
        if not rest:
            raise ModelError("openai: needs a model name, e.g. openai:gpt-4o-mini")
        return ModelSpec("openai", text, rest)
    if kind == "scripted":
        if not rest:
            raise ModelError("scripted: needs a file, e.g. scripted:tests/replies.yaml")
        return ModelSpec("scripted", text, rest)
    raise ModelError(f"unknown model string {text!r}; {USAGE}")


def split_credentials(url: str) -> tuple[str, bool]:
    """``(url without user:password@ and with secret query values masked, True when it had any)``.

    The clean URL is what may be shown or stored; requests go to the original.
    """
    clean = url
    try:
        parts = urlsplit(url)
        if "@" in parts.netloc:
            clean = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))
    except ValueError:
        pass
    clean = redact(clean)
    return clean, clean != url


class _CredentialedModel(OpenAICompatModel):
    """An OpenAI-compatible server whose URL carries ``user:password@``: requests go to the full
    URL (HTTP basic auth), while ``base_url`` — shown in errors, stored in cache identities —
    and every error message carry the URL without them."""

    def __init__(self, name: str, *, secret_url: str, **options: Any) -> None:
        super().__init__(name, **options)
        self._secret_url = secret_url.rstrip("/")

    async def _base(self) -> str:
        return self._secret_url

    async def _request(self, messages, params, timeout):
        try:
            return await super()._request(messages, params, timeout)
        except (ModelError, Retryable) as exc:
            exc.args = tuple(redact(a) if isinstance(a, str) else a for a in exc.args)
            if isinstance(exc, Retryable):
                exc.detail = redact(exc.detail)
            raise

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, base_url={self.base_url!r})"


def local_model_path(target: str) -> Path:
    """The GGUF file for a local target: an installed model or a path the user gave."""
    if target in WEIGHTS:
        return installed_path(target)
    path = Path(target).expanduser()
    if not path.is_file():
        raise ModelError(f"model file {path} not found; give local:/path/to/model.gguf")
    with open(path, "rb") as head:
        if head.read(4) != b"GGUF":
            raise ModelError(f"{path} is not a GGUF model file; give a .gguf file (llama.cpp format)")
    return path


def _local_cache_id(target: str, path: Path) -> str:
    if target in WEIGHTS:
        return f"gguf:sha256:{WEIGHTS[target].sha256}"
    st = path.stat()
    return f"gguf:{path.resolve()}:{st.st_size}:{int(st.st_mtime)}"


class LocalModel(OpenAICompatModel):
    """A GGUF model served by our own llama.cpp child process, started on first call.

    The server is shared by every ``LocalModel`` of the same file in the process, stopped
    at exit, and restarted if it dies mid-run (the failed call is retried).
    """

    hint = "the local model server stopped or is overloaded; see the log under ~/.cache/virtual-gm/logs"

    def __init__(self, name: str, path: Path, *, cache_id: str, threads: int | None = None, **options: Any) -> None:
        from .serve import ServerConfig  # lazy: the server module (its exit hook) loads only for a local model

        self.config = ServerConfig.for_model(path, threads=threads)
        options.setdefault("concurrency", self.config.parallel)
        options.setdefault("timeout", 600.0)
        options.setdefault("backoff_s", 0.2)
        super().__init__(name, model_id=path.name, base_url="http://127.0.0.1", cache_id=cache_id, **options)

    def server(self):
        """Start (or reuse) the server now; returns the ``LocalServer``."""
        from .serve import server_for

        server = server_for(self.config)
        self.base_url = f"{server.base_url}/v1"
        return server

    async def _base(self) -> str:
        from .serve import running

        server = running(self.config)
        if server is None or not server.alive() or not server.base_url:  # a borrowed server going away has no address
            server = await asyncio.to_thread(self.server)
        if not server.base_url:
            raise Retryable("the local model server has no address yet")
        self.base_url = f"{server.base_url}/v1"
        return self.base_url

    def _body(self, messages: list[Message], params: dict[str, Any]) -> dict[str, Any]:
        """A schema with llguidance options goes as an llguidance grammar, which honours them.

        The server's own schema-to-grammar step ignores ``x-guidance`` and lets the model write
        JSON's optional spaces: a token per key in a keyed probe answer (33 tokens against 23
        for four names). The bundled llama.cpp is built with llguidance, whose JSON compiler
        reads the key.
        """
        schema = params.get("json_schema")
        if schema is None or COMPACT_KEY not in schema or self.structured_mode(schema) != "json_schema":
            return super()._body(messages, params)
        import xllamacpp

        body = super()._body(messages, {k: v for k, v in params.items() if k != "json_schema"})
        body["grammar"] = xllamacpp.json_schema_to_grammar(json.dumps(schema))
        return body

    async def _recover(self) -> None:
        """After a failed attempt: restart a dead server; drop a borrowed one that stopped answering."""
        from .serve import _healthy, running

        server = running(self.config)
        if server is None:
            return
        dead = not server.alive()
        if not dead and not server.owned and server.base_url:
            dead = not await asyncio.to_thread(_healthy, server.base_url)
        if dead:
            server.stop()  # ours: already gone; borrowed: only forgotten
            await asyncio.to_thread(self.server)


def cache_identity(spec: str, *, base_url: str | None = None) -> str:
    """The cache identity a model string's answers are stored under (starts nothing)."""
    parsed = parse_spec(spec)
    if parsed.kind == "local":
        if parsed.target in WEIGHTS:
            return f"gguf:sha256:{WEIGHTS[parsed.target].sha256}"
        return _local_cache_id(parsed.target, local_model_path(parsed.target))
    if parsed.kind == "openai":
        url, _ = split_credentials((base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/"))
        return f"{url.rstrip('/')}|{parsed.target}"
    raise ModelError(f"{spec}: scripted models are not cached")


def identity_label(identity: str) -> str:
    """A cache identity as a person reads it: the model string for the embedded models."""
    for key, weights in WEIGHTS.items():
        if identity == f"gguf:sha256:{weights.sha256}":
            return key
    return identity


def _openai_settings(base_url: str | None) -> tuple[str, str | None]:
    url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
    key = os.environ.get("OPENAI_API_KEY")
    if not key and url.rstrip("/") == OPENAI_URL:
        raise ModelError("OPENAI_API_KEY is not set; export it, or give --base-url for a local OpenAI-compatible server")
    return url.rstrip("/"), key


def get_model(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    cache: bool = True,
    concurrency: int | None = None,
    timeout: float | None = None,
    threads: int | None = None,
    **options: Any,
) -> ChatModel:
    """Resolve a model string (``--model`` / ``$VGM_MODEL``, default ``local``) to a model.

    Args:
        spec: the model string.
        base_url: an OpenAI-compatible server for ``openai:`` (else ``$OPENAI_BASE_URL``).
        cache: use the persistent response cache (``VGM_NO_CACHE=1`` also turns it off).
        concurrency: most calls in flight (default 8 remote, the server's slots locally).
        timeout: seconds per attempt (default ``$VGM_TIMEOUT``, else 120 remote, 600 local).
        threads: CPU threads for the local server (default ``$VGM_THREADS`` or all cores).
        options: passed to the client (``retries``, ``backoff_s``, ``usage_log``).
    """
    parsed = parse_spec(spec)
    if parsed.kind == "scripted":
        return ScriptedModel.from_file(parsed.target)
    if concurrency is not None:
        options["concurrency"] = concurrency
    timeout = timeout if timeout is not None else env_number("VGM_TIMEOUT", float, None, "300")
    if timeout is not None:
        options["timeout"] = timeout
    if parsed.kind == "openai":
        url, key = _openai_settings(base_url)
        clean, secret = split_credentials(url)
        clean = clean.rstrip("/")
        options.setdefault("cache_id", f"{clean}|{parsed.target}")
        if secret:
            return _CredentialedModel(parsed.text, model_id=parsed.target, base_url=clean, secret_url=url, api_key=key,
                                      cache=cache, **options)
        return OpenAICompatModel(parsed.text, model_id=parsed.target, base_url=clean, api_key=key, cache=cache, **options)
    path = local_model_path(parsed.target)
    return LocalModel(parsed.text, path, cache_id=_local_cache_id(parsed.target, path), threads=threads, cache=cache, **options)


def langchain_model(spec: str | None = None, *, base_url: str | None = None, temperature: float = 0.0, max_tokens: int = 512, **options: Any):
    """A LangChain ``BaseChatModel`` for a model string.

    ``openai:`` and local models give a ``ChatOpenAI`` pointed at the right server (local:
    the server is started now); ``scripted:`` gives a fake chat model with the file's replies.
    """
    parsed = parse_spec(spec)
    if parsed.kind == "scripted":
        from langchain_core.language_models.fake_chat_models import FakeListChatModel

        scripted = ScriptedModel.from_file(parsed.target)
        replies = list(scripted._default) + [r for rs in scripted._by_step.values() for r in rs]
        if not replies:
            raise ModelError(f"{parsed.target}: no replies for a LangChain model; add a list of replies")
        return FakeListChatModel(responses=replies)
    from langchain_openai import ChatOpenAI

    if parsed.kind == "openai":
        url, key = _openai_settings(base_url)
        return ChatOpenAI(model=parsed.target, base_url=url, api_key=key or "not-needed", temperature=temperature, max_tokens=max_tokens, **options)
    model = get_model(parsed.text, cache=False)
    assert isinstance(model, LocalModel)
    model.server()
    return ChatOpenAI(model=model.model_id, base_url=model.base_url, api_key="local", temperature=temperature, max_tokens=max_tokens, **options)
