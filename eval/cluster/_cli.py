"""The cluster options every supporting command adds, and the one-line refusal elsewhere.

The option objects are made by functions so each command gets its own; ``ClusterGuard`` is the
command group class of ``vgm moe``/``avalon``/``mafia``/``inmind``/``probes``: ``--cluster`` on a
command of theirs that has no such option is refused in one line instead of typer's usage
block. Importing this module imports typer, never Ray.
"""
from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from ._options import ClusterError, refusal

CLUSTER_HELP = "ray: shard the work over a Ray cluster (docs/scale.md); env VGM_CLUSTER."
ADDRESS_HELP = "Ray cluster address (host:6379, ray://host:10001 or auto); default $RAY_ADDRESS, else a cluster on this machine."
BASE_URL_HELP = ("OpenAI-compatible server for openai: models; repeat it (or give a file of `URL [concurrency]` lines) "
                 "for a pool spread over the cluster's tasks.")
ENDPOINT_HELP = "With --cluster ray: most requests in flight per --base-url endpoint, across all workers."


def cluster_option() -> Any:
    return typer.Option(None, "--cluster", envvar="VGM_CLUSTER", help=CLUSTER_HELP, show_envvar=False)


def ray_address_option() -> Any:
    return typer.Option(None, "--ray-address", envvar="RAY_ADDRESS", help=ADDRESS_HELP, show_envvar=False)


def base_url_option() -> Any:
    return typer.Option(None, "--base-url", help=BASE_URL_HELP)


def endpoint_concurrency_option() -> Any:
    return typer.Option(None, "--endpoint-concurrency", help=ENDPOINT_HELP)


class ClusterGuard(TyperGroup):
    """A command group whose commands without a ``--cluster`` option refuse it in one line."""

    def resolve_command(self, ctx, args):
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None and not any(p.name == "cluster" for p in command.params):
            if any(a == "--cluster" or a.startswith("--cluster=") for a in rest):
                raise ClusterError(refusal(f"{ctx.info_name} {name}"))
        return name, command, rest


__all__ = ["ClusterGuard", "cluster_option", "ray_address_option", "base_url_option", "endpoint_concurrency_option"]
