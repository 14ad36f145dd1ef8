"""``vgm play``: a table with an AI Game Master in the terminal (hot-seat for several players).

Everything the game does is ``gm.agent.GameMaster``; this module reads lines, hands them
to ``GameMaster.step`` and prints the reply.
"""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape as _markup_escape
from rich.table import Table

from rulesets import VgmError

from ._text import terminal_safe

console = Console(highlight=False)


def escape(text) -> str:
    """Stored text as the terminal shows it: control characters (an escape sequence, BEL, NUL in a
    player's line or a model's words) shown as ``\\xNN``, never obeyed, and Rich markup escaped."""
    return _markup_escape(terminal_safe(str(text)))


HELP = """Type what your character does; start the line with a name to switch character ("Oskar: I pray").
  /roll EXPR     roll dice (1d20+5, 2d20kh1, 4d6kh3, 1d8e8)
  /check NAME    roll a check with your modifier (/check stealth, /check spot hidden)
  /sheet [NAME]  show a character sheet        /who   who plays whom
  /log [N]       the last N lines of the log   /save  save now
  /rest [long|HOURS]  the party rests by the game's rules (a short rest; a night; hours)
  /undo          take back the last input, dice and all (kept in the session as undone)
  /regenerate    the GM answers the last line again: same dice, fresh words
  /quit          save and leave (Ctrl-C and Ctrl-D too)"""


def _print_reply(reply, streamed: bool = False, verbose: bool = False) -> None:
    """Everything but the narration, which was streamed (when ``streamed``) as it was written.
    The GM's own notes (which rule fired, what the narration cut) are for the log and ``--verbose``:
    a player reads the game, not its workings."""
    if not streamed:
        _print_mechanics(reply)
    for note in reply.notes if verbose else []:
        console.print(f"[magenta]\\[note][/] {escape(note)}")
    if reply.narration and not streamed:
        console.print(f"[bold]GM:[/] {escape(reply.narration)}")


def _print_mechanics(reply) -> None:
    """The decision, dice and fight: shown before the GM's words stream in."""
    if reply.decision == "impossible":
        console.print("[yellow]\\[no roll][/] that cannot work")
    for check in reply.checks:
        if not reply.rolls and not reply.pending:
            console.print(f"[cyan]\\[check][/] {escape(str(check))}")
    for roll in reply.rolls:
        style = "green" if roll.success else "red" if roll.success is False else "yellow"
        console.print(f"[{style}]\\[roll][/] {escape(roll.line())}")
    for line in reply.fight:
        console.print(f"[red]\\[fight][/] {escape(line)}")
    if reply.order:
        console.print(f"[dim]\\[order] {escape(reply.order)}[/]")
    for why in reply.difficulty:
        console.print(f"[dim]\\[why] {escape(why)}[/]")


def _print_catalogue(ruleset: str | None, as_json: bool) -> None:
    from gm.agent import catalogue

    rows = catalogue(ruleset)
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table(title="scenarios and ready characters")
    for col in ("ruleset", "scenario", "title", "ready characters"):
        table.add_column(col)
    for row in rows:
        table.add_row(escape(row["ruleset"]), escape(row["scenario"]), escape(row["title"]),
                      escape(", ".join(c["name"] for c in row["characters"])))
    console.print(table)


def _default_model() -> str | None:
    """``local`` when installed; else an installed ``local:small`` with a one-line note (what
    ``make demo`` installs), so a fresh machine can play right after the demo."""
    import os

    from pipelines.llm.local import list_models

    if os.environ.get("VGM_MODEL"):
        return None
    installed = {m.key for m in list_models() if m.verified}
    if "local" not in installed and "local:small" in installed:
        console.print("[dim]note: the default model `local` is not installed; playing with `local:small` "
                      "(install the larger one with `vgm models install local`)[/]")
        return "local:small"
    return None


def _parse_players(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if part.strip():
            if "=" not in part:
                raise VgmError(f"--players entry {part.strip()!r} needs the form PLAYER=CHARACTER, e.g. Ann=Brisa,Bob=Oskar")
            player, character = part.split("=", 1)
            out[player.strip()] = character.strip()
    return out


def _who(gm, sheet) -> str:
    player = gm.player_of(sheet)
    summary = escape(sheet.summary(gm.ruleset))
    return summary if player == sheet.name else f"{escape(player)} plays {summary}"


def _print_sheet(gm, sheet) -> None:
    from gm.sheet_view import sheet_rows

    table = Table(title=escape(sheet.summary(gm.ruleset)), title_justify="left", show_edge=False)
    for col in ("check", "roll", "from"):
        table.add_column(col)
    for name, rolled, why in sheet_rows(sheet, gm.ruleset):
        table.add_row(escape(name), escape(rolled), escape(why))
    console.print(table)
    if sheet.notes:
        console.print(f"[dim]{escape(' '.join(sheet.notes.split()))}[/]")
    from gm.combat.inventory import things_line
    from gm.party import carried_now

    console.print(f"carries: {escape(things_line(carried_now(gm.session, gm.ruleset, gm.sheets).get(sheet.name, {})))}")


class _Stream:
    """Shows a spinner while the GM decides, then the narration as it is written."""

    def __init__(self) -> None:
        self.status = console.status("the GM is thinking…")
        self.started = False
        self.shown_mechanics = False

    def __enter__(self) -> "_Stream":
        self.status.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if not self.started:
            self.status.__exit__(*exc)
        else:
            console.print()

    def mechanics(self, reply) -> None:
        self.shown_mechanics = True
        self.status.__exit__(None, None, None)
        _print_mechanics(reply)
        self.status = console.status("the GM is thinking…")
        self.status.__enter__()

    def __call__(self, delta: str) -> None:
        if not self.started:
            self.status.__exit__(None, None, None)
            console.print("[bold]GM:[/] ", end="")
            self.started = True
        console.print(escape(delta), end="", soft_wrap=True)


def _undo(gm) -> None:
    """``/undo``: the last input goes, and the table says what went."""
    from gm.undo import undone_line

    if not gm.undo():
        console.print("[magenta]\\[note][/] nothing to undo (the last 20 inputs of this sitting can be undone)")
        return
    gone = gm.session.undone[-1] if gm.session.undone else None
    console.print(f"[yellow]\\[undone][/] {escape(undone_line(gone)) if gone else 'the last input'}; the table is as it was before it")


def _regenerate(gm, verbose: bool) -> None:
    """``/regenerate``: the GM's last answer again, streamed like any other."""
    if not gm.can_regenerate:
        console.print("[magenta]\\[note][/] nothing to regenerate: the last thing at the table was not a GM reply to a line of this sitting")
        return
    with _Stream() as stream:
        reply = gm.regenerate(on_token=stream, on_mechanics=stream.mechanics)
    _print_reply(reply, streamed=stream.shown_mechanics or stream.started, verbose=verbose)


def _command(gm, line: str, verbose: bool = False) -> bool:
    """Handle a /command; True when the game should end."""
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word in ("/quit", "/exit", "/q"):
        return True
    if word == "/help":
        console.print(escape(HELP))
    elif word == "/who":
        for sheet in gm.sheets:
            console.print(_who(gm, sheet))
    elif word == "/sheet":
        sheets = [gm.sheet(rest.strip())] if rest.strip() else gm.sheets
        for sheet in sheets:
            _print_sheet(gm, sheet)
    elif word == "/log":
        n = int(rest) if rest.strip().isdigit() else 10
        for turn in gm.session.log[-n:]:
            console.print(escape(str(turn)))
    elif word == "/save":
        console.print(f"saved to {gm.save()}")
    elif word == "/undo":
        _undo(gm)
    elif word in ("/regenerate", "/regen"):
        _regenerate(gm, verbose)
    else:
        console.print(f"[magenta]\\[note][/] unknown command {escape(word)}; /help lists them")
    return False


def play(
    ctx: typer.Context,
    ruleset: str | None = typer.Option(None, "--ruleset", "-r", help="dnd5e (default), coc7e, pf2e or swade; a scenario implies its own."),
    scenario: str | None = typer.Option(None, "--scenario", "-s", help="A shipped scenario id (see --list) or a YAML file."),
    model: str | None = typer.Option(None, "--model", "-m", help="local (default), local:small, openai:<model>, scripted:<file>."),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help="The decision pipeline: adjudicate (default; template with --lang zh), or any MOE pipeline (tbs, ...)."),
    lang: str = typer.Option("en", "--lang", help="en (default) or zh: the language the GM narrates in and reads lines in (Chinese prompts and fixed sentences)."),
    characters: str | None = typer.Option(None, "--characters", "-c", help="Comma list of ready character names or YAML sheet files."),
    players: str | None = typer.Option(None, "--players", help="Who plays whom: Ann=Brisa,Bob=Oskar."),
    player_rolls: bool = typer.Option(False, "--player-rolls", help="Players type their own dice results."),
    seed: int | None = typer.Option(None, "--seed", help="Seed the dice (a resumed game continues the same sequence)."),
    resume: Path | None = typer.Option(None, "--resume", help="Continue a saved session file."),
    save: Path | None = typer.Option(None, "--save", help="Where to write the session JSON (default runs/play/<id>.json)."),
    memory: str | None = typer.Option(None, "--memory", help="Long-session memory: minilm (default), hashing or off; a resumed game keeps its own."),
    list_: bool = typer.Option(False, "--list", help="List scenarios and ready characters, then exit."),
    as_json: bool = typer.Option(False, "--json", help="With --list: print JSON."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print the GM's notes (rules that fired, what the narration cut); they are always in the session log."),
) -> None:
    """Play a scene with an AI Game Master: it calls checks, rolls the dice and narrates (`vgm play eval` scores it)."""
    if ctx.invoked_subcommand is not None:
        return
    if list_:
        _print_catalogue(ruleset, as_json)
        return
    from gm.agent import EmptyInput, GameMaster, split_speaker
    from pipelines.llm import get_model

    mem = False if memory == "off" else memory
    with console.status("setting the table…"):
        if resume is not None:
            kept = {"memory": mem} if memory is not None else {}
            gm = GameMaster.resume(resume, get_model(model) if model else None, **kept)
            chat = gm.model
        else:
            chat = get_model(model or _default_model())
            mem = "minilm" if memory is None else mem
            chosen = [c.strip() for c in characters.split(",")] if characters else None
            gm = GameMaster(ruleset, scenario, chat, pipeline=pipeline, characters=chosen, memory=mem,
                            players=_parse_players(players), seed=seed, player_rolls=player_rolls,
                            session_path=save or Path("runs/play"), lang=lang)
    console.print(f"[bold]{escape(gm.scenario.title)}[/] ({escape(gm.ruleset.title)}) — model {escape(getattr(chat, 'name', model))}, pipeline {escape(gm.pipeline.name)}")
    console.print(f"[dim]session: {gm.session.path} (resume with: vgm play --resume {gm.session.path})[/]")
    if resume is None and not gm.scenario.world:  # a prose scene: say in one line what the GM could not read from it
        from gm.world import not_understood

        missed = not_understood(gm.world, gm.scenario)
        if missed:
            console.print(f"[dim]the GM read the scene from its prose; not understood: {escape('; '.join(m.split(';')[0] for m in missed))} (see `vgm scenario check`)[/]")
    for sheet in gm.sheets:
        console.print("  " + _who(gm, sheet))
    console.print("[dim]" + escape(HELP) + "[/]")
    for turn in gm.session.log[-6:] if resume else gm.session.log[:1]:
        console.print(f"[bold]{turn.speaker}:[/] {escape(turn.text)}" if turn.speaker == "GM" else escape(str(turn)))
    if resume:  # what was played and taken back stays visible
        from gm.undo import undone_line

        for gone in gm.session.undone[-3:]:
            console.print(f"[yellow]\\[undone][/] {escape(undone_line(gone))}")
    for line in getattr(gm, "opening", []):
        console.print(f"[red]\\[fight][/] {escape(line)}")

    current = gm.sheets[0].names()[-1] if len(gm.sheets) == 1 else None
    try:
        while True:
            prompt = f"{current}> " if current else "> "
            try:
                line = console.input(prompt)
            except UnicodeDecodeError:
                console.print("[magenta]\\[note][/] that line had bytes that are not UTF-8 text; retype it (the game is saved)")
                continue
            if line.strip().startswith("/") and not line.strip().lower().startswith(("/roll", "/check", "/rest")):
                if _command(gm, line.strip(), verbose):
                    break
                continue
            who, text = split_speaker(line, gm.names)
            who = who or current
            try:
                with _Stream() as stream:
                    reply = gm.step(who or "", text, on_token=stream, on_mechanics=stream.mechanics)
            except EmptyInput:
                continue
            except VgmError as exc:  # unknown character, impossible dice: say so and keep playing
                console.print(f"[magenta]\\[note][/] {escape(str(exc))}")
                continue
            if who:
                current = who
            _print_reply(reply, streamed=stream.shown_mechanics or stream.started, verbose=verbose)
            gm.save()
    except (KeyboardInterrupt, EOFError):
        console.print()
    finally:
        path = gm.save()
        gm.close()
    console.print(f"saved to {path}; resume with: vgm play --resume {path}")


def register(app: typer.Typer) -> None:
    from .cli_play_eval import play_eval
    from .cli_play_learn import play_learn
    from .cli_play_real import play_real

    group = typer.Typer(invoke_without_command=True, no_args_is_help=False, pretty_exceptions_enable=False,
                        help="Play a scene with an AI Game Master, or score its judgement (eval).")
    group.callback()(play)
    group.command("eval")(play_eval)
    group.command("real")(play_real)
    group.command("learn")(play_learn)
    app.add_typer(group, name="play")
