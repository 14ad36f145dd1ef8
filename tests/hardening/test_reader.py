"""The one reader (rulesets._io): whatever bytes a file holds, the answer is the data or one
``FileProblem`` line naming the file — never a traceback, never a RecursionError, and a torn
last line of a JSON Lines file is dropped with a warning while a bad middle line is an error."""
from __future__ import annotations

import gzip
import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel, ConfigDict

from rulesets import (FileProblem, TornTail, read_json, read_jsonl, read_model_file, read_text, read_yaml)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
records = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str
    score: int


def _one_line(problem: FileProblem, path) -> str:
    text = str(problem)
    assert "\n" not in text and text.startswith(str(path)), text
    assert "fix:" in text
    return text


# ------------------------------------------------------------------ any bytes at all

@SETTINGS
@given(data=st.binary(max_size=300))
def test_any_bytes_give_data_or_one_line(tmp_path, data):
    for name, reader in [("f.json", read_json), ("f.yaml", read_yaml), ("f.txt", read_text)]:
        path = tmp_path / name
        path.write_bytes(data)
        try:
            reader(path)
        except FileProblem as problem:
            _one_line(problem, path)
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TornTail)
        try:
            list(read_jsonl(path))
        except FileProblem as problem:
            _one_line(problem, path)


@SETTINGS
@given(text=st.text(max_size=200))
def test_any_text_gives_data_or_one_line(tmp_path, text):
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        read_yaml(path)
    except FileProblem as problem:
        _one_line(problem, path)
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    try:
        assert json.dumps(read_json(path)) == json.dumps(json.loads(text))  # NaN != NaN, but its dump is equal
    except FileProblem as problem:
        _one_line(problem, path)


@SETTINGS
@given(value=json_values)
def test_json_round_trips(tmp_path, value):
    path = tmp_path / "v.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    assert read_json(path) == value


# ------------------------------------------------------------------ depth

@pytest.mark.parametrize("n", [101, 1_000, 100_000])
def test_deep_json_is_one_line_not_recursion_error(tmp_path, n):
    path = tmp_path / "deep.json"
    path.write_text("[" * n + "]" * n)
    with pytest.raises(FileProblem, match="deep"):
        read_json(path)


@pytest.mark.parametrize("n", [101, 5_000, 50_000])
def test_deep_yaml_is_one_line_not_recursion_error(tmp_path, n):
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * n + "]" * n)
    with pytest.raises(FileProblem, match="deep"):
        read_yaml(path)


def test_deep_jsonl_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"a": 1}\n{"a": ' + "[" * 5000 + "]" * 5000 + "}\n")
    with pytest.raises(FileProblem, match=r"deep.jsonl:2"):
        list(read_jsonl(path))


def test_yaml_that_refers_to_itself_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("a: &x [*x]\n")
    with pytest.raises(FileProblem):
        read_yaml(path)


def test_yaml_anchor_bomb_is_measured_not_expanded(tmp_path):
    lines = ["a0: &a0 [x, x]"] + [f"a{i}: &a{i} [*a{i-1}, *a{i-1}]" for i in range(1, 40)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert len(read_yaml(path)) == 40  # 2**40 leaves if walked naively


# ------------------------------------------------------------------ encodings and binaries

def test_non_utf8_names_line_and_byte(tmp_path):
    path = tmp_path / "latin.yaml"
    path.write_bytes("a: 1\nb: caf".encode() + b"\xe9\n")
    with pytest.raises(FileProblem) as info:
        read_yaml(path)
    text = _one_line(info.value, path)
    assert "latin.yaml:2" in text and "0xe9" in text and "offset 11" in text


def test_free_text_decodes_with_replacement(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"caf\xe9 ok")
    assert read_text(path, free_text=True) == "caf\ufffd ok"


@pytest.mark.parametrize("data, named", [
    (gzip.compress(b'{"a": 1}\n', mtime=0), "gzip"),
    (b"PK\x03\x04rest", "zip"),
    (b"SQLite format 3\x00....", "SQLite"),
    (b"\x00\x01\x02binary", "binary"),
    ("a: 1".encode("utf-16"), "UTF-16"),
])
def test_compressed_and_binary_files_are_named(tmp_path, data, named):
    for reader in (read_text, read_json, read_yaml, lambda p: list(read_jsonl(p))):
        path = tmp_path / "data.jsonl"
        path.write_bytes(data)
        with pytest.raises(FileProblem, match=named):
            reader(path)


def test_gz_suffix_is_read_through(tmp_path):
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"a": 2}\n'))
    assert [r["a"] for r in read_jsonl(path)] == [1, 2]
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"a": 2}\n')[:-6])
    with pytest.raises(FileProblem, match="gzip"):
        list(read_jsonl(path))


def test_bom_is_dropped(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf[1]")
    assert read_json(path) == [1]


# ------------------------------------------------------------------ paths

@pytest.mark.parametrize("reader", [read_text, read_json, read_yaml, read_jsonl,
                                    lambda p: read_model_file(p, Item)])
def test_missing_file_and_folder(tmp_path, reader):
    with pytest.raises(FileProblem, match="no such"):
        reader(tmp_path / "nope.json")
    with pytest.raises(FileProblem, match="folder"):
        reader(tmp_path)


# ------------------------------------------------------------------ JSON Lines

@SETTINGS
@given(rows=st.lists(records, min_size=1, max_size=6), cut=st.integers(min_value=1))
def test_torn_tail_is_dropped_with_a_warning(tmp_path, rows, cut):
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    last = json.dumps(rows[-1], ensure_ascii=False).encode()
    head = body[: len(body) - len(last) - 1]
    torn = last[: 1 + cut % (len(last) - 1)] if len(last) > 1 else b""  # a proper prefix
    path = tmp_path / "p.jsonl"
    path.write_bytes(head + torn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reader = read_jsonl(path)
        got = list(reader)
    try:
        complete = json.loads(torn.decode()) if torn else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        complete = None
    if isinstance(complete, dict):  # the cut happened to leave a whole object
        assert got == rows[:-1] + [complete]
    else:
        assert got == rows[:-1]
        if torn.strip():
            assert reader.torn == len(rows) and any(issubclass(w.category, TornTail) for w in caught)
    assert reader.good_bytes <= path.stat().st_size and (head + torn)[: reader.good_bytes] == head[: reader.good_bytes]


def test_cut_inside_a_multibyte_character(tmp_path):
    path = tmp_path / "p.jsonl"
    whole = '{"t": "侦查"}\n'.encode()
    path.write_bytes(whole + whole[:-3])  # ends in the middle of 查
    with pytest.warns(TornTail, match=r"p.jsonl:2"):
        reader = read_jsonl(path)
        assert list(reader) == [{"t": "侦查"}]
    assert reader.good_bytes == len(whole)


@SETTINGS
@given(rows=st.lists(records, min_size=2, max_size=6), bad=st.sampled_from(
    [b"{oops", b"{\"a\": \"\xff\"}", b"[1, 2]", b'"text"', b'{"a": 1']), where=st.integers(min_value=0))
def test_bad_middle_line_names_file_and_line(tmp_path, rows, bad, where):
    lines = [json.dumps(r).encode() for r in rows]
    at = where % (len(lines) - 1)  # never the last line
    lines.insert(at, bad)
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(FileProblem) as info:
        list(read_jsonl(path))
    assert f"p.jsonl:{at + 1}:" in _one_line(info.value, path)


def test_on_torn_error_and_callable(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": ')
    with pytest.raises(FileProblem, match="cut off"):
        list(read_jsonl(path, on_torn="error"))
    seen = []
    assert list(read_jsonl(path, on_torn=seen.append)) == [{"a": 1}]
    assert seen and "p.jsonl:2" in seen[0]


def test_blank_lines_and_crlf_and_u2028(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"a": "x\xe2\x80\xa8y"}\r\n\n  \n{"a": 2}\n')
    assert [r["a"] for r in read_jsonl(path)] == ["x\u2028y", 2]


# ------------------------------------------------------------------ pydantic

def test_model_errors_are_one_line_with_key_and_fix(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "score": 1}\n{"id": "b", "score": true}\n')
    with pytest.raises(FileProblem) as info:
        list(read_jsonl(path, Item))
    text = _one_line(info.value, path)
    assert "items.jsonl:2" in text and "'score'" in text


@pytest.mark.parametrize("body, key", [
    ("id: a\n", "score"),
    ("id: a\nscore: 1\nextra: 2\n", "extra"),
    ("id: [1]\nscore: 1\n", "id"),
])
def test_read_model_file(tmp_path, body, key):
    path = tmp_path / "item.yaml"
    path.write_text(body)
    with pytest.raises(FileProblem) as info:
        read_model_file(path, Item)
    assert f"key '{key}'" in _one_line(info.value, path)
    path.write_text("id: a\nscore: 3\n")
    assert read_model_file(path, Item).score == 3


def test_duplicate_yaml_keys_name_both_lines(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("a: 1\nb: 2\na: 3\n")
    with pytest.raises(FileProblem, match=r"dup.yaml:3: key 'a' is given twice \(first on line 1\)"):
        read_yaml(path)


def test_syntax_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("a: 1\nb: [1, 2\nc: 3\n")
    with pytest.raises(FileProblem, match=r"bad.yaml:\d+: malformed YAML"):
        read_yaml(path)
    path = tmp_path / "bad.json"
    path.write_text('{\n"a": 1,\n"b": }\n')
    with pytest.raises(FileProblem, match=r"bad.json:3: malformed JSON"):
        read_json(path)
