"""Chinese dice-bot logs (SealDice, Dice!, OlivaDice, pasted chat) → MOE instances.

Each roll the bot reports is a gold label: who rolled (the character the bot names) and which
check (the skill text resolved through the pack's Chinese aliases, ``侦查`` → ``spot_hidden``).
Rolls of the same check in a row, with no talk between, are one group call; an opposed roll gives
both sides. The context is the talk before the roller's command, the GM's request turn
(``过个侦查``) left out as in the other importers and kept as ``gm_reply``; how far back it reaches
is the excerpt rule (``eval.moe.importers.excerpt``). Commands (``.ra 侦查``) never appear in a
context; the bot's earlier results do, as the GM's lines (the bot rolls on the GM's behalf).

Speakers map to characters: a player whose command the bot answers for ``<林语>`` is 林语 from then
on. Speakers named KP/GM/DM/主持人/守秘人 (or given with ``--gm``) are the GM.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import rulesets
from pipelines.records import Check, MoeInstance, Turn
from rulesets import VgmError

from ._report import ImportReport
from .dicebot_logs import FORMATS, Message, read_log
from .dicebot_rolls import Roll, command_of, command_skill, parse_reply
from .excerpt import EXCERPTS, ExcerptRules, drop_reason, excerpt_start, parse_rules

_GM_NAME = re.compile(r"^(?:kp|gm|dm|keeper|主持人?|守秘人|裁判)(?:\b|[^a-z]|$)|[【\[(（]\s*(?:kp|gm|dm|主持人?|守秘人)\s*[】\])）]", re.IGNORECASE)
_CHECK_COMMANDS = {"ra", "rc", "rah", "rch", "rav", "rcv", "sc", "ri", "r", "rd", "rb", "rp", "rh", "ww", "en"}
_REQUEST_CUES = ("检定", "过一个", "过个", "过一下", "来个", "来一个", "投个", "投一个", "骰", ".ra", ".rc", ".sc", "sc", "san")


class DicebotError(VgmError):
    """A dice-bot log that cannot be turned into MOE instances."""


def is_gm_name(name: str, extra: set[str]) -> bool:
    """KP/GM/DM/主持人/守秘人 (or ``【KP】某人``), or a name given with ``--gm``."""
    return name in extra or bool(_GM_NAME.search(name.strip()))


def _group(messages: list[Message], rolls: dict[int, Roll], start: int, skill_of) -> list[int]:
    """The rolls that answer one call: the same check in a row, only commands and bot lines between."""
    first = rolls[start]
    if first.kind != "check" and first.kind != "sanity":
        return [start]
    members = [start]
    for j in range(start + 1, len(messages)):
        if j in rolls:
            if rolls[j].kind == first.kind and skill_of(j) == skill_of(start):
                members.append(j)
                continue
            break
        if not (messages[j].bot or command_of(messages[j].text)):
            break
    return members


def import_dicebot(source: str | Path, *, format: str = "auto", ruleset: str | None = None, excerpt: str = "paper",
                   context: int = 30, gap_minutes: float = 30.0, max_turns: int = 120, gm: str | None = None,
                   excerpt_rules: str | None = None, **_: Any) -> ImportReport:
    """Read one dice-bot log (or every log in a folder) and return its MOE instances."""
    if excerpt not in EXCERPTS:
        raise DicebotError(f"--excerpt {excerpt!r}: choose one of {', '.join(EXCERPTS)}")
    if format not in FORMATS:
        raise DicebotError(f"--format {format!r}: choose one of {', '.join(FORMATS)}")
    try:
        pack = rulesets.load(ruleset or "coc7e")
    except VgmError as exc:
        raise DicebotError(f"--ruleset {ruleset!r}: {exc}") from None
    rules = ExcerptRules(mode=excerpt, window=context, gap_minutes=gap_minutes, max_turns=max_turns, rules=parse_rules(excerpt_rules))
    path = Path(source)
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")) if path.is_dir() else [path]
    report = ImportReport(source=f"dicebot {path} (excerpt: {excerpt})")
    extra_gm = {n.strip() for n in (gm or "").split(",") if n.strip()}
    for file in files:
        _import_file(file, format, pack, rules, extra_gm, report)
    return report


def _import_file(path: Path, fmt: str, pack, rules: ExcerptRules, extra_gm: set[str], report: ImportReport) -> None:
    kind, messages = read_log(path, fmt)
    report.notes[f"read as {kind}"] += 1
    rolls = {i: r for i, m in enumerate(messages) if (r := parse_reply(m.text)) is not None}
    bots = {messages[i].speaker for i in rolls} | {m.speaker for m in messages if m.bot}
    for m in messages:
        m.bot = m.bot or m.speaker in bots
    gms = {m.speaker for m in messages if not m.bot and is_gm_name(m.speaker, extra_gm)}
    if not rolls:
        raise DicebotError(f"{path}: no dice-bot roll results found ({len(messages)} messages); "
                           f"is this a SealDice, Dice! or OlivaDice log with .ra/.sc rolls? see docs/moe.md")

    # who rolled: the command the bot answered, within the three messages before its reply
    trigger: dict[int, int] = {}
    character_of: dict[str, str] = {}
    for i, roll in rolls.items():
        for j in range(i - 1, max(-1, i - 4), -1):
            cmd = command_of(messages[j].text)
            if cmd and not messages[j].bot and cmd[0] in _CHECK_COMMANDS and j not in trigger.values():
                trigger[i] = j
                speaker = messages[j].speaker
                if speaker not in gms and roll.sides and roll.kind != "opposed":
                    character_of.setdefault(speaker, roll.sides[0][0])
                break

    def skill_text(i: int, side: int = 0) -> str:
        text = rolls[i].sides[side][1]
        if not text and i in trigger:  # OlivaDice '[60]': the command names the skill
            text = command_skill(command_of(messages[trigger[i]].text)[1])
        return text

    def skill_of(i: int) -> str | None:
        return pack.try_resolve(skill_text(i))

    def speaker_of(m: Message) -> str:
        return "GM" if (m.bot or m.speaker in gms) else character_of.get(m.speaker, m.speaker)

    cast: dict[str, set[str]] = {}
    for speaker, character in character_of.items():
        aliases = cast.setdefault(character, set())
        if speaker != character:
            aliases.add(speaker)
    for m in messages:
        if not m.bot and m.speaker not in gms and not command_of(m.text):
            cast.setdefault(character_of.get(m.speaker, m.speaker), set())
    for roll in rolls.values():
        for character, _ in roll.sides:
            if character not in gms:
                cast.setdefault(character, set())
    characters = ["|".join([c, *sorted(a)]) for c, a in cast.items()]

    # the turns a context can hold: talk, and the bot's results as the GM's lines; never commands
    turns: list[Turn] = []
    times: list[float | None] = []
    index_of: dict[int, int] = {}  # message index -> number of turns before it
    for i, m in enumerate(messages):
        index_of[i] = len(turns)
        if command_of(m.text) or (m.bot and i not in rolls):
            continue
        turns.append(Turn(speaker=speaker_of(m), text=m.text))
        times.append(m.time)

    done: set[int] = set()
    for i in sorted(rolls):
        if i in done:
            continue
        members = _group(messages, rolls, i, skill_of)
        done.update(members)
        report.found += 1
        roll = rolls[i]
        if roll.kind == "bare":
            report.drop("bare dice (damage, HP, a formula): needs a calculation, not predictable (Tachikuma §3.3)")
            continue
        if roll.kind == "growth":
            report.drop("skill growth roll at the session's end, not a check the GM called")
            continue
        if roll.kind == "hidden":
            report.drop("hidden roll: the table never saw which check it was")
            continue
        answers: list[tuple[str, str]] = []
        unknown = []
        for k in members:
            for side, (character, _) in enumerate(rolls[k].sides):
                text = skill_text(k, side)
                skill = pack.try_resolve(text) if text else None
                if skill is None:
                    unknown.append(text or "(no skill named)")
                elif (character, skill) not in answers:
                    answers.append((character, skill))
        if unknown:
            report.drop(f"check not in {pack.name}: {unknown[0]}")
            continue
        cut = index_of[trigger.get(i, i)]
        before = turns[:cut]
        times_before = times[:cut]
        gm_reply = None
        names = _skill_names(pack, {s for _, s in answers})
        for back in range(len(before) - 1, max(-1, len(before) - 4), -1):
            turn = before[back]
            if turn.speaker == "GM" and not _is_roll_line(turn.text) and (any(n in turn.text for n in names) or any(c in turn.text.lower() for c in _REQUEST_CUES)):
                gm_reply = turn.text
                before, times_before = before[:back], times_before[:back]
                break
        if not before:
            report.drop("nothing was said before the roll")
            continue
        gm_spoke_last = before[-1].speaker == "GM" if gm_reply is not None else False
        start = excerpt_start(before, times_before, rules)
        context = before[start:]
        reason = drop_reason(context, answers, rules, gm_spoke_last=gm_spoke_last)
        if reason:
            report.drop(reason)
            continue
        line = messages[trigger.get(i, i)].line
        report.instances.append(MoeInstance(
            id=f"{path.stem}-{line}", ruleset=pack.name, context=context,
            answers=[Check(character=c, skill=s) for c, s in answers], characters=characters,
            source=f"{path.stem}#{line}", gm_reply=gm_reply,
        ))


def _is_roll_line(text: str) -> bool:
    """A bot result carried into the context as the GM's line is never the GM's request."""
    return parse_reply(text) is not None


def _skill_names(pack, ids: set[str]) -> list[str]:
    """Every name of these checks a GM might type (``侦查``, ``侦察``, ``Spot Hidden``), longest first."""
    names: list[str] = []
    for key in ids:
        item = pack.checks[key]
        names += [item.name, *item.zh, *(item.aliases or [])]
    return sorted({n for n in names if len(n) >= 2}, key=len, reverse=True)
