"""The probe log: one JSON line per probe answer, keyed ``(round, public_msg_seq, player_idx, probe_seq)``.

The key extends the game's public event key, so the exact information state behind an answer
is the game log up to ``(round, public_msg_seq)``; ``public_msg_seq = -1`` marks a round-end pass.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

ROUND_END_SEQ = -1


class ProbeRecord(BaseModel):
    """One private answer of one seat to one probe at one step."""

    game_id: str = ""
    round: int
    public_msg_seq: int
    player_idx: int
    player: str
    probe_seq: int
    probe_id: str
    question: str = ""  # asked after the game log
    instructions: str = ""  # the probe's fixed text, asked before the seat's system prompt (empty: none)
    answer_raw: str = ""
    answer_parsed: Any = None
    parse_ok: bool = False
    role: str = ""
    phase: str = ""
    latency_ms: int = 0
    tokens: int = 0
    prompt_tokens: int = 0  # of the call (a batched call's counts sit on its first record)
    cached_tokens: int = 0  # prompt tokens the server reused from its prefix cache, not computed
    trigger: str = ""  # always | own_turn | night | round_end
    model: str = ""
    chained_from_raw: list[str] = []  # chained probes whose raw text had to be spliced in
    batched: bool = False
    error: str | None = None
    repaired: bool = False  # set by importers whose answers needed a repair pass

    def key(self) -> tuple[int, int, int, int]:
        return (self.round, self.public_msg_seq, self.player_idx, self.probe_seq)


class ProbeLogWriter:
    """Writes records to a JSON Lines file as they come (a crash loses at most one line).

    A game that is played again (a resumed batch restarts unfinished games) starts its probe log afresh.
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self._fh = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("w", encoding="utf-8")

    def write(self, record: ProbeRecord) -> None:
        if self._fh is not None:
            self._fh.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
