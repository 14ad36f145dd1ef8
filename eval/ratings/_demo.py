"""Small made-up MOE runs in the saved-run format, for demos, tests and the load benchmark.

They are written by hand here (no real data is copied) and follow the run-folder contract:
``run.json``, ``predictions.jsonl``, ``metrics.json`` and a data file with a ``reference``
(the GM's next line) per instance.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from eval.moe.report import write_metrics

_SCENES = [
    ("Jester", "I sneak up to the door and press my ear against it.", "stealth", "perception"),
    ("Caleb", "I try to remember if I've read anything about this rune.", "arcana", "history"),
    ("Fjord", "I grab the ledge before I fall!", "athletics", "acrobatics"),
    ("Beau", "Is he lying to us? I watch his hands while he talks.", "insight", "perception"),
    ("Nott", "I want to lift the key off his belt without him noticing.", "sleight_of_hand", "stealth"),
    ("Yasha", "I kick the barricade as hard as I can.", "strength", "athletics"),
    ("Caduceus", "I kneel by the wounded guard and look at the wound.", "medicine", "wisdom"),
    ("Jester", "I tell the guard we are definitely from the temple. Definitely.", "deception", "persuasion"),
]
_GM_LINES = {
    "good": "{who}, give me a {skill} check as you {verb}.",
    "plain": "Roll {skill}, {who}.",
    "human": "Alright {who}, go ahead and roll a {skill} check for me.",
}


def _instance(k: int) -> dict:
    who, action, skill, _ = _SCENES[k % len(_SCENES)]
    others = [s[0] for s in _SCENES if s[0] != who][:2]
    return {
        "id": f"demo-{k:04d}",
        "ruleset": "dnd5e",
        "context": [
            {"speaker": "GM", "text": f"Scene {k}: the tavern cellar is dark and smells of old wine."},
            {"speaker": others[0], "text": "I hold up the lantern."},
            {"speaker": others[1], "text": "Careful, something moved back there."},
            {"speaker": who, "text": action},
        ],
        "answers": [{"character": who, "skill": skill}],
        "characters": sorted({who, *others}),
        "source": f"demo:{k}",
        "reference": _GM_LINES["human"].format(who=who, skill=skill.replace("_", " ")),
    }


def write_demo_runs(folder: str | Path, n: int = 12, pipelines: tuple[str, ...] = ("tbs_gm", "template_gm"), seed: int = 0) -> list[Path]:
    """Write ``n`` instances to ``folder/data.jsonl`` and one run folder per pipeline; return the run paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data.jsonl"
    instances = [_instance(k) for k in range(n)]
    data.write_text("".join(json.dumps(i) + "\n" for i in instances), encoding="utf-8")
    rng = random.Random(seed)
    paths = []
    for p_idx, pipeline in enumerate(pipelines):
        run = folder / "runs" / pipeline
        run.mkdir(parents=True, exist_ok=True)
        (run / "run.json").write_text(json.dumps({"pipeline": pipeline, "model": "scripted:demo", "data": str(data)}), encoding="utf-8")
        lines = []
        for k, inst in enumerate(instances):
            who, _, skill, wrong = _SCENES[k % len(_SCENES)]
            right = p_idx == 0 or rng.random() < 0.5
            guess = skill if right else wrong
            style = "good" if p_idx == 0 else "plain"
            utterance = _GM_LINES[style].format(who=who, skill=guess.replace("_", " "), verb="try it")
            lines.append({
                "id": inst["id"], "ruleset": "dnd5e", "characters": inst["characters"], "prediction": [{"character": who, "skill": guess}], "utterance": utterance,
                "gold": inst["answers"], "steps": [], "usage": {"prompt_tokens": 400 + 30 * p_idx, "completion_tokens": 40, "calls": 3 - p_idx},
                "latency_s": round(1.0 + 0.5 * p_idx + rng.random(), 3), "parse_ok": True, "error": None,
            })
        (run / "predictions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        write_metrics(run, B=200)  # the real metrics.json, from the MOE report code
        paths.append(run)
    return paths
