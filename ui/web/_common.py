"""What every tab shares: offline settings, the app's context (study, runs folder), token checks, HTML helpers."""
from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from pathlib import Path

# Offline: Gradio must not phone home, and gradio_client must not look up the hub.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eval.ratings import AccessDenied, Study  # noqa: E402


@dataclass
class AppContext:
    """What one running app serves: an optional study, the runs folder, logs and play settings."""

    study: Study | None = None
    runs_dir: Path = field(default_factory=lambda: Path("runs"))
    logs_dir: Path | None = None
    model: str | None = None
    saves_dir: Path = field(default_factory=lambda: Path("saves"))
    memory: str = "minilm"  # the Play tab's GM memory: "minilm" (packaged embeddings) or "hashing" (fast, for tests)

    @property
    def model_string(self) -> str:
        """The model a tab offers first: ``--model`` when given as a string (a test may hand in a
        model object), else ``$VGM_MODEL``, else ``local``."""
        return self.model if isinstance(self.model, str) else os.environ.get("VGM_MODEL", "local")

    def role(self, token: str | None) -> str | None:
        """``admin``, ``rater`` or ``None``. Without a study every visitor is the local owner."""
        if self.study is None:
            return "admin"
        return self.study.role_of(token)

    def require_owner(self, token: str | None) -> None:
        """Compare, Play and Beliefs would unblind a study: with a study loaded, only its admin may use them."""
        if self.role(token) != "admin":
            raise AccessDenied()


def esc(text) -> str:
    return html.escape(str(text), quote=True)


PALETTE = ["#1d4ed8", "#047857", "#7c3aed", "#be185d", "#0e7490", "#4d7c0f", "#9f1239", "#4338ca"]


def speaker_colours(turns: list[dict]) -> dict[str, str]:
    """One readable colour per speaker, in order of first appearance (distinct for up to eight players)."""
    colours: dict[str, str] = {}
    for t in turns:
        who = str(t.get("speaker", "?"))
        if who not in colours:
            players = sum(1 for k in colours if k.strip().upper() not in ("GM", "DM"))
            colours[who] = "#b45309" if who.strip().upper() in ("GM", "DM") else PALETTE[players % len(PALETTE)]
    return colours


def turns_html(turns: list[dict], height: int = 320) -> str:
    """A scrollable table log with each speaker named and coloured (newest at the bottom)."""
    rows = []
    colours = speaker_colours(turns)
    for t in turns:
        who = str(t.get("speaker", "?"))
        rows.append(
            f'<div class="vgm-turn"><span class="vgm-speaker" style="color:{colours[who]}">{esc(who)}</span>'
            f'<span class="vgm-text">{esc(t.get("text", ""))}</span></div>'
        )
    # column-reverse keeps the box scrolled to its bottom (the latest turn) without script.
    return (
        f'<div class="vgm-log" style="max-height:{height}px;overflow-y:auto;display:flex;flex-direction:column-reverse">'
        f"<div>{''.join(rows) or '<i>(no context)</i>'}</div></div>"
    )


def checks_text(checks: list[dict] | None) -> str:
    if not checks:
        return "_(no check proposed)_"
    return ", ".join(f"**{esc(c.get('character', '?'))}** → {esc(str(c.get('skill', '?')).replace('_', ' '))}" for c in checks)


CSS = """
.vgm-log {border:1px solid #d4d4d8;border-radius:8px;padding:8px 10px;background:#fafafa;font-size:14px}
.vgm-turn {padding:3px 0;border-bottom:1px dashed #e5e7eb}
.vgm-speaker {font-weight:700;margin-right:8px}
.vgm-utterance {border-left:4px solid #b45309;background:#fff7ed;padding:10px 14px;border-radius:6px;font-size:16px;color:#1f2937}
.vgm-denied {color:#991b1b;font-weight:600}
.vgm-progress {height:10px;background:#e5e7eb;border-radius:5px;overflow:hidden}
.vgm-progress > div {height:100%;background:#16a34a}
"""
