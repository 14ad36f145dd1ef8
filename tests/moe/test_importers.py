"""Importers: CRD3 (a written fixture, and a real shared episode when present), FIREBALL, Tachikuma-style JSONL."""
import json

import pytest

from eval.moe.dataset import load_moe
from eval.moe.importers import find_requests, import_crd3, import_fireball, import_jsonl, import_source, rolled_number, split_by_episode
from pipelines import Check

from .conftest import FIXTURES, shared_data

import rulesets


def test_request_phrases():
    pack = rulesets.load("dnd5e")
    said = lambda text: [(r.skill, r.group) for r in find_requests(text, pack)]  # noqa: E731
    assert said("Go ahead and make a Wisdom (Perception) check.") == [("perception", False)]
    assert said("Caleb and Nott, I need you both to make dexterity saving throws.") == [("dexterity_save", True)]
    assert said("Everyone roll initiative!") == [("initiative", True)]
    assert said("Give me a quick stealth check, everybody.") == [("stealth", True)]
    assert said("You have advantage on that, right? Dexterity checks?") == []
    assert said("You succeeded on the stealth check.") == []
    assert rolled_number("Nope. Ten.") and rolled_number("Natural 20!") and not rolled_number("Wait, what?")


def test_crd3_fixture(tmp_path):
    report = import_crd3(FIXTURES / "crd3_mini.json", context=4, min_context=3)
    assert report.found == 3 and report.kept == 2
    assert report.dropped == {"no player answered with a roll": 1}
    stealth, fall = report.instances
    assert stealth.answers == [Check(character="Nott", skill="stealth")]
    assert [t.speaker for t in stealth.context] == ["GM", "Nott", "Caleb", "Fjord"]
    assert all("stealth check" not in t.text for t in stealth.context)  # never the request itself
    assert "stealth check" in stealth.gm_reply  # ...but kept as the human reference for rating
    assert {a.character for a in fall.answers} == {"Caleb", "Fjord", "Jester"}
    assert {a.skill for a in fall.answers} == {"dexterity_save"}
    assert "Nott|Nott the Brave" in stealth.characters


def test_crd3_cast_file_is_configurable(tmp_path):
    cast = tmp_path / "cast.yaml"
    cast.write_text("dm: [MATT]\nplayers:\n  SAM: Pip\n  LAURA: Jester\n  LIAM: Caleb\n  TRAVIS: Fjord\n")
    report = import_crd3(FIXTURES / "crd3_mini.json", context=4, min_context=3, cast=cast)
    assert report.instances[0].answers == [Check(character="Pip", skill="stealth")]


def test_crd3_real_episode():
    data = shared_data()
    if data is None:
        pytest.skip("shared CRD3 data not present")
    report = import_crd3(data / "crd3" / "C2E001.json")
    assert 25 <= report.found <= 45 and 20 <= report.kept <= report.found
    by_id = {i.id: i for i in report.instances}
    # "Make a perception check." at turn 379 is answered by SAM ("Okay. Perception. 14.")
    assert by_id["C2E001-379"].answers == [Check(character="Nott", skill="perception")]
    # "Caleb and Nott, I need you both to make dexterity saving throws." → both, a group call
    assert {a.character for a in by_id["C2E001-1262"].answers} == {"Caleb", "Nott"}
    for instance in report.instances:
        assert len(instance.context) == 30 and instance.context[-1].speaker != ""
        turn = int(instance.id.rsplit("-", 1)[1])
        assert all(a.character in {c.split("|")[0] for c in instance.characters} for a in instance.answers)
        assert turn > 0


def test_fireball_events():
    report = import_fireball(FIXTURES / "fireball_events.jsonl")
    assert report.found == 4 and report.kept == 2
    assert report.dropped == {"command names no check this rule set knows": 1}
    listen, rune = report.instances
    assert listen.answers == [Check(character="Ilse", skill="perception")]
    assert [t.speaker for t in listen.context] == ["GM", "Thorn", "Ilse"]
    assert rune.answers == [Check(character="Thorn", skill="dexterity_save"), Check(character="Ilse", skill="dexterity_save")]
    assert not any(t.text.startswith("!") for t in rune.context)


def test_fireball_distilled_record(tmp_path):
    path = tmp_path / "fb.jsonl"
    path.write_text(json.dumps({"utterance_history": ["DM: A trapdoor!", "Player 1: I jump aside"], "commands_norm": ["!save dex"], "caster_after": {"name": "Rook"}}) + "\n")
    report = import_fireball(path)
    assert report.instances[0].answers == [Check(character="Rook", skill="dexterity_save")]
    assert report.instances[0].context[0].speaker == "GM"


def test_tachikuma_chinese_records():
    report = import_jsonl(FIXTURES / "tachikuma_zh.jsonl")
    first, second = report.instances
    assert first.ruleset == "coc7e" and first.answers == [Check(character="林语", skill="library_use")]
    assert first.context[0].speaker == "GM" and second.answers[0].skill == "listen"


def test_import_source_writes_loadable_splits(tmp_path):
    out = tmp_path / "moe.jsonl"
    report, written = import_source("crd3", FIXTURES / "crd3_mini.json", out, split="50/25/25", context=4, min_context=3)
    assert len(load_moe(out)) == report.kept
    assert set(written) == {"all", "train", "dev", "test"}


def test_split_never_cuts_an_episode():
    from pipelines import MoeInstance, Turn

    items = [MoeInstance(id=f"{e}-{k}", ruleset="dnd5e", context=[Turn(speaker="GM", text=".")], answers=[Check(character="A", skill="stealth")], source=f"crd3:E{e}#{k}") for e in range(10) for k in range(3)]
    parts = split_by_episode(items, (0.8, 0.1, 0.1))
    episodes = [{i.source.split("#")[0] for i in part} for part in parts.values()]
    assert sum(len(e) for e in episodes) == 10 and not (episodes[0] & episodes[1]) and not (episodes[0] & episodes[2])
    assert all(len(part) > 0 for part in parts.values())
