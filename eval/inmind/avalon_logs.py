"""Our own Avalon logs (issue #6) as InMind sessions: a played game plus one person's traces.

Filled in once the social engine's log format is committed (``gm/avalon``, ``docs/social.md``).
"""
from __future__ import annotations

from pathlib import Path

from .importers import InMindDataError
from .session import Session


def load_avalon_log(path: str | Path, traces: str | Path | None = None, *, seat: int | None = None) -> Session:
    raise InMindDataError(f"{path}: importing our own Avalon logs is not available yet; give released InMind-Avalon JSON files")
