"""`vgm play` at the terminal with a scripted model: hot-seat lines, commands, bad input, EOF saves."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from ui.cli import app

SCRIPT = """
steps:
  pre_char: ['{"characters": ["Oskar Venn"]}']
  char: ['{"characters": ["Oskar Venn"]}']
  skill: ['{"checks": [{"character": "Oskar Venn", "skill": "insight"}]}']
  narrate: ['Oskar reads the worry in Maren''s eyes.']
repeat_last: true
"""


def test_play_session_in_the_terminal(tmp_path):
    script = tmp_path / "gm.yaml"
    script.write_text(SCRIPT)
    save = tmp_path / "table.json"
    lines = "\n".join([
        "Oskar: I watch Maren's face. Is she lying?",
        "",  # empty line: ignored
        "Zed: I dance",  # unknown character: a note, play goes on
        "/roll 1d0",  # impossible dice: a note
        "/roll 3d6",
        "/who",
        "/nonsense",
    ]) + "\n"  # then end of input (Ctrl-D): save and leave
    result = CliRunner().invoke(app, ["play", "-m", f"scripted:{script}", "--seed", "2", "--memory", "hashing", "--save", str(save)], input=lines, env={"COLUMNS": "250"})
    out = result.output
    assert result.exit_code == 0, out
    assert "The Drowned Chapel" in out and "[roll] Oskar Venn — Insight: 1d20" in out
    assert "Oskar reads the worry in Maren's eyes." in out
    assert "no character 'Zed'" in out and "d0" in out and "unknown command /nonsense" in out
    assert f"resume with: vgm play --resume {save}" in out
    saved = json.loads(save.read_text())
    assert len(saved["turns"]) == 1 and saved["free_rolls"][0]["expression"] == "3d6"


def test_list_as_json():
    result = CliRunner().invoke(app, ["play", "--list", "--ruleset", "coc7e", "--json"])
    rows = json.loads(result.output)
    assert [r["scenario"] for r in rows] == ["lantern_house"]
    assert {c["name"] for c in rows[0]["characters"]} >= {"Dr. Margaret Hale", "Tomás Reyes"}


def test_bad_scenario_is_one_line(tmp_path):
    result = CliRunner().invoke(app, ["play", "--scenario", "nowhere", "-m", "scripted:x.yaml"])
    assert result.exit_code != 0
