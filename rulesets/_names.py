"""One pack's name table: every way of writing a check or role, mapped to exactly one id."""
from __future__ import annotations

import difflib
from collections.abc import Iterable

from ._normalize import DEFAULT_FILLER, loose_key, raw_key


class NameIndex:
    """Maps spellings to ids by ``raw_key`` first, then by ``loose_key`` (filler dropped).

    ``add`` returns the clashing (id, alias) when a spelling already belongs to another id,
    so the loader can reject the pack instead of resolving one of them at random.
    """

    def __init__(self, filler: Iterable[str] = DEFAULT_FILLER) -> None:
        self.filler = frozenset(filler)
        self._raw: dict[str, tuple[str, str]] = {}
        self._loose: dict[str, tuple[str, str]] = {}

    def add(self, ident: str, alias: str) -> tuple[str, str] | None:
        """Register ``alias`` for ``ident``; return the other (id, alias) if it clashes."""
        for table, key in ((self._raw, raw_key(alias)), (self._loose, loose_key(alias, self.filler))):
            if not key:
                continue
            other = table.get(key)
            if other is not None and other[0] != ident:
                return other
            table.setdefault(key, (ident, alias))
        return None

    def lookup(self, text: str) -> str | None:
        """The id ``text`` names, or None."""
        hit = self._raw.get(raw_key(text))
        if hit is None:
            key = loose_key(text, self.filler)
            hit = self._loose.get(key) if key else None
        return hit[0] if hit else None

    def closest(self, text: str, n: int = 3) -> list[str]:
        """Up to ``n`` ids whose spellings look most like ``text`` (difflib ratio)."""
        key = loose_key(text, self.filler) or raw_key(text)
        if not key:
            return []
        keys = {**self._loose, **self._raw}
        ids: list[str] = []
        for cutoff in (0.6, 0.3, 0.0):
            for match in difflib.get_close_matches(key, list(keys), n=40, cutoff=cutoff):
                ident = keys[match][0]
                if ident not in ids:
                    ids.append(ident)
            if ids:
                break
        return ids[:n]

    def spellings(self) -> list[tuple[str, str]]:
        """Every registered (alias as written, id), for tests and listings."""
        return [(alias, ident) for ident, alias in self._raw.values()]
