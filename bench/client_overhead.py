"""How close does our client get to the floor N·L/C against a server that takes L ms per call?

Starts the fake OpenAI-compatible server in its own process (so its CPU is not ours), then
sends N distinct requests through ``get_model("openai:...")`` at concurrency C, once with
the response cache off, once with it on (cold: every call is a miss and a write), and once
more with it warm (every call a hit). A bare aiohttp loop over the same server is the
reference: the gap between it and the floor is the machine, the gap above it is ours. Target: within 10% of the floor at C=32, N=2000, L=50.

    python bench/client_overhead.py [--n 2000] [--latency-ms 50] [--concurrency 32] [--json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from pipelines.llm import ResponseCache, get_model  # noqa: E402


def start_fake(latency_ms: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "pipelines.llm.fake_server", str(latency_ms)], stdout=subprocess.PIPE, text=True,
                            cwd=str(Path(__file__).resolve().parents[1]))
    url = proc.stdout.readline().strip()  # type: ignore[union-attr]
    return proc, url


async def run(model, n: int) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds for n calls."""
    messages = [[{"role": "user", "content": f"Which check does player {i} roll?"}] for i in range(n)]
    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(model.complete(m, max_tokens=16) for m in messages))
    return time.perf_counter() - started, time.process_time() - cpu


async def run_bare(url: str, n: int, concurrency: int) -> tuple[float, float]:
    """The same calls with nothing but aiohttp and a semaphore: what the machine allows."""
    import aiohttp

    sem = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency + 4)) as session:
        async def one(i: int) -> None:
            async with sem:
                body = {"model": "fake", "messages": [{"role": "user", "content": f"bare {i}"}], "max_tokens": 16}
                async with session.post(f"{url}/chat/completions", json=body) as response:
                    await response.json()

        await asyncio.gather(*(one(i) for i in range(64)))
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--uvloop", action="store_true", help="run the client on uvloop (if installed)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.uvloop:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

    proc, url = start_fake(args.latency_ms)
    floor = args.n * args.latency_ms / 1000 / args.concurrency
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["VGM_CACHE_DIR"] = tmp
            common = dict(base_url=url, concurrency=args.concurrency, timeout=30)
            asyncio.run(run(get_model("openai:fake", cache=False, **common), 64))  # warm up connections and imports
            cases = [
                ("no cache", get_model("openai:fake", cache=False, **common)),
                ("cache cold (miss + write)", get_model("openai:fake", cache=ResponseCache(Path(tmp) / "c.sqlite"), **common)),
                ("cache warm (all hits)", get_model("openai:fake", cache=ResponseCache(Path(tmp) / "c.sqlite"), **common)),
            ]
            for label, model in [("bare aiohttp (reference)", None), *cases]:
                if model is None:
                    elapsed, cpu = asyncio.run(run_bare(url, args.n, args.concurrency))
                else:
                    elapsed, cpu = asyncio.run(run(model, args.n))
                rows.append({"client_cpu_ms_per_call": round(1000 * cpu / args.n, 3), "case": label, "n": args.n, "latency_ms": args.latency_ms, "concurrency": args.concurrency,
                             "seconds": round(elapsed, 3), "floor_s": round(floor, 3),
                             "over_floor_pct": round(100 * (elapsed / floor - 1), 1), "calls_per_s": round(args.n / elapsed, 1)})
    finally:
        proc.terminate()
        proc.wait(10)

    if args.json:
        print(json.dumps(rows))
        return
    table = Table(title=f"client overhead{' (uvloop)' if args.uvloop else ''}: N={args.n}, L={args.latency_ms:g} ms, C={args.concurrency}, floor N·L/C = {floor:.3f} s")
    for col in ("case", "seconds", "vs floor", "calls/s", "client CPU ms/call"):
        table.add_column(col, justify="right" if col != "case" else "left")
    for r in rows:
        vs = "n/a (no server call)" if r["case"].startswith("cache warm") else f"{r['over_floor_pct']:+.1f}%"
        table.add_row(r["case"], f"{r['seconds']:.3f}", vs, f"{r['calls_per_s']:.0f}", f"{r['client_cpu_ms_per_call']:.2f}")
    Console(width=None if sys.stdout.isatty() else 150).print(table)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other processes slow the wall time, not the CPU per call)")


if __name__ == "__main__":
    main()
