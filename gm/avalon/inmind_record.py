"""Avalon games recorded as InMind sessions (seed 000, 3.1): one subject writes traces and a reflection.

A *subject* is tied to one seat. In ``participant`` mode the seat is the subject's own (an LLM, a
scripted player or a person) and it writes a strategy trace at every proposal, after the table has
spoken and before it votes, then a reflection once the game is over. In ``observer`` mode the seat
is played by someone else and the subject watches from it (sees only what that seat sees), writing
the same notes. Scripted subjects write from the game state: whom the seat suspects and why (failed
missions it was not on, approvals of failed teams, its night knowledge), what it means to do.

Each finished game becomes one file in the released InMind-Avalon schema (``my_info``, ``task1..K``,
``task6``, ``user_info``, ``my_review``; the data's FORMAT.md), with the system lines in the game
language (``PHRASES``), so ``eval.inmind`` reads it like a released file. Files are written whole
(``write_atomic``) when a game ends, so a killed run leaves only finished games, and a rerun skips them.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gm.social.lang import LANGS
from gm.social.runner import batch_report, check_options, game_id, log_folder, play_games, run_at_the_terminal
from gm.social.seats import HumanSeat, LlmSeat, Seat, SeatSpec, build_seats, parse_seats
from gm.social.speech import clean_text
from rulesets import VgmError, read_json, write_atomic

from . import prompts_zh
from .engine import AvalonGame
from .policies import _public_suspicion, _suspicion

MODES = ("observer", "participant")
MAX_SEATS = 6  # InMind masks seats written with the digits 1-6

#: Role names as the released files write them (Chinese) and as our English files do.
DATA_ROLES = {
    "zh": {"merlin": "梅林", "percival": "派西维尔", "loyal_servant": "忠臣", "morgana": "莫甘娜", "assassin": "刀客",
           "mordred": "莫德雷德", "oberon": "奥伯伦", "minion": "爪牙"},
    "en": {"merlin": "Merlin", "percival": "Percival", "loyal_servant": "Loyal Servant of Arthur", "morgana": "Morgana",
           "assassin": "Assassin", "mordred": "Mordred", "oberon": "Oberon", "minion": "Minion of Mordred"},
}
_CN = "零一二三四五六七八九十"

#: The game server's lines (FORMAT.md, "Missions" and "End phase"); ``eval.inmind`` reads both languages.
PHRASES = {
    "zh": {
        "team": "{leader}号玩家是队长，他{which}选择的队伍是:{team}。", "initial": "初步", "final": "最终",
        "forced": "本轮是强制轮，组队失败则红方胜利。",
        "approve": "{seats}号玩家同意组队", "reject": "{seats}号玩家反对组队", "vote_sep": "，",
        "approved": "组队成功。", "rejected": "组队失败。",
        "mission": "第{n}局任务{ok}，有{good}张好票，{bad}张坏票。", "success": "成功", "failure": "失败",
        "early": "红方阵营发起提前指认，进入指认环节。",
        "three_successes": "蓝方阵营三局任务成功，进入指认环节。",
        "three_failures": "连炸三塔，红方阵营获胜。",
        "rejections": "连续{n}次组队失败，红方阵营获胜。",
        "assassination": "{assassin}指认{target}号玩家是梅林，指认{ok}，{side}阵营获胜。", "evil": "红方", "good": "蓝方",
        "good_wins": "蓝方阵营获胜。",
        "seat": "{n}号", "seats_and": "和", "list_sep": "、",
    },
    "en": {
        "team": "Player {leader} is the leader; the {which} team is: {team}.", "initial": "initial", "final": "final",
        "forced": " This is the forced round: if the team is rejected, the evil side wins.",
        "approve": "{players} {seats} {verb} the team", "reject": "{players} {seats} {verb} the team", "vote_sep": "; ",
        "approved": "; the team is approved.", "rejected": "; the team is rejected.",
        "mission": "Mission {n} {ok}, with {good} success cards and {bad} fail cards.", "success": "succeeded", "failure": "failed",
        "early": "The evil side calls an early identification; entering the identification phase.",
        "three_successes": "The good side has won three missions; entering the identification phase.",
        "three_failures": "Three missions failed; the evil side wins.",
        "rejections": "{n} team proposals in a row were rejected; the evil side wins.",
        "assassination": "The {assassin} names Player {target} as Merlin; the identification {ok}; the {side} side wins.",
        "evil": "evil", "good": "good", "good_wins": "The good side wins.",
        "seat": "Player {n}", "seats_and": " and ", "list_sep": ", ",
    },
}


def seat_names(n: int, lang: str) -> list[str]:
    """Players named by seat (``1号`` / ``P1``), as InMind tables know them, so every note names seats."""
    return [f"{i}号" if lang == "zh" else f"P{i}" for i in range(1, n + 1)]


def check_recording(mode: str | None, *, out: Any, players: int, subject_seat: int, lang: str) -> None:
    """Every recording option, checked before a game or a file: one line for each mistake."""
    if mode not in MODES:
        raise VgmError(f"--inmind-record {mode}: use observer or participant")
    if not out:
        raise VgmError("--inmind-record needs -o DIR: the folder the InMind session files go to")
    if lang not in LANGS:
        raise VgmError(f"--lang {lang}: use {' or '.join(LANGS)}")
    if not 1 <= players <= MAX_SEATS:
        raise VgmError(f"--players {players}: InMind recording needs at most {MAX_SEATS} seats (seats are masked as the digits 1-6)")
    if not 0 <= subject_seat < players:
        raise VgmError(f"--subject-seat {subject_seat} is outside 0..{players - 1} (0 is the first seat, InMind's player 1)")


# ---- what the subject sees and thinks ---------------------------------------------------------------
class _Reading:
    """One seat's reading of the table from what it may know: its night knowledge and the public log."""

    def __init__(self, game: AvalonGame, me: str) -> None:
        self.game, self.me = game, me
        self.lang = game.lang
        self.words = PHRASES[game.lang]
        view = game.seat_view(me)
        self.failed = [e for e in view if e["kind"] == "mission_result" and not e["success"]]
        self.votes = [e for e in view if e["kind"] == "vote_result"]
        self.known = list(game.evil_known.get(me, ()))
        self.evil = game.is_evil(me)

    def seat(self, name: str) -> str:
        return self.words["seat"].format(n=self.game.names.index(name) + 1)

    def seats(self, names: list[str]) -> str:
        items = [self.seat(n) for n in names]
        if len(items) <= 1:
            return "".join(items)
        return self.words["list_sep"].join(items[:-1]) + self.words["seats_and"] + items[-1]

    def ranked(self) -> list[str]:
        """Other seats, most suspect first (ties by seat order, so the text is deterministic)."""
        score = _suspicion(self.game, self.me)
        return sorted((p for p in self.game.names if p != self.me), key=lambda p: (-score[p], self.game.names.index(p)))

    def approved_failed(self) -> dict[str, int]:
        """How often each seat approved a team whose mission then failed."""
        out: dict[str, int] = {}
        failed_teams = {(e["mission"], tuple(e["team"])) for e in self.failed}
        for v in self.votes:
            if v["approved"] and (v["mission"], tuple(v["team"])) in failed_teams:
                for p, yes in v["votes"].items():
                    if yes and p != self.me:
                        out[p] = out.get(p, 0) + 1
        return out

    def why(self, name: str) -> str:
        """The evidence against ``name`` this seat has: night knowledge, failed missions, votes, accusations."""
        zh = self.lang == "zh"
        if name in self.known and not self.evil:
            return "我夜里看到他是坏人" if zh else "I saw them as evil at night"
        on_failed = [e["mission"] for e in self.failed if name in e["team"]]
        if on_failed:
            missions = "、".join(map(str, on_failed)) if zh else ", ".join(map(str, on_failed))
            return f"他在失败的第{missions}次任务车上" if zh else f"they were on failed mission {missions}"
        shady = self.approved_failed().get(name)
        if shady:
            return f"他同意过{shady}次失败的车" if zh else f"they approved {shady} team(s) that failed"
        _, accusers = _public_suspicion(self.game)[name]
        others = [p for p in accusers if p != self.me]
        if others:
            return f"{self.seats(others)}在踩他" if zh else f"{self.seats(others)} spoke against them"
        no = [v for v in self.votes if not v["votes"].get(name, True) and v["approved"]]
        if no:
            return "他反对过大家都同意的车" if zh else "they rejected a team the table approved"
        return "还没有硬证据，只是感觉" if zh else "no hard evidence yet, only a feeling"

    def percival_pair(self) -> list[str]:
        e = self.game.night_event(self.me) or {}
        return list(e.get("sees", ())) if e.get("sees_as") == "merlin_or_morgana" else []


def scripted_trace(game: AvalonGame, me: str, *, observer: bool = False) -> str:
    """A strategy trace from the seat's reading: the evidence, whom it suspects and why, its plan for the vote."""
    r = _Reading(game, me)
    zh = r.lang == "zh"
    team = list(game.team)
    parts: list[str] = []
    if observer:
        parts.append(f"站在{r.seat(me)}的角度：" if zh else f"From {r.seat(me)}'s seat:")
    role = game.roles[me]
    if role == "merlin" and r.known:
        parts.append(f"我知道{r.seats(r.known)}是坏人，但不能表现得太明显。" if zh else f"I know {r.seats(r.known)} are evil, but I must not show it.")
    elif r.evil and r.known:
        parts.append(f"我的队友是{r.seats(r.known)}。" if zh else f"My teammate is {r.seats(r.known)}.")
    elif r.percival_pair():
        pair = r.percival_pair()
        parts.append(f"{r.seats(pair)}是梅林和莫甘娜，还要分辨谁是谁。" if zh else f"{r.seats(pair)} are Merlin and Morgana; I still have to tell which is which.")
    for e in r.failed[-2:]:
        others = [p for p in e["team"] if p != me]
        if me in e["team"] and not r.evil:
            parts.append(f"第{e['mission']}次任务我在车上却出了{e['fails']}张坏票，坏人在{r.seats(others)}里。" if zh
                         else f"Mission {e['mission']} failed with me on it ({e['fails']} fail), so evil is among {r.seats(others)}.")
        else:
            parts.append(f"第{e['mission']}次任务失败，车上是{r.seats(e['team'])}。" if zh
                         else f"Mission {e['mission']} failed with {r.seats(e['team'])} on it.")
    shady = r.approved_failed()
    if shady:
        worst = sorted(shady, key=lambda p: (-shady[p], game.names.index(p)))[:2]
        parts.append(f"{r.seats(worst)}投票同意过失败的车。" if zh else f"{r.seats(worst)} voted for a team that failed.")
    ranked = r.ranked()
    if r.evil:
        target = [p for p in ranked if p not in r.known][-1:]
        ours = [p for p in team if p == me or p in r.known]
        if target:
            parts.append(f"{r.seats(target)}看起来最像好人，要想办法把水搅浑。" if zh else f"{r.seats(target)} looks the most trusted; I will muddy that.")
        plan = ("这车有我们的人，我要让它过。" if ours else "这车没有我们的人，我投反对。") if zh else (
            "Our side is on this team, so I want it to pass." if ours else "None of us is on this team, so I will reject it.")
    else:
        suspects = ranked[:2]
        trusted = ranked[-1:]
        parts.append(f"目前我最怀疑{r.seats(suspects)}（{r.seat(suspects[0])}：{r.why(suspects[0])}），比较信任{r.seats(trusted)}。" if zh
                     else f"Right now I suspect {r.seats(suspects)} most ({r.seat(suspects[0])}: {r.why(suspects[0])}) and trust {r.seats(trusted)}.")
        bad = [p for p in team if p in suspects]
        plan = (f"车上有{r.seats(bad)}，我投反对。" if bad else f"这车（{r.seats(team)}）我能接受，投同意。") if zh else (
            f"{r.seats(bad)} {'is' if len(bad) == 1 else 'are'} on the team, so I reject it." if bad
            else f"I can live with this team ({r.seats(team)}) and approve it.")
    if team:
        parts.append(plan)
    return ("" if zh else " ").join(parts)


def scripted_reflection(game: AvalonGame, me: str, *, observer: bool = False) -> str:
    """A reflection once roles are known: who was what, whether the seat read them right, the turning point."""
    r = _Reading(game, me)
    zh = r.lang == "zh"
    roles = game.roles
    evil = [p for p in game.names if game.is_evil(p)]
    names_zh = prompts_zh.ROLE_NAMES
    role_of = (lambda p: names_zh.get(roles[p], roles[p])) if zh else (lambda p: game.table.role_names[roles[p]])
    parts = []
    who = f"{r.seat(me)}（{role_of(me)}）" if zh else f"{r.seat(me)} ({role_of(me)})"
    if observer:
        parts.append(f"这局我站在{who}的角度看。" if zh else f"I watched this game from {who}.")
    else:
        parts.append(f"这局我是{who}。" if zh else f"I played {who}.")
    parts.append(f"坏人是{r.seats(evil)}。" if zh else f"The evil side was {r.seats(evil)}.")
    ranked = [p for p in r.ranked() if p not in r.known] if not (r.evil or r.known) else []
    if r.known and not r.evil:
        parts.append("我从一开始就知道坏人是谁，难点是不暴露自己。" if zh else "I knew the evil seats from the start; the hard part was not giving myself away.")
    if ranked:
        top = ranked[0]
        right = game.is_evil(top)
        parts.append((f"我最怀疑{r.seat(top)}，他是{role_of(top)}，" + ("判断对了。" if right else "判断错了。")) if zh
                     else f"I suspected {r.seat(top)} most; they were {role_of(top)}, so I was {'right' if right else 'wrong'}.")
    if r.failed:
        first = r.failed[0]
        parts.append(f"关键是第{first['mission']}次任务失败，车上的{r.seats(first['team'])}里藏着坏人。" if zh
                     else f"The turning point was mission {first['mission']} failing with {r.seats(first['team'])} on it.")
    shot = next((e for e in game.log.events if e["kind"] == "assassination"), None)
    if shot:
        parts.append((f"刺客{r.seat(shot['player'])}指认了{r.seat(shot['target'])}，" + ("指认成功。" if shot["hit"] else "没有指认中。")) if zh
                     else f"The Assassin {r.seat(shot['player'])} named {r.seat(shot['target'])} and {'hit' if shot['hit'] else 'missed'}.")
    won = game.winner == game.team_of(me)
    if zh:
        parts.append("我们赢了。" if won else "我们输了，" + (f"下次要更早盯住{r.seats(evil[:1])}。" if not r.evil else "下次要藏得更好。"))
    else:
        parts.append("We won." if won else "We lost; " + (f"next time I will watch {r.seats(evil[:1])} sooner." if not r.evil else "next time I will hide better."))
    return ("" if zh else " ").join(parts)


class _Trace(BaseModel):
    trace: str


class _Reflection(BaseModel):
    reflection: str


_ASK = {
    "zh": {
        "observer": "你在旁观这局游戏，站在{name}的位置：上面就是{name}看到的一切。",
        "participant": "",
        "trace": "请写下这一轮的策略轨迹（只有你自己看的笔记）：局势分析、你对各人身份的猜测和依据（发言、投票、任务结果）、"
                 "你接下来的打算。用座位号称呼玩家（如“3号”），两到四句话。只用 JSON 回答：{{\"trace\": \"...\"}}",
        "reflection": "游戏结束了。本局真实身份：{roles}。请写一段复盘：关键时刻、你的判断对错、对其他玩家的评价、下次怎么调整。"
                      "用座位号称呼玩家（如“3号”），三到六句话。只用 JSON 回答：{{\"reflection\": \"...\"}}",
        "again": "请写一两句话。",
    },
    "en": {
        "observer": "You are watching this game from {name}'s seat: above is everything {name} saw.",
        "participant": "",
        "trace": "Write your strategy trace for this round (private notes): how the game stands, whom you think has which role and "
                 "why (speeches, votes, mission results), what you plan next. Name players by seat (e.g. \"Player 3\"), "
                 "two to four sentences. Answer with JSON only: {{\"trace\": \"...\"}}",
        "reflection": "The game is over. The true roles: {roles}. Write a reflection: the key moments, which of your reads were "
                      "right or wrong, how the others played, what you would change. Name players by seat (e.g. \"Player 3\"), "
                      "three to six sentences. Answer with JSON only: {{\"reflection\": \"...\"}}",
        "again": "Write a sentence or two.",
    },
}


def _roles_line(game: AvalonGame) -> str:
    r = _Reading(game, game.names[0])
    if game.lang == "zh":
        return "，".join(f"{r.seat(p)}{prompts_zh.ROLE_NAMES.get(game.roles[p], game.roles[p])}" for p in game.names)
    return ", ".join(f"{r.seat(p)} {game.table.role_names[game.roles[p]]}" for p in game.names)


class Subject:
    """Who writes the notes: ``trace()`` before the seat votes, ``reflection()`` after the game."""

    def __init__(self, game: AvalonGame, seat_name: str, mode: str) -> None:
        self.game, self.name, self.mode = game, seat_name, mode
        self.fallbacks = 0  # notes a model failed to write (the scripted text stands in)

    async def trace(self) -> str:
        return scripted_trace(self.game, self.name, observer=self.mode == "observer")

    async def reflection(self) -> str:
        return scripted_reflection(self.game, self.name, observer=self.mode == "observer")


class LlmSubject(Subject):
    """A model writes the notes, shown exactly what the seat saw (its prompt and its view of the log)."""

    def __init__(self, game: AvalonGame, seat_name: str, mode: str, model: Any, max_tokens: int = 400) -> None:
        super().__init__(game, seat_name, mode)
        self.model, self.max_tokens = model, max_tokens

    async def _ask(self, question: str, schema: type[BaseModel], field: str, fallback: Callable[[], Any]) -> str:
        from pipelines.llm import complete_json  # pipelines layer; lazy like the LLM seats, so scripted runs stay light

        words = _ASK[self.game.lang]
        lead = words["observer"].format(name=self.name) + "\n" if self.mode == "observer" else ""
        messages = self.game.seat_messages(self.name) + [{"role": "user", "content": lead + question}]
        parsed = await complete_json(self.model, messages, schema, step=f"avalon.inmind_{field}", max_tokens=self.max_tokens)
        text = clean_text(getattr(parsed.value, field, "") if parsed.value is not None else "").strip()
        if not text:
            self.fallbacks += 1
            return await fallback()
        return text

    async def trace(self) -> str:
        return await self._ask(_ASK[self.game.lang]["trace"], _Trace, "trace", super().trace)

    async def reflection(self) -> str:
        question = _ASK[self.game.lang]["reflection"].format(roles=_roles_line(self.game))
        return await self._ask(question, _Reflection, "reflection", super().reflection)


class HumanSubject(Subject):
    """A person types the notes at the terminal; in observer mode they first see the watched seat's news."""

    def __init__(self, game: AvalonGame, seat_name: str, mode: str, input_fn: Callable[[str], str] = input,
                 output_fn: Callable[[str], None] = print, seat: HumanSeat | None = None) -> None:
        super().__init__(game, seat_name, mode)
        self.input_fn, self.output_fn = input_fn, output_fn
        if seat is None:  # a watcher: the seat's view printed like a player's, but it never acts
            seat = HumanSeat(input_fn, output_fn)
            seat.game, seat.name = game, seat_name
        self.seat = seat

    def _type(self, question: str) -> str:
        self.seat.show_news()
        self.output_fn(question)
        while True:
            try:
                text = clean_text(self.input_fn("> ")).strip()
            except EOFError:
                raise VgmError("input ended while a strategy note was asked for; type the note (or record without a person)") from None
            if text:
                return text
            self.output_fn(_ASK[self.game.lang]["again"])

    async def trace(self) -> str:
        question = ("写下这一轮的策略轨迹：你的分析、怀疑谁、为什么、接下来的打算（用“3号”这样的座位号）。" if self.game.lang == "zh"
                    else "Write your strategy trace for this round: your read, whom you suspect and why, your plan (name seats as \"Player 3\").")
        return self._type(question)

    async def reflection(self) -> str:
        question = (f"游戏结束。真实身份：{_roles_line(self.game)}。写下你的复盘：关键时刻、判断对错、对其他人的评价。" if self.game.lang == "zh"
                    else f"The game is over. True roles: {_roles_line(self.game)}. Write your reflection: key moments, reads right and wrong, how others played.")
        return self._type(question)


def subject_for(game: AvalonGame, seat_name: str, mode: str, *, input_fn: Callable[[str], str] = input,
                output_fn: Callable[[str], None] = print, human: bool = False) -> Subject:
    """The subject of the seat's kind: a person when ``human``, else the seat's model, else scripted text."""
    seat: Seat = game.seats[seat_name]
    if human or isinstance(seat, HumanSeat):
        return HumanSubject(game, seat_name, mode, input_fn, output_fn, seat if isinstance(seat, HumanSeat) and mode == "participant" else None)
    if isinstance(seat, LlmSeat):
        return LlmSubject(game, seat_name, mode, seat.model, max(400, seat.max_tokens))
    return Subject(game, seat_name, mode)


# ---- the recorder -------------------------------------------------------------------------------------
class InMindRecorder:
    """Listens to one game; asks the subject for a trace at each proposal before the vote; builds the session."""

    def __init__(self, game: AvalonGame, subject: Subject) -> None:
        self.game, self.subject = game, subject
        self.notes: dict[int, list[dict[str, Any]]] = {}
        self._asked: set[tuple[int, int]] = set()
        self.reflection = ""
        game.add_listener(self.on_event)

    async def on_event(self, event: dict, game: AvalonGame) -> None:
        kind = event["kind"]
        before_vote = (
            (kind == "speech" and game.phase == "discuss" and not game.queue)  # the last speech of this proposal
            or (kind == "proposal" and not game.discussion)
            or kind == "early_assassination"
        )
        if not before_vote:
            return
        mission, attempt = int(event.get("mission") or game.mission), int(event.get("attempt") or game.attempt)
        if (mission, attempt) in self._asked:
            return
        self._asked.add((mission, attempt))
        text = await self.subject.trace()
        self.notes.setdefault(mission, []).append({"msg": text, "round": attempt})

    async def finish(self) -> dict[str, Any]:
        """Ask for the reflection (the game is over) and return the session in the released schema."""
        self.reflection = await self.subject.reflection()
        return session_json(self.game, self.subject.name, self.notes, self.reflection, self.subject.mode)


def _knowledge_msg(game: AvalonGame, me: str, lang: str) -> str:
    """The seat's night knowledge as the released ``my_info.msg`` writes it (FORMAT.md)."""
    e = game.night_event(me) or {}
    seen = list(e.get("sees", ()))
    if not seen:
        return ""
    seat = {p: game.names.index(p) + 1 for p in game.names}
    data = DATA_ROLES[lang]
    label = e.get("sees_as", "")
    nums = [str(seat[p]) for p in seen]
    if lang == "zh":
        if label == "teammate":
            return "，".join(f"队友{data[game.roles[p]]}是{seat[p]}号玩家" for p in seen)
        if label == "evil":
            return f"红方阵营是{'号和'.join(nums)}号玩家"
        return f"{'号和'.join(nums)}号是莫甘娜和梅林，但不清楚具体身份。"
    if label == "teammate":
        text = ", ".join(f"my teammate {data[game.roles[p]]} is Player {seat[p]}" for p in seen)
        return text[0].upper() + text[1:]
    if label == "evil":
        return f"The red camp is Players {' and '.join(nums)}"
    return f"Players {' and '.join(nums)} are Morgana and Merlin, but I don't know which is which."


def _vote_line(words: dict[str, str], lang: str, yes: list[int], no: list[int], approved: bool) -> str:
    clauses = []
    for key, seats, verbs in (("approve", yes, ("approves", "approve")), ("reject", no, ("rejects", "reject"))):
        if seats:
            joined = ",".join(map(str, seats))
            players, verb = ("Player", verbs[0]) if len(seats) == 1 else ("Players", verbs[1])
            if clauses and lang == "en":
                players = players.lower()
            clauses.append(words[key].format(seats=joined, players=players, verb=verb))
    end = words["approved" if approved else "rejected"]
    if lang == "zh":
        return words["vote_sep"].join(clauses) + words["vote_sep"] + end
    return words["vote_sep"].join(clauses) + end


def session_json(game: AvalonGame, me: str, notes: dict[int, list[dict[str, Any]]], reflection: str, mode: str) -> dict[str, Any]:
    """A finished game as a released-schema InMind-Avalon session, seen from seat ``me``."""
    lang = game.lang
    words, data = PHRASES[lang], DATA_ROLES[lang]
    seat = {p: game.names.index(p) + 1 for p in game.names}
    max_rej = game.table.max_rejections
    tasks: dict[int, list[dict[str, Any]]] = {}
    end: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    final_shown = False
    for e in game.log.events:
        kind = e["kind"]
        if e.get("private"):
            continue
        if kind == "proposal":
            current = e
            final_shown = not game.discussion
            line = words["team"].format(leader=seat[e["player"]], which=words["initial"], team=",".join(str(seat[p]) for p in e["team"]))
            if e["rejections"] == max_rej - 1:
                line += words["forced"]
            tasks.setdefault(e["mission"], []).append({"player": "system", "msg": line, "round": e["attempt"]})
        elif kind == "speech" and e.get("phase") != "assassination":
            tasks.setdefault(e["mission"], []).append({"player": str(seat[e["player"]]), "msg": e.get("text", ""), "round": e["attempt"]})
        elif kind == "speech":
            end.append({"player": str(seat[e["player"]]), "role": data[game.roles[e["player"]]], "msg": e.get("text", "")})
        elif kind == "vote_result":
            msgs = tasks.setdefault(e["mission"], [])
            if not final_shown:
                msgs.append({"player": "system", "round": e["attempt"], "msg": words["team"].format(
                    leader=seat[current["player"]], which=words["final"], team=",".join(str(seat[p]) for p in e["team"]))})
            yes = sorted(seat[p] for p, v in e["votes"].items() if v)
            no = sorted(seat[p] for p, v in e["votes"].items() if not v)
            msgs.append({"player": "system", "round": e["attempt"], "msg": _vote_line(words, lang, yes, no, e["approved"])})
        elif kind == "mission_result":
            n = e["mission"]
            fails = e["fails"]
            line = words["mission"].format(n=_CN[n] if lang == "zh" else n, ok=words["success" if e["success"] else "failure"],
                                           good=len(e["team"]) - fails, bad=fails)
            tasks.setdefault(n, []).append({"player": "system", "msg": line, "round": current.get("attempt", 1)})
            if e["successes"] >= game.table.missions_to_win:
                end.insert(0, {"player": "system", "msg": words["three_successes"]})
            elif e["failures"] >= game.table.missions_to_win:
                end.insert(0, {"player": "system", "msg": words["three_failures"]})
        elif kind == "early_assassination":
            tasks.setdefault(e["mission"], []).append({"player": "system", "msg": words["early"], "round": current.get("attempt", 1)})
            end.insert(0, {"player": "system", "msg": words["early"]})
        elif kind == "assassination":
            side = words["evil" if e["hit"] else "good"]
            end.append({"player": "system", "msg": words["assassination"].format(
                assassin=data[game.roles[e["player"]]], target=seat[e["target"]], ok=words["success" if e["hit"] else "failure"] if lang == "zh"
                else ("succeeds" if e["hit"] else "fails"), side=side)})
        elif kind == "game_over":
            if "rejected" in e["reason"]:
                end.insert(0, {"player": "system", "msg": words["rejections"].format(n=_CN[max_rej] if lang == "zh" else max_rej)})
            elif e["winner"] == game.table.good and not any(x["kind"] == "assassination" for x in game.log.events):
                end.append({"player": "system", "msg": words["good_wins"]})
    session: dict[str, Any] = {"my_info": {"1": {"role": data[game.roles[me]], "msg": _knowledge_msg(game, me, lang), "player": str(seat[me])}}}
    for n in sorted(tasks):
        session[f"task{n}"] = {"player_message": tasks[n], "strategy": notes.get(n, [])}
    session["task6"] = {"player_message": end}
    session["user_info"] = {str(seat[p]): {"role": data[game.roles[p]], "player": str(seat[p])} for p in game.names}
    session["my_review"] = {"player": str(seat[me]), "role": data[game.roles[me]], "msg": reflection}
    session["language"] = lang
    session["game"] = {**game.result(), "mode": mode, "subject_seat": seat[me],
                       "seats": [game.seats[p].spec() for p in game.names]}
    return session


# ---- batches and a person at the terminal --------------------------------------------------------------
def session_path(folder: Path, gid: str, mode: str) -> Path:
    """``<game id>-<mode>.json``: the importer reads the mode from the name, as in the released data."""
    return folder / f"{gid}-{mode}.json"


def _finished(path: Path) -> dict[str, Any] | None:
    """The game summary of a session file written before (None when missing or not a whole session)."""
    if not path.is_file():
        return None
    try:
        data = read_json(path, what="InMind session")
    except VgmError:
        return None
    return data.get("game") if isinstance(data, dict) and "my_review" in data and isinstance(data.get("game"), dict) else None


def record(
    *,
    mode: str,
    out: str | Path | None,
    games: int = 10,
    seats: str = "scripted",
    players: int | None = None,
    seed: int = 0,
    model: str | None = None,
    options: dict[str, Any] | None = None,
    subject_seat: int = 0,
    lang: str = "en",
    concurrency: int = 1,
    max_tokens: int = 200,
    models: dict[str, Any] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` Avalon games and write each as an InMind session in ``out``; returns the win table.

    ``subject_seat`` is 0-based (InMind's player ``subject_seat + 1``). Finished sessions in ``out``
    are read back, not replayed. ``models`` maps model strings to ready models (shared by the LLM seats).
    """
    n = players if players is not None else 6
    check_recording(mode, out=out, players=n, subject_seat=subject_seat, lang=lang)
    if games < 1:
        raise VgmError(f"--games {games}: give 1 or more games")
    if concurrency < 1:
        raise VgmError(f"--concurrency {concurrency}: give 1 or more games at once")
    specs = parse_seats(seats, n)
    if any(s.kind == "human" for s in specs):
        raise VgmError("simulate has no human seats; use `vgm avalon play --inmind-record participant` to be the subject yourself")
    options = {k: v for k, v in (options or {}).items() if k != "lang"}
    if lang != "en":
        options["lang"] = lang
    names = seat_names(n, lang)
    check_options(AvalonGame, n, names=names, seed=seed, options=options, max_tokens=max_tokens)
    folder = log_folder(out)
    assert folder is not None
    models = models if models is not None else {}
    results: list[dict[str, Any]] = []
    todo = []
    for i in range(games):
        done = _finished(session_path(folder, game_id("avalon", seed, i), mode))
        if done is not None:
            results.append({k: done.get(k) for k in ("game_id", "engine", "seed", "winner", "reason", "rounds", "roles")} | {"resumed": True})
            if progress:
                progress(results[-1])
        else:
            todo.append(i)

    async def one(i: int) -> dict[str, Any]:
        gid = game_id("avalon", seed, i)
        table = AvalonGame(build_seats(specs, default_model=model, models=models, max_tokens=max_tokens), names=names,
                           seed=seed + i, game_id=gid, options=options)
        recorder = InMindRecorder(table, subject_for(table, names[subject_seat], mode))
        result = await table.run()
        session = await recorder.finish()
        write_atomic(session_path(folder, gid, mode), json.dumps(session, ensure_ascii=False, indent=1))
        if progress:
            progress(result)
        return result

    results.extend(play_games(todo, one, concurrency))
    report = batch_report("avalon", n, seats, None, results)
    report.update(out=str(folder), inmind={"mode": mode, "subject_seat": subject_seat, "lang": lang,
                                           "sessions": len(results), "recorded": len(todo)})
    return report


@dataclass
class PlayRecording:
    """One game set up for a person to record: the table, its recorder, and where the session goes.

    ``record_play`` runs it at the terminal; another front end (the web app) runs ``table.run()`` on
    its own event loop and then ``finish``. Nothing is written until ``finish``, so a game stopped
    half-way leaves the folder as it was.
    """

    table: AvalonGame
    recorder: InMindRecorder
    path: Path
    you: str

    async def finish(self, result: dict[str, Any]) -> dict[str, Any]:
        """Ask for the reflection, write the session whole, and return ``result`` with the subject and the file."""
        session = await self.recorder.finish()
        write_atomic(self.path, json.dumps(session, ensure_ascii=False, indent=1))
        result.update(you=self.you, your_role=self.table.roles[self.you], log=str(self.path))
        return result


def prepare_play(
    *,
    mode: str,
    out: str | Path | None,
    seat: int | None = None,
    players: int | None = None,
    model: str | None = None,
    others: str | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    lang: str = "en",
    max_tokens: int = 200,
    models: dict[str, Any] | None = None,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
    human: HumanSeat | None = None,
) -> PlayRecording:
    """Check every option and set up one game with a person as the subject (see ``record_play``).

    ``human`` is the person's seat in participant mode when it is not one at the terminal (a web
    page's seat answers through its own ``input_fn``); by default it reads ``input_fn``.
    Every mistake is one ``VgmError`` line, raised before any file or folder is made.
    """
    import random

    n = players if players is not None else 6
    seed = random.randrange(2**31) if seed is None else seed
    where = (seat - 1) if seat else random.Random(seed).randrange(n)
    if not 0 <= where < n:
        raise VgmError(f"--seat {seat} is outside 1..{n}")
    check_recording(mode, out=out, players=n, subject_seat=where, lang=lang)
    options = {k: v for k, v in (options or {}).items() if k != "lang"}
    if lang != "en":
        options["lang"] = lang
    names = seat_names(n, lang)
    check_options(AvalonGame, n, names=names, seed=0, options=options, max_tokens=max_tokens)
    specs = parse_seats(others if others is not None else "llm", n)
    if mode == "participant":
        specs[where] = SeatSpec("human")
    elif specs[where].kind == "human":
        raise VgmError("in observer mode you watch the seat; give --others without human seats")
    gid = f"avalon-play-{seed}"
    seats = build_seats(specs, default_model=model, models=models, input_fn=input_fn, output_fn=output_fn, max_tokens=max_tokens)
    folder = log_folder(out)  # after the seats: a bad model string must not leave an empty folder behind
    assert folder is not None
    if human is not None and mode == "participant":
        seats[where] = human
    table = AvalonGame(seats, names=names, seed=seed, game_id=gid, options=options)
    recorder = InMindRecorder(table, subject_for(table, names[where], mode, input_fn=input_fn, output_fn=output_fn, human=True))
    return PlayRecording(table, recorder, session_path(folder, gid, mode), names[where])


def record_play(
    *,
    mode: str,
    out: str | Path | None,
    seat: int | None = None,
    players: int | None = None,
    model: str | None = None,
    others: str | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    lang: str = "en",
    max_tokens: int = 200,
    models: dict[str, Any] | None = None,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
) -> dict[str, Any]:
    """One game with a person as the subject: in seat ``seat`` (1-based) as a player, or watching it (observer).

    The person types a strategy trace at every proposal (before voting) and a reflection at the end;
    the session goes to ``out`` as ``avalon-play-<seed>-<mode>.json``.
    """
    play = prepare_play(mode=mode, out=out, seat=seat, players=players, model=model, others=others, seed=seed,
                        options=options, lang=lang, max_tokens=max_tokens, models=models, input_fn=input_fn, output_fn=output_fn)
    result = run_at_the_terminal(play.table, None)
    return asyncio.run(play.finish(result))


__all__ = ["MODES", "PHRASES", "InMindRecorder", "Subject", "LlmSubject", "HumanSubject", "PlayRecording", "check_recording",
           "prepare_play", "record", "record_play", "scripted_reflection", "scripted_trace", "seat_names", "session_json", "subject_for"]
