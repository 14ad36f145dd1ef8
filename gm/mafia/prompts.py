"""What a Mafia seat is told and how its answers are read; a function of its role and its view only.

The text is English; a game with ``lang="zh"`` gets the functions of the same names in ``prompts_zh``.
"""
from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from gm.social.ask import Ask, player_name, resolve_name
from gm.social.lang import in_lang
from gm.social.speech import SPEECH_MAX, cap_speech, said

from . import prompts_zh

_by_lang = in_lang({"zh": prompts_zh})

THOUGHT = "optional private notes, a few words: nobody else reads them, and you will not be shown them again"


class SpeakAction(BaseModel):
    speech: str = ""
    thought: str = Field("", description=THOUGHT)


class TargetAction(BaseModel):
    target: str
    thought: str = Field("", description=THOUGHT)


class VoteAction(BaseModel):
    vote: str | None = Field(None, description="the player to eliminate")
    thought: str = Field("", description=THOUGHT)


@_by_lang
def system_prompt(game: Any, name: str) -> str:
    t = game.table
    role = game.roles[name]
    counts: dict[str, int] = {}
    for r in t.lineup:
        counts[t.role_names[r]] = counts.get(t.role_names[r], 0) + 1
    roster = ", ".join(f"{k}×{v}" if v > 1 else k for k, v in counts.items())
    mafia = game.is_mafia(name)
    e = game.night_event(name)
    know = ""
    if mafia:
        mates = (e or {}).get("sees", [])
        know = f"Your Mafia partners: {', '.join(mates)}." if mates else "You are the only Mafia member."
    duty = {
        t.mafia_role: "Each night you and your partners agree on one player to kill. By day, blend in and steer votes away from yourselves.",
        t.doctor_role: "Each night you choose one player to protect from the Mafia's kill.",
        t.sheriff_role: "Each night you investigate one player and learn whether they are Mafia.",
    }.get(role, "You have no night action: find the Mafia by talking and voting.")
    goal = "The Mafia win when they are at least half of the living." if mafia else "The Village wins when every Mafia member is gone."
    tie = {"no_elimination": "a tie eliminates nobody", "revote": "a tie goes to one revote between the tied",
           "random": "a tie is broken at random"}[game.vote_tie]
    vote = "the player with the most votes is eliminated" if game.day_vote == "plurality" else "a player needs votes from more than half of the living"
    reveal = "Eliminated players' roles are revealed." if game.reveal_day else "Roles stay hidden after elimination."
    return (
        f"You are {name}, playing Mafia with {game.n} players: {', '.join(game.names)}.\n"
        f"Roles in this game: {roster}.\n"
        f"Your role: {t.role_names[role]} ({'Mafia' if mafia else 'Village'} team). {duty} {know}\n"
        f"{goal} Each round: night actions, then the night's result, then everyone alive speaks once in turn, "
        f"then a public vote: {vote}; {tie}. {reveal} Dead players do not speak or vote.\n"
        "Keep every speech short (one to three sentences). Answer only with the JSON asked for; the 'thought' "
        "field is private: nobody else reads it and it is not shown to you later."
    )


@_by_lang
def render(game: Any, e: dict, viewer: str) -> str | None:
    if e.get("private") and viewer not in e.get("to", ()):
        return None  # defence in depth: views are already filtered by view_for
    k = e["kind"]
    tag = f"[{e['round']}.{e['public_msg_seq']}]"
    t = game.table
    if k == "start":
        return f"{tag} The game starts. {'Night falls.' if game.first_phase == 'night' else 'The first day begins.'}"
    if k == "mafia_pick":
        who = "You" if e["player"] == viewer else e["player"]
        return f"{tag} (Mafia only) {who} picked {e['target']} to kill (round {e['attempt']} of talks)."
    if k == "mafia_kill":
        return f"{tag} (Mafia only) The Mafia's target tonight: {e['target']}."
    if k == "doctor_save":
        return f"{tag} (only you) You protected {e['target']} tonight."
    if k == "sheriff_check":
        verdict = "IS Mafia" if e["result"] == "mafia" else "is NOT Mafia"
        return f"{tag} (only you) Your investigation: {e['target']} {verdict}."
    if k == "night_result":
        if not e.get("killed"):
            return f"{tag} Dawn: nobody died tonight."
        role = f" They were {t.role_names.get(e['role'], e['role'])}." if e.get("role") else ""
        return f"{tag} Dawn: {e['killed']} was killed in the night.{role}"
    if k == "speech":
        who = f"{e['player']} (you)" if e["player"] == viewer else e["player"]
        return f"{tag} {said(who, e.get('text'))}"
    if k == "vote_result":
        votes = ", ".join(f"{p}→{v or 'nobody'}" for p, v in e["votes"].items())
        end = f"{e['eliminated']} is eliminated." if e.get("eliminated") else (e.get("note") or "Nobody is eliminated.")
        return f"{tag} Vote{' (revote)' if e.get('attempt') == 2 else ''}: {votes}. {end}"
    if k == "elimination":
        role = f" They were {t.role_names.get(e['role'], e['role'])}." if e.get("role") else ""
        return f"{tag} {e['player']} leaves the game.{role}"
    if k == "game_over":
        return f"{tag} Game over: {e['winner']} wins ({e['reason']})."
    return None


@_by_lang
def kill_question(game: Any, name: str, targets: list[str], attempt: int) -> str:
    again = " Your partners picked differently; see their picks above and agree on one." if attempt == 2 else ""
    return f"Night {game.round}: choose the player the Mafia kill, one of: {', '.join(targets)}.{again}"


@_by_lang
def save_question(game: Any, options: list[str]) -> str:
    return f"Night {game.round}: choose a player to protect, one of: {', '.join(options)}."


@_by_lang
def check_question(game: Any, options: list[str]) -> str:
    return f"Night {game.round}: choose a player to investigate, one of: {', '.join(options)}."


@_by_lang
def speak_question(game: Any, name: str) -> str:
    return (f"Day {game.round}: your turn to speak to the living ({', '.join(game.alive)}). "
            f"Speaking as {name}, say whom you suspect and why, or defend yourself, in one or two sentences "
            "of your own (do not repeat what others said).")


@_by_lang
def vote_question(game: Any, name: str, options: list[str], attempt: int) -> str:
    rev = " This is the revote between the tied players." if attempt == 2 else ""
    return f"Day {game.round}: vote to eliminate one of: {', '.join(options)}.{rev}"


SHAPES = {
    "speak": (SpeakAction, '{"speech": "...", "thought": "..."}'),
    "kill": (TargetAction, '{"target": "Name", "thought": "..."}'),
    "save": (TargetAction, '{"target": "Name", "thought": "..."}'),
    "check": (TargetAction, '{"target": "Name", "thought": "..."}'),
    "vote": (VoteAction, '{"vote": "Name", "thought": "..."}'),
}


def llm_schema(game: Any, ask: Ask):
    schema = SHAPES[ask.kind][0]
    names = game.names

    def native(v: Any) -> Any:
        if ask.kind == "speak":
            return {"text": cap_speech(v.speech)}
        raw = v.vote if ask.kind == "vote" else v.target
        if raw is None or (ask.kind == "vote" and str(raw).strip().lower() in ("", "none", "nobody", "abstain")):
            return None
        return player_name(raw, names)

    return schema, native



@_by_lang
def human_question(game: Any, ask: Ask) -> str:
    if ask.kind == "speak":
        return f"{ask.text()} (type what you say; Enter to pass)"
    extra = "; 'none' to abstain" if ask.extra.get("abstain") else ""
    return f"{ask.text()} (type a name or seat number{extra})"


_REASONS = {
    "en": {"too_long": "that is {n} characters; say it in at most {max}",
           "no_abstain": "abstaining is not allowed here; name a player", "not_a_player": "{s!r} is not a player"},
    "zh": prompts_zh.REASONS,
}


def parse_human(game: Any, ask: Ask, text: str) -> tuple[Any, str | None]:
    """A typed answer -> a move, or the reason it is refused in the game's language."""
    s = text.strip()
    why = _REASONS[getattr(game, "lang", "en")]
    if ask.kind == "speak":
        if len(s) > SPEECH_MAX:
            return None, why["too_long"].format(n=len(s), max=SPEECH_MAX)
        return {"text": cap_speech(s)}, None
    if ask.kind == "vote" and re.fullmatch(r"(none|nobody|abstain|-|弃票|不投)?", s.lower()):
        return None, None if ask.extra.get("abstain") else why["no_abstain"]
    hit = resolve_name(s, game.names)
    return (hit, None) if hit else (None, why["not_a_player"].format(s=s))
