"""Seat references in Chinese (and English) annotations are masked; counts and ordinals are not."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval.inmind.masking import find_spans, mask, replace_seats, seat_spans


def seats_in(text: str) -> list[str]:
    return [s.text for s in seat_spans(text)]


@pytest.mark.parametrize(
    "text, seats",
    [
        ("3号发言很奇怪", ["3"]),
        ("3号玩家是队长", ["3"]),
        ("我怀疑P3和p5", ["3", "5"]),
        ("Player 4 lied about 2", ["4", "2"]),
        ("23开匪，保1", ["23", "1"]),  # a run of digits names several seats
        ("16互保", ["16"]),
        ("5/6谁是莫甘娜", ["5", "6"]),
        ("拇指牌25，点23开匪", ["25", "23"]),
        ("２号很像梅林", ["2"]),  # full-width digit
        ("简单刀就6，复杂刀就2。", ["6", "2"]),
        ("点了256上车，3好冲票", ["256", "3"]),
    ],
)
def test_seat_references_are_found(text, seats):
    assert seats_in(text) == seats


@pytest.mark.parametrize(
    "text",
    [
        "第2轮我投反对",  # ordinal: a round, not a seat
        "有2张好票，1张坏票",  # card counts
        "3个好人在车上",  # count of people
        "虽然只有1轮",  # count of rounds
        "投了2好1坏",  # card summary
        "40%是莫甘娜",  # part of a larger number
        "第一局任务成功",  # Chinese numerals are never digits
        "11点开始",  # repeated digit: not a seat group
        "2 fail cards in mission 3",  # English counts and mission numbers
        "4-3=1",  # arithmetic
    ],
)
def test_numbers_that_are_not_seats_are_left_alone(text):
    assert seats_in(text) == []
    assert mask(text).text == text.replace("\uff12", "2")


def test_paper_policy_masks_every_run_and_reports_which_are_not_seats():
    text = "1号带了34，第2轮我投反对，3个好人在车上。"
    spans = find_spans(text)
    assert [(s.text, s.is_seat) for s in spans] == [("1", True), ("34", True), ("2", False), ("3", False)]
    paper = mask(text, policy="paper")
    assert paper.text == "[MASK_1]号带了[MASK_2:2 seats]，第[MASK_3]轮我投反对，[MASK_4]个好人在车上。"
    seats = mask(text)
    assert seats.text == "[MASK_1]号带了[MASK_2:2 seats]，第2轮我投反对，3个好人在车上。"
    assert seats.answers == {"MASK_1": "1", "MASK_2": "34"}


def test_numbering_can_continue_across_texts():
    assert mask("2号反对", first_index=3).answers == {"MASK_3": "2"}


def test_replace_seats_relabels_groups_and_keeps_counts():
    labels = {1: "F", 2: "A", 3: "E", 4: "D", 5: "B", 6: "C"}
    assert replace_seats("2号踩16，有2张好票", labels) == "A号踩F/C，有2张好票"


@given(st.text(alphabet="123456号第轮张个，P ", max_size=40))
def test_filling_every_mask_with_its_answer_restores_the_text(text):
    masked = mask(text, policy="paper")
    restored = masked.text
    for key, span in zip(masked.keys, masked.spans):
        tag = f"[{key}]" if not span.multi else f"[{key}:{len(span.text)} seats]"
        restored = restored.replace(tag, span.text, 1)
    assert restored == text
    assert "".join(s.text for s in masked.spans) == "".join(c for c in text if c in "123456")
