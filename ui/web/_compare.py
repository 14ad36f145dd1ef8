"""The Compare tab: MOE runs side by side (leaderboard with CIs, bar chart) and two runs instance by instance.

Numbers come from the MOE report code (``eval.moe.report``): a run's saved ``metrics.json``
when present, else recomputed from its predictions without writing into the run folder.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr

from eval.moe import CompareReport, Row, RunFolder, find_runs, load_moe, run_metrics, score_instance
from rulesets import VgmError

from ._common import AppContext, checks_text, esc, turns_html

LEADER_HEADERS = ["pipeline", "model", "n", "CF [95% CI]", "SF [95% CI]", "CP", "CR", "SP", "SR", "tokens", "sec"]
DIFF_HEADERS = ["id", "gold", "A predicted", "A SF", "B predicted", "B SF", "Δ SF"]


def _pct_ci(m: dict) -> str:
    return f"{100 * m['value']:.1f} [{100 * m['low']:.1f}, {100 * m['high']:.1f}]"


def load_rows(runs_dir: str | Path) -> list[Row]:
    """One leaderboard row per run folder under ``runs_dir`` (or the folder itself)."""
    rows = []
    for run in find_runs([runs_dir]):
        config = run.meta()
        metrics = run.metrics()
        if not metrics or "cf" not in metrics or "errors" not in metrics:
            metrics = run_metrics(run, B=300)
        name = run.path.name if config.get("pipeline") in {r.pipeline for r in rows} else config.get("pipeline", run.path.name)
        rows.append(Row(pipeline=name, model=config.get("model"), folder=str(run.path), metrics=metrics))
    return rows


def leaderboard(rows: list[Row]) -> list[list]:
    out = []
    for r in sorted(rows, key=lambda r: -r.metrics["sf"]["value"]):
        m = r.metrics
        out.append([r.pipeline, r.model or "-", m["n"], _pct_ci(m["cf"]), _pct_ci(m["sf"]),
                    *(f"{100 * m[k]['value']:.1f}" for k in ("cp", "cr", "sp", "sr")),
                    f"{m.get('tokens_per_instance', 0):.0f}", f"{m.get('seconds_per_instance', 0):.2f}"])
    return out


def _records(folder: str) -> dict[str, dict]:
    return RunFolder(folder).latest()


def _short(checks: list[dict] | None) -> str:
    return "; ".join(f"{c.get('character')}→{c.get('skill')}" for c in checks or []) or "-"


def instance_diff(folder_a: str, folder_b: str, only_different: bool = True) -> list[list]:
    """Per-instance predictions and skill F of two runs over the instances both answered."""
    a, b = _records(folder_a), _records(folder_b)
    rows = []
    for iid in [i for i in a if i in b]:
        ra, rb = a[iid], b[iid]
        sa = score_instance(ra.get("gold") or [], ra.get("prediction") or [], characters=ra.get("characters")).sf
        sb = score_instance(rb.get("gold") or [], rb.get("prediction") or [], characters=rb.get("characters")).sf
        pa, pb = _short(ra.get("prediction")), _short(rb.get("prediction"))
        if only_different and pa == pb and (ra.get("utterance") or "") == (rb.get("utterance") or ""):
            continue
        rows.append([iid, _short(ra.get("gold")), pa + (" (error)" if ra.get("error") else ""), round(100 * sa),
                     pb + (" (error)" if rb.get("error") else ""), round(100 * sb), round(100 * (sb - sa))])
    return rows


def instance_detail(folder_a: str, folder_b: str, iid: str) -> tuple[str, str, str]:
    """Context (from the run's data file when it can be read), and each run's checks and utterance."""
    a, b = _records(folder_a), _records(folder_b)
    context = "<i>context not available (the run's data file is not readable here)</i>"
    try:
        instances = {i.id: i for i in load_moe(RunFolder(folder_a).data_file())}
        if iid in instances:
            context = turns_html([t.model_dump() for t in instances[iid].context], height=260)
    except VgmError:
        pass

    def side(rec: dict | None, label: str) -> str:
        if rec is None:
            return f"**{label}**: no prediction"
        utterance = rec.get("utterance")
        err = f"\n\nerror: `{esc(rec['error'])}`" if rec.get("error") else ""
        return (f"**{label}** checks: {checks_text(rec.get('prediction'))}  \ngold: {checks_text(rec.get('gold'))}"
                + (f"\n\n> {esc(utterance)}" if utterance else "") + err)

    return context, side(a.get(iid), Path(folder_a).name), side(b.get(iid), Path(folder_b).name)


class CompareTab:
    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        with gr.Tab("Compare", id="compare") as self.tab:
            with gr.Row():
                self.folder = gr.Textbox(value=str(ctx.runs_dir), label="Runs folder (run folders with run.json inside)",
                                         scale=4, elem_id="compare-folder")
                self.load_btn = gr.Button("Load runs", variant="primary", scale=1, elem_id="compare-load")
            self.note = gr.Markdown(elem_id="compare-note")
            self.table = gr.Dataframe(headers=LEADER_HEADERS, label="Leaderboard (sorted by SF; scores in %, 95% bootstrap CI; tokens and seconds per instance)",
                                      interactive=False, wrap=True, elem_id="compare-leaderboard",
                                      column_widths=["14%", "12%", "4%", "15%", "15%", "7%", "7%", "7%", "7%", "6%", "6%"])
            self.chart = gr.Image(label="CF and SF per pipeline", type="filepath", interactive=False, visible=False,
                                  height=340, elem_id="compare-chart")
            gr.Markdown("### Two runs, instance by instance")
            with gr.Row():
                self.run_a = gr.Dropdown(label="Run A", choices=[], allow_custom_value=True, elem_id="compare-a")
                self.run_b = gr.Dropdown(label="Run B", choices=[], allow_custom_value=True, elem_id="compare-b")
                self.only_diff = gr.Checkbox(value=True, label="only where checks or GM lines differ")
            self.diff = gr.Dataframe(headers=DIFF_HEADERS, label="Per-instance predictions (SF in %)", interactive=False,
                                     wrap=True, max_height=360, elem_id="compare-diff")
            self.pick = gr.Dropdown(label="Show one instance", choices=[], allow_custom_value=True, elem_id="compare-pick")
            self.context = gr.HTML()
            with gr.Row():
                self.side_a = gr.Markdown(elem_id="compare-detail-a")
                self.side_b = gr.Markdown()
        self.load_outputs = [self.folder, self.note, self.table, self.chart, self.run_a, self.run_b, self.diff, self.pick,
                             self.context, self.side_a, self.side_b]
        self.load_btn.click(self._load, [self.token, self.folder], self.load_outputs, api_visibility="private")
        diff_out = [self.diff, self.pick, self.context, self.side_a, self.side_b]
        # .input, not .change: _load sets both dropdowns and the diff itself; its programmatic value changes would
        # fire one _diff per dropdown, and the one that saw run B still empty could land last and blank the table.
        for trigger in (self.run_a.input, self.run_b.input, self.only_diff.input):
            trigger(self._diff, [self.token, self.run_a, self.run_b, self.only_diff], diff_out, api_visibility="private")
        self.pick.input(self._detail, [self.token, self.run_a, self.run_b, self.pick],
                         [self.context, self.side_a, self.side_b], api_visibility="private")

    def on_load(self, token) -> dict:
        if not self.ctx.runs_dir.exists():
            return {self.note: f"No runs folder `{esc(self.ctx.runs_dir)}` yet: make runs with `vgm moe compare`, or type a folder above."}
        return self._load(token, str(self.ctx.runs_dir))

    def _load(self, token, folder):
        try:
            self.ctx.require_owner(token)
            rows = load_rows(folder)
        except VgmError as exc:
            return {self.note: f'<span class="vgm-denied">{esc(exc)}</span>', self.table: [], self.chart: gr.update(visible=False)}
        chart = Path(tempfile.mkdtemp(prefix="vgm-compare-")) / "moe.png"
        CompareReport(rows=sorted(rows, key=lambda r: -r.metrics["sf"]["value"])).bar_chart(chart)
        choices = [(f"{r.pipeline} ({Path(r.folder).name})", r.folder) for r in rows]
        a = choices[0][1] if choices else None
        b = choices[1][1] if len(choices) > 1 else None
        return {
            **self._diff(token, a, b, True),
            self.note: f"{len(rows)} runs from `{esc(folder)}`.",
            self.table: leaderboard(rows),
            self.chart: gr.update(value=str(chart), visible=True),
            self.run_a: gr.update(choices=choices, value=a),
            self.run_b: gr.update(choices=choices, value=b),
        }

    def _diff(self, token, a, b, only):
        try:
            self.ctx.require_owner(token)
        except VgmError:
            return {self.diff: []}
        if not a or not b:
            return {self.diff: [], self.pick: gr.update(choices=[], value=None)}
        rows = instance_diff(a, b, only)
        ids = [r[0] for r in rows]
        first = ids[0] if ids else None
        return {self.diff: rows, self.pick: gr.update(choices=ids, value=first), **self._detail(token, a, b, first)}

    def _detail(self, token, a, b, iid):
        try:
            self.ctx.require_owner(token)
        except VgmError:
            return {self.context: ""}
        if not (a and b and iid):
            return {self.context: "", self.side_a: "", self.side_b: ""}
        context, sa, sb = instance_detail(a, b, iid)
        return {self.context: context, self.side_a: sa, self.side_b: sb}
