"""``vgm rate ...`` (blind rating studies) and ``vgm ui`` (the web app). Thin: parse, call, print."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

rate_app = typer.Typer(help="Blind human rating studies of GM utterances (Tachikuma 6.2).", no_args_is_help=True)
console = Console()


def _links(base_url: str, raters: list[dict]) -> list[dict]:
    return [{**r, "link": f"{base_url.rstrip('/')}/?token={r['token']}"} for r in raters]


def _print_links(rows: list[dict]) -> None:
    # Plain lines, never folded by a table, so a link can be copied whole.
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        console.print(f"{r['name']:<{width}}  {r['done']:>3}/{r['total']} rated, {r['skipped']} skipped  {r['link']}",
                      soft_wrap=True, highlight=False)


@rate_app.command("create")
def create(
    from_: List[Path] = typer.Option(..., "--from", help="Run folders (runs/NAME); more may follow as plain arguments."),
    more: Optional[List[Path]] = typer.Argument(None, help="More run folders.", show_default=False),
    out: Path = typer.Option(Path("study.db"), "-o", "--out", help="The study file to write."),
    n: int = typer.Option(60, "--n", help="How many contexts to sample (each gives one item per condition)."),
    include_human: bool = typer.Option(False, "--include-human", help="Add the real GM's next line as the 'human' condition."),
    mode: str = typer.Option("score", "--mode", help="score (1-5 on three factors), ab (pick the better of two), or both."),
    raters: Optional[str] = typer.Option(None, "--raters", help="Comma-separated rater names to add now, e.g. alice,bob."),
    seed: int = typer.Option(0, "--seed"),
    base_url: str = typer.Option("http://127.0.0.1:7860", "--base-url", help="Where `vgm ui` will be reachable, for the links."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing study file."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Build a blind study from saved MOE runs with GM utterances (+gm pipelines)."""
    from eval.ratings import StudyError, build_study
    from eval.ratings._store import check_rater_names

    # everything a user can get wrong is checked before a byte is written
    names = check_rater_names([x for x in (raters or "").split(",") if x.strip()])
    if n < 1:
        raise StudyError(f"--n {n}: sample 1 or more contexts")
    if mode not in ("score", "ab", "both"):
        raise StudyError(f"--mode {mode!r}: use score, ab or both")
    if out.is_dir():
        raise StudyError(f"-o {out} is a folder; give a file name for the study, e.g. -o {out}/study.db")
    if out.exists() and not overwrite:
        raise StudyError(f"{out} already exists; pick another -o path or pass --overwrite")
    study, admin_token, summary = build_study(
        [*from_, *(more or [])], out, n=n, include_human=include_human, mode=mode, seed=seed, overwrite=overwrite
    )
    admin = study.owner()
    for name in names:
        admin.add_rater(name)
    rows = _links(base_url, admin.raters())
    result = {
        "study": str(summary.path), "contexts": summary.contexts, "items": summary.items, "mode": summary.mode,
        "conditions": summary.conditions, "skipped_runs": summary.skipped_runs,
        "admin_link": f"{base_url.rstrip('/')}/?token={admin_token}", "raters": [{"name": r["name"], "link": r["link"]} for r in rows],
    }
    if as_json:
        typer.echo(json.dumps(result, indent=1))
        return
    console.print(f"[bold]{summary.path}[/]: {summary.contexts} contexts, {summary.items} {summary.mode} items, "
                  f"conditions: {', '.join(summary.conditions)}")
    for name, why in summary.skipped_runs.items():
        console.print(f"[yellow]left out {name}[/]: {why}")
    console.print(f"admin link (keep it private): {result['admin_link']}", soft_wrap=True, highlight=False)
    if rows:
        _print_links(rows)
    console.print(f"serve it with: vgm ui --study {summary.path}")


@rate_app.command("add-rater")
def add_rater(
    study_path: Path = typer.Argument(..., help="The study file."),
    names: List[str] = typer.Argument(..., help="One or more rater names."),
    base_url: str = typer.Option("http://127.0.0.1:7860", "--base-url"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Add raters and print each one's personal link."""
    from eval.ratings import Study

    admin = Study.open(study_path).owner()
    added = [admin.add_rater(name) for name in names]
    rows = [{"name": r.name, "link": f"{base_url.rstrip('/')}/?token={r.token}"} for r in added]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    for r in rows:
        console.print(f"{r['name']}: {r['link']}")


@rate_app.command("links")
def links(
    study_path: Path = typer.Argument(..., help="The study file."),
    base_url: str = typer.Option("http://127.0.0.1:7860", "--base-url"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Every rater's link and progress, and the admin link."""
    from eval.ratings import Study

    study = Study.open(study_path)
    rows = _links(base_url, study.owner().raters())
    admin_link = f"{base_url.rstrip('/')}/?token={study.admin_token()}"
    if as_json:
        typer.echo(json.dumps({"admin_link": admin_link, "raters": rows}, indent=1))
        return
    console.print(f"admin link: {admin_link}", soft_wrap=True, highlight=False)
    _print_links(rows)


@rate_app.command("report")
def report(
    study_path: Path = typer.Argument(..., help="The study file."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Write every rating as CSV here."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write the bar chart (PNG) here."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Mean per condition and factor with 95% CIs, Krippendorff's alpha, Bradley-Terry scores."""
    from eval.ratings import CRITERIA, Study, export_csv, plot_report, study_report
    from eval.ratings._report import check_output

    admin = Study.open(study_path).owner()
    for what, path in (("CSV file", csv), ("plot file", plot)):
        if path:
            check_output(path, what)  # before any work: a bad path is one line, not a half-done report
    rep = study_report(admin)
    if csv:
        export_csv(admin, csv)
    if plot:
        plot_report(rep, plot)
    if as_json:
        typer.echo(json.dumps(rep.to_dict(), indent=1))
        return
    labels = {c.id: c.label for c in CRITERIA}
    console.print(f"[bold]{rep.name}[/]: {rep.ratings} ratings, {rep.choices} A/B choices, {rep.raters} raters")
    if rep.ratings or not rep.choices:  # an A/B-only study has no scores to tabulate
        table = Table(title="mean score (1-5) per condition, 95% CI (bootstrap over contexts)")
        table.add_column("condition")
        for c in CRITERIA:
            table.add_column(f"{c.label}", justify="right")
        table.add_column("n", justify="right")
        for row in rep.means_table():
            table.add_row(*map(str, row))
        console.print(table)
        alpha = ", ".join(f"{labels[k]} {'n/a' if v is None else f'{v:.2f}'}" for k, v in rep.alpha.items())
        console.print(f"Krippendorff's alpha (ordinal): {alpha}" + (f"  ({rep.alpha_note})" if rep.alpha_note else ""))
    if rep.paired:
        pt = Table(title=f"difference from {rep.baseline}, paired over shared contexts (bootstrap 95% CI, permutation p)")
        pt.add_column("condition")
        for c in CRITERIA:
            pt.add_column(c.label, justify="right")
        for cond, tests in rep.paired.items():
            cells = [f"{t['diff']:+.2f} [{t['low']:+.2f}, {t['high']:+.2f}] p={t['p_value']:.3g}" if (t := tests.get(c.id)) else "-"
                     for c in CRITERIA]
            pt.add_row(cond, *cells)
        console.print(pt)
    if rep.bradley_terry:
        bt = Table(title="Bradley-Terry (A/B choices; log-odds, centred)")
        for col in ("condition", "score", "95% CI", "wins", "comparisons"):
            bt.add_column(col, justify="right" if col != "condition" else "left")
        for b in rep.bradley_terry:
            half = 1.96 * (b.se or 0)
            bt.add_row(b.condition, f"{b.score:+.2f}", f"[{b.score - half:+.2f}, {b.score + half:+.2f}]", f"{b.wins:g}", str(b.comparisons))
        console.print(bt)
    for what, path in (("CSV", csv), ("plot", plot)):
        if path:
            console.print(f"{what}: {path}")


def ui(
    study: Optional[Path] = typer.Option(None, "--study", help="Serve this rating study in the Rate tab."),
    runs: Path = typer.Option(Path("runs"), "--runs", help="Folder of MOE runs for the Compare tab."),
    logs: Optional[Path] = typer.Option(None, "--logs", help="Folder of game/probe logs for the Beliefs tab."),
    model: Optional[str] = typer.Option(None, "--model", help="Model for the Play tab (default: VGM_MODEL or local)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (loopback by default)."),
    port: int = typer.Option(7860, "--port"),
) -> None:
    """Serve the web app (Rate, Play, Compare, Beliefs) on 127.0.0.1."""
    from ui.web import serve

    serve(host=host, port=port, study=study, runs_dir=runs, logs_dir=logs, model=model, announce=console.print)


def register(app: typer.Typer) -> None:
    app.add_typer(rate_app, name="rate")
    app.command("ui")(ui)
