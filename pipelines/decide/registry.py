"""One registry of the GM's decision rules.

A rule reads the line as the decision step has already read it (a ``Context``) and either has
nothing to say (``None``) or gives a ``Verdict``: a decision (roll, no roll, impossible), a
check, and the reason a player would be told. Rules are registered by id with ``@rule`` and a
pipeline spec lists the ones it runs, so switching one off is deleting one line of YAML.

Rules run stage by stage (``STAGES``), in the spec's order within a stage:

- ``refuse``: the act cannot work, and the rule says why (a kind of impossibility, a scene fact,
  the era, no magic), or the line is table talk to the GM. The first verdict here ends the
  decision: nothing later may turn a refusal into a roll.
- ``check``: which check the act calls, where the line or the scene says more than the learned
  ranking (a named kind of act, a secret the act reaches for, the character's own Lore).
- ``settle``: whether to roll after all (a plain question is answered, routine upkeep passes,
  words put to a gatekeeper are a social check).

Every verdict is recorded, in order, with its rule id and reason (``Context.fired``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rulesets import VgmError

__all__ = ["Verdict", "Rule", "Context", "rule", "RULES", "STAGES", "apply_rules", "chosen", "UnknownRule", "rule_ids"]

ROLL, NO_ROLL, IMPOSSIBLE = "roll", "no_roll", "impossible"
STAGES = ("refuse", "check", "settle")


class UnknownRule(VgmError):
    """A spec lists a rule id nobody registered."""


@dataclass(frozen=True)
class Verdict:
    """What one rule decides: a decision (``roll``/``no_roll``/``impossible``; ``None`` keeps the
    current one), a check (``None`` keeps it) and the reason, said plainly."""

    decision: str | None = None
    check: str | None = None
    reason: str = ""
    hardest: bool = False  # roll at the hardest difficulty: implausible, though nothing says it cannot work


@dataclass
class Context:
    """Everything the decision step knows about the line, read once.

    ``decision`` and ``check`` are the current answer: the learned model's to begin with, then
    each verdict's. ``ranked`` is the check ranking (best first) the learned model and the
    pack's example lines agreed on; ``cued`` the checks the line names outright.
    """

    line: str                      # the player's whole line
    act: str                       # the line without the table's names, as it was embedded
    scene: str
    speaker: str | None
    who: str | None                # who rolls: the speaker, unless the line hands the act to another
    pack: Any
    options: dict[str, Any] = field(default_factory=dict)
    p_roll: float = 0.0
    p_impossible: float = 0.0      # the pooled impossible-act direction (``check_index.LineSense``)
    p_unworkable: float = 0.0      # the learned impossible-act vote on the line in its scene (``LearnedDecision.p_impossible``)
    p_written: float = 0.0         # the written-line vote's share for impossible, weighed by the line's style (``LearnedDecision.weigh_written``)
    unlikely: bool = False         # that share outweighs both "roll" and "no roll": rolled at the hardest difficulty
    doubted: bool = False          # no roll, yet the written vote leans to impossible over no roll (``learned.Weighed``)
    ranked: list[str] = field(default_factory=list)
    cued: list[str] = field(default_factory=list)
    vote: Any = None               # the pack example lines' vote (pipelines.check_index.Vote)
    fit: dict[str, float] = field(default_factory=dict)
    decision: str = NO_ROLL
    check: str | None = None
    hardest: bool = False
    fired: list[dict[str, str]] = field(default_factory=list)

    @property
    def shares(self) -> dict[str, float]:
        """The example lines' vote, label -> share (``{}`` without a vote)."""
        return getattr(self.vote, "scores", {}) or {}

    @property
    def concepts(self) -> dict[str, list[str]]:
        return getattr(self.pack, "concepts", {}) or {}

    def checks_for(self, concept: str) -> list[str]:
        """The pack's checks for a kind of act shared across games (``persuade``, ``grapple``...)."""
        return [c for c in self.concepts.get(concept, []) if c in self.pack.checks]


@dataclass(frozen=True)
class Rule:
    id: str
    stage: str
    applies: Callable[[Context], Verdict | None]
    doc: str = ""


RULES: dict[str, Rule] = {}


def rule(rule_id: str, stage: str) -> Callable[[Callable[[Context], Verdict | None]], Callable[[Context], Verdict | None]]:
    """Register ``applies(ctx) -> Verdict | None`` under ``rule_id`` in ``stage``; its docstring's
    first line is what ``vgm`` and docs/play.md show for it."""
    if stage not in STAGES:
        raise ValueError(f"rule {rule_id}: stage {stage!r} is not one of {', '.join(STAGES)}")

    def register(applies: Callable[[Context], Verdict | None]) -> Callable[[Context], Verdict | None]:
        doc = (applies.__doc__ or "").strip().splitlines()[0] if applies.__doc__ else ""
        RULES[rule_id] = Rule(rule_id, stage, applies, doc)
        return applies

    return register


def rule_ids() -> list[str]:
    return sorted(RULES)


def chosen(ids: Iterable[str]) -> list[Rule]:
    """The registered rules of ``ids``, in order; an unknown id is one clear ``UnknownRule``."""
    chosen = []
    for rule_id in ids:
        if rule_id not in RULES:
            raise UnknownRule(f"adjudicate: unknown rule {rule_id!r}; registered rules are {', '.join(rule_ids())}")
        chosen.append(RULES[rule_id])
    return chosen


def apply_rules(ctx: Context, ids: Iterable[str], stages: Iterable[str] = STAGES) -> Context:
    """Run the listed rules over ``ctx`` stage by stage (only ``stages``, in ``STAGES`` order); a
    refusal ends it. Returns ``ctx``."""
    rules, wanted = chosen(ids), set(stages)
    if any(f["stage"] == "refuse" for f in ctx.fired):
        return ctx
    for stage in (s for s in STAGES if s in wanted):
        for each in (r for r in rules if r.stage == stage):
            verdict = each.applies(ctx)
            if verdict is None:
                continue
            before = ctx.check if ctx.decision == ROLL else ctx.decision
            ctx.decision = verdict.decision or ctx.decision
            ctx.check = verdict.check or ctx.check
            ctx.hardest = ctx.hardest or verdict.hardest
            if verdict.check and not verdict.decision:
                ctx.decision = ROLL
            after = ctx.check if ctx.decision == ROLL else ctx.decision
            ctx.fired.append({"rule": each.id, "stage": stage, "from": str(before), "to": str(after), "reason": verdict.reason})
            if stage == "refuse":
                return ctx
    return ctx
