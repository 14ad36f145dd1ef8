"""Ctrl-C in ``vgm mafia play`` (once, or twice while input waits): one line naming the game log,
exit status 130, no traceback."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _read(fd: int, seconds: float) -> bytes:
    out, end = b"", time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def _ctrl_c_as_at_a_terminal() -> None:
    """Ctrl-C reaches the game as it does at a terminal, even when the tests were started in the
    background (``cmd &`` without job control starts them with SIGINT ignored, which a child
    inherits, and Python then never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_in_mafia_play_is_one_line_naming_the_log(tmp_path, presses):
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "VGM_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli", "mafia", "play", "--others", "scripted", "--seat", "1",
                             "--seed", "3", "-o", str(tmp_path / "games")], stdin=slave, stdout=slave, stderr=slave,
                            cwd=ROOT, env=env, preexec_fn=_ctrl_c_as_at_a_terminal)
    os.close(slave)
    try:
        out = b""
        deadline = time.time() + 60
        while b"> " not in out and time.time() < deadline:
            out += _read(master, 0.5)
        assert b"> " in out, out.decode(errors="replace")
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
            out += _read(master, 0.7)
        proc.wait(timeout=30)
        out += _read(master, 0.5)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = out.decode(errors="replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "never retrieved" not in text, text
    tail = [line for line in text.splitlines() if "interrupted" in line]
    assert len(tail) == 1 and str(tmp_path / "games" / "mafia-play-3.jsonl") in tail[0], text
    assert (tmp_path / "games" / "mafia-play-3.jsonl").read_text().strip()  # the log so far is kept
