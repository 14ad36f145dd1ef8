"""Which impossible-act kinds earn their place: where each fires on real lines and on the written sets.

For every kind of ``pipelines/decide/impossible_kinds.yaml`` (a refusal's ``.kind``):

- **real**: how often it refuses a player turn of the 30 Critical Role episodes (56k lines, the
  DM's last words as the scene). Real players almost never try the impossible, so each firing
  is a false refusal unless read and found otherwise (``--show`` prints them).
- **right / wrong**: over the read case sets in ``eval/play/cases/`` (never the blind ones),
  impossible cases it refused, and possible cases it refused.

The old rules' figures (``--module pipelines.impossible_acts``, while that module existed) are
saved to ``/tmp/vgm/old_impossible.json`` and printed beside the new totals.

    python bench/impossible_rules.py [--show KIND] [--module pipelines.decide.impossible] [--save-old]
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import rulesets  # noqa: E402
from eval.play import load_cases  # noqa: E402
from eval.play.real import real_turns  # noqa: E402
from gm.characters import find_character, ready_characters  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BLIND = {"blind40.yaml", "imp6.yaml"}  # blind test sets: never read, never scored here
CRD3 = "/work/shared/data/crd3"
OLD = Path("/tmp/vgm/old_impossible.json")
NO_MAGIC_CR = {"Beau", "Yasha"}  # Critical Role campaign 2's monk and barbarian cast no spells


def judge(module, line: str, scene: str, actor: str | None, without_magic: bool, blind: bool, era: dict) -> str | None:
    """The refusal the module gives, the way ``adjudicate`` asks it."""
    return (module.impossible_act(line) or module.impossible_in_scene(line, scene, actor, blind)
            or module.impossible_without_magic(line, actor, [actor] if without_magic else [])
            or module.impossible_in_era(line, scene, era.get("year"), era.get("name", "")))


def kind_of(why: str) -> str:
    return getattr(why, "kind", None) or why.split(":")[0][:40]


def case_rows() -> list[tuple[str, str, str, str | None, bool, bool, dict, bool]]:
    """(set, id, line, scene, actor, without_magic, blind_in_dark, era, impossible) for every read case."""
    rows = []
    for path in sorted((ROOT / "eval/play/cases").glob("*.yaml")):
        if path.name in BLIND:
            continue
        for case in load_cases(path):
            pack = rulesets.load(case.ruleset)
            scenario = case.to_scenario()
            ready = ready_characters(pack)
            names = [case.character] if case.character else list(scenario.characters or [])[:1]
            sheet = find_character(names[0], ready) if names else (ready[0] if ready else None)
            era = (getattr(pack, "rules", None) or {}).get("era") or {}
            rows.append((path.stem, case.id, case.line, scenario.public_scene(set()), sheet.name if sheet else None,
                         bool(sheet) and not sheet.works_magic(pack), bool(sheet) and not sheet.sees_in_dark(pack), era,
                         case.expect.impossible))
    return rows


def measure(module) -> dict:
    """Per kind: real-line firings, right and wrong refusals on the read sets; and the lines."""
    era = rulesets.load("dnd5e").rules.get("era") or {}
    real, right, wrong, shown = Counter(), Counter(), Counter(), defaultdict(list)
    turns = list(real_turns(CRD3))
    for t in turns:
        if why := judge(module, t.line, t.scene, t.speaker, t.speaker in NO_MAGIC_CR, False, era):
            real[kind_of(why)] += 1
            shown[kind_of(why)].append(f"REAL {t.episode}#{t.number} {t.speaker}: {t.line[:160]!r} -> {why} | scene: {t.scene[-160:]!r}")
    cases = case_rows()
    for set_name, case_id, line, scene, actor, no_magic, blind, case_era, impossible in cases:
        if why := judge(module, line, scene, actor, no_magic, blind, case_era):
            (right if impossible else wrong)[kind_of(why)] += 1
            if not impossible:
                shown[kind_of(why)].append(f"WRONG {set_name}/{case_id}: {line[:160]!r} -> {why}")
    return {"turns": len(turns), "cases": len(cases), "impossible_cases": sum(r[-1] for r in cases),
            "real": dict(real), "right": dict(right), "wrong": dict(wrong), "shown": dict(shown)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", default="pipelines.decide.impossible")
    parser.add_argument("--show", default="", help="print the lines a kind refused ('all' for every kind)")
    parser.add_argument("--save-old", action="store_true", help=f"save this module's figures to {OLD} as the old rules'")
    args = parser.parse_args()
    found = measure(importlib.import_module(args.module))
    if args.save_old:
        OLD.parent.mkdir(parents=True, exist_ok=True)
        OLD.write_text(json.dumps(found, indent=1))
    table = Table(title=f"{args.module}: {found['turns']} real turns, {found['cases']} read cases "
                        f"({found['impossible_cases']} impossible)")
    for col in ("kind", "real fired", "sets right", "sets wrong"):
        table.add_column(col, justify="left" if col == "kind" else "right")
    kinds = sorted(set(found["real"]) | set(found["right"]) | set(found["wrong"]))
    for kind in kinds:
        table.add_row(kind, *(str(found[k].get(kind, 0)) for k in ("real", "right", "wrong")))
    total = {k: sum(found[k].values()) for k in ("real", "right", "wrong")}
    table.add_row("[b]total[/]", *(f"[b]{total[k]}[/]" for k in ("real", "right", "wrong")))
    if OLD.exists() and not args.save_old:
        old = json.loads(OLD.read_text())
        table.add_row("[dim]old rules[/]", *(f"[dim]{sum(old[k].values())}[/]" for k in ("real", "right", "wrong")))
    console = Console()
    console.print(table)
    console.print(f"real false-refusal share: {total['real'] / found['turns']:.3%} of turns (target <= 0.2%)")
    for kind, lines in sorted(found["shown"].items()):
        if args.show in ("all", kind):
            for text in lines:
                print(text)


if __name__ == "__main__":
    main()
