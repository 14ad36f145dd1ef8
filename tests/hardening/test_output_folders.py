"""A command that fails before its work leaves no output folder behind (issue 43): `vgm avalon
simulate --games 2 --out X --seats llm:gpt-17` said what was wrong and left an empty X; `vgm play
eval` left run.json, `vgm inmind run` counts.json and `vgm reproduce` a copy of the data. A folder
that was there before, or that holds results, stays."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ui.cli import app

BAD_MODEL = "unknown model string 'gpt-17'"


@pytest.mark.parametrize("args", [
    ["avalon", "simulate", "--games", "2", "--seats", "llm:gpt-17"],
    ["mafia", "simulate", "--games", "2", "--seats", "llm:gpt-17"],
    ["avalon", "simulate", "--games", "1", "--seats", "llm:gpt-17", "--inmind-record", "participant"],
    ["play", "eval", "eval/play/cases/fresh34.yaml", "-m", "gpt-17"],
])
def test_a_bad_model_leaves_no_output_folder(tmp_path, args):
    out = tmp_path / "runs" / "X"
    result = CliRunner().invoke(app, [*args, "--out" if args[0] != "play" else "-o", str(out)])
    assert result.exit_code != 0 and BAD_MODEL in result.output + str(result.exception), result.output
    assert not out.exists() and not (tmp_path / "runs").exists()  # the parents it made go too


def test_a_folder_that_was_there_stays_with_what_it_held(tmp_path):
    out = tmp_path / "X"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    result = CliRunner().invoke(app, ["avalon", "simulate", "--games", "2", "--out", str(out), "--seats", "llm:gpt-17"])
    assert result.exit_code != 0 and (out / "mine.txt").read_text() == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir()
    CliRunner().invoke(app, ["mafia", "simulate", "--games", "2", "--out", str(empty), "--seats", "llm:gpt-17"])
    assert empty.is_dir()  # not this command's to remove


def test_the_folder_goes_only_while_it_holds_no_file(tmp_path):
    from ui._outdir import output_folder

    out = tmp_path / "a" / "b"
    with pytest.raises(RuntimeError):
        with output_folder(out):
            (out / "sub").mkdir(parents=True)
            raise RuntimeError("before any result")
    assert not (tmp_path / "a").exists()
    with pytest.raises(RuntimeError):
        with output_folder(out):
            out.mkdir(parents=True)
            (out / "results.jsonl").write_text("{}\n")
            raise RuntimeError("after a result: resumable")
    assert (out / "results.jsonl").exists()
