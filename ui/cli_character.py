"""``vgm character new``: make a character of any of the four games, step by step or in one line, as a YAML sheet.

    vgm character new                                  # asks for each choice
    vgm character new --name "Wren Ashdown" --class ranger --background wanderer \\
        --method pointbuy --scores STR=10,DEX=15,CON=14,INT=8,WIS=14,CHA=10 --bonus DEX+2,WIS+1 -o wren.yaml

With --name, --class, --background, --method and --scores all given nothing is asked (skills
and expertise then default to the character's best abilities); otherwise each missing choice is
asked, and a wrong answer is said in one line and asked again. ``-r coc7e|pf2e|swade`` asks
only the name and the occupation / class / archetype. The rules are in ``gm.character_builder``
(dnd5e) and ``gm.character_new`` (the others); this module only asks and prints.
"""
from __future__ import annotations

import re
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rulesets import VgmError

console = Console(highlight=False)


def _ask(question: str, check, default: str | None = None):
    """Ask until ``check(answer)`` returns without a ``VgmError``; its one line is shown each time."""
    while True:
        answer = typer.prompt(question, default=default) if default is not None else typer.prompt(question)
        try:
            return check(answer)
        except VgmError as exc:
            console.print(f"[red]{escape(str(exc))}[/]")


def _named(text: str) -> str:
    from gm.systems import CharacterError

    if not text.strip():
        raise CharacterError("a character needs a name")
    return " ".join(text.split())


def _method(text: str) -> str:
    from gm.systems import CharacterError

    key = re.sub(r"[^a-z]", "", text.lower())
    if key in ("standard", "standardarray", "array", "s"):
        return "standard"
    if key in ("pointbuy", "points", "point", "p"):
        return "pointbuy"
    raise CharacterError("answer standard (the array 15, 14, 13, 12, 10, 8) or pointbuy (27 points)")


def _show_classes(book) -> None:
    table = Table(title="classes (SRD 5.1)", title_justify="left", show_edge=False)
    for col in ("class", "hit die", "saves", "skills", "starting kit"):
        table.add_column(col)
    for cid, c in book.classes.items():
        skills = "any" if c.skills.from_ == "any" else ", ".join(c.skills.from_)
        table.add_row(cid, f"d{c.hit_die}", " ".join(c.saves), f"{c.skills.choose} of: {skills}", c.kit)
    console.print(table)


def _show_backgrounds(book) -> None:
    table = Table(title="backgrounds", title_justify="left", show_edge=False)
    for col in ("background", "skills", "who"):
        table.add_column(col)
    for bid, b in book.backgrounds.items():
        table.add_row(bid, ", ".join(b.skills), b.about)
    console.print(table)


def _ask_scores(pack, method: str) -> dict[str, int]:
    """Standard array: place each value; point buy: a score per ability within the points left."""
    from gm.character_builder import (
        ABBR,
        ORDER,
        POINT_BUY_BUDGET,
        POINT_COST,
        STANDARD_ARRAY,
        check_scores,
    )
    from gm.systems import CharacterError

    scores: dict[str, int] = {}
    if method == "standard":
        left = list(STANDARD_ARRAY)
        for ability in ORDER:
            if len(left) == 1:
                scores[ability] = left.pop()
                console.print(f"{ABBR[ability]} gets the last value, {scores[ability]}")
                continue

            def place(text: str, ability=ability) -> int:
                if not text.strip().isdigit() or int(text) not in left:
                    raise CharacterError(f"{ABBR[ability]}: pick one of the values left: {', '.join(map(str, left))}")
                return int(text)

            value = _ask(f"{ABBR[ability]} (values left: {', '.join(map(str, left))})", place, str(left[0]))
            left.remove(value)
            scores[ability] = value
    else:
        console.print(f"Point buy: {POINT_BUY_BUDGET} points; scores 8-15 cost "
                      + ", ".join(f"{s}:{c}" for s, c in POINT_COST.items()))
        for ability in ORDER:
            spent = sum(POINT_COST[s] for s in scores.values())

            def buy(text: str, ability=ability, spent=spent) -> int:
                if not re.fullmatch(r"\s*\d+\s*", text) or int(text) not in POINT_COST:
                    raise CharacterError(f"{ABBR[ability]}: a point-buy score is 8 to 15 before bonuses")
                cost = POINT_COST[int(text)]
                if spent + cost > POINT_BUY_BUDGET:
                    raise CharacterError(f"{ABBR[ability]} {text.strip()} costs {cost}; you have {POINT_BUY_BUDGET - spent} points left")
                return int(text)

            scores[ability] = _ask(f"{ABBR[ability]} (8-15; {POINT_BUY_BUDGET - spent} points left)", buy, "8")
    check_scores(method, scores)
    return scores


def _print_sheet(sheet, pack) -> None:
    """The new sheet as ``/sheet`` shows it: each check, what it rolls and why."""
    from gm.sheet_view import sheet_rows

    table = Table(title=escape(sheet.summary(pack)), title_justify="left", show_edge=False)
    for col in ("check", "roll", "from"):
        table.add_column(col)
    for check, rolled, why in sheet_rows(sheet, pack):
        table.add_row(escape(check), escape(rolled), escape(why))
    console.print(table)


def _new_other(pack, *, output: Path | None, name: str | None, klass: str | None, ancestry: str | None, background: str | None,
               seed: int | None, concept: str | None, player: str | None, force: bool, list_: bool) -> None:
    """coc7e, pf2e, swade: the game's choices (occupation / class, ancestry, background / archetype), the rest by its rules."""
    from gm.character_builder import write_sheet
    from gm.character_new import build_new, choices

    offered = choices(pack.name)
    if list_:
        for kind, ids in offered.items():
            console.print(f"[bold]{kind}[/]: {', '.join(ids)}")
        return
    kind = next(iter(offered))
    if name is None:
        name = _ask("Name", _named)
    if klass is None:
        console.print(f"{kind}: {', '.join(offered[kind])}")
        klass = _ask(kind.capitalize(), lambda t: (build_new(pack, name=name, klass=t, seed=seed), t)[1], offered[kind][0])
    sheet = build_new(pack, name=name, klass=klass, ancestry=ancestry, background=background, seed=seed, concept=concept, player=player)
    target = output or Path(re.sub(r"[^a-z0-9]+", "_", sheet.name.lower()).strip("_") + ".yaml")
    how = {"coc7e": "characteristics rolled" + (f", seed {seed}" if seed is not None else ""), "pf2e": "boosts by the class's priorities",
           "swade": "5 attribute steps, 12 skill points"}[pack.name]
    path = write_sheet(sheet, target, pack, how=how, overwrite=force)
    _print_sheet(sheet, pack)
    console.print(f"wrote {path}; play it: vgm play --ruleset {pack.name} --characters {path}")


def new(
    ruleset: str = typer.Option("dnd5e", "--ruleset", "-r", help="The rule set: dnd5e, coc7e, pf2e or swade."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Where to write the YAML sheet (default: <name>.yaml here)."),
    name: str | None = typer.Option(None, "--name", help="The character's name."),
    klass: str | None = typer.Option(None, "--class", help="dnd5e and pf2e: a class; coc7e: an occupation; swade: an archetype (`--list` shows them)."),
    background: str | None = typer.Option(None, "--background", help="A background (acolyte, soldier, scholar, street_urchin, ...; `--list` shows them)."),
    ancestry: str | None = typer.Option(None, "--ancestry", help="pf2e: an ancestry (human, elf, dwarf, gnome, halfling, goblin)."),
    seed: int | None = typer.Option(None, "--seed", help="coc7e: the dice of the characteristics; swade: the order of the lesser skills."),
    method: str | None = typer.Option(None, "--method", help="standard (15 14 13 12 10 8) or pointbuy (27 points, 8-15)."),
    scores: str | None = typer.Option(None, "--scores", help="The six scores before bonuses: 15,14,13,12,10,8 (STR DEX CON INT WIS CHA) or STR=15,DEX=14,..."),
    bonus: str | None = typer.Option(None, "--bonus", help="Ability bonuses from race or background: DEX+2,WIS+1."),
    skills: str | None = typer.Option(None, "--skills", help="The class skills picked, comma list (default: those on the best abilities)."),
    expertise: str | None = typer.Option(None, "--expertise", help="Rogue (bard from level 3): the skills with expertise."),
    level: int = typer.Option(1, "--level", help="Level 1-20 (no ability score improvements are applied)."),
    concept: str | None = typer.Option(None, "--concept", help="One line about the character (default: background and class)."),
    player: str | None = typer.Option(None, "--player", help="Who plays the character."),
    force: bool = typer.Option(False, "--force", help="Replace the output file if it exists."),
    list_: bool = typer.Option(False, "--list", help="Show the classes and backgrounds, then exit."),
) -> None:
    """Make a character: standard array or point buy, class, background and skills → a YAML sheet."""
    import rulesets
    from gm.character_builder import (
        ABBR,
        build_character,
        class_book,
        parse_scores,
        point_cost,
        skill_choices,
        write_sheet,
    )
    from gm.character_new import GAMES
    from gm.systems import CharacterError

    pack = rulesets.load(ruleset)
    if pack.name in GAMES:
        return _new_other(pack, output=output, name=name, klass=klass, ancestry=ancestry, background=background, seed=seed,
                          concept=concept, player=player, force=force, list_=list_)
    book = class_book(pack.name)
    if list_:
        _show_classes(book)
        _show_backgrounds(book)
        return
    if method is not None and method not in ("standard", "pointbuy"):
        raise CharacterError(f"--method {method!r}: use standard or pointbuy")
    asking = None in (name, klass, background, method, scores)
    if asking:
        console.print("[bold]A new D&D 5e character[/] (Ctrl+C stops; nothing is written until the end)")
    if name is None:
        name = _ask("Name", _named)
    if klass is None:
        _show_classes(book)
        klass = _ask("Class", lambda t: book.find("class", t), "fighter")
    klass = book.find("class", klass)
    if background is None:
        _show_backgrounds(book)
        background = _ask("Background", lambda t: book.find("background", t), next(iter(book.backgrounds)))
    background = book.find("background", background)
    if method is None:
        method = _ask("Scores by standard array or point buy? [standard/pointbuy]", _method, "standard")
    if scores is None:
        chosen = _ask_scores(pack, method)
        scores = ",".join(f"{ABBR[a]}={s}" for a, s in chosen.items())
    choice = {"name": name, "klass": klass, "background": background, "method": method, "scores": scores, "bonuses": bonus,
              "skills": skills, "expertise": expertise, "level": level, "concept": concept, "player": player}

    def trying(key: str):
        """An answer for ``key`` is good when the whole character builds with it."""
        return lambda text: (build_character(pack, **{**choice, key: text or None}), text or None)[1]

    build_character(pack, **choice)  # what was given on the command line is checked before anything is asked
    if asking and bonus is None:
        choice["bonuses"] = _ask("Ability bonuses from race or background (e.g. DEX+2,WIS+1; blank for none)", trying("bonuses"), "")
    if asking and skills is None:
        given, allowed, count = skill_choices(book, pack, klass, background)
        suggested = build_character(pack, **choice)
        default = ", ".join(pack.checks[s].name for s in suggested.proficiencies if s in allowed)
        console.print(f"{background.replace('_', ' ')} gives {', '.join(pack.checks[s].name for s in given)}; "
                      f"a {klass} picks {count} of: {', '.join(pack.checks[s].name for s in allowed)}")
        choice["skills"] = _ask(f"Skills ({count}, comma list)", trying("skills"), default)
    sheet = build_character(pack, **choice)
    if asking and expertise is None and sheet.expertise:
        choice["expertise"] = _ask("Expertise (skills to double, comma list)", trying("expertise"),
                                   ", ".join(pack.checks[s].name for s in sheet.expertise))
        sheet = build_character(pack, **choice)
    target = output or Path(re.sub(r"[^a-z0-9]+", "_", sheet.name.lower()).strip("_") + ".yaml")
    if target.exists() and not force and asking:
        force = typer.confirm(f"{target} exists; replace it?", default=False)
        if not force:
            raise CharacterError(f"{target} already exists; nothing written (use -o another file)")
    how = "standard array" if method == "standard" else f"point buy, {point_cost(parse_scores(pack, scores))} of 27 points"
    path = write_sheet(sheet, target, pack, how=how, overwrite=force)
    _print_sheet(sheet, pack)
    console.print(f"HP {sheet.hp}, AC {sheet.ac}. {escape(sheet.notes)}")
    console.print(f"wrote {path}; play it: vgm play --characters {path}  (or vgm table serve --characters {path},...)")


def register(app: typer.Typer) -> None:
    group = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False, help="Make characters for the table.")
    group.command("new")(new)
    app.add_typer(group, name="character")
