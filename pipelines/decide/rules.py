"""The GM's general decision rules, registered by id (``registry.rule``).

Each rule reads the ``Context`` the decision step built (the line read once, the scene, the
learned probability and check ranking) and returns a ``Verdict`` or ``None``. docs/play.md keeps
one row per rule: how often it fires on real table lines, how often rightly, and what it changes
on written sets it was not written from.
"""
from __future__ import annotations

import re

from ..act_cues import CUE_CONCEPTS
from ..gatekeepers import _SELF_CLAIM, _presses, asks_in_words, consoles, informs_willing, keeper_in, said_kind, social_kind
from ..routine_acts import routine_only
from ..speech import addressed, asks_in_report, asks_only, asks_the_gm, is_talk, speaks, spoken_checks, without_quotes
from .scene_facts import is_question
from .impossible import impossible_act, impossible_in_era, impossible_in_scene, impossible_power, impossible_without_magic
from .registry import IMPOSSIBLE, NO_ROLL, ROLL, Context, Verdict, rule

__all__ = ["OUT_OF_CHARACTER", "DEFAULT_RULES", "words_only"]

# "Out of character: does her oath allow it?", "(OOC) how far is the town?": a player asks the GM, not the world
OUT_OF_CHARACTER = re.compile(r"\s*[(\[]?\s*(?:ooc\b|out of character\b|out-of-character\b)", re.I)

OWN_SHARE = 0.5  # a check the sheet has replaces the leading one when the example lines back it at least this share as well

# the rules the shipped ``adjudicate`` spec runs, in order (pipelines/specs/adjudicate.yaml lists the same)
DEFAULT_RULES = (
    "table_talk", "impossible_kind", "impossible_scene", "impossible_without_magic", "impossible_power", "impossible_era",
    "impossible_learned", "impossible_written",
    "named_act", "secret_within_reach", "own_lore", "own_skill", "plain_social_kind",
    "gatekeeper", "condolence", "willing_listener", "question_for_facts", "question_to_gm", "question_attempts_nothing",
    "world_answers", "routine_upkeep", "implausible",
)


# ---- refuse: the act cannot work (a stated reason), or it is not an act at all ---------------------------

@rule("table_talk", "refuse")
def table_talk(ctx: Context) -> Verdict | None:
    """A line marked out of character is asked of the GM, not done in the world: answered, never rolled."""
    return Verdict(NO_ROLL, reason="out of character") if OUT_OF_CHARACTER.match(ctx.line) else None


@rule("impossible_kind", "refuse")
def impossible_kind(ctx: Context) -> Verdict | None:
    """A kind of act no roll makes work, told by its own words (moving a building, walking on water)."""
    why = impossible_act(ctx.line)
    return Verdict(IMPOSSIBLE, reason=why) if why else None


@rule("impossible_scene", "refuse")
def impossible_scene(ctx: Context) -> Verdict | None:
    """An act on something the scene says is gone, or across a gap or range the scene says is too far."""
    why = impossible_in_scene(ctx.line, ctx.scene, ctx.who, ctx.who in ctx.options.get("blind_in_dark", ()))
    return Verdict(IMPOSSIBLE, reason=why) if why else None


@rule("impossible_without_magic", "refuse")
def impossible_without_magic_rule(ctx: Context) -> Verdict | None:
    """Magic worked by a character whose sheet gives none."""
    why = impossible_without_magic(ctx.line, ctx.who, ctx.options.get("without_magic", ()), ctx.options.get("game_spells", ()))
    return Verdict(IMPOSSIBLE, reason=why) if why else None


@rule("impossible_power", "refuse")
def impossible_power_rule(ctx: Context) -> Verdict | None:
    """A spell the sheet does not list, or a power nothing on the sheet gives (flight, reading minds...)."""
    why = impossible_power(ctx.line, ctx.who, ctx.options.get("powers", {}), ctx.options.get("game_spells", ()))
    return Verdict(IMPOSSIBLE, reason=why) if why else None


@rule("impossible_era", "refuse")
def impossible_era(ctx: Context) -> Verdict | None:
    """A thing the scene's year (or the game's era) does not have yet."""
    era = (getattr(ctx.pack, "rules", None) or {}).get("era") or {}
    why = impossible_in_era(ctx.line, ctx.scene, era.get("year"), era.get("name", ""))
    return Verdict(IMPOSSIBLE, reason=why) if why else None


@rule("impossible_learned", "refuse")
def impossible_learned(ctx: Context) -> Verdict | None:
    """An act the learned impossible-act vote (line and scene, ``eval/play/learn_impossible.py``) puts
    past the bar that refuses at most 0.05% of held-out real turns. Words are never refused by it
    (a question, talk, a question told: "I ask Vane where he learned to play"): only deeds. Nor an act
    that reaches for one of the scenario's secrets: the scenario itself says it can be done ("I climb the
    broken stair up into the bell tower" is how the reliquary is found): the act the secret's trigger
    describes, not one that shares a word with it ("I hurl the whole stone altar through the roof").
    Nor an act that names its kind of challenge outright (swim, climb, ride, shoot: ``ctx.cued``): the
    game has a check for that, and a vote over words and scene does not overrule it; only a stated
    reason does (on the dev sets it refused 17 such possible acts, "swims for the far bank", for 6
    impossible ones; those are rolled at the hardest difficulty instead)."""
    return _voted_refusal(ctx, ctx.p_unworkable, ctx.options.get("refuse_at"))


@rule("impossible_written", "refuse")
def impossible_written(ctx: Context) -> Verdict | None:
    """An act the vote learned from written case lines (``eval/play/learn_written.py``) calls
    impossible past its bar, weighed by how much the line is worded like them: the bar is chosen on
    sets each held out from the fit, to refuse at most ``learn_written.REFUSE_SHARE`` of their
    possible lines. The same lines are spared as by ``impossible_learned`` (words, a named kind of
    challenge, an act the scenario's secret describes)."""
    return _voted_refusal(ctx, ctx.p_written, ctx.options.get("written_refuse_at"))


# the share of the nearest example lines that are acts a GM lets happen, past which no learned vote refuses the act:
# "I order a whiskey and pay with a silver dollar" sits among ordering drinks; on the dev sets the learned vote refused
# 4 such no-roll acts ("takes a long drink from her canteen") and one impossible one
PLAIN_ACT_SHARE = 0.6


def _voted_refusal(ctx: Context, p: float, at: float | None) -> Verdict | None:
    """A learned vote's refusal past its bar, sparing words, a named kind of challenge, the act a secret
    describes and an act the nearest example lines mostly let happen (``PLAIN_ACT_SHARE``): only a stated reason refuses those."""
    if at is None or p < at or words_only(ctx.line) or ctx.cued or ctx.options.get("secret_meant"):
        return None
    if ctx.shares.get(NO_ROLL, 0.0) >= PLAIN_ACT_SHARE:
        return None
    return Verdict(IMPOSSIBLE, reason="nothing anyone could do here makes that work")


# ---- check: which check, where the line or the scene says more than the ranking ------------------------

@rule("named_act", "check")
def named_act(ctx: Context) -> Verdict | None:
    """A line that names its kind of act outright ("shoot the rope", "hold my breath") rolls that kind's check."""
    if ctx.decision != ROLL or not ctx.cued or ctx.check in ctx.cued:
        return None
    cued = ctx.cued
    if speaks(ctx.line) and said_kind(ctx.line) == "intimidate" and set(cued) & set(ctx.concepts.get("grapple", [])):
        cued = ctx.checks_for("intimidate") or cued  # lapels grabbed to make the words land
    best = max(cued, key=lambda c: ctx.fit.get(c, -1e9))
    return Verdict(check=best, reason=f"the line names the act: {best}")


@rule("secret_within_reach", "check")
def secret_within_reach(ctx: Context) -> Verdict | None:
    """An act that reaches for a hidden thing of the scene rolls a check that can find it (talk is
    answered instead). An act left unrolled is rolled only when the line names a way of finding it
    ("I kneel and look closely at the floorboards"): on the 200 play lines of bench/play_transcripts.py
    the act's ranking alone made a roll 10 times, rightly once; wading toward the altar or sitting down
    near the sheriff shares the secret's words, not the search."""
    hints = [c for c in ctx.options.get("hint_checks", []) if c in ctx.pack.checks]
    if not hints or _talk(ctx.line) or ctx.decision == IMPOSSIBLE:
        return None
    if ctx.decision != ROLL:
        named = [c for c in ctx.cued if c in hints]
        return Verdict(ROLL, named[0], "the act reaches for something hidden here, the way the line says") if named else None
    if ctx.check in hints or ctx.check in ctx.cued:
        return None  # the line names its own act: searching the cottage for the padlock's key is no lock picked
    # only a check the example lines back at least half as well as the leading one: reading a
    # logbook may become Library Use, picking a lock never becomes a search
    shares = ctx.shares
    top = max((shares.get(c, 0.0) for c in ctx.ranked[:3]), default=0.0)
    leading = [c for c in ctx.ranked[:3] if c in hints and shares.get(c, 0.0) >= top / 2]
    return Verdict(check=leading[0], reason=f"{leading[0]} is what finds what the act reaches for") if leading else None


@rule("own_lore", "check")
def own_lore(ctx: Context) -> Verdict | None:
    """A recall whose topic the line (or the scene where it speaks of the line's matter) names uses the character's own Lore."""
    families = getattr(ctx.pack, "families", {}) or {}
    recall = {c for concept in CUE_CONCEPTS["recall"] for c in ctx.concepts.get(concept, [])}
    if ctx.decision != ROLL or not families or (ctx.check not in recall and str(ctx.check).split(":")[0] not in families):
        return None
    own = [k for k in ctx.options.get("own_checks", {}).get(ctx.who, []) if ":" in k and k.split(":")[0] in families and k != ctx.check]
    words = set(re.findall(r"[a-z]{5,}", ctx.line.lower()))
    told = [ctx.line.lower(), *(x.lower() for x in re.findall(r"[^.!?]+", ctx.scene) if words & set(re.findall(r"[a-z]{5,}", x.lower())))]
    for check in own:
        topic = [w for w in re.split(r"[_\s-]+", check.split(":", 1)[1].lower()) if len(w) >= 4]
        if topic and any(all(re.search(rf"\b{re.escape(w)}s?\b", x) for w in topic) for x in told):
            return Verdict(check=check, reason=f"{ctx.who} recalls it by their own {check}")
    return None


@rule("own_skill", "check")
def own_skill(ctx: Context) -> Verdict | None:
    """Of the checks that fit the act about as well, the one the character's sheet has (its skill,
    proficiency or trained die), unless the line names its check: a gunslinger with Notice d8
    watching the dealer's hands rolls Notice, not Gambling unskilled."""
    own = set(ctx.options.get("own_checks", {}).get(ctx.who, []))
    if ctx.decision != ROLL or not own or ctx.check in own or ctx.check in ctx.cued:
        return None
    shares = ctx.shares
    lead = shares.get(ctx.check, 0.0)
    close = [c for c in ctx.ranked[1:3] if c in own and c != ctx.check and shares.get(c, 0.0) >= OWN_SHARE * lead]
    return Verdict(check=close[0], reason=f"{close[0]} fits the act too, and the sheet has it") if close else None


@rule("plain_social_kind", "check")
def plain_social_kind(ctx: Context) -> Verdict | None:
    """Words that are plainly a plea or plainly a threat roll that social check (a lie with a please stays a lie)."""
    lying = set(ctx.concepts.get("deceive", []))
    pressing = {c for kind in ("persuade", "intimidate") for c in ctx.concepts.get(kind, [])} - lying
    kind = said_kind(ctx.line) if ctx.decision == ROLL and ctx.check in pressing else None
    if ctx.decision == ROLL and ctx.check in lying and not speaks(ctx.line) and not _LIES.search(ctx.line) and said_kind(ctx.line) is None:
        # a plea told, not quoted, with no lie in it: "I try to convince Nettlejaw that a bridge nobody crosses earns nothing"
        kind = "persuade" if social_kind(ctx.line) == "persuade" else None
    plain = ctx.checks_for(kind) if kind else []
    if not plain or ctx.check in ctx.concepts.get(kind, []):
        return None
    return Verdict(check=plain[0], reason=f"the words are plainly a {'plea' if kind == 'persuade' else 'threat'}")


# ---- settle: whether to roll after all ------------------------------------------------------------------

@rule("gatekeeper", "settle")
def gatekeeper(ctx: Context) -> Verdict | None:
    """Words meant to get past someone the scene sets in the way (a guard at the gate) roll the social check they are."""
    line = ctx.line
    if ctx.decision != NO_ROLL or not (speaks(line) or asks_in_words(line)) or asks_only(line) or not keeper_in(ctx.scene):
        return None
    named = (addressed(line) or "").lower()
    party = {n.lower() for n in ctx.options.get("party", [])}
    if named and (named in party or named.split()[0] in party) and named.split()[0] != (ctx.speaker or "").lower().split()[0]:
        return None  # words to a fellow player character
    checks = ctx.checks_for(social_kind(line))
    return Verdict(ROLL, checks[0], "words meant to get past the scene's gatekeeper") if checks else None


@rule("condolence", "settle")
def condolence(ctx: Context) -> Verdict | None:
    """Sympathy offered, asking nothing, needs no roll."""
    spoken = spoken_checks(ctx.pack)  # the words' check, or the leading one before a rule swapped it for the sheet's
    if ctx.decision == ROLL and (ctx.check in spoken or ctx.ranked[:1] and ctx.ranked[0] in spoken) and consoles(ctx.line):
        return Verdict(NO_ROLL, reason="sympathy offered, asking nothing")
    return None


@rule("willing_listener", "settle")
def willing_listener(ctx: Context) -> Verdict | None:
    """Telling a listener what the scene says they want to hear needs no roll."""
    if ctx.decision == ROLL and ctx.check in spoken_checks(ctx.pack) and informs_willing(ctx.line, ctx.scene):
        return Verdict(NO_ROLL, reason="telling a listener what they asked to hear")
    return None


@rule("question_for_facts", "settle")
def question_for_facts(ctx: Context) -> Verdict | None:
    """A question for facts put to someone is answered by the one asked, not rolled."""
    if ctx.decision == ROLL and ctx.who == ctx.speaker and (asks_only(ctx.line) or asks_in_report(ctx.line)):
        return Verdict(NO_ROLL, reason="a question for facts is answered by the one asked")
    return None


@rule("question_to_gm", "settle")
def question_to_gm(ctx: Context) -> Verdict | None:
    """A question to the GM for plain facts (how many, where, who) is answered, not rolled."""
    if ctx.decision == ROLL and asks_the_gm(ctx.line):
        return Verdict(NO_ROLL, reason="a question to the GM for plain facts")
    return None


# what a question can roll for: noticing, knowing, reading someone, luck ("is there a ladder?" may
# take a Perception roll; it never climbs)
_ASKING_CONCEPTS = ("look", "listen", "search", "read_people", "track", "find_tracks", "nature", "history", "religion",
                    "arcane", "research", "language", "wilds", "navigate", "chance")
# how a question opens: a question word or a verb put first ("what's up there?", "is there a rope?", "any chance...?")
_QUESTION_LEAD = re.compile(r"^\W*(?:(?:ok|okay|so|um|uh|wait|and|hm+|well|hey|oh|also|quick question)[,\s]+)*"
                            r"(?:who|what|where|when|why|how|which|whose|is|are|was|were|do|does|did|can|could|will|would|should|"
                            r"has|have|had|any|anything|anyone|anybody)\b", re.I)
_ASKS_TO_ACT = re.compile(r"^\W*(?:(?:ok|okay|so|um|uh|wait|and|hm+|well)[,\s]+)*(?:can|could|may|might|shall|should|would|will)\s+(?:i|we)\b|"
                          r"\b(?:i|we)\s+(?:want|wanna|try|attempt|will|'ll)\b|\b(?:i'll|we'll|i'm|lemme|let me|let's)\b", re.I)


# a question of what is in plain sight: "how heavy is the chain?", "whats the bell hanging from?", "can i see the
# crack from here" (on CRD3's training lines the DM called a check after 6 of 130 such questions, mostly distances in a fight)
_PLAIN_SIGHT = re.compile(r"^\W*(?:(?:so|and|ok|okay|wait|um|uh),?\s+)?(?:what(?:['’]s|s| is| are| was)?\s+(?:the\s+|that\s+|this\s+|it\s+)?(?:[\w'’-]+\s+){0,4}?"
                          r"(?:made of|built (?:of|from|out of)|hanging (?:from|on|by)|held up by|hung (?:from|on))"
                          r"|how\s+(?:heavy|tall|high|big|wide|deep|thick|far)\b"
                          r"|(?:can|could)\s+(?:i|we)\s+(?:see|make out|tell)\s+(?!(?:if|whether|anything|any\s+(?:sign|trace|clue|trap)))[^?]*?"
                          r"\b(?:from here|from where (?:i|we) (?:am|are|stand)))", re.I)
_LOOKS_FOR_HIDDEN = re.compile(r"\b(?:hidden|secret|trap|traps|clue|clues|anything (?:unusual|odd|strange|weird|off)|signs? of|tracks)\b", re.I)


@rule("question_attempts_nothing", "settle")
def question_attempts_nothing(ctx: Context) -> Verdict | None:
    """A line that only asks ("what's up around the bell? is there a ladder?", "how heavy is the
    chain?") attempts nothing: a roll it is given must be one to notice, know (a Lore too) or read
    someone, or luck, else the world answers it. A question that asks to act ("can I climb up?",
    "can Ilya blink through?") is an act, and so is a line that does something before it asks."""
    if ctx.decision != ROLL or not ctx.check:
        return None
    sentences = [x.strip() for x in re.findall(r"[^.!?]+[.!?]*", without_quotes(OUT_OF_CHARACTER.sub("", ctx.line))) if x.strip(" ,")]
    plain = bool(sentences) and all(_PLAIN_SIGHT.search(x) and (x.endswith("?") or i == len(sentences) - 1) for i, x in enumerate(sentences)) \
        and not _LOOKS_FOR_HIDDEN.search(ctx.line)
    if plain:  # the scene says what is in plain sight: no roll, whichever check leads
        return Verdict(NO_ROLL, reason="a question of what is in plain sight")
    if not sentences or not all(x.endswith("?") and _QUESTION_LEAD.match(x) for x in sentences):
        return None
    names = {n.lower() for n in (ctx.speaker or "").split()[:1]}
    if any(_ASKS_TO_ACT.search(x) or re.match(rf"^\W*(?:can|could)\s+{re.escape(n)}\b", x, re.I) for x in sentences for n in names or {"i"}):
        return None
    kept = {c for concept in _ASKING_CONCEPTS for c in ctx.concepts.get(concept, [])}
    lores = {f for f, d in (getattr(ctx.pack, "families", {}) or {}).items() if getattr(d, "kind", "") == "skill"}  # named Lores
    if ctx.check in kept or str(ctx.check).split(":")[0] in lores:
        return None
    return Verdict(NO_ROLL, reason=f"a question attempts nothing ({ctx.check} is not a roll to notice or know)")


@rule("world_answers", "settle")
def world_answers(ctx: Context) -> Verdict | None:
    """A question the GM's world answers outright needs no roll: what the table was told, who is
    gone, a request out of character, and what an NPC tells anyone or a number the scene states.
    The last two keep a roll the line makes to sway or read someone or to recall what the character
    knows ("Is she telling us everything?", "Do I know whose banner it is?"): the world's answer is
    not what that roll is for. Words that only ask sway no one: "Amos, any wires come for me?" is
    answered, whatever social check the ranking led with; a plea, a threat or a lie keeps its roll.
    The GM reads its world and passes the kind as ``world_answers``."""
    kind = ctx.options.get("world_answers")
    if ctx.decision != ROLL or not kind:
        return None
    if kind in ("npc", "fact"):
        # a fact is kept from a knowledge roll; an NPC from words that sway, or (when the line is not
        # said to them) from watching them: "Mr. Vane, what's the game tonight?" is just answered
        told = without_quotes(ctx.line)
        sways = said_kind(ctx.line) is not None or _presses(ctx.line) or bool(_LIES.search(told) or _COAXING.search(told) or _SELF_CLAIM.search(ctx.line))
        concepts = [*CUE_CONCEPTS["recall"]] if kind == "fact" else \
            [*(["persuade", "deceive", "intimidate"] if sways else []), *([] if speaks(ctx.line) else ["read_people"])]
        kept = {c for concept in concepts for c in ctx.concepts.get(concept, [])}
        known = {f for f, d in (getattr(ctx.pack, "families", {}) or {}).items() if getattr(d, "kind", "") == "skill"}  # named Lores
        if ctx.check in kept or str(ctx.check).split(":")[0] in known:
            return None
    return Verdict(NO_ROLL, reason=f"the world answers the question ({kind})")


@rule("routine_upkeep", "settle")
def routine_upkeep(ctx: Context) -> Verdict | None:
    """Gear kept up, a door shut or idle time, with nothing pressing in the line or the scene: no roll."""
    if ctx.decision == ROLL and routine_only(ctx.act, ctx.scene):
        return Verdict(NO_ROLL, reason="gear kept up, a door shut or idle time, with nothing pressing")
    return None


@rule("implausible", "settle")
def implausible(ctx: Context) -> Verdict | None:
    """An act the impossible-act direction or the written vote (``ctx.unlikely``) finds unlikely,
    with no rule to say why, is rolled at the hardest difficulty: never told as done without dice.
    So is an act the written vote doubts (``ctx.doubted``), unless the line is only words."""
    at = ctx.options.get("implausible_at")
    doubted = ctx.unlikely or (at is not None and ctx.p_impossible >= at) or (ctx.doubted and not words_only(ctx.line))
    if not doubted or not (ctx.check or ctx.ranked) or is_question(ctx.line):
        return None
    if any(f["to"] == NO_ROLL for f in ctx.fired):
        return None  # a rule answered it without dice (a question, upkeep): nothing is attempted
    return Verdict(ROLL, ctx.check or ctx.ranked[0], "unlikely to work: rolled at the hardest difficulty", hardest=True)


# ---- helpers ------------------------------------------------------------------------------------------

# speech told, not quoted: "Tomás flashes his press card and asks the nurse which room..."
_SPEECH = re.compile(r"\b(?:asks?|asking|tells?|telling|says?|saying|begs?|pleads?|inquires?|explains?|warns?|promises?)\b", re.I)


def words_only(line: str) -> bool:
    """A question, talk, or speech told ("Marisol asks the warden captain whether the convoy's wagons can
    get across"): words, which a vote over line and scene never refuses (a reason stated by a rule still may)."""
    return is_question(line) or _talk(line) or bool(_SPEECH.search(without_quotes(line)))


def _talk(line: str) -> bool:
    """Talk, a question to the GM or a question told: answered by the one spoken to, not found by a roll."""
    return is_talk(line) or asks_the_gm(line) or asks_in_report(line)


# a question put with care to win someone over: "I gently ask the sheriff what weighs on him"
_COAXING = re.compile(r"\b(?:gently|softly|kindly|warmly|sweetly|tenderly|coaxingly|soothingly|sympathetically|earnestly)\b", re.I)
_LIES = re.compile(r"\b(?:lies?|lying|claims?|pretends?|poses? as|bluffs?|passes (?:himself|herself|themselves) off)\b", re.I)
