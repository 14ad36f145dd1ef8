"""How MOE throughput grows with Ray workers and endpoints, and what a Ray run costs over a plain one.

Each simulated node is a fake OpenAI-compatible endpoint in its own process that serves one
request at a time and takes 200 ms per request (a small GPU box serving one stream). The
workload is ``vgm moe compare --pipelines template`` over N instances (the shipped sample,
repeated with new ids), one model call per instance, through the real code path: the
endpoint pool with a limit of 1 request per endpoint, Ray generator tasks, the driver writing
the run folders and the response cache (a fresh cache per run, so every call is a miss).

Rows: the plain run (no Ray) on endpoint 1; then Ray with 1, 2 and 4 endpoints and as many
workers. The cluster is up before the clock starts (as after ``ray start --head``), and a
small warm-up run has started the worker processes; each timed run still pays its own
actors (the endpoint pool, the cache reader). Goals: 4 workers ≥ 3.2× one worker; a Ray run
on one endpoint ≤ 1.15× the plain run.

    python bench/scale.py [--n 240] [--latency-ms 200] [--workers 1,2,4] [--ray-address ADDR] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

GOAL_SPEEDUP = 3.2
GOAL_OVERHEAD = 1.15


def serve(latency_ms: float) -> None:
    """``--serve MS``: one fake endpoint that answers one request at a time, MS milliseconds each."""
    import asyncio

    from pipelines.llm.fake_server import FakeServer

    class OneAtATime(FakeServer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._one: asyncio.Lock | None = None

        async def _chat(self, request):
            if self._one is None:
                self._one = asyncio.Lock()
            async with self._one:  # a single stream: the next request waits for this one
                return await super()._chat(request)

    server = OneAtATime(reply='[{"character": "Brina", "skill": "insight"}]', delay_s=latency_ms / 1000).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


def start_endpoints(k: int, latency_ms: float) -> tuple[list[subprocess.Popen], list[str]]:
    procs, urls = [], []
    for _ in range(k):
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve", str(latency_ms)], stdout=subprocess.PIPE,
                                text=True, cwd=str(ROOT))
        procs.append(proc)
        urls.append(proc.stdout.readline().strip())  # type: ignore[union-attr]
    return procs, urls


def make_data(n: int, folder: Path) -> Path:
    """N instances: the shipped sample over and over, each copy with its own ids and its own first line (so its own prompt)."""
    from eval.moe.dataset import data_path

    rows = [json.loads(line) for line in data_path("sample").read_text(encoding="utf-8").splitlines() if line.strip()]
    path = folder / f"scale-{n}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["id"] = f"{row['id']}-{i // len(rows)}"
            row["context"] = [{"speaker": "GM", "text": f"Session {i // len(rows) + 1} begins."}, *row["context"]]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


class FirstAnswer:
    """A progress reporter that only notes when the first record was written."""

    def __init__(self) -> None:
        self.at: float | None = None

    def start(self, name: str, total: int, done: int) -> None: ...

    def advance(self, name: str, record: dict, running: dict) -> None:
        if self.at is None:
            self.at = time.perf_counter()

    def finish(self, name: str) -> None: ...


def timed_run(data: Path, out: Path, cache: Path, *, run_with=None) -> tuple[float, float]:
    """``(wall seconds, seconds to the first written record)`` of one ``compare_moe`` over ``data``
    (a fresh cache folder each time); checks that every instance is there once."""
    from eval.moe.runner import compare_moe

    os.environ["VGM_CACHE_DIR"] = str(cache)
    first = FirstAnswer()
    started = time.perf_counter()
    folders = compare_moe(["template"], data, out, model="openai:fake", concurrency=2, run_with=run_with, reporter=first)
    wall = time.perf_counter() - started
    records = [json.loads(line) for line in (folders["template"] / "predictions.jsonl").read_text().splitlines()]
    n = sum(1 for _ in data.open())
    assert len(records) == n and len({r["id"] for r in records}) == n and not any(r["error"] for r in records), "a run lost or doubled instances"
    return wall, (first.at or time.perf_counter()) - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=240, help="instances per run (one model call each)")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="each endpoint's time per request")
    parser.add_argument("--workers", default="1,2,4", help="worker (= endpoint) counts to time")
    parser.add_argument("--ray-address", default=None, help="a running cluster (default: a local one with enough CPUs)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.serve is not None:
        return serve(args.serve)

    import logging

    import ray

    from eval.cluster import ClusterSpec, Endpoint, moe_runner

    counts = [int(k) for k in args.workers.split(",")]
    console = Console(stderr=args.json, width=150)
    load_before = os.getloadavg()
    procs, urls = start_endpoints(max(counts), args.latency_ms)
    work = Path(tempfile.mkdtemp(prefix="vgm-scale-"))
    rows: list[dict] = []
    try:
        data = make_data(args.n, work)
        os.environ["OPENAI_BASE_URL"] = urls[0]
        plain, first = timed_run(data, work / "plain", work / "cache-plain")
        rows.append({"run": "plain (no Ray)", "endpoints": 1, "workers": "-", "seconds": plain, "first_answer_s": first})

        if args.ray_address:
            ray.init(address=args.ray_address, log_to_driver=False, logging_level=logging.ERROR)
        else:
            ray.init(address="local", num_cpus=max(counts), include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        warm = make_data(4 * max(counts), work)  # small: starts the worker processes
        spec = ClusterSpec(endpoints=[Endpoint(u, 1) for u in urls], workers=max(counts))
        timed_run(warm, work / "warm", work / "cache-warm", run_with=moe_runner(spec))

        for k in counts:
            spec = ClusterSpec(endpoints=[Endpoint(u, 1) for u in urls[:k]], workers=k)
            seconds, first = timed_run(data, work / f"ray-{k}", work / f"cache-ray-{k}", run_with=moe_runner(spec))
            rows.append({"run": f"Ray, {k} worker{'s' if k > 1 else ''}", "endpoints": k, "workers": k, "seconds": seconds,
                         "first_answer_s": first})
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
        if ray.is_initialized():
            ray.shutdown()
    load_after = os.getloadavg()

    floor = args.n * args.latency_ms / 1000
    one = next(r["seconds"] for r in rows if r["workers"] == 1)
    for r in rows:
        r["instances_per_s"] = args.n / r["seconds"]
        r["speedup"] = one / r["seconds"] if r["workers"] != "-" else None
        r["vs_floor"] = r["seconds"] / (floor / r["endpoints"])
    four = next((r for r in rows if r["workers"] == 4), None)
    figures = {
        "n": args.n, "latency_ms": args.latency_ms, "cores": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before], "load_average_after": [round(x, 2) for x in load_after],
        "rows": [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()} for r in rows],
        "speedup_4_workers": round(four["speedup"], 2) if four else None,
        "overhead_1_worker": round(one / plain, 3),
        "goals": {"speedup_4_workers": GOAL_SPEEDUP, "overhead_1_worker": GOAL_OVERHEAD},
    }
    figures["met"] = {"speedup": four is not None and four["speedup"] >= GOAL_SPEEDUP, "overhead": one / plain <= GOAL_OVERHEAD}
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    table = Table(title=f"MOE template on {args.n} instances; endpoints serve 1 request at a time, {args.latency_ms:g} ms each")
    for col in ("run", "endpoints", "workers", "seconds", "first answer (s)", "instances/s", "speed-up", "× floor"):
        table.add_column(col, justify="left" if col == "run" else "right", no_wrap=True)
    for r in rows:
        table.add_row(r["run"], str(r["endpoints"]), str(r["workers"]), f"{r['seconds']:.2f}", f"{r['first_answer_s']:.2f}",
                      f"{r['instances_per_s']:.2f}", "-" if r["speedup"] is None else f"{r['speedup']:.2f}×", f"{r['vs_floor']:.2f}")
    table.caption = ("speed-up: against Ray with 1 worker; × floor: seconds over N·L/endpoints, the time the endpoints need "
                     "at full use; first answer: when the first record was written (a Ray run starts its actors first)")
    console.print(table)
    mark = {True: "[green]met[/]", False: "[red]missed[/]"}
    if four:
        console.print(f"speed-up with 4 workers: {four['speedup']:.2f}× (goal ≥ {GOAL_SPEEDUP}×) {mark[figures['met']['speedup']]}")
    console.print(f"overhead of a Ray run on one endpoint: {one / plain:.3f}× the plain run (goal ≤ {GOAL_OVERHEAD}×) "
                  f"{mark[figures['met']['overhead']]}")
    console.print(f"{os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in load_before)} before, "
                  f"{' '.join(f'{x:.2f}' for x in load_after)} after")


if __name__ == "__main__":
    main()
