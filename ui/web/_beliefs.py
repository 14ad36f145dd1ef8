"""The Beliefs tab (MafiaScope section 5): step through a Mafia/Avalon game and one agent's private beliefs.

A timeline slider walks the steps at which the chosen agent was probed. Beside the game feed
(in the impersonate view, only the events that agent saw), its latest role guesses stand next
to the true roles. Below: the metrics strip at that step, the agent's belief graphs over time,
its second-order panels (believed vs actual), the figures over the timeline with deception
markers, a calibration plot with Wilson intervals, a dashboard of every game in the folder, a
Branch button (counterfactual replay from the step) and the belief graph as temporal edges.
Games, probes, metrics and panel data come from ``eval.beliefs``; drawing is in ``_beliefs_panels``.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import math
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gradio as gr

from eval.beliefs import (PROBE_LOG_SUFFIX, belief_edges, branch_key, dashboard_rows, deception_markers, edges_text, entries,
                          event_positions, fork_tree, load_mafiascope_game, load_vgm_game, metric_timeline, norm_role, pooled_row,
                          position, read_jsonl, resolve, role_track, round_graph, seat_series, second_order_pairs, seen_by,
                          step_label, step_metrics)
from rulesets import VgmError

from . import _beliefs_panels as panels
from ._beliefs_graph import fork_tree_html, round_graph_plot
from ._beliefs_panels import calibration_plot, private_file
from ._common import AppContext, esc, turns_html

TRUTH_HEADERS = ["player", "guess", "conf.", "truth", "right?", "alive", "reason"]


@dataclass
class GameEntry:
    """One game found under the logs folder, with its raw events for the feed."""

    label: str
    game: Any  # eval.beliefs.BeliefGame
    events: list[dict]
    log: Path | None = None  # our event log (forkable when it has snapshots); None for MafiaScope folders
    cache: dict[Any, Any] = field(default_factory=dict)  # edges, markers, timelines: computed once per entry

    def memo(self, key: Any, make):
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    @property
    def edges(self) -> list[dict]:
        return self.memo("edges", lambda: belief_edges(self.game))

    @property
    def markers(self) -> list[dict]:
        return self.memo("markers", lambda: deception_markers(self.game, self.events))


def _plot_path(prefix: str = "calibration-") -> Path:
    """A fresh PNG name in this server's own temp folder (mode 0700, removed at exit)."""
    return private_file(prefix)


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
        found.append(GameEntry(f"{events_path.stem} ({len(game.probes)} probes)", game, read_jsonl(events_path), events_path))
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


def fork_logs(folder: str | Path) -> list[Path]:
    """Every game log under ``folder`` (forks are in ``forks/`` beside their parent)."""
    path = Path(folder)
    if path.is_file():
        path = path.parent
    skip = (".snapshots.jsonl", PROBE_LOG_SUFFIX, "results.jsonl")
    return [p for p in sorted(path.rglob("*.jsonl")) if not p.name.endswith(skip)]


def address_of(game_id: str, rnd: int, seat: str | None) -> str:
    """The query string that opens this view: ``?game=…&round=…&seat=…``."""
    from urllib.parse import urlencode

    return "?" + urlencode({"game": game_id, "round": rnd, **({"seat": seat} if seat else {})})


def addressed_step(steps: list[tuple[int, float]], rnd: int) -> int:
    """The index of the agent's last probe step in round ``rnd`` (or the last before it; the first if none)."""
    before = [i for i, s in enumerate(steps) if s[0] <= rnd]
    return before[-1] if before else 0


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


FOLLOW_ADDRESS = """(text) => {
  const m = (text || "").match(/\\?game=[^`)\\s]+/);
  if (m) {
    const next = new URLSearchParams(m[0]);
    const token = new URLSearchParams(location.search).get("token");
    if (token) next.set("token", token);
    history.replaceState(null, "", "?" + next.toString());
  }
  return [];
}"""

BRANCH_WORKERS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vgm-branch")  # one replay batch at a time, off the event loop
_JOB_IDS = itertools.count(1)


def run_branch(log: Path, at: tuple[int, int], n: int, probes: str | None) -> Future:
    """Start ``fork_game`` in the background (its own thread and event loop); the future holds its report."""
    from eval.beliefs import fork_game

    return BRANCH_WORKERS.submit(lambda: asyncio.run(fork_game(log, at, n, probes=probes)))


class BeliefsTab:
    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        self.games: dict[str, list[GameEntry]] = {}  # by folder, read once per server
        self.jobs: dict[str, Future] = {}  # running branches by job id
        with gr.Tab("Beliefs", id="beliefs") as self.tab:
            # inside the tab: a component made after the tab's block closes lands in the tab bar
            # and drew the next tab's header twice
            self.branch_job = gr.State(None)
            with gr.Row():
                self.folder = gr.Textbox(label="Game logs with probes (folder or log file)",
                                         value=str(ctx.logs_dir or ""), scale=4, elem_id="beliefs-folder")
                self.load_btn = gr.Button("Open", variant="primary", scale=1, elem_id="beliefs-open")
            self.note = gr.Markdown(elem_id="beliefs-note")
            with gr.Accordion("Dashboard: every game in the folder", open=True):
                self.dashboard = gr.Dataframe(headers=panels.DASHBOARD_HEADERS, interactive=False, wrap=True, max_height=260,
                                              elem_id="beliefs-dashboard")
            with gr.Row():
                self.game = gr.Dropdown(label="Game", choices=[], allow_custom_value=True, scale=3, elem_id="beliefs-game")
                self.agent = gr.Dropdown(label="Agent", choices=[], allow_custom_value=True, scale=2, elem_id="beliefs-agent")
                self.impersonate = gr.Checkbox(value=True, label="Impersonate: show only what this agent saw", scale=2)
                self.show_truth = gr.Checkbox(value=True, label="Show true roles", scale=1)
            self.step = gr.Slider(minimum=0, maximum=1, step=1, value=0, label="Timeline (the agent's probe steps)", elem_id="beliefs-step")
            self.where = gr.Markdown(elem_id="beliefs-where")
            self.metrics = gr.HTML(elem_id="beliefs-metrics")
            with gr.Row():
                with gr.Column(scale=3):
                    self.feed = gr.HTML(elem_id="beliefs-feed")
                with gr.Column(scale=4):
                    self.truth = gr.Dataframe(headers=TRUTH_HEADERS, label="The agent's role guesses vs the truth",
                                              interactive=False, wrap=True, elem_id="beliefs-truth",
                                              max_height=520, column_widths=["15%", "13%", "8%", "13%", "9%", "8%", "34%"])
                    self.second_order = gr.HTML(elem_id="beliefs-second-order")
            with gr.Row():
                self.graph = gr.Image(label="Belief graph over time", type="filepath", interactive=False, height=460,
                                      elem_id="beliefs-graph")
                self.timeline = gr.Image(label="Figures and deception markers over time", type="filepath", interactive=False,
                                         height=460, elem_id="beliefs-timeline")
            self.deception = gr.Dataframe(headers=panels.DECEPTION_HEADERS, label="Deception markers: public claims against the "
                                          "seat's own private belief at that step", interactive=False, wrap=True, max_height=300,
                                          elem_id="beliefs-deception")
            with gr.Row():
                with gr.Column(scale=3):
                    self.calibration = gr.Image(label="Calibration", type="filepath", interactive=False, height=340,
                                                elem_id="beliefs-calibration")
                    self.calibration_note = gr.Markdown()
                with gr.Column(scale=3):
                    gr.Markdown("**Branch from here** (counterfactual replay; needs a game recorded with `--snapshots`)")
                    with gr.Row():
                        self.branch_at = gr.Textbox(label="step (ROUND.SEQ or ROUND.end)", scale=2, elem_id="beliefs-branch-at")
                        self.branch_n = gr.Number(value=3, precision=0, minimum=1, maximum=50, label="replays", scale=1,
                                                  elem_id="beliefs-branch-n")
                        self.branch_probes = gr.Dropdown(["none", "cheap", "default"], value="none", label="probes in replays",
                                                         scale=1)
                    self.branch_btn = gr.Button("Branch", elem_id="beliefs-branch")
                    self.branch_out = gr.Markdown(elem_id="beliefs-branch-result")
                    gr.Markdown("**Belief graph as temporal edges** (step, from, to, kind, value)")
                    with gr.Row():
                        self.edges_csv = gr.DownloadButton("Edges (CSV)", value=None, elem_id="beliefs-edges-csv")
                        self.edges_json = gr.DownloadButton("Edges (JSON)", value=None, elem_id="beliefs-edges-json")
            with gr.Row():
                with gr.Column(scale=3):
                    self.round_graph = gr.Image(label="Who suspects whom this round", show_label=False,  # the plot has its own title
                                                type="filepath", interactive=False, height=520, elem_id="beliefs-round-graph")
                    with gr.Row():
                        self.round_png = gr.DownloadButton("Graph (PNG)", value=None, elem_id="beliefs-round-png")
                        self.link = gr.Markdown(elem_id="beliefs-link")
                with gr.Column(scale=3):
                    gr.Markdown("**Forks of the games in this folder** (each branch with its edits)")
                    self.fork_tree = gr.HTML(elem_id="beliefs-fork-tree")
            with gr.Accordion("Other probe answers at this step", open=False):
                self.others = gr.JSON(label="latest answers")
        view_inputs = [self.token, self.folder, self.game, self.agent, self.step, self.impersonate, self.show_truth]
        self.view_outputs = [self.where, self.feed, self.truth, self.others, self.metrics, self.second_order, self.graph,
                             self.timeline, self.deception, self.branch_at, self.round_graph, self.round_png, self.link]
        pick_outputs = [self.agent, self.step, self.calibration, self.calibration_note, self.edges_csv, self.edges_json,
                        *self.view_outputs]
        self.load_outputs = [self.folder, self.note, self.game, self.dashboard, self.fork_tree, *pick_outputs]
        # every listener that redraws the view shares one queue, served in order: otherwise a slow
        # step update could land after "Show true roles" was unticked and redraw the roles
        serial = dict(api_visibility="private", concurrency_id="beliefs-view", concurrency_limit=1)
        self.load_btn.click(self._open, [self.token, self.folder], self.load_outputs, **serial)
        self.game.input(self._pick_game, [self.token, self.folder, self.game], pick_outputs, **serial)
        self.agent.input(self._pick_agent, [self.token, self.folder, self.game, self.agent],
                         [self.step, self.calibration, self.calibration_note, *self.view_outputs], **serial)
        for trigger in (self.step.release, self.impersonate.input, self.show_truth.input):
            trigger(self._view, view_inputs, self.view_outputs, **serial)
        self.step.input(self._view, view_inputs, self.view_outputs, trigger_mode="always_last", **serial)
        # the address bar follows the view (the study token, if any, stays), so the page's own URL can be shared
        self.link.change(None, [self.link], None, js=FOLLOW_ADDRESS)
        self.branch_btn.click(self._branch_start, [self.token, self.folder, self.game, self.branch_at, self.branch_n, self.branch_probes],
                              [self.branch_out, self.branch_job], api_visibility="private").then(
            self._branch_wait, [self.token, self.branch_job], [self.branch_out], api_visibility="private").then(
            self._forks, [self.token, self.folder, self.game], [self.fork_tree], api_visibility="private")

    # -- data --------------------------------------------------------------------------
    def _entries(self, folder: str) -> list[GameEntry]:
        if folder not in self.games:
            self.games[folder] = find_games(folder)
        return self.games[folder]

    def _entry(self, folder: str, label: str | None) -> GameEntry:
        entries = self._entries(folder)
        return next((e for e in entries if e.label == label), entries[0])

    # -- events ------------------------------------------------------------------------
    def on_load(self, token, query: dict | None = None) -> dict:
        """The tab as the page opens; ``query`` (the page's URL parameters) may address a view: ``game``, ``round``, ``seat``."""
        if not self.ctx.logs_dir:
            return {self.note: "Give a folder of game logs with probes (`vgm mafia simulate --probes ...`, or MafiaScope folders) and press Open."}
        address = {k: v for k, v in (query or {}).items() if k in ("game", "round", "seat")}
        return self._open(token, str(self.ctx.logs_dir), address or None)

    def _forks(self, token, folder, label=None):
        try:
            self.ctx.require_owner(token)
            selected = self._entry(folder, label).game.game_id if label else None
            return fork_tree_html(fork_tree(fork_logs(folder)), selected)
        except VgmError as exc:
            return esc(exc)

    def _open(self, token, folder, address: dict | None = None):
        try:
            self.ctx.require_owner(token)
            self.games.pop(folder, None)
            entries = self._entries(folder)
        except VgmError as exc:
            return {self.note: f'<span class="vgm-denied">{esc(exc)}</span>'}
        labels = [e.label for e in entries]
        rows = dashboard_rows([(e.game, e.events) for e in entries])
        if len(rows) > 1:
            rows.append(pooled_row(rows, [e.game for e in entries]))
        note = f"{len(entries)} games in `{esc(folder)}`."
        label, problem = labels[0], None
        if address:
            label, problem = self._addressed(entries, address)
            label = label or labels[0]
        if problem:
            note += f' <span class="vgm-denied">{esc(problem)}</span>'
        picked = self._pick_game(token, folder, label, address if not problem else None)
        return {self.note: note, self.game: gr.update(choices=labels, value=label),
                self.dashboard: panels.dashboard_table(rows), self.fork_tree: self._forks(token, folder, label), **picked}

    @staticmethod
    def _addressed(entries: list[GameEntry], address: dict) -> tuple[str | None, str | None]:
        """The label of the game an address names, or one line saying what in it does not exist."""
        entry = next((e for e in entries if e.game.game_id == address.get("game")), None)
        if entry is None:
            return None, (f"address: no game {str(address.get('game'))[:80]!r} in this folder; "
                          f"use one of {', '.join(e.game.game_id for e in entries[:8])}")
        seat = address.get("seat")
        if seat and not agent_steps(entry.game, seat):
            return entry.label, f"address: seat {seat[:40]!r} has no probe answers in {entry.game.game_id}; use one of {', '.join(p for p in entry.game.players if agent_steps(entry.game, p))}"
        rnd = address.get("round")
        if rnd is not None and not str(rnd).isdigit():
            return entry.label, f"address: round {str(rnd)[:20]!r} is not a round number"
        return entry.label, None

    def _pick_game(self, token, folder, label, address: dict | None = None):
        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
        except VgmError as exc:
            return {self.where: esc(exc)}
        steps = {p: len(agent_steps(entry.game, p)) for p in entry.game.players}
        probed = [p for p in entry.game.players if steps[p]]
        agent = max(probed, key=lambda p: steps[p]) if probed else None  # the longest-lived seat has the most to show
        if address and address.get("seat") in probed:
            agent = address["seat"]
        downloads = {}
        for button, fmt in ((self.edges_csv, ".csv"), (self.edges_json, ".json")):
            path = panels.download_file(f"{entry.game.game_id}.edges{fmt}")
            path.write_text(edges_text(entry.edges, fmt), encoding="utf-8")
            downloads[button] = gr.update(value=str(path))
        return {self.agent: gr.update(choices=probed, value=agent), **downloads,
                **self._pick_agent(token, folder, label, agent, address)}

    def _pick_agent(self, token, folder, label, agent, address: dict | None = None):
        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
        except VgmError as exc:
            return {self.where: esc(exc)}
        steps = agent_steps(entry.game, agent) if agent else []
        last = max(len(steps) - 1, 0)
        at = addressed_step(steps, int(address["round"])) if address and str(address.get("round", "")).isdigit() else last
        plot, note = calibration_plot(entry.game, agent, _plot_path())
        return {
            self.step: gr.update(minimum=0, maximum=max(last, 1), value=at, interactive=last > 0),
            self.calibration: str(plot), self.calibration_note: note,
            **self._view(token, folder, label, agent, at, True, True),
        }

    def _view(self, token, folder, label, agent, step, impersonate, show_truth):
        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
        except VgmError as exc:
            return {self.where: esc(exc)}
        if not agent:
            return {self.where: "This game has no probes.", self.feed: "", self.truth: [], self.others: None, self.metrics: "",
                    self.second_order: "", self.graph: None, self.timeline: None}
        steps = agent_steps(entry.game, agent)
        k = min(int(step or 0), len(steps) - 1)
        upto = steps[k]
        seq = "end of round" if not math.isfinite(upto[1]) else f"message {upto[1]:g}"
        role = entry.game.role(agent)
        header = (f"**{esc(agent)}** (true role: {esc(role) if show_truth else 'hidden'}) · step {k + 1} of {len(steps)} · "
                  f"round {upto[0]}, {seq} · {'what ' + esc(agent) + ' saw' if impersonate else 'moderator view: every event'}")
        latest = latest_probes(entry.game, agent, upto)
        others = {pid: rec.answer_parsed for pid, rec in latest.items() if pid not in ("role_assessment", "role_beliefs")}
        here = step_label(*upto)
        timeline = entry.memo(("timeline", agent), lambda: metric_timeline(entry.game, agent))
        labels = [step_label(*s) for s in steps]
        graph = panels.belief_graph_plot(seat_series(entry.edges, agent), role_track(entry.edges, agent), labels,
                                         entry.game.players, agent, here, _plot_path("graph-"))
        suspects = round_graph_plot(round_graph(entry.game, entry.edges, upto), agent, show_truth, _plot_path("round-"))
        png = panels.download_file(f"{entry.game.game_id}-round{upto[0]}-{agent}.png")
        png.write_bytes(suspects.read_bytes())
        link = address_of(entry.game.game_id, upto[0], agent)
        return {
            self.round_graph: str(suspects), self.round_png: gr.update(value=str(png)),
            self.link: f"Link to this view: [`{link}`]({link})",  # urlencoded: nothing to escape
            self.where: header,
            self.feed: turns_html(feed(entry, agent, upto, impersonate), height=560),
            self.truth: belief_rows(entry.game, agent, upto, show_truth),
            self.others: others or None,
            self.metrics: panels.metrics_html(step_metrics(entry.game, upto, agent), show_truth),
            self.second_order: panels.second_order_html(second_order_pairs(entry.game, agent, upto), agent),
            self.graph: str(graph),
            self.timeline: str(panels.timeline_plot(timeline, entry.markers, agent, here, _plot_path("timeline-"))),
            self.deception: panels.deception_rows(entry.markers, entry.game, show_truth),
            self.branch_at: here,
        }

    # -- branch ----------------------------------------------------------------------------
    def _branch_start(self, token, folder, label, at, n, probes):
        """Check the step at once (one line if it cannot be forked), then start the replays in the background."""
        from eval.beliefs import find_snapshot

        try:
            self.ctx.require_owner(token)
            entry = self._entry(folder, label)
            if entry.log is None:
                raise VgmError("this is a MafiaScope game folder; only games recorded by vgm with --snapshots can be branched")
            key = branch_key(str(at or ""))
            find_snapshot(entry.log, key)
            n = int(n or 0)
            if not 1 <= n <= 50:
                raise VgmError(f"replays {n}: give 1 to 50")
        except VgmError as exc:
            return f'<span class="vgm-denied">error: {esc(exc)}</span>', None
        job = str(next(_JOB_IDS))
        self.jobs[job] = run_branch(entry.log, key, n, None if probes in (None, "", "none") else probes)
        return f"Branching {n}× from step {esc(step_label(*key))} of {esc(entry.game.game_id)} … (the page stays usable)", job

    async def _branch_wait(self, token, job):
        future = self.jobs.pop(job, None) if job else None
        if future is None:
            return gr.update()  # the start failed and already said why
        try:
            report = await asyncio.wrap_future(future)
        except VgmError as exc:
            return f'<span class="vgm-denied">error: {esc(exc)}</span>'
        except Exception as exc:  # noqa: BLE001 - a replay that crashes must not take the page with it
            return f'<span class="vgm-denied">error: the replay failed ({esc(type(exc).__name__)}: {esc(str(exc)[:200])})</span>'
        return panels.fork_summary(report)
