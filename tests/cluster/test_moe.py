"""MOE on a local Ray cluster: the same report as a plain run, nothing lost or doubled when a worker dies,
endpoint limits held across workers, and the response cache written by the driver alone."""
from __future__ import annotations

import io
import json
import os
import signal
import threading

import pytest
from rich.console import Console
from typer.testing import CliRunner

from eval.cluster import ClusterSpec, Endpoint, moe_runner
from eval.cluster._progress import ClusterProgress
from eval.moe.runner import compare_moe
from pipelines.llm.fake_server import FakeServer
from ui.cli import app

from .conftest import canonical_lines, without_wall_clock

pytestmark = pytest.mark.usefixtures("ray_cluster")


def _compare(out, script, *extra):
    result = CliRunner().invoke(app, ["moe", "compare", "--data", "sample", "--pipelines", "last_speaker,template",
                                      "--model", f"scripted:{script}", "-o", str(out), "--json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


def test_ray_compare_gives_the_plain_report_byte_for_byte(tmp_path, script):
    plain = _compare(tmp_path / "plain", script)
    ray = _compare(tmp_path / "ray", script, "--cluster", "ray")
    for name in ("last_speaker", "template"):
        a, b = tmp_path / "plain" / name, tmp_path / "ray" / name
        assert canonical_lines(a / "predictions.jsonl") == canonical_lines(b / "predictions.jsonl")
        assert len(canonical_lines(b / "predictions.jsonl")) == 20
        metrics = [without_wall_clock(json.loads((f / "metrics.json").read_text())) for f in (a, b)]
        assert json.dumps(metrics[0], sort_keys=True) == json.dumps(metrics[1], sort_keys=True)
    plain_rows, ray_rows = (without_wall_clock(r["rows"]) for r in (plain, ray))
    for row in plain_rows + ray_rows:
        row["folder"] = row["folder"].split("/")[-1]
    assert plain_rows == ray_rows
    assert ray_rows[0]["cf"]["value"] > 0.5 and ray_rows[1]["sf"]["value"] > 0, "the script's answer scores on some instances"


class _Counting(FakeServer):
    """A fake endpoint that also counts how many requests it holds at once."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.now = self.peak = 0
        self._count = threading.Lock()

    async def _chat(self, request):
        with self._count:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            return await super()._chat(request)
        finally:
            with self._count:
                self.now -= 1


def test_a_killed_worker_loses_nothing_and_doubles_nothing(tmp_path, monkeypatch):
    """A worker is SIGKILLed after two of its records came back; its shard's rest runs again elsewhere."""
    monkeypatch.setenv("VGM_NO_CACHE", "1")

    class KillOnce(ClusterProgress):
        killed: int | None = None
        seen: dict[int, int] = {}

        def item(self, shard, item):
            super().item(shard, item)
            self.seen[item.pid] = self.seen.get(item.pid, 0) + 1
            if self.killed is None and self.seen[item.pid] == 2:
                KillOnce.killed = item.pid
                os.kill(item.pid, signal.SIGKILL)

    display = KillOnce(console=Console(file=io.StringIO()))
    with _Counting(reply='[{"character": "Brina", "skill": "perception"}]', delay_s=0.1) as server:
        spec = ClusterSpec(endpoints=[Endpoint(server.base_url, 2)], shard_size=5, workers=2)
        out = compare_moe(["template"], "sample", tmp_path / "run", model="openai:fake", concurrency=1, reporter=display,
                          run_with=moe_runner(spec))
        requests = len(server.requests)
    records = [json.loads(line) for line in (out["template"] / "predictions.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in records]
    assert KillOnce.killed is not None and display.retried >= 1
    assert len(ids) == 20 and len(set(ids)) == 20, "every instance exactly once"
    assert not any(r["error"] for r in records)
    assert ids == [json.loads(line)["id"] for line in open("eval/moe/data/sample.jsonl", encoding="utf-8")], "in instance order"
    assert 20 <= requests <= 22, "at most the requests in flight at the kill are asked again"
    assert json.loads((out["template"] / "metrics.json").read_text())["n"] == 20


def test_endpoint_limits_hold_across_workers_and_the_driver_writes_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_CACHE_DIR", str(tmp_path / "cache"))
    from pipelines.llm.cache import ResponseCache

    with _Counting(reply="[]", delay_s=0.05) as a, _Counting(reply="[]", delay_s=0.05) as b:
        spec = ClusterSpec(endpoints=[Endpoint(a.base_url, 1), Endpoint(b.base_url, 2)], shard_size=2)
        compare_moe(["template"], "sample", tmp_path / "first", model="openai:fake", concurrency=4, run_with=moe_runner(spec))
        assert a.peak == 1 and b.peak <= 2, "never more in flight than an endpoint's limit, whichever workers ask"
        assert len(a.requests) > 0 and len(b.requests) > 0 and len(a.requests) + len(b.requests) == 20
        assert len(ResponseCache(tmp_path / "cache" / "cache.sqlite")) == 20, "the workers' answers, written by the driver"
        # A second cluster run reads them back through the driver's node: no request reaches an endpoint.
        again = compare_moe(["template"], "sample", tmp_path / "second", model="openai:fake", run_with=moe_runner(spec))
        assert len(a.requests) + len(b.requests) == 20
    records = [json.loads(line) for line in (again["template"] / "predictions.jsonl").read_text().splitlines()]
    assert all(r["cost"]["cache_hits"] == r["cost"]["calls"] == 1 for r in records)


def test_a_worker_without_the_model_fails_its_shard_in_one_clear_line(tmp_path, recwarn):
    spec = ClusterSpec(shard_size=1, attempts=2)
    out = compare_moe(["template"], "sample", tmp_path / "run", model="local:/nowhere/model.gguf", limit=2, run_with=moe_runner(spec))
    records = [json.loads(line) for line in (out["template"] / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["dnd-01", "dnd-02"]
    for record in records:
        assert record["error"].startswith("node ") and "model file /nowhere/model.gguf not found" in record["error"]
    warned = [str(w.message) for w in recwarn]
    assert any("2 shards failed after 2 runs (node " in w and "rerun the same command" in w for w in warned), warned


@pytest.mark.slow  # two `vgm` processes joining the cluster: about 20 s here
def test_killing_the_driver_and_rerunning_finishes_the_rest(tmp_path, ray_cluster, monkeypatch):
    """The driver (a real `vgm` process on the session's cluster) is SIGKILLed mid-run; the same command finishes the run."""
    import subprocess
    import sys
    import time

    from .conftest import REPO

    address = ray_cluster.get_runtime_context().gcs_address
    out = tmp_path / "run"
    with FakeServer(reply='[{"character": "Brina", "skill": "perception"}]', delay_s=0.15) as server:
        args = [sys.executable, "-c", "from ui.cli import main; main()", "moe", "run", "--pipeline", "template", "--data", "sample",
                "--model", "openai:fake", "--base-url", server.base_url, "-o", str(out), "-c", "1", "--cluster", "ray",
                "--ray-address", address]
        env = {**os.environ, "VGM_NO_CACHE": "1", "VGM_SHARD_SIZE": "4", "VGM_CLUSTER_WORKERS": "1"}
        driver = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        predictions = out / "predictions.jsonl"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and (not predictions.is_file() or len(predictions.read_bytes().splitlines()) < 6):
            time.sleep(0.05)
        driver.kill()
        driver.wait(30)
        first = len(predictions.read_bytes().splitlines())
        assert 6 <= first < 20, "killed mid-run"
        again = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
        assert again.returncode == 0, again.stderr
    ids = [json.loads(line)["id"] for line in predictions.read_text().splitlines()]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 20, "the rest ran; nothing written twice"
    meta = json.loads((out / "run.json").read_text())
    assert meta["finished"] and len(meta["resumed"]) == 1
    assert not (out / ".lock").exists()
