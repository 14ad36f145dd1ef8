"""Model strings: what each resolves to, and one clear line for each wrong one."""
from __future__ import annotations

import pytest

from pipelines.llm import LocalModel, ModelError, OpenAICompatModel, ScriptedModel, get_model, langchain_model, parse_spec


@pytest.mark.parametrize(
    "text, kind, target",
    [
        ("local", "local", "local"),
        ("local:small", "local", "local:small"),
        ("local:0.5b", "local", "local:small"),
        ("local:/models/any.gguf", "local", "/models/any.gguf"),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("scripted:tests/r.yaml", "scripted", "tests/r.yaml"),
    ],
)
def test_model_strings_parse(text, kind, target):
    spec = parse_spec(text)
    assert (spec.kind, spec.target) == (kind, target)


def test_default_is_vgm_model_then_local(monkeypatch):
    assert parse_spec(None).text == "local"
    monkeypatch.setenv("VGM_MODEL", "openai:gpt-4.1")
    assert parse_spec(None).target == "gpt-4.1"


@pytest.mark.parametrize("bad", ["gpt4", "claude:x", "local:huge", "openai:", "scripted:"])
def test_unknown_strings_are_one_line(bad):
    with pytest.raises(ModelError) as err:
        get_model(bad)
    assert "\n" not in str(err.value)


def test_a_missing_or_non_gguf_file_is_refused(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        get_model(f"local:{tmp_path}/none.gguf")
    fake = tmp_path / "notes.gguf"
    fake.write_text("hello")
    with pytest.raises(ModelError, match="not a GGUF"):
        get_model(f"local:{fake}")


def test_any_gguf_path_gives_a_local_model_without_starting_anything(tmp_path):
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 64)
    model = get_model(f"local:{path}", threads=1)
    assert isinstance(model, LocalModel) and model.config.threads == 1 and model.concurrency == model.config.parallel


def test_threads_default_from_env(tmp_path, monkeypatch):
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    monkeypatch.setenv("VGM_THREADS", "1")
    assert get_model(f"local:{path}").config.threads == 1
    monkeypatch.setenv("VGM_THREADS", "many")
    with pytest.raises(ModelError, match="VGM_THREADS"):
        get_model(f"local:{path}")


def test_openai_base_url_from_flag_or_env_needs_no_key(monkeypatch):
    model = get_model("openai:qwen", base_url="http://127.0.0.1:9/v1/")
    assert isinstance(model, OpenAICompatModel) and model.base_url == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8/v1")
    assert get_model("openai:qwen").base_url == "http://127.0.0.1:8/v1"


def test_openai_with_key_targets_the_official_api(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    model = get_model("openai:gpt-4o-mini", concurrency=4, timeout=9)
    assert model.base_url == "https://api.openai.com/v1" and model.concurrency == 4 and model.timeout == 9


def test_scripted_file_gives_a_scripted_model(tmp_path):
    script = tmp_path / "r.yaml"
    script.write_text("- '[\"Jester\"]'\n")
    assert isinstance(get_model(f"scripted:{script}"), ScriptedModel)


def test_langchain_model_for_scripted_and_openai(tmp_path, fake_server):
    script = tmp_path / "r.yaml"
    script.write_text("- hello from the script\n")
    assert langchain_model(f"scripted:{script}").invoke("hi").content == "hello from the script"
    chat = langchain_model("openai:fake", base_url=fake_server.base_url)
    assert chat.invoke("Which skill?").content == '{"skills": ["perception"]}'
    assert fake_server.requests[-1]["model"] == "fake"


async def test_any_langchain_chat_model_goes_through_the_client():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from pydantic import BaseModel

    from pipelines.llm import complete_json, from_langchain

    class Skills(BaseModel):
        skills: list[str]

    chat = FakeListChatModel(responses=['```json\n{"skills": ["insight"]}\n```', "never asked"])
    model = from_langchain(chat, cache_id="fake-list")
    parsed = await complete_json(model, [{"role": "user", "content": "Which skill?"}], Skills)
    assert parsed.parse_ok and parsed.value.skills == ["insight"]
    again = await complete_json(model, [{"role": "user", "content": "Which skill?"}], Skills)
    assert again.usage.cache_hit and again.value.skills == ["insight"]


async def test_two_local_models_of_one_file_share_the_server_address(tmp_path, monkeypatch):
    from pipelines.llm import serve

    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    first, second = get_model(f"local:{path}", threads=1), get_model(f"local:{path}", threads=2)  # threads do not split servers

    class Running:
        base_url = "http://127.0.0.1:5555"

        def alive(self):
            return True

    monkeypatch.setitem(serve._SERVERS, serve._slot(first.config), Running())
    assert await second._base() == "http://127.0.0.1:5555/v1"


@pytest.mark.parametrize("busy, cores, threads", [([10, 5], 2, 2), ([100, 20], 2, 1), ([100, 100], 2, 1),
                                                  ([100, 100, 0, 0, 0, 0, 0, 0], 8, 6), ([0], 1, 1)])
def test_default_threads_leave_out_the_cores_busy_now(monkeypatch, busy, cores, threads):
    """Busy now, not in the last minute: a test run that just ended no longer halves the threads."""
    from pipelines.llm import serve

    monkeypatch.delenv("VGM_THREADS", raising=False)
    monkeypatch.setattr(serve.psutil, "cpu_percent", lambda interval, percpu: busy)
    monkeypatch.setattr(serve.os, "getloadavg", lambda: (4.0, 4.0, 4.0))  # a busy minute that is over
    monkeypatch.setattr(serve.os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert serve.default_threads() == threads


async def test_a_borrowed_server_that_stops_answering_is_replaced(tmp_path, monkeypatch):
    from pipelines.llm import serve

    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    model = get_model(f"local:{path}", threads=1)

    class Borrowed:
        owned, base_url, stopped = False, "http://127.0.0.1:9", False

        def alive(self):
            return True  # its process lingers while it shuts down

        def stop(self, **kw):
            Borrowed.stopped = True

    monkeypatch.setitem(serve._SERVERS, serve._slot(model.config), Borrowed())
    restarted = []
    monkeypatch.setattr(type(model), "server", lambda self: restarted.append(True))
    await model._recover()
    assert Borrowed.stopped and restarted == [True]
