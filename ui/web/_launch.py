"""Run ``vgm ui`` (``ServerProcess``) or ``vgm table serve`` (``TableProcess``) as a child process on a free
loopback port: for tests, benchmarks, the attack script and screenshots."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(cmd: list[str], what: str, url: str, timeout: float, cwd: str | Path | None, env: dict[str, str],
           log_path: Path | None, grace: float) -> subprocess.Popen:
    """Start ``cmd`` and wait until ``url``/healthz answers; a child that exits or stays silent is an error (and is stopped)."""
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=out)
    if log_path:
        out.close()  # the child holds its own copy
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}; see {log_path or 'its output'}")
        try:
            if httpx.get(url + "/healthz", timeout=1.0).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    _stop(proc, hard=False, grace=grace)
    raise RuntimeError(f"{what} did not answer on {url} within {timeout:.0f} s")


def _stop(proc: subprocess.Popen | None, hard: bool, grace: float) -> None:
    """SIGTERM (or SIGKILL when ``hard``), then a kill if it is not gone within ``grace`` seconds."""
    if proc and proc.poll() is None:
        proc.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class ServerProcess:
    """``with ServerProcess(study="s.db") as server: httpx.get(server.url + "/healthz")``.

    Stops the child (and only it) on exit; ``restart()`` kills it hard and starts it again,
    to show that nothing stored is lost.
    """

    def __init__(self, study: str | Path | None = None, runs: str | Path | None = None, logs: str | Path | None = None,
                 extra: list[str] | None = None, cwd: str | Path | None = None, log_path: str | Path | None = None):
        self.args = [sys.executable, "-c", "from ui.cli import main; main()", "ui"]
        if study:
            self.args += ["--study", str(study)]
        if runs:
            self.args += ["--runs", str(runs)]
        if logs:
            self.args += ["--logs", str(logs)]
        self.args += extra or []
        self.cwd = cwd
        self.log_path = Path(log_path) if log_path else None
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> "ServerProcess":
        env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
        self.proc = _start([*self.args, "--port", str(self.port)], "vgm ui", self.url, timeout, self.cwd, env, self.log_path, grace=10)
        return self

    def stop(self, hard: bool = False) -> None:
        _stop(self.proc, hard, grace=10)
        self.proc = None

    def restart(self) -> None:
        self.stop(hard=True)
        self.start()

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class TableProcess:
    """``vgm table serve`` as a child process on a free loopback port, for benchmarks and the attack script.

    ``with TableProcess(tmp / "room.json", ["--scenario", "ambush", "--model", "openai:fake"], env=...) as table:``
    ``table.tokens`` maps seats to tokens; ``kill()`` is kill -9; ``start()`` again reopens the
    room from its session file (``--resume``), same links.
    """

    def __init__(self, session: str | Path, args: list[str], env: dict[str, str] | None = None,
                 log_path: str | Path | None = None, cwd: str | Path | None = None) -> None:
        self.session = Path(session)
        self.args = list(args)
        self.env = {**os.environ, **(env or {})}
        self.log_path = Path(log_path) if log_path else None
        self.cwd = cwd
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def tokens(self) -> dict[str, str]:
        import json

        return json.loads(self.session.with_name(self.session.stem + ".links.json").read_text())["tokens"]

    def start(self, timeout: float = 180.0) -> "TableProcess":
        first = not self.session.exists()
        where = ["--save", str(self.session)] + self.args if first else ["--resume", str(self.session)] + [
            a for a in self.args if a.startswith("--memory") or a in ("hashing", "minilm", "off")]
        cmd = [sys.executable, "-c", "from ui.cli import main; main()", "table", "serve", *where, "--port", str(self.port)]
        self.proc = _start(cmd, "vgm table serve", self.url, timeout, self.cwd, self.env, self.log_path, grace=20)
        return self

    def rss_mb(self) -> float:
        import psutil

        assert self.proc is not None
        return psutil.Process(self.proc.pid).memory_info().rss / 2**20

    def kill(self) -> None:
        """kill -9: no handler runs, nothing is flushed."""
        self.stop(hard=True)

    def stop(self, hard: bool = False) -> None:
        _stop(self.proc, hard, grace=20)
        self.proc = None

    def __enter__(self) -> "TableProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
