"""The cluster options without a cluster: what they parse, and one line for each thing a user can get wrong."""
from __future__ import annotations

import pytest

from eval.cluster import ClusterError, Endpoint, from_cli, parse_endpoints

from .conftest import vgm


def test_no_cluster_is_a_plain_run_and_one_base_url_is_the_server(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert from_cli("moe compare", None) is None
    assert from_cli("moe compare", "none", base_urls=["http://10.0.0.5:8000/v1/"]) is None
    import os

    assert os.environ["OPENAI_BASE_URL"] == "http://10.0.0.5:8000/v1"


def test_a_pool_needs_the_cluster():
    with pytest.raises(ClusterError, match="2 endpoints given with --base-url; a pool of endpoints needs --cluster ray"):
        from_cli("moe compare", None, base_urls=["http://a:1/v1", "http://b:1/v1"])


def test_ray_spec_with_a_pool_from_flags_and_a_file(tmp_path):
    listing = tmp_path / "endpoints.txt"
    listing.write_text("# vLLM servers\nhttp://10.0.0.6:8000/v1 16\n\nhttp://10.0.0.7:8000/v1   # default limit\n")
    spec = from_cli("moe compare", "RAY", "10.0.0.5:6379", ["http://10.0.0.5:8000/v1", str(listing), "http://10.0.0.5:8000/v1"], 4)
    assert spec.address == "10.0.0.5:6379"
    assert spec.endpoints == [Endpoint("http://10.0.0.5:8000/v1", 4), Endpoint("http://10.0.0.6:8000/v1", 16), Endpoint("http://10.0.0.7:8000/v1", 4)]


@pytest.mark.parametrize("values, concurrency, message", [
    (["10.0.0.5:8000"], 8, r"not a http\(s\) URL and no such file"),
    ([""], 8, "--base-url is empty"),
    (["http://a:1/v1"], 0, "--endpoint-concurrency 0: give at least 1"),
])
def test_bad_endpoints_are_one_line(values, concurrency, message):
    with pytest.raises(ClusterError, match=message):
        parse_endpoints(values, concurrency)


def test_bad_endpoint_file_names_the_line(tmp_path):
    listing = tmp_path / "endpoints.txt"
    listing.write_text("http://a:1/v1 4\nhttp://b:1/v1 many\n")
    with pytest.raises(ClusterError, match=r"endpoints.txt:2: concurrency 'many'"):
        parse_endpoints([str(listing)])


def test_unknown_cluster_kind():
    with pytest.raises(ClusterError, match="--cluster 'dask': use --cluster ray"):
        from_cli("moe compare", "dask")


def test_unreachable_address_is_one_line_with_the_address_and_the_fix(tmp_path):
    proc = vgm("moe", "compare", "--pipelines", "last_speaker", "--limit", "1", "-o", str(tmp_path / "run"),
               "--cluster", "ray", "--ray-address", "127.0.0.1:9")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "cannot reach the Ray cluster at 127.0.0.1:9" in lines[0] and "ray start --head" in lines[0]
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("args", [
    ["moe", "report", "runs/x", "--cluster", "ray"],
    ["avalon", "play", "--cluster=ray"],
    ["inmind", "tasks", "--data", "x", "--cluster", "ray"],
    ["probes", "show", "--cluster", "ray"],
])
def test_cluster_on_an_unsupported_command_is_refused_in_one_line(args):
    proc = vgm(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"`vgm {args[0]} {args[1]}` does not run on a cluster; drop --cluster" in lines[0]


def test_plain_runs_never_import_ray(tmp_path):
    """VGM_CLUSTER unset: a MOE run, a batch of games and the --help of every cluster command leave Ray unloaded."""
    import subprocess
    import sys

    from .conftest import REPO

    code = f"""
import sys
from typer.testing import CliRunner
from ui.cli import app
r = CliRunner()
for args in (["moe", "compare", "--pipelines", "last_speaker", "--limit", "2", "-o", r"{tmp_path / 'moe'}"],
             ["mafia", "simulate", "--games", "2", "-o", r"{tmp_path / 'mafia'}"],
             ["inmind", "run", "--help"], ["mafia", "fork", "--help"]):
    result = r.invoke(app, args)
    assert result.exit_code == 0, (args, result.output)
print("ray" in sys.modules)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**__import__("os").environ, "VGM_CLUSTER": ""})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"
