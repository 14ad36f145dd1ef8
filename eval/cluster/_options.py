"""What ``--cluster``, ``--ray-address``, ``--base-url`` and ``--endpoint-concurrency`` ask for, checked in one place.

Nothing here imports Ray: a command without ``--cluster ray`` pays nothing for it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from rulesets import VgmError

# The commands that take --cluster ray (as `vgm <group> <command>` names them).
SUPPORTED = ("moe run", "moe compare", "avalon simulate", "mafia simulate", "mafia fork", "avalon fork", "inmind run",
             "mafia tournament", "avalon tournament")
KINDS = ("ray",)
OFF = ("", "none", "off", "local", "no")
DEFAULT_ENDPOINT_CONCURRENCY = 8


class ClusterError(VgmError):
    """A cluster request the user can fix (an unknown --cluster, an address nobody answers, ...): one line."""


@dataclass(frozen=True)
class Endpoint:
    """One OpenAI-compatible server of a pool and the most requests it gets at once, across the whole cluster."""

    url: str
    limit: int = DEFAULT_ENDPOINT_CONCURRENCY


@dataclass
class ClusterSpec:
    """Where and how a command runs on Ray.

    Args:
        address: the cluster (``host:6379``, ``ray://host:10001`` or ``auto``); None uses
            ``RAY_ADDRESS``, else a cluster started on this machine with ``ray start``, else a new local one.
        endpoints: a pool of OpenAI-compatible servers for ``openai:`` models (empty: ``OPENAI_BASE_URL``).
        workers: most shards running at once (None: one per CPU the cluster has).
        shard_size: instances per shard (None: about four shards per worker).
        attempts: how often a shard whose worker died is run (the rest of it, never what already came back).
        command: the command, for messages.
    """

    address: str | None = None
    endpoints: list[Endpoint] = field(default_factory=list)
    endpoint_concurrency: int = DEFAULT_ENDPOINT_CONCURRENCY
    workers: int | None = None
    shard_size: int | None = None
    attempts: int = 3
    command: str = ""


def _parse_endpoint_file(path: Path, default: int) -> list[Endpoint]:
    from rulesets import read_text

    endpoints = []
    for number, raw in enumerate(read_text(path, what="endpoint list").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) > 2 or not parts[0].startswith(("http://", "https://")):
            raise ClusterError(f"{path}:{number}: write one endpoint per line, `URL [concurrency]`, e.g. http://10.0.0.5:8000/v1 16")
        limit = default
        if len(parts) == 2:
            if not parts[1].isdigit() or int(parts[1]) < 1:
                raise ClusterError(f"{path}:{number}: concurrency {parts[1]!r} must be a whole number of at least 1")
            limit = int(parts[1])
        endpoints.append(Endpoint(parts[0].rstrip("/"), limit))
    if not endpoints:
        raise ClusterError(f"{path}: no endpoints; write one `URL [concurrency]` per line")
    return endpoints


def parse_endpoints(values: list[str] | None, concurrency: int = DEFAULT_ENDPOINT_CONCURRENCY) -> list[Endpoint]:
    """``--base-url`` values (URLs, or files listing ``URL [concurrency]`` per line) as a pool, duplicates removed."""
    if concurrency < 1:
        raise ClusterError(f"--endpoint-concurrency {concurrency}: give at least 1 request at a time per endpoint")
    found: list[Endpoint] = []
    for value in values or []:
        value = value.strip()
        if not value:
            raise ClusterError("--base-url is empty; give a server URL such as http://10.0.0.5:8000/v1, or a file of them")
        if value.startswith(("http://", "https://")):
            found.append(Endpoint(value.rstrip("/"), concurrency))
        elif Path(value).expanduser().is_file():
            found += _parse_endpoint_file(Path(value).expanduser(), concurrency)
        else:
            raise ClusterError(f"--base-url {value!r}: not a http(s) URL and no such file; give http://host:port/v1 or a file with one URL per line")
    seen: dict[str, Endpoint] = {}
    for endpoint in found:
        seen.setdefault(endpoint.url, endpoint)
    return list(seen.values())


def from_cli(command: str, cluster: str | None, address: str | None = None, base_urls: list[str] | None = None,
             endpoint_concurrency: int | None = None) -> ClusterSpec | None:
    """The CLI's cluster options as a ``ClusterSpec``, or None for a run on this machine.

    ``cluster`` is ``--cluster`` (typer fills it from ``VGM_CLUSTER``). Without a cluster, one
    ``--base-url`` is this process's ``OPENAI_BASE_URL`` (as for ``vgm ask``); a pool of
    several needs ``--cluster ray``.
    """
    kind = (cluster or "").strip().lower()
    if kind in OFF:
        endpoints = parse_endpoints(base_urls, endpoint_concurrency or DEFAULT_ENDPOINT_CONCURRENCY)
        if len(endpoints) > 1:
            raise ClusterError(f"{len(endpoints)} endpoints given with --base-url; a pool of endpoints needs --cluster ray "
                               f"(or give one --base-url for a run on this machine)")
        if endpoints:
            os.environ["OPENAI_BASE_URL"] = endpoints[0].url
        return None
    if kind not in KINDS:
        raise ClusterError(f"--cluster {cluster!r}: use --cluster ray (docs/scale.md), or leave it out to run on this machine")
    if command and command not in SUPPORTED:
        raise ClusterError(refusal(command))
    concurrency = endpoint_concurrency or DEFAULT_ENDPOINT_CONCURRENCY
    return ClusterSpec(address=(address or "").strip() or None, endpoints=parse_endpoints(base_urls, concurrency),
                       endpoint_concurrency=concurrency, command=command, workers=_env_count("VGM_CLUSTER_WORKERS"),
                       shard_size=_env_count("VGM_SHARD_SIZE"))


def _env_count(name: str) -> int | None:
    """A positive whole number from ``$name`` (None when unset); anything else is one line."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ClusterError(f"{name}={raw!r}: give a whole number of at least 1, or unset it")
    return int(raw)


def refusal(command: str) -> str:
    """The one line for ``--cluster`` on a command that cannot use it."""
    return (f"`vgm {command}` does not run on a cluster; drop --cluster (it works with "
            f"{', '.join('vgm ' + c for c in SUPPORTED)})")
