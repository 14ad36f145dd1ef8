"""The one client against a real local HTTP server that misbehaves on purpose."""
from __future__ import annotations

import asyncio
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pipelines.llm import ModelError, complete_json, get_model
from pipelines.llm.cache import cache_dir
from pipelines.llm.fake_server import FakeServer

ASK = [{"role": "user", "content": "Which check does Jester roll?"}]


def model_for(server: FakeServer, **options):
    options.setdefault("backoff_s", 0.01)
    options.setdefault("timeout", 2.0)
    return get_model("openai:fake", base_url=server.base_url, **options)


async def test_a_500_then_success_is_retried_and_answered(fake_server):
    fake_server.faults = ["500", "503"]
    reply = await model_for(fake_server).complete(ASK)
    assert reply.text == '{"skills": ["perception"]}'
    assert len(fake_server.requests) == 3


async def test_429_is_retried(fake_server):
    fake_server.faults = ["429"]
    reply = await model_for(fake_server).complete(ASK)
    assert reply.text and len(fake_server.requests) == 2


async def test_persistent_500s_end_in_one_line_naming_the_status(fake_server):
    fake_server.faults = ["500"] * 10
    with pytest.raises(ModelError) as err:
        await model_for(fake_server, retries=2).complete(ASK)
    message = str(err.value)
    assert "HTTP 500" in message and "3 attempts" in message and "\n" not in message


async def test_a_slow_server_times_out_with_one_line(fake_server):
    fake_server.faults = ["slow", "slow"]
    fake_server.slow_s = 1.0
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"no answer within 0.3 s"):
        await model_for(fake_server, timeout=0.3, retries=1).complete(ASK)
    assert time.monotonic() - started < 2.5


async def test_a_timeout_then_a_fast_answer_succeeds(fake_server):
    fake_server.faults = ["slow"]
    fake_server.slow_s = 1.0
    reply = await model_for(fake_server, timeout=0.3).complete(ASK)
    assert reply.text


async def test_garbage_then_success(fake_server):
    fake_server.faults = ["garbage"]
    assert (await model_for(fake_server).complete(ASK)).text


async def test_garbage_forever_is_one_clear_line(fake_server):
    fake_server.faults = ["garbage"] * 5
    with pytest.raises(ModelError, match="not an OpenAI chat completion"):
        await model_for(fake_server, retries=1).complete(ASK)


async def test_a_dropped_connection_is_retried(fake_server):
    fake_server.faults = ["disconnect"]
    assert (await model_for(fake_server).complete(ASK)).text
    assert len(fake_server.requests) == 2


async def test_unreachable_server_is_one_line_with_the_fix():
    with FakeServer() as server:
        url = server.base_url
    with pytest.raises(ModelError) as err:
        await get_model("openai:fake", base_url=url, backoff_s=0.01, retries=1).complete(ASK)
    assert "cannot reach" in str(err.value) and "--base-url" in str(err.value)


async def test_server_dies_mid_batch_and_the_finished_calls_survive_in_the_cache():
    server = FakeServer(reply="ok", delay_s=0.01).start()
    model = get_model("openai:fake", base_url=server.base_url, backoff_s=0.01, retries=1, concurrency=1)
    batch = [[{"role": "user", "content": f"question {i}"}] for i in range(6)]
    for messages in batch[:3]:
        await model.complete(messages)
    server.stop()  # the server crashes mid-run
    with pytest.raises(ModelError, match="cannot reach"):
        await model.complete(batch[3])
    with FakeServer(reply="ok") as again:  # rerun the batch on a new server
        rerun = get_model("openai:fake", base_url=server.base_url)
        rerun.base_url = again.base_url  # same cache identity, new address
        replies = [await rerun.complete(m) for m in batch]
    assert [r.usage.cache_hit for r in replies] == [True, True, True, False, False, False]
    assert len(again.requests) == 3


async def test_bad_request_is_not_retried(fake_server):
    fake_server.faults = ["400"]
    with pytest.raises(ModelError, match="HTTP 400"):
        await model_for(fake_server).complete(ASK)
    assert len(fake_server.requests) == 1


async def test_rejected_key_says_which_variable(fake_server, monkeypatch):
    fake_server.faults = ["401"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-123")
    with pytest.raises(ModelError) as err:
        await model_for(fake_server).complete(ASK)
    assert "OPENAI_API_KEY" in str(err.value) and "SECRET" not in str(err.value)


def test_missing_key_for_the_real_openai_is_one_line():
    with pytest.raises(ModelError, match="OPENAI_API_KEY is not set"):
        get_model("openai:gpt-4o-mini")


async def test_the_key_is_sent_but_never_logged_or_cached(fake_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-123")
    model = model_for(fake_server)
    await model.complete(ASK, step="skill")
    fake_server.faults = ["500"] * 5
    with pytest.raises(ModelError) as err:
        await model.complete([{"role": "user", "content": "other"}])
    assert fake_server.headers[0]["Authorization"] == "Bearer sk-test-SECRET-123"
    assert "SECRET" not in str(err.value) and "SECRET" not in repr(model)
    for path in cache_dir().rglob("*"):
        if path.is_file():
            assert b"SECRET" not in path.read_bytes(), path


async def test_cache_answers_a_repeated_request_without_calling_the_server(fake_server):
    model = model_for(fake_server)
    first = await model.complete(ASK, step="char")
    second = await model.complete(ASK, step="char")
    assert second.text == first.text and second.usage.cache_hit and not first.usage.cache_hit
    assert second.usage.prompt_tokens == first.usage.prompt_tokens
    assert len(fake_server.requests) == 1
    await model.complete(ASK, max_tokens=7)  # other parameters: another request
    assert len(fake_server.requests) == 2


async def test_cache_can_be_turned_off_by_argument_and_by_env(fake_server, monkeypatch):
    await model_for(fake_server, cache=False).complete(ASK)
    await model_for(fake_server, cache=False).complete(ASK)
    monkeypatch.setenv("VGM_NO_CACHE", "1")
    await model_for(fake_server).complete(ASK)
    assert len(fake_server.requests) == 3


async def test_cache_is_shared_safely_by_many_concurrent_tasks(fake_server):
    model = model_for(fake_server, concurrency=16)
    batches = [[{"role": "user", "content": f"q{i % 20}"}] for i in range(200)]
    replies = await asyncio.gather(*(model.complete(m) for m in batches))
    assert all(r.text for r in replies)
    again = await asyncio.gather(*(model.complete(m) for m in batches))
    assert all(r.usage.cache_hit for r in again)


async def test_concurrency_is_bounded():
    in_flight = peak = 0
    server = FakeServer(delay_s=0.05)
    original = server._chat

    async def counting(request):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await original(request)
        finally:
            in_flight -= 1

    server._chat = counting  # type: ignore[method-assign]
    with server:
        model = get_model("openai:fake", base_url=server.base_url, concurrency=3, cache=False)
        await asyncio.gather(*(model.complete([{"role": "user", "content": str(i)}]) for i in range(12)))
    assert peak == 3


async def test_usage_log_has_one_line_per_call_with_tokens_and_step(fake_server):
    fake_server.cached_tokens = 4
    model = model_for(fake_server)
    await model.complete(ASK, step="pre_char")
    await model.complete(ASK, step="pre_char")
    lines = [json.loads(x) for x in (cache_dir() / "usage.jsonl").read_text().splitlines()]
    assert [x["cache_hit"] for x in lines] == [False, True]
    assert lines[0]["step"] == "pre_char" and lines[0]["prompt_tokens"] > 0 and lines[0]["cached_tokens"] == 4
    assert "latency_s" in lines[0] and model.usage_total.calls == 2


async def test_schema_is_sent_as_response_format(fake_server):
    class Skills(BaseModel):
        skills: list[str]

    parsed = await complete_json(model_for(fake_server), ASK, Skills)
    assert parsed.parse_ok and parsed.value.skills == ["perception"]
    sent = fake_server.requests[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"]["properties"]["skills"]


async def test_llguidance_options_are_not_sent_to_another_server(fake_server):
    schema = {"type": "object", "properties": {"Alex": {"type": "number"}}, "x-guidance": {"whitespace_flexible": False}}
    await model_for(fake_server).complete(ASK, json_schema=schema)
    sent = fake_server.requests[0]["response_format"]["json_schema"]["schema"]
    assert "x-guidance" not in sent and sent["properties"] == schema["properties"] and "grammar" not in fake_server.requests[0]


async def test_a_server_without_schema_support_falls_back_to_json_mode_then_plain(fake_server):
    fake_server.faults = ["400-response-format", "400-response-format"]
    model = model_for(fake_server)
    reply = await model.complete(ASK, json_schema={"type": "object"})
    kinds = [r.get("response_format", {}).get("type") for r in fake_server.requests]
    assert kinds == ["json_schema", "json_object", None] and reply.text
    assert model.structured == "none"


async def test_malformed_json_answer_is_repaired_or_flagged_not_raised(fake_server):
    class Skills(BaseModel):
        skills: list[str]

    fake_server.faults = ["bad-json-answer"]
    parsed = await complete_json(model_for(fake_server), ASK, Skills)
    assert parsed.parse_ok and parsed.repaired and parsed.value.skills == ["perception", "stealth"]
    fake_server.reply = "I cannot answer that."
    parsed = await complete_json(model_for(fake_server), [{"role": "user", "content": "again"}], Skills)
    assert not parsed.parse_ok and parsed.error and parsed.raw == "I cannot answer that."


def test_model_works_across_separate_event_loops(fake_server):
    model = model_for(fake_server, cache=False)
    assert asyncio.run(model.complete(ASK)).text
    assert asyncio.run(model.complete(ASK)).text


async def test_without_any_structured_mode_the_schema_goes_into_the_prompt(fake_server):
    class Skills(BaseModel):
        skills: list[str]

    model = model_for(fake_server)
    model.structured = "none"
    parsed = await complete_json(model, ASK, Skills)
    sent = fake_server.requests[0]
    assert parsed.parse_ok and "response_format" not in sent
    assert "JSON schema" in sent["messages"][-1]["content"] and '"skills"' in sent["messages"][-1]["content"]
    events = [json.loads(x) for x in (cache_dir() / "usage.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "parse" and events[-1]["parse_ok"] is True


def test_a_corrupt_cache_file_is_moved_aside_with_one_warning(tmp_path):
    from pipelines.llm import ResponseCache
    from pipelines.llm.cache import CacheWarning

    bad = tmp_path / "cache.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.warns(CacheWarning, match="moved it to cache.sqlite.broken-"):
        cache = ResponseCache(bad)
    cache.put("k", "m", {"text": "hi", "usage": {}})
    assert cache.get("k")["text"] == "hi" and cache.moved_aside.read_bytes().startswith(b"this is not")


async def test_the_same_request_in_flight_twice_is_sent_once(fake_server):
    fake_server.delay_s = 0.1
    model = model_for(fake_server)
    first, second, other = await asyncio.gather(model.complete(ASK, step="pre_char"), model.complete(ASK, step="pre_char"),
                                                model.complete([{"role": "user", "content": "else"}]))
    assert first.text == second.text and len(fake_server.requests) == 2
    assert not first.usage.cache_hit and second.usage.cache_hit


async def test_a_failed_request_in_flight_lets_the_waiter_try_itself(fake_server):
    fake_server.faults = ["400"]
    model = model_for(fake_server)
    results = await asyncio.gather(model.complete(ASK), model.complete(ASK), return_exceptions=True)
    assert isinstance(results[0], ModelError) and results[1].text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]), "content": st.text(max_size=30)}), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=2048),
    st.floats(min_value=0, max_value=2, allow_nan=False),
)
def test_cache_key_depends_on_exactly_model_messages_and_params(messages, max_tokens, temperature):
    from pipelines.llm.cache import request_key

    params = {"max_tokens": max_tokens, "temperature": temperature}
    key = request_key("m", messages, params)
    assert key == request_key("m", [dict(reversed(list(m.items()))) for m in messages], dict(reversed(list(params.items()))))
    assert key != request_key("other", messages, params)
    assert key != request_key("m", messages, {**params, "max_tokens": max_tokens + 1})
    assert key != request_key("m", [*messages, {"role": "user", "content": ""}], params)


async def test_a_list_schema_rejected_by_the_server_goes_to_plain_text_not_json_mode(fake_server):
    fake_server.faults = ["400-response-format"]
    fake_server.reply = '["perception", "stealth"]'
    model = model_for(fake_server)
    parsed = await complete_json(model, ASK, list[str])
    kinds = [r.get("response_format", {}).get("type") for r in fake_server.requests]
    assert kinds == ["json_schema", None] and parsed.value == ["perception", "stealth"]
    assert model.structured == "json_schema" and model.structured_other == "none"  # object schemas keep their mode
