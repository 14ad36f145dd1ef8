"""Batched vs one-call-per-probe: the same Mafia game states probed both ways, answers and cost compared.

Probes never touch the game, so two probe runners listen to one game: everything the seats saw is
identical and only the way of asking differs. Prints a table (calls, tokens, time, parse rate, and
how often the two ways agree on role guesses, top suspect and social-map attitudes).

    python bench/probe_batching.py --model local:small --players 5 --max-rounds 1 --round-end-only \
        --ids role_assessment,suspicion_ranking,social_map
    python bench/probe_batching.py --model scripted   # plumbing check, no model
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="local:small")
    ap.add_argument("--probes", default="default")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--max-rounds", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--ids", default="", help="comma list: ask only these probes of the set")
    ap.add_argument("--round-end-only", action="store_true", help="ask the probes once per round (cheap enough for a CPU model)")
    args = ap.parse_args()

    from eval.beliefs import compare_probe_logs
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat
    from pipelines.probes import ProbeRunner, load_probe_set

    if args.model == "scripted":
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "probes"))
        from conftest import responder  # the tests' deterministic answerer

        from pipelines.llm import ScriptedModel

        model = ScriptedModel(responder=responder)
    else:
        from pipelines.llm import get_model

        model = get_model(args.model)
    out = args.out or Path(tempfile.mkdtemp(prefix="probe-batching-"))
    game = MafiaGame([LlmSeat(model, model_spec=args.model) for _ in range(args.players)], seed=args.seed, game_id="batching",
                     log_path=out / "batching.jsonl", options={"max_rounds": args.max_rounds})
    probe_set = load_probe_set(args.probes)
    if args.ids:
        keep = [i.strip() for i in args.ids.split(",")]
        probe_set = probe_set.model_copy(update={"probes": [p for p in probe_set.probes if p.id in keep]})
    if args.round_end_only:
        probe_set = probe_set.model_copy(update={"probes": [p.model_copy(update={"when": ["round_end"]}) for p in probe_set.probes]})
    separate = ProbeRunner(probe_set, None, out / "separate.probes.jsonl")
    batched = ProbeRunner(probe_set, None, out / "batched.probes.jsonl", batched=True)
    game.add_listener(separate)
    game.add_listener(batched)
    game.play()
    r = compare_probe_logs(separate.records, batched.records)

    t = Table(title=f"{args.probes} probes on {args.model}: one call per probe vs one call per seat and step ({out})")
    t.add_column("")
    t.add_column("separate", justify="right")
    t.add_column("batched", justify="right")
    for key, label in (("calls", "calls"), ("tokens", "tokens"), ("latency_s", "model time (s)"), ("parse_rate", "parse rate")):
        fmt = (lambda v: f"{v:.1%}") if key == "parse_rate" else (lambda v: f"{v:,.0f}")
        t.add_row(label, fmt(r["a"][key] or 0), fmt(r["b"][key] or 0))
    Console().print(t)
    agree = Table(title="agreement of the batched answers with the separate ones (same seat, same step)")
    agree.add_column("figure")
    agree.add_column("value", justify="right")
    pct = lambda v: "–" if v is None else f"{v:.1%}"  # noqa: E731
    agree.add_row("role guess (same role named)", f"{pct(r['role_agreement'])} of {r['role_pairs']}")
    agree.add_row("mean |Δ confidence|", "–" if r["confidence_abs_diff"] is None else f"{r['confidence_abs_diff']:.1f}")
    agree.add_row("top suspect", f"{pct(r['top_suspect_agreement'])} of {r['suspicion_pairs']}")
    agree.add_row("suspicion L1 distance", "–" if r["suspicion_l1"] is None else f"{r['suspicion_l1']:.3f}")
    agree.add_row("social-map attitude", f"{pct(r['social_map_agreement'])} of {r['social_pairs']}")
    Console().print(agree)


if __name__ == "__main__":
    main()
