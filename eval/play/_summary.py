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
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from pydantic import BaseModel, Field
from rich import box
from rich.table import Table

import rulesets

from ._cases import PlayCase

__all__ = [
    "Summary", "CaseScore", "PROMPT_TELLTALES", "MIN_NARRATION_WORDS", "ECHO_OVERLAP",
    "narration_problem", "is_echo", "prompt_text", "score_case", "summarize", "format_summary",
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
    check_right = None
    if case.expect.roll and case.expect.checks:
        called = [c.get("skill", "") for c in record.get("checks") or [] if isinstance(c, dict)]
        first = _ids(pack, called[:1])
        check_right = bool(rolled and first and first[0] in _ids(pack, case.expect.checks))
    narration = record.get("narration") or ""
    return CaseScore(
        case.id, case.ruleset, case.kind,
        rolled=rolled,
        roll_right=rolled == bool(case.expect.roll),
        check_right=check_right,
        impossible_succeeded=(outcome == "success") if case.expect.impossible else None,
        impossible_refused=(outcome == "refused") if case.expect.impossible else None,
        impossible_told=(outcome == "none") if case.expect.impossible else None,
        narration=narration_problem(narration, case.line) or "",
        turn_s=_num(record.get("turn_s")),
        first_token_s=_num(record.get("first_token_s")),
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
    per_ruleset: dict[str, "Summary"] = Field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON (what ``summary.json`` holds and ``--json`` prints)."""
        return self.model_dump(mode="json")


def _aggregate(scores: list[CaseScore]) -> Summary:
    answered = [s for s in scores if s.error is None]
    errors = [s for s in scores if s.error is not None]
    roll = [s.rolled for s in answered if s.kind == "roll"]
    no_roll = [not s.rolled for s in answered if s.kind != "roll"]
    recall, specificity = _share(roll), _share(no_roll)
    parts = [p for p in (recall, specificity) if p is not None]
    right = [s.check_right for s in answered if s.check_right is not None]
    impossible = [s for s in answered if s.kind == "impossible"]
    problems = Counter(s.narration for s in answered if s.narration)
    turns = [s.turn_s for s in answered if s.turn_s is not None]
    firsts = [s.first_token_s for s in answered if s.first_token_s is not None]
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
                          "imp told = impossible acts given no roll, so told as simply happening (want 0 of both)")
    for col in ("rule set", "n", "errors", "roll acc", "rolled", "held", "right check", "imp succeeded", "imp told", "imp refused",
                "narration ok", "turn p50 s", "turn p95 s", "1st token p50 s"):
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
            sec(s.turn_s_p50), sec(s.turn_s_p95), sec(s.first_token_s_p50),
        )
    return table
