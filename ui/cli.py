"""The ``vgm`` command line: thin commands that parse arguments, call one library function, print.

Each area adds its commands in its own module (``ui/cli_<area>.py`` with ``register(app)``),
so this file only assembles them and turns user-fixable errors into one line.
"""
from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version

import typer

from rulesets import VgmError

app = typer.Typer(
    name="vgm",
    help="virtual-gm: an AI Game Master for tabletop RPGs and social deduction games, with MOE evaluation and rating studies.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

AREAS = ["rulesets", "models", "moe", "play", "social", "probes", "inmind", "rate"]


def _version_callback(value: bool) -> None:
    if value:
        try:
            typer.echo(f"vgm {version('virtual-gm')}")
        except PackageNotFoundError:
            typer.echo("vgm (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
) -> None:
    """virtual-gm command line."""


def _register_areas() -> None:
    import importlib

    for area in AREAS:
        try:
            module = importlib.import_module(f"ui.cli_{area}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ui.cli_{area}":
                continue  # that area has no commands yet
            raise
        module.register(app)


_register_areas()


def main() -> None:
    """Entry point: run the app; a user-fixable error prints one line and exits 2."""
    try:
        app()
    except VgmError as exc:
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted; finished work is saved", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
