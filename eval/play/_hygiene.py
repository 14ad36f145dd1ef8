"""Set hygiene: a ``test`` case set is scored, never read, and none of its lines is a pack example line.

The packs' example lines (``examples``, ``no_roll``, ``impossible``) are what the GM turn retrieves
from, so a case line copied there is answered by lookup, not judgement. ``leaked_lines`` finds
the case lines that are pack example lines (the same line after folding case and whitespace), and
with ``near`` also those whose word sets overlap that much (a line copied with a typo fixed)::

    from eval.play import leaked_lines
    for leak in leaked_lines():            # the test sets against every installed TRPG pack
        print(leak)                        # e.g. blind40 (test) case 'dnd-…': line is a dnd5e pack example line

A leak prints the set, case id and pack but never the line, so a test set's lines stay unread.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rulesets

from ._cases import CASES_DIR, _read, _role_of, trpg_packs

__all__ = ["Leak", "leaked_lines", "pack_lines"]

_WORD = re.compile(r"[\w']+")


@dataclass(frozen=True)
class Leak:
    """One case line found among a pack's example lines. Printing it never shows the line."""

    set: str  # the case file's name without .yaml
    role: str
    case_id: str
    pack: str
    line: str = field(repr=False)
    overlap: float = 1.0  # the word sets' overlap (Jaccard); 1.0 for an exact match
    exact: bool = True  # the same line after folding case and whitespace

    def __str__(self) -> str:
        how = "is" if self.exact else f"nearly ({self.overlap:.2f} word overlap) is"
        return f"{self.set} ({self.role}) case {self.case_id!r}: line {how} a {self.pack} pack example line"


def _norm(line: str) -> str:
    return " ".join(str(line).casefold().split())


def _words(line: str) -> frozenset[str]:
    return frozenset(_WORD.findall(str(line).casefold()))


def pack_lines(packs: Mapping[str, Iterable[str]] | Iterable[Any] | None = None) -> dict[str, list[str]]:
    """Pack name → its example player lines (check, family, no-roll and impossible lines).

    Args:
        packs: ``None`` for every installed TRPG pack; pack names or loaded rule sets; or a
            mapping of name → lines, taken as given (made-up packs for tests).
    """
    if isinstance(packs, Mapping):
        return {str(name): [str(line) for line in lines] for name, lines in packs.items()}
    from pipelines.check_index import pack_examples  # the one reader of a pack's example lines

    out: dict[str, list[str]] = {}
    for item in trpg_packs() if packs is None else packs:
        pack = rulesets.load(item) if isinstance(item, str) else item
        out[pack.name] = [line for _label, line in pack_examples(pack)]
    return out


def leaked_lines(cases_dir: str | Path = CASES_DIR, packs: Mapping[str, Iterable[str]] | Iterable[Any] | None = None,
                 *, roles: Iterable[str] | None = ("test",), near: float | None = None) -> list[Leak]:
    """The case lines that are (or, with ``near``, nearly are) pack example lines.

    Args:
        cases_dir: a folder of case files (``*.yaml``), or one case file.
        packs: as for ``pack_lines``; every installed TRPG pack by default.
        roles: the sets to check, by ``role:``; ``None`` checks every set (to measure them).
        near: also report lines whose word sets overlap a pack line by at least this much
            (Jaccard, e.g. 0.9); ``None`` for exact matches only.

    Returns:
        One ``Leak`` per (case, pack), in file and case order; exact matches hide near ones.

    Raises:
        CaseError: a case file cannot be read or gives an unknown role.
    """
    cases_dir = Path(cases_dir)
    files = [cases_dir] if cases_dir.is_file() else sorted(cases_dir.glob("*.yaml"))
    lines = pack_lines(packs)
    exact: dict[str, list[str]] = {}
    for name, pack in lines.items():
        for line in pack:
            exact.setdefault(_norm(line), []).append(name)
    by_size: dict[int, list[tuple[frozenset[str], str]]] = {}  # word count → (words, pack)
    if near is not None:
        for name, pack in lines.items():
            for words in {_words(line) for line in pack} - {frozenset()}:
                by_size.setdefault(len(words), []).append((words, name))
    wanted = None if roles is None else set(roles)
    leaks: list[Leak] = []
    for path in files:
        data, _text = _read(path)
        role = _role_of(data, str(path))
        if wanted is not None and role not in wanted:
            continue
        cases = data.get("cases") if isinstance(data, dict) else data
        for raw in cases if isinstance(cases, list) else []:
            if not isinstance(raw, dict) or not str(raw.get("line") or "").strip():
                continue
            case_id, line = str(raw.get("id", "?")), str(raw["line"])
            hits = {name: 1.0 for name in exact.get(_norm(line), [])}
            if not hits and near is not None:
                hits = _near(_words(line), by_size, near)
            leaks += [Leak(path.stem, role, case_id, name, line, score, _norm(line) in exact)
                      for name, score in hits.items()]
    return leaks


def _near(words: frozenset[str], by_size: dict[int, list[tuple[frozenset[str], str]]], near: float) -> dict[str, float]:
    """Pack → best word overlap ≥ ``near`` with this line (only sizes that could reach it are compared)."""
    best: dict[str, float] = {}
    k = len(words)
    if not k:
        return best
    for size in range(int(k * near), int(k / near) + 2):
        for other, name in by_size.get(size, []):
            score = len(words & other) / len(words | other)
            if score >= near and score > best.get(name, 0.0):
                best[name] = score
    return best
