"""``vgm rulesets list|show|resolve``: thin wrappers over ``rulesets``' summaries."""
from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

import rulesets
from rulesets import describe, lineup_text, pack_summaries, resolve_report

rulesets_app = typer.Typer(help="Rule-set packs: list them, show one, resolve a check or role name.", no_args_is_help=True)
console = Console()


def _dump(data) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=1))


def _join(items) -> str:
    return ", ".join(str(i) for i in items if i)


@rulesets_app.command("list")
def list_cmd(as_json: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    """List every pack: built-in ones and those in VGM_RULESETS_PATH folders."""
    rows = pack_summaries()
    if as_json:
        _dump(rows)
        return
    table = Table(title="rule-set packs")
    for col in ("name", "title", "kind", "checks / roles", "source"):
        table.add_column(col)
    for r in rows:
        size = f"{r['checks']} checks" if r["kind"] == "trpg" else f"{r['roles']} roles"
        source = "built-in" if r["builtin"] else r["source"]
        if r["error"]:
            table.add_row(r["name"], f"[red]{r['error']}[/]", "-", "-", source)
        else:
            table.add_row(r["name"], r["title"], r["kind"], size, source)
    console.print(table)


@rulesets_app.command("show")
def show_cmd(
    name: str = typer.Argument(..., help="Pack name or alias (dnd5e, COC, PF2, SW, avalon, mafia, ...)."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole pack as JSON."),
) -> None:
    """Show one pack: every check (id, name, ability, Chinese names, aliases), or roles and setups."""
    info = describe(name)
    if as_json:
        _dump(info)
        return
    console.print(f"[bold]{info['name']}[/]: {info['title']} ({info['kind']})  [dim]{info['source']}[/]")
    if info["description"]:
        console.print(info["description"])
    if info["aliases"]:
        console.print(f"[dim]also called: {_join(info['aliases'])}[/]")
    if info["kind"] == "trpg":
        _show_checks(info)
    else:
        _show_social(info)
    if info["rules"]:
        rules = Table(title="rules")
        rules.add_column("rule")
        rules.add_column("value")
        for key, value in info["rules"].items():
            rules.add_row(key, json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value)
        console.print(rules)


def _show_checks(info: dict) -> None:
    abilities = {a["id"]: a["name"] for a in info["abilities"]}
    has_base = any(c["base"] is not None or c["base_formula"] for c in info["checks"])
    table = Table(title=f"{len(info['checks'])} checks")
    cols = ["id", "name", "kind"] + (["base %"] if has_base else []) + ["Chinese", "aliases"]
    for col in cols:
        table.add_column(col, overflow="fold", no_wrap=col in ("id", "base %"))
    for c in [*info["checks"], *info["families"]]:
        gov = "" if c["ability"] in (None, c["id"]) else f" ({abilities.get(c['ability'], c['ability'])})"
        row = [c["id"], c["name"], c["kind"] + gov]
        if has_base:
            row.append(str(c["base"]) if c.get("base") is not None else (c.get("base_formula") or ""))
        row += [_join(c["zh"]), _join(c["aliases"])]
        table.add_row(*row)
    console.print(table)


def _show_social(info: dict) -> None:
    roles = Table(title=f"{len(info['roles'])} roles")
    for col in ("id", "name", "team", "learns at night", "labelled", "Chinese", "aliases"):
        roles.add_column(col, overflow="fold", no_wrap=col == "id")
    for r in info["roles"]:
        roles.add_row(r["id"], r["name"], r["team"], _join(r["sees"]),
                      r["sees_as"], _join(r["zh"]), _join(r["aliases"]))
    console.print(roles)
    if info["teams"]:
        for tid, title in info["teams"].items():
            also = info["team_aliases"].get(tid, [])
            console.print(f"team [bold]{tid}[/] = {title}" + (f"  [dim](also: {_join(also)})[/]" if also else ""))
    setups = Table(title="setups by player count")
    has_missions = any(s["team_sizes"] for s in info["setups"])
    cols = ["players", "default line-up"] + (["team sizes", "fails needed"] if has_missions else []) + ["optional"]
    for col in cols:
        setups.add_column(col, overflow="fold")
    for s in info["setups"]:
        row = [str(s["players"]), lineup_text(s["lineup"])]
        if has_missions:
            row += ["-".join(map(str, s["team_sizes"])), "-".join(map(str, s["fails_required"]))]
        row.append(_join(s["optional"]))
        setups.add_row(*row)
    console.print(setups)


@rulesets_app.command("resolve")
def resolve_cmd(
    name: str = typer.Argument(..., help="Pack name or alias."),
    text: str = typer.Argument(..., help="A check or role as people say it: 'Wisdom (Perception)', 'Dex save', '侦查', '梅林'."),
    as_json: bool = typer.Option(False, "--json", help="Print pack, text, id and name as JSON."),
) -> None:
    """Print the id TEXT resolves to; an unknown name fails with the closest ids."""
    result = resolve_report(name, text)
    if as_json:
        _dump(result)
    else:
        typer.echo(result["id"])


def register(app: typer.Typer) -> None:
    """Add ``vgm rulesets ...`` to the main command line."""
    app.add_typer(rulesets_app, name="rulesets")


__all__ = ["register", "rulesets_app", "rulesets"]
