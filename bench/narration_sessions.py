"""How often the GM's words need help in a real session, on the local models (issue: the GM turn).

    python bench/narration_sessions.py                          # local:small, four shipped scenarios
    python bench/narration_sessions.py --models local:small local --show

Six turns on each of four shipped scenarios (D&D, CoC, PF2e, Savage Worlds), one session per
scenario, as a table plays. The single-line case sets (`vgm play eval`) cannot show what goes
wrong over a session: the small model picking up its own earlier words. Per model it prints how
many turns needed a second narration call, how many fell back to the plain sentence, how many
sentences the guards cut, and the share of narrated words (three letters or more, any form) that
the scene, its opening, its secrets or the line holds: a rough measure of invention, not of
quality. The model samples at 0.3, so the counts move a little between runs.
"""
from __future__ import annotations

import json
import os
import re
import statistics
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from play_turn import LINES  # noqa: E402  (D&D and CoC lines, shared with the speed bench)

SESSIONS = {
    **LINES,
    ("pf2e", "broken_bridge"): [
        ("Keth", "I look over the goblins' gate and see what holds it up"),
        ("Pip", "Is the sleepy goblin really asleep?"),
        ("Marisol", "I greet the chief politely and ask what the toll is for"),
        ("Pip", "I toss Snik a strip of dried meat"),
        ("Keth", "I jump from the bank clear across the river to the far side"),
        ("Marisol", "I tell Nettlejaw a riddle: what has roots nobody sees?"),
    ],
    ("swade", "copper_flats"): [
        ("Dutch", "I walk up to the bar and order a whiskey"),
        ("Lottie", "I sit down at Vane's table and buy into the game"),
        ("Hosea", "I watch Vane's hands while he deals"),
        ("Dutch", "What's the sheriff drinking?"),
        ("Lottie", "I slip out back and listen at the assay office wall"),
        ("Hosea", "I lift the whole saloon off its foundations"),
    ],
}


def _words(text: str) -> set[str]:
    from lemminflect import getAllLemmas

    out = set()
    for word in re.findall(r"[a-z]{3,}", text.lower()):
        out |= {word, *(lemma for lemmas in getAllLemmas(word).values() for lemma in lemmas)}
    return out


def bench_model(spec: str, show: bool) -> dict:
    import gm.narration as narration
    from pipelines.llm import get_model

    calls = {"n": 0}
    streamed = narration.stream_complete

    async def counted(*args, **kwargs):  # each narration call of the turn, a retry included
        calls["n"] += 1
        return await streamed(*args, **kwargs)

    narration.stream_complete = counted
    try:
        return _play(get_model(spec, cache=False), spec, calls, show)
    finally:
        narration.stream_complete = streamed


def _play(model, spec: str, calls: dict, show: bool) -> dict:
    """Each scenario's six turns on one GM; ``calls`` counts the narration calls of the turn."""
    from gm.agent import GameMaster

    turns = retried = fell_back = cuts = 0
    grounded: list[float] = []
    for (pack, scenario), lines in SESSIONS.items():
        gm = GameMaster(pack, scenario, model, memory="minilm", seed=1)
        given_scene = " ".join([gm.scenario.scene, gm.scenario.opening, *(s.text for s in gm.scenario.secrets)])
        for player, text in lines:
            calls["n"] = 0
            reply = gm.step(player, text)
            turns += 1
            retried += calls["n"] > 1
            fell_back += any("fell back" in n for n in reply.notes)
            cuts += sum(n.startswith("narration: cut") for n in reply.notes)
            said = re.findall(r"[a-z]{3,}", reply.narration.lower())
            given = _words(given_scene + " " + text)
            grounded.append(sum(bool(_words(w) & given) for w in said) / max(1, len(said)))
            if show:
                print(f"[{scenario}] {player}: {text}\n  GM: {reply.narration}\n  notes: {reply.notes}")
        gm.close()
    return {"model": spec, "turns": turns, "retried": retried, "fell_back": fell_back, "cut_sentences": cuts,
            "grounded_share": round(statistics.mean(grounded), 3)}


def main(models: list[str] = typer.Option(["local:small"], "--models"), show: bool = typer.Option(False, "--show"),
         as_json: bool = typer.Option(False, "--json")) -> None:
    os.environ.setdefault("VGM_NO_CACHE", "1")
    rows = [bench_model(spec, show) for spec in models]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    table = Table(title=f"GM narration over sessions (load average {load}, {os.cpu_count()} cores)")
    for column in ("model", "turns", "retried", "fell back", "cut sentences", "grounded share"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for r in rows:
        table.add_row(r["model"], str(r["turns"]), str(r["retried"]), str(r["fell_back"]), str(r["cut_sentences"]), f"{r['grounded_share']:.2f}")
    Console().print(table)


if __name__ == "__main__":
    typer.run(main)
