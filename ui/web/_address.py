"""The one address check both servers make before anything slow (``vgm table serve`` and ``vgm ui``).

    check_address("127.0.0.1", 7861)   # returns, or one VgmError line with the real cause

It binds a throwaway socket the way uvicorn will (with ``SO_REUSEADDR``, so a port whose last
server crashed a moment ago, its connections still in TIME_WAIT, counts as free), and when that
fails says why: who holds the port (its pid and command, from psutil), a privileged port, an
address that is not this machine's, a host name that does not resolve.
"""
from __future__ import annotations

import errno
import socket

from rulesets import VgmError

__all__ = ["check_address", "holder_of"]


def holder_of(port: int) -> str | None:
    """``pid 123 (vgm table serve --port 7861)`` for the process listening on ``port``, when visible."""
    try:
        import psutil

        for conn in psutil.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                try:
                    cmd = " ".join(psutil.Process(conn.pid).cmdline()) or psutil.Process(conn.pid).name()
                except (psutil.Error, OSError):
                    cmd = ""
                cmd = cmd if len(cmd) <= 120 else cmd[:117] + "..."
                return f"pid {conn.pid}" + (f" ({cmd})" if cmd else "")
    except Exception:  # noqa: BLE001 - naming the holder is a courtesy; not knowing it is no error
        return None
    return None


def check_address(host: str, port: int) -> None:
    """Return when ``host:port`` can be listened on; else one ``VgmError`` line saying why and what to do."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (socket.gaierror, UnicodeError, ValueError):
        raise VgmError(f"cannot listen on {host}:{port} (no such host name); give --host an address of this machine "
                       "(127.0.0.1, 0.0.0.0)") from None
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OverflowError:
            raise VgmError(f"--port {port}: use a port from 1 to 65535") from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                holder = holder_of(port)
                who = f" by {holder}" if holder else " by another program"
                raise VgmError(f"{host}:{port} is already in use{who}; stop it or pass another --port (e.g. --port {port + 1})") from None
            if exc.errno == errno.EACCES:
                raise VgmError(f"cannot listen on {host}:{port} (permission denied: ports below 1024 need root); "
                               f"pass --port {port + 8000 if port < 1024 else port + 1}") from None
            if exc.errno == errno.EADDRNOTAVAIL:
                raise VgmError(f"cannot listen on {host}:{port} (not an address of this machine); give --host an address "
                               "of this machine (127.0.0.1, 0.0.0.0)") from None
            raise VgmError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); give --host an address of this machine "
                           "(127.0.0.1, 0.0.0.0)") from None
