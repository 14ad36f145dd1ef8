"""The demo's real data: scripts/build_demo_set.py turns CRD3 episodes into the MOE files `make demo` scores.

Small episodes written here stand in for ../shared/data/crd3 (tests never read the shared data).
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from eval.moe.dataset import load_moe
from rulesets import VgmError

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "eval" / "moe" / "data" / "crd3_demo"


def _builder():
    spec = importlib.util.spec_from_file_location("build_demo_set", REPO / "scripts" / "build_demo_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REQUESTS = [  # (player, character, what the DM asks for)
    ("SAM", "Nott", "Nott, make a stealth check."),
    ("LAURA", "Jester", "Jester, go ahead and make a perception check."),
    ("LIAM", "Caleb", "Caleb, give me an investigation check."),
]


def _episode(path: Path, requests: int) -> None:
    turns = [{"NAMES": ["MATT"], "UTTERANCES": ["The road winds into the marsh; the fog is thick."]},
             {"NAMES": ["TRAVIS"], "UTTERANCES": ["We keep our weapons out."]},
             {"NAMES": ["MARISHA"], "UTTERANCES": ["I walk at the back."]},
             {"NAMES": ["ASHLEY"], "UTTERANCES": ["Same."]}]
    for k in range(requests):
        player, _, ask = REQUESTS[k % len(REQUESTS)]
        turns += [{"NAMES": [player], "UTTERANCES": [f"I try something, take {k}."]},
                  {"NAMES": ["MATT"], "UTTERANCES": [f"Okay. {ask}"]},
                  {"NAMES": [player], "UTTERANCES": [str(5 + k % 15) + "."]},
                  {"NAMES": ["MATT"], "UTTERANCES": ["You manage it, more or less."]}]
    path.write_text(json.dumps({"METADATA": {}, "TURNS": [{**t, "NUMBER": n} for n, t in enumerate(turns)]}), encoding="utf-8")


@pytest.fixture
def crd3(tmp_path):
    folder = tmp_path / "crd3"
    folder.mkdir()
    for name, requests in (("C2E001", 35), ("C2E002", 35), ("C2E003", 12), ("C2E004", 12), ("C2E005", 12)):
        _episode(folder / f"{name}.json", requests)
    (folder / "LICENSE").write_text("Attribution-ShareAlike 4.0 International\n", encoding="utf-8")
    split = tmp_path / "split.yaml"
    split.write_text("train: [C2E001, C2E002, C2E003, C2E004]\ntest: [C2E005]\n", encoding="utf-8")
    return folder, split


def test_the_builder_makes_at_least_60_valid_instances_from_training_episodes(crd3, tmp_path):
    folder, split = crd3
    out = tmp_path / "demo"
    counts = _builder().build(folder, out, split=split, demo=("C2E001", "C2E002"))

    scored = load_moe(out / "demo.jsonl")
    learned = load_moe(out / "train.jsonl")
    assert counts == {"demo": len(scored), "train": len(learned)} and len(scored) >= 60
    assert {i.source.split("#")[0] for i in scored} == {"crd3:C2E001", "crd3:C2E002"}
    assert {i.source.split("#")[0] for i in learned} == {"crd3:C2E003", "crd3:C2E004"}, "the other training episodes; never the held-out C2E005"
    assert {(a.character, a.skill) for i in scored for a in i.answers} == {("Nott", "stealth"), ("Jester", "perception"), ("Caleb", "investigation")}
    assert [i.source.split("#")[0] for i in scored[:2]] == ["crd3:C2E001", "crd3:C2E002"], "episodes interleaved, so --limit N spans them"
    assert all(len(i.context) <= 8 and i.gm_reply is None for i in learned)


def test_the_data_ships_with_its_licence_and_an_attribution(crd3, tmp_path):
    folder, split = crd3
    out = tmp_path / "demo"
    _builder().build(folder, out, split=split, demo=("C2E001", "C2E002"))
    assert (out / "LICENSE").read_text(encoding="utf-8").startswith("Attribution-ShareAlike 4.0")
    notice = (out / "NOTICE").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in notice and "Rameshkumar" in notice and "Critical Role" in notice


def test_a_held_out_episode_is_refused(crd3, tmp_path):
    folder, split = crd3
    with pytest.raises(VgmError, match="C2E005"):
        _builder().build(folder, tmp_path / "demo", split=split, demo=("C2E001", "C2E005"))


def test_too_few_instances_are_refused(crd3, tmp_path):
    folder, split = crd3
    with pytest.raises(VgmError, match="at least 60"):
        _builder().build(folder, tmp_path / "demo", split=split, demo=("C2E003",))


def test_the_shipped_demo_set_loads_with_its_licence():
    scored = load_moe(SHIPPED / "demo.jsonl")
    assert len(scored) >= 60 and len(load_moe(SHIPPED / "train.jsonl")) > 0
    assert (SHIPPED / "LICENSE").is_file() and "CC BY-SA 4.0" in (SHIPPED / "NOTICE").read_text(encoding="utf-8")
    train, held_out = _builder().read_split()  # bench/real_split.yaml
    assert {i.source.split(":")[1].split("#")[0] for i in scored} <= set(train) - set(held_out)
