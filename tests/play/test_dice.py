"""Dice: d20 expressions, CoC percentile with bonus/penalty dice, SWADE exploding trait + Wild Die."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.dice import BadDice, percentile, roll, trait_roll


@given(seed=st.integers(0, 10**6), mod=st.integers(-5, 15))
@settings(max_examples=200, deadline=None)
def test_d20_check_in_range_and_reproducible(seed, mod):
    expr = f"1d20{mod:+d}"
    r = roll(expr, random.Random(seed))
    assert 1 + mod <= r.total <= 20 + mod
    assert r.total == roll(expr, random.Random(seed)).total
    assert len(r.faces) == 1 and r.total == r.faces[0] + mod


@given(seed=st.integers(0, 10**6))
@settings(max_examples=200, deadline=None)
def test_advantage_keeps_the_higher(seed):
    adv = roll("2d20kh1", random.Random(seed))
    dis = roll("2d20kl1", random.Random(seed))  # the same two dice
    assert adv.total >= dis.total
    assert "2d20kh1" in adv.breakdown


@given(seed=st.integers(0, 10**6), bonus=st.integers(0, 2), penalty=st.integers(0, 2))
@settings(max_examples=300, deadline=None)
def test_percentile_bounds_and_bonus_helps(seed, bonus, penalty):
    plain = percentile(rng=random.Random(seed))
    r = percentile(bonus, penalty, rng=random.Random(seed))
    assert 1 <= r.total <= 100 and 1 <= plain.total <= 100
    # The first tens die and the units die are the same draws, so a bonus die can only lower the result.
    if bonus > penalty:
        assert r.total <= plain.total
    if penalty > bonus:
        assert r.total >= plain.total


def test_percentile_reads_00_and_0_as_100():
    class Lowest(random.Random):
        def randrange(self, *args, **kw):
            return 0  # every die shows its lowest face: d10 → 1, tens d% → 00

    assert percentile(rng=Lowest()).total == 1  # tens 00 + units 1 → 01

    class TensZeroUnitsTen(random.Random):
        def randrange(self, start, stop=None, step=1):
            return 9 if stop is None else 0  # d10 shows 10 (units 0); tens d% shows 00

    assert percentile(rng=TensZeroUnitsTen()).total == 100
    with pytest.raises(BadDice, match="at most 2"):
        percentile(bonus=3)


@given(seed=st.integers(0, 10**6), die=st.sampled_from(["d4", "d6", "d8", "d10", "d12"]), mod=st.integers(-2, 2))
@settings(max_examples=300, deadline=None)
def test_trait_roll_explodes_and_keeps_the_better_die(seed, die, mod):
    r = trait_roll(die, mod, wild=True, rng=random.Random(seed))
    sides = int(die[1:])
    trait_total = roll(f"1d{sides}e{sides}", random.Random(seed)).total
    assert trait_total % sides != 0  # an exploding die never stops on its top face
    assert r.total >= trait_total + mod
    assert "wild d6" in r.breakdown and len(r.faces) == 2


@pytest.mark.parametrize("expr", ["", "1d0", "d", "1d20+", "1000d6", "2d20kh1 banana", "1d-4"])
def test_impossible_dice_are_one_line_errors(expr):
    with pytest.raises(BadDice) as err:
        roll(expr)
    assert "\n" not in str(err.value)


def test_breakdown_reads_plainly():
    r = roll("4d6kh3", random.Random(1))
    assert "`" not in r.breakdown and "**" not in r.breakdown
    assert r.breakdown.endswith(f"= {r.total}")
