"""Numbers from environment variables, with one clear line when one is not a number."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from ._types import ModelError

N = TypeVar("N", int, float)


def env_number(name: str, cast: Callable[[str], N], default: N | None, example: str) -> N | None:
    """``cast($name)``, or ``default`` when unset or empty; a bad value names the variable and a fix."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return cast(raw)
    except ValueError:
        kind = "whole number" if cast is int else "number"
        raise ModelError(f"{name}={raw!r} is not a {kind}; set e.g. {name}={example} or unset it") from None
