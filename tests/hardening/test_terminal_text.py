"""Stored text is shown safely in a terminal (issue 43): an escape sequence, BEL or NUL in a
player's line (or a model's words) was stored and replayed raw by `/log` and on resume; now each
control character is shown as \\xNN, read and never obeyed."""
from __future__ import annotations

import io

from rich.console import Console

from gm.agent import GameMaster
from pipelines.llm import ScriptedModel
from pipelines.records import Turn

HOSTILE = "I wave\x1b[2J\x1b]0;owned\x07 at\x00 the\x9b31m goblins"


def test_log_shows_control_characters_instead_of_obeying_them(monkeypatch, tmp_path):
    import ui.cli_play as cli_play

    gm = GameMaster("dnd5e", "ambush", ScriptedModel(replies=["ok"], repeat_last=True), memory=False, seed=3,
                    session_path=tmp_path / "s.json")
    gm.session.log.append(Turn(speaker="Brisa\x1b[31m", text=HOSTILE))
    screen = io.StringIO()
    monkeypatch.setattr(cli_play, "console", Console(file=screen, force_terminal=True, width=200, highlight=False))
    cli_play._command(gm, "/log 1")
    shown = screen.getvalue()
    raw = shown.replace("\x1b[0m", "").replace("\x1b[1m", "")  # Rich's own styling may remain; nothing of the line's
    assert "\x1b[2J" not in shown and "\x1b]0;" not in shown and "\x07" not in shown and "\x00" not in shown and "\x9b" not in shown
    assert "\\x1b[2J" in raw and "\\x07" in raw and "\\x00" in raw and "\\x9b31m" in raw and "Brisa\\x1b[31m" in raw


def test_the_social_seats_print_other_seats_words_safely(capsys):
    from ui.cli_social import _show

    _show("Mordred says: trust me\x1b[8m (hidden)\x07")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "trust me\\x1b[8m (hidden)\\x07" in out
