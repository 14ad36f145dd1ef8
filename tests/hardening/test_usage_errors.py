"""A mistyped command line gets one line that says what is wrong and where the help is."""
from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv, words", [
    (["play", "--cluster", "ray"], "No such option: --cluster"),
    (["nosuch"], "No such command 'nosuch'"),
    (["play", "eval"], "Missing argument"),
    (["moe", "run", "--limit", "abc"], "Invalid value for '--limit'"),
])
def test_usage_errors_are_one_line_with_exit_2(argv, words):
    done = subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", *argv],
                          capture_output=True, text=True, timeout=120)
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 2
    assert len(said) == 1 and said[0].startswith("error: ") and words in said[0] and "--help" in said[0]
