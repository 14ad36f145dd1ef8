"""A real terminal: tmux drives `vgm play` on the local 0.5B model for three turns, reads the screen, then Ctrl-C saves."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

LINES = [
    "Brisa: I search under the altar for a hidden catch",
    "Oskar: I watch Maren's face. Is she lying to us?",
    "Ilya: I climb the broken stair to the bell tower",
]


def _screen(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-5000", "-t", session], capture_output=True, text=True).stdout


def _wait_for(session: str, predicate, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = _screen(session)
        if predicate(screen):
            return screen
        time.sleep(1.0)
    raise AssertionError(f"timed out; screen was:\n{_screen(session)[-3000:]}")


def test_three_turns_in_tmux(tmp_path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install -y tmux)")
    from pipelines.llm.local import ensure_installed

    ensure_installed("local:small")
    vgm = Path(sys.executable).with_name("vgm")
    save = tmp_path / "table.json"
    session = f"vgm-play-{uuid.uuid4().hex[:6]}"
    command = f"{vgm} play --model local:small --seed 4 --memory hashing --save {save}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(tmp_path), command],
                   check=True, env={**os.environ, "COLUMNS": "160"})
    subprocess.run(["tmux", "set-option", "-t", session, "remain-on-exit", "on"], check=True)
    try:
        _wait_for(session, lambda s: "/quit" in s and s.rstrip().endswith(">"), 120)
        for n, line in enumerate(LINES, start=1):
            subprocess.run(["tmux", "send-keys", "-t", session, "-l", line], check=True)
            subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)
            # the opening is one "GM:" line; each turn adds one narration
            _wait_for(session, lambda s, n=n: s.count("GM:") >= n + 1 and s.rstrip().endswith(">"), 400)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)  # Ctrl-C: save and leave
        screen = _wait_for(session, lambda s: "saved to" in s, 60)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert "The Drowned Chapel" in screen
    for line in LINES:
        assert line.split(": ", 1)[1] in screen
    saved = json.loads(save.read_text())
    assert len(saved["turns"]) == 3
    assert all(t["narration"].strip() for t in saved["turns"])
    rolled = [r for t in saved["turns"] for r in t["rolls"]]
    flat = "".join(screen.split())
    for r in rolled:  # every roll in the session was shown with its breakdown
        assert "".join(r["breakdown"].split()) in flat
