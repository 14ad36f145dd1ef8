"""The narration of acts two ways on the same requests, interleaved so both see the same load.

    python bench/act_narration.py [-m local:small]

"open": the streamed narration from the scene and the verdict (the request carries no world);
"planned": the outcome planned from the world (gm/outcome.py), only worded by the model. Prints
each reply, its seconds, seconds to the first word shown and tokens, then the medians and the
load average. The response cache is off, so every call is a real model call.
"""
from __future__ import annotations

import argparse
import asyncio
import copy
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gm.agent import GameMaster  # noqa: E402
from gm.narration import narrate  # noqa: E402
from gm.table import TurnRecord  # noqa: E402
from pipelines.llm import get_model  # noqa: E402

# (scenario, character, line, decision, success, verdict): acts whose replies local:small got wrong
ACTS = [
    ("lantern_house", "Eddie", "I search the cottage for a key to the padlock.", "roll", False, "Eddie Kowalczyk's Locksmith roll: fumble."),
    ("lantern_house", "Eddie", "I pour myself a glass of water at the table.", "no_roll", None, ""),
    ("drowned_chapel", "Brisa", "I climb the bell-tower stair, testing each step.", "roll", False, "Brisa Tallowmere's Athletics roll: failure."),
    ("broken_bridge", "Pip", "I tip my hat to the goblins.", "roll", False, "Pip Quillon's Intimidation roll: failure."),
    ("copper_flats", "Dutch", "I watch Vane's hands while he deals.", "roll", False, "Dutch Calloway's Notice roll: failure."),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", default="local:small")
    args = parser.parse_args()
    model = get_model(args.model, cache=False)
    rows: list[tuple[str, float, float, int]] = []
    for scenario, who, line, decision, success, verdict in ACTS:
        gm = GameMaster(None, scenario, model, characters=[who], memory=False, seed=3)
        base = gm._narration_request(TurnRecord(player="", character=gm.sheets[0].name, text=line), decision, "")
        base.verdict, base.success = verdict, success
        for mode in ("open", "planned"):
            req = copy.copy(base)
            req.world = gm.world if mode == "planned" else None
            first: list[float] = []
            started = time.perf_counter()
            out = asyncio.run(narrate(model, req, on_token=lambda _d: first.append(time.perf_counter())))
            took = time.perf_counter() - started
            shown = (first[0] - started) if first else took
            tokens = getattr(out.usage, "completion_tokens", 0) or 0
            rows.append((mode, took, shown, tokens))
            print(f"{mode:8} {took:5.1f} s  first {shown:5.1f} s  {tokens:3} tokens | {out.text}", flush=True)
        gm.close()
    for mode in ("open", "planned"):
        mine = [r for r in rows if r[0] == mode]
        print(f"{mode:8} p50 {statistics.median(r[1] for r in mine):.1f} s, first words p50 {statistics.median(r[2] for r in mine):.1f} s, "
              f"tokens p50 {statistics.median(r[3] for r in mine):.0f}")
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()
