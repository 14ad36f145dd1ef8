"""User-fixable problems with rule sets: a name that resolves to nothing, a broken pack file."""
from __future__ import annotations

from ._errors import VgmError


class UnknownName(VgmError):
    """A check or role name that no id of the pack answers to.

    ``closest`` holds the ids that look most like it, so callers (and people) can pick one;
    resolution never guesses on their behalf.
    """

    def __init__(self, text: str, pack: str, what: str, closest: list[str], hint: str = "") -> None:
        self.text, self.pack, self.what, self.closest = text, pack, what, closest
        near = f"closest: {', '.join(closest)}" if closest else "nothing close"
        fix = hint or f"use one of the ids listed by `vgm rulesets show {pack}`"
        super().__init__(f"unknown {what} {text!r} in {pack} ({near}); {fix}")


class PackError(VgmError):
    """A rule-set pack file that cannot be used: says the file, the key and the fix, on one line."""

    def __init__(self, file: str, key: str, problem: str, fix: str) -> None:
        self.file, self.key, self.problem, self.fix = file, key, problem, fix
        where = f"{file}: key '{key}'" if key else file
        super().__init__(" ".join(f"{where}: {problem}; fix: {fix}".split()))
