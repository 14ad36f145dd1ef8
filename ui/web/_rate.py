"""The Rate tab: a rater scores blind GM utterances; the study owner watches ratings arrive.

Every handler re-opens the rater's view from the token kept in server-side session state, so
the storage layer (not this page) decides what a token may read or write.
"""
from __future__ import annotations

import functools
import tempfile
import time
from pathlib import Path

import gradio as gr

from eval.ratings import (
    COMMENT_MAX,
    CRITERIA,
    Criterion,
    AccessDenied,
    EnrollmentRefused,
    InvalidRating,
    ItemView,
    RaterView,
    plot_report,
    study_report,
)
from rulesets import VgmError

from ._common import AppContext, esc, turns_html
from ._rate_text import text_for

EN = text_for("en")


def ab_labels(t: dict[str, str]) -> list[tuple[str, str]]:
    """The A/B answers in the page's language: A better, B better, a tie, both bad (Chatbot Arena's four)."""
    return [(t["ab_a"], "a"), (t["ab_b"], "b"), (t["ab_tie"], "tie"), (t["ab_both_bad"], "both_bad")]


AB_LABELS = ab_labels(EN)


def keys_html(t: dict[str, str]) -> str:
    return f'<div class="vgm-keys" id="rate-keys" aria-label="Keyboard shortcuts">{t["keys"]}</div>'


KEYS_HTML = keys_html(EN)


def anchors_text(criteria: tuple[Criterion, ...]) -> str:
    """'1 = poor · 3 = acceptable · 5 = ...' when every criterion shares its anchors; else empty (each shows its own)."""
    shared = {c.anchors for c in criteria}
    if len(shared) != 1 or not next(iter(shared)):
        return ""
    return " · ".join(f"{n} = {name}" for n, name in next(iter(shared)))


@functools.cache
def _howto_html(lang: str = "en", scale: str = "") -> str:
    from markdown_it import MarkdownIt

    t = text_for(lang)
    return MarkdownIt("commonmark", {"html": False}).render(t["howto"].replace("{scale}", scale or "1 = poor, 5 = excellent"))


def progress_html(view: RaterView, item: ItemView | None, note: str = "", t: dict[str, str] = EN, howto: str = "") -> str:
    """Progress (with the item id as ``data-item``, which the page's script watches), the last action's
    note ("Saved.") and the 'How to rate' panel, in one line."""
    p = view.progress()
    pct = 100 * (p.done + p.skipped) / p.total if p.total else 100
    where = t["item_of"].format(n=view.position(item.id), total=p.total) if item else ""
    note_html = f'<span class="vgm-note" id="rate-note">{esc(note)}</span> ' if note else ""
    return (
        f'<div class="vgm-top"><div class="vgm-top-main"><div id="vgm-progress-text" data-item="{item.id if item else "end"}">'
        f'{note_html}<b class="vgm-wide">{esc(view.name)} · </b>{where}<span id="vgm-done">{p.done}</span> {t["rated"]}, '
        f'{p.skipped} {t["skipped"]}<span class="vgm-wide">, {p.remaining} {t["to_go"]}</span></div>'
        f'<div class="vgm-progress" role="progressbar" aria-valuenow="{pct:.0f}" aria-valuemin="0" aria-valuemax="100">'
        f'<div style="width:{pct:.1f}%"></div></div></div>'
        f'<details id="rate-howto"><summary>{t["howto_title"]}</summary><div class="vgm-howto-body">{howto or _howto_html()}</div>'
        "</details></div>"
    )


def utterance_html(text: str, label: str = "GM", checks: list[dict] | None = None, t: dict[str, str] = EN) -> str:
    """The line to judge, with the checks it came with (``None``: an item that has no checks to show)."""
    extra = ""
    if checks is not None:
        said = ", ".join(f"{esc(c.get('character', '?'))} → {esc(str(c.get('skill', '?')).replace('_', ' '))}" for c in checks)
        extra = f'<div class="vgm-checks">{t["checks"]}: {said or t["none"]}</div>'
    return f'<div class="vgm-utterance"><b>{esc(label)}:</b> {esc(text)}{extra}</div>'


def context_html(turns: list[dict], t: dict[str, str] = EN) -> str:
    return (f'<div class="vgm-context-head"><b>{t["context_head"]}</b><span class="vgm-wide">{t["context_hint"]}'
            "</span></div>" + turns_html(turns))


def alert_html(message: str) -> str:
    return f'<div class="vgm-alert" role="alert">{esc(message)}</div>' if message else ""


def end_html(view: RaterView, token: str, t: dict[str, str] = EN) -> str:
    """The end page: thanks, the completion code and the way back to the platform (no item buttons)."""
    from urllib.parse import quote

    done = view.completion()
    total = view.progress().total
    parts = [f'<h2>{esc(t["done_title"].format(total=total))}</h2>']
    if done is not None and done.code:
        parts.append(f'<p>{t["your_code"]} <span class="vgm-code" id="vgm-code">{esc(done.code)}</span></p>')
    if done is not None and done.finish_url:
        href = f"/complete?token={quote(token, safe='')}"
        parts.append(f'<p><a class="vgm-finish" id="vgm-finish" rel="noreferrer" href="{esc(href)}">{t["finish"]}</a></p>')
    else:
        parts.append(f"<p>{t['saved_close']}</p>")
    return f'<div class="vgm-end">{"".join(parts)}</div>'


# The rater page's layout: one item fits a 1280x800 screen and a 375 px phone. Text colours meet WCAG AA
# (4.5:1 or more on their background); the factor guidance is #374151 on white (10:1).
RATE_CSS = """
#rater-panel {gap:8px !important}
#rater-panel .html-container, #rate-end .html-container {padding:0 !important}
#rate-alert:not(:has(.vgm-alert)) {display:none !important}
.vgm-top {display:flex;gap:12px;align-items:center;position:relative}
.vgm-top-main {flex:1;min-width:0}
#vgm-progress-text {font-size:14px;color:#1f2937;margin-bottom:3px}
.vgm-note {color:#14532d;font-weight:600}
#vgm-tabs .tab-wrapper:has([role="tablist"] > button:only-of-type) {display:none}
#rate-howto summary {cursor:pointer;color:#1d4ed8;font-weight:600;font-size:14px;white-space:nowrap}
#rate-howto[open] .vgm-howto-body {position:absolute;right:0;top:100%;z-index:30;width:min(620px,94vw);background:#fff;
  color:#1f2937;border:1px solid #9ca3af;border-radius:8px;padding:8px 14px;box-shadow:0 8px 24px rgba(0,0,0,.18);font-size:14px}
#rate-item {gap:14px !important;align-items:flex-start !important}
#rate-left, #rate-right {gap:6px !important}
#score-panel, #ab-panel {gap:6px !important}
.vgm-context-head {font-size:14px;color:#1f2937;margin-bottom:4px}
#rate-context .vgm-log {max-height:min(66vh,560px) !important}
.vgm-utterance .vgm-checks {font-size:13px;color:#374151;margin-top:4px}
#score-panel fieldset, #ab-choice {padding:4px 10px 6px !important;border-radius:8px}
#score-panel fieldset [data-testid="block-info"], #ab-choice [data-testid="block-info"] {color:#111827;font-weight:600;font-size:14px;margin:0}
#score-panel fieldset .info-text {color:#374151 !important;font-size:13px;line-height:1.35;margin:0 0 4px}
#score-panel fieldset .wrap {display:grid !important;grid-template-columns:repeat(5,minmax(0,1fr));gap:6px}
#ab-choice .wrap {display:grid !important;grid-template-columns:repeat(4,minmax(0,1fr));gap:6px}
#score-panel fieldset .wrap label, #ab-choice .wrap label {justify-content:center;padding:5px 4px !important;min-height:34px;margin:0 !important}
#score-panel fieldset.vgm-active {outline:3px solid #1d4ed8;outline-offset:-2px;background:#eff6ff}
#rate-comment textarea, #rate-comment input {font-size:14px}
#rate-comment textarea::placeholder {color:#6b7280;opacity:1}
.vgm-alert {color:#991b1b;background:#fef2f2;border:1px solid #fca5a5;border-radius:6px;padding:6px 10px;font-weight:600;font-size:14px}
#rate-buttons {gap:8px !important;flex-wrap:nowrap !important}
#rate-buttons > * {min-width:0 !important;flex:1 1 0 !important}
.vgm-keys {font-size:13px;color:#374151;line-height:1.6}
.vgm-keys kbd {border:1px solid #6b7280;border-bottom-width:2px;border-radius:4px;padding:0 5px;background:#f9fafb;color:#111827;font-size:12px}
.vgm-scale {font-size:13px;color:#374151}
.vgm-end {border:1px solid #86efac;background:#f0fdf4;border-radius:10px;padding:14px 18px;color:#14532d}
.vgm-end h2 {font-size:1.2rem;margin:0 0 8px;color:#14532d}
.vgm-code {font:700 1.4rem ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.06em;background:#fff;color:#111827;
  border:1px solid #16a34a;padding:2px 10px;border-radius:6px;user-select:all}
a.vgm-finish {display:inline-block;background:#15803d;color:#fff !important;border-radius:8px;padding:10px 18px;font-weight:600;text-decoration:none}
@media (max-width: 700px) {
  .vgm-wide, .vgm-note, #rate-keys-block {display:none !important}
  #rate-item {gap:8px !important}
  #rate-buttons button {padding:8px 6px !important;font-size:15px !important;white-space:nowrap}
  #vgm-progress-text {font-size:13px}
  #rate-context .vgm-log {max-height:17vh !important}
  .vgm-keys {display:none}
  .vgm-utterance {font-size:15px !important;padding:8px 10px !important}
  #score-panel fieldset .info-text {font-size:12.5px;line-height:1.3}
  #score-panel fieldset .wrap label, #ab-choice .wrap label {min-height:38px}
  #ab-choice .wrap {grid-template-columns:repeat(2,minmax(0,1fr))}
}
"""

# Gradio scopes the css= rules inside a media query to its content area; the page margin sits outside it.
RATE_HEAD = "<style>@media (max-width: 700px) {.gradio-container .main.app {padding:6px 8px !important}}</style>"

# Keyboard shortcuts, the active-factor highlight, and clearing toasts when a new item arrives. Runs once
# on page load (Gradio's ``js``); it only clicks the page's own controls, so the server still checks everything.
RATE_JS = """
() => {
  let chosen = null, lastItem = null;
  const $ = (id) => document.getElementById(id);
  // the study's criteria, in page order (each radio group is #score-<criterion id>)
  const factors = () => Array.from(document.querySelectorAll('#score-panel [id^="score-"]')).map((el) => el.id);
  const shown = (el) => !!el && el.offsetParent !== null;
  const answered = (id) => !!document.querySelector(`#${id} input:checked`);
  const active = () => {
    if (chosen !== null) return chosen;
    const f = factors(), i = f.findIndex((id) => !answered(id));
    return i < 0 ? f.length - 1 : i;
  };
  const mark = () => factors().forEach((id, i) => { const el = $(id); if (el) el.classList.toggle("vgm-active", i === active()); });
  const pick = (id, index) => { const inputs = document.querySelectorAll(`#${id} input[type=radio]`); if (inputs[index]) inputs[index].click(); };
  const clearToasts = () => document.querySelectorAll(".toast-body .toast-close, .toast-close").forEach((b) => b.click());
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
    const t = ev.target;
    if (t && (t.isContentEditable || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "radio"))) return;
    if (!shown($("rater-panel"))) return;
    const scoring = shown($("score-panel")), ab = shown($("ab-panel"));
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    if (scoring && key >= "0" && key <= "9" && key.length === 1) {
      const f = factors()[active()], first = document.querySelector(`#${f} input[type=radio]`);
      const index = first ? Number(key) - Number(first.value) : -1;  // a key is a scale point (scales may start at 0)
      if (index >= 0) { pick(f, index); chosen = null; ev.preventDefault(); setTimeout(mark, 30); }
    } else if (scoring && (key === "ArrowDown" || key === "ArrowUp") && !(t && t.type === "radio")) {
      chosen = Math.max(0, Math.min(factors().length - 1, active() + (key === "ArrowDown" ? 1 : -1))); mark(); ev.preventDefault();
    } else if (ab && (key === "a" || key === "b" || key === "t" || key === "x")) {
      pick("ab-choice", { a: 0, b: 1, t: 2, x: 3 }[key]); ev.preventDefault();
    } else if (key === "Enter" && !(t && t.tagName === "BUTTON")) {
      const b = $("rate-submit"); if (shown(b)) { b.click(); ev.preventDefault(); }
    } else if (key === "s") {
      const b = $("rate-skip"); if (shown(b)) { b.click(); ev.preventDefault(); }
    }
  });
  document.addEventListener("click", (ev) => {
    const f = ev.target.closest && ev.target.closest("#score-panel fieldset");
    if (f) { chosen = null; setTimeout(mark, 30); }
  });
  new MutationObserver(() => {
    const p = $("vgm-progress-text");
    const item = p ? p.dataset.item : null;
    if (item !== lastItem) {
      lastItem = item; chosen = null; clearToasts();
      if (document.activeElement && document.activeElement.blur) document.activeElement.blur();
      setTimeout(mark, 30);
    }
  }).observe(document.body, { childList: true, subtree: true });
}
"""


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


def admin_tables(ctx: AppContext, exclude_failed_attention: bool = False) -> tuple[list[list], list[list], str, str | None]:
    """Raters with progress, attention and speed; means with CIs; summary text; plot path."""
    admin = ctx.study.owner()
    raw = admin.raters()
    report = study_report(admin, exclude_failed_attention=exclude_failed_attention, bootstrap=0)  # refreshed every 20 s
    stats = {r.rater: r for r in report.rater_stats}
    raters = []
    for r in raw:
        st = stats.get(r["name"])
        attention = f"{st.attention_passed}/{st.attention_answered}" if st and st.attention_answered else "-"
        flags = ", ".join(f for f, on in (("failed attention", st and st.failed_attention), ("too fast", st and st.too_fast),
                                           ("finished", r["done"] >= r["total"]), ("left out", st and st.excluded)) if on)
        median = f"{st.median_seconds:.1f}" if st and st.median_seconds is not None else "-"
        raters.append([r["name"], r["done"], r["skipped"], r["total"], attention, median, flags or "-",
                       r["participant_id"] or "-", f"/?token={r['token']}",
                       time.strftime("%H:%M:%S", time.localtime(r["last"])) if r["last"] else "-"])
    labels = {c.id: c.label for c in report.criteria}
    means = report.means_table()
    alpha = ", ".join(f"{labels[k]} {('%.2f' % v) if v is not None else 'n/a'}" for k, v in report.alpha.items())
    lines = [f"**{report.ratings}** score ratings and **{report.choices}** A/B choices from **{report.raters}** raters.",
             f"Krippendorff's alpha (ordinal): {alpha}" + (f" ({report.alpha_note})" if report.alpha_note else "")]
    summary = admin.summary()
    if summary["crowd"]:
        quota = f" of {summary['quota']}" if summary["quota"] else ""
        lines.append(f"Open enrollment ({summary['crowd']}): **{summary['enrolled']}**{quota} places taken, "
                     f"**{summary['finished']}** finished all items, {summary['completed']} took the completion code. "
                     f"Link: `/enroll/{ctx.study.enroll_key()}`")
    if report.attention_items:
        failed = report.failed_attention
        lines.append(f"Attention items: {report.attention_items}; "
                     + (f"{len(failed)} rater(s) failed one: {', '.join(map(esc, failed))}" if failed else "no rater failed one")
                     + (f"; left out of the statistics: {', '.join(map(esc, report.excluded))}" if report.excluded else ""))
    if report.too_fast:
        lines.append(f"Faster than {report.too_fast_seconds:g} s per item (median): {', '.join(map(esc, report.too_fast))}")
    if report.bradley_terry:
        lines.append("Bradley-Terry: " + ", ".join(f"{b.condition} {b.score:+.2f}±{1.96 * (b.se or 0):.2f}" for b in report.bradley_terry))
    plot_path = None
    if report.ratings or report.choices:
        key = (str(ctx.study.path), report.ratings, report.choices, max((r["last"] or 0) for r in raw), exclude_failed_attention)
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


RATER_HEADERS = ["rater", "rated", "skipped", "items", "attention", "median s", "flags", "participant", "link", "last"]


class RateTab:
    """Builds the tab inside the app's Blocks; ``on_load`` fills it for the visitor's token."""

    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        study = ctx.study
        self.lang = study.lang() if study is not None else "en"
        self.t = t = text_for(self.lang)
        self.criteria: tuple[Criterion, ...] = study.score_criteria() if study is not None else CRITERIA
        shared = anchors_text(self.criteria)
        self.howto = _howto_html(self.lang, shared)
        with gr.Tab("Rate", id="rate") as self.tab:
            self.status = gr.Markdown(elem_id="rate-status")
            with gr.Column(visible=False, elem_id="rater-panel") as self.rater_panel:
                self.progress = gr.HTML(elem_id="rate-progress")
                self.item_id = gr.State(None)
                with gr.Row(elem_id="rate-item", equal_height=False):
                    with gr.Column(scale=5, min_width=300, elem_id="rate-left"):
                        self.context = gr.HTML(elem_id="rate-context")
                    with gr.Column(scale=6, min_width=300, elem_id="rate-right"):
                        with gr.Column(visible=False, elem_id="score-panel") as self.score_panel:
                            self.utterance = gr.HTML(elem_id="rate-utterance")
                            if shared:
                                gr.HTML(f'<div class="vgm-scale">{esc(t["scale_line"].format(anchors=shared))}</div>')
                            self.scores = [
                                gr.Radio(choices=[str(n) for n in c.points], label=c.label, elem_id=f"score-{c.id}",
                                         info=c.hint if shared or not c.anchors else
                                         f"{c.hint} ({' · '.join(f'{n} = {name}' for n, name in c.anchors)})")
                                for c in self.criteria
                            ]
                        with gr.Column(visible=False, elem_id="ab-panel") as self.ab_panel:
                            with gr.Row():
                                self.utter_a = gr.HTML(elem_id="rate-a")
                                self.utter_b = gr.HTML(elem_id="rate-b")
                            question = study.criteria().ab_question(self.lang) if study is not None else "Which line is better?"
                            self.choice = gr.Radio(choices=ab_labels(t), label=question, elem_id="ab-choice")
                        self.comment = gr.Textbox(placeholder=t["comment"], show_label=False, lines=1,
                                                  max_lines=3, max_length=COMMENT_MAX, container=False, elem_id="rate-comment")
                        self.alert = gr.HTML(elem_id="rate-alert")
                        with gr.Row(elem_id="rate-buttons"):
                            self.submit_btn = gr.Button(t["submit"], variant="primary", elem_id="rate-submit")
                            self.skip_btn = gr.Button(t["skip"], elem_id="rate-skip")
                        gr.HTML(keys_html(t), elem_id="rate-keys-block")
            with gr.Column(visible=False, elem_id="rate-end-panel") as self.end_panel:
                self.end = gr.HTML(elem_id="rate-end")
            with gr.Column(visible=False, elem_id="admin-panel") as self.admin_panel:
                self.admin_summary = gr.Markdown(elem_id="admin-summary")
                with gr.Row():
                    self.refresh_btn = gr.Button("Refresh", elem_id="admin-refresh", scale=1)
                    self.new_rater = gr.Textbox(label="New rater's name", scale=2, elem_id="admin-new-rater")
                    self.add_btn = gr.Button("Add rater", scale=1, elem_id="admin-add")
                self.exclude = gr.Checkbox(label="Leave raters who failed an attention item out of the statistics",
                                           value=False, elem_id="admin-exclude")
                # ticks only on the owner's page (switched on in on_load), so ratings appear as they arrive
                self.timer = gr.Timer(20, active=False)
                self.raters_df = gr.Dataframe(headers=RATER_HEADERS, label="Raters", interactive=False, elem_id="admin-raters")
                self.means_df = gr.Dataframe(headers=["condition", *[c.label for c in self.criteria], "n"],
                                             label="Mean score (1-5) per condition and factor, [95% CI]", interactive=False,
                                             elem_id="admin-means")
                self.plot = gr.Image(label="Report plot", type="filepath", interactive=False, elem_id="admin-plot")
                self.csv_btn = gr.Button("Export CSV", elem_id="admin-csv")
                self.csv_file = gr.HTML(visible=False, elem_id="admin-csv-link")

        item_outputs = [self.status, self.rater_panel, self.progress, self.item_id, self.context,
                        self.score_panel, self.utterance, *self.scores, self.ab_panel, self.utter_a, self.utter_b, self.choice,
                        self.comment, self.alert, self.skip_btn, self.end_panel, self.end]
        self.load_outputs = item_outputs + [self.admin_panel, self.admin_summary, self.raters_df, self.means_df, self.plot,
                                            self.timer]
        answer = [self.token, self.item_id, *self.scores, self.choice, self.comment]
        self.submit_btn.click(self._submit, answer, item_outputs, concurrency_limit=16, api_visibility="private")
        self.comment.submit(self._submit, answer, item_outputs, concurrency_limit=16, api_visibility="private")
        self.skip_btn.click(self._skip, [self.token, self.item_id], item_outputs, concurrency_limit=16, api_visibility="private")
        admin_outputs = [self.admin_summary, self.raters_df, self.means_df, self.plot]
        self.refresh_btn.click(self._refresh, [self.token, self.exclude], admin_outputs, api_visibility="private")
        self.exclude.change(self._refresh, [self.token, self.exclude], admin_outputs, api_visibility="private")
        self.timer.tick(self._refresh, [self.token, self.exclude], admin_outputs, api_visibility="private", show_progress="hidden")
        self.csv_btn.click(self._csv, [self.token], [self.csv_file], api_visibility="private")
        self.add_btn.click(self._add_rater, [self.token, self.new_rater], [self.new_rater, *admin_outputs], api_visibility="private")

    # -- rendering ---------------------------------------------------------------------
    def _show_item(self, view: RaterView, item: ItemView | None, note: str = "") -> dict:
        blank = {s: gr.update(value=None) for s in self.scores}
        if item is None:
            try:
                view.complete()  # every item answered: record it (once), so the owner sees who finished
            except EnrollmentRefused:
                pass
            return {
                self.status: gr.update(value="", visible=False), self.rater_panel: gr.update(visible=False),
                self.progress: progress_html(view, None, t=self.t, howto=self.howto),
                self.item_id: None, self.context: "", self.score_panel: gr.update(visible=False),
                self.ab_panel: gr.update(visible=False), self.utterance: "", self.utter_a: "", self.utter_b: "",
                self.choice: gr.update(value=None), self.comment: gr.update(value=""), self.alert: "",
                self.skip_btn: gr.update(visible=False), self.end_panel: gr.update(visible=True),
                self.end: end_html(view, view.rater.token, self.t), **blank,
            }
        mine = view.my_rating(item.id) or {}
        is_ab = item.kind == "ab"
        t = self.t
        checks = (lambda found: found if item.ruleset else None)  # items from an items file have no checks to show
        return {
            self.status: gr.update(value="", visible=False),
            self.rater_panel: gr.update(visible=True),
            self.progress: progress_html(view, item, note + (t["skipped_before"] if mine.get("skipped") else ""), t, self.howto),
            self.item_id: item.id,
            self.context: context_html(item.context, t),
            self.score_panel: gr.update(visible=not is_ab),
            self.utterance: "" if is_ab else utterance_html(item.utterance, t["gm_next"], checks(item.checks), t),
            **{s: gr.update(value=None if mine.get(c.id) is None else str(mine[c.id])) for s, c in zip(self.scores, self.criteria)},
            self.ab_panel: gr.update(visible=is_ab),
            self.utter_a: utterance_html(item.utterance, "A", checks(item.checks), t) if is_ab else "",
            self.utter_b: utterance_html(item.utterance_b or "", "B", checks(item.checks_b or []), t) if is_ab else "",
            self.choice: gr.update(value=mine.get("choice")),
            self.comment: gr.update(value=mine.get("comment") or ""),
            self.alert: "",
            self.skip_btn: gr.update(visible=view.can_skip(item.id)),
            self.end_panel: gr.update(visible=False), self.end: "",
        }

    def _denied(self, message: str) -> dict:
        return {
            self.status: gr.update(value=f'<span class="vgm-denied">{esc(message)}</span>' if message else "", visible=True),
            self.rater_panel: gr.update(visible=False), self.item_id: None, self.context: "",
            self.utterance: "", self.utter_a: "", self.utter_b: "", self.progress: "", self.alert: "",
            self.end_panel: gr.update(visible=False), self.end: "",
        }

    def on_load(self, token: str | None) -> dict:
        """Fill the tab for whoever holds ``token``: a rater's next item, the admin's dashboard, or nothing."""
        hidden_admin = {self.admin_panel: gr.update(visible=False)}
        if self.ctx.study is None:
            return {**self._denied("No study is loaded. Start the app with `vgm ui --study study.db`."), **hidden_admin}
        role = self.ctx.study.role_of(token)
        if role == "admin":
            return {**self._denied(""), self.status: gr.update(value=f"### Study `{esc(self.ctx.study.name)}`: owner view", visible=True),
                    self.admin_panel: gr.update(visible=True), self.timer: gr.Timer(active=True), **self._admin_values()}
        if role != "rater":
            return {**self._denied(str(AccessDenied())), **hidden_admin}
        view = self.ctx.study.rater(token)
        if view.needs_consent():
            from urllib.parse import quote

            return {**self._denied(""), **hidden_admin,
                    self.status: gr.update(visible=True, value=self.t["consent_first"].format(
                        href=f"/consent?token={quote(token, safe='')}"))}
        welcome = self.t["welcome_back"] if view.progress().done else self.t["welcome"]
        return {**self._show_item(view, view.next_item(), welcome), **hidden_admin}

    # -- events ------------------------------------------------------------------------
    def _rater(self, token) -> RaterView | dict:
        """The rater's view, or the page's 'access denied' state for a wrong or missing token."""
        try:
            if self.ctx.study is None:
                raise AccessDenied()
            return self.ctx.study.rater(token)
        except AccessDenied as exc:
            return self._denied(str(exc))

    def _submit(self, token, item_id, *answer):
        """``answer``: one value per score criterion, then the A/B choice, then the comment (optional)."""
        n = len(self.criteria)
        values, choice, comment = answer[:n], answer[n] if len(answer) > n else None, answer[n + 1] if len(answer) > n + 1 else None
        view = self._rater(token)
        if isinstance(view, dict):
            return view
        if item_id is None:
            return self._show_item(view, view.next_item())
        try:  # the store times the item from when next_item served it
            item = view.item(item_id)
            if item.kind == "ab":
                if not choice:
                    raise InvalidRating(self.t["need_pick"])
                view.choose(item_id, choice, comment=comment)
            else:
                missing = [c.label for c, v in zip(self.criteria, values) if not v]
                if missing:
                    raise InvalidRating(self.t["need_scores"].format(missing=", ".join(missing)))
                view.rate(item_id, {c.id: v for c, v in zip(self.criteria, values)}, comment=comment)
        except (InvalidRating, EnrollmentRefused) as exc:
            # shown beside the buttons, not as a toast, so nothing lingers over the next item
            return {self.alert: alert_html(str(exc))}
        return self._show_item(view, view.next_item(), self.t["saved"])

    def _skip(self, token, item_id):
        view = self._rater(token)
        if isinstance(view, dict):
            return view
        if item_id is not None:
            if not view.can_skip(item_id):
                return {self.alert: alert_html(self.t["last_item"]),
                        self.skip_btn: gr.update(visible=False)}
            try:
                view.skip(item_id)
            except (InvalidRating, EnrollmentRefused) as exc:
                return {self.alert: alert_html(str(exc))}
        return self._show_item(view, view.next_item(after=item_id), self.t["skipped_note"])

    def _admin_values(self, exclude: bool = False) -> dict:
        raters, means, summary, plot = admin_tables(self.ctx, bool(exclude))
        return {self.admin_summary: summary, self.raters_df: raters, self.means_df: means,
                self.plot: gr.update(value=plot, visible=plot is not None)}

    def _refresh(self, token, exclude=False):
        if self.ctx.study is None or self.ctx.study.role_of(token) != "admin":
            return {self.admin_summary: str(AccessDenied())}
        return self._admin_values(exclude)

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
