"""``vgm scenario check FILE|ID``: validate a scenario and show what the GM understood of its world."""
from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console()


def _told(item) -> str:
    if item.never:
        return "never"
    return "after " + " / ".join(item.checks) if item.checks else "freely"


def _tables(world) -> list[Table]:
    npcs = Table("NPC", "role", "disposition", "voice", title="NPCs")
    knows = Table("NPC", "topic", "told", "answer", title="What they know")
    for npc in world.npcs:
        status = "" if npc.alive and npc.present else (" (dead)" if not npc.alive else " (absent)")
        npcs.add_row(escape(npc.name) + status, escape(npc.role or "—"), escape(npc.disposition), escape(npc.voice or "—"))
        for i, item in enumerate(npc.knows):
            knows.add_row(escape(npc.name) if i == 0 else "", escape(item.topic), _told(item), escape(item.answer),
                          end_section=i == len(npc.knows) - 1)
    places = Table("place", "exits", title="Places and exits")
    for place in world.places:
        places.add_row(escape(place.name) + (" [bold](here)[/]" if place.name == world.here else ""),
                       "\n".join(escape(f"{e.way or 'way'} → {e.to}" + (f" ({e.distance})" if e.distance else ""))
                                 for e in place.exits) or "—")
    things = Table("thing", "where", "states", title="Things")
    for thing in world.things:
        things.add_row(escape(thing.name), escape(thing.where or "—"), ", ".join(thing.states) or "—")
    facts = Table("fact", "about", "told", title="Facts")
    for fact in world.facts:
        facts.add_row(escape(fact.text), escape(", ".join(fact.about)), "yes" if fact.public else "GM only")
    return [npcs, knows, places, things, facts]


def check(
    scenario: str = typer.Argument(..., help="A scenario .yaml file, or a shipped id (drowned_chapel)."),
    as_json: bool = typer.Option(False, "--json", help="Print the world the GM reads (gm.world.World) as JSON."),
) -> None:
    """Validate a scenario (every key, every check name) and print what the GM understood of its
    world: NPCs and what they know, places and exits, things, facts, era; then the reader's warnings."""
    import rulesets
    from gm.table import load_scenario
    from gm.world import not_understood, read_world

    loaded = load_scenario(scenario)
    loaded = load_scenario(scenario, rulesets.load(loaded.ruleset))  # check names resolve through the pack
    world = read_world(loaded)
    warnings = not_understood(world, loaded)
    if as_json:
        typer.echo(json.dumps({"world": world.model_dump(), "warnings": warnings}, ensure_ascii=False))
        return
    console.print(f"[bold]{escape(loaded.title)}[/] ({loaded.id}, {loaded.ruleset}) — era: {escape(world.era or '—')}; "
                  f"time: {escape(world.time or '—')}; here: {escape(world.here or '—')}", highlight=False)
    for table in _tables(world):
        if table.row_count:
            console.print(table)
    for secret in (s for s in loaded.secrets if s.id.startswith("gm_only")):  # what the prose marked for the GM (gm.gm_only)
        console.print(f"[dim]kept from the players (the prose marks it for the GM):[/] {escape(secret.text)}", highlight=False)
    for line in warnings:
        console.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
    console.print(f"[green]ok[/]: {loaded.id} is playable" + (f" ({len(warnings)} warning(s))" if warnings else ""), highlight=False)


def register(app: typer.Typer) -> None:
    group = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False, help="Check scenarios: what the GM understands of their world.")
    group.command("check")(check)
    app.add_typer(group, name="scenario")


__all__ = ["check", "register"]
