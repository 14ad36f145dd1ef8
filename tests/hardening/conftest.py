"""Hardening tests run with their own cache folder, no model key and no model string from the environment."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_CACHE_DIR", str(tmp_path / "vgm-cache"))
    for name in ("VGM_NO_CACHE", "VGM_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "VGM_DEBUG", "VGM_USAGE_LOG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_server():
    """A fake OpenAI-compatible server on 127.0.0.1; set ``.faults``/``.reply`` in the test."""
    from pipelines.llm.fake_server import FakeServer

    with FakeServer(reply='{"skills": ["perception"]}') as server:
        yield server
