"""Scale-out on Ray: the same commands, with ``--cluster ray`` (docs/scale.md).

The driver (the ``vgm`` process) splits the work into shards — instances × pipelines for
MOE and InMind, one game or one fork for the social commands — and runs each shard as a Ray
task that streams its results back as they finish. Only the driver writes run folders and
the response cache, so the lock, resume and exactly-once guarantees of one machine hold: a
worker that dies loses only the part of its shard that had not come back, and that part runs
again; a driver that dies is resumed by running the same command.

Models: ``local`` models get one llama.cpp server per node (a Ray actor, started on first
use); ``openai:`` models share a pool of endpoints (``--base-url`` repeated, or a file) with a
per-endpoint limit on requests in flight; ``scripted:`` files travel with the tasks.

Nothing here imports Ray until a run asks for the cluster::

    spec = from_cli("moe compare", "ray", "10.0.0.5:6379")
    compare_moe(["tbs"], "sample", "runs/x", model="local:small", run_with=moe_runner(spec))
"""
from __future__ import annotations

from typing import Any

from ._options import SUPPORTED, ClusterError, ClusterSpec, Endpoint, from_cli, parse_endpoints, refusal


def progress(**options: Any):
    """The rich display of a cluster run (shards, then each pipeline's instances), as the MOE commands show it."""
    from ._progress import ClusterProgress

    return ClusterProgress(**options)


def moe_runner(spec: ClusterSpec):
    """What ``eval.moe.compare_moe(run_with=...)`` takes to run its pipelines on ``spec``'s cluster."""

    def run(*args: Any, **kwargs: Any):
        from ._moe import run_moe as run_on_cluster

        return run_on_cluster(*args, spec=spec, **kwargs)

    return run


def run_moe(*args: Any, **kwargs: Any):
    """``eval.moe`` pipelines × instances over the cluster (see ``eval.cluster._moe.run_moe``)."""
    from ._moe import run_moe as run

    return run(*args, **kwargs)


def simulate(*args: Any, **kwargs: Any):
    """A batch of Avalon or Mafia games over the cluster (see ``eval.cluster._social.simulate``)."""
    from ._social import simulate as run

    return run(*args, **kwargs)


def fork(*args: Any, **kwargs: Any):
    """Counterfactual forks of a recorded game over the cluster (see ``eval.cluster._social.fork``)."""
    from ._social import fork as run

    return run(*args, **kwargs)


def tournament_runner(spec: ClusterSpec, display: Any = None):
    """What ``eval.tournament.run_tournament(run_with=...)`` takes to play each match as a shard on ``spec``'s cluster."""
    from ._tournament import tournament_runner as runner

    return runner(spec, display)


def run_inmind(*args: Any, **kwargs: Any):
    """InMind Stage 1 and Stage 2 over the cluster (see ``eval.cluster._inmind.run_inmind``)."""
    from ._inmind import run_inmind as run

    return run(*args, **kwargs)


_CLI = ("ClusterGuard", "cluster_option", "ray_address_option", "base_url_option", "endpoint_concurrency_option")


def __getattr__(name: str) -> Any:
    """The CLI's option factories and command group (``_cli``, which imports typer) on first use."""
    if name in _CLI:
        from . import _cli

        return getattr(_cli, name)
    raise AttributeError(f"module 'eval.cluster' has no attribute {name!r}")


__all__ = [*_CLI, "SUPPORTED", "ClusterError", "ClusterSpec", "Endpoint", "from_cli", "parse_endpoints", "refusal",
           "progress", "moe_runner", "run_moe", "simulate", "fork", "run_inmind", "tournament_runner"]
