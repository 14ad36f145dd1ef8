"""What an Avalon seat is told and how its answers are read (LLM JSON and typed human input).

Everything here is a function of the seat's own role and its view of the log (``view_for``);
nothing reads another seat's private events. The text is English; a game with ``lang="zh"`` gets
the functions of the same names in ``prompts_zh`` (``in_lang``).
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


class ProposeAction(BaseModel):
    team: list[str]
    thought: str = Field("", description=THOUGHT)


class SpeakAction(BaseModel):
    speech: str = ""
    call_assassination: bool = False
    thought: str = Field("", description=THOUGHT)


class VoteAction(BaseModel):
    approve: bool
    thought: str = Field("", description=THOUGHT)


class MissionAction(BaseModel):
    success: bool
    thought: str = Field("", description=THOUGHT)


class AssassinateAction(BaseModel):
    target: str
    thought: str = Field("", description=THOUGHT)


def _names(game: Any, items: list[str]) -> str:
    return ", ".join(items) if items else "nobody"


@_by_lang
def knowledge_text(game: Any, name: str) -> str:
    """The seat's night knowledge, in words, from its own private night event."""
    t = game.table
    e = game.night_event(name)
    if not e or not e.get("sees"):
        return "At night you learned nothing about anyone."
    seen, label = e["sees"], e.get("sees_as", "")
    who = _names(game, seen)
    roles = [t.role_names[r] for r in t.sees.get(e["role"], ()) if r in t.lineup]
    if label == "evil":
        return f"At night you saw the evil players: {who}." + (" (Some evil roles may stay hidden from you.)" if any(
            t.is_evil(r) and r not in t.sees.get(e["role"], ()) for r in t.lineup) else "")
    if label == "teammate":
        return f"At night you met your evil teammates: {who}."
    if label == "merlin_or_morgana" or len(roles) > 1:
        return f"At night you learned that {who} are {' and '.join(sorted(set(roles)))}, but not which is which."
    return f"At night you learned these players ({label or 'seen'}): {who}."


@_by_lang
def system_prompt(game: Any, name: str) -> str:
    t = game.table
    role = game.roles[name]
    team = "Evil (Minions of Mordred)" if t.is_evil(role) else "Good (Loyal Servants of Arthur)"
    counts: dict[str, int] = {}
    for r in t.lineup:
        counts[t.role_names[r]] = counts.get(t.role_names[r], 0) + 1
    roster = ", ".join(f"{k}×{v}" if v > 1 else k for k, v in counts.items())
    missions = ", ".join(f"{s}{' (needs 2 fails)' if f > 1 else ''}" for s, f in zip(t.team_sizes, t.fails_required))
    goal = ("Make missions fail, or find and assassinate Merlin." if t.is_evil(role)
            else "Make three missions succeed and keep Merlin hidden from the Assassin.")
    early = (" Evil players may stop the game at any speaking turn and call the assassination early; "
             "if the Assassin then names Merlin, evil wins, otherwise good wins.") if game.allow_early else ""
    return (
        f"You are {name}, a player in a {game.n}-player game of The Resistance: Avalon. "
        f"Players in seat order: {', '.join(game.names)}.\n"
        f"Roles in this game: {roster}.\n"
        f"Your role: {t.role_names[role]}, team {team}. Goal: {goal}\n"
        f"{knowledge_text(game, name)}\n"
        "Rules: each round a leader proposes a mission team; everyone speaks once in turn, then all vote in public; "
        f"a strict majority approves. {t.max_rejections} rejected proposals in a row and evil wins. "
        "Team members secretly play Success or Fail; good players must play Success. "
        f"Mission team sizes: {missions}. First side to {t.missions_to_win} missions wins; "
        f"if good gets {t.missions_to_win}, the Assassin names one player as Merlin and evil wins on a hit.{early}\n"
        "Keep every speech short (one to three sentences). Answer only with the JSON asked for; "
        "the 'thought' field is private: nobody else reads it and it is not shown to you later."
    )


@_by_lang
def render(game: Any, e: dict, viewer: str) -> str | None:
    if e.get("private") and viewer not in e.get("to", ()):
        return None  # defence in depth: views are already filtered by view_for
    k = e["kind"]
    tag = f"[{e['round']}.{e['public_msg_seq']}]"
    if k == "start":
        return f"{tag} The game starts. First leader: {e['first_leader']}."
    if k == "proposal":
        return f"{tag} Mission {e['mission']}, proposal {e['attempt']}: leader {e['player']} proposes {_names(game, e['team'])}."
    if k == "speech":
        who = f"{e['player']} (you)" if e["player"] == viewer else e["player"]
        return f"{tag} {said(who, e.get('text'), empty='(passes)')}"
    if k == "early_assassination":
        return f"{tag} {e['player']} stops the game: evil calls an early assassination of Merlin."
    if k == "vote_result":
        yes = [p for p, v in e["votes"].items() if v]
        no = [p for p, v in e["votes"].items() if not v]
        verdict = "APPROVED" if e["approved"] else f"REJECTED ({e['rejections']} in a row)"
        return f"{tag} Vote on {_names(game, e['team'])}: approve {_names(game, yes)}; reject {_names(game, no)}. {verdict}."
    if k == "mission_card" and e.get("player") == viewer:
        return f"{tag} (only you, {viewer}, know) You played {'Success' if e['success'] else 'Fail'} on mission {e['mission']}."
    if k == "mission_result":
        return (f"{tag} Mission {e['mission']} ({_names(game, e['team'])}): {'SUCCESS' if e['success'] else 'FAIL'}, "
                f"{e['fails']} fail card(s). Score: {e['successes']} succeeded, {e['failures']} failed.")
    if k == "assassination":
        return f"{tag} {e['player']} (the Assassin) names {e['target']} as Merlin: {'hit' if e['hit'] else 'miss'}."
    if k == "game_over":
        return f"{tag} Game over: {e['winner']} wins ({e['reason']})."
    return None


# ---- questions --------------------------------------------------------------------------------
@_by_lang
def propose_question(game: Any, leader: str) -> str:
    return (f"You lead mission {game.mission} (proposal {game.attempt + 1}, {game.rejections} rejected in a row). "
            f"Propose a team of exactly {game.team_size} players from: {', '.join(game.names)}.")


@_by_lang
def speak_question(game: Any, name: str, may_call: bool) -> str:
    extra = " You may set call_assassination to true to stop the game now and knife Merlin." if may_call else ""
    return (f"Your turn to speak about the proposed team {', '.join(game.team)}: say whether you support it "
            f"and whom you trust or suspect, in one or two sentences of your own (do not repeat others).{extra}")


@_by_lang
def vote_question(game: Any, name: str, team: list[str]) -> str:
    return f"Vote on the team {', '.join(team)} for mission {game.mission}: approve or reject?"


@_by_lang
def mission_question(game: Any, name: str) -> str:
    needed = game.table.fails_required[len(game.results)]
    return f"You are on mission {game.mission} (it fails with {needed} fail card(s)). Play Success or Fail?"


@_by_lang
def evil_talk_question(game: Any, name: str) -> str:
    return "The assassination is about to happen. Say one short thing to your team about who Merlin is."


@_by_lang
def assassinate_question(game: Any, name: str, options: list[str]) -> str:
    return f"You are the Assassin. Name the player you think is Merlin, one of: {', '.join(options)}."


SHAPES = {
    "propose": (ProposeAction, '{"team": ["Name", "..."], "thought": "..."}'),
    "speak": (SpeakAction, '{"speech": "...", "call_assassination": false, "thought": "..."}'),
    "evil_talk": (SpeakAction, '{"speech": "...", "thought": "..."}'),
    "vote": (VoteAction, '{"approve": true, "thought": "..."}'),
    "mission": (MissionAction, '{"success": true, "thought": "..."}'),
    "assassinate": (AssassinateAction, '{"target": "Name", "thought": "..."}'),
}


def llm_schema(game: Any, ask: Ask):
    schema = SHAPES[ask.kind][0]
    names = game.names

    def native(v: Any) -> Any:
        k = ask.kind
        if k == "propose":
            return [player_name(x, names) for x in v.team]
        if k in ("speak", "evil_talk"):
            return {"text": cap_speech(v.speech), "call_assassination": bool(getattr(v, "call_assassination", False)) and k == "speak"}
        if k == "vote":
            return bool(v.approve)
        if k == "mission":
            return bool(v.success)
        return player_name(v.target, names)

    return schema, native



@_by_lang
def human_question(game: Any, ask: Ask) -> str:
    k = ask.kind
    hint = {
        "propose": "type names or seat numbers, separated by commas or spaces",
        "speak": "type what you say (Enter to pass)" + ("; start with !knife to call the early assassination" if ask.extra.get("may_call") else ""),
        "evil_talk": "type what you say (Enter to pass)",
        "vote": "y = approve, n = reject",
        "mission": "s = success, f = fail",
        "assassinate": "type a name or seat number",
    }[k]
    return f"{ask.text()} ({hint})"


_YES = {"y", "yes", "approve", "a", "1", "true", "同意", "是", "赞成"}
_NO = {"n", "no", "reject", "r", "0", "false", "反对", "否", "不同意"}
_REASONS = {
    "en": {"not_player": "{bad!r} is not a player ({names})", "too_long": "that is {n} characters; say it in at most {max}",
           "yes_no": "answer y or n", "card": "answer s (success) or f (fail)", "not_a_player": "{s!r} is not a player"},
    "zh": prompts_zh.REASONS,
}


def parse_human(game: Any, ask: Ask, text: str) -> tuple[Any, str | None]:
    """A typed answer (English or Chinese words) -> a move, or the reason it is refused in the game's language."""
    k, s = ask.kind, text.strip()
    why = _REASONS[getattr(game, "lang", "en")]
    if k == "propose":
        parts = [p for p in re.split(r"[,，、\s]+", s) if p]
        team = [resolve_name(p, game.names) for p in parts]
        if None in team:
            bad = parts[team.index(None)]
            return None, why["not_player"].format(bad=bad, names=", ".join(game.names))
        return team, None
    if k in ("speak", "evil_talk"):
        call = k == "speak" and s.lower().startswith("!knife")
        words = s[6:].strip() if call else s
        if len(words) > SPEECH_MAX:
            return None, why["too_long"].format(n=len(words), max=SPEECH_MAX)
        return {"text": cap_speech(words), "call_assassination": call}, None
    if k == "vote":
        low = s.lower()
        return (True, None) if low in _YES else (False, None) if low in _NO else (None, why["yes_no"])
    if k == "mission":
        low = s.lower()
        if low in ("s", "success", "成功"):
            return True, None
        if low in ("f", "fail", "失败"):
            return False, None
        return None, why["card"]
    target = resolve_name(s, game.names)
    return (target, None) if target else (None, why["not_a_player"].format(s=s))
