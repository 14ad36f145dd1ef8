"""CRD3 (Critical Role transcripts) → MOE instances.

The DM's check requests ("make a perception check", "roll a dexterity saving throw",
"everyone roll initiative") are the gold labels; the players' numeric answers after a
request say who rolled. Each request becomes one instance whose context is the N turns
*before* the request turn (the request itself is never shown). Who plays whom comes from
a cast file (``crd3_cast.yaml`` holds the campaign-2 default), not from this code.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rulesets
from pipelines.records import Check, MoeInstance, Turn
from rulesets import FileProblem, VgmError, read_json, read_yaml

from ._report import ImportReport
from .excerpt import EXCERPTS, ExcerptRules, drop_reason, excerpt_start, parse_rules

DEFAULT_CAST = Path(__file__).resolve().parent / "crd3_cast.yaml"


class ImportError_(VgmError):
    """An importer's input cannot be read."""


# ----- the cast ---------------------------------------------------------------------------

@dataclass
class Cast:
    """Players → characters (possibly by episode range), the DM's names, character aliases."""

    dm: set[str]
    players: dict[str, list[tuple[str, int | None, int | None]]]
    aliases: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path | None = None) -> "Cast":
        path = Path(path) if path else DEFAULT_CAST
        if not path.is_file():
            raise ImportError_(f"cast file {path} not found; copy {DEFAULT_CAST} and edit it")
        try:
            data = read_yaml(path, what="cast file") or {}
        except FileProblem as problem:
            raise ImportError_(str(problem)) from None
        if not isinstance(data, dict) or not isinstance(data.get("players"), dict):
            raise ImportError_(f"{path}: needs a 'players' mapping of PLAYER: Character; see {DEFAULT_CAST}")
        players: dict[str, list[tuple[str, int | None, int | None]]] = {}
        for player, spec in data["players"].items():
            entries = spec if isinstance(spec, list) else [spec]
            parsed = []
            for entry in entries:
                if isinstance(entry, str):
                    parsed.append((entry, None, None))
                elif isinstance(entry, dict) and "character" in entry:
                    parsed.append((str(entry["character"]), entry.get("from"), entry.get("until")))
                else:
                    raise ImportError_(f"{path}: players.{player}: give a character name or a list of {{character, from, until}}")
            players[str(player).upper()] = parsed
        aliases = {str(k): [str(a) for a in (v or [])] for k, v in (data.get("aliases") or {}).items()}
        dm = {str(n).upper() for n in (data.get("dm") or ["MATT"])}
        return cls(dm=dm, players=players, aliases=aliases)

    def character(self, player: str, episode: int | None) -> str | None:
        for name, start, end in self.players.get(player.upper(), []):
            if (start is None or episode is None or episode >= start) and (end is None or episode is None or episode <= end):
                return name
        return None

    def entry(self, character: str) -> str:
        """``"Beau|Beauregard"``: the form ``MoeInstance.characters`` takes."""
        return "|".join([character, *self.aliases.get(character, [])])


# ----- finding requests -------------------------------------------------------------------

_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_CHECK = re.compile(r"\)?\s+(?P<kind>checks?|saving\s+throws?|saves?)\b", re.IGNORECASE)
_INITIATIVE = re.compile(r"\broll(?:s|ing)?\s+(?:for\s+|your\s+|an?\s+)?initiative\b", re.IGNORECASE)
_CUE = re.compile(
    r"\b(make|makes|making|roll|rolling|give me|i need|i'll need|i'm going to need|i'd like|let me (?:get|have|see)|go ahead|"
    r"everyone|everybody|all of you|y'all|you all|each of you|both of you|you both|the rest of you|i want)\b",
    re.IGNORECASE,
)
_NOT_A_REQUEST = re.compile(
    r"\b(advantage on|disadvantage on|bonus to|bonus on|made an?|you made|succeed|succeeded|fail|failed|passed|if you|when you|"
    r"for your|to your|instead of|add|plus|minus)\b",
    re.IGNORECASE,
)
_GROUP = re.compile(
    r"\b(everyone|everybody|all of you|you all|y'all|each of you|the rest of you|both|you guys|the whole party|all (?:two|three|four|five|six)|"
    r"the (?:two|three|four|five|six|seven) of you|you (?:two|three|four))\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen "
    "nineteen twenty thirty"
).split()
_DIGITS = re.compile(r"(?<![d\w])(\d{1,2})(?![\w])", re.IGNORECASE)
_NATURAL = re.compile(r"\bnat(?:ural)?\s*(?:1|one|20|twenty)\b", re.IGNORECASE)
_ROLLED = re.compile(r"\b(rolled|got an?|that's an?|so that's|total)\b", re.IGNORECASE)
_WORDS = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")(?:-\w+)?\b", re.IGNORECASE)


@dataclass
class Request:
    skill: str
    sentence: str
    group: bool


def find_requests(text: str, pack: Any) -> list[Request]:
    """The check requests in one DM turn (a turn may ask for several)."""
    found: list[Request] = []
    for sentence in _SENTENCE.findall(text):
        sentence = sentence.strip()
        if not sentence:
            continue
        hits: list[str] = []
        if _INITIATIVE.search(sentence):
            hits.append(pack.try_resolve("initiative") or "initiative")
        for match in _CHECK.finditer(sentence):
            before = sentence[: match.start()]
            resolved = _resolve_phrase(before, match.group("kind"), pack)
            if resolved is None:
                continue
            skill, head = resolved
            elliptical = not head.strip(" ,-—'\"") or head.strip().lower() in ("okay,", "ok,", "so,", "all right,", "alright,")
            if sentence.rstrip().endswith("?") and not _CUE.search(head):
                continue  # "Dexterity checks?" is a question about rules, not a request
            if _NOT_A_REQUEST.search(head[-40:]):
                continue
            if not (_CUE.search(head) or elliptical):
                continue
            hits.append(skill)
        for skill in dict.fromkeys(hits):
            found.append(Request(skill=skill, sentence=sentence, group=bool(_GROUP.search(sentence)) or _plural(sentence)))
    return found


def _plural(sentence: str) -> bool:
    return bool(re.search(r"\b(checks|saving throws|saves)\b", sentence, re.IGNORECASE))


def _resolve_phrase(before: str, kind: str, pack: Any) -> tuple[str, str] | None:
    """The shortest tail (up to 4 words) of ``before`` naming a check, and the text before that tail.

    Shortest, because the pack's resolver skips filler words ("give me a quick stealth"
    resolves too) and the words before the skill are the request cue we need to see.

    "go ahead and make a quick perception" + "check" → ("perception", "go ahead and make a quick ").
    """
    spans = [m for m in re.finditer(r"[A-Za-z][\w'-]*", before)][-4:]
    save = kind.lower().startswith("sav")
    for first in reversed(spans):
        phrase = before[first.start():].strip(" (),")
        if phrase.lower() in ("a", "an", "the", "your", "another", "other", "skill", "ability", "group"):
            continue
        for text in ((f"{phrase} saving throw", f"{phrase} save") if save else (f"{phrase} check", phrase)):
            hit = pack.try_resolve(text)
            if hit and not (save and not hit.endswith("save")):  # "wisdom save" must land on a save id
                return hit, before[: first.start()]
    return None


def rolled_number(text: str) -> bool:
    """Does a player's line report a die result ("14.", "Natural 20!", "Oh, it's just nine.")?"""
    if _NATURAL.search(text) or _DIGITS.search(text):
        return True
    spoken = len(text.split()) <= 6 or _ROLLED.search(text)
    return bool(spoken and _WORDS.search(text))


# ----- the importer -------------------------------------------------------------------------

def _episode_number(name: str) -> int | None:
    match = re.search(r"E(\d+)", name, re.IGNORECASE)
    return int(match.group(1)) if match else None


def _read_episode(path: Path) -> list[dict]:
    try:
        data = read_json(path, what="CRD3 episode file")
    except FileProblem as problem:
        raise ImportError_(f"{problem} (is this a CRD3 episode file?)") from None
    turns = data.get("TURNS") if isinstance(data, dict) else None
    if not isinstance(turns, list):
        raise ImportError_(f"{path}: no 'TURNS' list; expected CRD3 {{'METADATA':..., 'TURNS':[{{'NAMES','UTTERANCES','NUMBER'}}]}}")
    return turns


def _names_in(sentence: str, table: dict[str, str]) -> list[str]:
    found = []
    low = sentence.lower()
    for alias, character in sorted(table.items(), key=lambda kv: -len(kv[0])):
        if re.search(r"\b" + re.escape(alias) + r"\b", low) and character not in found:
            found.append(character)
    return found


def import_crd3(
    source: str | Path,
    *,
    context: int = 30,
    cast: str | Path | None = None,
    ruleset: str = "dnd5e",
    window: int = 6,
    group_window: int = 16,
    min_context: int = 5,
    excerpt: str = "window",
    max_turns: int = 120,
    excerpt_rules: str | None = None,
) -> ImportReport:
    """Turn CRD3 episode files (a folder or one file) into MOE instances.

    Args:
        context: how many turns before the request make the context (``excerpt="window"``).
        excerpt: ``window`` (the last ``context`` turns) or ``paper`` (Tachikuma §3.4: back to the
            last break or scene marker, at most ``max_turns``; fewer than two characters or a
            perception the DM calls straight after their own description is dropped).
        cast: a YAML cast file (players → characters); the campaign-2 default otherwise.
        window / group_window: how many turns after a request to look for the rolls.
        min_context: requests with fewer turns before them are dropped (episode openings).
    """
    source = Path(source)
    files = sorted(source.glob("*.json")) if source.is_dir() else [source]
    if not files or not all(f.is_file() for f in files):
        raise ImportError_(f"{source}: no CRD3 episode .json files found")
    the_cast = Cast.load(cast)
    pack = rulesets.load(ruleset)
    if excerpt not in EXCERPTS:
        raise ImportError_(f"--excerpt {excerpt!r}: choose one of {', '.join(EXCERPTS)}")
    rules = ExcerptRules(mode=excerpt, window=context, max_turns=max_turns, rules=parse_rules(excerpt_rules))
    report = ImportReport(source=f"crd3 {source}" + (" (excerpt: paper)" if excerpt == "paper" else ""))
    for path in files:
        _import_episode(path, the_cast, pack, report, rules=rules, window=window, group_window=group_window, min_context=min_context)
    return report


def _import_episode(path: Path, cast: Cast, pack: Any, report: ImportReport, *, rules: ExcerptRules, window: int, group_window: int, min_context: int) -> None:
    episode = path.stem
    number = _episode_number(episode)
    raw_turns = _read_episode(path)

    def who(names: list[str]) -> tuple[str, bool]:
        """Speaker label for a turn, and whether it is the DM."""
        upper = [str(n).upper() for n in names]
        if upper and all(n in cast.dm for n in upper):
            return "GM", True
        if upper == ["ALL"]:
            return "All", False
        labels = []
        for player in upper:
            character = "GM" if player in cast.dm else cast.character(player, number)
            if character is None:
                report.notes[f"turns by {player}, not in the cast (speaker kept as {player.title()})"] += 1
                character = player.title()
            labels.append(character)
        return " & ".join(dict.fromkeys(labels)) or "Unknown", False

    turns: list[tuple[Turn, bool, list[str]]] = []
    for raw in raw_turns:
        names = raw.get("NAMES") or []
        text = " ".join(u.strip() for u in raw.get("UTTERANCES") or [] if isinstance(u, str)).strip()
        label, is_dm = who(names)
        turns.append((Turn(speaker=label, text=text), is_dm, [str(n).upper() for n in names]))

    characters = []
    for _, is_dm, names in turns:
        for player in names:
            character = cast.character(player, number)
            if character and character not in characters:
                characters.append(character)
    table = {}
    for character in characters:
        for alias in [character, *cast.aliases.get(character, [])]:
            table[alias.lower()] = character
    for player, entries in cast.players.items():
        character = cast.character(player, number)
        if character in characters:
            table.setdefault(player.lower(), character)  # "Sam, make a..." addresses the player

    for index, (turn, is_dm, _) in enumerate(turns):
        if not is_dm:
            continue
        requests = find_requests(turn.text, pack)
        if not requests:
            continue
        report.found += 1
        if index < min_context:
            report.drop("too little context before the request")
            continue
        group = any(r.group for r in requests)
        responders = _responders(turns, index, cast, number, window=group_window if group else window, stop_first=not group and len({r.skill for r in requests}) == 1)
        named = []
        sentences = [x.strip() for x in _SENTENCE.findall(turn.text) if x.strip()]
        for request in requests:
            where = request.sentence
            if request.group and request.sentence in sentences:  # "...hitting Beau and Caleb. I need you both to..."
                k = sentences.index(request.sentence)
                where = " ".join(sentences[max(0, k - 1): k + 1])
            named += [n for n in _names_in(where, table) if n not in named]
        if not responders:
            report.drop("no player answered with a roll")
            continue
        answers = _assign(requests, named, responders, turns, index)
        if answers is None:
            report.drop("several checks asked; could not tell who rolled which")
            continue
        if any(a.character not in characters for a in answers):
            report.drop("a roller is not in the cast file")
            continue
        if rules.mode == "window":
            ctx = [t for t, _, _ in turns[max(0, index - rules.window):index] if t.text]
        else:
            before = [t for t, _, _ in turns[:index] if t.text]
            ctx = before[excerpt_start(before, [None] * len(before), rules):]
        reason = drop_reason(ctx, [(a.character, a.skill) for a in answers], rules, gm_spoke_last=index > 0 and turns[index - 1][1])
        if reason:
            report.drop(reason)
            continue
        instance = MoeInstance(
            id=f"{episode}-{raw_turns[index].get('NUMBER', index)}",
            ruleset=pack.name,
            context=ctx,
            answers=answers,
            characters=[cast.entry(c) for c in characters],
            source=f"crd3:{episode}#{raw_turns[index].get('NUMBER', index)}",
            gm_reply=turn.text,
        )
        report.instances.append(instance)


def _responders(turns, index: int, cast: Cast, number: int | None, *, window: int, stop_first: bool) -> list[tuple[str, str]]:
    """(character, text) of players who report a roll after the request, in order."""
    out: list[tuple[str, str]] = []
    for turn, is_dm, names in turns[index + 1 : index + 1 + window]:
        if is_dm:
            if out and stop_first:
                break
            continue
        if len(names) != 1:
            continue
        character = cast.character(names[0], number)
        if character is None or not rolled_number(turn.text):
            continue
        if character not in [c for c, _ in out]:
            out.append((character, turn.text))
        if stop_first:
            break
    return out


def _assign(requests: list[Request], named: list[str], responders: list[tuple[str, str]], turns, index: int) -> list[Check] | None:
    """Who rolls what: named characters win; otherwise the players who answered with a roll."""
    skills = list(dict.fromkeys(r.skill for r in requests))
    rollers = named if named else [c for c, _ in responders]
    if not named and not any(r.group for r in requests):
        rollers = rollers[: max(1, len(skills))]
    if len(skills) == 1:
        return [Check(character=c, skill=skills[0]) for c in rollers]
    # several different checks in one turn: each roller's line often names their skill
    if len(rollers) != len(skills):
        return None
    texts = dict(responders)
    left = list(skills)
    pairs: dict[str, str] = {}
    for character in rollers:
        said = texts.get(character, "").lower()
        match = next((s for s in left if s.replace("_", " ") in said or s.split("_")[0] in said), None)
        if match:
            pairs[character] = match
            left.remove(match)
    for character in rollers:
        if character not in pairs:
            pairs[character] = left.pop(0)
    return [Check(character=c, skill=pairs[c]) for c in rollers]
