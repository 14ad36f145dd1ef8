"""Games, forks and InMind on a local Ray cluster: one shard per game or fork, the same files as a plain run."""
from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from eval.cluster import ClusterSpec
from eval.cluster import run_inmind as run_inmind_on_cluster
from eval.cluster import simulate as simulate_on_cluster
from eval.inmind import run_inmind
from pipelines.embeddings import HashingEmbedding
from pipelines.llm.fake_server import FakeServer
from ui.cli import app

from .conftest import canonical_lines

pytestmark = pytest.mark.usefixtures("ray_cluster")


def _cli(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


def test_simulate_shards_are_games_and_the_logs_are_the_plain_runs(tmp_path):
    plain = _cli("mafia", "simulate", "--games", "4", "--snapshots", "-o", str(tmp_path / "plain"))
    ray = _cli("mafia", "simulate", "--games", "4", "--snapshots", "-o", str(tmp_path / "ray"), "--cluster", "ray")
    assert {k: v for k, v in plain.items() if k != "out"} == {k: v for k, v in ray.items() if k != "out"}
    names = sorted(p.name for p in (tmp_path / "plain").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir())
    for name in names:
        if name.startswith("mafia-"):  # game logs and snapshots: byte for byte
            assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name
    assert canonical_lines(tmp_path / "plain" / "results.jsonl") == canonical_lines(tmp_path / "ray" / "results.jsonl")


def test_a_cluster_batch_resumes_from_the_logs_the_driver_wrote(tmp_path):
    spec = ClusterSpec()
    first = simulate_on_cluster("avalon", spec=spec, games=2, out=tmp_path, seed=3)
    assert len(list(tmp_path.glob("avalon-*.jsonl"))) == 2
    again = simulate_on_cluster("avalon", spec=spec, games=4, out=tmp_path, seed=3)
    assert [r.get("resumed", False) for r in again["results"]] == [True, True, False, False]
    assert [r["winner"] for r in again["results"][:2]] == [r["winner"] for r in first["results"]]
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 4, "each game's line once"


def test_forks_on_the_cluster_are_the_plain_forks(tmp_path):
    _cli("mafia", "simulate", "--games", "1", "--snapshots", "-o", str(tmp_path / "games"))
    log = next((tmp_path / "games").glob("mafia-*[0-9].jsonl"))
    plain = _cli("mafia", "fork", str(log), "--at", "1.3", "--n", "3", "-o", str(tmp_path / "plain"))
    ray = _cli("mafia", "fork", str(log), "--at", "1.3", "--n", "3", "-o", str(tmp_path / "ray"), "--cluster", "ray")
    for fork in plain["forks"] + ray["forks"]:
        fork["log"] = Path(fork["log"]).name
    assert plain == ray
    for path in (tmp_path / "plain").iterdir():
        assert path.read_bytes() == (tmp_path / "ray" / path.name).read_bytes(), path.name


def _inmind_data(tmp_path: Path) -> Path:
    spec = importlib.util.spec_from_file_location("inmind_games", Path(__file__).parents[1] / "inmind" / "conftest.py")
    games = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(games)
    data = tmp_path / "data"
    data.mkdir()
    games.write(data / "1-participant.json", games.participant_game())
    games.write(data / "2-observer.json", games.observer_game())
    return data


@pytest.mark.parametrize("dynamic", ["full", "summary"])
def test_inmind_on_the_cluster_writes_the_plain_results(tmp_path, monkeypatch, dynamic):
    monkeypatch.setenv("VGM_NO_CACHE", "1")
    data = _inmind_data(tmp_path)
    hashing = HashingEmbedding(64)

    def embedder(texts):
        return np.array(hashing(texts))

    reply = json.dumps({"profile": "Trusts votes.", "ranking": list("ABCDEF"), "fills": {"MASK_1": "2"},
                        "roles": {"1": "忠臣"}, "summary": "so far"}, ensure_ascii=False)
    with FakeServer(reply=reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        plain = asyncio.run(run_inmind(data, tmp_path / "plain", model="openai:fake", embedder=embedder, dynamic=dynamic))
        ray = run_inmind_on_cluster(data, tmp_path / "ray", spec=ClusterSpec(), model="openai:fake", embedder=embedder, dynamic=dynamic)
    assert (plain.done, plain.failed, plain.usage.calls) == (ray.done, ray.failed, ray.usage.calls) and ray.done > 10
    assert canonical_lines(tmp_path / "plain" / "results.jsonl") == canonical_lines(tmp_path / "ray" / "results.jsonl")
    for name in ("config.json", "counts.json"):
        assert (tmp_path / "plain" / name).read_text() == (tmp_path / "ray" / name).read_text()
    profile = [json.loads((tmp_path / run / "profile.json").read_text()) for run in ("plain", "ray")]
    assert profile[0]["profile"] == profile[1]["profile"] == "Trusts votes."
    again = run_inmind_on_cluster(data, tmp_path / "ray", spec=ClusterSpec(), model="openai:fake", embedder=embedder, dynamic=dynamic)
    assert again.done == 0 and again.skipped == ray.done, "a rerun asks nothing again"
