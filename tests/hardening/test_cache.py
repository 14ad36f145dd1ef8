"""The response cache never breaks a run: a row of the wrong shape is a miss that the next answer
overwrites, a damaged or foreign database file is moved aside with one warning, ``vgm models cache``
never shows a traceback, and credentials in a base URL are stored and printed nowhere."""
from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from typer.testing import CliRunner

from pipelines.llm import ModelError, get_model
from pipelines.llm.cache import CacheWarning, ResponseCache, cache_dir, redact, request_key
from ui.cli import app

ASK = [{"role": "user", "content": "Which check?"}]
PARAMS = {"max_tokens": 512, "temperature": 0.0}


def model_for(server, base_url=None, **options):
    options.setdefault("backoff_s", 0.01)
    options.setdefault("timeout", 2.0)
    return get_model("openai:fake", base_url=base_url or server.base_url, **options)


@pytest.mark.parametrize("row", ["{}", "[]", '{"text": null}', '"text"', "not json", '{"text": 3}',
                                 '{"text": "x", "usage": []}', '{"text": "x", "usage": {"prompt_tokens": "many"}}',
                                 '{"text": "x", "usage": {"prompt_tokens": true}}', "[" * 5000])
def test_a_row_of_the_wrong_shape_is_a_miss_then_overwritten(fake_server, row):
    model = model_for(fake_server)
    key = request_key(model.cache_id, ASK, PARAMS)
    model.cache.put(key, model.cache_id, {"text": "old", "usage": {}})
    model.cache._db.execute("UPDATE responses SET value = ? WHERE key = ?", (row, key))
    first = asyncio.run(model.complete(ASK))
    second = asyncio.run(model.complete(ASK))
    assert first.text == second.text == '{"skills": ["perception"]}'
    assert not first.usage.cache_hit and second.usage.cache_hit and len(fake_server.requests) == 1


def _filled(path, n=400) -> ResponseCache:
    cache = ResponseCache(path)
    for i in range(n):
        cache.put(f"k{i}", "m", {"text": "x" * 300, "usage": {}})
    cache.close()
    return cache


def test_damaged_pages_are_moved_aside_and_caching_goes_on(tmp_path):
    path = tmp_path / "cache.sqlite"
    _filled(path)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[8192:40960] = b"\xde\xad" * 16384  # pages 3-10: table and index b-tree pages
    path.write_bytes(bytes(data))
    with pytest.warns(CacheWarning, match="moved it to"):
        cache = ResponseCache(path)
        for i in range(400):
            cache.get(f"k{i}")
        cache.put("new", "m", {"text": "fresh", "usage": {}})
    assert cache.get("new")["text"] == "fresh" and cache.moved_aside is not None


def test_a_foreign_schema_is_moved_aside(tmp_path):
    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE responses (id INTEGER, payload BLOB)")
    with pytest.warns(CacheWarning, match="other columns"):
        cache = ResponseCache(path)
    cache.put("k", "m", {"text": "t", "usage": {}})
    assert cache.get("k")["text"] == "t"
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE photos (id INTEGER)")
    with pytest.warns(CacheWarning, match="other tables"):
        ResponseCache(other)
    with sqlite3.connect(other.parent / next(p.name for p in tmp_path.iterdir() if p.name.startswith("other.sqlite.broken"))) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("photos",)]  # the user's data is kept


@pytest.mark.parametrize("content", [b"this is not a database" * 100, b"", b"SQLite format 3\x00" + b"\x00" * 200])
def test_models_cache_command_never_shows_a_traceback(content):
    cache_dir().mkdir(parents=True, exist_ok=True)
    (cache_dir() / "cache.sqlite").write_bytes(content)
    from pipelines.llm import cache as cache_module

    cache_module._SHARED.clear()
    result = CliRunner().invoke(app, ["models", "cache", "--json"])
    assert "Traceback" not in result.output and result.exit_code == 0, result.output
    assert json.loads(result.output.splitlines()[-1]) == []


def test_models_cache_on_an_unusable_folder_is_one_line(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("VGM_CACHE_DIR", str(blocker / "sub"))
    from pipelines.llm import cache as cache_module

    cache_module._SHARED.clear()
    result = CliRunner().invoke(app, ["models", "cache"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert result.output.strip().startswith("error:") and len(result.output.strip().splitlines()) == 1


# ------------------------------------------------------------------ credentials

@pytest.mark.parametrize("text, shown", [
    ("http://user:pw@host:8080/v1", "http://***@host:8080/v1"),
    ("see https://tok@example.com/x and http://a:b@c", "see https://***@example.com/x and http://***@c"),
    ("http://h/v1?api_key=SECRET&x=1", "http://h/v1?api_key=***&x=1"),
    ("no url here: a@b.c", "no url here: a@b.c"),
])
def test_redact(text, shown):
    assert redact(text) == shown


def test_credentials_in_a_base_url_are_stored_and_printed_nowhere(fake_server):
    secret_url = fake_server.base_url.replace("http://", "http://alice:hunter2@")
    model = model_for(fake_server, base_url=secret_url)
    reply = asyncio.run(model.complete(ASK))
    assert reply.text and fake_server.requests  # the request went through
    assert "hunter2" not in model.cache_id and "hunter2" not in repr(model) and "hunter2" not in model.base_url
    fake_server.faults = ["500"] * 10
    with pytest.raises(ModelError) as err:
        asyncio.run(model_for(fake_server, base_url=secret_url, retries=1, cache=False).complete([{"role": "user", "content": "again"}]))
    assert "hunter2" not in str(err.value) and "alice" not in str(err.value)
    dead = secret_url.rsplit(":", 1)[0] + ":9/v1"
    with pytest.raises(ModelError) as err:
        asyncio.run(model_for(fake_server, base_url=dead, retries=0, cache=False).complete(ASK))
    assert "hunter2" not in str(err.value)
    for path in cache_dir().rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes(), path
    result = CliRunner().invoke(app, ["ask", "--model", "openai:fake", "--base-url", dead, "hi", "--timeout", "1"])
    assert result.exit_code != 0 and "hunter2" not in result.output and "error:" in result.output
