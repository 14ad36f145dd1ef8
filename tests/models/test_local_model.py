"""The real embedded model (0.5B), installed from PyPI parts and served by xllamacpp."""
from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from pipelines.llm import complete_json, get_model

pytestmark = pytest.mark.slow


class Skills(BaseModel):
    skills: list[str]


ASK = [{"role": "user", "content": "Name three Dungeons & Dragons skills. Answer as JSON: {\"skills\": [...]}"}]


async def test_local_small_answers_valid_json_through_our_client(local_small):
    parsed = await complete_json(local_small, ASK, Skills, max_tokens=40)
    assert parsed.parse_ok, parsed.raw
    assert 1 <= len(parsed.value.skills) <= 10
    assert parsed.usage.prompt_tokens > 0 and parsed.usage.completion_tokens > 0


async def test_a_keyed_probe_answer_is_written_compact_with_every_name(local_small):
    from pipelines.probes._answers import SuspicionRanking, keyed_shape

    names = ("Blair", "Casey", "Drew")
    ask = [{"role": "user", "content": "Score how suspicious Blair, Casey and Drew look, 0-100, as JSON like {\"Name\": 70}"}]
    parsed = await complete_json(local_small, ask, keyed_shape(SuspicionRanking, names), max_tokens=60)
    assert parsed.parse_ok, parsed.raw
    assert " " not in parsed.raw and list(json.loads(parsed.raw)) == list(names)


def test_local_small_through_the_openai_client(local_small):
    from openai import OpenAI

    client = OpenAI(base_url=local_small.base_url, api_key="local")
    out = client.chat.completions.create(
        model="local", messages=ASK, max_tokens=40, temperature=0,
        response_format={"type": "json_schema", "json_schema": {"name": "skills", "schema": Skills.model_json_schema()}},
    )
    value = json.loads(out.choices[0].message.content)
    assert isinstance(value["skills"], list) and value["skills"]


def test_local_small_through_langchain(local_small):
    from pipelines.llm import langchain_model

    chat = langchain_model("local:small", max_tokens=40)
    structured = chat.with_structured_output(Skills, method="json_schema")
    answer = structured.invoke(ASK[0]["content"])
    assert isinstance(answer, Skills) and answer.skills


async def test_shared_prefix_is_reused_by_the_server(local_small):
    log = "\n".join(f"Player{i % 3}: I walk to the door number {i} and listen." for i in range(30))
    first = [{"role": "system", "content": "You are a GM.\n" + log}, {"role": "user", "content": "Who spoke last? One word."}]
    second = [first[0], {"role": "user", "content": "Who spoke first? One word."}]
    await local_small.complete(first, max_tokens=5)
    again = await local_small.complete(second, max_tokens=5)
    assert again.usage.cached_tokens > 0.8 * again.usage.prompt_tokens - 30


def test_get_model_local_small_is_resolved_to_the_installed_file(local_small_path):
    model = get_model("local:small")
    assert model.config.model_path.endswith(local_small_path.name)


async def test_a_crashed_server_is_restarted_and_the_call_still_answers(local_small_path, monkeypatch):
    from pipelines.llm.serve import release

    monkeypatch.setenv("VGM_SHARE_SERVER", "0")  # our own server, so killing it harms no one else
    model = get_model("local:small", cache=False, retries=2)
    server = model.server()
    try:
        assert server.owned
        server.process.kill()  # the server dies mid-run
        server.process.wait(10)
        reply = await model.complete([{"role": "user", "content": "Say OK."}], max_tokens=3)
        assert reply.text and server.alive() and server.starts == 2
    finally:
        release(model.config)


def test_a_second_process_borrows_the_announced_server(local_small_path, monkeypatch):
    import subprocess
    import sys

    from pipelines.llm.serve import release

    monkeypatch.setenv("VGM_SHARE_SERVER", "1")
    model = get_model("local:small", cache=False)
    server = model.server()  # ours, announced; or another process's that we borrowed
    code = (
        "from pipelines.llm import get_model\n"
        "m = get_model('local:small', cache=False)\n"
        "s = m.server()\n"
        "print(s.owned, s.base_url)\n"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout.split()
        assert out == ["False", server.base_url]
        assert server.alive()
    finally:
        release(model.config)


def test_done_when_install_then_ask_from_the_command_line(local_small):
    from typer.testing import CliRunner

    from ui.cli import app

    runner = CliRunner()
    installed = runner.invoke(app, ["models", "install", "local:small", "--json"])
    assert installed.exit_code == 0 and json.loads(installed.output)["verified"] is True
    asked = runner.invoke(app, ["ask", "--model", "local:small", "--structured", "--max-tokens", "60", "Name three D&D skills as JSON", "--json"])
    assert asked.exit_code == 0, asked.output
    report = json.loads(asked.output)
    assert report["parse_ok"] and report["value"]


def test_a_shared_server_outlives_its_starter_only_while_idle_for_the_linger_time(local_small_path, tmp_path):
    import os
    import subprocess
    import sys
    import time

    env = {**os.environ, "VGM_SHARE_SERVER": "1", "VGM_SERVER_LINGER": "2", "VGM_CTX": "2048", "VGM_THREADS": "1", "VGM_CACHE_DIR": str(tmp_path)}
    code = "from pipelines.llm import get_model\ns = get_model('local:small').server()\nprint(s.pid, s.owned)\n"
    pid, owned = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env).stdout.split()
    if owned != "True":
        pytest.skip("another process already offers this server")
    from pipelines.llm.serve import _pid_alive

    assert _pid_alive(int(pid))  # the starter exited; the server waits for borrowers
    deadline = time.monotonic() + 20
    while _pid_alive(int(pid)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _pid_alive(int(pid))
