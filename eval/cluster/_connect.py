"""Reaching Ray: imported only here, only when a command asks for ``--cluster ray``.

An address nobody answers is found with a plain TCP connect first: ``ray.init`` itself
retries for minutes and prints C++ warnings meanwhile.
"""
from __future__ import annotations

import logging
import os
import socket
import sys
import tempfile
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from ._options import ClusterError, ClusterSpec

CONNECT_TIMEOUT_S = 3.0
_FIX = "start it with `ray start --head` on that machine (docs/scale.md), or fix --ray-address / RAY_ADDRESS"


def ray_module() -> Any:
    """``import ray``, or one line saying how to get it."""
    try:
        import ray
    except ImportError:
        raise ClusterError("Ray is not installed in this environment; install it with pip install 'ray>=2.40,<3' "
                           "(a dependency of virtual-gm: pip install -e . brings it)") from None
    return ray


def _host_port(address: str) -> tuple[str, int]:
    """``host:port`` of a Ray address (``10.0.0.5:6379``, ``ray://10.0.0.5:10001``, ``[::1]:6379``)."""
    text = address if "://" in address else f"gcs://{address}"
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host:
        raise ClusterError(f"--ray-address {address!r} is not an address; give host:port (e.g. 10.0.0.5:6379), "
                           f"ray://host:10001 or auto")
    if port is None:
        port = 10001 if text.startswith("ray://") else 6379
    return host, port


def check_reachable(address: str) -> None:
    """One line naming the address and the fix when nothing listens there."""
    host, port = _host_port(address)
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            return
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or type(exc).__name__).lower()
        raise ClusterError(f"cannot reach the Ray cluster at {address} ({reason} within {CONNECT_TIMEOUT_S:g} s); {_FIX}") from None


def connect(spec: ClusterSpec) -> Any:
    """The ``ray`` module, connected to the spec's cluster (a running one is reused: tests, notebooks).

    What Ray prints while it connects (C++ warnings, retried for many seconds when a cluster
    refuses us) is held back; a failure becomes one line saying what to fix.
    """
    ray = ray_module()
    if ray.is_initialized():
        return ray
    address = spec.address or os.environ.get("RAY_ADDRESS", "").strip() or None
    if address and address not in ("auto", "local"):
        check_reachable(address)
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": True}
    if not address:
        options["include_dashboard"] = False  # a local instance started for this run only
    quiet = logging.getLogger("ray")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with _held_stderr() as said:
            try:
                ray.init(address=address, **options)
            except ConnectionError:
                if address:
                    raise
                ray.init(address="local", **options)  # a `ray start` cluster that is gone left its address behind
    except ConnectionError as exc:
        if not address or address in ("auto", "local"):
            raise ClusterError(f"no Ray cluster on this machine ({' '.join(str(exc).split())[:100]}); start one with `ray start --head`, "
                               f"give --ray-address, or leave RAY_ADDRESS unset to start one for this run") from None
        if "AuthToken" in said.text or "Unauthenticated" in said.text:
            raise ClusterError(f"the Ray cluster at {address} wants its token; on the head run `ray get-auth-token`, then here "
                               f"export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=<it> (docs/scale.md)") from None
        raise ClusterError(f"the Ray cluster at {address} answers but did not let us in; use the same Ray and Python versions "
                           f"as the cluster, and its token if it has one (docs/scale.md)") from None
    finally:
        quiet.setLevel(level)
    return ray


class _Said:
    text = ""


@contextmanager
def _held_stderr():
    """Send this process's stderr (file descriptor 2, where Ray's C++ writes) to a temporary file meanwhile."""
    said = _Said()
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # a captured stderr (tests): nothing to hold
        yield said
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), fd)
        try:
            yield said
        finally:
            sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)
            held.seek(0)
            said.text = held.read()[-20000:].decode("utf-8", "replace")


def driver_node_id() -> str:
    """The Ray node this process (the driver) runs on: where the cache and the run folders are."""
    import ray

    return ray.get_runtime_context().get_node_id()


def cluster_cpus() -> int:
    """CPUs the cluster offers now (at least 1)."""
    import ray

    try:
        return max(1, int(ray.cluster_resources().get("CPU", 1)))
    except Exception:  # noqa: BLE001 - a cluster in flux: carry on with one
        return 1


def where_am_i() -> str:
    """``host (ip)`` of this worker, for messages about a node."""
    try:
        import ray

        ip = ray.util.get_node_ip_address()
    except Exception:  # noqa: BLE001
        ip = "?"
    return f"{socket.gethostname()} ({ip})"
