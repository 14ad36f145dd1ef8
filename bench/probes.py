"""Probe cost with the server's prefix cache: computed prompt tokens per probe, and probed vs unprobed wall time.

A probe's request is the seat's game prompt plus one question, so a prefix-caching server
(llama.cpp) should compute only the question and the answer. This plays the same seeded Mafia
game twice on a fresh private server each time, unprobed and probed, and prints: per probe, the
prompt tokens the server computed against the full prompt (``usage.prompt_tokens_details.cached_tokens``
= llama.cpp's ``timings.cache_n``), and the two wall times. ``--check`` plays a third game with two
probe runners on it, one asking as usual and one with ``cache_prompt: false`` (every prompt computed
from scratch), and counts how many answers are identical.

    python bench/probes.py --model local:small --probes cheap --players 5 --max-rounds 1
    python bench/probes.py --model local:small --probes cheap --players 5 --max-rounds 1 --check --batch-invariant
    python bench/probes.py --model local:small --probes cheap --players 7 --max-rounds 3 --tokens-only   # long prompts
    python bench/probes.py --model local:small --probes cheap --against cheap_before.yaml --no-timing   # answers of two wordings
    python bench/probes.py --model scripted --check      # plumbing only: no server, nothing cached
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f}"


def _model(spec: str, **extra: Any):
    if spec == "scripted":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "probes"))
        from conftest import responder  # the probe tests' deterministic answerer

        from pipelines.llm import ScriptedModel

        return ScriptedModel(responder=responder, name="scripted")
    from pipelines.llm import get_model

    return get_model(spec, cache=False, **({"extra_body": extra} if extra else {}))


def _server_cpu_s(model: Any) -> float | None:
    """CPU seconds the model's server process has used: the work done, which the machine's load does not inflate."""
    from pipelines.llm.serve import running

    server = running(model.config) if hasattr(model, "config") else None
    if server is None or server.pid is None:
        return None
    fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _server_prompt_tokens(model: Any) -> dict[str, int] | None:
    """The server's own counters (``/metrics``): prompt tokens it computed, took from its cache, and tokens it generated.

    Read before and after a game, they count every call of the game (moves and probes) without trusting
    any per-call report, so probed minus unprobed is what probing added, including any work it caused
    the game's own calls (a game prefix evicted by a probe would show here).
    """
    base = str(getattr(model, "base_url", "")).removesuffix("/v1")
    if not base.startswith("http"):
        return None
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base}/metrics", timeout=30) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    values = dict(line.split(" ", 1) for line in text.splitlines() if line and not line.startswith("#") and " " in line)
    return {"computed": int(float(values.get("llamacpp:prompt_tokens_total", 0))),
            "cached": int(float(values.get("llamacpp:prompt_tokens_cached_total", 0))),
            "generated": int(float(values.get("llamacpp:tokens_predicted_total", 0)))}


def _fresh_server(model: Any) -> None:
    """Restart the private server so no arm inherits the KV cache (slots or host RAM) of the one before."""
    if not hasattr(model, "config"):
        return
    from pipelines.llm.serve import release

    release(model.config)
    model.server()


def _play(args: argparse.Namespace, model: Any, out: Path, name: str, runners: list[tuple[Any, str, dict]]) -> dict[str, Any]:
    """One seeded game (seats all on ``model``), with the given probe runners attached; its wall time and counts."""
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat, ScriptedSeat
    from pipelines.probes import ProbeRunner

    _fresh_server(model)  # a second local model object of the same file shares this server
    if args.tokens_only:  # rule-based seats play a long game in no time; the model only reads the probes
        seats = [ScriptedSeat("heuristic") for _ in range(args.players)]
    else:
        seats = [LlmSeat(model, model_spec=args.model) for _ in range(args.players)]
    game = MafiaGame(seats, seed=args.seed, game_id=name, log_path=out / f"{name}.jsonl", options={"max_rounds": args.max_rounds})
    attached = []
    for probe_model, label, options in runners:
        options = dict(options)
        probe_set = options.pop("probe_set", args.probe_set)  # a runner may ask another set (--against)
        runner = ProbeRunner(probe_set, probe_model, out / f"{name}.{label}.probes.jsonl", game_id=name, **options)
        game.add_listener(runner)
        attached.append(runner)
    before = model.usage_total if hasattr(model, "usage_total") else None
    load = _load()
    cpu = _server_cpu_s(model)
    counters = _server_prompt_tokens(model)
    start = time.perf_counter()
    asyncio.run(game.run())
    wall = time.perf_counter() - start
    cpu = None if cpu is None else _server_cpu_s(model) - cpu
    after = _server_prompt_tokens(model)
    server_tokens = None if counters is None or after is None else {k: after[k] - counters[k] for k in after}
    for r in attached:
        r.close()
    probe_calls = sum(r.usage.calls for r in attached)
    total = (model.usage_total.calls - before.calls) if before is not None else 0
    return {"wall_s": wall, "server_cpu_s": cpu, "server_prompt_tokens": server_tokens, "load_before": load, "load_after": _load(), "game_calls": sum(getattr(s, "calls", 0) for s in seats),
            "probe_calls": probe_calls, "model_calls": total, "runners": attached,
            "events": [{k: v for k, v in e.items() if k != "game_id"} for e in game.log.events],
            "result": {k: v for k, v in game.result().items() if k != "game_id"}}


def _token_stats(records: list[Any], question_tokens: dict[tuple, int] | None = None) -> dict[str, Any]:
    """Computed (not cached) prompt tokens per probe against the full prompt, and where they go.

    ``computed = prompt_tokens - cached_tokens`` as the server reports them per call (llama.cpp's
    ``timings.prompt_n``; ``cached_tokens`` is its ``timings.cache_n``). A seat's first probe has
    nothing cached; after it, what is computed beyond the question is the game-log lines new since
    the seat's last probe, or a prefix the server no longer held.
    """
    rows = [(r.prompt_tokens, r.prompt_tokens - r.cached_tokens) for r in records if r.prompt_tokens]
    if not rows:
        return {"probes": 0}
    full = sum(f for f, _ in rows)
    computed = sum(c for _, c in rows)
    shares = sorted(c / f for f, c in rows)
    stats = {
        "probes": len(rows), "full_mean": full / len(rows), "computed_mean": computed / len(rows),
        "computed_share": computed / full, "share_median": statistics.median(shares),
        "share_p90": shares[min(len(shares) - 1, int(0.9 * len(shares)))], "share_max": shares[-1],
    }
    seen: set[str] = set()
    first, later = [], []
    for r in records:
        if r.prompt_tokens:
            (later if r.player in seen else first).append(r)
            seen.add(r.player)
    for label, part in (("first_per_seat", first), ("after_first", later)):
        if part:
            f, c = sum(r.prompt_tokens for r in part), sum(r.prompt_tokens - r.cached_tokens for r in part)
            stats[label] = {"probes": len(part), "computed_mean": c / len(part), "computed_share": c / f}
    asked = [r for r in records if r.prompt_tokens and r.key() in (question_tokens or {})]
    if asked:
        stats["question_tokens_mean"] = statistics.mean(question_tokens[r.key()] for r in asked)
        stats["computed_beyond_question_mean"] = statistics.mean(r.prompt_tokens - r.cached_tokens - question_tokens[r.key()] for r in asked)
        later_keys = {r.key() for r in later}
        beyond = sorted(r.prompt_tokens - r.cached_tokens - question_tokens[r.key()] for r in asked if r.key() in later_keys)
        if beyond:
            stats["after_first_beyond_question"] = {"mean": statistics.mean(beyond), "median": statistics.median(beyond),
                                                    "p90": beyond[min(len(beyond) - 1, int(0.9 * len(beyond)))], "max": beyond[-1]}
    stats["by_length"] = {}
    for lo, hi in ((0, 400), (400, 800), (800, 10**9)):
        part = [(f, c) for f, c in rows if lo <= f < hi]
        if part:
            label = f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
            stats["by_length"][label] = {"probes": len(part), "computed_share": sum(c for _, c in part) / sum(f for f, _ in part)}
    return stats


def _question_tokens(model: Any, records: list[Any]) -> dict[tuple, int]:
    """Tokens of each probe's question with its chat markup (the part no cache can hold), from the server's ``/tokenize``."""
    base = str(getattr(model, "base_url", "")).removesuffix("/v1")
    if not base.startswith("http"):
        return {}
    import urllib.request

    out = {}
    for r in records:
        req = urllib.request.Request(f"{base}/tokenize", data=json.dumps({"content": r.question}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            # + <|im_end|>\n<|im_start|>assistant\n after it (ChatML); the "user" header before it is the game's too
            out[r.key()] = len(json.load(resp)["tokens"]) + 5
    return out


def _compare(a: list[Any], b: list[Any]) -> dict[str, Any]:
    """Answers of two runners on one game, matched by (round, seq, seat, probe)."""
    other = {r.key(): r for r in b}
    pairs = [(r, other[r.key()]) for r in a if r.key() in other]
    same_raw = sum(x.answer_raw == y.answer_raw for x, y in pairs)
    same_parsed = sum(x.answer_parsed == y.answer_parsed for x, y in pairs)
    first = next(((x, y) for x, y in pairs if x.answer_raw != y.answer_raw), None)
    return {"pairs": len(pairs), "identical_raw": same_raw, "identical_parsed": same_parsed,
            "share_identical": same_raw / len(pairs) if pairs else None,
            "first_difference": None if first is None else {"key": first[0].key(), "cached": first[0].answer_raw[:160], "uncached": first[1].answer_raw[:160]}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="local:small")
    ap.add_argument("--probes", default="cheap")
    ap.add_argument("--ids", default="", help="comma list: ask only these probes of the set")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--max-rounds", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slots", type=int, default=0, help="server slots (VGM_PARALLEL); default: one per seat")
    ap.add_argument("--ctx", type=int, default=4096, help="context per slot (VGM_CTX)")
    ap.add_argument("--check", action="store_true", help="also compare answers with cache_prompt: false")
    ap.add_argument("--against", default="", help="another probe set (e.g. an earlier wording): a game with both runners, answers compared")
    ap.add_argument("--batch-invariant", action="store_true", help="server kernels whose logits do not depend on the batch (VGM_BATCH_INVARIANT=1)")
    ap.add_argument("--no-timing", action="store_true", help="skip the unprobed and probed games (with --check)")
    ap.add_argument("--pairs", type=int, default=1, help="unprobed/probed pairs, in alternating order (the load drifts); the median ratio is reported")
    ap.add_argument("--tokens-only", action="store_true",
                    help="prompt tokens only, on longer games: rule-based seats, probe answers cut at 1 token (answers meaningless)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    # a private server: other processes' requests would evict our slots and blur the timing
    os.environ["VGM_SHARE_SERVER"] = "0"
    os.environ["VGM_PARALLEL"] = str(args.slots or args.players)
    os.environ["VGM_CTX"] = str(args.ctx)
    if args.batch_invariant:
        os.environ["VGM_BATCH_INVARIANT"] = "1"
    from pipelines.probes import load_probe_set

    probe_set = load_probe_set(args.probes)
    if args.ids:
        keep = [i.strip() for i in args.ids.split(",")]
        probe_set = probe_set.model_copy(update={"probes": [p for p in probe_set.probes if p.id in keep]})
    if args.tokens_only:
        probe_set = probe_set.model_copy(update={"probes": [p.model_copy(update={"max_tokens": 1}) for p in probe_set.probes]})
    args.probe_set = probe_set
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-probes-"))
    model = _model(args.model)
    report: dict[str, Any] = {"model": args.model, "probes": args.probes, "ids": args.ids, "players": args.players,
                              "max_rounds": args.max_rounds, "seed": args.seed, "slots": int(os.environ["VGM_PARALLEL"]),
                              "threads": getattr(getattr(model, "config", None), "threads", None),
                              "batch_invariant": args.batch_invariant, "out": str(out)}
    if args.tokens_only:
        probed = _play(args, model, out, "tokens", [(model, "cached", {})])
        records = probed["runners"][0].records
        report["tokens"] = _token_stats(records, _question_tokens(model, records))
        report["tokens_only"] = {k: v for k, v in probed.items() if k not in ("runners", "events")}
    elif not args.no_timing:
        plain = _play(args, model, out, "plain", [])
        probed = _play(args, model, out, "probed", [(None, "cached", {})])
        pairs = [(plain, probed)]
        for i in range(1, args.pairs):  # odd pairs play the probed game first
            first = _play(args, model, out, f"probed{i}" if i % 2 else f"plain{i}", [(None, "cached", {})] if i % 2 else [])
            second = _play(args, model, out, f"plain{i}" if i % 2 else f"probed{i}", [] if i % 2 else [(None, "cached", {})])
            pairs.append((second, first) if i % 2 else (first, second))
        report["pairs"] = [{"plain_wall_s": a["wall_s"], "probed_wall_s": b["wall_s"], "wall_ratio": b["wall_s"] / a["wall_s"],
                            "cpu_ratio": b["server_cpu_s"] / a["server_cpu_s"] if a["server_cpu_s"] else None,
                            "plain_load": f"{a['load_before']} → {a['load_after']}", "probed_load": f"{b['load_before']} → {b['load_after']}",
                            "probed_first": i % 2 == 1} for i, (a, b) in enumerate(pairs)]
        records = probed["runners"][0].records
        report["plain"] = {k: v for k, v in plain.items() if k not in ("runners", "events")}
        report["probed"] = {k: v for k, v in probed.items() if k not in ("runners", "events")}
        report["same_game"] = plain["events"] == probed["events"]  # temperature 0: the same moves, unless numerics differ
        report["tokens"] = _token_stats(records, _question_tokens(model, records))
        report["wall_ratio"] = statistics.median(p["wall_ratio"] for p in report["pairs"])
        if plain["server_prompt_tokens"] and probed["server_prompt_tokens"] and probed["probe_calls"]:
            added = probed["server_prompt_tokens"]["computed"] - plain["server_prompt_tokens"]["computed"]
            generated = probed["server_prompt_tokens"]["generated"] - plain["server_prompt_tokens"]["generated"]
            report["server_marginal"] = {"computed_per_probe": added / probed["probe_calls"], "generated_per_probe": generated / probed["probe_calls"],
                                         "share_of_full_prompt": added / probed["probe_calls"] / report["tokens"]["full_mean"] if report["tokens"].get("probes") else None}
        if plain["server_cpu_s"]:
            report["cpu_ratio"] = statistics.median(p["cpu_ratio"] for p in report["pairs"])
    if args.check:
        uncached = _model(args.model, cache_prompt=False)
        check = _play(args, model, out, "check", [(None, "cached", {}), (uncached, "uncached", {})])
        cached_r, uncached_r = check["runners"]
        report["check"] = {**_compare(cached_r.records, uncached_r.records), "wall_s": check["wall_s"],
                           "load_before": check["load_before"], "load_after": check["load_after"],
                           "cached_tokens": _token_stats(cached_r.records), "uncached_tokens": _token_stats(uncached_r.records)}
    if args.against:
        from eval.beliefs import compare_probe_logs
        from pipelines.probes import load_probe_set as _load_set

        both = _play(args, model, out, "against", [(None, "this", {}), (None, "other", {"probe_set": _load_set(args.against)})])
        mine, other = both["runners"]
        report["against"] = {"set": args.against, **compare_probe_logs(other.records, mine.records),
                             "identical_raw": _compare(mine.records, other.records)["identical_raw"], "wall_s": both["wall_s"],
                             "load_before": both["load_before"], "load_after": both["load_after"]}
    if args.json:
        print(json.dumps(report, indent=1, default=str))
        return
    _print(report)


def _print(r: dict[str, Any]) -> None:
    console = Console()
    head = f"{r['probes']}{' (' + r['ids'] + ')' if r['ids'] else ''} probes on {r['model']}, {r['players']} seats, " \
           f"{r['max_rounds']} round(s), seed {r['seed']}, {r['slots']} slots, {r['threads']} thread(s)" \
           f"{', batch-invariant kernels' if r['batch_invariant'] else ''}"
    if "tokens" in r:
        t = r["tokens"]
        table = Table(title=f"prompt tokens per probe ({head})")
        table.add_column("figure")
        table.add_column("value", justify="right")
        if t["probes"]:
            table.add_row("probe calls", f"{t['probes']}")
            table.add_row("full prompt, mean tokens", f"{t['full_mean']:.0f}")
            table.add_row("computed (not cached), mean tokens", f"{t['computed_mean']:.1f}")
            table.add_row("computed / full, all probes", f"{t['computed_share']:.1%}")
            table.add_row("computed / full, median | p90 | max", f"{t['share_median']:.1%} | {t['share_p90']:.1%} | {t['share_max']:.1%}")
            for label, part in t["by_length"].items():
                table.add_row(f"computed / full, prompts of {label} tokens", f"{part['computed_share']:.1%} of {part['probes']}")
            for key, label in (("first_per_seat", "a seat's first probe (nothing cached yet)"), ("after_first", "every later probe")):
                if key in t:
                    table.add_row(f"{label}: computed / full", f"{t[key]['computed_share']:.1%} of {t[key]['probes']} ({t[key]['computed_mean']:.1f} tokens)")
            if "question_tokens_mean" in t:
                table.add_row("the question (+ chat markup), mean tokens", f"{t['question_tokens_mean']:.1f}")
                table.add_row("computed beyond the question, mean tokens", f"{t['computed_beyond_question_mean']:.1f}")
            if "after_first_beyond_question" in t:
                b = t["after_first_beyond_question"]
                table.add_row("later probes, beyond the question: mean | median | p90 | max",
                              f"{b['mean']:.1f} | {b['median']:.0f} | {b['p90']:.0f} | {b['max']:.0f}")
        else:
            table.add_row("probe calls", "0 (the model reports no token counts)")
        console.print(table)
    if "plain" in r:
        g = Table(title="wall time of one game (fresh server each)")
        for col in ("game", "wall s", "server CPU s", "game calls", "probe calls", "load avg before → after"):
            g.add_column(col, justify="right" if col != "game" else "left")
        for key, label in (("plain", "unprobed"), ("probed", "probed")):
            x = r[key]
            g.add_row(label, f"{x['wall_s']:.1f}", "–" if x["server_cpu_s"] is None else f"{x['server_cpu_s']:.1f}", str(x["game_calls"]), str(x["probe_calls"]), f"{x['load_before']} → {x['load_after']}")
        console.print(g)
        if len(r["pairs"]) > 1:
            g = Table(title="unprobed / probed pairs (odd pairs: probed game first)")
            for col in ("pair", "unprobed wall s (load)", "probed wall s (load)", "wall ratio", "CPU ratio"):
                g.add_column(col, justify="right")
            for i, p in enumerate(r["pairs"]):
                g.add_row(str(i + 1), f"{p['plain_wall_s']:.1f} ({p['plain_load']})", f"{p['probed_wall_s']:.1f} ({p['probed_load']})",
                          f"{p['wall_ratio']:.2f}×", "–" if p["cpu_ratio"] is None else f"{p['cpu_ratio']:.2f}×")
            console.print(g)
        cpu = f", server CPU time {r['cpu_ratio']:.2f}×" if "cpu_ratio" in r else ""
        median = " (medians over the pairs)" if len(r["pairs"]) > 1 else ""
        console.print(f"probed / unprobed: wall time {r['wall_ratio']:.2f}×{cpu}{median}; same game both times: {r['same_game']}")
        for key, label in (("plain", "unprobed"), ("probed", "probed")):
            t = r[key].get("server_prompt_tokens")
            if t:
                console.print(f"  {label} game, server counters: {t['computed']} prompt tokens computed, {t['cached']} from its cache, {t['generated']} generated")
        if "server_marginal" in r:
            m = r["server_marginal"]
            share = f" = {m['share_of_full_prompt']:.1%} of a probe's mean full prompt" if m["share_of_full_prompt"] is not None else ""
            console.print(f"server counters (/metrics), probed − unprobed game, per probe: {m['computed_per_probe']:.1f} prompt tokens computed{share}, "
                          f"{m['generated_per_probe']:.1f} tokens generated")
    if "check" in r:
        c = r["check"]
        table = Table(title=f"cached vs uncached (cache_prompt: false) answers on one game ({head})")
        table.add_column("figure")
        table.add_column("value", justify="right")
        table.add_row("answer pairs", str(c["pairs"]))
        table.add_row("identical raw answers", f"{c['identical_raw']} ({c['share_identical']:.1%})" if c["pairs"] else "–")
        table.add_row("identical parsed answers", str(c["identical_parsed"]))
        for key, label in (("cached_tokens", "cached runner"), ("uncached_tokens", "uncached runner")):
            s = c[key]
            table.add_row(f"{label}: computed / full prompt", f"{s['computed_share']:.1%}" if s.get("probes") else "–")
        table.add_row("wall s (load before → after)", f"{c['wall_s']:.1f} ({c['load_before']} → {c['load_after']})")
        console.print(table)
        if c["first_difference"]:
            console.print(f"first difference at {c['first_difference']['key']}:", c["first_difference"])
    if "against" in r:
        a = r["against"]
        table = Table(title=f"this set against {a['set']} on one game ({head})")
        table.add_column("figure")
        table.add_column("value", justify="right")
        table.add_row("matched answers (both parsed)", str(a["matched_answers"]))
        table.add_row("identical raw answers", str(a["identical_raw"]))
        table.add_row("top-suspect agreement", f"{a['top_suspect_agreement']:.1%} of {a['suspicion_pairs']}" if a["top_suspect_agreement"] is not None else "–")
        table.add_row("suspicion L1 distance", f"{a['suspicion_l1']:.3f}" if a["suspicion_l1"] is not None else "–")
        table.add_row("role guess agreement", f"{a['role_agreement']:.1%} of {a['role_pairs']}" if a["role_agreement"] is not None else "–")
        for side, label in (("b", "this set"), ("a", "the other set")):
            x = a[side]
            table.add_row(f"{label}: answers / tokens / parse rate", f"{x['answers']} / {x['tokens']} / {x['parse_rate']:.1%}")
        table.add_row("wall s (load before → after)", f"{a['wall_s']:.1f} ({a['load_before']} → {a['load_after']})")
        console.print(table)
    console.print(f"logs: {r['out']}")


if __name__ == "__main__":
    main()
