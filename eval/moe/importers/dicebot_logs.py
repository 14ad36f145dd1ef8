"""Chat-group logs that Chinese dice bots export, read into one list of messages.

The formats, as each bot's own code writes them (docs/moe.md cites the files):

- **text** (SealDice ``raw-log.txt``, Dice! ``user/log/*.txt``, OlivaDice ``.trpglog``): a header
  ``Nickname(user id) YYYY-MM-DD HH:MM:SS`` and the message on the lines below it, up to the next
  header (SealDice and Dice! leave a blank line between messages, OlivaDice none);
- **sealdice** JSON (``sealdice-standard-log.json``): ``{"version": 101|105, "items": [{"nickname",
  "IMUserId", "time", "message", "isDice", ...}]}``, ``isDice`` marking the bot's own replies;
- **olivadice** JSON Lines (``.olivadicelog``): one ``{"time", "type", "sender": {"id", "name"},
  "message", "deleted"}`` per line; ``type`` ``reply``/``send_group`` is the bot, ``recv`` a person;
- **chat** (logs pasted by hand or through a log painter): ``<Name> text``, ``[Name] text``, or
  ``Name：text`` / ``Name: text``, one message a line.

A line that fits none of these is one error with ``file:line`` and what is wrong.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rulesets import FileProblem, VgmError, read_jsonl

FORMATS = ("auto", "sealdice", "dice", "olivadice", "chat")
_HEADER = re.compile(r"^(?P<name>.+?)\((?P<uid>[^()]*)\)\s+(?P<time>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$")
_CHAT = re.compile(r"^\s*(?:(?:\[(?P<stamp>\d{1,2}:\d{2}(?::\d{2})?)\]\s*)?)(?:<(?P<a>[^<>]{1,40})>|\[(?P<b>[^\[\]]{1,40})\]|(?P<c>[^:：<>\[\]\s][^:：<>\[\]]{0,39}?)\s*[:：])\s*(?P<text>.*)$")


class LogFormatError(VgmError):
    """A dice-bot log that cannot be read as the format it claims."""


@dataclass
class Message:
    """One chat message: who sent it, when (seconds, or None), what it said, and whether a bot sent it."""

    speaker: str
    text: str
    line: int
    time: float | None = None
    uid: str = ""
    bot: bool = False


def _stamp(text: str) -> float | None:
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").timestamp()
    except ValueError:
        return None


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LogFormatError(f"{path}: cannot read ({exc.strerror}); give a dice-bot log file") from None
    if b"\x00" in raw[:4096]:
        raise LogFormatError(f"{path}: a binary file, not a log; export the log as text or JSON from the bot")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return raw.decode("gb18030")
        except UnicodeDecodeError:
            raise LogFormatError(f"{path}: neither UTF-8 nor GB18030 text; re-save the log as UTF-8") from None


def detect_format(path: Path, text: str) -> str:
    """``sealdice`` (its JSON), ``olivadice`` (its JSON Lines), ``text`` (the shared header format) or ``chat``."""
    head = text.lstrip()[:2000]
    if head.startswith("{") and '"items"' in head:
        return "sealdice"
    if head.startswith("{") and '"sender"' in head:
        return "olivadice"
    first = next((line for line in text.splitlines() if line.strip()), "")
    if _HEADER.match(first):
        return "text"
    return "chat"


def read_header_text(path: Path, text: str) -> list[Message]:
    """``Name(id) date time`` then the message: the text export all three bots share."""
    messages: list[Message] = []
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _HEADER.match(line)
        if match:
            if messages:
                messages[-1].text = "\n".join(body).strip()
            messages.append(Message(match["name"].strip(), "", number, _stamp(match["time"]), match["uid"]))
            body = []
        elif messages:
            body.append(line)
        elif line.strip():
            raise LogFormatError(f"{path}:{number}: text before the first 'Nickname(id) YYYY-MM-DD HH:MM:SS' header; "
                                 f"is this a bot's text export? try --format chat")
    if messages:
        messages[-1].text = "\n".join(body).strip()
    return [m for m in messages if m.text]


def read_chat(path: Path, text: str) -> list[Message]:
    """One ``<Name> text`` / ``Name：text`` message a line; a line with no speaker continues the one before."""
    messages: list[Message] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _CHAT.match(line)
        if match and match["text"].strip():
            name = (match["a"] or match["b"] or match["c"]).strip()
            messages.append(Message(name, match["text"].strip(), number))
        elif messages:
            messages[-1].text += "\n" + line.strip()
        else:
            raise LogFormatError(f"{path}:{number}: no speaker; chat lines look like '<Name> text' or 'Name：text'")
    return messages


def _json(path: Path, number: int, line: str) -> dict:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"{path}:{number}: malformed JSON ({exc.msg}); export the log again or fix that line") from None
    if not isinstance(data, dict):
        raise LogFormatError(f"{path}:{number}: expected a JSON object, got {type(data).__name__}")
    return data


def read_sealdice_json(path: Path, text: str) -> list[Message]:
    """SealDice's standard log: ``items`` in order; ``isDice`` items are the bot's."""
    data = _json(path, 1, text)
    items = data.get("items")
    if not isinstance(items, list):
        raise LogFormatError(f"{path}:1: no 'items' list; a SealDice log is {{\"version\", \"items\": [...]}}")
    messages = []
    for index, item in enumerate(items, 1):
        if not isinstance(item, dict) or "message" not in item or "nickname" not in item:
            raise LogFormatError(f"{path}:1: items[{index}] needs 'nickname' and 'message'")
        time = item.get("time")
        messages.append(Message(str(item["nickname"]).strip(), str(item["message"]).strip(), index,
                                float(time) if isinstance(time, (int, float)) else None, str(item.get("IMUserId", "")), bool(item.get("isDice"))))
    return [m for m in messages if m.text]


def read_olivadice_jsonl(path: Path, text: str) -> list[Message]:
    """OlivaDice's ``.olivadicelog``: one message a line; deleted (recalled) ones and the duration record are skipped.

    The lines are read again by the shared reader (``rulesets.read_jsonl``, UTF-8 as the bot writes
    them), not from ``text``: a bad line, the last included, is one ``file:line`` error."""
    try:
        rows = list(read_jsonl(path, on_torn="error", what="OlivaDice log").numbered())
    except FileProblem as problem:
        raise LogFormatError(str(problem)) from None
    messages = []
    for number, data in rows:
        if data.get("type") == "log_total_duration" or data.get("deleted"):
            continue
        sender = data.get("sender")
        if not isinstance(sender, dict) or "message" not in data:
            raise LogFormatError(f"{path}:{number}: needs 'sender' {{id, name}} and 'message'")
        time = data.get("time")
        messages.append(Message(str(sender.get("name", "")).strip(), str(data["message"]).strip(), number,
                                float(time) if isinstance(time, (int, float)) else None, str(sender.get("id", "")),
                                data.get("type") in ("reply", "send_group", "reply_private")))
    return [m for m in messages if m.text]


def read_log(path: str | Path, fmt: str = "auto") -> tuple[str, list[Message]]:
    """The messages of a dice-bot log and the reader that read them (``--format`` or detected)."""
    path = Path(path)
    if fmt not in FORMATS:
        raise LogFormatError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise LogFormatError(f"{path}: no such file; give a log exported by SealDice, Dice! or OlivaDice")
    text = _read_text(path)
    if not text.strip():
        raise LogFormatError(f"{path}: empty file; export the log again")
    kind = detect_format(path, text)
    if fmt == "chat":
        kind = "chat"
    elif fmt == "sealdice" and kind not in ("sealdice", "text"):
        raise LogFormatError(f"{path}: not a SealDice export (sealdice-standard-log.json or raw-log.txt); try --format auto")
    elif fmt == "olivadice" and kind not in ("olivadice", "text"):
        raise LogFormatError(f"{path}: not an OlivaDice export (.olivadicelog or .trpglog); try --format auto")
    elif fmt == "dice" and kind != "text":
        raise LogFormatError(f"{path}: not a Dice! text log ('Nickname(id) date time' headers); try --format auto")
    reader = {"sealdice": read_sealdice_json, "olivadice": read_olivadice_jsonl, "text": read_header_text, "chat": read_chat}[kind]
    return kind, reader(path, text)
