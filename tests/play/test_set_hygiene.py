"""Set hygiene: every case set says what it may be used for, and no test set's line is a pack example line.

A ``test`` set is scored, never read; once its lines are in a pack's ``examples``, ``no_roll``
or ``impossible`` lists the GM answers them by lookup and the score measures nothing.
These tests never print a test set's lines: a leak names the set, the case id and the pack.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from eval.play import CASES_DIR, ROLES, CaseError, Leak, leaked_lines, load_cases, pack_lines, set_role

SHIPPED = sorted(CASES_DIR.glob("*.yaml"))


def write_set(folder: Path, name: str, lines: list[str], role: str | None = "test") -> Path:
    cases = [{"id": f"{name}-{i}", "ruleset": "dnd5e", "scene": "A quiet inn by the road.", "line": line,
              "expect": {"roll": False}} for i, line in enumerate(lines)]
    data = {"description": f"made-up set {name}", **({"role": role} if role else {}), "cases": cases}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# ----- every shipped set says its role ------------------------------------------------------------

@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_set_has_a_valid_role(path):
    has_role = "role" in yaml.safe_load(path.read_text(encoding="utf-8"))  # a bool, so a failure prints no lines
    assert has_role, f"{path.name}: add a top-level `role:` ({', '.join(ROLES)})"
    assert set_role(path) in ROLES


def test_the_sets_copied_into_the_packs_are_training_data():
    assert set_role(CASES_DIR / "dev.yaml") == "train" and set_role(CASES_DIR / "heldout.yaml") == "train"
    assert set_role(CASES_DIR / "imp6.yaml") == "test"


def test_a_set_without_a_role_is_dev_and_an_unknown_role_is_one_line_naming_the_file(tmp_path):
    assert set_role(write_set(tmp_path, "plain", ["I sit down."], role=None)) == "dev"
    bad = write_set(tmp_path, "odd", ["I sit down."], role="holdout")
    for read in (set_role, load_cases):
        with pytest.raises(CaseError) as info:
            read(bad)
        message = str(info.value)
        assert "\n" not in message and "odd.yaml" in message and "'role'" in message and "test" in message


# ----- no test set's line is a pack example line --------------------------------------------------

def test_no_line_of_a_test_set_is_a_pack_example_line():
    leaks = leaked_lines(CASES_DIR)
    assert not leaks, "test-set lines found among the packs' example lines (move the set to `role: train` " \
                      "or take the lines out of the pack):\n" + "\n".join(map(str, leaks))


def test_a_test_set_whose_lines_are_in_a_pack_is_caught(tmp_path):
    write_set(tmp_path, "blindish", ["I ask the innkeeper for a room.", "I lift the inn off its foundations."])
    write_set(tmp_path, "tuned", ["I ask the innkeeper for a room."], role="train")
    packs = {"madeup": ["i ask the   innkeeper for a ROOM.", "I climb the wall."], "other": ["I swim the river."]}
    leaks = leaked_lines(tmp_path, packs)
    assert [(leak.set, leak.case_id, leak.pack, leak.exact) for leak in leaks] == [("blindish", "blindish-0", "madeup", True)]
    message = str(leaks[0])
    assert "blindish" in message and "'blindish-0'" in message and "madeup" in message
    assert "innkeeper" not in message and "innkeeper" not in repr(leaks[0])  # a leak never shows the line


def test_near_copies_are_reported_only_when_asked(tmp_path):
    write_set(tmp_path, "typo", ["I get out my picks and work the padlock"])
    packs = {"madeup": ["I get my picks out and work the padlock."]}
    assert leaked_lines(tmp_path, packs) == []
    [leak] = leaked_lines(tmp_path, packs, near=0.9)
    assert not leak.exact and leak.overlap >= 0.9 and "nearly" in str(leak)


def test_every_set_can_be_measured_against_the_installed_packs():
    leaks = leaked_lines(CASES_DIR, roles=None)
    assert {leak.pack for leak in leaks} <= set(pack_lines())
    found = {leak.set for leak in leaks}
    assert {"dev", "heldout"} <= found and all(set_role(CASES_DIR / f"{name}.yaml") != "test" for name in found)
    assert all(isinstance(leak, Leak) for leak in leaks)


# ----- `vgm play eval` still reads every set --------------------------------------------------------

@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_vgm_play_eval_loads_every_shipped_set(path):
    ids = [c.id for c in load_cases(path)]  # what `vgm play eval <path>` loads before it plays
    assert len(ids) > 0 and len(set(ids)) == len(ids)
