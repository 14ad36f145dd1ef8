"""Soak the shared table: hundreds of turns through the real server, and its memory every 100.

    python bench/table_soak.py                      # 600 turns, drowned_chapel, a streaming fake model
    python bench/table_soak.py --turns 300 --every 50 --scenario lantern_house

What it runs: ``vgm table serve`` as a child process (``ui.web._launch.TableProcess``), its model an
OpenAI-compatible fake on 127.0.0.1 (``pipelines.llm.fake_server``) that streams every answer, so
the real client, its streams and the narration guard run each turn; no response cache, so every
turn really calls the model. Three players take turns over HTTP while three pages (two players and
the host) follow the event stream, as browsers would. Every ``--every`` turns it prints the server's
resident memory (RSS), what it grew by a turn since the last row, the median turn time and the
session file's size. Warm-up is the first row; a server that levels off shows growth near the
session's own (the log and the GM's memory grow with the game: a few KB a turn).

This is a benchmark, not a test: it prints a table and asserts nothing (docs/table.md has figures).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipelines.llm.fake_server import FakeServer  # noqa: E402
from ui.web._launch import TableProcess  # noqa: E402

LINES = [
    "I look under the altar", "I pray quietly by the door", "I sit on a pew and listen", "I ask the keeper about the bell",
    "I search the crypt stair for tracks", "/roll 1d20+2", "I light a candle from the altar", "what is behind the altar?",
    "I run my hand along the cold wall", "I call out: is anyone down there?", "I check the rope of the bell",
    "I read the names carved into the pews", "/check perception", "I wring out my cloak", "I step into the water by the font",
    "I ask the keeper how long he has kept the chapel",
]
NARRATIONS = [
    "Water drips from the cracked bell while the old keeper watches you, his lantern swinging on its hook.",
    "The candles gutter in a draught from the crypt stair, and somewhere below a slow drip keeps time.",
    "Cold stone meets your fingers, slick with moss, and the hymn boards rattle as the wind finds the gaps.",
    "The keeper shrugs, says nothing for a long moment, then points his lantern at the flooded aisle.",
]


def reply(body: dict) -> str:
    """The fake model's answer: a narration that changes with the request, so no guard sees an echo."""
    n = len(body.get("messages", [])) + sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    return NARRATIONS[n % len(NARRATIONS)]


def follow(url: str, token: str, stop: threading.Event, counts: dict) -> None:
    """A page following the event stream until told to stop (reconnecting as a browser does)."""
    while not stop.is_set():
        try:
            with httpx.stream("GET", f"{url}/api/events", params={"token": token}, timeout=httpx.Timeout(5, read=30)) as r:
                for line in r.iter_lines():
                    if line.startswith("event:"):
                        counts[token] = counts.get(token, 0) + 1
                    if stop.is_set():
                        return
        except httpx.HTTPError:
            time.sleep(0.5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=600)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--scenario", default="drowned_chapel")
    ap.add_argument("--memory", default="hashing", help="the GM's memory (minilm, hashing, off); hashing keeps the soak quick")
    ap.add_argument("--root", type=Path, default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--code", type=Path, default=None, help="run the server from this checkout (to compare with an older commit)")
    args = ap.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="vgm-soak-"))
    root.mkdir(parents=True, exist_ok=True)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"table soak: {args.turns} turns of {args.scenario}, memory {args.memory}; load at start: {load}", flush=True)
    with FakeServer(reply=reply) as fake:
        env = {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "soak", "VGM_NO_CACHE": "1",
               "VGM_CACHE_DIR": str(root / "cache"), "VGM_USAGE_LOG": str(root / "usage.jsonl")}
        session = root / "room.json"
        table = TableProcess(session, ["--scenario", args.scenario, "--model", "openai:soak", "--memory", args.memory, "--seed", "1"],
                             env=env, log_path=root / "server.log", cwd=args.code)
        with table:
            tokens = table.tokens
            players = [seat for seat in tokens if seat != "host"]
            stop, counts = threading.Event(), {}
            pages = [threading.Thread(target=follow, args=(table.url, tokens[s], stop, counts), daemon=True)
                     for s in [*players[:2], "host"]]
            for page in pages:
                page.start()
            rows, times, errors, last = [], [], 0, None
            with httpx.Client(timeout=120) as client:
                for i in range(1, args.turns + 1):
                    seat = players[i % len(players)]
                    started = time.perf_counter()
                    r = client.post(f"{table.url}/api/act", json={"token": tokens[seat], "text": LINES[i % len(LINES)]},
                                    headers={"Authorization": f"Bearer {tokens[seat]}"})
                    times.append(time.perf_counter() - started)
                    errors += r.status_code >= 500
                    if i % 40 == 0:
                        fake.requests.clear()
                        fake.headers.clear()  # the fake's own record of requests is not the server's memory
                    if i % args.every == 0 or i == 1:
                        rss = table.rss_mb()
                        per_turn = (rss - last[1]) / (i - last[0]) if last else float("nan")
                        rows.append((i, rss, per_turn, statistics.median(times[-args.every:]), session.stat().st_size / 1024, errors))
                        print(f"  turn {i:5d}: {rss:7.1f} MB", flush=True)
                        last = (i, rss)
            stop.set()
    print()
    print(f"{'turns':>6} {'RSS MB':>8} {'MB/turn':>8} {'turn p50 s':>10} {'session KB':>10} {'5xx':>4}")
    for i, rss, per, p50, kb, errs in rows:
        print(f"{i:6d} {rss:8.1f} {per:8.3f} {p50:10.2f} {kb:10.0f} {errs:4d}")
    if len(rows) >= 3:
        (i0, r0, *_), (i1, r1, *_) = rows[1], rows[-1]
        print(f"after warm-up (turn {i0} to {i1}): {r1 - r0:+.1f} MB, {(r1 - r0) / (i1 - i0) * 1000:.0f} KB a turn; "
              f"session file {rows[-1][4]:.0f} KB")
    print(f"events heard by the three pages: {sum(counts.values())}; load at end: "
          f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
