"""Strict loading: a bad line stops with file:line and the fix; good lines resolve skills to ids."""
import json

import pytest

from eval.moe.dataset import DatasetError, load_moe

GOOD = {"id": "a", "ruleset": "dnd5e", "characters": ["Jester", "林"], "context": [{"speaker": "GM", "text": "A door."}], "answers": [{"character": "Jester", "skill": "Wisdom (Perception)"}]}


def write(tmp_path, *lines):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(l if isinstance(l, str) else json.dumps(l, ensure_ascii=False) for l in lines) + "\n", encoding="utf-8")
    return path


def test_aliases_resolve_to_ids(tmp_path):
    zh = {**GOOD, "id": "b", "ruleset": "coc7e", "answers": [{"character": "林", "skill": "侦查"}]}
    loaded = load_moe(write(tmp_path, GOOD, zh))
    assert [i.answers[0].skill for i in loaded] == ["perception", "spot_hidden"]


def test_shipped_sample_loads():
    sample = load_moe("sample")
    assert len(sample) >= 20 and {i.ruleset for i in sample} == {"dnd5e", "coc7e", "pf2e", "swade"}


@pytest.mark.parametrize("line, message", [
    ({**GOOD, "answers": [{"character": "Jester", "skill": "basketweaving"}]}, r"d.jsonl:2: answers\[0\].skill"),
    ({k: v for k, v in GOOD.items() if k != "ruleset"}, r"d.jsonl:2: ruleset: missing field"),
    ({**GOOD, "context": []}, r"d.jsonl:2: .*empty context"),
    ({**GOOD, "answers": []}, r"d.jsonl:2: .*no answers"),
    ('{"id": "x", "ruleset": "dnd5e", "cont', r"d.jsonl:2: malformed JSON"),
    ({**GOOD, "ruleset": "monopoly"}, r"d.jsonl:2: ruleset 'monopoly'"),
    ({**GOOD, "ruleset": "coc7e", "answers": [{"character": "A", "skill": "stealth check for pf2e only: reflex"}]}, r"d.jsonl:2: answers\[0\]"),
])
def test_bad_lines_name_file_and_line(tmp_path, line, message):
    first = {**GOOD, "id": "first"}
    with pytest.raises(DatasetError, match=message):
        load_moe(write(tmp_path, first, line))


def test_duplicate_ids(tmp_path):
    with pytest.raises(DatasetError, match=r"d.jsonl:2: duplicate id 'a' \(first on line 1\)"):
        load_moe(write(tmp_path, GOOD, GOOD))


def test_missing_file(tmp_path):
    with pytest.raises(DatasetError, match="no such data file"):
        load_moe(tmp_path / "nope.jsonl")
