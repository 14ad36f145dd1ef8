"""The Rate tab: a rater scores blind GM utterances; the study owner watches ratings arrive.

Every handler re-opens the rater's view from the token kept in server-side session state, so
the storage layer (not this page) decides what a token may read or write.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import gradio as gr

from eval.ratings import (
    CRITERIA,
    AccessDenied,
    InvalidRating,
    ItemView,
    RaterView,
    plot_report,
    study_report,
)

from rulesets import VgmError

from ._common import AppContext, checks_text, esc, turns_html

HOW_TO_RATE = """
You will see a moment from a tabletop role-playing game: the table log so far (players and the Game
Master, newest line at the bottom), the checks that were proposed for that moment, and **the GM's next
line**. Judge only that line, as if you were a player at this table.

- Read the last few turns first; scroll up only if you need more of the scene.
- Score each factor on its own: a line can be natural but wrong, or correct but stiff.
- 1 = poor, 3 = acceptable, 5 = as good as a skilled human GM would say it.
- In A/B items, pick the line you would rather hear from your GM; choose tie only if they are equally good (or bad).
- Not sure? Press **Skip for now**; skipped items come back at the end. Your answers are saved as you go,
  so you can close the page and come back to the same link later.
"""

AB_LABELS = [("A is better", "a"), ("Tie: about the same", "tie"), ("B is better", "b")]


def progress_html(view: RaterView, item: ItemView | None) -> str:
    p = view.progress()
    pct = 100 * (p.done + p.skipped) / p.total if p.total else 100
    where = f"item {view.position(item.id)} of {p.total} · " if item else ""
    return (
        f'<div id="vgm-progress-text"><b>{esc(view.name)}</b> · {where}<span id="vgm-done">{p.done}</span> rated, '
        f"{p.skipped} skipped, {p.remaining} to go</div>"
        f'<div class="vgm-progress"><div style="width:{pct:.1f}%"></div></div>'
    )


def utterance_html(text: str, label: str = "GM", checks: list[dict] | None = None) -> str:
    """The line to judge; in A/B mode each side carries the checks it came with."""
    extra = ""
    if checks is not None:
        said = ", ".join(f"{esc(c.get('character', '?'))} → {esc(str(c.get('skill', '?')).replace('_', ' '))}" for c in checks)
        extra = f'<div style="font-size:13px;color:#6b7280;margin-top:6px">checks proposed: {said or "none"}</div>'
    return f'<div class="vgm-utterance"><b>{esc(label)}:</b> {esc(text)}{extra}</div>'


_PLOTS: dict[tuple, str] = {}  # (study, ratings, choices) -> plot path: the 20 s refresh redraws only on news
_PLOT_NAMES: list[str] = []
_PRIVATE: list[Path] = []


def _private_dir() -> Path:
    """This server's own temp folder (mode 0700, removed at exit), for the report plot."""
    if not _PRIVATE or not _PRIVATE[0].is_dir():
        import atexit
        import shutil

        folder = Path(tempfile.mkdtemp(prefix="vgm-report-"))  # 0700: no other user can read it
        _PRIVATE[:] = [folder]
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return _PRIVATE[0]


def admin_tables(ctx: AppContext) -> tuple[list[list], list[list], str, str | None]:
    """Raters with progress and links; means with CIs; alpha/BT text; plot path."""
    admin = ctx.study.owner()
    raw = admin.raters()
    raters = [[r["name"], r["done"], r["skipped"], r["total"], f"/?token={r['token']}",
               time.strftime("%H:%M:%S", time.localtime(r["last"])) if r["last"] else "-"] for r in raw]
    report = study_report(admin)
    labels = {c.id: c.label for c in CRITERIA}
    means = report.means_table()
    alpha = ", ".join(f"{labels[k]} {('%.2f' % v) if v is not None else 'n/a'}" for k, v in report.alpha.items())
    lines = [f"**{report.ratings}** score ratings and **{report.choices}** A/B choices from **{report.raters}** raters.",
             f"Krippendorff's alpha (ordinal): {alpha}" + (f" ({report.alpha_note})" if report.alpha_note else "")]
    if report.bradley_terry:
        lines.append("Bradley-Terry: " + ", ".join(f"{b.condition} {b.score:+.2f}±{1.96 * (b.se or 0):.2f}" for b in report.bradley_terry))
    plot_path = None
    if report.ratings or report.choices:
        key = (str(ctx.study.path), report.ratings, report.choices, max((r["last"] or 0) for r in raw))
        plot_path = _PLOTS.get(key)
        if plot_path is None or not Path(plot_path).is_file():
            for old in _PLOTS.values():
                Path(old).unlink(missing_ok=True)
            plot_path = str(_private_dir() / f"report-{len(_PLOT_NAMES)}.png")
            _PLOT_NAMES.append(plot_path)
            plot_report(report, plot_path)
            _PLOTS.clear()
            _PLOTS[key] = plot_path
    return raters, means, "\n\n".join(lines), plot_path


class RateTab:
    """Builds the tab inside the app's Blocks; ``on_load`` fills it for the visitor's token."""

    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        with gr.Tab("Rate", id="rate") as self.tab:
            self.status = gr.Markdown(elem_id="rate-status")
            with gr.Column(visible=False, elem_id="rater-panel") as self.rater_panel:
                with gr.Accordion("How to rate", open=False, elem_id="rate-howto"):
                    gr.Markdown(HOW_TO_RATE)
                self.progress = gr.HTML(elem_id="rate-progress")
                self.item_id = gr.State(None)
                self.started = gr.State(0.0)
                gr.Markdown("**The table so far** (scroll up for earlier turns)")
                self.context = gr.HTML(elem_id="rate-context")
                self.checks = gr.Markdown(elem_id="rate-checks")
                with gr.Column(visible=False, elem_id="score-panel") as self.score_panel:
                    self.utterance = gr.HTML(elem_id="rate-utterance")
                    self.scores = [
                        gr.Radio(choices=["1", "2", "3", "4", "5"], label=f"{c.label} (1 poor - 5 excellent)", info=c.hint,
                                 elem_id=f"score-{c.id}")
                        for c in CRITERIA
                    ]
                with gr.Column(visible=False, elem_id="ab-panel") as self.ab_panel:
                    with gr.Row():
                        self.utter_a = gr.HTML(elem_id="rate-a")
                        self.utter_b = gr.HTML(elem_id="rate-b")
                    self.choice = gr.Radio(choices=AB_LABELS, label="Which GM line is better for this moment?", elem_id="ab-choice")
                with gr.Row():
                    self.submit_btn = gr.Button("Submit and next", variant="primary", elem_id="rate-submit")
                    self.skip_btn = gr.Button("Skip for now", elem_id="rate-skip")
            with gr.Column(visible=False, elem_id="admin-panel") as self.admin_panel:
                self.admin_summary = gr.Markdown(elem_id="admin-summary")
                with gr.Row():
                    self.refresh_btn = gr.Button("Refresh", elem_id="admin-refresh", scale=1)
                    self.new_rater = gr.Textbox(label="New rater's name", scale=2, elem_id="admin-new-rater")
                    self.add_btn = gr.Button("Add rater", scale=1, elem_id="admin-add")
                # ticks only on the owner's page (switched on in on_load), so ratings appear as they arrive
                self.timer = gr.Timer(20, active=False)
                self.raters_df = gr.Dataframe(headers=["rater", "rated", "skipped", "items", "link", "last"], label="Raters",
                                              interactive=False, elem_id="admin-raters")
                self.means_df = gr.Dataframe(headers=["condition", *[c.label for c in CRITERIA], "n"],
                                             label="Mean score (1-5) per condition and factor, [95% CI]", interactive=False,
                                             elem_id="admin-means")
                self.plot = gr.Image(label="Report plot", type="filepath", interactive=False, elem_id="admin-plot")
                self.csv_btn = gr.Button("Export CSV", elem_id="admin-csv")
                self.csv_file = gr.File(label="ratings.csv", interactive=False, visible=False)

        item_outputs = [self.status, self.rater_panel, self.progress, self.item_id, self.started, self.context, self.checks,
                        self.score_panel, self.utterance, *self.scores, self.ab_panel, self.utter_a, self.utter_b, self.choice]
        self.load_outputs = item_outputs + [self.admin_panel, self.admin_summary, self.raters_df, self.means_df, self.plot,
                                            self.timer]
        self.submit_btn.click(self._submit, [self.token, self.item_id, self.started, *self.scores, self.choice], item_outputs,
                              concurrency_limit=16, api_visibility="private")
        self.skip_btn.click(self._skip, [self.token, self.item_id], item_outputs, concurrency_limit=16, api_visibility="private")
        admin_outputs = [self.admin_summary, self.raters_df, self.means_df, self.plot]
        self.refresh_btn.click(self._refresh, [self.token], admin_outputs, api_visibility="private")
        self.timer.tick(self._refresh, [self.token], admin_outputs, api_visibility="private", show_progress="hidden")
        self.csv_btn.click(self._csv, [self.token], [self.csv_file], api_visibility="private")
        self.add_btn.click(self._add_rater, [self.token, self.new_rater], [self.new_rater, *admin_outputs], api_visibility="private")

    # -- rendering ---------------------------------------------------------------------
    def _show_item(self, view: RaterView, item: ItemView | None, note: str = "") -> dict:
        blank = {s: gr.update(value=None) for s in self.scores}
        if item is None:
            p = view.progress()
            return {
                self.status: f"### Thank you, {esc(view.name)}! All {p.total} items are rated. {note}",
                self.rater_panel: gr.update(visible=True), self.progress: progress_html(view, None),
                self.item_id: None, self.context: "", self.checks: "",
                self.score_panel: gr.update(visible=False), self.ab_panel: gr.update(visible=False),
                self.utterance: "", self.utter_a: "", self.utter_b: "", self.choice: gr.update(value=None), **blank,
            }
        mine = view.my_rating(item.id) or {}
        is_ab = item.kind == "ab"
        checks = "" if is_ab else f"**Checks proposed:** {checks_text(item.checks)}"
        return {
            self.status: (note or "Read the table log, then judge the GM's next line.") + (" _(you skipped this one before)_" if mine.get("skipped") else ""),
            self.rater_panel: gr.update(visible=True),
            self.progress: progress_html(view, item),
            self.item_id: item.id,
            self.started: time.time(),
            self.context: turns_html(item.context),
            self.checks: checks,
            self.score_panel: gr.update(visible=not is_ab),
            self.utterance: "" if is_ab else utterance_html(item.utterance, "GM (next line)"),
            **{s: gr.update(value=None if mine.get(c.id) is None else str(mine[c.id])) for s, c in zip(self.scores, CRITERIA)},
            self.ab_panel: gr.update(visible=is_ab),
            self.utter_a: utterance_html(item.utterance, "A", item.checks) if is_ab else "",
            self.utter_b: utterance_html(item.utterance_b or "", "B", item.checks_b or []) if is_ab else "",
            self.choice: gr.update(value=mine.get("choice")),
        }

    def _denied(self, message: str) -> dict:
        return {
            self.status: f'<span class="vgm-denied">{esc(message)}</span>',
            self.rater_panel: gr.update(visible=False), self.item_id: None, self.context: "", self.checks: "",
            self.utterance: "", self.utter_a: "", self.utter_b: "", self.progress: "",
        }

    def on_load(self, token: str | None) -> dict:
        """Fill the tab for whoever holds ``token``: a rater's next item, the admin's dashboard, or nothing."""
        hidden_admin = {self.admin_panel: gr.update(visible=False)}
        if self.ctx.study is None:
            return {**self._denied("No study is loaded. Start the app with `vgm ui --study study.db`."), **hidden_admin}
        role = self.ctx.study.role_of(token)
        if role == "admin":
            return {**self._denied(""), self.status: f"### Study `{esc(self.ctx.study.name)}`: owner view",
                    self.admin_panel: gr.update(visible=True), self.timer: gr.Timer(active=True), **self._admin_values()}
        if role != "rater":
            return {**self._denied(str(AccessDenied())), **hidden_admin}
        view = self.ctx.study.rater(token)
        return {**self._show_item(view, view.next_item(), f"Welcome back, {view.name}." if view.progress().done else f"Welcome, {view.name}."), **hidden_admin}

    # -- events ------------------------------------------------------------------------
    def _rater(self, token) -> RaterView | dict:
        """The rater's view, or the page's 'access denied' state for a wrong or missing token."""
        try:
            if self.ctx.study is None:
                raise AccessDenied()
            return self.ctx.study.rater(token)
        except AccessDenied as exc:
            return self._denied(str(exc))

    def _submit(self, token, item_id, started, nat, grd, fac, choice):
        view = self._rater(token)
        if isinstance(view, dict):
            return view
        if item_id is None:
            return self._show_item(view, view.next_item())
        seconds = time.time() - started if started else None
        try:
            item = view.item(item_id)
            if item.kind == "ab":
                if not choice:
                    raise InvalidRating("pick A, B or tie before submitting")
                view.choose(item_id, choice, seconds=seconds)
            else:
                missing = [c.label for c, v in zip(CRITERIA, (nat, grd, fac)) if not v]
                if missing:
                    raise InvalidRating(f"give a score for {', '.join(missing)} (or press Skip)")
                view.submit(item_id, nat, grd, fac, seconds=seconds)
        except InvalidRating as exc:
            gr.Warning(str(exc))
            return {self.status: f'<span class="vgm-denied">{esc(exc)}</span>'}
        return self._show_item(view, view.next_item(), "Saved.")

    def _skip(self, token, item_id):
        view = self._rater(token)
        if isinstance(view, dict):
            return view
        if item_id is not None:
            view.skip(item_id)
        return self._show_item(view, view.next_item(after=item_id), "Skipped; it will come back at the end.")

    def _admin_values(self) -> dict:
        raters, means, summary, plot = admin_tables(self.ctx)
        return {self.admin_summary: summary, self.raters_df: raters, self.means_df: means,
                self.plot: gr.update(value=plot, visible=plot is not None)}

    def _refresh(self, token):
        if self.ctx.study is None or self.ctx.study.role_of(token) != "admin":
            return {self.admin_summary: str(AccessDenied())}
        return self._admin_values()

    def _add_rater(self, token, name):
        if self.ctx.study is None or self.ctx.study.role_of(token) != "admin":
            return {self.admin_summary: str(AccessDenied())}
        try:
            rater = self.ctx.study.admin(token).add_rater(name)
        except VgmError as exc:
            gr.Warning(str(exc))
            return {}
        gr.Info(f"{rater.name}: /?token={rater.token}")
        return {self.new_rater: "", **self._admin_values()}

    def _csv(self, token):
        """A download link for the owner: ``/api/rate/export.csv`` answers only the admin token,
        builds the CSV in memory and writes no file anywhere."""
        if self.ctx.study is None or self.ctx.study.role_of(token) != "admin":
            return None
        from urllib.parse import quote

        href = f"/api/rate/export.csv?token={quote(token, safe='')}"
        return gr.update(value=f'<a href="{esc(href)}" download="ratings.csv">Download ratings.csv</a> '
                               "(the link works only with your admin token)", visible=True)
