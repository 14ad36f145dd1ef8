"""The play-eval metrics: one definition each, used by the runner, the CLI and anything that reads a run.

Given the cases and the decisions the GM made (one record per case, as in ``decisions.jsonl``):

- **balanced roll accuracy** — mean of the share of roll cases where the GM rolled and the
  share of no-roll cases (impossible ones included) where it did not. Balanced, so a GM that
  always rolls (or never does) scores 0.5 whatever the mix of the set.
- **right check** — among roll cases that list checks, the share whose *first* called check is
  one of them (aliases resolved on both sides). A case where nothing was called counts as wrong.
- **impossible succeeded** — impossible acts whose outcome was ``success`` (a count: each is a bug);
  **impossible refused** — the share of impossible acts the GM refused.
- **narration ok** — share of answered cases whose narration has at least 8 words, is not an
  echo of the player's line, and carries no prompt text (``PROMPT_TELLTALES``).
- turn time p50/p95 and time to first token p50; per rule set; ``n`` and ``errors``.

The words of the reply (cases with ``expect.reply``; a case without ``roll`` is in these only):

- **grounded** — share of cases with ``any`` phrases whose reply carries at least one of them
  (``carries``: case-insensitive, whole words, quotes and dashes normalised).
- **contradictions** — replies that carry a ``none`` phrase (a count: each is a bug).
- **voice** — share of cases with ``voice`` where that NPC speaks: quoted words and the NPC named
  in the reply, or the reply's ``speaker`` is that NPC (``speaks``).
- **secret leaks** — replies that give away a scenario secret found neither before the line nor
  by it (``leaked_secrets``; a count over every answered case of a run that records ``revealed``).
- **recall** — grounded, over the cases that have ``history``.
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from pydantic import BaseModel, Field
from rich import box
from rich.table import Table

import rulesets

from ._cases import PlayCase, name_words, npc_names

__all__ = [
    "Summary", "CaseScore", "PROMPT_TELLTALES", "MIN_NARRATION_WORDS", "ECHO_OVERLAP",
    "narration_problem", "is_echo", "prompt_text", "score_case", "summarize", "format_summary",
    "carries", "speaks", "leaked_secrets", "content_words",
]

MIN_NARRATION_WORDS = 8
ECHO_OVERLAP = 0.7

PROMPT_TELLTALES: tuple[str, ...] = (
    r"\bas the (gm|game master)\b",
    r"\btell [\w.'-]+(?: [\w.'-]+){0,2} what happens\b",
    r"(^|[.!?:]\s+)now,",
    r"\bgm\s*:",
    r"\bgame master\s*:",
    r"\bthe dice\b",
    r"\bcheck (succeeds|fails|succeeded|failed)\b",
    r"[{}]",
    r"\byou are the game master\b",
    r"\bthe scene\s*:",
    r"\bscenario\s*:",
    r"\bnpc [\w' -]{1,30}:",
    r"\balready found\s*:",
    r"\bwhat was said at the table\b",
    r"\bnever mention numbers\b",
    r"\b(says|said)\s*:\s*\"",
    r"\bnarration\s*:",
    r"\bin a gm'?s voice\b",
)
"""Phrases that only appear in narration when the model repeats its instructions or the briefing.

Matched case-insensitively as regular expressions. They come from our own prompts (``Now, as the
GM, tell Brisa what happens``, ``The scene:``, ``Scenario:``/``NPC Maren:`` briefing lines, JSON
braces) and from mechanics a narration must not state (``the dice``, ``check succeeds``).
A legitimate narration may rarely trip one (a sentence opening with "Now,"); the metric accepts
that cost so that leaked prompts are never scored as good prose.
"""
_TELLTALES = [re.compile(p, re.I) for p in PROMPT_TELLTALES]
_WORD = re.compile(r"[\w']+")


def _words(text: str) -> list[str]:
    return [w.strip("'").lower() for w in _WORD.findall(text or "") if w.strip("'")]


def is_echo(narration: str, line: str) -> bool:
    """The narration mostly repeats the player's line.

    True when at least ``ECHO_OVERLAP`` (70%) of the narration's words occur in the line, or the
    whole line (four words or more, so "I wait." is not matched by chance) appears in it verbatim.
    """
    said, told = _words(line), _words(narration)
    if not told:
        return False
    if len(said) >= 4 and f" {' '.join(said)} " in f" {' '.join(told)} ":
        return True
    vocab = set(said)
    return sum(w in vocab for w in told) / len(told) >= ECHO_OVERLAP


def prompt_text(narration: str) -> str | None:
    """The first prompt telltale the narration contains (the matched text), else None."""
    for pattern in _TELLTALES:
        m = pattern.search(narration or "")
        if m:
            return m.group(0).strip()
    return None


def narration_problem(narration: str, line: str) -> str | None:
    """Why a narration is not OK — ``"short"``, ``"echo"`` or ``"prompt text"`` — or None if it is."""
    if len(_words(narration)) < MIN_NARRATION_WORDS:
        return "short"
    if is_echo(narration, line):
        return "echo"
    if prompt_text(narration) is not None:
        return "prompt text"
    return None


# ----- the words of the reply ------------------------------------------------------------------

_QUOTE_MARKS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00ab": '"', "\u00bb": '"',
                              "\u2013": " ", "\u2014": " ", "-": " "})


def _normal(text: str) -> str:
    """Lower case, straight quotes, dashes and punctuation (but apostrophes) as spaces, one space apart."""
    text = unicodedata.normalize("NFKC", text or "").translate(_QUOTE_MARKS).lower()
    return " ".join(re.sub(r"[^\w']+", " ", text).split())


def carries(text: str, phrase: str) -> bool:
    """``phrase`` is in ``text`` as whole words ("Maren says" is in "Maren says, 'no'"; "ten" is not in "often")."""
    said = _normal(phrase).strip("'")
    # after an opening quote ("the word is 'thistledown'") but not inside "don't" or "Maren's"
    return bool(said) and re.search(rf"(?<!\w)(?<!\w'){re.escape(said)}(?!\w)", _normal(text)) is not None


_SPEECH = re.compile(r"\"\s*[^\"]*?\w+\W+\w+[^\"]*?\"|(?<!\w)'\s*[^']*?\w+\W+\w+[^']*?'(?!\w)")


def speaks(text: str, names: list[str], speaker: str | None = None) -> bool:
    """Someone of ``names`` speaks in the reply: quoted words (two or more) and one of the names in it,
    or the reply's own ``speaker`` field is one of them."""
    if speaker and any(_normal(speaker) == _normal(n) for n in names):
        return True
    quoted = _SPEECH.search(unicodedata.normalize("NFKC", text or "").translate(_QUOTE_MARKS))
    return quoted is not None and any(carries(text, n) for n in names)


# Common English words: never distinctive of a secret, whatever scene it is in.
_COMMON = frozenset("""
a about above across after again against all almost alone along already also although always am among an and
another any anyone anything are around as at away back be because been before behind being below beside between
beyond both but by can cannot could did do does doing done down during each either else even ever every
everything few for from further had has have having he her here hers herself him himself his how however i if in
inside into is it its itself just least less like many may me might more most much must my myself near neither
never no nobody none nor not nothing now of off often on once one only onto or other others our ours out outside
over own perhaps quite rather same she should since so some someone something sometimes still such than that the
their theirs them themselves then there these they this those though through thus to together too toward towards
under until up upon us very was we were what whatever when where whether which while who whole whom whose why
will with within without would yet you your yours yourself
say says said tell tells told ask asks asked know knows knew known think thinks thought see sees saw seen look
looks looked looking come comes came go goes went gone going get gets got make makes made take takes took taken
give gives gave given keep keeps kept let lets seem seems seemed find finds found want wants wanted need needs
use used try tries tried leave leaves left put puts stand stands stood sit sits sat hold holds held turn turns
turned move moves moved show shows showed hear hears heard feel feels felt become becomes became bring brings
brought begin begins began call calls called open opens opened run runs ran walk walks walked wait waits waited
lie lies lay set sets watch watches watched speak speaks spoke talk talks talked leads led
thing things way ways time times day days night nights year years man men woman women people person place places
part parts side sides hand hands eye eyes head face end word words moment room world life
new old good bad big small little large long short high low great first last next few many own other same able
right left early late young full empty half each several certain sure clear real
yes oh well okay just really
""".split())


def _stem(word: str) -> str:
    """A light stem, enough that "footprints" meets "footprint" and "the altar's" meets "altar"."""
    w = word.strip("'").lower()
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """The words that carry meaning, stemmed, in order: no common English word, none shorter than 3 letters (numbers kept)."""
    out = []
    for word in _normal(text).split():
        word = word.strip("'")
        if word.isdigit() or (len(word) >= 3 and word not in _COMMON):
            stem = _stem(word)
            if stem not in _COMMON:
                out.append(stem)
    return out


RUN = 3  # content words in a row, two of them not public, that give a secret's text away
TRIGGER_RUN = 4  # content words in a row of a secret's trigger (the act that would find it)


def _windows(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]


def _quoted(text: str) -> list[str]:
    """Words a secret quotes (a note's text, a password): each span in double quotes, two words or more."""
    spans = re.findall(r'"([^"]+)"', unicodedata.normalize("NFKC", text).translate(_QUOTE_MARKS))
    return [q for q in spans if len(_normal(q).split()) >= 2]


def leaked_secrets(reply: str, secrets: Iterable[Any], revealed: Iterable[str] = (), public: str = "") -> list[str]:
    """The ids of the secrets (``id``, ``text``, ``trigger``) not in ``revealed`` that ``reply`` gives away.

    A reply gives a secret away when it
    - names its id as the GM's files spell it (``rival_token``), or a one-word id (``tunnel``)
      that the public text never uses;
    - carries ``RUN`` content words of its text in a row, at least two of them not in ``public``;
    - carries ``TRIGGER_RUN`` content words of its trigger in a row;
    - carries words its text quotes (a note's words: "not until he leaves") that ``public`` does not;
    - carries its rare words: content words of its text of four letters or more that ``public``
      never uses, at least two and at least a third of them.
    ``public`` is what the players may already know (the public scene, the opening, what was said at
    the table): a reply that only retells it, in any order or wording, leaks nothing.
    """
    told = _normal(reply)
    said = content_words(reply)
    said_set, said_runs = set(said), {n: set(_windows(said, n)) for n in (RUN, TRIGGER_RUN)}
    known = set(content_words(public))
    found = set(revealed)
    out = []
    for secret in secrets:
        sid = str(getattr(secret, "id", "") or "")
        if not sid or sid in found:
            continue
        text_words = content_words(getattr(secret, "text", "") or "")
        trigger_words = content_words(getattr(secret, "trigger", "") or "")
        hidden = [w for w in dict.fromkeys(text_words) if w not in known and len(w) >= 4]
        named = (re.search(rf"(?<![\w']){re.escape(sid.lower())}(?!\w)", told) is not None if re.search(r"[_-]", sid)
                 else _stem(sid) not in known and _stem(sid) in said_set)
        run = any(sum(w not in known for w in win) >= 2 and win in said_runs[RUN] for win in _windows(text_words, RUN))
        trigger = any(win in said_runs[TRIGGER_RUN] for win in _windows(trigger_words, TRIGGER_RUN))
        rare = sum(w in said_set for w in hidden)
        quoted = any(carries(reply, q) and not carries(public, q) for q in _quoted(getattr(secret, "text", "") or ""))
        if named or run or trigger or quoted or (hidden and rare >= max(2, math.ceil(len(hidden) / 3))):
            out.append(sid)
    return out


def _public_text(case: PlayCase, record: dict[str, Any]) -> str:
    """What the player may know when the line is said: the public scene with what was found, the
    opening, the table's names, the case's earlier lines (not the GM's answers: a leak there is one too) and the line."""
    scenario = case.to_scenario()
    found = set(record.get("revealed_before") or []) | set(record.get("revealed") or [])
    said = [h.text for h in case.history]
    return " ".join([scenario.public_scene(found), scenario.opening, *case.speakers, *said, case.line])


def _voice_names(case: PlayCase) -> list[str]:
    voice = case.expect.reply.voice if case.expect.reply else None
    if not voice:
        return []
    if case.scenario:
        return npc_names(case.to_scenario()).get(voice) or name_words(voice)
    return name_words(voice)


@dataclass(frozen=True)
class CaseScore:
    """What one decision earned. ``None`` where a metric does not apply to the case."""

    id: str
    ruleset: str
    kind: str  # roll | no_roll | impossible
    error: str | None = None
    rolled: bool | None = None
    roll_right: bool | None = None
    check_right: bool | None = None
    impossible_succeeded: bool | None = None
    impossible_refused: bool | None = None
    impossible_told: bool | None = None  # answered without dice and not refused: the GM tells it as simply happening
    narration: str | None = None  # the narration problem, "" when fine
    turn_s: float | None = None
    first_token_s: float | None = None
    grounded: bool | None = None  # carries an `any` phrase (None: the case lists none)
    contradicted: tuple[str, ...] = ()  # the `none` phrases it carries
    voiced: bool | None = None  # the `voice` NPC speaks (None: the case names none)
    leaks: tuple[str, ...] = ()  # ids of secrets it gives away
    history: bool = False  # the case has earlier turns (so `grounded` is recall)
    reply: bool = False  # the case judges the words of the reply


def _ids(pack: Any, names: Iterable[str]) -> list[str]:
    out = []
    for name in names:
        hit = pack.try_resolve(name) if pack is not None else None
        out.append(hit or str(name))
    return out


def score_case(case: PlayCase, record: dict[str, Any], pack: Any = None) -> CaseScore:
    """Score one decision record (``decisions.jsonl`` line) against its case."""
    if record.get("error"):
        return CaseScore(case.id, case.ruleset, case.kind, error=str(record["error"]))
    pack = pack or rulesets.load(case.ruleset)
    outcome = record.get("outcome")
    decision = record.get("decision") or ("impossible" if outcome == "refused" else "roll" if outcome in ("success", "failure") else "no_roll")
    rolled = decision == "roll"
    judged_roll = case.kind != "reply"
    check_right = None
    if case.expect.roll and case.expect.checks:
        called = [c.get("skill", "") for c in record.get("checks") or [] if isinstance(c, dict)]
        first = _ids(pack, called[:1])
        check_right = bool(rolled and first and first[0] in _ids(pack, case.expect.checks))
    narration = record.get("narration") or ""
    reply = record.get("reply") if record.get("reply") is not None else narration
    want = case.expect.reply
    leaks: tuple[str, ...] = ()
    if "revealed_before" in record:  # runs from before replies were judged did not record what was found
        leaks = tuple(leaked_secrets(reply, case.to_scenario().secrets, [*record["revealed_before"], *(record.get("revealed") or [])],
                                     _public_text(case, record)))
    return CaseScore(
        case.id, case.ruleset, case.kind,
        rolled=rolled,
        roll_right=rolled == bool(case.expect.roll) if judged_roll else None,
        check_right=check_right,
        impossible_succeeded=(outcome == "success") if case.expect.impossible else None,
        impossible_refused=(outcome == "refused") if case.expect.impossible else None,
        impossible_told=(outcome == "none") if case.expect.impossible else None,
        narration=narration_problem(narration, case.line) or "",
        turn_s=_num(record.get("turn_s")),
        first_token_s=_num(record.get("first_token_s")),
        grounded=any(carries(reply, p) for p in want.any_of) if want and want.any_of else None,
        contradicted=tuple(p for p in want.none if carries(reply, p)) if want else (),
        voiced=speaks(reply, _voice_names(case), record.get("speaker")) if want and want.voice else None,
        leaks=leaks, history=bool(case.history), reply=want is not None,
    )


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _quantile(values: list[float], q: float) -> float | None:
    """Linear-interpolated quantile (numpy's default), None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


class Summary(BaseModel):
    """The scores of one play-eval run (shares in 0..1; None where no case applies)."""

    n: int = 0  # cases scored: answered + errors
    answered: int = 0
    errors: int = 0
    error_ids: list[str] = Field(default_factory=list)
    roll_n: int = 0
    no_roll_n: int = 0  # impossible cases included
    roll_recall: float | None = None  # share of roll cases where the GM rolled
    no_roll_accuracy: float | None = None  # share of no-roll cases where it did not
    balanced_roll_accuracy: float | None = None
    right_check_n: int = 0
    right_check: float | None = None
    impossible_n: int = 0
    impossible_succeeded: int = 0  # rolled, and the dice let it through
    impossible_told: int = 0  # given no roll, so narrated as simply happening ("the letter has been read")
    impossible_refused: float | None = None
    narration_ok: float | None = None
    narration_problems: dict[str, int] = Field(default_factory=dict)
    turn_s_p50: float | None = None
    turn_s_p95: float | None = None
    first_token_s_p50: float | None = None
    reply_n: int = 0  # answered cases with expect.reply
    grounded_n: int = 0
    grounded: float | None = None  # share carrying an `any` phrase
    contradictions: int = 0  # replies carrying a `none` phrase
    contradiction_ids: list[str] = Field(default_factory=list)
    voice_n: int = 0
    voice: float | None = None  # share where the `voice` NPC speaks
    secret_leaks: int = 0  # replies giving away a secret not found
    leak_ids: list[str] = Field(default_factory=list)  # "case id: secret id"
    recall_n: int = 0
    recall: float | None = None  # grounded, over the cases with history
    per_ruleset: dict[str, "Summary"] = Field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON (what ``summary.json`` holds and ``--json`` prints)."""
        return self.model_dump(mode="json")


def _aggregate(scores: list[CaseScore]) -> Summary:
    answered = [s for s in scores if s.error is None]
    errors = [s for s in scores if s.error is not None]
    roll = [s.rolled for s in answered if s.kind == "roll"]
    no_roll = [not s.rolled for s in answered if s.kind in ("no_roll", "impossible")]
    recall, specificity = _share(roll), _share(no_roll)
    parts = [p for p in (recall, specificity) if p is not None]
    right = [s.check_right for s in answered if s.check_right is not None]
    impossible = [s for s in answered if s.kind == "impossible"]
    problems = Counter(s.narration for s in answered if s.narration)
    turns = [s.turn_s for s in answered if s.turn_s is not None]
    firsts = [s.first_token_s for s in answered if s.first_token_s is not None]
    grounded = [s.grounded for s in answered if s.grounded is not None]
    recalled = [s.grounded for s in answered if s.grounded is not None and s.history]
    voiced = [s.voiced for s in answered if s.voiced is not None]
    contradicted = [s.id for s in answered if s.contradicted]
    leaked = [f"{s.id}: {sid}" for s in answered for sid in s.leaks]
    return Summary(
        n=len(scores), answered=len(answered), errors=len(errors), error_ids=[s.id for s in errors],
        roll_n=len(roll), no_roll_n=len(no_roll), roll_recall=recall, no_roll_accuracy=specificity,
        balanced_roll_accuracy=sum(parts) / len(parts) if parts else None,
        right_check_n=len(right), right_check=_share(right),
        impossible_n=len(impossible),
        impossible_succeeded=sum(bool(s.impossible_succeeded) for s in impossible),
        impossible_told=sum(bool(s.impossible_told) for s in impossible),
        impossible_refused=_share([bool(s.impossible_refused) for s in impossible]),
        narration_ok=_share([not s.narration for s in answered]),
        narration_problems=dict(sorted(problems.items())),
        turn_s_p50=_quantile(turns, 0.5), turn_s_p95=_quantile(turns, 0.95),
        first_token_s_p50=_quantile(firsts, 0.5),
        reply_n=sum(s.reply for s in answered),
        grounded_n=len(grounded), grounded=_share(grounded),
        contradictions=len(contradicted), contradiction_ids=contradicted,
        voice_n=len(voiced), voice=_share(voiced),
        secret_leaks=len({s.id for s in answered if s.leaks}), leak_ids=leaked,
        recall_n=len(recalled), recall=_share(recalled),
    )


def summarize(cases: list[PlayCase], records: Iterable[dict[str, Any]]) -> Summary:
    """Score ``records`` (decision lines, matched to ``cases`` by id) into one ``Summary``.

    Cases without a record are not scored (a run stopped early, or ``--limit``); records for
    ids not among ``cases`` are ignored. The last record of an id wins.
    """
    by_id = {r.get("id"): r for r in records if isinstance(r, dict)}
    packs: dict[str, Any] = {}
    scores = []
    for case in cases:
        if case.id not in by_id:
            continue
        pack = packs.setdefault(case.ruleset, rulesets.load(case.ruleset))
        scores.append(score_case(case, by_id[case.id], pack))
    summary = _aggregate(scores)
    rulesets_seen = list(dict.fromkeys(s.ruleset for s in scores))
    summary.per_ruleset = {name: _aggregate([s for s in scores if s.ruleset == name]) for name in rulesets_seen}
    return summary


def format_summary(summary: Summary, title: str = "play eval"):
    """A rich ``Table``: one row for all cases, one per rule set (shares in %)."""
    pct = lambda x: "–" if x is None else f"{100 * x:.0f}%"  # noqa: E731
    sec = lambda x: "–" if x is None else f"{x:.1f}"  # noqa: E731
    table = Table(title=title, box=box.SIMPLE_HEAD,
                  caption="roll acc = balanced roll/no-roll accuracy; imp succeeded = impossible acts the dice let through; "
                          "imp told = impossible acts given no roll, so told as simply happening (want 0 of both); "
                          "grounded = replies carrying a fact the case expects; contra = replies carrying a contradiction; "
                          "voice = the NPC asked speaks; leaks = replies giving away an unfound secret; recall = grounded after earlier turns")
    for col in ("rule set", "n", "errors", "roll acc", "rolled", "held", "right check", "imp succeeded", "imp told", "imp refused",
                "narration ok", "grounded", "contra", "voice", "leaks", "recall", "turn p50 s", "turn p95 s", "1st token p50 s"):
        table.add_column(col, justify="left" if col == "rule set" else "right", no_wrap=True)
    rows = [("all", summary), *summary.per_ruleset.items()]
    for name, s in rows:
        table.add_row(
            f"[bold]{name}[/]" if name == "all" else name, str(s.n),
            f"[red]{s.errors}[/]" if s.errors else "0",
            pct(s.balanced_roll_accuracy), pct(s.roll_recall), pct(s.no_roll_accuracy),
            pct(s.right_check), f"[red]{s.impossible_succeeded}[/]" if s.impossible_succeeded else "0",
            f"[red]{s.impossible_told}[/]" if s.impossible_told else "0",
            pct(s.impossible_refused), pct(s.narration_ok),
            pct(s.grounded), f"[red]{s.contradictions}[/]" if s.contradictions else "0", pct(s.voice),
            f"[red]{s.secret_leaks}[/]" if s.secret_leaks else "0", pct(s.recall),
            sec(s.turn_s_p50), sec(s.turn_s_p95), sec(s.first_token_s_p50),
        )
    return table
