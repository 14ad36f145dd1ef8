"""A local Ray cluster for the cluster tests: two CPUs, started once per session, only when a test asks.

Models are ``scripted:`` files and ``FakeServer`` endpoints; the local LLM never starts here.
"""
from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = 'steps:\n  template: [\'[{"character": "Brina", "skill": "insight"}]\']\nrepeat_last: true\n'
WALL_CLOCK = ("latency_s", "model_seconds", "seconds_per_instance")  # the only fields two equal runs may differ in


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """A scripted model whose answer does not depend on the order of the calls (so any split gives the same run)."""
    path = tmp_path / "replies.yaml"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def without_wall_clock(value):
    """``value`` with every wall-clock measurement set to 0 (nothing else changes)."""
    if isinstance(value, dict):
        return {k: (0 if k in WALL_CLOCK else without_wall_clock(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def canonical_lines(path: Path) -> list[str]:
    """A JSON Lines file's lines, wall clock zeroed, sorted: what must match byte for byte."""
    return sorted(json.dumps(without_wall_clock(json.loads(line)), ensure_ascii=False) for line in path.read_text(encoding="utf-8").splitlines())


def vgm(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command line in a fresh process (for one-line errors and what it imports)."""
    import os

    return subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout, env={**os.environ, "COLUMNS": "200", **(env or {})})
