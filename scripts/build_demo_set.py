"""Build the demo's MOE data from CRD3 episodes: real check requests, scored by `make demo`.

    python scripts/build_demo_set.py [../shared/data/crd3] [-o eval/moe/data/crd3_demo]

Writes, beside the CRD3 licence (CC BY-SA 4.0) and an attribution NOTICE:

- ``demo.jsonl``: the instances the demo scores (15 turns of context: a model's prompt stays short), from a few episodes of the *training* split in
  ``bench/real_split.yaml`` (never the held-out ones, which ``vgm play real`` reports on). They are
  interleaved episode by episode, so ``--limit N`` takes a spread of episodes, not one evening.
- ``train.jsonl``: instances from the split's other training episodes, with the 8 turns the knn
  baseline reads, for the baselines to learn from (``--train``). Being other episodes, a scored
  instance never meets a neighbour that shares its evening (leave-one-out on one file would).

Every instance comes from the project's CRD3 importer (``vgm moe import crd3``); no transcript is
copied whole, only each request's context window. Rerun this after changing the importer.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from itertools import zip_longest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval.moe.dataset import load_moe, write_moe  # noqa: E402
from eval.moe.importers import import_crd3  # noqa: E402
from pipelines.records import MoeInstance  # noqa: E402
from rulesets import VgmError, read_yaml  # noqa: E402

SPLIT = ROOT / "bench" / "real_split.yaml"
OUT = ROOT / "eval" / "moe" / "data" / "crd3_demo"
# Three training-split evenings far apart in the campaign: Midnight Espionage (2x12), Stalker in the Swamp (2x21),
# Found & Lost (2x26, a table without Mollymauk).
DEMO_EPISODES = ("C2E012", "C2E021", "C2E026")
DEMO_CONTEXT = 15  # turns before each request: who acts next is in the last few; half the importer's 30 halves a model's prompt
TRAIN_CONTEXT = 8  # what the knn baseline compares (pipelines.statistic.context_text)
MINIMUM = 60

NOTICE = """\
CRD3 demo set for virtual-gm's MOE comparison (`make demo`)
============================================================

Files: {demo} ({n_demo} instances from {demo_eps}, {demo_context} turns of context each) and
{train} ({n_train} instances from {n_train_eps} other episodes, {train_context} turns of context each,
for the baselines to learn from).

Built by scripts/build_demo_set.py with the project's CRD3 importer (`vgm moe import crd3`):
each instance is one moment the Dungeon Master asked for a check, with the turns before it
as context and the characters who rolled as the answer.

Source: CRD3, "Storytelling with Dialogue: A Critical Role Dungeons and Dragons Dataset",
Revanth Rameshkumar and Peter Bailey, ACL 2020 (https://github.com/RevanthRameshkumar/CRD3),
transcripts of Critical Role campaign 2 by Critical Role and the fans who transcribed it
(episodes used: {all_eps}). Licensed under the Creative Commons Attribution-ShareAlike 4.0
International licence (CC BY-SA 4.0); the full text is in LICENSE beside this file.

Changes: the transcripts were cut into context windows ending before each check request,
speakers were mapped from players to their characters, and the requested checks were
turned into labels (eval/moe/importers/crd3.py). This derived data is shared under the same
licence, CC BY-SA 4.0. No endorsement by the authors or by Critical Role is implied.
"""


def read_split(path: Path = SPLIT) -> tuple[list[str], list[str]]:
    """The ``train`` and ``test`` episode lists of a split file."""
    data = read_yaml(path, what="split file") or {}
    if not isinstance(data, dict) or not isinstance(data.get("train"), list):
        raise VgmError(f"{path}: needs 'train' and 'test' lists of episode names")
    return [str(e) for e in data["train"]], [str(e) for e in data.get("test") or []]


def _episode(crd3: Path, name: str, *, context: int) -> list[MoeInstance]:
    path = crd3 / f"{name}.json"
    if not path.is_file():
        raise VgmError(f"{path}: episode not found; give the CRD3 folder (../shared/data/crd3)")
    return import_crd3(path, context=context).instances


def interleave(groups: list[list[MoeInstance]]) -> list[MoeInstance]:
    """One from each episode in turn, so the first N instances cover every episode."""
    return [i for row in zip_longest(*groups) for i in row if i is not None]


def build(crd3: Path, out: Path, *, split: Path = SPLIT, demo: tuple[str, ...] = DEMO_EPISODES,
          minimum: int = MINIMUM) -> dict[str, int]:
    """Import the demo and training episodes, write both files, the LICENSE and the NOTICE.

    Returns the instance counts; raises when a demo episode is held out or too few instances came.
    """
    train_eps, test_eps = read_split(split)
    bad = [e for e in demo if e in test_eps or e not in train_eps]
    if bad:
        raise VgmError(f"demo episodes {', '.join(bad)} are not in the training split of {split}; pick training episodes")
    scored = interleave([_episode(crd3, e, context=DEMO_CONTEXT) for e in demo])
    if len(scored) < minimum:
        raise VgmError(f"only {len(scored)} instances from {', '.join(demo)}; the demo needs at least {minimum}: add an episode")
    others = [e for e in train_eps if e not in demo]
    learn = [i.model_copy(update={"gm_reply": None}) for e in others for i in _episode(crd3, e, context=TRAIN_CONTEXT)]
    out.mkdir(parents=True, exist_ok=True)
    write_moe(scored, out / "demo.jsonl")
    write_moe(learn, out / "train.jsonl")
    for name in ("demo.jsonl", "train.jsonl"):
        load_moe(out / name)  # what the demo will read must load cleanly
    licence = crd3 / "LICENSE"
    if licence.is_file():
        shutil.copyfile(licence, out / "LICENSE")
    elif not (out / "LICENSE").is_file():
        raise VgmError(f"{licence}: the CRD3 licence file is missing; the data cannot ship without it")
    (out / "NOTICE").write_text(NOTICE.format(
        demo="demo.jsonl", train="train.jsonl", n_demo=len(scored), demo_context=DEMO_CONTEXT, train_context=TRAIN_CONTEXT, n_train=len(learn), demo_eps=", ".join(demo),
        n_train_eps=len(others), all_eps=textwrap.fill(", ".join(sorted({*demo, *others})), 90, subsequent_indent="  ")),
        encoding="utf-8")
    return {"demo": len(scored), "train": len(learn)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crd3", nargs="?", default=str(ROOT.parent / "shared" / "data" / "crd3"), help="the CRD3 episode folder")
    parser.add_argument("-o", "--out", default=str(OUT), help="folder to write (default: %(default)s)")
    args = parser.parse_args()
    try:
        counts = build(Path(args.crd3), Path(args.out))
    except VgmError as exc:
        sys.exit(f"error: {exc}")
    print(f"wrote {args.out}: demo.jsonl {counts['demo']} instances, train.jsonl {counts['train']} instances, LICENSE, NOTICE")


if __name__ == "__main__":
    main()
