"""The demo's last part: three turns at a shipped table on the embedded model, as a player sees them.

    python scripts/demo_play.py [-m local:small] [-o runs/demo/play]

The three lines are fixed (a question to an NPC, an act that needs a check, a trivial act) and so
is the dice seed; the GM is the one ``vgm play`` runs (``gm.agent.GameMaster``), its replies are
printed as the terminal shows them, each with its turn time. The session is saved, so it can be
continued with ``vgm play --resume``. The script ends with the commands to go further.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.markup import escape  # noqa: E402

from rulesets import VgmError  # noqa: E402

SCENARIO = "drowned_chapel"
CHARACTER = "Brisa Tallowmere"
TURNS = [  # (what the player types, what kind of line it is)
    ("Maren, when did the bell first ring by itself?", "a question to an NPC"),
    ("I wade over to the altar and run my hands under its lip, feeling for a catch.", "an act that needs a check"),
    ("I sit on a dry step and wring out my socks.", "a trivial act"),
]
SEED = 11
DEMO_DATA = "eval/moe/data/crd3_demo/demo.jsonl"


def next_steps(model: str, session: str | None = None) -> list[tuple[str, list[str]]]:
    """What to try after the demo: (what it is, the commands), every flag one the command takes."""
    play = [f"vgm play --scenario {SCENARIO} --model {model}"]
    if session:
        play.append(f"vgm play --resume {session}")
    return [
        ("a real session (type what your character does; /help lists the commands)", play),
        ("a rating study (GM lines from two pipelines and the real GM, rated blind in the browser; the first command runs the model, so give it time)", [
            f"vgm moe compare --data {DEMO_DATA} --pipelines template_gm,nomoe_gm --limit 20 --model {model} -o runs/study",
            "vgm rate create --from runs/study/template_gm runs/study/nomoe_gm --include-human --n 20 --raters alice,bob -o runs/study.db",
            "vgm ui --study runs/study.db",
        ]),
        ("a social game (Mafia with LLM seats; the GM moderates)", [
            f"vgm mafia simulate --games 1 --seats llm --model {model} -o runs/mafia",
        ]),
    ]


def play(model_name: str, out: Path, console: Console) -> Path:
    """Play the three turns and print them; returns the saved session file."""
    from gm.agent import GameMaster
    from pipelines.llm import get_model
    from pipelines.llm.cache import cache_dir

    first_time = not (cache_dir() / "vectors.sqlite").is_file()  # the GM embeds the packs' example lines once, then reads them back
    started = time.perf_counter()
    model = get_model(model_name)
    gm = GameMaster(None, SCENARIO, model, characters=[CHARACTER], memory=False, seed=SEED, session_path=out)
    try:
        name = gm.sheets[0].names()[-1]
        console.print(f"[bold]{escape(gm.scenario.title)}[/] ({escape(gm.ruleset.title)}), model {model_name}, "
                      f"you play {escape(gm.sheets[0].name)}; table set in {time.perf_counter() - started:.1f} s")
        for turn in gm.session.log[:1]:
            console.print(f"[bold]GM:[/] {escape(turn.text)}")
        times = []
        for number, (line, kind) in enumerate(TURNS, 1):
            console.print()
            console.print(f"[bold]{escape(name)}>[/] {escape(line)}")
            turn_started = time.perf_counter()
            reply = gm.step("", line)
            times.append(time.perf_counter() - turn_started)
            for shown in reply.as_text().splitlines():
                tag, _, rest = shown.partition(" ")
                if shown.startswith("GM: "):
                    console.print(f"[bold]GM:[/] {escape(shown[4:])}")
                else:
                    console.print(f"[cyan]{escape(tag)}[/] {escape(rest)}")
            once = "; the first turn on this machine also embeds the rule packs' example lines, once" if first_time and number == 1 else ""
            console.print(f"[dim](turn {number}, {kind}: {times[-1]:.1f} s{once})[/]")
        path = gm.save()
    finally:
        gm.close()
    console.print()
    console.print(f"Three turns in {sum(times):.1f} s (slowest {max(times):.1f} s) on {model_name}, "
                  f"load average {os.getloadavg()[0]:.1f}; the session is saved in {path}.", highlight=False)
    return Path(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", default="local:small")
    parser.add_argument("-o", "--out", default="runs/demo/play", help="folder for the session file")
    args = parser.parse_args()
    console = Console(highlight=False)
    try:
        session = play(args.model, Path(args.out), console)
    except VgmError as exc:
        sys.exit(f"error: {exc}")
    console.print()
    console.print("[bold]Next[/]")
    for what, commands in next_steps(args.model, str(session)):
        console.print(f"  {what}:")
        for command in commands:
            console.print(f"    {command}", soft_wrap=True)


if __name__ == "__main__":
    main()
