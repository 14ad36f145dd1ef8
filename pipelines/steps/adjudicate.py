"""``adjudicate``: does the last line call for a roll, and which one.

Whether to roll is a calibrated probability learned from real play (``pipelines.decide``: the
Critical Role DM's own calls), read against a threshold chosen on training data; which check is
the pack's example lines' vote, mixed with the learned ranking where the model knows the pack.
Then the rules the spec lists run (``pipelines.decide.rules``): a refusal needs a stated reason,
and every rule that fires is recorded. With ``mode: hybrid`` a configured model settles the close
calls through one constrained choice (a JSON-schema ``enum``, a grammar on llama.cpp).

Who rolls is the character who spoke the line, unless the line clearly names another
character and not the speaker (``"Oskar, check the door for traps"``).
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rulesets import VgmError

from ..check_index import DECISIONS, IMPOSSIBLE, NO_ROLL, CheckIndex, LineSense, Vote
from ..act_cues import cued_checks
from ..decide import DEFAULT_RULES, Context, LearnedDecision, LineFeatures, apply_rules, chosen, scene_tail, surface, vote_features
from ..decide.features import act_words, previous_block
from ..decide.learned import written_features
from ..decide.registry import ROLL
from ..llm.structured import extract_json
from ..records import Check, MoeInstance
from ..state import PipelineState
from ._conversation import PROMPTS, is_gm, prompt_text, resolve_character, roster
from ._registry import step

__all__ = ["adjudicate", "rank_checks", "decision_schema", "option_lines", "table_system", "acting_turn", "who_rolls"]

OPTION_WORDS = {
    NO_ROLL: "nothing is uncertain: a question, talk, or an easy act; the GM just answers",
    IMPOSSIBLE: "it cannot work, however well they roll; the GM says why",
}


@lru_cache(maxsize=8)
def _shots(path: str) -> tuple[tuple[str, str], ...]:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or []
    return tuple((item["ask"].strip(), item["answer"].strip()) for item in data)


def shot_messages(path: str | Path) -> list[dict[str, str]]:
    """Worked (question, answer) turns from a YAML list of ``{ask, answer}``, as chat messages."""
    out: list[dict[str, str]] = []
    for ask, answer in _shots(str(path)):
        out += [{"role": "user", "content": ask}, {"role": "assistant", "content": answer}]
    return out


def table_system(pack: Any) -> str:
    """The system message every GM call starts with. It names only the game, so it and the
    worked examples after it are the same for every scene and turn: the server's prefix cache
    keeps them, and only the scene and the turn are new tokens."""
    title = getattr(pack, "title", None) or getattr(pack, "name", "")
    return prompt_text("table").format(title=title)



def acting_turn(instance: MoeInstance) -> tuple[str | None, str]:
    """The last line a player spoke: (their character, the text)."""
    for turn in reversed(instance.context):
        if not is_gm(turn.speaker):
            return resolve_character(turn.speaker.split("&")[0].strip(), instance) or turn.speaker, turn.text
    return None, ""


def who_rolls(speaker: str | None, line: str, instance: MoeInstance) -> str | None:
    """The speaker, unless the line plainly hands the act to another character: it opens by
    addressing them ("Oskar, check the door") or says they do it ("Oskar should climb first")."""
    for alias, canon in sorted(roster(instance).items(), key=lambda kv: -len(kv[0])):
        if canon == speaker or len(alias) < 3:
            continue
        name = re.escape(alias)
        if re.match(rf"^\s*{name}\s*,", line, re.I) or re.search(rf"\b{name}\s+(should|will|must|can|could|rolls?|makes?|tries|checks)\b", line, re.I):
            return canon
    return speaker


def without_names(line: str, instance: MoeInstance) -> str:
    """The line with the table's character names taken out: a name says who acts, not what they
    do, yet the embedding hears it ("dutch ties the rope round his waist and swims" sat nearest
    Intimidation lines). Names shorter than three letters stay, as ``who_rolls`` leaves them."""
    names = sorted((alias for alias in roster(instance) if len(alias) >= 3), key=len, reverse=True)
    if not names:
        return line
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:['’]s)?\b"
    return " ".join(re.sub(pattern, " ", line, flags=re.I).split()) or line


def option_lines(ids: list[str], pack: Any) -> str:
    """``- stealth: Stealth — moving unseen and unheard.`` for each id the model may answer."""
    lines = []
    for ident in ids:
        if ident in OPTION_WORDS:
            lines.append(f"- {ident}: {OPTION_WORDS[ident]}")
            continue
        check = pack.check(ident)
        about = f" — {check.description.rstrip('.')}" if check.description else ""
        lines.append(f"- {ident}: {check.name}{about}")
    return "\n".join(lines)


def decision_schema(ids: list[str]) -> dict[str, Any]:
    """A JSON schema whose only valid answers are the given ids."""
    return {"type": "object", "properties": {"choice": {"type": "string", "enum": ids}}, "required": ["choice"]}


def _read_choice(raw: str, ids: list[str]) -> str | None:
    try:
        parsed, _ = extract_json(raw)
    except Exception:  # json_repair gives up on some inputs; read the raw text then
        parsed = None
    value = parsed.get("choice") if isinstance(parsed, dict) else raw
    text = str(value or "").strip().strip("\"'` .").lower()
    return text if text in ids else None


def _recent(instance: MoeInstance, n: int) -> str:
    lines = [f"{t.speaker}: {' '.join(t.text.split())}" for t in instance.context[1:-1][-n:]]
    return "\n".join(line if len(line) < 200 else line[:197] + "..." for line in lines)


def rank_checks(vote: Vote, fit: dict[str, float], learned: dict[str, float], candidates: int, floor: float,
                model: LearnedDecision | None = None, style: float = 0.5) -> list[str]:
    """The checks, best first. Where the model knows the pack, its learned mix of the example
    lines' vote and its own P(check | a check is called) (``LearnedDecision.rank_checks``, weighed
    by how like the example lines the line is worded); elsewhere the vote, reordered by how each
    suits the scene among the checks it gives a fair share."""
    if learned and model is not None:
        mixed = model.rank_checks(vote, fit, learned, style)
        if mixed:
            return mixed
    voted = vote.candidates(max(candidates, 8))
    top = max((vote.scores.get(c, 0.0) for c in voted), default=0.0)
    score = {c: fit.get(c, math.log(max(vote.scores.get(c, 0.0), 1e-9))) for c in voted}
    weak = {c for c in voted if vote.scores.get(c, 0.0) < floor * top}
    return sorted(score, key=lambda c: (c in weak, -score[c]))


def _close_call(p: float, threshold: float, margin: float) -> bool:
    """Whether ``p`` lies within ``margin`` (in log-odds) of the threshold: a call a stronger model may make."""
    logit = lambda q: math.log(max(q, 1e-6) / max(1 - q, 1e-6))  # noqa: E731
    return abs(logit(p) - logit(threshold)) < margin


@step("adjudicate", needs_model=lambda args: args.get("mode", "learned") != "learned")
def adjudicate(rules: list[str] | None = None, mode: str = "learned", threshold: float | None = None,
               model_file: str | None = None, k: int = 10, candidates: int = 3, always_roll: bool = False,
               scene_weight: float = 0.5, scene_floor: float = 0.05, borrow: bool = True,
               drop_names: bool = True, margin: float = 0.5, recent: int = 3, max_tokens: int = 16, shots: bool = True):
    """Roll or not, and which check, for the last player line: learned from real play, then the listed rules.

    Args:
        rules: the registered rule ids to run (``pipelines.decide.rules``), in order within their
            stage; ``None`` runs ``DEFAULT_RULES``, ``[]`` none. An ablation drops one id.
        mode: ``learned`` (no model call: the calibrated probability against the play threshold)
            or ``hybrid`` (a line whose probability lies within ``margin`` log-odds of the
            threshold goes to the configured model, which picks among ``no_roll``, the leading
            checks and ``impossible`` through a JSON-schema enum) or ``model`` (the model makes
            that choice for every line no rule refused: for a strong model, and for scripted tests).
        threshold: roll when P(roll) reaches this; the model file's (chosen on training data) by default.
        model_file: a decision model built by ``vgm play learn``; the shipped one by default.
        k / candidates: the nearest example lines that vote on *which* check; checks kept in the ranking.
        always_roll: MOE asks which check a GM called at a moment one was called: always roll.
        scene_weight / scene_floor: how far the scene reorders the vote's leading checks
            (``CheckIndex.fit``), and which of them it may reorder at all.
        borrow: check centres also shaped by other games' lines for the same kind of act.
        drop_names: the vote hears the line without the table's names (who acts is not what they do).

    Options read from the run: ``scene``, ``hint_checks`` (a secret's checks the act reaches for),
    ``without_magic``, ``blind_in_dark``, ``own_checks`` ({character: check keys}), ``party``,
    ``powers`` ({character: spells and what the sheet grants}), ``world_answers`` (the kind of answer
    the GM's world holds for a question it answers outright). The step's record keeps ``p_roll``, ``threshold``, ``ranked``, every rule that fired
    (``fired``: id, stage, from, to, reason) and the final ``choice``.
    """
    if mode not in ("learned", "hybrid", "model"):
        raise VgmError(f"adjudicate: mode {mode!r} is not learned, hybrid or model")
    chosen_rules = list(DEFAULT_RULES if rules is None else rules)
    chosen(chosen_rules)  # an unknown id is an error when the spec is built, not at the first line

    async def run(state: PipelineState) -> PipelineState:
        pack, options = state.pack, state.options
        learned = options.get("decision_model") or (LearnedDecision.load(model_file) if model_file else LearnedDecision.shipped())
        speaker, line = acting_turn(state.instance)
        who = who_rolls(speaker, line, state.instance)
        scene = str(options.get("scene", ""))
        index = options.get("check_index") or CheckIndex.for_pack(pack)
        which = options.get("check_index") or (CheckIndex.for_pack(pack, borrow=True) if borrow else index)
        act = without_names(line, state.instance) if drop_names else line
        said, tail = " ".join(line.split()) or " ", scene_tail(scene) or " "
        before = state.instance.context[-2] if len(state.instance.context) >= 2 else None
        by_gm = before is None or is_gm(before.speaker)
        earlier = " ".join(before.text.split()) or " " if before is not None and not by_gm else None
        deed = act_words(line) if learned.written_act and not always_roll else None  # what the line does, heard alone
        texts = list(dict.fromkeys([said, act, tail, *([earlier] if earlier else []), *([deed] if deed else [])]))
        vectors = dict(zip(texts, index.embed(texts))) if len(index) else {}
        q_act = vectors.get(act)
        vote = which.vote(act, k=k, exclude=set(DECISIONS) if always_roll else None, query=q_act) if len(index) else None
        record = state.step_record("adjudicate")
        if vote is None or not vote.scores:
            record.error = f"{pack.name} has no example lines to decide by: no roll"
            state.decision, state.checks = NO_ROLL, []
            return state
        blocks = LineFeatures(line=vectors[said][None], scene=vectors[tail][None],
                                previous=previous_block(vectors.get(earlier), by_gm, len(vectors[said]))[None],
                                vote=vote_features(index, vectors[said], said)[None], surface=surface(line, scene)[None])
        features, for_checks = blocks.matrix(learned.blocks), blocks.matrix(learned.check_blocks)
        style = float(learned.style(vectors[said])[0])
        cut = learned.threshold if threshold is None else threshold
        p_written, unlikely, doubted = 0.0, False, False
        if mode == "model" and features.shape[1] != learned.width:
            p_real = p_roll = 0.5  # an index embedded otherwise (a test's): the model decides every line anyway
        else:
            p_real = float(learned.p_roll(features)[0])
            not_no_roll = 1.0 - float(blocks.vote[0, 1])
            p_roll = learned.p_play(p_real, style, not_no_roll)
            written = None if always_roll else learned.p_written(
                written_features(vectors[said], vectors[tail], p_roll, cut, p_real, style, not_no_roll, vectors[deed] if deed else None))
            if written is not None:
                p_roll, p_written, unlikely, doubted = learned.weigh_written(p_roll, cut, written[0], style)
        knows = learned.ruleset == pack.name and for_checks.shape[1] == learned.check_w.shape[1]
        by_learning = dict(zip(learned.checks, learned.check_scores(for_checks)[0].tolist())) if knows else {}
        # the learned mix weighs the vote among checks only, as it was fitted (the whole vote also
        # weighs no-roll lines); a pack the model does not know keeps the whole vote's ranking
        mixed = knows and learned.mix is not None and not always_roll
        checks_vote = which.vote(act, k=k, exclude=set(DECISIONS), query=q_act) if mixed else vote
        fit = which.fit(checks_vote, "" if always_roll else scene, scene_weight)
        ranked = rank_checks(checks_vote, fit, by_learning, candidates, scene_floor, learned, style)[: max(candidates, 5)]
        bars = {"implausible_at": learned.implausible_at, "refuse_at": learned.refuse_at, "written_refuse_at": learned.written_refuse_at}
        ctx = Context(line=line, act=act, scene=scene, speaker=speaker, who=who, pack=pack, p_roll=p_roll, ranked=ranked,
                      p_impossible=0.0 if always_roll else _pooled_impossible(options, index, vectors, said),
                      p_unworkable=0.0 if always_roll or not _votes(learned, vectors[said]) else float(learned.p_impossible(vectors[said], vectors[tail])[0]),
                      options={**bars, **options, "party": list(roster(state.instance))}, vote=vote, fit=fit,
                      p_written=p_written, unlikely=unlikely, doubted=doubted, cued=[] if always_roll else cued_checks(act, pack, scene))
        ctx.decision = ROLL if always_roll or p_roll >= cut else NO_ROLL
        ctx.check = ranked[0] if ranked else None
        record.parsed = {
            "p_roll": round(p_roll, 4), "p_real": round(p_real, 4), "threshold": round(cut, 4), "ranked": ranked, "style": round(style, 3),
            "p_impossible": round(ctx.p_impossible, 4), "p_unworkable": round(ctx.p_unworkable, 4), "p_written": round(p_written, 4),
            "vote": {lab: round(s, 3) for lab, s in sorted(vote.scores.items(), key=lambda kv: -kv[1])[:5]},
            "nearest": [(n.label, n.text, round(n.similarity, 3)) for n in vote.neighbours[:3]],
        }
        if not always_roll:
            apply_rules(ctx, chosen_rules, stages=("refuse",))
        refused = next((f for f in ctx.fired if f["stage"] == "refuse"), None)
        by = "rule" if refused else "learned"
        asks = mode == "model" or (mode == "hybrid" and _close_call(p_roll, cut, margin))
        if asks and state.model is not None and not refused and not always_roll:
            ids = [NO_ROLL, *ranked[:candidates], IMPOSSIBLE]
            picked = await _ask_model(state, record, ids, speaker, line, scene, recent, max_tokens, shots)
            if picked is not None:
                ctx.decision, ctx.check, by = (picked, ctx.check, "model") if picked in DECISIONS else (ROLL, picked, "model")
        if not always_roll:
            apply_rules(ctx, chosen_rules, stages=("check", "settle"))
        if ctx.decision == ROLL and not ctx.check:
            ctx.decision = NO_ROLL
        record.parsed.update({"fired": ctx.fired, "choice": ctx.check if ctx.decision == ROLL else ctx.decision, "by": by,
                              "hardest": ctx.hardest and ctx.decision == ROLL})
        if refused:
            record.parsed["rule"] = refused["reason"]
        state.decision = ctx.decision
        state.checks = [Check(character=who, skill=ctx.check)] if ctx.decision == ROLL and who and ctx.check else []
        return state

    return run


def _votes(learned: LearnedDecision, vector: Any) -> bool:
    """Whether the model's impossible-act vote reads vectors of this width (a test's own index may embed otherwise)."""
    return learned.votes_impossible and learned.impossible_w.shape[0] == 3 * len(vector)


def _pooled_impossible(options: dict, index: CheckIndex, vectors: dict, said: str) -> float:
    """The packs' pooled impossible-act direction on the line (what the hardest roll's bar reads).

    The direction lives in MiniLM's space: an index embedded otherwise (a test's own) has none, and
    reads 0.0 unless the caller hands one (``impossible_sense``), so it never loads MiniLM for nothing.
    """
    sense = options.get("impossible_sense")
    if sense is None:
        if not index.packaged:
            return 0.0
        sense = LineSense.from_packs("impossible")
    same_space = getattr(sense, "embed", None) is index.embed
    return sense(said, query=vectors[said] if same_space else None)


async def _ask_model(state: PipelineState, record: Any, ids: list[str], speaker: str | None, line: str, scene: str,
                     recent: int, max_tokens: int, shots: bool) -> str | None:
    """One constrained choice among ``ids`` (a JSON-schema enum: a grammar on llama.cpp); ``None``
    when the answer is not one of them (the learned decision stands, said in the record)."""
    pack, options = state.pack, state.options
    messages = [
        {"role": "system", "content": table_system(pack)},
        *(shot_messages(PROMPTS / "adjudicate_shots.yaml") if shots else []),
        {"role": "user", "content": prompt_text("adjudicate", options).format(
            scene=" ".join(scene.split()) or "(not described)", recent=_recent(state.instance, recent),
            who=speaker or "A player", line=" ".join(line.split()), options=option_lines(ids, pack)).strip()},
    ]
    reply = await state.model.complete(messages, step="adjudicate", max_tokens=max_tokens, temperature=0.0,
                                       json_schema=decision_schema(ids))
    record.raw, record.usage = reply.text, reply.usage
    picked = _read_choice(reply.text, ids)
    if picked is None:
        record.parse_ok = False
        record.dropped.append(f"choice {reply.text.strip()[:40]!r}")
        record.error = f"the model's answer was not one of {', '.join(ids)}; the learned decision stands"
    return picked
