"""Load benchmark for the rating server: N simulated raters submit M ratings at once over HTTP.

Builds a study from made-up runs in a temporary folder, starts the real ``vgm ui`` on a free
127.0.0.1 port, lets every rater submit concurrently, then checks every rating is stored exactly
once, kills the server hard and checks again after a restart. Prints one table.

    python bench/rating_load.py                    # 30 raters, 1,000 ratings
    python bench/rating_load.py --raters 60 --ratings 3000
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import tempfile
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from eval.ratings import build_study  # noqa: E402
from eval.ratings._demo import write_demo_runs  # noqa: E402
from ui.web._launch import ServerProcess  # noqa: E402
from ui.web._loadsim import simulate_raters  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=30)
    parser.add_argument("--ratings", type=int, default=1000)
    parser.add_argument("--contexts", type=int, default=40, help="contexts in the study (3 items each)")
    args = parser.parse_args()
    if args.ratings > args.raters * args.contexts * 3:
        parser.error("more ratings than raters x items; raise --contexts")

    with tempfile.TemporaryDirectory(prefix="vgm-load-") as tmp:
        root = Path(tmp)
        runs = write_demo_runs(root / "demo", n=args.contexts)
        study, admin_token, _ = build_study(runs, root / "study.db", n=args.contexts, include_human=True)
        admin = study.owner()
        tokens = [admin.add_rater(f"r{k:03d}").token for k in range(args.raters)]
        with ServerProcess(study=root / "study.db", log_path=root / "server.log") as server:
            result = asyncio.run(simulate_raters(server.url, tokens, args.ratings))
            rows = sqlite3.connect(root / "study.db").execute("SELECT rater_id, item_id FROM ratings").fetchall()
            server.restart()
            import httpx

            after = httpx.get(server.url + "/api/rate/report", params={"token": admin_token}).json()["ratings"]

    table = Table(title=f"rating server under load ({args.raters} raters at once, HTTP on 127.0.0.1, SQLite WAL)")
    for col in ("sent", "failed", "stored", "dupes", "after kill+restart", "p50 ms", "p95 ms", "max ms", "per s"):
        table.add_column(col, justify="right")
    table.add_row(
        str(result.submitted), str(result.failed), str(len(rows)), str(len(rows) - len(set(rows))), str(after),
        f"{1000 * result.percentile(50):.0f}", f"{1000 * result.percentile(95):.0f}", f"{1000 * max(result.latencies):.0f}",
        f"{result.per_second:.0f}",
    )
    Console().print(table)


if __name__ == "__main__":
    main()
