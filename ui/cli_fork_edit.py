"""``vgm mafia fork GAME --at N --edit FILE.yaml [--compare] [--repeats R]``: thin over ``eval.beliefs``."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

console = Console()


def _pct(x: Optional[float]) -> str:
    return "–" if x is None else f"{x:.0%}"


def _arm(a: dict[str, Any]) -> str:
    ci = a.get("ci95")
    text = f"{a['k']}/{a['n']} {_pct(a['rate'])}" + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")
    if a.get("spread"):
        text += f" ±{a['spread']['sd']:.0%}"
    return text


def print_arms(report: dict[str, Any], labels: tuple[str, str]) -> None:
    """Outcome tables (each arm, the difference with its CI, Fisher's p) and the belief shifts."""
    first, second = labels
    head = f"[bold]{report['arms'][first]['n']} + {report['arms'][second]['n']} forks of {report['parent']} at R{report['at'][0]}.{report['at'][1]}[/bold]"
    if report.get("repeats", 1) > 1:
        head += f" ({report['repeats']} runs of {report['n']} per arm)"
    console.print(head)
    for e in report.get("edits", []):
        what = {k: v for k, v in e.items() if k not in ("kind", "original")}
        console.print(f"  edit {e['kind']}: {what}" + (f" (was: {e['original']!r})" if "original" in e else ""))
    for field, title in (("winner", "winner"), ("first_elimination", "first elimination after the fork")):
        t = Table(title=title)
        for c in ("outcome", f"{first} [95% CI]", f"{second} [95% CI]", f"{first} − {second} [95% CI]", "Fisher p"):
            t.add_column(c, justify="left" if c == "outcome" else "right")
        for row in report["comparison"][field]:
            d, ci = row["difference"], row["difference_ci95"]
            diff = f"{d:+.0%}" + (f" [{ci[0]:+.0%}, {ci[1]:+.0%}]" if ci else "") if d is not None else "–"
            t.add_row(row["outcome"], _arm(row[first]), _arm(row[second]), diff, f"{row['fisher_p']:.3f}" if row["fisher_p"] is not None else "–")
        console.print(t)
    shifts = report.get("belief_shift")
    if shifts:
        t = Table(title="belief shift: mean suspicion (0-100) in the branch round")
        for c in ("player", first, second, "difference [95% CI]", "Welch p"):
            t.add_column(c, justify="left" if c == "player" else "right")
        for r in shifts:
            ci = r["difference_ci95"]
            mean = lambda a: "–" if a["mean"] is None else f"{a['mean']:.1f} (n={a['n']})"  # noqa: E731
            diff = "–" if r["difference"] is None else f"{r['difference']:+.1f}" + (f" [{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else "")
            t.add_row(r["player"], mean(r[first]), mean(r[second]), diff, f"{r['welch_p']:.3f}" if r["welch_p"] is not None else "–")
        console.print(t)
    elif "belief_shift" in report:
        console.print("belief shift: no probe answers in the forks (run with --probes cheap to measure it)")
    console.print(report["note"])


def run_fork(log: Path, at: str, n: int, edit: Optional[Path], compare: bool, repeats: int, probes: Optional[str],
             model: Optional[str], out: Optional[Path], seed: int, as_json: bool) -> None:
    """An edited fork (alone, or ``--compare``d with the unedited one), or PRE/POST with ``--repeats``."""
    from eval.beliefs import arms_compare, edit_fork_compare, fork_game, load_edits
    from gm.social.events import parse_key
    from rulesets import VgmError

    if repeats < 1:
        raise VgmError(f"--repeats {repeats}: give 1 or more runs of --n forks")
    kwargs = {"out_dir": out, "probes": probes, "model": model, "seed": seed}
    if edit is None:
        report = asyncio.run(arms_compare(log, parse_key(at), n, repeats=repeats, **kwargs))
        labels = ("post", "pre")
    else:
        edits = load_edits(edit)
        if not compare:
            report = asyncio.run(fork_game(log, parse_key(at), n * repeats, edits=edits, edits_file=edit, **kwargs))
            if as_json:
                typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
                return
            console.print(f"[bold]{report['n']} edited forks of {report['parent']} at R{report['at'][0]}.{report['at'][1]}[/bold]")
            for f in report["forks"]:
                console.print(f"  {f['game_id']}: {f['winner']} after {f['rounds']} rounds, first out {f['first_elimination']} → {f['log']}")
            return
        report = asyncio.run(edit_fork_compare(log, parse_key(at), edits, n, repeats=repeats, edits_file=edit, **kwargs))
        labels = ("edited", "unedited")
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        print_arms(report, labels)
