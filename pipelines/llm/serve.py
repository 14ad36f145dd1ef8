"""Run a GGUF model behind llama.cpp's OpenAI-compatible HTTP server (``xllamacpp``).

The server runs in a child process (``python -m pipelines.llm.serve``) so a crash in native
code cannot take the caller down, a crashed server can be restarted, and stopping it is a
plain terminate. The child prints one JSON line with its address once the model is
loaded. A private server is stopped at exit (and exits by itself if its parent dies); a
shared one is announced to this user's other processes, which borrow it, and it outlives
its starter only while in use: it exits after ``VGM_SERVER_LINGER`` idle seconds.

Prompt caching is on (``cache_prompt``): a request that starts with the same tokens as an
earlier one (the long table log every pipeline step shares) reuses them, and the server
reports how many in ``usage.prompt_tokens_details.cached_tokens``.
"""
from __future__ import annotations

import argparse
import atexit
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

from ._env import env_number
from ._types import ModelError

DEFAULT_CTX = 12288  # per slot: a 4-8k-token MOE context plus the steps' questions and answers
DEFAULT_PARALLEL = 2  # two slots: batched decoding of two requests costs little more than one on a CPU
START_TIMEOUT_S = 180.0


def default_threads() -> int:
    """``$VGM_THREADS``, else the cores this process may use minus those busy right now (min 1).

    With other work on the machine, 1 thread is often far faster than all cores: llama.cpp
    threads wait for each other at every layer, so one descheduled thread stalls them all.
    So the default leaves out the cores in use now, sampled for a quarter second (psutil). The
    one-minute load average was used before, but it still counts work that has just ended (a
    test run, the case set embedded a moment ago): on an idle 2-core machine it chose 1 thread,
    and the 0.5B model's turn took 12.8 s p50 against 7.4 s with 2 (bench/play_turn.py).
    """
    chosen = env_number("VGM_THREADS", int, None, "1")
    if chosen is not None:
        return max(1, chosen)
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        cores = max(1, os.cpu_count() or 1)
    try:
        busy = round(sum(psutil.cpu_percent(interval=0.25, percpu=True)) / 100)
    except (OSError, RuntimeError):  # no /proc to read: the load average, as before
        try:
            busy = round(os.getloadavg()[0])
        except OSError:
            busy = 0
    # Measured here at load 4-5 on 2 cores: 2 threads 0.6-0.8 tok/s generation, 1 thread 11-17 tok/s.
    return max(1, cores - busy)


@dataclass(frozen=True)
class ServerConfig:
    """What a server is started with; equal configs share one server in a process."""

    model_path: str
    threads: int
    ctx: int = DEFAULT_CTX
    parallel: int = DEFAULT_PARALLEL
    port: int = 0  # 0: a free port chosen by the OS
    share: bool = True  # reuse (and offer) one server per model across processes of this user
    batch_invariant: bool = False  # same logits whatever the batch: a cached prefix answers like a fresh prompt

    @classmethod
    def for_model(cls, model_path: str | Path, *, threads: int | None = None, port: int = 0) -> "ServerConfig":
        return cls(
            model_path=str(Path(model_path).expanduser().resolve()),
            threads=threads or default_threads(),
            ctx=env_number("VGM_CTX", int, DEFAULT_CTX, str(DEFAULT_CTX)),
            parallel=env_number("VGM_PARALLEL", int, DEFAULT_PARALLEL, str(DEFAULT_PARALLEL)),
            port=port,
            share=os.environ.get("VGM_SHARE_SERVER", "1").strip().lower() not in ("0", "false", "no"),
            batch_invariant=os.environ.get("VGM_BATCH_INVARIANT", "0").strip().lower() in ("1", "true", "yes"),
        )

    def share_key(self) -> str:
        """Servers with the same file, context, slots and kernels are interchangeable."""
        kernels = "|batch-invariant" if self.batch_invariant else ""
        return hashlib.sha1(f"{self.model_path}|{self.ctx}|{self.parallel}{kernels}".encode()).hexdigest()[:16]


def linger_s() -> float:
    """Seconds a shared server outlives its starter while idle (``VGM_SERVER_LINGER``, 30)."""
    return max(0.0, env_number("VGM_SERVER_LINGER", float, 30.0, "30"))


def log_dir() -> Path:
    env = os.environ.get("VGM_CACHE_DIR")
    base = Path(env).expanduser() if env else Path.home() / ".cache" / "virtual-gm"
    return base / "logs"


def build_params(config: ServerConfig):
    """The ``xllamacpp.CommonParams`` for a config (imported lazily: it loads native code)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = config.model_path
    params.n_ctx = config.ctx * max(1, config.parallel)  # split evenly: every slot gets its own ctx
    params.kv_unified = False  # so two long contexts at once never run out of cells mid-request
    params.n_parallel = max(1, config.parallel)
    params.cache_prompt = True
    params.cache_ram_mib = 1024  # host-RAM copies of old prefixes; the machine is shared
    params.cpuparams.n_threads = config.threads
    params.cpuparams_batch.n_threads = config.threads
    params.cpuparams.poll = 0  # sleep rather than spin between jobs: other processes need the cores
    params.cpuparams_batch.poll = 0
    params.hostnames = ["127.0.0.1"]
    params.port = config.port
    params.verbosity = 0
    params.endpoint_metrics = True
    if config.batch_invariant:
        # Measured on this CPU (greedy logprobs of one ~830-token prompt, cached prefix vs cache_prompt: false):
        # with the repacked Q4_K weights (a 4-row gemm beside a 1-row gemv) and flash attention (another
        # kernel for few queries) the cached prompt's token logprobs were up to 0.04-0.06 nats off the whole
        # one; with plain per-row dot products and unfused attention they were bit-identical (3 of 3).
        params.no_extra_bufts = True
        params.flash_attn_type = 0
    return params


def _runtime_dir() -> Path:
    """Where running servers are announced to other processes of this user (``$VGM_RUNTIME_DIR``:
    a group of processes of its own, such as one test run, sharing servers only among themselves)."""
    own = os.environ.get("VGM_RUNTIME_DIR", "").strip()
    return Path(own) if own else Path(tempfile.gettempdir()) / f"virtual-gm-{os.getuid()}" / "servers"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _healthy(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=2) as response:
            return response.status == 200
    except (OSError, ValueError):
        return False


class LocalServer:
    """One llama.cpp server child process; ``base_url`` is its ``http://127.0.0.1:port``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.process: subprocess.Popen | None = None
        self.base_url: str | None = None
        self.load_s: float = 0.0
        self.starts = 0
        self.pid: int | None = None  # the server process (ours, or another process's we borrow)
        self.owned = False
        self.log_path = log_dir() / f"llama-server-{os.getpid()}-{Path(config.model_path).stem}.log"

    def alive(self) -> bool:
        if self.process is not None:
            return self.process.poll() is None
        return self.pid is not None and _pid_alive(self.pid)

    # -- sharing one server between processes ------------------------------------------------
    def _announcement(self) -> Path:
        return _runtime_dir() / f"{self.config.share_key()}.json"

    def borrow(self) -> bool:
        """Use a healthy server another process announced for the same model."""
        try:
            info = json.loads(self._announcement().read_text())
            pid, base_url = int(info["pid"]), str(info["base_url"])
        except (OSError, ValueError, KeyError, TypeError):
            return False
        if not (_pid_alive(pid) and _healthy(base_url)):
            return False
        self.pid, self.base_url, self.owned, self.process = pid, base_url, False, None
        return True

    def announce(self) -> None:
        """Tell this user's other processes about our server, unless one is already offered."""
        other = LocalServer(self.config)
        if other.borrow() and other.pid != self.pid:
            return
        path = self._announcement()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"pid": self.pid, "base_url": self.base_url, "owner": os.getpid(), "model_path": self.config.model_path}))
        os.replace(tmp, path)

    def _withdraw(self) -> None:
        if self.pid is not None:
            _withdraw_announcement(self._announcement(), self.pid)

    def start(self) -> str:
        """Start the child and wait until the model is loaded; returns the base URL."""
        if not Path(self.config.model_path).is_file():
            raise ModelError(f"model file {self.config.model_path} not found; give local:/path/to/model.gguf or run `vgm models install`")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            sys.executable, "-m", "pipelines.llm.serve", "--child",
            "--model-path", self.config.model_path, "--threads", str(self.config.threads),
            "--ctx", str(self.config.ctx), "--parallel", str(self.config.parallel), "--port", str(self.config.port),
            "--linger", str(linger_s() if self.config.share else 0), "--announcement", str(self._announcement()),
            *(["--batch-invariant"] if self.config.batch_invariant else []),
        ]
        started = time.monotonic()
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1", "VGM_SERVER_PARENT": str(os.getpid())},
                cwd=str(Path(__file__).resolve().parents[2]),
            )
        line = self._first_line(START_TIMEOUT_S)
        try:
            info = json.loads(line)
            self.base_url, self.pid = info["base_url"], int(info["pid"])
        except (ValueError, KeyError, TypeError):
            self.stop()
            raise ModelError(
                f"the local model server for {Path(self.config.model_path).name} did not start; see {self.log_path}"
            ) from None
        self.load_s = time.monotonic() - started
        self.starts += 1
        self.owned = True
        return self.base_url

    def _first_line(self, timeout: float) -> str:
        assert self.process is not None and self.process.stdout is not None
        out: list[bytes] = []
        reader = threading.Thread(target=lambda: out.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if not out:
            self.stop()
            raise ModelError(f"the local model server did not load within {timeout:.0f} s; see {self.log_path}")
        return out[0].decode("utf-8", "replace").strip()

    def stop(self, *, force: bool = True) -> None:
        """Stop our own server (a borrowed one is only forgotten).

        With ``force=False`` (at exit) a shared server is left to finish for its borrowers;
        it stops itself once idle for ``VGM_SERVER_LINGER`` seconds.
        """
        if not force and self.owned and self.config.share and linger_s() > 0 and self.alive():
            proc, self.process = self.process, None
            if proc is not None and proc.stdout:
                proc.stdout.close()
            self.pid, self.owned = None, False
            return
        if self.owned:
            self._withdraw()
        proc, self.process = self.process, None
        self.pid, self.owned = None, False
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if proc.stdout:
            proc.stdout.close()

    def rss_bytes(self) -> int:
        """Resident memory of the server process (Linux), for benchmarks."""
        if not self.alive():
            return 0
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0


_SERVERS: dict[tuple[str, bool], LocalServer] = {}  # (model/ctx/slots key, shared?) -> server
_LOCK = threading.Lock()


def _slot(config: ServerConfig) -> tuple[str, bool]:
    """Threads and port do not make a different server: one per model (and sharing mode) per process."""
    return (config.share_key(), config.share)


def running(config: ServerConfig) -> LocalServer | None:
    """The server this process holds for ``config``, if any (alive or not)."""
    return _SERVERS.get(_slot(config))


def release(config: ServerConfig) -> None:
    """Stop (or stop borrowing) the server for ``config`` now."""
    with _LOCK:
        server = _SERVERS.pop(_slot(config), None)
    if server is not None:
        server.stop()


def server_for(config: ServerConfig, *, restart: bool = True) -> LocalServer:
    """The server for ``config``: started on first use, restarted if it died.

    With ``config.share`` (the default; ``VGM_SHARE_SERVER=0`` turns it off) a server that
    another process of this user already runs for the same model is reused, and ours is
    announced to others: on a shared machine one server beats several fighting for cores.
    """
    with _LOCK:
        server = _SERVERS.get(_slot(config))
        if server is None:
            server = _SERVERS[_slot(config)] = LocalServer(config)
        if server.alive():
            return server
        if server.starts and not restart:
            raise ModelError(f"the local model server exited; see {server.log_path}")
        if not config.share:
            server.start()
            return server
        lock_path = _runtime_dir() / f"{config.share_key()}.lock"
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one process starts it; the others then borrow it
            try:
                if not server.borrow():
                    server.start()
                    server.announce()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        return server


def stop_all(*, force: bool = True) -> None:
    """Stop every server this process started (at exit: shared ones linger for borrowers)."""
    with _LOCK:
        for server in list(_SERVERS.values()):
            server.stop(force=force)
        _SERVERS.clear()


atexit.register(stop_all, force=False)


def serve_forever(model_path: str | Path, *, port: int = 8080, threads: int | None = None, ready=None) -> None:
    """Run a server in the foreground until Ctrl-C (``vgm models serve``)."""
    config = ServerConfig.for_model(model_path, threads=threads, port=port)
    if port:
        import socket

        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                raise ModelError(f"port {port} on 127.0.0.1 is in use; give another --port, or --port 0 for any free one") from None
    server = LocalServer(config)
    server.start()
    if config.share:
        server.announce()  # runs of this user reuse it instead of starting their own
    if ready:
        ready(server)
    try:
        while server.alive():
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def _child(args: argparse.Namespace) -> None:
    """Inside the child: load the model, announce the address, wait to be terminated."""
    import xllamacpp

    config = ServerConfig(model_path=args.model_path, threads=args.threads, ctx=args.ctx, parallel=args.parallel, port=args.port,
                          batch_invariant=args.batch_invariant)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server = xllamacpp.Server(build_params(config))
    address = str(server.listening_address)
    base_url = address if address.startswith("http") else f"http://{address}"
    sys.stdout.write(json.dumps({"base_url": base_url.rstrip("/"), "pid": os.getpid()}) + "\n")
    sys.stdout.flush()
    parent = int(os.environ.get("VGM_SERVER_PARENT") or os.getppid())
    last, idle_since = None, time.monotonic()
    while not stop.wait(1.0):
        if _pid_alive(parent) and os.getppid() == parent:
            continue
        # The process that started us is gone: stop now, or (shared) once no one has used us for a while.
        if args.linger <= 0:
            break
        activity = _activity(server)
        if activity != last or activity[0] > 0:
            last, idle_since = activity, time.monotonic()
        elif time.monotonic() - idle_since > args.linger:
            break
    if args.announcement:
        _withdraw_announcement(Path(args.announcement), os.getpid())
    del server


def _activity(server) -> tuple[float, ...]:
    """(requests in progress, then counters that move with any work) from llama.cpp's metrics."""
    wanted = ("llamacpp:requests_processing", "llamacpp:requests_deferred", "llamacpp:n_decode_total",
              "llamacpp:prompt_tokens_cached_total", "llamacpp:tokens_predicted_total")
    values = dict.fromkeys(wanted, 0.0)
    try:
        for line in str(server.handle_metrics()).splitlines():
            name, _, value = line.partition(" ")
            if name in values:
                values[name] = float(value)
    except Exception:  # metrics are a hint; without them we count as idle
        pass
    return (values[wanted[0]] + values[wanted[1]], *(values[w] for w in wanted[2:]))


def _withdraw_announcement(path: Path, pid: int) -> None:
    try:
        if json.loads(path.read_text()).get("pid") == pid:
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="llama.cpp server child (started by pipelines.llm.serve)")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--ctx", type=int, default=DEFAULT_CTX)
    parser.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--linger", type=float, default=0.0)
    parser.add_argument("--announcement", default="")
    parser.add_argument("--batch-invariant", action="store_true")
    _child(parser.parse_args())
