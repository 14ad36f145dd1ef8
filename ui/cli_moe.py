"""``vgm moe import|validate|stats|pipelines|run|compare|report``: thin wrappers over ``eval.moe``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from eval.cluster import ClusterGuard, base_url_option, cluster_option, endpoint_concurrency_option, ray_address_option

moe_app = typer.Typer(cls=ClusterGuard, help="MOE (Tachikuma): import datasets, run and compare prompting pipelines, report CF/SF.", no_args_is_help=True)
console = Console()


LANG_HELP = "language of the prompts: en, or zh for Chinese logs (pipelines/prompts/*.zh.txt; the check list shows Chinese names)"


def _lang_options(lang: str) -> dict[str, Any] | None:
    """Step options for ``--lang`` (None for English, so the prompts and the response cache stay as before)."""
    return None if lang == "en" else {"lang": lang}


def _dump(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=1, default=str))


def _show(renderable: Any) -> None:
    """Print a table; into a file or a pipe at its full width, so no cell is cut to fit 80 columns."""
    if console.is_terminal:
        console.print(renderable)
        return
    natural = Measurement.get(console, console.options.update_width(10_000), renderable).maximum
    kept = console.width
    console.width = max(kept, natural)
    try:
        console.print(renderable)
    finally:
        console.width = kept


class RichReporter:
    """One progress bar per pipeline, with ETA and the running CF/SF.

    Into a file or a pipe there are no bars to redraw: each pipeline gets one whole line when it ends.
    """

    def __init__(self) -> None:
        self.live = console.is_terminal
        self.progress = Progress(
            TextColumn("[bold]{task.fields[name]:<14}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("CF {task.fields[cf]:5.1f}  SF {task.fields[sf]:5.1f}  errors {task.fields[errors]}  parse fails {task.fields[fails]}"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=not self.live,
        )
        self.tasks: dict[str, Any] = {}
        self.resumed: dict[str, int] = {}  # instances each run folder already held

    def __enter__(self) -> "RichReporter":
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def start(self, name: str, total: int, done: int) -> None:
        self.tasks[name] = self.progress.add_task(name, total=total, completed=done, name=name, cf=0.0, sf=0.0, fails=0, errors=0)
        self.resumed[name] = done

    def advance(self, name: str, record: dict, running: dict) -> None:
        task = self.tasks[name]
        fails = self.progress.tasks[task].fields["fails"] + (0 if record.get("parse_ok", True) else 1)
        self.progress.update(task, advance=1, cf=100 * running["cf"], sf=100 * running["sf"], fails=fails, errors=running.get("errors", 0))

    def finish(self, name: str) -> None:
        if self.live:
            return
        task = self.progress.tasks[self.tasks[name]]
        f = task.fields
        if task.completed == self.resumed.get(name):  # nothing ran now: the table below has the scores
            console.print(f"{name}: {task.completed:.0f}/{task.total:.0f} instances, all done by an earlier run", highlight=False, soft_wrap=True)
            return
        console.print(f"{name}: {task.completed:.0f}/{task.total:.0f} instances, CF {f['cf']:.1f}, SF {f['sf']:.1f}, "
                      f"errors {f['errors']}, parse fails {f['fails']}, {task.elapsed or 0:.1f} s", highlight=False, soft_wrap=True)


def _print_report(report, as_json: bool, title: str) -> None:
    if as_json:
        _dump(report.as_json())
        return
    models = sorted({row.model for row in report.rows if row.model})
    from eval.moe.report import errors_cell, seconds_cell

    table = Table(title=f"{title}{' — model ' + ', '.join(models) if models else ''}", box=box.SIMPLE_HEAD,
                  caption="CF/SF in %, 95% bootstrap CI, over all instances (errors count as empty) and over the answered ones; "
                          "calls = model calls (not cache hits); full table: report.md / --json")
    for col in ("pipeline", "n", "errors", "CF all (CI)", "SF all (CI)", "CF ans", "SF ans", "exact", "parse fail", "calls", "cache hits", "prompt tok", "s"):
        table.add_column(col, justify="left" if col == "pipeline" else "right", no_wrap=True)

    def pct(iv: Any) -> str:
        return "-" if not iv or iv.get("value") != iv.get("value") else f"{100 * iv['value']:.1f}"

    def ci(iv: Any) -> str:
        return "-" if not iv or iv.get("value") != iv.get("value") else f"{100 * iv['value']:.1f} ({100 * iv['low']:.0f}–{100 * iv['high']:.0f})"

    for row in report.rows:
        m = row.metrics
        answered = m.get("answered") or {}
        table.add_row(row.pipeline, str(m["n"]), errors_cell(m), ci(m["cf"]), ci(m["sf"]), pct(answered.get("cf")), pct(answered.get("sf")),
                      pct(m["exact"]), f"{100 * m['parse_failure_rate']:.0f}%", f"{m.get('model_calls_per_instance', 0):.1f}",
                      f"{m.get('cache_hits_per_instance', 0):.1f}", f"{m.get('computed_prompt_tokens_per_instance', 0):.0f}", seconds_cell(m))
    _show(table)
    console.print(report.describe())
    for note in report.notes:
        console.print(f"[yellow]note:[/] {note}")
    if report.tests:
        tests = Table(title=f"paired tests against {report.baseline} (Δ = pipeline − baseline)")
        for col in ("pipeline", "ΔCF [95% CI]", "p", "ΔSF [95% CI]", "p"):
            tests.add_column(col, no_wrap=True)
        for name, t in report.tests.items():
            d = lambda x: f"{100 * x['diff']:+.1f} [{100 * x['low']:+.1f}, {100 * x['high']:+.1f}]"  # noqa: E731
            tests.add_row(name, d(t["cf"]), f"{t['cf']['p_value']:.3g}", d(t["sf"]), f"{t['sf']['p_value']:.3g}")
        _show(tests)


def _print_findings(report, **where: Any) -> None:
    """The three sentences that say what the table found (``eval.moe.report.findings``)."""
    from eval.moe.report import findings

    console.print()
    for sentence in findings(report, **where):
        console.print(sentence, highlight=False)


@moe_app.command("import")
def import_cmd(
    source: str = typer.Argument(..., help="crd3, fireball, dicebot (SealDice/Dice!/OlivaDice logs), jsonl (ours or Tachikuma-style)."),
    path: Path = typer.Argument(..., help="Input file or folder."),
    out: Path = typer.Option(..., "-o", "--out", help="Output MOE .jsonl."),
    context: int = typer.Option(30, "--context", help="Turns of context before each check request."),
    cast: Path | None = typer.Option(None, "--cast", help="crd3: YAML of players → characters (default: campaign 2)."),
    ruleset: str | None = typer.Option(None, "--ruleset", help="crd3/fireball: rule set of the logs (default dnd5e)."),
    split: str | None = typer.Option(None, "--split", help="Also write OUT.train/.dev/.test.jsonl by episode, e.g. 80/10/10."),
    seed: int = typer.Option(0, "--seed", help="Seed for the episode split."),
    log_format: str = typer.Option("auto", "--format", help="dicebot: auto, sealdice, dice, olivadice or chat (docs/moe.md)."),
    excerpt: str | None = typer.Option(None, "--excerpt", help="paper (Tachikuma §3.4: whole events, ≥2 characters, predictable checks; dicebot's default) or window (the last --context turns; crd3's default)."),
    gap: float = typer.Option(30.0, "--gap", help="dicebot, --excerpt paper: minutes of silence that end an event."),
    max_context: int = typer.Option(120, "--max-context", help="--excerpt paper: at most this many turns of an event."),
    excerpt_rules: str | None = typer.Option(None, "--excerpt-rules", help="--excerpt paper: which of its rules apply, comma-separated (default all: event,two_characters,predictable)."),
    gm: str | None = typer.Option(None, "--gm", help="dicebot: nicknames of the GM, comma-separated (KP/GM/主持人/守秘人 are found by name)."),
    as_json: bool = typer.Option(False, "--json", help="Print the import report as JSON."),
) -> None:
    """Turn real play logs into MOE instances; reports requests found, kept, and why others were dropped."""
    from eval.moe.importers import import_source

    options: dict[str, Any] = {"context": context, "ruleset": ruleset}
    if source == "crd3":
        options.update(cast=cast, excerpt=excerpt, max_turns=max_context, excerpt_rules=excerpt_rules)
    if source == "dicebot":
        options.update(format=log_format, excerpt=excerpt, gap_minutes=gap, max_turns=max_context, gm=gm, excerpt_rules=excerpt_rules)
    if source in ("jsonl", "tachikuma"):
        options = {}
    report, written = import_source(source, path, out, split=split, seed=seed, **options)
    if as_json:
        _dump({**report.as_dict(), "written": {k: str(v) for k, v in written.items()}})
        return
    console.print(str(report))
    for name, file in written.items():
        console.print(f"wrote {name}: {file}")


@moe_app.command("validate")
def validate_cmd(
    data: str = typer.Argument(..., help="A MOE .jsonl or 'sample'."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Load a dataset strictly (every skill resolved); print what is in it."""
    from eval.moe.dataset import describe_dataset

    summary = describe_dataset(data)
    if as_json:
        _dump(summary)
        return
    console.print(f"{summary['path']}: {summary['instances']} instances, {summary['answers']} gold checks, "
                  f"{summary['multi_character']} multi-character, {summary['mean_turns']:.1f} turns on average")
    table = Table(title="by rule set")
    for col in ("ruleset", "instances", "top skills"):
        table.add_column(col)
    for name, info in summary["rulesets"].items():
        table.add_row(name, str(info["instances"]), ", ".join(f"{k} {v}" for k, v in info["top_skills"]))
    _show(table)


@moe_app.command("stats")
def stats_cmd(
    data: str = typer.Argument(..., help="A MOE .jsonl or 'sample'."),
    plots: Path | None = typer.Option(None, "--plots", help="Also draw the paper's figures (Fig. 3, Fig. 4, context lengths) as PNGs here."),
    as_json: bool = typer.Option(False, "--json", help="Print the numbers as JSON."),
) -> None:
    """Dataset statistics like Tachikuma's Table 1, §3.5 and Figures 3-4, beside the paper's figures."""
    from eval.moe.dataset_stats import draw_plots, stats_for

    stats = stats_for(data)
    written = draw_plots(stats, plots) if plots else []
    if as_json:
        _dump({**stats, "plots": [str(p) for p in written]})
        return
    paper = stats["paper"]
    table = Table(title=f"MOE data set {stats['path']} (Tachikuma Table 1 / §3.5)", box=box.SIMPLE_HEAD)
    for col in ("quantity", "this data", "Tachikuma"):
        table.add_column(col, justify="left" if col == "quantity" else "right")
    turns, chars = stats["turns"], stats["characters_per_check"]
    rows = [
        ("contexts (instances)", f"{stats['contexts']:,}", f"{paper['contexts']:,}"),
        ("game records (sessions/episodes)", f"{stats['records']:,}", f"{paper['records']:,}"),
        ("words (Han characters + Latin words, distinct turns)", f"{stats['words']:,}", f"{paper['words']:,}"),
        ("rule sets", ", ".join(f"{k} {v}" for k, v in stats["rulesets"].items()), "DND, COC, PF, SW"),
        ("turns per context: mean (median, min–max)", f"{turns['mean']:.2f} ({turns['median']:g}, {turns['min']}–{turns['max']})", f"{paper['mean_turns']:.2f}"),
        ("characters per check: mean (min–max)", f"{chars['mean']:.3f} ({chars['min']}–{chars['max']})", f"{paper['mean_characters_per_check']:.3f} (1–11)"),
        ("gold checks", f"{stats['answers']:,}", "-"),
        ("characters at the table (mean)", f"{stats['cast_size']:.1f}", "-"),
    ]
    for name, items in stats["check_items"].items():
        rows.append((f"check items used in {name} (of the pack's checks + families)", f"{items['used']} (of {items['in_pack']})", str(paper["check_items"].get(name, "-"))))
    for row in rows:
        table.add_row(*row)
    _show(table)
    hist = chars["histogram"]
    console.print("Fig. 3, characters per check: " + ", ".join(f"{k}: {v}" for k, v in hist.items()), highlight=False)
    for name, counts in stats["checks"].items():
        console.print(f"Fig. 4, checks in {name}: " + ", ".join(f"{k} {v}" for k, v in list(counts.items())[:10]), highlight=False, soft_wrap=True)
    if plots and not written:
        console.print("[yellow]note:[/] matplotlib is not installed; no plots drawn (pip install matplotlib)")
    for file in written:
        console.print(f"saved {file}", soft_wrap=True)


@moe_app.command("pipelines")
def pipelines_cmd(as_json: bool = typer.Option(False, "--json", help="Print as JSON.")) -> None:
    """List the shipped pipelines and their steps (any NAME_gm adds the GM utterance)."""
    from pipelines import available_pipelines, load_pipeline

    rows = [{"name": n, "steps": load_pipeline(n).step_names, "needs_model": load_pipeline(n).needs_model, "description": load_pipeline(n).description} for n in available_pipelines()]
    if as_json:
        _dump(rows)
        return
    table = Table(title="MOE pipelines (pipelines/specs/*.yaml)")
    for col in ("name", "steps", "model", "description"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], " → ".join(r["steps"]), "yes" if r["needs_model"] else "no", r["description"])
    _show(table)


@moe_app.command("run")
def run_cmd(
    pipeline: str = typer.Option(..., "--pipeline", "-p", help="Pipeline name (see `vgm moe pipelines`) or spec .yaml."),
    data: str = typer.Option("sample", "--data", help="MOE .jsonl, or 'sample' for the shipped sample."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model string: local, local:small, openai:<m>, scripted:<f>."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Run folder (default runs/PIPELINE)."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N instances."),
    concurrency: int = typer.Option(2, "--concurrency", "-c", help="Instances in flight at once."),
    train: Path | None = typer.Option(None, "--train", help="Training .jsonl for the statistic predictor (default: leave-one-out on --data)."),
    as_json: bool = typer.Option(False, "--json", help="Print metrics as JSON."),
    metric: str = typer.Option("paper", "--metric", help="paper: Tachikuma (1)-(6) as written; tuple: the per-tuple variant (docs/moe.md)."),
    prompting: str = typer.Option("faithful", "--prompting", help="faithful: only what the paper's prompts give; assisted: frequency-sorted check menu, recency-ordered cast, answer caps."),
    allow_errors: bool = typer.Option(False, "--allow-errors", help="Exit 0 even when some instances errored (they are still counted)."),
    lang: str = typer.Option("en", "--lang", help=LANG_HELP),
    samples: int = typer.Option(1, "--samples", help="Repeat the run N times (sample k in OUT/sample-k, seed SEED+k) and report mean ± sd over them."),
    temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature of the model steps (with --samples, e.g. 0.7)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the model steps (sample k uses SEED+k; default 0 when --samples > 1)."),
    cluster: str | None = cluster_option(),
    ray_address: str | None = ray_address_option(),
    base_url: list[str] | None = base_url_option(),
    endpoint_concurrency: int | None = endpoint_concurrency_option(),
) -> None:
    """Run one pipeline; writes predictions.jsonl as it goes and resumes after a kill."""
    from eval.cluster import from_cli, moe_runner
    from eval.cluster import progress as cluster_progress
    from eval.moe.report import build_report
    from eval.moe.runner import run_moe

    from eval.moe.metrics import check_metric

    folder = out or Path("runs") / pipeline
    check_metric(metric)
    spec = from_cli("moe run", cluster, ray_address, base_url, endpoint_concurrency)
    if samples != 1 or temperature or seed is not None:
        _run_samples([pipeline], data, folder, samples=samples, temperature=temperature, seed=seed, lang=lang, metric=metric, as_json=as_json,
                     allow_errors=allow_errors, single=True, model=model, limit=limit, concurrency=concurrency, train=train, prompting=prompting,
                     run_with=moe_runner(spec) if spec else None)
        return
    with (cluster_progress() if spec else RichReporter()) as reporter:
        done = run_moe(pipeline, data, folder, model=model, limit=limit, concurrency=concurrency, train=train, reporter=reporter, prompting=prompting,
                       run_with=moe_runner(spec) if spec else None, options=_lang_options(lang))
    report = build_report([done], baseline=None, metric=metric)
    _print_report(report, as_json, f"MOE run {done}")
    _exit_on_errors(report, allow_errors)


@moe_app.command("compare")
def compare_cmd(
    pipelines: str | None = typer.Option(None, "--pipelines", help="Comma-separated pipelines (default: the paper's eight, knn and oracle_char)."),
    data: str = typer.Option("sample", "--data", help="MOE .jsonl, or 'sample'."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model string for the model pipelines."),
    out: Path = typer.Option(Path("runs/compare"), "-o", "--out", help="Folder for one run folder per pipeline."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N instances."),
    concurrency: int = typer.Option(2, "--concurrency", "-c", help="Instances in flight at once."),
    train: Path | None = typer.Option(None, "--train", help="Training .jsonl for the statistic predictor."),
    as_json: bool = typer.Option(False, "--json", help="Print the table as JSON."),
    allow_errors: bool = typer.Option(False, "--allow-errors", help="Exit 0 even when some instances errored (they are still counted)."),
    metric: str = typer.Option("paper", "--metric", help="paper: Tachikuma (1)-(6) as written; tuple: the per-tuple variant (docs/moe.md)."),
    prompting: str = typer.Option("faithful", "--prompting", help="faithful: only what the paper's prompts give; assisted: frequency-sorted check menu, recency-ordered cast, answer caps."),
    lang: str = typer.Option("en", "--lang", help=LANG_HELP),
    samples: int = typer.Option(1, "--samples", help="Repeat the run N times (sample k in OUT/sample-k, seed SEED+k) and report mean ± sd over them."),
    temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature of the model steps (with --samples, e.g. 0.7)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the model steps (sample k uses SEED+k; default 0 when --samples > 1)."),
    cluster: str | None = cluster_option(),
    ray_address: str | None = ray_address_option(),
    base_url: list[str] | None = base_url_option(),
    endpoint_concurrency: int | None = endpoint_concurrency_option(),
) -> None:
    """Run several pipelines on the same instances; print the paper-style table and save a bar chart."""
    from eval.cluster import from_cli, moe_runner
    from eval.cluster import progress as cluster_progress
    from eval.moe.report import build_report
    from eval.moe.runner import compare_moe

    from eval.moe.metrics import check_metric
    from eval.moe.runner import COMPARE_DEFAULT

    names = [p.strip() for p in pipelines.split(",") if p.strip()] if pipelines is not None else list(COMPARE_DEFAULT)
    check_metric(metric)
    spec = from_cli("moe compare", cluster, ray_address, base_url, endpoint_concurrency)
    if samples != 1 or temperature or seed is not None:
        _run_samples(names, data, out, samples=samples, temperature=temperature, seed=seed, lang=lang, metric=metric, as_json=as_json,
                     allow_errors=allow_errors, model=model, limit=limit, concurrency=concurrency, train=train, prompting=prompting,
                     run_with=moe_runner(spec) if spec else None)
        return
    with (cluster_progress() if spec else RichReporter()) as reporter:
        compare_moe(names, data, out, model=model, limit=limit, concurrency=concurrency, train=train, reporter=reporter, prompting=prompting,
                    run_with=moe_runner(spec) if spec else None, options=_lang_options(lang))
    report = build_report([out], metric=metric)
    _write_outputs(report, out)
    _print_report(report, as_json, f"MOE compare ({out})")
    if not as_json:
        console.print(f"saved {out / 'report.md'}, {out / 'report.csv'}, {out / 'compare.png'}", soft_wrap=True)
        _print_findings(report, report_file=out / "report.md", plot=out / "compare.png")
    _exit_on_errors(report, allow_errors)


def _run_samples(names: list[str], data: str, out: Path, *, samples: int, temperature: float, seed: int | None, lang: str, metric: str,
                 as_json: bool, allow_errors: bool, **run: Any) -> None:
    """``--samples/--temperature/--seed``: every sample a run folder, then the spread over samples."""
    from eval.moe.report import build_report
    from eval.moe.samples import check_samples, compare_samples, samples_markdown, spread_cell, summarise_samples

    check_samples(samples, temperature)
    with RichReporter() as reporter:
        folders = compare_samples(names, data, out, samples=samples, temperature=temperature, seed=seed, options=_lang_options(lang),
                                  reporter=reporter, **run)
    summary = summarise_samples(folders, metric=metric)
    out.mkdir(parents=True, exist_ok=True)
    (out / "samples.json").write_text(json.dumps({"samples": samples, "temperature": temperature, "seed": seed or 0, "metric": metric,
                                                  "folders": [str(f) for f in folders], "pipelines": summary}, indent=1), encoding="utf-8")
    (out / "samples.md").write_text(samples_markdown(summary) + "\n", encoding="utf-8")
    if as_json:
        _dump(json.loads((out / "samples.json").read_text(encoding="utf-8")))
    else:
        table = Table(title=f"MOE over {samples} runs (temperature {temperature}, seeds {seed or 0}..{(seed or 0) + samples - 1}) — {out}",
                      box=box.SIMPLE_HEAD, caption="CF/SF in %: mean ± sd over runs [95% t interval of the mean]; min–max; each run's own table: OUT/sample-k/")
        for col in ("pipeline", "n", "runs", "CF", "CF min–max", "SF", "SF min–max"):
            table.add_column(col, justify="left" if col == "pipeline" else "right", no_wrap=True)
        for name, s in summary.items():
            rng = lambda x: f"{100 * x['min']:.1f}–{100 * x['max']:.1f}" if x else "-"  # noqa: E731
            table.add_row(name, str(s["n"]), str(s["samples"]), spread_cell(s.get("cf")), rng(s.get("cf")), spread_cell(s.get("sf")), rng(s.get("sf")))
        _show(table)
        console.print(f"saved {out / 'samples.md'}, {out / 'samples.json'}", soft_wrap=True)
    errors = sum(build_report([f], baseline=None, metric=metric).errors for f in folders)
    if errors and not allow_errors:
        typer.secho(f"error: {errors} instance(s) errored over the runs; rerun the same command to retry them, or pass --allow-errors",
                    fg=typer.colors.RED, err=True)
        raise typer.Exit(1)


def _exit_on_errors(report, allow_errors: bool) -> None:
    """Errors are results: a run with errored instances exits 1 unless ``--allow-errors``."""
    if report.errors and not allow_errors:
        errored = ", ".join(f"{r.pipeline} {r.metrics.get('errors')}" for r in report.rows if r.metrics.get("errors"))
        typer.secho(f"error: {report.errors} instance(s) errored ({errored}); rerun the same command to retry them, "
                    f"or pass --allow-errors to accept the table as it is", fg=typer.colors.RED, err=True)
        raise typer.Exit(1)


def _write_outputs(report, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.md").write_text(report.markdown() + "\n", encoding="utf-8")
    (folder / "report.csv").write_text(report.csv(), encoding="utf-8")
    (folder / "report.json").write_text(json.dumps(report.as_json(), indent=1), encoding="utf-8")
    report.bar_chart(folder / "compare.png")


@moe_app.command("report")
def report_cmd(
    runs: list[Path] = typer.Argument(..., help="Run folders, or compare folders holding them."),
    baseline: str = typer.Option("last_speaker", "--baseline", help="Pipeline the paired tests compare against."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Also write the table as Markdown here."),
    csv_path: Path | None = typer.Option(None, "--csv", help="Also write the table as CSV here."),
    png: Path | None = typer.Option(None, "--png", help="Also draw the CF/SF bar chart here."),
    as_json: bool = typer.Option(False, "--json", help="Print the table as JSON."),
    allow_errors: bool = typer.Option(False, "--allow-errors", help="Exit 0 even when some instances errored (they are still counted)."),
    metric: str = typer.Option("paper", "--metric", help="paper: Tachikuma (1)-(6) as written; tuple: the per-tuple variant (docs/moe.md)."),
) -> None:
    """Rebuild metrics and the comparison table from saved runs (no model needed)."""
    from eval.moe.report import build_report

    report = build_report(runs, baseline=baseline, metric=metric)
    if markdown:
        markdown.write_text(report.markdown() + "\n", encoding="utf-8")
    if csv_path:
        csv_path.write_text(report.csv(), encoding="utf-8")
    if png:
        report.bar_chart(png)
    if as_json:
        _dump(report.as_json())
    else:
        _print_report(report, False, "MOE report")
        _print_findings(report, report_file=markdown, plot=png)
    _exit_on_errors(report, allow_errors)


@moe_app.command("score")
def score_cmd(
    gold: Path = typer.Argument(..., help="Gold MOE .jsonl (or 'sample')."),
    predictions: Path = typer.Argument(..., help="Predictions .jsonl: {id, prediction: [{character, skill}]} per line (a run's predictions.jsonl)."),
    metric: str = typer.Option("paper", "--metric", help="paper: Tachikuma (1)-(6) as written; tuple: the per-tuple variant."),
    as_json: bool = typer.Option(False, "--json", help='Print {"CP","CR","SP","SR","CF","SF","n"} on the 0-1 scale.'),
) -> None:
    """Score a predictions file against gold data (no run folder needed)."""
    from eval.moe.report import score_files, score_summary

    score = score_files(str(gold), predictions, metric=metric)
    if as_json:
        _dump(score_summary(score))
    else:
        console.print(str(score))


def register(app: typer.Typer) -> None:
    """Add ``vgm moe ...`` to the main command line."""
    app.add_typer(moe_app, name="moe")


__all__ = ["register", "moe_app"]
