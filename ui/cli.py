"""The ``vgm`` command line: thin commands that parse arguments, call one library function, print.

Each area adds its commands in its own module (``ui/cli_<area>.py`` with ``register(app)``),
so this file only assembles them and turns user-fixable errors into one line.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

# typer (0.29+) ships its own copy of click; its exception classes are reached through the one
# typer exports, so a usage error is caught whichever click raised it
_CLICK_ERRORS = {cls.__name__: cls for cls in typer.BadParameter.__mro__}
UsageError, ClickException = _CLICK_ERRORS["UsageError"], _CLICK_ERRORS["ClickException"]

from rulesets import VgmError


def _say(line: str) -> None:
    typer.secho(" ".join(line.split()), fg=typer.colors.RED, err=True)


def _redact(text: str) -> str:
    from pipelines.llm.resolve import redact

    return redact(text)


def _crash_log(exc: BaseException) -> Path | None:
    """Write the traceback (and the command) to a fresh file under ``<cache>/logs``; None if nothing can be written."""
    import tempfile

    from pipelines.llm.cache import cache_dir

    body = (f"vgm {' '.join(_redact(a) for a in sys.argv[1:])}\n{time.strftime('%Y-%m-%d %H:%M:%S')}\n\n"
            + _redact("".join(traceback.format_exception(exc))))
    for folder in (cache_dir() / "logs", Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f"vgm-error-{time.strftime('%Y%m%d-%H%M%S')}-", suffix=".log", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
                fh.write(body)
            return Path(name)
        except OSError:
            continue
    return None


def unexpected(exc: BaseException) -> int:
    """Report an exception nobody expected as one line naming the log with its traceback; returns the exit code."""
    path = _crash_log(exc)
    if os.environ.get("VGM_DEBUG", "").strip() not in ("", "0"):
        traceback.print_exception(exc, file=sys.stderr)
    what = _redact(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    what = what if len(what) <= 200 else what[:199] + "…"
    where = f"details in {path}" if path else "no log could be written; set VGM_DEBUG=1 to see the traceback"
    _say(f"error: {what} ({where}; this is a bug in vgm, please report it)")
    return 1


def interrupted(exc: BaseException) -> int:
    """Ctrl-C: one line (the interrupted work may say where its log is); further Ctrl-Cs are ignored."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    detail = str(exc).strip()
    _say(f"interrupted; {detail}" if detail else "interrupted; finished work is saved")
    return 130


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (a torn last line dropped, ...) as one ``warning:`` line, not Python's two."""
    typer.secho(f"warning: {' '.join(_redact(str(message)).split())}", fg=typer.colors.YELLOW, err=True)


class _Group(TyperGroup):
    """The root command: every error below it ends as one line, never a traceback.

    A ``VgmError`` (a fault the user can fix) is printed as ``error: …``; any other exception
    as one line naming a log file with its traceback (``VGM_DEBUG=1`` also prints it). The
    exception then goes on, marked as reported, so ``main`` only sets the exit status (2 for
    a ``VgmError``, 1 otherwise) and in-process callers (typer's ``CliRunner``) still see it
    as ``result.exception``. Ctrl-C exits 130.
    """

    def invoke(self, ctx):
        import warnings

        warnings.showwarning = _show_warning
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException, ClickException):
            raise  # usage errors are main's to print, as one line
        except VgmError as exc:
            _say(f"error: {_redact(str(exc))}")
            exc.vgm_reported = 2
            raise
        except KeyboardInterrupt as exc:
            raise typer.Exit(interrupted(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            exc.vgm_reported = unexpected(exc)
            raise


app = typer.Typer(
    cls=_Group,
    name="vgm",
    help="virtual-gm: an AI Game Master for tabletop RPGs and social deduction games, with MOE evaluation and rating studies.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

AREAS = ["rulesets", "models", "moe", "play", "social", "probes", "viewer", "inmind", "rate", "reproduce", "table", "character", "scenario"]


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
    """Entry point: run the app; a user-fixable error prints one line and exits 2, anything else
    one line naming the log with the traceback (``VGM_DEBUG=1`` shows it) and exits 1."""
    try:
        status = app(standalone_mode=False)  # so a usage error reaches us instead of typer's boxed panel
    except UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "vgm"
        _say(f"error: {' '.join(exc.format_message().split())} (see {where} --help)")
        sys.exit(exc.exit_code)
    except ClickException as exc:
        _say(f"error: {' '.join(exc.format_message().split())}")
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(interrupted(KeyboardInterrupt()))
    except KeyboardInterrupt as exc:
        sys.exit(interrupted(exc))
    except Exception as exc:  # noqa: BLE001 - reported by _Group.invoke, or raised outside a command
        reported = getattr(exc, "vgm_reported", None)
        if reported is not None:
            sys.exit(reported)
        if isinstance(exc, VgmError):
            _say(f"error: {_redact(str(exc))}")
            sys.exit(2)
        sys.exit(unexpected(exc))
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
