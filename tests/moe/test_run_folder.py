"""Run folders that cannot be corrupted, and errors that are results (issue 13).

Given a kill mid-line, a second writer, a resume with other settings, a model that fails on
some instances, or a bad option: nothing is lost, nothing is mixed, nothing is half-written,
and the errors show in the table and the exit code.
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from typer.testing import CliRunner

from eval.moe import RunFolder, RunFolderError, build_report, load_moe
from eval.moe.dataset import DatasetError
from eval.moe.importers import import_source
from eval.moe.runner import RunError, compare_moe, run_pipelines
from pipelines.llm import ModelError, ScriptedModel
from ui.cli import app

from .conftest import FIXTURES, REPO
from .test_runner import oracle

cli = CliRunner()


def record(iid: str, **extra) -> dict:
    return {"id": iid, "prediction": [{"character": "Jéster", "skill": "perception"}], "gold": [{"character": "Jéster", "skill": "perception"}],
            "error": None, **extra}


# --- reading -----------------------------------------------------------------------------------

def test_a_torn_multibyte_tail_is_dropped_with_a_note(tmp_path):
    (tmp_path / "run.json").write_text('{"pipeline": "x"}')
    whole = "".join(json.dumps(record(f"i{k}"), ensure_ascii=False) + "\n" for k in range(3)).encode()
    torn = json.dumps(record("i3"), ensure_ascii=False).encode()
    cut = torn.index("é".encode()) + 1  # inside the two bytes of é
    (tmp_path / "predictions.jsonl").write_bytes(whole + torn[:cut])
    folder = RunFolder(tmp_path)
    assert list(folder.latest()) == ["i0", "i1", "i2"]
    assert len(folder.notes) == 1 and "predictions.jsonl:4: the last line is cut off" in folder.notes[0]


def test_a_bad_middle_line_is_one_line_naming_it(tmp_path):
    (tmp_path / "run.json").write_text('{"pipeline": "x"}')
    (tmp_path / "predictions.jsonl").write_bytes(b'{"id": "a"}\n\xff\xfe garbage\n{"id": "b"}\n')
    with pytest.raises(RunFolderError, match=r"predictions.jsonl:2: is not UTF-8 text.*remove that line"):
        RunFolder(tmp_path).latest()


@pytest.mark.parametrize("text", ['{"pipeline": "tem', '{"limit": ' + "9" * 5000 + "}"])
def test_a_truncated_or_unreadable_run_json_is_one_line(tmp_path, text):
    (tmp_path / "run.json").write_text(text)
    with pytest.raises(RunFolderError, match=r"run.json: not valid JSON"):
        RunFolder(tmp_path).meta()


def test_retried_ids_latest_wins_and_errors_are_kept(tmp_path):
    (tmp_path / "run.json").write_text('{"pipeline": "x"}')
    lines = [record("a", error="timeout"), record("b"), record("a"), record("c", error="boom")]
    (tmp_path / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    folder = RunFolder(tmp_path)
    assert folder.done_ids() == {"a", "b"}
    assert folder.errors() == {"c": "boom"}
    assert list(folder.latest()) == ["a", "b", "c"]


# --- writing -----------------------------------------------------------------------------------

async def test_resume_cuts_a_torn_multibyte_tail_and_finishes(tmp_path):
    folder = tmp_path / "run"
    await run_pipelines(["template"], "sample", {"template": folder}, model=oracle(), model_name="scripted", limit=4)
    path = folder / "predictions.jsonl"
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rindex(b"\n") + 1
    torn = data[:last_start] + "{\"id\": \"dnd-04\", \"utterance\": \"Jéster".encode()[:-1]  # cut inside é
    path.write_bytes(torn)
    model = oracle()
    await run_pipelines(["template"], "sample", {"template": folder}, model=model, model_name="scripted", limit=4)
    assert len(model.requests) == 1  # only the torn instance ran again
    lines = path.read_bytes().splitlines()
    assert all(json.loads(line) for line in lines) and len(lines) == 4
    assert len(RunFolder(folder).latest()) == 4


def test_a_second_writer_gets_one_line(tmp_path):
    first = RunFolder(tmp_path)
    with first.writing({"pipeline": "x"}):
        with pytest.raises(RunFolderError, match=r"in use by another run \(pid \d+\)"):
            with RunFolder(tmp_path).writing({"pipeline": "x"}):
                pass
    assert not (tmp_path / ".lock").exists()
    with RunFolder(tmp_path).writing({"pipeline": "x"}) as again:  # released: a later writer may come in
        again.append({"id": "a"})


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    import socket

    (tmp_path / ".lock").write_text(f"{dead} {socket.gethostname()}")
    with RunFolder(tmp_path).writing({"pipeline": "x"}) as folder:
        folder.append({"id": "a"})
    assert list(RunFolder(tmp_path).latest()) == ["a"]


@pytest.mark.parametrize("first, second, key", [
    ({"limit": 5}, {"limit": 3}, "limit"),
    ({"limit": 3}, {"limit": None}, "limit"),
])
async def test_a_resume_with_other_settings_is_refused(tmp_path, first, second, key):
    await run_pipelines(["last_speaker"], "sample", {"last_speaker": tmp_path}, **first)
    before = (tmp_path / "predictions.jsonl").read_bytes()
    with pytest.raises(RunError, match=f"holds a run with {key}="):
        await run_pipelines(["last_speaker"], "sample", {"last_speaker": tmp_path}, **second)
    assert (tmp_path / "predictions.jsonl").read_bytes() == before


async def test_a_resume_over_changed_data_is_refused(tmp_path):
    data = tmp_path / "d.jsonl"
    lines = (REPO / "eval/moe/data/sample.jsonl").read_text().splitlines()
    data.write_text("\n".join(lines[:4]) + "\n")
    await run_pipelines(["last_speaker"], data, {"last_speaker": tmp_path / "run"})
    data.write_text("\n".join(lines[1:5]) + "\n")
    with pytest.raises(RunError, match="holds a run with data_hash="):
        await run_pipelines(["last_speaker"], data, {"last_speaker": tmp_path / "run"})


def test_kill_9_mid_run_then_resume_loses_nothing(tmp_path):
    """A real kill -9 while the runner appends; the resume completes every instance exactly once."""
    out = tmp_path / "run"
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(f"""
        import asyncio, json, sys, time
        sys.path.insert(0, {str(REPO)!r})
        from pipelines.llm import ScriptedModel
        from eval.moe.runner import run_pipelines

        def respond(step, messages):
            time.sleep(0.05)
            return json.dumps({{"checks": [{{"character": "Jéster", "skill": "perception"}}]}})

        asyncio.run(run_pipelines(["template"], "sample", {{"template": {str(out)!r}}}, model=ScriptedModel(responder=respond),
                                  model_name="scripted", concurrency=1))
    """))
    proc = subprocess.Popen([sys.executable, str(script)], cwd=REPO)
    deadline = time.time() + 60
    while time.time() < deadline:
        path = out / "predictions.jsonl"
        if path.is_file() and path.read_bytes().count(b"\n") >= 5:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # and a torn multi-byte tail on top, as if the kill had hit mid-write
    with (out / "predictions.jsonl").open("ab") as handle:
        handle.write('{"id": "zz", "utterance": "é'.encode()[:-1])
    before = [json.loads(line) for line in (out / "predictions.jsonl").read_bytes().splitlines()[:-1]]
    assert len(before) >= 5 and (out / ".lock").exists()  # the killed run left its lock behind
    asyncio_run = __import__("asyncio").run
    asyncio_run(run_pipelines(["template"], "sample", {"template": out}, model=oracle(), model_name="scripted"))
    latest = RunFolder(out).latest()
    assert len(latest) == len(load_moe("sample")) and not any(r.get("error") for r in latest.values())
    after = [json.loads(line) for line in (out / "predictions.jsonl").read_bytes().splitlines()]
    assert after[: len(before)] == before  # nothing written before the kill was lost or rewritten
    assert len(after) == len(latest)  # each instance exactly once


# --- errors are results ----------------------------------------------------------------------

def failing_on(ids: set[str]) -> ScriptedModel:
    """An oracle that raises a model error on the instances whose context mentions one of ``ids``' first speaker."""
    good = oracle()

    def respond(step, messages):
        if any(i in messages[1]["content"] for i in ids):
            raise ModelError("server went away (injected)")
        return good._responder(step, messages)

    return ScriptedModel(responder=respond)


async def test_errors_show_in_every_form_and_a_rerun_completes_them(tmp_path):
    sample = load_moe("sample")[:6]
    marker = {sample[1].context[-1].text[:25], sample[4].context[-1].text[:25]}
    out = {"template": tmp_path / "template", "last_speaker": tmp_path / "last_speaker"}
    await run_pipelines(list(out), "sample", out, model=failing_on(marker), model_name="scripted", limit=6)
    report = build_report([tmp_path])
    row = next(r for r in report.rows if r.pipeline == "template")
    assert report.errors == 2 and row.metrics["errors"] == 2 and row.metrics["n"] == 6 and row.metrics["n_answered"] == 4
    assert row.metrics["answered"]["cf"]["value"] >= row.metrics["cf"]["value"]
    assert "| template | scripted | 6 | 2 (33%) |" in report.markdown()
    assert "(all)" in report.markdown() and "(answered)" in report.markdown()
    header, *lines = report.csv().splitlines()
    columns = header.split(",")
    template_csv = dict(zip(columns, next(l for l in lines if l.startswith("template")).split(",")))
    assert template_csv["errors"] == "2" and template_csv["n_answered"] == "4"
    assert next(r for r in report.as_json()["rows"] if r["pipeline"] == "template")["errors"] == 2
    # the rerun retries exactly the two
    model = oracle()
    await run_pipelines(list(out), "sample", out, model=model, model_name="scripted", limit=6)
    assert len(model.requests) == 2 and build_report([tmp_path]).errors == 0


def test_cli_exits_nonzero_on_errors_unless_allowed(tmp_path):
    replies = tmp_path / "replies.yaml"
    reply = '{"checks": [{"character": "Jester", "skill": "perception"}]}'
    replies.write_text(json.dumps({"steps": {"template": [reply] * 2}}))  # 3 instances, 2 replies: one errors
    args = ["moe", "compare", "--pipelines", "template", "--data", "sample", "--limit", "3", "-m", f"scripted:{replies}", "-o", str(tmp_path / "c")]
    failed = cli.invoke(app, args)
    assert failed.exit_code == 1 and "1 instance(s) errored" in failed.output
    report = cli.invoke(app, ["moe", "report", str(tmp_path / "c")])
    assert report.exit_code == 1
    assert cli.invoke(app, ["moe", "report", str(tmp_path / "c"), "--allow-errors"]).exit_code == 0
    replies.write_text(json.dumps({"steps": {"template": [reply] * 3}}))
    fixed = cli.invoke(app, args)
    assert fixed.exit_code == 0, fixed.output


# --- options checked before anything is written --------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"limit": 0}, "--limit 0"),
    ({"limit": -3}, "--limit -3"),
    ({"concurrency": 0}, "--concurrency 0"),
    ({"pipelines": ["telepathy"]}, "unknown pipeline 'telepathy'"),
    ({"pipelines": ["tbs_gm_gm"]}, "GM utterance twice"),
    ({"prompting": "helpful"}, "--prompting 'helpful'"),
    ({"pipelines": ["tbs"], "model": None}, "pass --model"),
    ({"data": "nope.jsonl"}, "no such data file"),
    ({"pipelines": ["x" * 300]}, "unknown pipeline 'xxxx"),
    ({"pipelines": []}, "no pipelines given"),
])
def test_bad_options_write_nothing(tmp_path, kwargs, message):
    options = {"pipelines": ["last_speaker"], "data": "sample", "model": "scripted:x", **kwargs}
    out = tmp_path / "out"
    with pytest.raises(Exception, match=message) as caught:
        compare_moe(options.pop("pipelines"), options.pop("data"), out, **options)
    assert "VgmError" in [c.__name__ for c in type(caught.value).__mro__]
    assert not out.exists()


def test_output_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("keep me")
    with pytest.raises(RunFolderError, match="is a file"):
        compare_moe(["last_speaker"], "sample", target)
    assert target.read_text() == "keep me"


def test_bad_split_writes_nothing(tmp_path):
    out = tmp_path / "x.jsonl"
    with pytest.raises(Exception, match="--split"):
        import_source("fireball", FIXTURES / "fireball_events.jsonl", out, split="80/20")
    assert not out.exists()


def test_gold_naming_a_character_not_at_the_table_is_refused(tmp_path):
    line = {"id": "a", "ruleset": "dnd5e", "characters": ["Jester"], "context": [{"speaker": "Jester", "text": "I look."}],
            "answers": [{"character": "Gandalf", "skill": "perception"}]}
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(DatasetError, match=r"d.jsonl:1: answers\[0\].character 'Gandalf' is not at the table \(Jester\)"):
        load_moe(path)


def test_non_utf8_data_is_one_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'\x1f\x8b\x08\x00binary')
    with pytest.raises(DatasetError, match=r"d.jsonl: is gzip"):
        load_moe(path)
