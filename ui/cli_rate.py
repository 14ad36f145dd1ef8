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


def _say(line: str) -> None:
    console.print(line, soft_wrap=True, highlight=False, markup=False)


def _print_links(rows: list[dict]) -> None:
    # Plain lines, never folded by a table, so a link can be copied whole.
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        _say(f"{r['name']:<{width}}  {r['done']:>3}/{r['total']} rated, {r['skipped']} skipped  {r['link']}")


@rate_app.command("create")
def create(
    from_: Optional[List[Path]] = typer.Option(None, "--from", help="Run folders (runs/NAME); more may follow as plain arguments."),
    items_file: Optional[Path] = typer.Option(None, "--items", help="Items from a JSON Lines file instead of runs: 'context' "
                                              "and one or two 'candidates' a line, optional 'metadata' (docs/ui.md)."),
    more: Optional[List[Path]] = typer.Argument(None, help="More run folders.", show_default=False),
    out: Path = typer.Option(Path("study.db"), "-o", "--out", help="The study file to write."),
    n: int = typer.Option(60, "--n", help="How many contexts to sample (each gives one item per condition)."),
    include_human: bool = typer.Option(False, "--include-human", help="Add the real GM's next line as the 'human' condition."),
    mode: str = typer.Option("score", "--mode", help="score (1-5 on three factors), ab (pick the better of two), or both."),
    raters: Optional[str] = typer.Option(None, "--raters", help="Comma-separated rater names to add now, e.g. alice,bob."),
    seed: int = typer.Option(0, "--seed"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="The public address raters will reach (e.g. behind a proxy); "
                                           "without it links use the host and port `vgm ui` serves on."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing study file."),
    crowd: Optional[str] = typer.Option(None, "--crowd", help="Open enrollment for a crowd platform: prolific or generic."),
    quota: Optional[int] = typer.Option(None, "--quota", help="With --crowd: how many participants the open link enrolls."),
    completion_code: Optional[str] = typer.Option(None, "--completion-code", help="With --crowd: the code shown after the last item."),
    redirect: Optional[str] = typer.Option(None, "--redirect", help="With --crowd: where the end page sends participants "
                                           "({code} is replaced; Prolific's completion page by default)."),
    enroll_rate: Optional[int] = typer.Option(None, "--enroll-rate", help="With --crowd: new participants a minute the open "
                                              "link takes (default 60; returning ones are never limited)."),
    per_item: Optional[int] = typer.Option(None, "--per-item", help="A design: each item gets exactly K ratings (with --per-rater)."),
    per_rater: Optional[int] = typer.Option(None, "--per-rater", help="A design: each rater gets a random share of M items, "
                                            "plus the attention items; the quota is items x K / M."),
    drop_after: float = typer.Option(60.0, "--drop-after", help="With a design: minutes of silence after which an unfinished "
                                     "rater's open items go to the next newcomers."),
    criteria_file: Optional[Path] = typer.Option(None, "--criteria", help="What raters judge: a YAML file of criteria (id, label, "
                                                 "question, scale with anchors or ab, per language); Tachikuma's three by default."),
    lang: str = typer.Option("en", "--lang", help="The raters' language, from the criteria file (en or zh by default)."),
    attention: int = typer.Option(0, "--attention", help="Attention items to mix in blind (from gold checks; obvious answer)."),
    consent: Optional[Path] = typer.Option(None, "--consent", help="A consent form (Markdown) raters accept before the first item."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Build a blind study from saved MOE runs with GM utterances (+gm pipelines), or from an items file."""
    from eval.ratings import (
        ENROLL_RATE,
        StudyError,
        build_from_items,
        build_study,
        check_rater_names,
        read_criteria,
        crowd_settings,
        read_consent,
    )

    # everything a user can get wrong is checked before a byte is written
    names = check_rater_names([x for x in (raters or "").split(",") if x.strip()])
    if n < 1:
        raise StudyError(f"--n {n}: sample 1 or more contexts")
    if crowd is None:
        for flag, value in (("--quota", quota), ("--completion-code", completion_code), ("--redirect", redirect),
                            ("--enroll-rate", enroll_rate)):
            if value is not None:
                raise StudyError(f"{flag} needs --crowd prolific or --crowd generic (open enrollment)")
    settings = crowd_settings(crowd, quota=quota, completion_code=completion_code, redirect=redirect,
                              enroll_rate=ENROLL_RATE if enroll_rate is None else enroll_rate) if crowd else None
    consent_text = read_consent(consent) if consent is not None else None
    if attention < 0:
        raise StudyError(f"--attention {attention}: give 0 or more attention items")
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise StudyError(f"--base-url {base_url[:80]!r}: give a full address, e.g. https://study.example.org")
    if mode not in ("score", "ab", "both"):
        raise StudyError(f"--mode {mode!r}: use score, ab or both")
    if out.is_dir():
        raise StudyError(f"-o {out} is a folder; give a file name for the study, e.g. -o {out}/study.db")
    if out.exists() and not overwrite:
        raise StudyError(f"{out} already exists; pick another -o path or pass --overwrite")
    criteria = read_criteria(criteria_file) if criteria_file is not None else None
    runs = [*(from_ or []), *(more or [])]
    if items_file is not None:
        if runs:
            raise StudyError("give --from RUN... or --items FILE.jsonl, not both")
        for flag, value in (("--attention", attention), ("--include-human", include_human)):
            if value:
                raise StudyError(f"{flag} needs --from runs (it is built from their data); an items file brings its own lines")
        study, _, summary = build_from_items(
            items_file, out, mode=mode, seed=seed, overwrite=overwrite, crowd=settings, consent=consent_text,
            base_url=base_url, per_item=per_item, per_rater=per_rater, drop_after=drop_after, criteria=criteria, lang=lang)
    else:
        if not runs:
            raise StudyError("give run folders with --from runs/NAME (or an items file with --items FILE.jsonl)")
        study, _, summary = build_study(
            runs, out, n=n, include_human=include_human, mode=mode, seed=seed, overwrite=overwrite,
            attention=attention, crowd=settings, consent=consent_text, base_url=base_url,
            per_item=per_item, per_rater=per_rater, drop_after=drop_after, criteria=criteria, lang=lang,
        )
    admin = study.owner()
    for name in names:
        admin.add_rater(name)
    links = study.links()
    rows = links["raters"]
    result = {
        "study": str(summary.path), "contexts": summary.contexts, "items": summary.items, "mode": summary.mode,
        "conditions": summary.conditions, "skipped_runs": summary.skipped_runs, "attention_items": summary.attention,
        "admin_link": links["admin"], "raters": [{"name": r["name"], "link": r["link"]} for r in rows],
        "enroll_link": links["enroll"], "enroll_link_with_ids": links["enroll_with_ids"],
        "crowd": None if settings is None else {"platform": settings.platform, "quota": settings.quota,
                                                "completion_code": settings.completion_code, "redirect": settings.redirect},
        "consent": consent_text is not None,
        "design": None if summary.design is None else {"per_item": summary.design.per_item, "per_rater": summary.design.per_rater,
                                                       "quota": summary.quota, "drop_after_minutes": drop_after},
    }
    if as_json:
        typer.echo(json.dumps(result, indent=1))
        return
    items = f"{summary.items} {summary.mode} items" + (f" ({summary.attention} of them attention items)" if summary.attention else "")
    console.print(f"[bold]{summary.path}[/]: {summary.contexts} contexts, {items}, conditions: {', '.join(summary.conditions)}")
    for name, why in summary.skipped_runs.items():
        console.print(f"[yellow]left out {name}[/]: {why}")
    if settings is not None:
        quota_text = (f"up to {settings.quota} participants" if settings.quota else
                      "until every item has its raters" if summary.design else "no quota")
        _say(f"open enrollment ({settings.platform}): {quota_text}, at most {settings.enroll_rate} new a minute; completion code {settings.completion_code or '-'}; "
             f"end page sends them to {settings.redirect or '(nowhere: they close the page)'}")
    if summary.design is not None:
        plan = summary.design
        _say(f"design: each item {plan.per_item} ratings, each rater {plan.per_rater} items"
             + (f" + {summary.attention} attention" if summary.attention else "")
             + f"; quota {summary.quota} participants ({summary.items - summary.attention} x {plan.per_item} / {plan.per_rater}); "
             f"raters silent {drop_after:g} min give their open items to newcomers")
    if consent_text is not None:
        _say(f"consent form: {consent} (asked before the first item)")
    _say(f"admin link (keep it private): {links['admin']}")
    if links["enroll"]:
        _say(f"enrollment link: {links['enroll']}")
    if rows:
        _print_links(rows)
    where = "" if base_url else " (links use 127.0.0.1:7860 until then; it prints them for the port it serves)"
    console.print(f"serve it with: vgm ui --study {summary.path}{where}", highlight=False)


@rate_app.command("add-rater")
def add_rater(
    study_path: Path = typer.Argument(..., help="The study file."),
    names: List[str] = typer.Argument(..., help="One or more rater names."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="Address for the links (default: the study's, or where `vgm ui` served it)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Add raters and print each one's personal link."""
    from eval.ratings import Study

    study = Study.open(study_path)
    admin = study.owner()
    added = [admin.add_rater(name) for name in names]
    base = study.base_url(base_url)
    rows = [{"name": r.name, "link": f"{base}/?token={r.token}"} for r in added]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    for r in rows:
        _say(f"{r['name']}: {r['link']}")


@rate_app.command("links")
def links(
    study_path: Path = typer.Argument(..., help="The study file."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="Address for the links (default: the study's, or where `vgm ui` served it)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Every rater's link and progress, the admin link and the open enrollment link."""
    from eval.ratings import Study

    study = Study.open(study_path)
    links = study.links(base_url)
    rows = links["raters"]
    if as_json:
        typer.echo(json.dumps({"admin_link": links["admin"], "enroll_link": links["enroll"],
                               "enroll_link_with_ids": links["enroll_with_ids"], "raters": rows}, indent=1))
        return
    _say(f"admin link: {links['admin']}")
    if links["enroll"]:
        _say(f"enrollment link ({links['platform']}): {links['enroll']}")
    _print_links(rows)


@rate_app.command("report")
def report(
    study_path: Path = typer.Argument(..., help="The study file."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Write every rating as CSV here."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write the bar chart (PNG) here."),
    exclude_failed_attention: bool = typer.Option(False, "--exclude-failed-attention",
                                                  help="Leave raters who failed an attention item out of the statistics."),
    too_fast: float = typer.Option(3.0, "--too-fast", help="Flag raters whose median seconds per item is below this."),
    exclude_too_fast: bool = typer.Option(False, "--exclude-too-fast", help="Leave the too-fast raters out of the statistics."),
    control: Optional[str] = typer.Option(None, "--control", help="Bradley-Terry with a covariate: length (raters are known "
                                          "to reward longer lines)."),
    bootstrap: int = typer.Option(200, "--bootstrap", help="Resamples of the A/B battles behind the Bradley-Terry 95% intervals."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Mean per condition and factor with 95% CIs, Krippendorff's alpha, Bradley-Terry scores; per rater:
    median time per item, attention pass rate, flags."""
    from eval.ratings import (
        Study,
        StudyError,
        check_output,
        export_csv,
        plot_report,
        study_report,
    )

    admin = Study.open(study_path).owner()
    for what, path in (("CSV file", csv), ("plot file", plot)):
        if path:
            check_output(path, what)  # before any work: a bad path is one line, not a half-done report
    if not (too_fast >= 0 and too_fast < 1e6):
        raise StudyError(f"--too-fast {too_fast}: give a number of seconds, e.g. --too-fast 3")
    if not 0 <= bootstrap <= 100_000:
        raise StudyError(f"--bootstrap {bootstrap}: give 0 (no intervals) up to 100000 resamples, e.g. 200")
    rep = study_report(admin, exclude_failed_attention=exclude_failed_attention, too_fast=too_fast,
                       exclude_too_fast=exclude_too_fast, control=control, bootstrap=bootstrap)
    if csv:
        export_csv(admin, csv)
    if plot:
        plot_report(rep, plot)
    coverage = admin.coverage()
    if as_json:
        from eval.ratings import judge_agreement, judge_models

        judges = [judge_agreement(admin, m, rep.alpha).to_dict() for m in judge_models(admin.study)]
        typer.echo(json.dumps({**rep.to_dict(), **({"coverage": coverage} if coverage else {}),
                               **({"judges": judges} if judges else {})}, indent=1))
        return
    labels = {c.id: c.label for c in rep.criteria}
    console.print(f"[bold]{rep.name}[/]: {rep.ratings} ratings, {rep.choices} A/B choices, {rep.raters} raters"
                  + (f" ({len(rep.excluded)} left out)" if rep.excluded else ""))
    if rep.ratings or not rep.choices:  # an A/B-only study has no scores to tabulate
        table = Table(title="mean score per condition, 95% CI (bootstrap over contexts)")
        table.add_column("condition")
        for c in rep.criteria:
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
        for c in rep.criteria:
            pt.add_column(c.label, justify="right")
        for cond, tests in rep.paired.items():
            cells = [f"{t['diff']:+.2f} [{t['low']:+.2f}, {t['high']:+.2f}] p={t['p_value']:.3g}" if (t := tests.get(c.id)) else "-"
                     for c in rep.criteria]
            pt.add_row(cond, *cells)
        console.print(pt)
    if rep.bradley_terry:
        how = f"bootstrap 95% CI over {bootstrap} resamples" if bootstrap else "95% CI from the Hessian"
        control_text = ", length-controlled" if rep.control == "length" else ""
        bt = Table(title=f"Bradley-Terry (A/B choices; log-odds, centred{control_text}; {how})")
        for col in ("condition", "score", "95% CI", "wins", "comparisons"):
            bt.add_column(col, justify="right" if col != "condition" else "left")
        for b in rep.bradley_terry:
            low, high = b.interval()
            bt.add_row(b.condition, f"{b.score:+.2f}", f"[{low:+.2f}, {high:+.2f}]", f"{b.wins:g}", str(b.comparisons))
        console.print(bt)
        answers = rep.ab_answers
        _say(f"A/B answers: A {answers.get('a', 0)}, B {answers.get('b', 0)}, tie {answers.get('tie', 0)}, "
             f"both bad {answers.get('both_bad', 0)} (a tie or 'both bad' is half a win each way)")
        if rep.length_effect is not None:
            e = rep.length_effect
            ci = "" if e.low is None else f" [{e.low:+.2f}, {e.high:+.2f}]"
            _say(f"length effect: {e.coefficient:+.2f}{ci} log-odds per unit of length lead (a - b) / (a + b); "
                 "positive means raters favour the longer line")
    _print_rater_stats(rep)
    if coverage:
        _print_coverage(coverage)
    _print_judges(admin, rep)
    for what, path in (("CSV", csv), ("plot", plot)):
        if path:
            console.print(f"{what}: {path}")


@rate_app.command("judge")
def judge(
    study_path: Path = typer.Argument(..., help="The study file."),
    model: str = typer.Option(..., "--model", help="The judge: local, local:small, openai:<model>, scripted:<file>."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Judge only the first N items (by id)."),
    concurrency: int = typer.Option(2, "--concurrency", help="Requests in flight at once."),
) -> None:
    """A model rates the study's items on the same criteria, held to the scale; `vgm rate report` then
    shows its agreement with the humans. Answers are saved as they come; a second run resumes."""
    from eval.ratings import Study, StudyError, judge_study

    if limit is not None and limit < 1:
        raise StudyError(f"--limit {limit}: give 1 or more items")
    study = Study.open(study_path)
    run = judge_study(study, model, limit=limit, concurrency=concurrency,
                      progress=lambda done, total: console.print(f"judged {done}/{total}", end="\r", highlight=False))
    _say(f"{model}: {run.judged} items judged in {run.seconds:.0f} s ({run.resumed} already done, {run.unreadable} unreadable "
         f"answers); see `vgm rate report {study_path}`")


def _print_judges(admin, rep) -> list[dict]:
    """Each model judge's agreement with the humans, next to the humans' own; returns them for --json."""
    from eval.ratings import judge_agreement, judge_models

    out = []
    for model in judge_models(admin.study):
        agree = judge_agreement(admin, model, rep.alpha)
        out.append(agree.to_dict())
        fmt = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
        cells = [f"{c.label}: judge alpha {fmt(agree.criteria[c.id]['judge_alpha'])}, Spearman "
                 f"{fmt(agree.criteria[c.id]['spearman'])} (n {agree.criteria[c.id]['n']}"
                 + (f"; {agree.criteria[c.id]['note']}" if agree.criteria[c.id]["note"] else "") + "); humans alpha "
                 f"{fmt(agree.criteria[c.id]['human_alpha'])}" for c in rep.criteria if c.id in agree.criteria]
        ab = f"; A/B: picks the humans' majority on {agree.ab_agree:.0%} of {agree.ab_items}" if agree.ab_items else ""
        _say(f"judge {model} vs the humans' median ({agree.items} items, {agree.unreadable} unreadable): "
             + "; ".join(cells) + ab)
    return out


def _print_coverage(cov: dict) -> None:
    """A design study's coverage: how many items have all K ratings, how the rest stand, what was reassigned."""
    spread = ", ".join(f"{n} item{'s' if n != 1 else ''} with {k}" for k, n in cov["rated"].items())
    _say(f"coverage (each item {cov['per_item']} ratings, each rater {cov['per_rater']} items, quota {cov['quota']}): "
         f"{cov['complete']}/{cov['items']} items complete; ratings per item: {spread}; over {cov['per_item']}: {cov['over']}; "
         f"{cov['reassigned']} items reassigned from {cov['dropped_raters']} dropped rater(s)")
    if cov["items_below"]:
        _say("items still short of their ratings: " + ", ".join(map(str, cov["items_below"][:20]))
             + (" ..." if len(cov["items_below"]) > 20 else ""))


def _print_rater_stats(rep) -> None:
    """Per rater: answers, median seconds per item, attention passed, flags; then what the exclusion options would do."""
    if not rep.rater_stats:
        return
    crowd = any(r.participant_id for r in rep.rater_stats)
    table = Table(title=f"raters (too fast: median under {rep.too_fast_seconds:g} s per item)")
    for col in ("rater", *(["participant"] if crowd else []), "rated", "median s/item", "attention passed", "flags"):
        table.add_column(col, justify="left" if col in ("rater", "participant", "flags") else "right",
                         no_wrap=col in ("rater", "participant"), min_width=24 if col == "participant" else None)
    for r in rep.rater_stats:
        rate = "-" if not r.attention_answered else f"{r.attention_passed}/{r.attention_answered} ({100 * r.attention_pass_rate:.0f}%)"
        flags = ", ".join(f for f, on in (("failed attention", r.failed_attention), ("too fast", r.too_fast),
                                           ("completed", r.completed), ("left out", r.excluded)) if on)
        table.add_row(r.rater, *([r.participant_id or "-"] if crowd else []), str(r.answered),
                      "-" if r.median_seconds is None else f"{r.median_seconds:.1f}", rate, flags or "-")
    console.print(table)
    if rep.attention_items:
        answered = [r for r in rep.rater_stats if r.attention_answered]
        passed = sum(r.attention_passed for r in answered)
        total = sum(r.attention_answered for r in answered)
        overall = f"{passed}/{total} attention answers passed" if total else "no attention item answered yet"
        failed = rep.failed_attention
        if rep.exclude_failed_attention:
            console.print(f"attention items: {rep.attention_items}; {overall}; left out of the statistics: "
                          f"{', '.join(failed) or 'nobody'} (--exclude-failed-attention)", highlight=False, soft_wrap=True)
        else:
            hint = "; add --exclude-failed-attention to leave them out" if failed else ""
            console.print(f"attention items: {rep.attention_items}; {overall}; failed: {', '.join(failed) or 'nobody'}{hint}",
                          highlight=False, soft_wrap=True)


def ui(
    study: Optional[Path] = typer.Option(None, "--study", help="Serve this rating study in the Rate tab."),
    runs: Path = typer.Option(Path("runs"), "--runs", help="Folder of MOE runs for the Compare tab."),
    logs: Optional[Path] = typer.Option(None, "--logs", help="Folder of game/probe logs for the Beliefs tab."),
    model: Optional[str] = typer.Option(None, "--model", help="Model for the Play tab (default: VGM_MODEL or local)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (loopback by default)."),
    port: int = typer.Option(7860, "--port"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="The public address of this server (e.g. behind a proxy), for the printed links."),
) -> None:
    """Serve the web app (Rate, Play, Compare, Beliefs) on 127.0.0.1; with --study, print its admin and enrollment links."""
    from ui.web import serve

    serve(host=host, port=port, study=study, runs_dir=runs, logs_dir=logs, model=model, announce=_say, base_url=base_url)


def register(app: typer.Typer) -> None:
    app.add_typer(rate_app, name="rate")
    app.command("ui")(ui)
