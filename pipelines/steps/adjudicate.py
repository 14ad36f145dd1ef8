"""``adjudicate``: does the last line call for a roll, and which one — decided for a small model.

A 0.5B model asked to free-pick among 30-90 check names picks badly (it calls Dexterity for
everything). Here the pack's example lines decide what they can: the line is embedded, its
nearest examples vote (``pipelines.check_index``), and when the vote is clear that is the
answer. Otherwise the model makes one small constrained choice among a handful of ids —
``no_roll``, the top candidate checks, ``impossible`` — through a JSON-schema ``enum``, which
the llama.cpp server turns into a grammar, so it can only answer with a valid id. An answer
that is still not one of them (a server without grammars) falls back to the vote, said plainly.

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
from ..act_cues import cued_checks, names_effort, names_strength_only
from ..impossible_acts import impossible_act, impossible_in_era, impossible_in_scene, impossible_without_magic
from ..llm.structured import extract_json
from ..records import Check, MoeInstance
from ..routine_acts import routine_only
from ..gatekeepers import asks_in_words, consoles, informs_willing, keeper_in, said_kind, social_kind
from ..speech import addressed, asks_in_report, asks_only, asks_the_gm, is_talk, narrated, speaks, spoken_checks, without_quotes
from ..state import PipelineState
from ._conversation import PROMPTS, is_gm, prompt_text, resolve_character, roster
from ._registry import step

__all__ = ["adjudicate", "decision_schema", "option_lines", "table_system", "acting_turn", "who_rolls"]

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


# "Out of character: does her oath allow it?", "(OOC) how far is the town?": a player asks the GM, not the world
OUT_OF_CHARACTER = re.compile(r"\s*[(\[]?\s*(?:ooc\b|out of character\b|out-of-character\b)", re.I)


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


def _roll_share(vote: Vote, weights: dict[str, float]) -> float:
    """The vote's share for rolling at all, once ``no_roll``/``impossible`` are weighed."""
    rest = {lab: vote.scores.get(lab, 0.0) for lab in DECISIONS}
    roll = max(0.0, 1.0 - sum(rest.values()))
    total = roll + sum(share * weights.get(lab, 1.0) for lab, share in rest.items())
    return roll / total if total else 0.0


def _talk_past_keeper(line: str, scene: str, speaker: str | None, pack: Any, instance: MoeInstance) -> str | None:
    """The social check for words said to a gatekeeper the scene sets against the speaker
    (``pipelines.gatekeepers``); ``None`` for a question for facts, for words put to a fellow
    player character ("Dutch, keep an eye on that door"), or where no one stands in the way."""
    if not (speaks(line) or asks_in_words(line)) or asks_only(line) or not keeper_in(scene):
        return None
    named, table = (addressed(line) or "").lower(), roster(instance)
    if named and (table.get(named) or table.get(named.split()[0])) not in (None, speaker):
        return None
    checks = [c for c in (getattr(pack, "concepts", {}) or {}).get(social_kind(line), []) if c in pack.checks]
    return checks[0] if checks else None


def _hinted_check(hints: list[str], line: str, pack: Any, vote: Vote, cued: list[str]) -> str:
    """Which of a secret's family of checks the act calls: the kind the line names outright
    ("studies his face to see if he is afraid" reads him: Perception); for words (said or told), the
    social check of their kind ("greets the chief politely and asks what the toll is for" is
    Diplomacy, not the family's first-listed Perception); for a deed, the one the nearest lines rank
    highest among the family's other checks."""
    named = [c for c in cued if c in hints]
    if named:
        return named[0]
    spoken = spoken_checks(pack)
    if speaks(line) or narrated(line) != without_quotes(line):
        told = without_quotes(line)
        kind = "intimidate" if social_kind(line) == "intimidate" else "deceive" if _LIES.search(told) else "persuade"
        social = [c for c in (getattr(pack, "concepts", {}) or {}).get(kind, []) if c in hints]
        if social:
            return social[0]
    deeds = [c for c in hints if c not in spoken] or hints
    return max(deeds, key=lambda c: (vote.scores.get(c, 0.0), -hints.index(c)))


_LIES = re.compile(r"\b(?:lies?|lying|claims?|pretends?|poses? as|bluffs?|passes (?:himself|herself|themselves) off)\b", re.I)


def _confident(vote: Vote, share: float, similarity: float) -> bool:
    return vote.top is not None and vote.share >= share and vote.best.get(vote.top, 0.0) >= similarity


@step("adjudicate", needs_model=lambda args: args.get("mode", "retrieval") != "retrieval")
def adjudicate(k: int = 10, candidates: int = 3, mode: str = "retrieval", share: float = 0.75,
               similarity: float = 0.6, recent: int = 3, max_tokens: int = 16, shots: bool = True, always_roll: bool = False,
               impossible_at: float = 1.0, rules: bool = True, decide_k: int = 20, decide_temperature: float = 0.1,
               no_roll_weight: float = 2.0, impossible_weight: float = 1.0, talk_checks: bool = True,
               drop_names: bool = True, dice_weight: float = 0.5, roll_at: float = 0.6, borrow: bool = True,
               cues: bool = True, impossible_share: float = 0.25, scene_weight: float = 0.5, routine: bool = True,
               keepers: bool = True, scene_floor: float = 0.05):
    """Roll or not, and which check, for the last player line.

    Args:
        k: how many nearest example lines vote.
        candidates: how many checks the model may choose among.
        mode: ``retrieval`` (the vote alone, no model call: the default, because on our case
            sets the shipped 0.5B model picked worse than the vote even between its two leading
            labels, docs/play.md), ``hybrid`` (the vote decides when it is clear; a close call
            between its two leading labels goes to the model) or ``model`` (the model always
            chooses among ``no_roll``, the candidate checks and ``impossible``).
        share / similarity: how clear the vote must be to skip the model: the top label's share
            of the vote, and its nearest example's cosine similarity.
        recent: table lines shown to the model before the acting line.
        max_tokens: the answer is one short JSON object.
        shots: show the worked answers (``prompts/adjudicate_shots.yaml``) before the question.
        always_roll: never answer ``no_roll``/``impossible`` — MOE asks *which* check a GM called
            at a moment where one was called, so there "no roll" can only be wrong.
        impossible_at: a line the pooled impossible-act classifier (``LineSense``) rates at
            least this likely is refused whatever the vote says. Off (1.0) by default: at 0.6 it
            caught one more impossible act on the dev cases but refused four ordinary acts on the
            held-out ones (docs/play.md).
        decide_k / decide_temperature: the wider, softer vote that decides *whether* to roll
            (roll, ``no_roll``, ``impossible``); *which* check is still told by the ``k`` nearest.
            A line's nearest single example is a poor judge of whether it needs dice; twenty
            neighbours, weighed more evenly, are a better one (docs/play.md).
        impossible_share: the example lines alone refuse an act only when ``impossible`` holds at
            least this share of that vote; below it the next label is taken. A refusal on a weak
            plurality (0.17 for "grits his teeth and yanks the tarp back") told a player their
            ordinary act could not work; on the tuned sets 0.25 kept every refusal and 0.3 lost five.
        no_roll_weight / impossible_weight: scale those labels' shares of that vote. Every
            check brings a dozen example lines and ``no_roll`` only one list, so without a prior
            a friendly question lands on whichever check's nouns it shares.
        rules: refuse acts whose own words say they cannot happen (``pipelines.impossible_acts``:
            moving a building, walking on water...), a jump across a gap the scene says is
            wider than anyone jumps, magic worked by one whose sheet gives none, or a thing the
            scene's year (or the pack's ``rules.era``) does not have yet, before any vote or
            model is asked.
        talk_checks: a line that only speaks (``pipelines.speech.is_talk``), by the one who would
            roll, can only call for a check the pack's examples show being spoken (persuading,
            lying, threatening); when the vote names another check, talk gets no roll. The
            embedding hears a question's nouns: "Maren, what do you know about the bell?" sat
            nearest a Dexterity save about a falling bell tower.
        dice_weight / roll_at: a second opinion on a line the vote would answer with no roll. The
            vote hears a line's topic ("I grab the healer's kit and try to treat the bite" sat among
            no-roll lines about kits and bites); the pooled "needs dice" direction
            (``LineSense("dice")``) hears the effort in it. When the mean of the vote's share for
            rolling and that direction (``dice_weight`` of it) reaches ``roll_at``, the line rolls
            the vote's leading check. It only ever adds a roll: letting it also take rolls away
            cost more right checks than it saved no-roll answers (docs/play.md). ``0`` turns it off.
        borrow: *which* check is also told by how near the line lies to other games' lines for
            the same kind of act (the packs' shared ``concepts``; ``CheckIndex.for_pack``). Those
            lines shape each check's centre only; *whether* to roll is this game's lines alone.
        cues: a line that names its kind of act outright ("shoot the rope", "hold my breath",
            "stands his ground": ``pipelines.act_cues``) rolls that kind's check, whatever the
            nearest lines' nouns say. On *whether* to roll it only speaks as the needs-dice
            direction does (``dice_weight``): a named act counts as plainly needing dice, and the
            vote must still give rolling a fair share.
        scene_weight: *which* check also weighs how well each of the vote's leading checks suits
            the scene (``CheckIndex.fit``: the vote times the scene's own vote, that to this power).
            The line alone hears "keep her going, slow and steady" as riding whether the scene is a
            mule trail or an icy road. On the tuned sets 0.5 took right check from 0.817 to 0.850 (20
            fixed, 8 broken) and on two unseen ones from 0.708 to 0.750 (6 fixed, 3 broken); 0 is off.
        scene_floor: the scene reorders only the checks whose share of the nearest lines' vote is at
            least this part of the leading check's; the rest follow. A riverbank scene turned a
            unanimous vote for Perception ("I search through the reeds for the boat") into Survival;
            over the 28 read sets 0.05 fixed 7 checks and broke 1 (right check 0.895 → 0.901; 0.03
            and 0.1 did the same or worse).
        routine: a line that only keeps gear, shuts a door or passes idle time, with nothing
            pressing in it or the scene (``pipelines.routine_acts``), gets no roll whatever check
            the vote heard in its nouns ("load the revolver, holster it" is not a shot).
        keepers: words said to a gatekeeper the scene sets against the speaker (a guard blocking
            the gate, an inspector prying at a crate: ``pipelines.gatekeepers``) roll the social
            check their words are, where the vote heard friendly talk and called no roll.
        drop_names: embed the line without the table's character names (``without_names``);
            the rules, the talk test and who rolls still read the whole line.

    Options read from the pipeline run: ``scene`` (text for the shared system message),
    ``hint_checks`` (checks the scene points at for this line, e.g. a secret's, put first) and
    ``without_magic`` (the characters whose sheets give no spells or powers) and ``blind_in_dark`` (those
    who need a light to see by).
    """
    if mode not in ("hybrid", "retrieval", "model"):
        raise VgmError(f"adjudicate: mode {mode!r} is not hybrid, retrieval or model")

    async def run(state: PipelineState) -> PipelineState:
        pack, options = state.pack, state.options
        speaker, line = acting_turn(state.instance)
        index = options.get("check_index") or CheckIndex.for_pack(pack)
        which = options.get("check_index") or (CheckIndex.for_pack(pack, borrow=True) if borrow else index)
        act = without_names(line, state.instance) if drop_names else line
        query = index.query(act) if len(index) else None  # one embedding serves both votes
        vote = which.vote(act, k=k, exclude=set(DECISIONS) if always_roll else None, query=query)
        hints = [c for c in options.get("hint_checks", []) if c in pack.checks]
        scene = str(options.get("scene", ""))
        fit = which.fit(vote, "" if always_roll else scene, scene_weight)  # MOE asks which check the log called
        # the scene reorders only checks the nearest lines give a fair share: a unanimous vote for
        # Perception is not turned into Survival because the scene is a riverbank
        voted = vote.candidates(candidates)
        floor = scene_floor * max((vote.scores.get(c, 0.0) for c in voted), default=0.0)
        leaders = sorted(voted, key=lambda c: (vote.scores.get(c, 0.0) < floor, -fit.get(c, -math.inf)))
        checks = list(dict.fromkeys([*hints, *leaders]))[: max(candidates, len(hints))]
        record = state.step_record("adjudicate")
        record.parsed = {
            "vote": {lab: round(s, 3) for lab, s in sorted(vote.scores.items(), key=lambda kv: -kv[1])[:5]},
            "nearest": [(n.label, n.text, round(n.similarity, 3)) for n in vote.neighbours[:3]],
            "leaders": leaders,  # the vote's leading checks, in the order the scene left them
        }
        use_model = mode == "model" or (mode == "hybrid" and not _confident(vote, share, similarity))
        # hybrid: the model only settles a close call between the vote's two leading labels
        leading = [lab for lab in vote.ranked() if lab in (*DECISIONS, *checks)][:2]
        judged = vote if always_roll else index.vote(act, k=decide_k, temperature=decide_temperature, query=query)
        weights = {NO_ROLL: no_roll_weight, IMPOSSIBLE: impossible_weight}
        top = judged.weighted_top(weights)
        if top == IMPOSSIBLE and not always_roll and judged.scores.get(IMPOSSIBLE, 0.0) < impossible_share:
            top = judged.weighted_top({**weights, IMPOSSIBLE: 0.0})  # too weak a plurality to refuse on
        voted_no_roll = top == NO_ROLL  # the vote's own view: a scene's hint stands in for a check only then
        record.parsed["decide"] = {lab: round(s, 3) for lab, s in sorted(judged.scores.items(), key=lambda kv: -kv[1])[:3]}
        cued = cued_checks(act, pack, "" if always_roll else scene) if cues else []
        concepts = getattr(pack, "concepts", {}) or {}
        if cued and speaks(line) and said_kind(line) == "intimidate" and set(cued) & set(concepts.get("grapple", [])):
            cued = [c for c in concepts.get("intimidate", []) if c in pack.checks]  # lapels grabbed to make the words land
        if dice_weight > 0 and top == NO_ROLL and query is not None:
            sense = options.get("dice_sense") or LineSense.from_packs("dice")
            same_space = getattr(sense, "embed", None) is index.embed  # a test index may embed otherwise
            named = cued or (cues and names_effort(act))  # "dive in after it", "spends the afternoon sifting the files"
            needs_dice = 1.0 if named else sense(act, query=query if same_space else None)
            roll_share = _roll_share(judged, weights)
            record.parsed["dice"] = {"vote": round(roll_share, 3), "sense": round(needs_dice, 3)}
            if (1 - dice_weight) * roll_share + dice_weight * needs_dice >= roll_at:
                top = None  # the direction heard an act the vote took for talk: roll the vote's leading check
        choice = top if top in DECISIONS else (leaders or [NO_ROLL])[0]
        # the line names the kind of act outright: its check over the vote's, and over a topic-only
        # "impossible" ("swims for the far bank, armour and all"); the rules below still refuse
        # ("shoves the whole tower into the sea" names a feat of strength: the cue tells which check, not that it can work)
        brute = bool(cued) and names_strength_only(act)
        if cued and ((choice == IMPOSSIBLE and not brute) or (choice not in DECISIONS and choice not in cued)):
            record.parsed["cue"] = f"{choice} -> one of {', '.join(cued)}"
            choice = max(cued, key=lambda c: fit.get(c, -math.inf))  # the line names the kind of act outright
        if hints and voted_no_roll and not use_model:
            choice = _hinted_check(hints, line, pack, vote, cued)  # the scene has something to find right where they act
        unlikely = 0.0 if always_roll or impossible_at >= 1.0 else (options.get("impossible_sense") or LineSense.from_packs("impossible"))(line)
        record.parsed["p_impossible"] = round(unlikely, 3)
        if unlikely >= impossible_at:
            choice, use_model = IMPOSSIBLE, False  # an act no roll can make succeed is never rolled
        who = who_rolls(speaker, line, state.instance)
        table_talk = bool(OUT_OF_CHARACTER.match(line)) and not always_roll  # to the GM, not the world: no rule judges it
        era = (getattr(pack, "rules", None) or {}).get("era") or {}
        why = (impossible_act(line) or impossible_in_scene(line, scene, who, who in options.get("blind_in_dark", ()))
               or impossible_without_magic(line, who, options.get("without_magic", ()))
               or impossible_in_era(line, scene, era.get("year"), era.get("name", ""))) if rules and not always_roll and not table_talk else None
        if why:
            choice, use_model = IMPOSSIBLE, False
            record.parsed["rule"] = why
        elif table_talk:
            choice, use_model, why = NO_ROLL, False, "out of character"  # table talk to the GM: answered, never rolled
            record.parsed["rule"] = why
        if use_model and state.model is not None:
            ids = [NO_ROLL, *checks, IMPOSSIBLE] if mode == "model" or len(leading) < 2 else leading
            messages = [
                {"role": "system", "content": table_system(pack)},
                *(shot_messages(PROMPTS / "adjudicate_shots.yaml") if shots else []),
                {"role": "user", "content": prompt_text("adjudicate", options).format(
                    scene=" ".join(str(options.get("scene", "")).split()) or "(not described)",
                    recent=_recent(state.instance, recent), who=speaker or "A player", line=" ".join(line.split()),
                    options=option_lines(ids, pack)).strip()},
            ]
            reply = await state.model.complete(messages, step="adjudicate", max_tokens=max_tokens, temperature=0.0,
                                               json_schema=decision_schema(ids))
            record.raw, record.usage = reply.text, reply.usage
            picked = _read_choice(reply.text, ids)
            if picked is None:
                record.parse_ok = False
                record.dropped.append(f"choice {reply.text.strip()[:40]!r}")
                record.error = f"the model's answer was not one of {', '.join(ids)}; the example lines decided ({choice})"
            else:
                choice = picked
        if talk_checks and not always_roll and choice not in DECISIONS and who == speaker and is_talk(line) \
                and choice not in spoken_checks(pack) and choice not in cued:  # "Deal me in." is a bet, said aloud
            record.parsed["talk"] = f"{pack.check(choice).name} is not a check talk calls for"
            choice = NO_ROLL
        if keepers and choice == NO_ROLL and not (always_roll or table_talk) \
                and (pressed := _talk_past_keeper(line, scene, speaker, pack, state.instance)):
            record.parsed["keeper"] = f"words meant to get past the scene's gatekeeper: {pressed}"
            choice = pressed
        # a plea heard as a threat, or a threat as a plea, by the nearest lines (a lie with a "please" in it stays a lie)
        pressing = {c for kind in ("persuade", "intimidate") for c in concepts.get(kind, [])} - set(concepts.get("deceive", []))
        if keepers and not (always_roll or table_talk) and choice in pressing and (kind := said_kind(line)) \
                and choice not in concepts.get(kind, []) and (plain := [c for c in concepts.get(kind, []) if c in pack.checks]):
            record.parsed["talk"] = f"the words are plainly a {'plea' if kind == 'persuade' else 'threat'}: {plain[0]}, not {choice}"
            choice = plain[0]
        if keepers and not (always_roll or table_talk) and choice in spoken_checks(pack) and consoles(line):
            record.parsed["talk"] = "sympathy offered, asking nothing, needs no roll"
            choice = NO_ROLL
        if keepers and not (always_roll or table_talk) and choice in spoken_checks(pack) and informs_willing(line, scene):
            record.parsed["talk"] = "telling a listener what they asked to hear needs no roll"
            choice = NO_ROLL
        if not always_roll and choice not in DECISIONS and who == speaker and (asks_only(line) or (asks_in_report(line) and not hints)):
            record.parsed["talk"] = "a question for facts is answered by the one asked, not rolled"
            choice = NO_ROLL
        if not always_roll and choice not in DECISIONS and asks_the_gm(line):
            record.parsed["talk"] = "a question to the GM for plain facts is answered, not rolled"
            choice = NO_ROLL
        # (the vote's "impossible" too, when no rule said why: "fills the waterskins at the spring" sat among lines about stopping waterfalls)
        if routine and not always_roll and (choice not in DECISIONS or (choice == IMPOSSIBLE and not why)) and routine_only(act, scene):
            record.parsed["routine"] = "gear kept up, a door shut or idle time, with nothing pressing: no roll"
            choice = NO_ROLL
        record.parsed["choice"] = choice
        record.parsed["by"] = "model" if use_model and record.parse_ok and state.model is not None else "rule" if why else "examples"
        if choice in DECISIONS:
            state.decision = choice
            state.checks = []
        else:
            state.decision = "roll"
            state.checks = [Check(character=who, skill=choice)] if who else []
        return state

    return run
