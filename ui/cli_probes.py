"""``vgm mafia score|fork`` (and ``vgm avalon score``) and ``vgm probes show|check|compare``.

Thin: each command calls one library function (``eval.beliefs``, ``pipelines.probes``) and prints
rich tables, or JSON with ``--json``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from eval.cluster import ClusterGuard, base_url_option, cluster_option, endpoint_concurrency_option, ray_address_option

console = Console()
probes_app = typer.Typer(cls=ClusterGuard, help="Private belief probes: show and check probe sets, compare probe logs.", no_args_is_help=True)


def _pct(x: Optional[float]) -> str:
    return "–" if x is None else f"{x:.1%}"


def _num(x: Optional[float], digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _ci(fig: dict[str, Any], pct: bool = True) -> str:
    ci = fig.get("ci")
    if not ci:
        return ""
    f = _pct if pct else _num
    return f"[{f(ci[0])}, {f(ci[1])}]"


def print_belief_report(r: dict[str, Any]) -> None:
    """The whole report as rich tables (one per figure family)."""
    console.print(f"[bold]{r['games']} games[/bold] ({', '.join(f'{k}: {v}' for k, v in r['sources'].items())}), "
                  f"{r['probe_answers']} probe answers; winners {r['winners']}; 95% CIs: cluster bootstrap over games, "
                  f"B={r['bootstrap']['B']}, seed {r['bootstrap']['seed']}")

    t = Table(title="Parse rate per probe")
    for c in ("probe", "answers", "parsed", "parsed as sent", "repaired (prefix)"):
        t.add_column(c, justify="right" if c != "probe" else "left")
    for pid, x in r["parse_rate"].items():
        t.add_row(pid, str(x["n"]), _pct(x["parse_rate"]), _pct(x["parsed_without_repair"]), str(x["repaired"]))
    console.print(t)

    t = Table(title="First order (villager side): committed accuracy and Mafia recall by round")
    for c in ("round", "committed", "accuracy", "95% CI", "chance", "Unknown", "recall", "95% CI", "chance"):
        t.add_column(c, justify="right")
    for x in r["first_order_by_round"]:
        t.add_row(str(x["round"]), str(x["accuracy"]["n_committed"]), _pct(x["accuracy"]["value"]), _ci(x["accuracy"]),
                  _pct(x["accuracy_chance"]), _pct(x["unknown_share"]), _pct(x["mafia_recall"]["value"]),
                  _ci(x["mafia_recall"]), _pct(x["recall_chance"]))
    fo, rc = r["first_order_accuracy"], r["mafia_recall"]
    t.add_row("all", str(fo["n_committed"]), _pct(fo["value"]), _ci(fo), _pct(fo["chance"]), "", _pct(rc["value"]), _ci(rc), _pct(rc["chance"]))
    console.print(t)

    t = Table(title=f"Calibration: ECE {_num(r['ece']['value'])} {_ci(r['ece'], False)}, "
                    f"Brier {_num(r['brier']['value'])} {_ci(r['brier'], False)} (n={r['ece']['n']})")
    for c in ("confidence", "n", "accuracy", "mean confidence", "gap"):
        t.add_column(c, justify="right")
    for b in r["calibration_bins"]:
        gap = None if b["accuracy"] is None else b["mean_confidence"] - b["accuracy"]
        t.add_row(b["bin"], str(b["n"]), _pct(b["accuracy"]), _pct(b["mean_confidence"]), _pct(gap))
    console.print(t)

    t = Table(title="Second order: social map vs the target's same-step role guess (Mafia-Mafia pairs excluded)")
    for c in ("figure", "value", "95% CI", "pairs"):
        t.add_column(c, justify="right" if c != "figure" else "left")
    op = r["overprediction_ratio"]
    t.add_row("over-prediction ratio of 'suspects' (T=50)", _num(op["value"], 2), _ci(op, False), str(op["n"]))
    for side, x in r["overprediction_by_role"].items():
        t.add_row(f"  predictor {side.replace('_', '-')}", _num(x["value"], 2), _ci(x, False), str(x["n"]))
    for side, x in r["overprediction_confident_own"].items():
        t.add_row(f"  {side.replace('_', '-')}, own guess ≥ 70", _num(x["value"], 2), _ci(x, False), str(x["n"]))
    ag = r["agreement"]
    t.add_row("agreement", _pct(ag["value"]), _ci(ag), str(ag["n"]))
    t.add_row("majority baseline", _pct(ag["majority_baseline"]), "", "")
    for side, x in r["agreement_by_role"].items():
        t.add_row(f"  agreement, predictor {side.replace('_', '-')} (baseline {_pct(x['majority_baseline'])})", _pct(x["value"]), _ci(x), str(x["n"]))
    t.add_row("agreement − baseline", _pct(r["agreement_gain"]["value"]), _ci(r["agreement_gain"]), "")
    console.print(t)

    t = Table(title="Threshold sweep (role guess → attitude)")
    for c in ("threshold", "over-prediction", "95% CI", "agreement", "majority baseline", "majority class"):
        t.add_column(c, justify="right")
    for x in r["threshold_sweep"]:
        t.add_row(str(x["threshold"]), _num(x["overprediction_ratio"]["value"], 2), _ci(x["overprediction_ratio"], False),
                  _pct(x["agreement"]), _pct(x["majority_baseline"]), str(x["majority_class"]))
    console.print(t)

    t = Table(title="Vote coupling (probes before the vote)")
    for c in ("voters", "vote on top suspect", "95% CI", "chance", "n", "in committed-Mafia set", "chance", "n", "after vote: top"):
        t.add_column(c, justify="right")
    for side, x in r["vote_coupling"].items():
        ts, cs, pv = x["top_suspect"], x["committed_set"], x["after_vote_top_suspect"]
        t.add_row(side, _pct(ts["value"]), _ci(ts), _pct(ts["chance"]), str(ts["n"]), _pct(cs["value"]), _pct(cs["chance"]),
                  str(cs["n"]), _pct(pv["value"]))
    console.print(t)

    t = Table(title="Belief dynamics (consecutive suspicion rankings of one seat)")
    for c in ("figure", "value", "95% CI", "n"):
        t.add_column(c, justify="right" if c != "figure" else "left")
    v = r["volatility"]
    t.add_row("volatility (mean L1, common support)", _num(v["value"]), _ci(v, False), str(v["n"]))
    for side, x in r["volatility_by_side"].items():
        t.add_row(f"  {side.replace('_', '-')}", _num(x["value"]), _ci(x, False), str(x["n"]))
    t.add_row("top-suspect flip rate (death-forced excluded)", _pct(r["flip_rate"]["value"]), _ci(r["flip_rate"]), str(r["flip_rate"]["n"]))
    t.add_row("return rate (flips back to an abandoned suspect)", _pct(r["return_rate"]["value"]), _ci(r["return_rate"]), str(r["return_rate"]["n"]))
    console.print(t)

    pa = r.get("plan_follow_through")
    if pa and pa["n"]:
        console.print(f"Planned action: the day vote follows the seat's latest vote plan of that day {_pct(pa['value'])} {_ci(pa)} "
                      f"(chance {_pct(pa['chance'])}, n={pa['n']})")
    if r.get("role_beliefs"):
        rb = r["role_beliefs"]
        tp, br, top = rb["true_role_probability"], rb["brier"], rb["top_role_accuracy"]
        console.print(f"Role beliefs (distributions, villager side): probability on the true role {_pct(tp['value'])} {_ci(tp)} "
                      f"(base rate {_pct(tp['chance'])}); multi-class Brier {_num(br['value'])} {_ci(br, False)} "
                      f"(base rate {_num(br['base_rate'])}); top role right {_pct(top['value'])} (n={tp['n']})")
    if r.get("personality_mae"):
        pm = r["personality_mae"]
        console.print(f"Big Five attribution: mean absolute error {_num(pm['value'], 1)} {_ci(pm, False)} points "
                      f"(n={pm['n']} trait ratings; always guessing 50: {_num(pm['baseline_always_50'], 1)})")
    if r.get("speech_by_game"):
        print_speech_report(r)
    if r.get("unscored_probes"):
        console.print(f"[yellow]not scored[/yellow] (answered, but nothing in these logs grades them): {', '.join(r['unscored_probes'])}")
    c = r["cost"]
    line = f"cost: {c['probe_calls']} probe calls ({c['probe_calls_per_game']:.0f}/game)"
    line += f", {c['probe_tokens']} tokens" if c["probe_tokens"] else " (the log has no token counts)"
    if c.get("tokens_per_call"):
        line += f" ({c['tokens_per_call']:.0f}/call)"
    if c.get("traffic_multiplier"):
        line += f"; {c['game_calls_per_game']:.0f} game moves/game → traffic × {c['traffic_multiplier']:.1f}"
    console.print(line)
    for p in r.get("plots", []):
        console.print(f"plot: {p}")


def print_speech_report(r: dict[str, Any]) -> None:
    """Distinct speech and vote/talk consistency, per game and pooled."""
    ds, vt = r["distinct_speech_rate"], r["vote_talk_consistency"]
    t = Table(title=f"Public speech (near-duplicate: MiniLM likeness ≥ {ds['threshold']} to an earlier speech; "
                    "consistent: the vote names a player the voter accused that day)")
    for c in ("game", "speeches", "distinct", "re-asked", "votes", "consistent", "chance"):
        t.add_column(c, justify="left" if c == "game" else "right")
    for g in r["speech_by_game"]:
        t.add_row(g["game_id"], str(g["speeches"]), f"{g['distinct']} ({_pct(g['distinct_speech_rate'])})", str(g["reasks"]),
                  str(g["votes_scored"]), f"{g['consistent']} ({_pct(g['vote_talk_consistency'])})", _pct(g["consistency_chance"]))
    t.add_row("all", str(ds["n"]), f"{_pct(ds['value'])} {_ci(ds)}", "", str(vt["n"]), f"{_pct(vt['value'])} {_ci(vt)}", _pct(vt["chance"]))
    console.print(t)


def _score(path: Path, as_json: bool, plots: Optional[Path], b: int, seed: int) -> None:
    from eval.beliefs import score_path
    from rulesets import VgmError

    if b < 1:
        raise VgmError(f"--bootstrap {b}: give 1 or more resamples (1000 is the default)")
    if plots is not None and plots.exists() and not plots.is_dir():
        raise VgmError(f"--plots {plots} is a file; give a folder for the PNG plots")
    plots = plots or Path("runs/beliefs") / (path.resolve().name or "report")
    report = score_path(path, b=b, seed=seed, plots=plots)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        print_belief_report(report)


def score_command(
    path: Path = typer.Argument(..., help="a folder of games (MafiaScope <game>/game.jsonl + introspection.jsonl, or ours: <game>.jsonl + <game>.probes.jsonl)"),
    as_json: bool = typer.Option(False, "--json", help="print every figure as JSON"),
    plots: Optional[Path] = typer.Option(None, "--plots", help="folder for the PNG plots (default runs/beliefs/<folder name>)"),
    b: int = typer.Option(1000, "--bootstrap", "-B", help="bootstrap resamples (games are resampled whole)"),
    seed: int = typer.Option(20260729, "--seed", help="bootstrap seed"),
) -> None:
    """Score private-belief probes: first-order accuracy, calibration, second order, vote coupling, dynamics."""
    _score(path, as_json, plots, b, seed)


def _print_comparison(report: dict[str, Any]) -> None:
    """Both arms' outcome shares side by side, the difference POST − PRE with its CI, and Fisher's p."""
    post, pre = report["arms"]["post"], report["arms"]["pre"]
    console.print(f"[bold]{post['n']} + {pre['n']} forks of {report['parent']} at R{report['at'][0]}.{report['at'][1]}[/bold] "
                  f"(POST: the step kept; PRE: the step re-drawn)")
    for field, title in (("winner", "winner"), ("first_elimination", "first elimination after the fork")):
        t = Table(title=title)
        for c in ("outcome", "POST [95% CI]", "PRE [95% CI]", "POST − PRE [95% CI]", "Fisher p"):
            t.add_column(c, justify="left" if c == "outcome" else "right")
        for row in report["comparison"][field]:
            a, b = row["post"], row["pre"]
            diff = f"{row['difference']:+.1%} {_ci({'ci': row['difference_ci95']})}" if row["difference"] is not None else "–"
            t.add_row(row["outcome"], f"{a['k']}/{a['n']} {_pct(a['rate'])} {_ci({'ci': a['ci95']})}",
                      f"{b['k']}/{b['n']} {_pct(b['rate'])} {_ci({'ci': b['ci95']})}", diff, _num(row["fisher_p"]))
        console.print(t)
    console.print(report["note"])


def fork_command(
    log: Path = typer.Argument(..., help="a game log recorded with --snapshots (<game>.jsonl)"),
    at: str = typer.Option(..., "--at", help="branch point ROUND.SEQ, e.g. 1.7"),
    n: int = typer.Option(5, "--n", help="number of re-simulations"),
    before: bool = typer.Option(False, "--before", help="branch just before the step (it is re-drawn) instead of after"),
    compare: bool = typer.Option(False, "--compare", help="run both arms (PRE: the step re-drawn, POST: kept), N forks each, and compare them: Wilson CIs, the difference with its CI, Fisher's exact p"),
    probes: Optional[str] = typer.Option(None, "--probes", help="probe set to run in each fork (cheap keeps it affordable)"),
    model: Optional[str] = typer.Option(None, "--model", help="model for every LLM seat (default: the recorded ones)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="folder for fork logs (default <log folder>/forks)"),
    seed: int = typer.Option(1, "--seed", help="fork i reseeds its randomness with seed+i"),
    edit: Optional[Path] = typer.Option(None, "--edit", help="YAML of edits at the branch point: utterance rewrites, forced votes and night actions, injected beliefs (docs/social.md); with --compare, against the unedited forks"),
    repeats: int = typer.Option(1, "--repeats", help="with --compare: R runs of --n forks per arm; the tables add each arm's spread over the runs"),
    as_json: bool = typer.Option(False, "--json"),
    cluster: Optional[str] = cluster_option(),
    ray_address: Optional[str] = ray_address_option(),
    base_url: Optional[list[str]] = base_url_option(),
    endpoint_concurrency: Optional[int] = endpoint_concurrency_option(),
) -> None:
    """Counterfactual replay: re-simulate a game N times from one step; prints the outcome distribution."""
    import asyncio

    from eval.beliefs import fork_game
    from eval.cluster import from_cli
    from gm.social.events import parse_key
    from rulesets import VgmError

    spec = from_cli("mafia fork", cluster, ray_address, base_url, endpoint_concurrency)
    if compare and before:
        raise VgmError("--compare runs both arms (PRE and POST); leave out --before")
    if edit is not None or repeats != 1:  # edited forks and repeated arms: ui/cli_fork_edit.py
        from ui.cli_fork_edit import run_fork

        if spec is not None or before or (edit is None and not compare):
            raise VgmError("--edit and --repeats run here, without --cluster or --before; --repeats needs --compare or --edit")
        return run_fork(log, at, n, edit, compare, repeats, probes, model, out, seed, as_json)

    def one_arm(arm_before: bool) -> dict:
        if spec is not None:  # --cluster ray: one fork per shard; this process writes the fork logs
            from eval.cluster import fork

            return fork(log, parse_key(at), n, spec=spec, out_dir=out, before=arm_before, probes=probes, model=model, seed=seed,
                        show_progress=True, transient=as_json)
        return asyncio.run(fork_game(log, parse_key(at), n, out_dir=out, before=arm_before, probes=probes, model=model, seed=seed))

    if compare:
        from eval.beliefs import with_comparison

        report = with_comparison(one_arm(False), one_arm(True))
        if as_json:
            typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
        else:
            _print_comparison(report)
        return
    report = one_arm(before)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=1))
        return
    console.print(f"[bold]{report['n']} forks of {report['parent']} at R{report['at'][0]}.{report['at'][1]}[/bold] ({report['arm']} arm)")
    for title, dist in (("winner", report["winners"]), ("first elimination after the fork", report["first_elimination"])):
        t = Table(title=title)
        t.add_column(title)
        t.add_column("share", justify="right")
        for k, v in dist.items():
            t.add_row(k, _pct(v))
        console.print(t)
    for f in report["forks"]:
        console.print(f"  {f['game_id']}: {f['winner']} after {f['rounds']} rounds → {f['log']}")


@probes_app.command("show")
def probes_show(
    spec: str = typer.Argument("default", help="a built-in set (default, cheap) or a YAML file"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List a probe set's probes: when each fires, its budget, its answer shape and its chains."""
    from pipelines.probes import load_probe_set

    s = load_probe_set(spec)
    if as_json:
        typer.echo(s.model_dump_json(indent=1))
        return
    t = Table(title=f"probe set {s.name}: {s.description.strip()}")
    for c in ("id", "when", "max_tokens", "answer", "chains"):
        t.add_column(c)
    for p in s.probes:
        t.add_row(p.id, ", ".join(p.when), str(p.max_tokens), p.answer, ", ".join(f"{k}_{i}" for k, i in p.chains()))
    console.print(t)


@probes_app.command("check")
def probes_check(
    file: Path = typer.Argument(..., help="a probe set YAML file (or a built-in set: default, cheap, avalon)"),
    game: Optional[str] = typer.Option(None, "--game", help="mafia | avalon: also flag every probe that game's logs cannot score"),
    personas: bool = typer.Option(False, "--personas", help="the games run with --personas (the personality probe is graded against them)"),
) -> None:
    """Validate a probe set (placeholders, chains, shapes); errors name the probe. With --game, one line
    per probe whose answers `vgm <game> score` could not grade."""
    from pipelines.probes import load_probe_set

    s = load_probe_set(file)
    console.print(f"{file}: ok, {len(s.probes)} probes ({', '.join(s.ids())})")
    if game is not None:
        problems = s.scoring_problems(game, personas=personas)
        if problems:
            typer.echo(f"{file}: {len(problems)} of {len(s.probes)} probes cannot be scored on {game} logs{' with personas' if personas else ''}:")
        for problem in problems:
            typer.echo(f"{file}: {problem}")


@probes_app.command("compare")
def probes_compare(
    a: Path = typer.Argument(..., help="probe log A (e.g. one call per probe)"),
    b: Path = typer.Argument(..., help="probe log B of the same game (e.g. batched)"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Compare two probe logs of the same game states: answer agreement and cost."""
    from eval.beliefs import compare_paths

    r = compare_paths(a, b)
    if as_json:
        typer.echo(json.dumps(r, ensure_ascii=False, indent=1))
        return
    t = Table(title=f"{a.name} vs {b.name}: {r['matched_answers']} matched answers")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_row("role guess agreement", f"{_pct(r['role_agreement'])} ({r['role_pairs']} pairs)")
    t.add_row("mean |Δ confidence|", _num(r["confidence_abs_diff"], 1))
    t.add_row("top-suspect agreement", f"{_pct(r['top_suspect_agreement'])} ({r['suspicion_pairs']} pairs)")
    t.add_row("suspicion L1 distance", _num(r["suspicion_l1"]))
    t.add_row("social-map attitude agreement", f"{_pct(r['social_map_agreement'])} ({r['social_pairs']} pairs)")
    for side in ("a", "b"):
        x = r[side]
        t.add_row(f"{side}: calls / tokens / parse rate", f"{x['calls']} / {x['tokens']} / {_pct(x['parse_rate'])}")
    console.print(t)


def register(app: typer.Typer) -> None:
    try:
        from ui.cli_social import avalon_app, mafia_app
    except ModuleNotFoundError as exc:
        if exc.name != "ui.cli_social":
            raise
        mafia_app = typer.Typer(help="Mafia: score probed games, fork recorded games.", no_args_is_help=True)
        avalon_app = None
        app.add_typer(mafia_app, name="mafia")
    mafia_app.command("score")(score_command)
    mafia_app.command("fork")(fork_command)
    if avalon_app is not None:
        avalon_app.command("score")(score_command)
        avalon_app.command("fork")(fork_command)
    app.add_typer(probes_app, name="probes")
