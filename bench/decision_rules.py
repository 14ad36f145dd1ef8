"""What each decision rule earns: a row per rule for docs/play.md.

    python bench/decision_rules.py [CRD3_DIR] [--turns 3000] [--sets dev]

- **Real lines**: the ``adjudicate`` pipeline on the first ``--turns`` player turns of the held-out
  CRD3 episodes (bench/real_split.yaml ``test``); for every rule that fires, whether the change it
  made agrees with the human DM (a roll taken away where the DM called none, a roll added where
  he called one, a check changed to one he asked for, a refusal: never right on these tables).
- **Written sets it was not written from**: the sets whose role is ``dev`` (read in development,
  not copied into packs; never ``test`` sets), played with a scripted narrator; for each firing,
  whether the decision before the rule or after it matches the case (fixed / broke). The gain is
  first order: each rule is judged by the decision it was handed, not by a re-run without it.

Prints one table; nothing is timed (speed lives in bench/play_turn.py and bench/real_play.py).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import rulesets  # noqa: E402
from eval.play import CASES_DIR, load_cases, read_decisions, run_cases, set_role, summarize  # noqa: E402
from eval.play.learn import read_split  # noqa: E402
from eval.play.real import real_turns  # noqa: E402
from pipelines.decide import RULES  # noqa: E402
from pipelines.pipeline import load_pipeline  # noqa: E402
from pipelines.records import MoeInstance, Turn  # noqa: E402

NOTE = re.compile(r"^(?P<rule>[a-z_]+): .* \((?P<before>[^()]*) -> (?P<after>[^()]*)\)$")
DECISIONS = ("no_roll", "impossible")


def real_firings(source: Path, limit: int) -> dict[str, list[int]]:
    """rule -> [fired, right] on held-out real lines."""
    pack, pipe = rulesets.load("dnd5e"), load_pipeline("adjudicate")
    turns = list(real_turns(source, episodes=set(read_split()["test"])))[:limit]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])

    async def run() -> None:
        for t in turns:
            context = [Turn(speaker="GM", text=t.scene or "(not described)")]
            if t.previous_speaker != "GM" and t.previous:
                context.append(Turn(speaker=t.previous_speaker, text=t.previous))
            context.append(Turn(speaker=t.speaker, text=t.line))
            instance = MoeInstance(id="x", ruleset="dnd5e", context=context, characters=[t.speaker])
            result = await pipe.run(instance, None, pack=pack, scene=t.scene)
            for fired in (result.steps[0].parsed or {}).get("fired", []):
                before, after = fired["from"], fired["to"]
                right = (after == "no_roll" and not t.positive) or (before in DECISIONS and after not in DECISIONS and t.positive) \
                    or (before not in DECISIONS and after not in DECISIONS and after in t.skills)
                counts[fired["rule"]][0] += 1
                counts[fired["rule"]][1] += bool(right)

    asyncio.run(run())
    return counts


def _right(decision: str, case) -> bool:
    if case.expect.impossible:
        return decision == "impossible"
    if decision in DECISIONS:
        return decision == "no_roll" and not case.expect.roll
    return bool(case.expect.roll) and (not case.expect.checks or decision in case.expect.checks)


def written_gains(role: str) -> tuple[dict[str, list[int]], int, dict[str, float]]:
    """rule -> [fired, fixed, broke] over the sets of ``role``; the number of cases; and the
    whole decision's scores over them (``eval.play`` summary, pooled)."""
    script = Path(tempfile.mkdtemp()) / "narrator.yaml"
    script.write_text('default: ["They look around."]\nrepeat_last: true\n', encoding="utf-8")
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    total, records, every = 0, [], []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        if set_role(path) != role:
            continue
        cases = {c.id: c for c in load_cases(path)}
        total += len(cases)
        folder = Path(tempfile.mkdtemp()) / path.stem
        run_cases(list(cases.values()), f"scripted:{script}", folder)
        every += list(cases.values())
        for record in read_decisions(folder / "decisions.jsonl"):
            records.append(record)
            for note in record.get("notes", []):
                hit = NOTE.match(note)
                if not hit or hit["rule"] not in RULES:
                    continue
                case = cases[record["id"]]
                before, after = _right(hit["before"], case), _right(hit["after"], case)
                counts[hit["rule"]][0] += 1
                counts[hit["rule"]][1] += after and not before
                counts[hit["rule"]][2] += before and not after
    pooled = summarize(every, records)
    scores = {"balanced roll": pooled.balanced_roll_accuracy, "right check": pooled.right_check,
              "impossible refused": pooled.impossible_refused, "impossible rolled and succeeded": pooled.impossible_succeeded,
              "impossible told as done without dice": pooled.impossible_told, "impossible cases": pooled.impossible_n}
    return counts, total, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crd3", nargs="?", default=str(ROOT.parent / "shared" / "data" / "crd3"))
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--sets", default="dev", choices=("dev", "train"))
    args = parser.parse_args()
    real = real_firings(Path(args.crd3), args.turns)
    written, cases, scores = written_gains(args.sets)
    table = Table(title=f"decision rules: {args.turns} held-out real turns, {cases} written '{args.sets}' cases "
                        f"(load {os.getloadavg()[0]:.1f})")
    for col in ("rule", "stage", "real: fired", "real: right", "written: fired", "fixed", "broke"):
        table.add_column(col, justify="left" if col in ("rule", "stage") else "right")
    for rule_id in load_pipeline("adjudicate").spec.steps[0].args["rules"]:
        r, w = real.get(rule_id, [0, 0]), written.get(rule_id, [0, 0, 0])
        table.add_row(rule_id, RULES[rule_id].stage, str(r[0]), str(r[1]), str(w[0]), str(w[1]), str(w[2]))
    console = Console(width=140)
    console.print(table)
    console.print("written sets, the whole decision: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in scores.items()))


if __name__ == "__main__":
    main()
