"""Find and mask player (seat) references in Chinese or English annotations.

The subject writes seats as "3号", "3号玩家", "P3", bare "3", and groups of seats as one run of
digits ("16" = seats 1 and 6, "23开匪" = "2 and 3 are evil"). The same digits also count things
("2张好票", "第2轮", "3个人"). Every maximal run of the digits 1-6 is a *span* (this is how the
InMind paper counts its 194 reflection and 791 trace masks); each span is then classified as a
seat reference or not, so a task can mask only seats while a report can still say how many of
the paper's spans were card counts or mission numbers.

Why hand-written: no library knows Avalon seat talk; the rules are small and each is tested.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rulesets import VgmError


class MaskPolicyError(VgmError, ValueError):
    """An unknown mask policy (``--mask``)."""

_FULLWIDTH = str.maketrans("０１２３４５６７８９", "0123456789")
_RUN = re.compile(r"[1-6]+")
# Words that make a number a count, a time or an order rather than a seat (after the digits).
_COUNTERS = ("张", "轮", "局", "次", "个", "票", "人", "天", "把", "场", "名", "遍", "成", "件", "条", "%", "％", "秒", "分钟", "年", "月", "点",
             "倍", "块", "种", "句", "手", "比", "连", "塔", "杯", "回合", "小时", "星期", "周", "页", "位好", "位坏")
_EN_COUNTERS = re.compile(r"\s*(cards?|votes?|fails?|successe?s?|rounds?|missions?|quests?|times?|players|people|seconds?|minutes?|turns?|%|st\b|nd\b|rd\b|th\b|x\b)", re.IGNORECASE)
# Words before the digits that make it an ordinal or a mission/round number.
_BEFORE_NOT_SEAT = re.compile(r"(第|任务|round|mission|quest|turn|attempt|R|M|Q|x|比)\s*$", re.IGNORECASE)
_BEFORE_SEAT = re.compile(r"(P|p|player|Player|PLAYER|seat|Seat|#|玩家)\s*$")


@dataclass(frozen=True)
class Span:
    """One run of the digits 1-6 in a text: where it is, which seats it names, and whether it is a seat reference."""

    start: int
    end: int
    text: str
    is_seat: bool
    reason: str  # why it is (not) a seat reference, for reports and debugging

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(int(c) for c in self.text))

    @property
    def multi(self) -> bool:
        return len(self.text) > 1


def _classify(text: str, start: int, end: int) -> tuple[bool, str]:
    run = text[start:end]
    before = text[max(0, start - 12) : start]
    after = text[end : end + 8]
    prev_char = text[start - 1] if start else ""
    next_char = text[end] if end < len(text) else ""
    if prev_char.isdigit() or next_char.isdigit() or (prev_char and prev_char in ".．") or (next_char and next_char in ".．" and text[end + 1 : end + 2].isdigit()):
        return False, "part of a larger number"
    if prev_char.isascii() and prev_char.isalpha() and not _BEFORE_SEAT.search(before):
        return False, "part of a word"
    if re.match(r"\s*[-+=×*]\s*[0-9]", after) or re.search(r"[0-9]\s*[-+=×*]\s*$", before):
        return False, "arithmetic"
    if len(set(run)) != len(run):
        return False, "repeated digit"
    if _BEFORE_SEAT.search(before):
        return True, "seat marker before"
    if after.startswith("号") or after.lstrip().startswith("号"):
        return True, "号"
    if _BEFORE_NOT_SEAT.search(before):
        return False, "ordinal or mission number"
    stripped = after.lstrip()
    for word in _COUNTERS:
        if stripped.startswith(word):
            return False, f"count ({word})"
    if re.match(r"[好坏]\s*[0-9]", stripped) or re.match(r"[好坏]票", stripped) or (stripped[:1] in ("好", "坏") and re.search(r"[0-9]\s*[好坏]\s*$", before)):
        return False, "card count"
    if _EN_COUNTERS.match(after):
        return False, "count"
    return True, "bare seat number"


def find_spans(text: str) -> list[Span]:
    """Every maximal run of the digits 1-6 (full-width digits count), each classified seat / not seat."""
    norm = text.translate(_FULLWIDTH)
    spans = []
    for match in _RUN.finditer(norm):
        is_seat, reason = _classify(norm, match.start(), match.end())
        spans.append(Span(match.start(), match.end(), match.group(), is_seat, reason))
    return spans


def seat_spans(text: str) -> list[Span]:
    return [s for s in find_spans(text) if s.is_seat]


@dataclass(frozen=True)
class Masked:
    """A text with its masked spans replaced by ``[MASK_k]`` tags; ``answers[k-1]`` is span k's gold text."""

    text: str
    spans: tuple[Span, ...]
    first_index: int = 1

    @property
    def keys(self) -> list[str]:
        return [mask_key(self.first_index + i) for i in range(len(self.spans))]

    @property
    def answers(self) -> dict[str, str]:
        return {key: span.text for key, span in zip(self.keys, self.spans)}


def mask_key(index: int) -> str:
    return f"MASK_{index}"


def mask_tag(index: int, span: Span) -> str:
    """The tag shown to the model; a multi-seat span says how many seats it hides."""
    return f"[{mask_key(index)}]" if not span.multi else f"[{mask_key(index)}:{len(span.text)} seats]"


def mask(text: str, *, policy: str = "seats", first_index: int = 1) -> Masked:
    """Mask seat references (``policy="seats"``) or every 1-6 digit run (``policy="paper"``).

    Numbering starts at ``first_index`` so several texts (one trace per attempt) can share one
    answer sheet.
    """
    if policy not in ("seats", "paper"):
        raise MaskPolicyError(f"mask policy {policy!r}: use --mask seats or --mask paper")
    norm = text.translate(_FULLWIDTH)
    spans = [s for s in find_spans(norm) if policy == "paper" or s.is_seat]
    out, last = [], 0
    for i, span in enumerate(spans):
        out.append(norm[last : span.start])
        out.append(mask_tag(first_index + i, span))
        last = span.end
    out.append(norm[last:])
    return Masked("".join(out), tuple(spans), first_index)


def replace_seats(text: str, mapping: dict[int, str]) -> str:
    """Rewrite every seat reference with ``mapping`` (seat -> label), for anonymised prompts.

    A multi-seat run "16" becomes "A/F"; counts and ordinals are left alone.
    """
    norm = text.translate(_FULLWIDTH)
    out, last = [], 0
    for span in seat_spans(norm):
        out.append(norm[last : span.start])
        out.append("/".join(mapping.get(int(c), c) for c in span.text))
        last = span.end
    out.append(norm[last:])
    return "".join(out)
