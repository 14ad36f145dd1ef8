"""``vgm table``: a shared web table where several players, each in their own browser, play
one scene with an AI Game Master (``ui.web.TableRoom``; the GM is ``gm.agent.GameMaster``).

    vgm table serve --scenario ambush            # prints a join link per character and a host link
    vgm table serve --resume runs/table/<id>.json
    vgm table revoke runs/table/<id>.json Brisa  # Brisa's old link sees "access denied"
"""
from __future__ import annotations

from pathlib import Path

import typer

from rulesets import VgmError


def _say(line: str) -> None:
    typer.echo(line)


def serve(
    scenario: str | None = typer.Option(None, "--scenario", "-s", help="A shipped scenario id (see `vgm play --list`) or a YAML file."),
    ruleset: str | None = typer.Option(None, "--ruleset", "-r", help="dnd5e, coc7e, pf2e or swade; a scenario implies its own."),
    model: str | None = typer.Option(None, "--model", "-m", help="local (default), local:small, openai:<model>, scripted:<file>."),
    characters: str | None = typer.Option(None, "--characters", "-c", help="Comma list of ready character names or YAML sheet files (`vgm character new` writes one)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on; 127.0.0.1 (default) is this machine only, 0.0.0.0 exposes the room."),
    port: int = typer.Option(7861, "--port", help="Port to listen on."),
    seed: int | None = typer.Option(None, "--seed", help="Seed the dice (a reopened room continues the same sequence)."),
    resume: Path | None = typer.Option(None, "--resume", help="Reopen a room from its session file."),
    save: Path = typer.Option(Path("runs/table"), "--save", help="Where the session JSON goes: a .json file or a folder (one file per room)."),
    memory: str | None = typer.Option(None, "--memory", help="Long-session memory: minilm (default), hashing or off; a reopened room keeps its own."),
    new_links: bool = typer.Option(False, "--new-links", help="With --resume: revoke every old link and print new ones."),
    base_url: str | None = typer.Option(None, "--base-url", help="The address players reach the room at, when it sits behind a proxy or tunnel."),
) -> None:
    """Open a shared table: one private join link per character plus a host link; Ctrl+C closes it (saved)."""
    from gm.agent import GameMaster
    from pipelines.llm import get_model
    from ui.web import TableRoom, check_address, serve_table

    from .cli_play import _default_model

    if memory not in (None, "minilm", "hashing", "off"):
        raise VgmError(f"--memory {memory!r}: use minilm, hashing or off")
    if not 0 < port < 65536:
        raise VgmError(f"--port {port}: use a port from 1 to 65535")
    check_address(host, port)
    mem = False if memory == "off" else memory
    _say("setting the table…")
    if resume is not None:
        kept = {"memory": mem} if memory is not None else {}
        gm = GameMaster.resume(resume, get_model(model) if model else None, **kept)
    else:
        if new_links:
            raise VgmError("--new-links goes with --resume (a new room always has new links)")
        chosen = [c.strip() for c in characters.split(",") if c.strip()] if characters else None
        gm = GameMaster(ruleset, scenario, get_model(model or _default_model()), characters=chosen,
                        memory="minilm" if memory is None else mem, seed=seed, session_path=save)
    room = TableRoom.open(gm, new_links=new_links or resume is None)  # a new room never inherits old links
    serve_table(room, host=host, port=port, announce=_say, base_url=base_url)


def revoke(
    session: Path = typer.Argument(..., help="The room's session file."),
    seat: str = typer.Argument(..., help="A character's name (or first name), or `host`."),
    base_url: str = typer.Option("http://127.0.0.1:7861", "--base-url", help="The room's address, to print the new link."),
) -> None:
    """Revoke one seat's link and print its new one (takes effect at once, also on a running room)."""
    from ui.web import Seats, links_path

    path = links_path(session)
    if not path.is_file():
        raise VgmError(f"no links beside {session} ({path} is missing); serve the room once to make them")
    seats = Seats(path)
    name = seats.renew(seat)
    _say(f"{name}: {seats.links(base_url)[name]}")
    _say("the old link now sees 'access denied'")


def links(
    session: Path = typer.Argument(..., help="The room's session file."),
    base_url: str = typer.Option("http://127.0.0.1:7861", "--base-url", help="The room's address."),
) -> None:
    """Print a room's links again (host first)."""
    from ui.web import Seats, links_path

    path = links_path(session)
    if not path.is_file():
        raise VgmError(f"no links beside {session} ({path} is missing); serve the room once to make them")
    for name, link in Seats(path).links(base_url).items():
        _say(f"{name}: {link}")


def register(app: typer.Typer) -> None:
    group = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False,
                        help="A shared web table: several players in their own browsers, one AI Game Master.")
    group.command("serve")(serve)
    group.command("links")(links)
    group.command("revoke")(revoke)
    app.add_typer(group, name="table")
