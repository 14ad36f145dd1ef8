"""A tournament on a local Ray cluster: one shard per match, the same logs and report as a plain run."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ui.cli import app

pytestmark = pytest.mark.usefixtures("ray_cluster")


def _run(*args: str) -> dict:
    result = CliRunner().invoke(app, ["mafia", "tournament", "--models", "scripted:heuristic,scripted:bluff", "--games", "2",
                                      "--seed", "4", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


def test_a_tournament_on_the_cluster_is_the_plain_tournament(tmp_path):
    plain = _run("-o", str(tmp_path / "plain"))
    ray = _run("-o", str(tmp_path / "ray"), "--cluster", "ray")
    strip = lambda r: {k: v for k, v in r.items() if k != "out"}  # noqa: E731
    assert strip(plain) == strip(ray)
    for log in (tmp_path / "plain").glob("mafia-*.jsonl"):
        assert log.read_bytes() == (tmp_path / "ray" / log.name).read_bytes(), log.name
