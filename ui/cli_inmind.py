"""``vgm inmind ...``: InMind tasks (build, run, report). Thin: parse, call one library function, print."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from eval.cluster import ClusterGuard, base_url_option, cluster_option, endpoint_concurrency_option, ray_address_option

inmind_app = typer.Typer(cls=ClusterGuard, help="InMind: reasoning-style profiles and the four Avalon tasks (player identification, reflection alignment, trace attribution, role inference).", no_args_is_help=True)
console = Console()

DATA_HELP = "A folder of InMind-Avalon session files (N-observer.json / N-participant.json), or one file."
TASKS_HELP = "all, or a comma list of player_identification, reflection_alignment, trace_attribution, role_inference (pi, ra, ta, ri)."
MASK_HELP = "seats: mask only seat references (default); paper: mask every run of the digits 1-6, as the paper counts."


@inmind_app.command("tasks")
def tasks_cmd(
    data: Path = typer.Option(..., "--data", help=DATA_HELP),
    tasks: str = typer.Option("all", "--tasks", help=TASKS_HELP),
    mask: str = typer.Option("seats", "--mask", help=MASK_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Build every task's instances without calling a model, and print the counts."""
    from eval.inmind.runner import count_tasks

    counts = count_tasks(data, tasks, mask_policy=mask)
    if as_json:
        typer.echo(json.dumps(counts, indent=1, ensure_ascii=False))
        return
    console.print(f"sessions: {counts['sessions']['observer']} observer, {counts['sessions']['participant']} participant; mask policy: {counts['mask_policy']}")
    table = Table(title="InMind task instances")
    for col in ("task", "instances per setting", "units"):
        table.add_column(col)
    unit_names = {"player_identification": "games", "reflection_alignment": "masked spans", "trace_attribution": "masked spans", "role_inference": "rounds"}
    for task, per_setting in counts["instances"].items():
        table.add_row(task, ", ".join(f"{k}: {v}" for k, v in per_setting.items()), f"{counts['units'][task]} {unit_names[task]}")
    console.print(table)
    spans = Table(title="Runs of the digits 1-6 (the paper's mask) in participant games")
    for col in ("text", "spans", "single digit", "multi digit", "seat refs", "not seats"):
        spans.add_column(col, justify="right")
    for name, c in counts["spans"].items():
        spans.add_row(name, *(str(c[k]) for k in ("spans", "single_digit", "multi_digit", "seat", "not_seat")))
    console.print(spans)
    for what, n in counts["skipped"].items():
        console.print(f"skipped {what}: {n}")


@inmind_app.command("import")
def import_cmd(
    data: Path = typer.Option(..., "--data", help=DATA_HELP + " Our recorded sessions (vgm avalon simulate --inmind-record) too."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per session."),
) -> None:
    """Read every session in a folder (a bad file is one line naming it) and list what each holds."""
    from eval.inmind import load_sessions

    rows = [s.summary() for s in load_sessions(data)]
    if as_json:
        typer.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    table = Table(title=f"InMind sessions in {data}")
    for col in rows[0]:
        table.add_column(col.replace("_", " "), justify="right" if isinstance(rows[0][col], int) else "left")
    for row in rows:
        table.add_row(*("–" if v is None else str(v) for v in row.values()))
    console.print(table)


class _LazyProgress:
    """A progress bar that appears with the first finished instance (so argument errors come alone)."""

    def __init__(self, transient: bool) -> None:
        self.transient = transient
        self.bar: Progress | None = None
        self.task = None

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = Progress(TextColumn("[bold]inmind[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                console=console, transient=self.transient)
            self.bar.start()
            self.task = self.bar.add_task("inmind", total=total)
        self.bar.update(self.task, completed=done, total=total)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@inmind_app.command("run")
def run_cmd(
    data: Path = typer.Option(..., "--data", help=DATA_HELP),
    out: Path = typer.Option(..., "-o", "--out", help="Run folder (results.jsonl, profile.json); re-run the same command to resume."),
    model: str = typer.Option(None, "--model", "-m", help="Model string: local, local:small, openai:<model>, scripted:<file> (default: $VGM_MODEL or local)."),
    tasks: str = typer.Option("all", "--tasks", help=TASKS_HELP),
    mask: str = typer.Option("seats", "--mask", help=MASK_HELP),
    concurrency: int = typer.Option(2, "--concurrency", "-j", help="Questions in flight at once."),
    settings: str = typer.Option(None, "--settings", help="Only these settings / modes, comma-separated (e.g. A,B or with_traces)."),
    limit: int = typer.Option(None, "--limit", help="Only the first N instances of each task setting / mode (a quick look)."),
    dynamic: str = typer.Option("full", "--dynamic", help="Trace attribution and role inference: full (each round sees the log so far) or summary (its own summary of earlier rounds, round by round)."),
    profile: Path = typer.Option(None, "--profile", help="A text file with the subject's profile, used instead of building one (Stage 1)."),
    as_json: bool = typer.Option(False, "--json", help="Print the run summary as JSON."),
    cluster: str = cluster_option(),
    ray_address: str = ray_address_option(),
    base_url: list[str] = base_url_option(),
    endpoint_concurrency: int = endpoint_concurrency_option(),
) -> None:
    """Stage 1 (profile from observer games) then the chosen tasks; answers are saved as they arrive."""
    import os

    from eval.cluster import from_cli
    from eval.inmind.runner import run_inmind

    from rulesets import read_text

    cluster_spec = from_cli("inmind run", cluster, ray_address, base_url, endpoint_concurrency)
    spec = model or os.environ.get("VGM_MODEL") or "local"
    profile_text = read_text(profile, what="profile text file", free_text=True) if profile is not None else None
    if cluster_spec is not None:  # --cluster ray: instances as shards; this process writes the folder
        from eval.cluster import run_inmind as run_on_cluster

        summary = run_on_cluster(data, out, spec=cluster_spec, model=spec, tasks=tasks, mask_policy=mask, concurrency=concurrency, limit=limit, profile=profile_text, dynamic=dynamic,
                                 settings=[x.strip() for x in settings.split(",")] if settings else None, show_progress=True, transient=as_json)
    else:
        from ._outdir import output_folder

        progress = _LazyProgress(as_json)  # shown from the first answer: an error before it is one line, no bar
        try:
            with output_folder(out, models=[spec]):  # a bad model is said before counts.json is written
                summary = asyncio.run(
                    run_inmind(data, out, model=spec, tasks=tasks, mask_policy=mask, concurrency=concurrency, limit=limit, profile=profile_text, dynamic=dynamic, settings=[x.strip() for x in settings.split(",")] if settings else None, on_progress=progress.update)
                )
        finally:
            progress.stop()
    if as_json:
        typer.echo(summary.model_dump_json(indent=1))
        return
    console.print(f"{summary.out_dir}: {summary.done} answered, {summary.skipped} already done, {summary.failed} failed; {summary.usage.calls} model calls, {summary.usage.prompt_tokens} prompt + {summary.usage.completion_tokens} completion tokens")
    console.print(f"next: vgm inmind report {summary.out_dir}")


@inmind_app.command("profile")
def profile_cmd(
    data: Path = typer.Option(..., "--data", help=DATA_HELP),
    model: str = typer.Option(None, "--model", "-m", help="Model string (default: $VGM_MODEL or local)."),
    out: Path = typer.Option(None, "-o", "--out", help="Also write the profile text to this file (usable as 'run --profile')."),
    as_json: bool = typer.Option(False, "--json", help="Print the profile, its history and token usage as JSON."),
) -> None:
    """Stage 1 alone: build the subject's profile from the observer-mode games, one game at a time."""
    import os

    from eval.inmind.runner import profile_only

    result = asyncio.run(profile_only(data, model=model or os.environ.get("VGM_MODEL") or "local"))
    if out is not None:
        out.write_text(result.profile + "\n", encoding="utf-8")
    if as_json:
        typer.echo(result.model_dump_json(indent=1))
        return
    console.print(result.profile or "[yellow](the model gave no readable profile)[/]")


@inmind_app.command("report")
def report_cmd(
    run: Path = typer.Argument(..., help="A run folder written by 'vgm inmind run'."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Per task, per setting (role-inference mode), per subject role: the paper's tables with 95% CIs."""
    from eval.inmind.report import build_report, report_tables

    report = build_report(run)
    if as_json:
        typer.echo(json.dumps(report, indent=1, ensure_ascii=False))
        return
    for table in report_tables(report):
        console.print(table)
    for text, c in report.get("digit_runs", {}).items():
        console.print(f"{text}: {c['spans']} runs of the digits 1-6 ({c['single_digit']} single, {c['multi_digit']} multi), {c['not_seat']} of them not seat references")
    for what, n in report.get("skipped", {}).items():
        if n:
            console.print(f"skipped {what}: {n}")
    if report["errors"]:
        console.print(f"[yellow]{report['errors']} instances ended in an error; re-run the same 'vgm inmind run' command to retry them[/]")


def register(app: typer.Typer) -> None:
    app.add_typer(inmind_app, name="inmind")
