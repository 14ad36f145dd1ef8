"""Importers: real play logs → MOE instances (``vgm moe import SOURCE IN -o OUT.jsonl``).

Adding a dataset means adding one importer here: a function ``(source, **options) -> ImportReport``.
"""
from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipelines.records import MoeInstance
from rulesets import VgmError

from ..dataset import write_moe
from ._report import ImportReport
from .crd3 import Cast, ImportError_, find_requests, import_crd3, rolled_number
from .dicebot import import_dicebot
from .fireball import command_check, import_fireball
from .jsonl import import_jsonl, normalize_record

IMPORTERS: dict[str, Callable[..., ImportReport]] = {
    "crd3": import_crd3,
    "dicebot": import_dicebot,
    "fireball": import_fireball,
    "jsonl": import_jsonl,
    "tachikuma": import_jsonl,
}
SPLITS = ("train", "dev", "test")


def episode_of(instance: MoeInstance) -> str:
    """The episode/session an instance comes from (``source`` before '#'), so splits never cut one."""
    return (instance.source or instance.id).split("#")[0]


def split_by_episode(instances: list[MoeInstance], fractions: tuple[float, ...] = (0.8, 0.1, 0.1), seed: int = 0) -> dict[str, list[MoeInstance]]:
    """train/dev/test by whole episodes, shuffled with ``seed``; every part gets ≥1 episode when it can."""
    episodes = sorted({episode_of(i) for i in instances})
    random.Random(seed).shuffle(episodes)
    total = sum(fractions)
    counts = [int(round(len(episodes) * f / total)) for f in fractions]
    for k in range(len(counts)):
        if counts[k] == 0 and fractions[k] > 0 and len(episodes) > sum(1 for c in counts if c):
            counts[k] = 1
    counts[0] = max(0, len(episodes) - sum(counts[1:]))
    assign: dict[str, str] = {}
    start = 0
    for name, n in zip(SPLITS, counts):
        for episode in episodes[start:start + n]:
            assign[episode] = name
        start += n
    parts: dict[str, list[MoeInstance]] = {name: [] for name in SPLITS}
    for instance in instances:
        parts[assign.get(episode_of(instance), "train")].append(instance)
    return parts


def parse_split(text: str) -> tuple[float, ...]:
    """``"80/10/10"`` → (0.8, 0.1, 0.1)."""
    try:
        values = tuple(float(x) for x in text.replace(",", "/").split("/"))
    except ValueError:
        values = ()
    if len(values) != 3 or any(v < 0 for v in values) or sum(values) <= 0:
        raise VgmError(f"--split {text!r}: give three shares train/dev/test, e.g. 80/10/10")
    return values


def import_source(kind: str, source: str | Path, out: str | Path, *, split: str | None = None, seed: int = 0, **options: Any) -> tuple[ImportReport, dict[str, Path]]:
    """Run importer ``kind`` and write OUT (plus OUT.train/.dev/.test.jsonl with ``split``)."""
    if kind not in IMPORTERS:
        raise VgmError(f"unknown source {kind!r}; choose one of {', '.join(IMPORTERS)}")
    shares = parse_split(split) if split else None  # a bad --split stops before anything is written
    out = Path(out)
    if out.is_dir():
        raise VgmError(f"-o {out}: is a folder; give the .jsonl file to write")
    if not os.access(next((p for p in (out.parent, *out.parent.parents) if p.exists()), Path(".")), os.W_OK):
        raise VgmError(f"-o {out}: cannot write there; choose a folder you can write to")
    report = IMPORTERS[kind](source, **{k: v for k, v in options.items() if v is not None})
    if not report.instances:
        raise ImportError_(f"{source}: found {report.found} check requests but kept none; {dict(report.dropped) or 'nothing matched'}")
    written = {"all": out}
    write_moe(report.instances, out)
    if shares:
        for name, part in split_by_episode(report.instances, shares, seed).items():
            path = out.with_name(f"{out.stem}.{name}{out.suffix or '.jsonl'}")
            write_moe(part, path)
            written[name] = path
    return report, written


__all__ = [
    "IMPORTERS", "ImportReport", "Cast", "ImportError_", "import_crd3", "import_dicebot", "import_fireball", "import_jsonl", "import_source",
    "split_by_episode", "episode_of", "parse_split", "find_requests", "rolled_number", "command_check", "normalize_record",
]
