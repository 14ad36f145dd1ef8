"""`vgm reproduce` writes one report with each number beside the paper's, on whatever data is present."""
import json

from typer.testing import CliRunner

from eval.reproduce import TACHIKUMA_TABLE2, reproduce
from ui.cli import app

from .conftest import shared_data

cli = CliRunner()
CHECKS = '{"checks": [{"character": "Jester", "skill": "perception"}]}'


def script(tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text(json.dumps({"steps": {"pre_char": ['{"characters": ["Jester"]}'], "char": ['{"characters": ["Jester"]}'],
                                          "skill": [CHECKS], "template": [CHECKS]}, "repeat_last": True}))
    return f"scripted:{path}"


def test_reproduce_on_the_sample_with_a_scripted_model(tmp_path):
    empty = tmp_path / "no-data"
    empty.mkdir()
    report = reproduce(tmp_path / "out", model=script(tmp_path), data=empty, limit=3)
    text = (tmp_path / "out" / "report.md").read_text()
    assert "the shipped sample" in text and "Prompting: faithful" in text and "formulas (1)-(6) as written" in text
    for name, paper in TACHIKUMA_TABLE2.items():
        assert f"| {name} |" in text and f"{paper['gpt-3.5'][0]:.2f} / {paper['gpt-4'][0]:.2f}" in text
    assert "| knn |" in text and "| oracle_char |" in text and "Paired tests against `last_speaker`" in text
    assert "No InMind sessions" in text and "No MafiaScope logs" in text
    assert (tmp_path / "out" / "tachikuma.png").read_bytes()[:4] == b"\x89PNG"
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["errors"] == 0 and len(saved["parts"]["Tachikuma MOE"]["rows"]) == 10
    # a second call resumes the run folders: no model call is needed
    again = reproduce(tmp_path / "out", model=script(tmp_path), data=empty, limit=3)
    assert again.parts[0].data["rows"] == report.parts[0].data["rows"]


def test_reproduce_reads_inmind_and_mafiascope_when_present(tmp_path):
    root = shared_data()
    if root is None:
        import pytest

        pytest.skip("no shared data beside the clone")
    data = tmp_path / "data"
    data.mkdir()
    for part in ("inmind", "mafiascope"):
        (data / part).symlink_to(root / part)
    result = cli.invoke(app, ["reproduce", "-o", str(tmp_path / "out"), "-m", "none", "--data", str(data), "--limit", "2"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "report.md").read_text()
    assert "| ECE (bins of width 20) |" in text and "0.168 [0.130, 0.203]" in text
    assert "| player identification cases |" in text and "| Top-1 |" in text
    assert (tmp_path / "out" / "mafiascope" / "reliability.png").is_file()


def test_bad_limit_is_one_line(tmp_path):
    result = cli.invoke(app, ["reproduce", "-o", str(tmp_path / "out"), "-m", "none", "--limit", "0"])
    assert result.exit_code != 0 and "--limit 0" in str(result.exception) and not (tmp_path / "out").exists()
