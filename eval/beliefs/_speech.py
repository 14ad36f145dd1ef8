"""What seats say, scored from the event log alone: distinct-speech rate and vote/talk consistency.

Probes grade private beliefs; these two figures grade the public talk the probes sit on, and need
no probe log (a game played without probes is scored too):

* **distinct-speech rate**: share of a game's non-empty public speeches that are not a near-duplicate
  of an earlier speech of the same game. Near-duplicate is the rule the re-ask uses
  (``gm.social.speech.repeat_flags``: MiniLM cosine ≥ ``REPEAT_THRESHOLD`` with any earlier
  speech, anyone's). A re-asked speech counts as what was finally said.
* **vote/talk consistency**: share of day votes that land on a player the voter accused in its own
  public speech that day, before the vote. Whom a speech accuses is ``_accuse``'s reading, the same
  one the viewer's deception markers use: a player named in a sentence whose nearest suspicion cue
  (suspect, Mafia, lying, vote out, …; 怀疑, 狼, …; подозр…, мафи…) is not negated ("not Mafia",
  "I don't suspect Alex", "不是狼", "我不怀疑3号"). Only votes whose voter spoke that day (non-empty)
  count; an abstention is not a vote. Chance = the share of the vote's options (alive others) the
  voter accused, i.e. how often a uniform vote would be consistent.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gm.social.speech import REPEAT_THRESHOLD, flatten, repeat_flags

from ._accuse import accused
from ._data import BeliefGame, position
from ._logs import PROBE_LOG_SUFFIX, ImportError_, event_positions, games_from_events, read_jsonl

SPEECH_TEXT = {"speech": "text", "intro": "response", "day_discuss": "response"}
"""Public speech events (ours; MafiaScope's) and the field holding what was said."""

@dataclass(frozen=True)
class Speech:
    """One public speech: when (round, public message), who, and what was finally said."""

    round: int
    seq: float
    player: str
    text: str


def speeches_of(events: list[dict[str, Any]]) -> list[Speech]:
    """Every public speech of a log in order (ours: ``speech``; MafiaScope's: ``intro``, ``day_discuss``).

    Each line is flattened (``gm.social.speech.flatten``); the line breaks stay, since a line break
    ends a sentence for ``_accuse``. The viewer reads the same speeches."""
    out = []
    for e, (rnd, seq) in zip(events, event_positions(events)):
        field = SPEECH_TEXT.get(str(e.get("kind", "")))
        if field and not e.get("private") and isinstance(e.get("player"), str):
            lines = (flatten(line) for line in str(e.get(field) or "").splitlines())
            out.append(Speech(rnd, seq, e["player"], "\n".join(x for x in lines if x)))
    return out


# -- distinct speech ----------------------------------------------------------------------
DS_COLS = ("round", "distinct", "similarity")


def distinct_rows(speeches: list[Speech], *, threshold: float = REPEAT_THRESHOLD, embed_fn=None) -> np.ndarray:
    """One row per non-empty speech: (round, 1 if not a near-duplicate of an earlier one, cosine of the copy or nan)."""
    said = [s for s in speeches if s.text]
    flags = repeat_flags([s.text for s in said], [s.player for s in said], threshold=threshold, embed_fn=embed_fn)
    rows = [(s.round, float(f is None), np.nan if f is None else f[1]) for s, f in zip(said, flags)]
    return np.asarray(rows, dtype=float).reshape(-1, len(DS_COLS))


# -- vote/talk consistency ------------------------------------------------------------------
def accused_in(text: str, players: list[str], speaker: str | None = None) -> set[str]:
    """The players (other than ``speaker``) a speech accuses in at least one sentence (``_accuse.stances``)."""
    return accused(text, players, speaker)


VT_COLS = ("round", "consistent", "chance", "accused_any")


def consistency_rows(game: BeliefGame, speeches: list[Speech]) -> np.ndarray:
    """One row per day vote whose voter spoke that day before voting: (round, consistent, chance, accused anyone)."""
    rows = []
    for v in game.votes:
        at = position(v.round, v.seq)
        own = [s for s in speeches if s.player == v.voter and s.round == v.round and s.text and position(s.round, s.seq) < at]
        if not own:
            continue
        accused = set().union(*(accused_in(s.text, game.players, v.voter) for s in own))
        # alive just before the vote: our logs record the vote and the elimination it causes at one
        # position, and the voted-out player must still count among the vote's options
        options = game.alive_others(v.voter, v.round, v.seq - 1e-6 if np.isfinite(v.seq) else 10**9)
        if not options:
            continue
        rows.append((v.round, float(v.target in accused), len(accused & set(options)) / len(options), float(bool(accused))))
    return np.asarray(rows, dtype=float).reshape(-1, len(VT_COLS))


# -- reading games ------------------------------------------------------------------------------
@dataclass
class SpeechGame:
    """A game's votes and deaths (``game``) with its public speeches."""

    game: BeliefGame
    speeches: list[Speech]
    reasks: int = 0  # re-asked speeches the log records (``speech_reask``)


def _event_logs(path: Path) -> list[tuple[Path, str]]:
    if path.is_file():
        return [(path, "mafiascope" if path.name.startswith("game.jsonl") else "vgm")]
    found = [(p, "mafiascope") for p in sorted(path.rglob("game.jsonl*"))]
    for p in sorted(path.rglob("*.jsonl")):
        name = p.name
        if name.endswith((PROBE_LOG_SUFFIX, ".snapshots.jsonl")) or name in ("game.jsonl", "introspection.jsonl", "results.jsonl"):
            continue
        found.append((p, "vgm"))
    return found


def load_speech_games(path: str | Path) -> list[SpeechGame]:
    """Every game log under ``path`` (MafiaScope folders and ours, probed or not) with its speeches."""
    out = []
    for p, source in _event_logs(Path(path)):
        events = read_jsonl(p)
        if not any(e.get("kind") == "setup" for e in events[:3]):
            continue  # not a game log (a results file, a report)
        try:
            game = games_from_events(events, [], str(p), source)
        except ImportError_:
            continue
        out.append(SpeechGame(game, speeches_of(events), sum(e.get("kind") == "speech_reask" for e in events)))
    return out
