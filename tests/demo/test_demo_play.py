"""The demo's last part: three turns at a shipped table, then the commands to go further."""
from __future__ import annotations

import importlib.util
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from ui.cli import app

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("demo_play", REPO / "scripts" / "demo_play.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """The play script once, on a scripted model (the GM and its dice are the real ones)."""
    folder = tmp_path_factory.mktemp("demo")
    replies = folder / "replies.yaml"
    replies.write_text('default: ["The water is cold and black."]\nrepeat_last: true\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "demo_play.py"), "-m", f"scripted:{replies}", "-o", str(folder / "play")],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, folder / "play"


def test_three_turns_are_shown_as_a_player_sees_them_with_their_times(demo_run):
    shown, saved_in = demo_run
    for number, (line, kind) in enumerate(_script().TURNS, 1):
        assert f"Brisa> {line}" in " ".join(shown.split())
        assert f"(turn {number}, {kind}: " in shown
    assert "[roll] Brisa Tallowmere — Investigation" in shown, "the act that needs a check is rolled in the open"
    assert shown.count("GM: ") >= 4, "the opening and a GM answer to each of the three lines"
    saved = list(saved_in.glob("*.json"))
    assert len(saved) == 1 and f"vgm play --resume {saved[0]}" in shown


def test_the_last_lines_point_to_play_a_rating_study_and_a_social_game(demo_run):
    tail = demo_run[0][demo_run[0].rindex("Next"):]
    for command in ("vgm play --scenario", "vgm rate create", "vgm ui --study", "vgm mafia simulate"):
        assert command in tail


def test_every_printed_command_exists_with_the_flags_it_is_given():
    root = typer.main.get_command(app)
    for _, commands in _script().next_steps("local:small", "runs/demo/play/x.json"):
        for text in commands:
            words = shlex.split(text)
            assert words[0] == "vgm"
            command, k = root, 1
            while k < len(words) and not words[k].startswith("-") and hasattr(command, "commands") and words[k] in command.commands:
                command, k = command.commands[words[k]], k + 1
            assert command is not root, text
            known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
            given = [w for w in words[k:] if w.startswith("-")]
            assert given and set(given) <= known, f"{text}: {sorted(set(given) - known)} not options of vgm {' '.join(words[1:k])}"
