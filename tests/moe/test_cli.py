"""`vgm moe ...` end to end on the shipped sample, and one-line errors for bad input."""
import json

from typer.testing import CliRunner

from ui.cli import app

from .conftest import FIXTURES

runner = CliRunner()


def test_compare_baselines_on_sample(tmp_path):
    result = runner.invoke(app, ["moe", "compare", "--pipelines", "last_speaker,statistic", "--data", "sample", "-o", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output[result.output.index("{"):])
    assert [r["pipeline"] for r in table["rows"]] == ["last_speaker", "statistic"]
    assert (tmp_path / "compare.png").is_file() and (tmp_path / "report.md").is_file()
    again = runner.invoke(app, ["moe", "report", str(tmp_path), "--json"])
    assert json.loads(again.output)["rows"][0]["cf"] == table["rows"][0]["cf"]


def test_import_then_validate(tmp_path):
    out = tmp_path / "x.jsonl"
    result = runner.invoke(app, ["moe", "import", "fireball", str(FIXTURES / "fireball_events.jsonl"), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["kept"] == 2
    check = runner.invoke(app, ["moe", "validate", str(out), "--json"])
    assert json.loads(check.output)["instances"] == 2


def test_bad_data_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "ruleset": "dnd5e", "context": [{"speaker": "GM", "text": "x"}], "answers": [{"character": "A", "skill": "juggling"}]}\n')
    from ui.cli import main
    import subprocess, sys

    proc = subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", "moe", "validate", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "bad.jsonl:1: answers[0].skill" in proc.stderr and "Traceback" not in proc.stderr
