"""The Beliefs tab (MafiaScope section 5): step through a Mafia/Avalon game and one agent's private beliefs.

A timeline slider walks the steps at which the chosen agent was probed. Beside the game feed
(in the impersonate view, only the events that agent saw), its latest role guesses stand next
to the true roles, and a reliability plot shows how well its confidence matched reality.
Games, probes and who saw which event come from ``eval.beliefs``, and so do the metrics.
"""
from __future__ import annotations

import atexit
import dataclasses
import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from eval.beliefs import (PROBE_LOG_SUFFIX, brier, calibration_rows, ece, entries, event_positions, load_mafiascope_game,
                          load_vgm_game, norm_role, position, read_jsonl, reliability_bins, resolve, seen_by)
from rulesets import VgmError

from ._common import AppContext, esc, turns_html

TRUTH_HEADERS = ["player", "guess", "conf.", "truth", "right?", "alive", "reason"]


@dataclass
class GameEntry:
    """One game found under the logs folder, with its raw events for the feed."""

    label: str
    game: Any  # eval.beliefs.BeliefGame
    events: list[dict]


_PRIVATE: list[Path] = []


def _plot_path() -> Path:
    """A fresh file name in this server's own temp folder (mode 0700, removed at exit)."""
    if not _PRIVATE or not _PRIVATE[0].is_dir():
        folder = Path(tempfile.mkdtemp(prefix="vgm-beliefs-"))
        _PRIVATE[:] = [folder]
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    fd, name = tempfile.mkstemp(prefix="calibration-", suffix=".png", dir=_PRIVATE[0])
    os.close(fd)
    return Path(name)


def find_games(path: str | Path) -> list[GameEntry]:
    """MafiaScope game folders and our ``<game>.jsonl`` + ``<game>.probes.jsonl`` pairs under ``path``."""
    path = Path(path)
    if not path.exists():
        raise VgmError(f"{path}: no such file or folder; give a folder of game logs with probes")
    found: list[GameEntry] = []
    if path.is_file():
        pairs = [(path, None)]
        folders: list[Path] = []
    else:
        folders = sorted({p.parent for p in path.rglob("game.jsonl*")})
        pairs = [(p.with_name(p.name.removesuffix(PROBE_LOG_SUFFIX) + ".jsonl"), p) for p in sorted(path.rglob("*" + PROBE_LOG_SUFFIX))]
    for folder in folders:
        if list(folder.glob("*" + PROBE_LOG_SUFFIX)):
            continue  # ours, handled below
        game = load_mafiascope_game(folder)
        events_path = next(p for p in sorted(folder.glob("game.jsonl*")))
        found.append(GameEntry(f"{folder.name} (MafiaScope, {len(game.probes)} probes)", game, read_jsonl(events_path)))
    for events_path, probe_path in pairs:
        if not events_path.is_file():
            continue
        game = load_vgm_game(events_path, probe_path)
        found.append(GameEntry(f"{events_path.stem} ({len(game.probes)} probes)", game, read_jsonl(events_path)))
    if not found:
        raise VgmError(f"{path}: no games with probes found; expected <game>.jsonl + <game>{PROBE_LOG_SUFFIX} or MafiaScope folders")
    return found


def event_turn(event: dict) -> dict:
    """An event as a line of the feed: who spoke, and what (or what happened)."""
    kind = str(event.get("kind", ""))
    text = event.get("text") or event.get("response") or event.get("speech")
    if text and event.get("player"):
        tag = "" if kind in ("speech", "intro", "day_discuss") else f"[{kind}] "
        return {"speaker": str(event["player"]), "text": f"{tag}{text}"}
    details = {k: v for k, v in event.items() if k not in ("game_id", "kind", "round", "public_msg_seq", "msg_seq", "ts", "private", "to", "players")}
    summary = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v}" for k, v in details.items())
    return {"speaker": "GM", "text": f"[{kind}] {summary}".strip()}


def agent_steps(game, agent: str) -> list[tuple[int, float]]:
    """The moments the agent was probed, in order (round-end probes last in their round)."""
    return sorted({position(p.round, p.public_msg_seq) for p in game.probes if p.player == agent})


def feed(entry: GameEntry, agent: str | None, upto: tuple[int, float], impersonate: bool) -> list[dict]:
    viewer = agent if impersonate else None
    return [event_turn(e) for e, pos in zip(entry.events, event_positions(entry.events))
            if pos <= upto and seen_by(e, viewer, entry.game)]


def latest_probes(game, agent: str, upto: tuple[int, float]) -> dict[str, Any]:
    """The agent's latest answer to each probe at or before ``upto``."""
    out: dict[str, Any] = {}
    for p in sorted((p for p in game.probes if p.player == agent), key=lambda p: (position(p.round, p.public_msg_seq), p.probe_seq)):
        if position(p.round, p.public_msg_seq) <= upto:
            out[p.probe_id] = p
    return out


def belief_rows(game, agent: str, upto: tuple[int, float], show_truth: bool) -> list[list]:
    """The agent's role guesses about every player next to the truth (hidden when ``show_truth`` is off)."""
    rec = latest_probes(game, agent, upto).get("role_assessment") or latest_probes(game, agent, upto).get("role_beliefs")
    guesses: dict[str, dict] = {}
    if rec is not None and rec.parse_ok:
        for e in entries(rec.answer_parsed):
            name = resolve(e.get("player"), game.players)
            if name and name not in guesses:
                guesses[name] = e
    rows = []
    for name in game.players:
        g = guesses.get(name, {})
        guess = norm_role(g.get("guessed_role")) if g else "-"
        truth = game.role(name) if show_truth else "(hidden)"
        match = "-" if not g or not show_truth or guess == "Unknown" else ("yes" if guess == game.role(name) else "no")
        alive = "yes" if game.alive_at(name, upto[0], upto[1]) else "dead"
        conf = g.get("confidence")
        rows.append([name + (" (me)" if name == agent else ""), guess, "-" if conf is None else f"{float(conf):.0f}",
                     truth, match, alive, str(g.get("reason", ""))[:160]])
    return rows


def calibration_plot(game, agent: str | None, path: str | Path) -> tuple[Path, str]:
    """Reliability diagram: the game's villager-side guesses, and the agent's own when it is on that side."""
    import matplotlib  # lazy: only the plot needs it, and it is slow to import

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [("all villager-side seats", calibration_rows(game), "tab:blue")]
    if agent:
        mine = calibration_rows(dataclasses.replace(game, probes=[p for p in game.probes if p.player == agent]))
        series.append((agent, mine, "tab:orange"))
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=1, label="perfect calibration")
    notes = []
    for label, rows, colour in series:
        if not len(rows):
            notes.append(f"{label}: no committed villager-side guesses")
            continue
        bins = [b for b in reliability_bins(rows) if b["n"]]
        ax.plot([b["mean_confidence"] for b in bins], [b["accuracy"] for b in bins], marker="o", color=colour,
                label=f"{label} (n={len(rows)})")
        notes.append(f"{label}: ECE {ece(rows):.3f}, Brier {brier(rows):.3f} over {len(rows)} guesses")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("stated confidence")
    ax.set_ylabel("share of guesses that were right")
    ax.set_title("Calibration of role guesses")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path), "  \n".join(notes)


class BeliefsTab:
    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        self.games: dict[str, list[GameEntry]] = {}  # by folder, read once per server
        with gr.Tab("Beliefs", id="beliefs") as self.tab:
            with gr.Row():
                self.folder = gr.Textbox(label="Game logs with probes (folder or log file)",
                                         value=str(ctx.logs_dir or ""), scale=4, elem_id="beliefs-folder")
                self.load_btn = gr.Button("Open", variant="primary", scale=1, elem_id="beliefs-open")
            self.note = gr.Markdown(elem_id="beliefs-note")
            with gr.Row():
                self.game = gr.Dropdown(label="Game", choices=[], allow_custom_value=True, scale=3, elem_id="beliefs-game")
                self.agent = gr.Dropdown(label="Agent", choices=[], allow_custom_value=True, scale=2, elem_id="beliefs-agent")
                self.impersonate = gr.Checkbox(value=True, label="Impersonate: show only what this agent saw", scale=2)
                self.show_truth = gr.Checkbox(value=True, label="Show true roles", scale=1)
            self.step = gr.Slider(minimum=0, maximum=1, step=1, value=0, label="Timeline (the agent's probe steps)", elem_id="beliefs-step")
            self.where = gr.Markdown(elem_id="beliefs-where")
            with gr.Row():
                with gr.Column(scale=3):
                    self.feed = gr.HTML(elem_id="beliefs-feed")
                with gr.Column(scale=4):
                    self.truth = gr.Dataframe(headers=TRUTH_HEADERS, label="The agent's role guesses vs the truth",
                                              interactive=False, wrap=True, elem_id="beliefs-truth",
                                              max_height=520, column_widths=["15%", "13%", "8%", "13%", "9%", "8%", "34%"])
                    self.calibration = gr.Image(label="Calibration", type="filepath", interactive=False, height=340,
                                                elem_id="beliefs-calibration")
                    self.calibration_note = gr.Markdown()
            with gr.Accordion("Other probe answers at this step", open=False):
                self.others = gr.JSON(label="latest answers")
        view_inputs = [self.token, self.folder, self.game, self.agent, self.step, self.impersonate, self.show_truth]
        self.view_outputs = [self.where, self.feed, self.truth, self.others]
        self.load_outputs = [self.folder, self.note, self.game, self.agent, self.step, self.calibration, self.calibration_note,
                             *self.view_outputs]
        self.load_btn.click(self._open, [self.token, self.folder], self.load_outputs, api_visibility="private")
        pick_outputs = [self.agent, self.step, self.calibration, self.calibration_note, *self.view_outputs]
        self.game.input(self._pick_game, [self.token, self.folder, self.game], pick_outputs, api_visibility="private")
        self.agent.input(self._pick_agent, [self.token, self.folder, self.game, self.agent], pick_outputs[1:], api_visibility="private")
        for trigger in (self.step.release, self.impersonate.input, self.show_truth.input):
            trigger(self._view, view_inputs, self.view_outputs, api_visibility="private")
        self.step.input(self._view, view_inputs, self.view_outputs, api_visibility="private", trigger_mode="always_last")

    # -- data --------------------------------------------------------------------------
    def _entries(self, folder: str) -> list[GameEntry]:
        if folder not in self.games:
            self.games[folder] = find_games(folder)
        return self.games[folder]

    def _entry(self, folder: str, label: str | None) -> GameEntry:
        entries = self._entries(folder)
        return next((e for e in entries if e.label == label), entries[0])

    # -- events ------------------------------------------------------------------------
    def on_load(self, token) -> dict:
        if not self.ctx.logs_dir:
            return {self.note: "Give a folder of game logs with probes (`vgm mafia simulate --probes ...`, or MafiaScope folders) and press Open."}
        return self._open(token, str(self.ctx.logs_dir))

    def _open(self, token, folder):
        try:
            self.ctx.require_owner(token)
            self.games.pop(folder, None)
            entries = self._entries(folder)
        except VgmError as exc:
            return {self.note: f'<span class="vgm-denied">{esc(exc)}</span>'}
        labels = [e.label for e in entries]
        return {self.note: f"{len(entries)} games in `{esc(folder)}`.", self.game: gr.update(choices=labels, value=labels[0]),
                **self._pick_game(token, folder, labels[0])}

    def _pick_game(self, token, folder, label):
        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
        except VgmError as exc:
            return {self.where: esc(exc)}
        steps = {p: len(agent_steps(entry.game, p)) for p in entry.game.players}
        probed = [p for p in entry.game.players if steps[p]]
        agent = max(probed, key=lambda p: steps[p]) if probed else None  # the longest-lived seat has the most to show
        return {self.agent: gr.update(choices=probed, value=agent), **self._pick_agent(token, folder, label, agent)}

    def _pick_agent(self, token, folder, label, agent):
        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
        except VgmError as exc:
            return {self.where: esc(exc)}
        steps = agent_steps(entry.game, agent) if agent else []
        last = max(len(steps) - 1, 0)
        plot, note = calibration_plot(entry.game, agent, _plot_path())
        return {
            self.step: gr.update(minimum=0, maximum=max(last, 1), value=last, interactive=last > 0),
            self.calibration: str(plot), self.calibration_note: note,
            **self._view(token, folder, label, agent, last, True, True),
        }

    def _view(self, token, folder, label, agent, step, impersonate, show_truth):
        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
        except VgmError as exc:
            return {self.where: esc(exc)}
        if not agent:
            return {self.where: "This game has no probes.", self.feed: "", self.truth: [], self.others: None}
        steps = agent_steps(entry.game, agent)
        k = min(int(step or 0), len(steps) - 1)
        upto = steps[k]
        seq = "end of round" if not math.isfinite(upto[1]) else f"message {upto[1]:g}"
        role = entry.game.role(agent)
        header = (f"**{esc(agent)}** (true role: {esc(role) if show_truth else 'hidden'}) · step {k + 1} of {len(steps)} · "
                  f"round {upto[0]}, {seq} · {'what ' + esc(agent) + ' saw' if impersonate else 'moderator view: every event'}")
        latest = latest_probes(entry.game, agent, upto)
        others = {pid: rec.answer_parsed for pid, rec in latest.items() if pid not in ("role_assessment", "role_beliefs")}
        return {
            self.where: header,
            self.feed: turns_html(feed(entry, agent, upto, impersonate), height=560),
            self.truth: belief_rows(entry.game, agent, upto, show_truth),
            self.others: others or None,
        }
