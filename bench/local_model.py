"""Speed and memory of the embedded local models on this machine.

For each model: time to load the server, resident memory, prompt processing and
generation speed (from llama.cpp's own ``timings``), and how long a second question on the
same long context takes when the server reuses the cached prefix.

    python bench/local_model.py [--models local:small local] [--threads N] [--prompt-tokens 800] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from pipelines.llm.local import ensure_installed  # noqa: E402
from pipelines.llm.serve import LocalServer, ServerConfig  # noqa: E402
from pipelines.llm.tokens import count_tokens  # noqa: E402


def table_log(tokens: int) -> str:
    lines, i = [], 0
    names = ["Jester", "Fjord", "Beau", "Caleb", "Nott"]
    while count_tokens("\n".join(lines)) < tokens:
        lines.append(f"{names[i % 5]}: I move to the {i}th door, listen for goblins and ready my weapon.")
        i += 1
    return "\n".join(lines)


def chat(base: str, messages: list[dict], max_tokens: int, *, cache_prompt: bool) -> dict:
    body = {"messages": messages, "max_tokens": max_tokens, "temperature": 0, "cache_prompt": cache_prompt, "ignore_eos": True}
    started = time.perf_counter()
    response = httpx.post(f"{base}/v1/chat/completions", json=body, timeout=900)
    response.raise_for_status()
    data = response.json()
    data["wall_s"] = time.perf_counter() - started
    return data


def measure(spec: str, threads: int | None, prompt_tokens: int, gen_tokens: int) -> dict:
    path = ensure_installed(spec)
    server = LocalServer(ServerConfig.for_model(path, threads=threads))
    started = time.perf_counter()
    server.start()
    load_s = time.perf_counter() - started
    try:
        log = table_log(prompt_tokens)
        first = [{"role": "system", "content": "You are the Game Master.\n" + log}, {"role": "user", "content": "Who acts next?"}]
        cold = chat(server.base_url, first, gen_tokens, cache_prompt=True)
        second = [first[0], {"role": "user", "content": "Which skill check should Beau make?"}]
        warm = chat(server.base_url, second, 8, cache_prompt=True)
        t = cold["timings"]
        return {
            "model": spec, "file": path.name, "threads": server.config.threads, "load_s": round(load_s, 2),
            "rss_gb": round(server.rss_bytes() / 1e9, 2),
            "prompt_tokens": t["prompt_n"], "prompt_tok_s": round(t["prompt_per_second"], 1),
            "gen_tokens": t["predicted_n"], "gen_tok_s": round(t["predicted_per_second"], 1),
            "first_question_s": round(cold["wall_s"], 2),
            "second_question_s": round(warm["wall_s"], 2),
            "second_cached_tokens": warm["usage"].get("prompt_tokens_details", {}).get("cached_tokens", 0),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["local:small", "local"])
    parser.add_argument("--threads", type=int, default=None, help="default: $VGM_THREADS or all cores")
    parser.add_argument("--prompt-tokens", type=int, default=800)
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = [measure(m, args.threads, args.prompt_tokens, args.gen_tokens) for m in args.models]
    if args.json:
        print(json.dumps(rows))
        return
    table = Table(title=f"local models (load average {load_before:.1f} on {os.cpu_count()} cores before the run)")
    cols = [("model", "model"), ("threads", "threads"), ("load s", "load_s"), ("RSS GB", "rss_gb"), ("prompt tok", "prompt_tokens"),
            ("prompt tok/s", "prompt_tok_s"), ("gen tok/s", "gen_tok_s"), ("1st question s", "first_question_s"),
            ("2nd (cached prefix) s", "second_question_s"), ("cached tok", "second_cached_tokens")]
    for title, _ in cols:
        table.add_column(title, justify="left" if title == "model" else "right")
    for r in rows:
        table.add_row(*(str(r[key]) for _, key in cols))
    Console(width=None if sys.stdout.isatty() else 150).print(table)


if __name__ == "__main__":
    main()
