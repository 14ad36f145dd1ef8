"""An output folder a command makes is not left behind when the command fails before its work.

    with output_folder(out, models=[model]):     # model strings checked before any file is made
        report = simulate(..., out=out)           # fails on a bad seat model: ``out`` is gone again

A failing command takes back only what it made: the folders that did not exist when it started,
and only while they hold no file (a run that wrote results keeps them, so it can be resumed).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
import shutil
from contextlib import contextmanager
from pathlib import Path

__all__ = ["check_models", "output_folder"]


def check_models(specs: Iterable[str | None]) -> None:
    """Resolve each model string the way the run will (no server is started, no cache opened), so an
    unknown string, a missing model file or a missing key is said before any output is written."""
    from pipelines.llm import get_model

    for spec in dict.fromkeys(s for s in specs if s):
        get_model(spec, cache=False)


@contextmanager
def output_folder(path: str | Path | None, models: Iterable[str | None] = ()) -> Iterator[None]:
    """Check ``models`` first; then, if the body fails, remove the folders of ``path`` it made that hold no file."""
    check_models(models)
    made: list[Path] = []
    if path is not None:
        here = Path(path).absolute()
        while not here.exists() and here != here.parent:
            made.append(here)  # deepest first
            here = here.parent
    try:
        yield
    except BaseException:
        for folder in made:
            try:
                if not folder.is_dir() or _holds_files(folder):
                    break
                shutil.rmtree(folder)
            except OSError:  # cleaning up must never hide the command's own error
                break
        raise


def _holds_files(folder: Path) -> bool:
    return any(not p.is_dir() or p.is_symlink() for p in folder.rglob("*"))
