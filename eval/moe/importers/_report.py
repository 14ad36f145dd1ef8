"""What every importer returns: the instances and an account of what it found and dropped."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pipelines.records import MoeInstance


@dataclass
class ImportReport:
    """Requests found, instances kept, and a reason for every request dropped."""

    source: str
    instances: list[MoeInstance] = field(default_factory=list)
    found: int = 0
    dropped: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)  # things worth knowing that did not drop anything

    @property
    def kept(self) -> int:
        return len(self.instances)

    def drop(self, reason: str) -> None:
        self.dropped[reason] += 1

    def as_dict(self) -> dict:
        return {
            "source": self.source,
            "found": self.found,
            "kept": self.kept,
            "dropped": dict(self.dropped.most_common()),
            "notes": dict(self.notes.most_common()),
            "multi_character": sum(1 for i in self.instances if len({a.character for a in i.answers}) > 1),
        }

    def __str__(self) -> str:
        lines = [f"{self.source}: found {self.found} check requests, kept {self.kept}"]
        for reason, n in self.dropped.most_common():
            lines.append(f"  dropped {n}: {reason}")
        for note, n in self.notes.most_common():
            lines.append(f"  note {n}: {note}")
        return "\n".join(lines)
