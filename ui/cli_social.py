"""``vgm avalon …`` and ``vgm mafia …``: play a seat, simulate batches, check real Avalon logs.

Other areas add commands to the same groups with ``from ui.cli_social import mafia_app``
(e.g. ``vgm mafia score`` / ``fork`` from the probes area).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from eval.cluster import ClusterGuard, base_url_option, cluster_option, endpoint_concurrency_option, ray_address_option

from ._outdir import output_folder
from ._text import terminal_safe

avalon_app = typer.Typer(cls=ClusterGuard, help="Avalon moderated by the GM: play a seat, simulate games, check real game logs.", no_args_is_help=True)
mafia_app = typer.Typer(cls=ClusterGuard, help="Mafia moderated by the GM: play a seat, simulate games.", no_args_is_help=True)
console = Console()

PERSONAS_HELP = "Big-Five personas for the LLM seats: 'seeded' (from each game's seed) or a YAML/JSON file {name: {O, C, E, A, N}}"


def _with_personas(options: dict, personas: Optional[str]) -> dict:
    """``options`` plus ``personas`` (checked now: a bad file is one line before any game or file)."""
    if personas is None:
        return options
    from gm.social.personas import load_personas

    return {**options, "personas": load_personas(personas)}


LANG_HELP = "language the seats are spoken to in: en (default) or zh"


def _with_lang(options: dict, lang: str) -> dict:
    """``options`` plus ``lang`` when it is not English (an unknown one is refused by the game, in one line)."""
    return options if lang == "en" else {**options, "lang": lang}


INMIND_HELP = ("observer or participant: write each game to -o as an InMind session; the --subject-seat seat "
               "writes a strategy trace at each proposal and a reflection (participant: it plays; observer: it watches)")


def _no_extras_when_recording(probes: Optional[str], snapshots: bool, cluster: Optional[str]) -> None:
    """The session folder holds only sessions (``vgm inmind`` reads every file in it): no probes, snapshots or cluster."""
    from rulesets import VgmError

    for given, flag in ((probes, "--probes"), (snapshots, "--snapshots"), (cluster, "--cluster")):
        if given:
            raise VgmError(f"{flag} does not go with --inmind-record (the folder holds only InMind sessions); leave it out")


def _record_in(mode: str, games: int, seats: str, players: Optional[int], out: Optional[Path], seed: int, model: Optional[str],
            options: dict, subject_seat: int, lang: str, concurrency: int, max_tokens: int, as_json: bool) -> None:
    from gm.avalon.inmind_record import check_recording, record

    check_recording(mode, out=out, players=players or 6, subject_seat=subject_seat, lang=lang)  # before the progress bar
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=as_json) as bar:
        task = bar.add_task(f"InMind {mode} sessions", total=games)
        report = record(mode=mode, out=out, games=games, seats=seats, players=players, seed=seed, model=model, options=options,
                        subject_seat=subject_seat, lang=lang, concurrency=concurrency, max_tokens=max_tokens,
                        progress=lambda r: bar.advance(task))
    _print_report(report, as_json)
    if not as_json:
        info = report["inmind"]
        console.print(f"InMind {info['mode']} sessions: {info['sessions']} in {report['out']} ({info['recorded']} recorded now); "
                      f"read them with `vgm inmind tasks --data {report['out']}`")


SEATS_HELP = "one kind for every seat, or a comma list per seat: scripted, scripted:random, scripted:heuristic, llm, llm:<model>"


def _probe_hook(probes: Optional[str], probe_model: Optional[str], out: Optional[Path]):
    """Attach the probe engine (pipelines.probes, imported only when asked for) to each game."""
    if probes is None:
        return None
    from pipelines.probes import attach_probes, load_probe_set

    batched = probes.endswith(":batched")
    probe_set = load_probe_set(probes.removesuffix(":batched"))  # now: a bad set fails before any game or file
    model = None
    if probe_model:
        from pipelines.llm import get_model

        model = get_model(probe_model)

    def hook(game: Any) -> None:
        path = (out / f"{game.game_id}.probes.jsonl") if out else None
        attach_probes(game, probe_set, model, path, batched=batched)

    return hook


def _print_report(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({k: v for k, v in report.items() if k != "results"}, ensure_ascii=False, indent=1))
        return
    table = Table(title=f"{report['engine']}: {report['games']} games, {report['players']} players, seats {report['seats']}")
    table.add_column("winner")
    table.add_column("games", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% CI (Wilson)", justify="right")
    for row in report["wins"]:
        ci = row["ci95"]
        table.add_row(str(row["winner"]), str(row["games"]), f"{row['rate']:.1%}", f"{ci[0]:.1%} – {ci[1]:.1%}" if ci else "")
    console.print(table)
    reasons = Table(title="how games ended")
    reasons.add_column("reason")
    reasons.add_column("games", justify="right")
    for reason, k in report["reasons"].items():
        reasons.add_row(reason, str(k))
    console.print(reasons)
    console.print(f"mean rounds: {report['mean_rounds']}" + (f"; logs in {report['out']}" if report.get("out") else ""))


def _simulate_in(engine: str, games: int, seats: str, players: Optional[int], out: Optional[Path], seed: int,
              model: Optional[str], options: dict, as_json: bool, probes: Optional[str], probe_model: Optional[str],
              snapshots: bool, concurrency: int, max_tokens: int, spec: Any = None) -> None:
    from gm.games import check_simulate, simulate

    if probes is not None:  # said now, not after hours of probing: which answers the scores will never grade
        from pipelines.probes import load_probe_set

        personas = bool(options.get("personas")) and "llm" in seats
        for problem in load_probe_set(probes.removesuffix(":batched")).scoring_problems(engine, personas=personas):
            typer.echo(f"warning: --probes {probes}: {problem} (`vgm {engine} score` will not grade it)", err=True)

    if spec is not None:  # --cluster ray: each game a shard; this process writes the folder
        from eval.cluster import simulate as simulate_on_cluster

        report = simulate_on_cluster(engine, spec=spec, games=games, seats=seats, players=players, out=out, seed=seed, model=model,
                                     options=options, probes=probes, probe_model=probe_model, snapshots=snapshots,
                                     concurrency=concurrency, max_tokens=max_tokens, show_progress=True, transient=as_json)
        return _print_report(report, as_json)
    check_simulate(engine, games=games, seats=seats, players=players, out=out, seed=seed, options=options,
                   concurrency=concurrency, max_tokens=max_tokens)  # before the progress bar or any file
    hook = _probe_hook(probes, probe_model, out)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=as_json) as bar:
        task = bar.add_task(f"{engine} games", total=games)
        report = simulate(engine, games=games, seats=seats, players=players, out=out, seed=seed, model=model,
                          options=options, on_game=hook, snapshots=snapshots, concurrency=concurrency,
                          max_tokens=max_tokens, progress=lambda r: bar.advance(task))
    _print_report(report, as_json)


def _play_in(engine: str, seat: Optional[int], players: Optional[int], model: Optional[str], others: Optional[str],
          out: Path, seed: Optional[int], options: dict, probes: Optional[str], probe_model: Optional[str],
          snapshots: bool, max_tokens: int, as_json: bool) -> None:
    from gm.games import play

    result = play(engine, seat=seat, players=players, model=model, others=others, out=out, seed=seed, options=options,
                  on_game=_probe_hook(probes, probe_model, out), snapshots=snapshots, max_tokens=max_tokens, output_fn=_show)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        console.print(f"[bold]{result['winner']} wins[/bold] ({result['reason']}). You were {result['you']} "
                      f"({result['your_role']}). Log: {result['log']}")


def _record(mode, games, seats, players, out, seed, model, *rest) -> None:
    with output_folder(out):  # a session folder made for sessions that never began is taken back
        _record_in(mode, games, seats, players, out, seed, model, *rest)


def _simulate(engine, games, seats, players, out, seed, model, *rest, **kw) -> None:
    with output_folder(out):  # e.g. --seats llm:gpt-17 fails before the first game: no empty log folder stays
        _simulate_in(engine, games, seats, players, out, seed, model, *rest, **kw)


def _play(engine, seat, players, model, others, out, *rest) -> None:
    with output_folder(out):
        _play_in(engine, seat, players, model, others, out, *rest)


def _show(line: str) -> None:
    """What a human seat reads at the terminal: the other seats' words (a model's too) with control characters shown, never obeyed."""
    print(terminal_safe(line))


# ---- avalon ------------------------------------------------------------------------------------------
def _avalon_options(discussion: bool, speeches: Optional[int], early: Optional[bool], roles: Optional[str]) -> dict:
    from rulesets import VgmError

    opts: dict[str, Any] = {"discussion": discussion}
    if speeches is not None:
        opts["speeches"] = speeches
    if early is not None:
        opts["early_assassination"] = early
    if roles is not None:
        opts["roles"] = [r.strip() for r in roles.split(",") if r.strip()]
        if not opts["roles"]:
            raise VgmError("--roles needs a comma list of roles, e.g. merlin,percival,loyal_servant,loyal_servant,morgana,assassin")
    return opts


@avalon_app.command("simulate")
def avalon_simulate(
    games: int = typer.Option(100, "--games", "-n", help="number of games"),
    seats: str = typer.Option("scripted", "--seats", help=SEATS_HELP),
    players: Optional[int] = typer.Option(None, "--players", help="5-10 (default 6)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="folder for logs, default runs/avalon (resumes finished games); with --inmind-record, the sessions folder (required)"),
    seed: int = typer.Option(0, "--seed", help="first game's seed; game i uses seed+i"),
    model: Optional[str] = typer.Option(None, "--model", help="model for llm seats (default VGM_MODEL or local)"),
    discussion: bool = typer.Option(True, "--discussion/--no-discussion", help="speeches before each vote"),
    speeches: Optional[int] = typer.Option(None, "--speeches", help="cap on speeches per proposal"),
    early: Optional[bool] = typer.Option(None, "--early/--no-early", help="early assassination (default: the pack's rule)"),
    roles: Optional[str] = typer.Option(None, "--roles", help="line-up override, comma list of roles"),
    personas: Optional[str] = typer.Option(None, "--personas", help=PERSONAS_HELP),
    probes: Optional[str] = typer.Option(None, "--probes", help="probe set (default, cheap or a YAML file)"),
    probe_model: Optional[str] = typer.Option(None, "--probe-model", help="model answering probes (default: each seat's own)"),
    snapshots: bool = typer.Option(False, "--snapshots", help="write a snapshot after every step (for forks)"),
    concurrency: int = typer.Option(1, "--concurrency", help="games played at once"),
    max_tokens: int = typer.Option(200, "--max-tokens", help="token cap per LLM move"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
    lang: str = typer.Option("en", "--lang", help=LANG_HELP),
    inmind_record: Optional[str] = typer.Option(None, "--inmind-record", help=INMIND_HELP),
    subject_seat: int = typer.Option(0, "--subject-seat", help="with --inmind-record: the subject's seat, 0-based (0 = InMind's player 1)"),
    cluster: Optional[str] = cluster_option(),
    ray_address: Optional[str] = ray_address_option(),
    base_url: Optional[list[str]] = base_url_option(),
    endpoint_concurrency: Optional[int] = endpoint_concurrency_option(),
) -> None:
    """Play a batch of Avalon games; prints the win-rate table (with --inmind-record, also writes InMind sessions)."""
    from eval.cluster import from_cli

    options = _with_lang(_with_personas(_avalon_options(discussion, speeches, early, roles), personas), lang)
    if inmind_record is not None:
        _no_extras_when_recording(probes, snapshots, cluster)
        return _record(inmind_record, games, seats, players, out, seed, model, options, subject_seat, lang, concurrency,
                       max_tokens, as_json)
    spec = from_cli("avalon simulate", cluster, ray_address, base_url, endpoint_concurrency)
    _simulate("avalon", games, seats, players, out if out is not None else Path("runs/avalon"), seed, model, options,
              as_json, probes, probe_model, snapshots, concurrency, max_tokens, spec)


@avalon_app.command("play")
def avalon_play(
    seat: Optional[int] = typer.Option(None, "--seat", help="your seat, 1-based (default: random)"),
    players: Optional[int] = typer.Option(None, "--players", help="5-10 (default 6)"),
    model: Optional[str] = typer.Option(None, "--model", help="model for the other seats (default VGM_MODEL or local)"),
    others: Optional[str] = typer.Option(None, "--others", help="the other seats instead of LLMs, e.g. scripted"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="folder for the game log, default runs/social; with --inmind-record, the sessions folder (required)"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    discussion: bool = typer.Option(True, "--discussion/--no-discussion"),
    speeches: Optional[int] = typer.Option(None, "--speeches", help="cap on speeches per proposal"),
    early: Optional[bool] = typer.Option(None, "--early/--no-early"),
    probes: Optional[str] = typer.Option(None, "--probes", help="probe set for the LLM seats"),
    probe_model: Optional[str] = typer.Option(None, "--probe-model"),
    snapshots: bool = typer.Option(False, "--snapshots"),
    max_tokens: int = typer.Option(200, "--max-tokens"),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
    lang: str = typer.Option("en", "--lang", help=LANG_HELP),
    inmind_record: Optional[str] = typer.Option(None, "--inmind-record", help="participant: you play --seat and write a strategy trace each proposal and a reflection at the end; observer: you watch --seat and write them; the session goes to -o"),
) -> None:
    """Take a seat in an Avalon game; the other seats are LLMs."""
    options = _with_lang(_avalon_options(discussion, speeches, early, None), lang)
    if inmind_record is None:
        return _play("avalon", seat, players, model, others, out if out is not None else Path("runs/social"), seed, options,
                     probes, probe_model, snapshots, max_tokens, as_json)
    from gm.avalon.inmind_record import record_play

    _no_extras_when_recording(probes, snapshots, None)
    with output_folder(out):
        result = record_play(mode=inmind_record, out=out, seat=seat, players=players, model=model, others=others, seed=seed,
                             options=options, lang=lang, max_tokens=max_tokens, output_fn=_show)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        console.print(f"[bold]{result['winner']} wins[/bold] ({result['reason']}). The subject's seat was {result['you']} "
                      f"({result['your_role']}). InMind session: {result['log']}")


@avalon_app.command("check")
def avalon_check(
    file: Path = typer.Argument(..., help="avalonlogs JSON Lines (or .jsonl.gz)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
    strict: bool = typer.Option(False, "--strict", help="reject an Assassin naming a teammate (real sites allow it)"),
) -> None:
    """Replay recorded human Avalon games through the engine's rules; report accepted and rejected games."""
    from eval.avalonlogs import check_file

    report = check_file(file, strict=strict)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
        return
    console.print(f"{report['file']}: [bold]{report['accepted']} of {report['games']} games accepted[/bold]")
    if report["rejected"]:
        table = Table(title="rejected games: first illegal step")
        table.add_column("game")
        table.add_column("step")
        table.add_column("problem")
        for r in report["rejected"]:
            table.add_row(r["game"], r["step"], r["problem"])
        console.print(table)
    for note in report["tolerated"]:
        console.print(f"tolerated: {note['game']}: {note['note']}")
    console.print(report["rules_note"])


# ---- mafia -------------------------------------------------------------------------------------------
def _mafia_options(sheriff: bool, day_vote: Optional[str], vote_tie: Optional[str], abstain: Optional[bool],
                   rounds: Optional[int], max_rounds: Optional[int]) -> dict:
    opts: dict[str, Any] = {}
    if sheriff:
        opts["extra_roles"] = ["sheriff"]
    if day_vote is not None:
        opts["day_vote"] = day_vote
    if vote_tie is not None:
        opts["vote_tie"] = vote_tie
    if abstain is not None:
        opts["allow_abstain"] = abstain
    if rounds is not None:
        opts["discussion_rounds"] = rounds
    if max_rounds is not None:
        opts["max_rounds"] = max_rounds
    return opts


@mafia_app.command("simulate")
def mafia_simulate(
    games: int = typer.Option(100, "--games", "-n"),
    seats: str = typer.Option("scripted", "--seats", help=SEATS_HELP),
    players: Optional[int] = typer.Option(None, "--players", help="default 7 (2 Mafia, Doctor, 4 Villagers)"),
    out: Optional[Path] = typer.Option(Path("runs/mafia"), "--out", "-o", help="folder for logs (resumes finished games)"),
    seed: int = typer.Option(0, "--seed"),
    model: Optional[str] = typer.Option(None, "--model", help="model for llm seats"),
    sheriff: bool = typer.Option(False, "--sheriff", help="add a Sheriff (replaces a Villager)"),
    day_vote: Optional[str] = typer.Option(None, "--day-vote", help="plurality | majority (default: the pack's)"),
    vote_tie: Optional[str] = typer.Option(None, "--vote-tie", help="no_elimination | revote | random"),
    abstain: Optional[bool] = typer.Option(None, "--abstain/--no-abstain", help="may a voter name nobody"),
    rounds: Optional[int] = typer.Option(None, "--discussion-rounds", help="speeches per player per day (0 = none)"),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds", help="end with no winner after this many rounds"),
    personas: Optional[str] = typer.Option(None, "--personas", help=PERSONAS_HELP),
    probes: Optional[str] = typer.Option(None, "--probes", help="probe set (default, cheap or a YAML file)"),
    probe_model: Optional[str] = typer.Option(None, "--probe-model"),
    snapshots: bool = typer.Option(False, "--snapshots", help="write a snapshot after every step (for forks)"),
    concurrency: int = typer.Option(1, "--concurrency"),
    max_tokens: int = typer.Option(200, "--max-tokens"),
    as_json: bool = typer.Option(False, "--json"),
    lang: str = typer.Option("en", "--lang", help=LANG_HELP),
    cluster: Optional[str] = cluster_option(),
    ray_address: Optional[str] = ray_address_option(),
    base_url: Optional[list[str]] = base_url_option(),
    endpoint_concurrency: Optional[int] = endpoint_concurrency_option(),
) -> None:
    """Play a batch of Mafia games; prints the win-rate table."""
    from eval.cluster import from_cli

    spec = from_cli("mafia simulate", cluster, ray_address, base_url, endpoint_concurrency)
    _simulate("mafia", games, seats, players, out, seed, model,
              _with_lang(_with_personas(_mafia_options(sheriff, day_vote, vote_tie, abstain, rounds, max_rounds), personas), lang),
              as_json, probes, probe_model, snapshots, concurrency, max_tokens, spec)


@mafia_app.command("play")
def mafia_play(
    seat: Optional[int] = typer.Option(None, "--seat", help="your seat, 1-based (default: random)"),
    players: Optional[int] = typer.Option(None, "--players"),
    model: Optional[str] = typer.Option(None, "--model", help="model for the other seats"),
    others: Optional[str] = typer.Option(None, "--others", help="the other seats instead of LLMs, e.g. scripted"),
    out: Path = typer.Option(Path("runs/social"), "--out", "-o"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    sheriff: bool = typer.Option(False, "--sheriff"),
    day_vote: Optional[str] = typer.Option(None, "--day-vote"),
    vote_tie: Optional[str] = typer.Option(None, "--vote-tie"),
    abstain: Optional[bool] = typer.Option(None, "--abstain/--no-abstain"),
    rounds: Optional[int] = typer.Option(None, "--discussion-rounds"),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds"),
    probes: Optional[str] = typer.Option(None, "--probes"),
    probe_model: Optional[str] = typer.Option(None, "--probe-model"),
    snapshots: bool = typer.Option(False, "--snapshots"),
    max_tokens: int = typer.Option(200, "--max-tokens"),
    as_json: bool = typer.Option(False, "--json"),
    lang: str = typer.Option("en", "--lang", help=LANG_HELP),
) -> None:
    """Take a seat in a Mafia game; the other seats are LLMs."""
    _play("mafia", seat, players, model, others, out, seed,
          _with_lang(_mafia_options(sheriff, day_vote, vote_tie, abstain, rounds, max_rounds), lang),
          probes, probe_model, snapshots, max_tokens, as_json)


def _tournaments() -> None:
    from .cli_tournament import tournament_command

    mafia_app.command("tournament")(tournament_command("mafia"))
    avalon_app.command("tournament")(tournament_command("avalon"))


_tournaments()


def register(app: typer.Typer) -> None:
    app.add_typer(avalon_app, name="avalon")
    app.add_typer(mafia_app, name="mafia")
