"""What each MOE pipeline costs on the local server, and whether TBS reuses the cached context.

Per pipeline, on the shipped sample (or --data), one instance at a time with the response
cache off: prompt tokens sent, prompt tokens the server actually computed (sent minus
``cached_tokens``: its prefix-cache misses), completion tokens, calls, wall seconds per
instance. Pipelines run one after the other (pipeline-major), so each starts every
instance from the previous instance's cache, like a fresh run would.

TBS asks three questions; sent naively that is three times the context. Because its steps
extend one conversation, the server computes the context once: the check at the end requires
TBS's computed prompt tokens ≤ 1.3× and wall ≤ 1.6× those of ``template``.

    python bench/moe_cost.py [--model local:small] [--data sample] [--limit 20] [--pipelines template,tbs] [--json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("VGM_NO_CACHE", "1")
os.environ.setdefault("VGM_SHARE_SERVER", "0")  # our own server: another process's requests would evict our cached prefix

from rich import box  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from eval.moe import load_moe  # noqa: E402
from pipelines import load_pipeline  # noqa: E402
from pipelines.llm import get_model  # noqa: E402

LLM_PIPELINES = ["template", "template_zcot", "char_skill", "tbs", "tbs_zcot", "tbs_statistic"]


async def measure(model, names: list[str], instances) -> list[dict]:
    rows = []
    await load_pipeline("template").run(instances[0], model)  # warm-up: start the server, load weights
    for name in names:
        pipeline = load_pipeline(name)
        sent = cached = completion = calls = 0
        wall = 0.0
        for instance in instances:
            started = time.perf_counter()
            result = await pipeline.run(instance, model)
            wall += time.perf_counter() - started
            sent += result.usage.prompt_tokens
            cached += result.usage.cached_tokens
            completion += result.usage.completion_tokens
            calls += result.usage.calls
        n = len(instances)
        rows.append({"pipeline": name, "calls": calls / n, "sent": sent / n, "computed": (sent - cached) / n,
                     "completion": completion / n, "wall_s": wall / n})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local:small")
    parser.add_argument("--data", default="sample")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--pipelines", default=",".join(LLM_PIPELINES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = [p.strip() for p in args.pipelines.split(",") if p.strip()]
    if "template" not in names:
        names.insert(0, "template")
    instances = load_moe(args.data, limit=args.limit)
    model = get_model(args.model, cache=False, concurrency=1)

    async def go():
        try:
            return await measure(model, names, instances)
        finally:
            close = getattr(model, "aclose", None)
            if close:
                await close()

    rows = asyncio.run(go())
    base = next(r for r in rows if r["pipeline"] == "template")
    for row in rows:
        row["computed_vs_template"] = row["computed"] / base["computed"] if base["computed"] else float("nan")
        row["wall_vs_template"] = row["wall_s"] / base["wall_s"] if base["wall_s"] else float("nan")
    tbs = next((r for r in rows if r["pipeline"] == "tbs"), None)
    verdict = None
    if tbs:
        verdict = {"computed_ok": tbs["computed_vs_template"] <= 1.3, "wall_ok": tbs["wall_vs_template"] <= 1.6}
    if args.json:
        print(json.dumps({"model": args.model, "instances": len(instances), "rows": rows, "tbs_check": verdict}, indent=1))
        return 0 if not verdict or all(verdict.values()) else 1
    table = Table(title=f"MOE pipeline cost per instance — {args.model}, {len(instances)} instances, response cache off",
                  caption="sent: prompt tokens sent; computed: sent minus the server's cached_tokens (prefix-cache misses)", box=box.SIMPLE_HEAD)
    for col in ("pipeline", "calls", "sent", "computed", "completion", "wall s", "comp ×tmpl", "wall ×tmpl"):
        table.add_column(col, justify="left" if col == "pipeline" else "right", no_wrap=True)
    for r in rows:
        table.add_row(r["pipeline"], f"{r['calls']:.1f}", f"{r['sent']:.0f}", f"{r['computed']:.0f}", f"{r['completion']:.0f}",
                      f"{r['wall_s']:.2f}", f"{r['computed_vs_template']:.2f}", f"{r['wall_vs_template']:.2f}")
    console = Console()
    console.print(table)
    if verdict:
        ok = all(verdict.values())
        console.print(f"TBS vs template: computed {tbs['computed_vs_template']:.2f}× (≤1.3), wall {tbs['wall_vs_template']:.2f}× (≤1.6) — "
                      + ("[green]PASS[/]" if ok else "[red]FAIL[/]"))
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
