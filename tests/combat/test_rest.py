"""Rest gives back what each game says: 5e Hit Dice and slots, CoC magic points one an hour,
pf2e slots and Focus Points with the daily preparations, SWADE power points five an hour."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesets
from gm.combat import combatant_from_sheet
from gm.combat.powers import cast_power
from gm.combat.rest import read_rest, rest
from gm.combat.spells import cast
from gm.systems import find_character

from .conftest import sheets


def pc(pack, name):
    return combatant_from_sheet(find_character(name, sheets(pack)), rulesets.load(pack))


@pytest.mark.parametrize("line, hours", [
    ("We take a long rest", 8), ("I take a short rest", 1), ("we rest for three hours", 3),
    ("We make camp for the night", 8), ("Let's rest for 2 hours", 2), ("Pip rests for ten minutes", None),
    ("I rest for ten minutes", 1 / 6), ("Maren, you should rest", None), ("the rest of us wait", None),
    ("I rest my hand on the altar", None), ("I ask Maren whether we can rest here", None),
    ("/rest", 1), ("/rest long", 8), ("/rest 3", 3), ("/rest 2 hours", 2), ("/rest banana", None),
])
def test_lines_that_rest_and_for_how_long(line, hours):
    assert read_rest(line) == (pytest.approx(hours) if hours is not None else None)


def test_coc_magic_points_come_back_one_an_hour_up_to_a_fifth_of_pow():
    margaret = pc("coc7e", "Margaret")
    top = margaret.magic_points_max
    cast_power(None, margaret, "Mend the Flesh", [margaret], rng=random.Random(1))
    assert margaret.magic_points == top - 6
    assert rest(margaret, 2)[0].text == f"Dr. Margaret Hale regains 2 magic points ({top - 4}/{top})"
    rest(margaret, 8)
    assert margaret.magic_points == top


def test_swade_power_points_come_back_five_an_hour():
    hosea = pc("swade", "Hosea")
    hosea.power_points = 1
    assert rest(hosea, 1)[0].text == "Hosea Pike regains 5 power points (6/10)"
    rest(hosea, 3)
    assert hosea.power_points == 10


def test_pf2e_daily_preparations_give_back_slots_focus_and_hit_points():
    pip = pc("pf2e", "Pip")
    cast_power(None, pip, "Soothe", [pip], rng=random.Random(1))
    spent = dict(pip.slots)
    assert spent != pip.slots_max
    pip.focus_points, pip.hp = 0, 3
    rest(pip, 2)  # two hours: a Refocus, no slots
    assert pip.slots == spent and pip.focus_points == 1
    pip.focus_points = 0
    line = rest(pip, 8)[0].text
    assert pip.slots == pip.slots_max and pip.focus_points == 1 and pip.hp > 3
    assert line.startswith("Pip Quillon rests for the night and makes the daily preparations")


def test_dnd5e_short_rest_spends_hit_dice_and_long_rest_gives_slots_back():
    oskar = pc("dnd5e", "Oskar")
    cast(None, oskar, "Bless", [oskar], rng=random.Random(1))
    oskar.hp = 5
    rest(oskar, 1, random.Random(2))
    assert oskar.hp > 5 and oskar.hit_dice < 3 and oskar.slots[1] == 3
    rest(oskar, 8)
    assert oskar.slots == oskar.slots_max and oskar.hp == oskar.max_hp


MARGARET, HOSEA = pc("coc7e", "Margaret"), pc("swade", "Hosea")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10), st.floats(0, 30))
def test_rest_never_fills_past_the_maximum(left, hours):
    margaret, hosea = MARGARET.model_copy(deep=True), HOSEA.model_copy(deep=True)
    margaret.magic_points = min(left, margaret.magic_points_max)
    hosea.power_points = left
    rest(margaret, hours)
    rest(hosea, hours)
    assert margaret.magic_points <= margaret.magic_points_max and hosea.power_points <= hosea.power_points_max
    assert margaret.magic_points == min(margaret.magic_points_max, min(left, margaret.magic_points_max) + int(hours))
