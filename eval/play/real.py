"""Real player turns from CRD3-format episodes, labelled by what the human DM did next.

A *player turn* is any turn not spoken by the DM alone. It is **positive** when the DM's turns
that come right after it (the unbroken run of DM turns before the next player speaks) ask for a
check, by the MOE importer's own request detection (``find_requests``); its gold checks are the
ones asked. Everything else a player says is negative: on Critical Role the DM calls a check
after about 2% of player turns. The *scene* is what the DM said last before the line (the real
table's equivalent of the scene text a played GM reads), the *previous* line is the turn just
before, whoever spoke it.

    turns = list(real_turns("../shared/data/crd3"))
    sum(t.positive for t in turns) / len(turns)     # about 0.02
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rulesets
from rulesets import VgmError

from ..moe.importers import Cast, ImportError_, find_requests
from ..moe.importers.crd3 import _episode_number, _read_episode

__all__ = ["RealTurn", "real_turns", "episode_files", "is_ability_call"]


@dataclass
class RealTurn:
    episode: str
    number: int
    speaker: str          # the character (or the player's name when not in the cast)
    line: str
    scene: str            # the DM's last turn before the line
    previous: str         # the turn right before, any speaker
    previous_speaker: str = "GM"  # who said it: "GM" for the DM
    skills: list[str] = field(default_factory=list)  # checks the DM asked for right after; empty = negative

    @property
    def positive(self) -> bool:
        return bool(self.skills)


def is_ability_call(skill: str) -> bool:
    """A skill or plain ability check: what ``skill_top1`` scores (saves, initiative and death
    saves answer the dice's own needs, not the line's kind of act)."""
    return not (skill.endswith("_save") or skill in ("initiative", "death_save"))


def episode_files(source: str | Path) -> list[Path]:
    """The CRD3 episode files of a folder (or one file), sorted; a clear error when there are none."""
    source = Path(source)
    if not source.exists():
        raise VgmError(f"{source}: no such file or folder; give a folder of CRD3 episode .json files")
    files = sorted(source.glob("*.json")) if source.is_dir() else [source]
    if not files:
        raise VgmError(f"{source}: no CRD3 episode .json files found (each is {{'METADATA':..., 'TURNS':[...]}})")
    return files


def _text(raw: dict[str, Any]) -> str:
    return " ".join(u.strip() for u in raw.get("UTTERANCES") or [] if isinstance(u, str)).strip()


def real_turns(source: str | Path, *, cast: str | Path | None = None, ruleset: str = "dnd5e",
               episodes: set[str] | None = None) -> Iterator[RealTurn]:
    """Every player turn of the episodes under ``source`` (only those named in ``episodes`` if
    given), in order, labelled as the module docstring says."""
    the_cast = Cast.load(cast)
    pack = rulesets.load(ruleset)
    for path in episode_files(source):
        if episodes is not None and path.stem not in episodes:
            continue
        try:
            raw_turns = _read_episode(path)
        except ImportError_ as exc:
            raise VgmError(str(exc)) from None
        yield from _episode_turns(path.stem, raw_turns, the_cast, pack)


def _episode_turns(episode: str, raw_turns: list[dict], cast: Cast, pack: Any) -> Iterator[RealTurn]:
    number = _episode_number(episode)
    rows = []
    for raw in raw_turns:
        if not isinstance(raw, dict):
            continue
        names = [str(n).upper() for n in raw.get("NAMES") or []]
        rows.append((names, bool(names) and all(n in cast.dm for n in names), _text(raw), raw.get("NUMBER", len(rows))))
    scene, previous, previous_speaker = "", "", "GM"
    for i, (names, is_dm, text, turn_number) in enumerate(rows):
        if is_dm:
            scene, previous, previous_speaker = text, text, "GM"
            continue
        if not text:
            continue
        asked: list[str] = []
        for _, dm_next, reply, _ in _dm_run(rows, i + 1):
            asked += [r.skill for r in find_requests(reply, pack) if r.skill not in asked]
        speaker = cast.character(names[0], number) if len(names) == 1 else None
        speaker = speaker or " & ".join(n.title() for n in names) or "Unknown"
        yield RealTurn(episode=episode, number=int(turn_number) if str(turn_number).isdigit() else i, speaker=speaker,
                       line=text, scene=scene, previous=previous, previous_speaker=previous_speaker, skills=asked)
        previous, previous_speaker = text, speaker


def _dm_run(rows: list, start: int) -> Iterator[tuple]:
    for row in rows[start:]:
        if not row[1]:
            return
        yield row

