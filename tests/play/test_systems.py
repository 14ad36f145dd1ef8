"""One module per rule system: each mechanic keeps its own rules, and a new one is one registry line."""
from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest
import rulesets
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from gm.dice import Roll
from gm.systems import (
    MECHANICS, PACK_SYSTEMS, Difficulty, Mechanic, RollPlan, Sheet, UnknownMechanic, choose_difficulty, judge,
    make_roll, mechanic_for, parse_character, record,
)
from gm.systems import d20, degrees, percentile, trait

GM = Path(__file__).resolve().parents[2] / "gm"


def _roll(total: int, faces: list[int]) -> Roll:
    return Roll(expression="x", total=total, breakdown=str(total), faces=faces)


# d20 (dnd5e) ------------------------------------------------------------------------------

D20 = RollPlan(system="d20", check="stealth", check_name="Stealth", modifier=3)


@given(total=st.integers(-10, 60), dc=st.integers(1, 40), face=st.integers(1, 20))
def test_d20_success_iff_total_meets_dc_whatever_the_face(total, dc, face):
    words, ok = judge(D20, Difficulty(system="d20", target=dc), _roll(total, [face]))
    assert ok == (total >= dc)
    assert words.startswith("success" if ok else "failure")


@given(text=st.text(max_size=40))
def test_d20_dc_is_always_on_the_ladder(text):
    dc = d20.choose_difficulty("stealth", text).target
    assert dc in {rung for rung, _ in d20.LADDER}


# degrees (pf2e) ---------------------------------------------------------------------------

PF2 = RollPlan(system="degrees", check="athletics", check_name="Athletics", modifier=8)
RANK = {"critical failure": -2, "failure": -1, "success": 1, "critical success": 2}
STEPS = [-2, -1, 1, 2]


def _degree(total: int, dc: int, face: int) -> int:
    words, ok = judge(PF2, Difficulty(system="degrees", target=dc), _roll(total, [face]))
    assert ok == (RANK[words] > 0)
    return RANK[words]


@given(a=st.integers(-20, 70), b=st.integers(-20, 70), dc=st.integers(5, 50), face=st.integers(2, 19))
def test_degrees_are_monotone_in_the_total(a, b, dc, face):
    low, high = sorted((a, b))
    assert _degree(low, dc, face) <= _degree(high, dc, face)


@given(total=st.integers(-20, 70), dc=st.integers(5, 50), face=st.integers(2, 19))
def test_natural_20_and_1_move_the_degree_exactly_one_step(total, dc, face):
    plain = STEPS.index(_degree(total, dc, face))
    assert STEPS.index(_degree(total, dc, 20)) == min(plain + 1, len(STEPS) - 1)
    assert STEPS.index(_degree(total, dc, 1)) == max(plain - 1, 0)


# percentile (coc7e) -----------------------------------------------------------------------

LEVELS = st.sampled_from(["regular", "hard", "extreme"])


def _coc(value: int) -> RollPlan:
    return RollPlan(system="percentile", check="spot_hidden", check_name="Spot Hidden", value=value)


@given(a=st.integers(1, 100), b=st.integers(1, 100), value=st.integers(0, 199), level=LEVELS)
def test_percentile_lower_roll_never_a_worse_level(a, b, value, level):
    low, high = sorted((a, b))
    assert percentile.success_level(low, value) >= percentile.success_level(high, value)
    needed = {"regular": 1, "hard": 2, "extreme": 3}[level]
    ok = judge(_coc(value), Difficulty(system="percentile", level=level), _roll(low, [low]))[1]
    assert ok == (percentile.success_level(low, value) >= needed)


@given(value=st.integers(0, 199), level=LEVELS)
def test_percentile_01_is_always_critical_and_100_always_fumbles(value, level):
    difficulty = Difficulty(system="percentile", level=level)
    assert judge(_coc(value), difficulty, _roll(1, [1])) == ("critical success", True)
    assert judge(_coc(value), difficulty, _roll(100, [100])) == ("fumble", False)


# trait (swade) ----------------------------------------------------------------------------

SW = RollPlan(system="trait", check="notice", check_name="Notice", die="d8", wild=True)
FACE = st.integers(1, 30)


@given(total=st.integers(-5, 60), faces=st.tuples(FACE, FACE).filter(lambda f: f != (1, 1)), tn=st.integers(2, 8))
def test_trait_raises_are_each_four_over_the_tn(total, faces, tn):
    words, ok = judge(SW, Difficulty(system="trait", target=tn), _roll(total, list(faces)))
    assert ok == (total >= tn)
    if ok:
        found = re.search(r"(\d+) raises?", words)
        assert (int(found.group(1)) if found else 0) == (total - tn) // 4
    else:
        assert words == "failure"


@given(total=st.integers(-5, 60), tn=st.integers(2, 8))
def test_snake_eyes_on_a_wild_card_always_fails_critically(total, tn):
    assert judge(SW, Difficulty(system="trait", target=tn), _roll(total, [1, 1])) == ("critical failure (snake eyes)", False)
    extra = SW.model_copy(update={"wild": False})
    assert judge(extra, Difficulty(system="trait", target=tn), _roll(total, [1, 1]))[1] == (total >= tn)


# the registry -----------------------------------------------------------------------------

def test_the_registry_has_the_four_mechanics_and_maps_the_packs():
    assert set(MECHANICS) == {"d20", "degrees", "percentile", "trait"}
    for name, mechanic in MECHANICS.items():
        assert isinstance(mechanic, Mechanic)
        assert mechanic.sheet.system == name
    assert PACK_SYSTEMS == {"dnd5e": "d20", "pf2e": "degrees", "coc7e": "percentile", "swade": "trait"}
    for pack, name in PACK_SYSTEMS.items():
        assert mechanic_for(pack) is MECHANICS[name] is mechanic_for(rulesets.load(pack)) is mechanic_for(name)


def test_an_unknown_system_is_one_clear_error():
    with pytest.raises(UnknownMechanic, match="d20, percentile, degrees, trait"):
        mechanic_for("d12")
    with pytest.raises(ValidationError, match="not a mechanic"):
        RollPlan(system="d12", check="x", check_name="X")


class CoinSheet(Sheet):
    """A toy system: everyone flips a coin; heads (2) succeeds."""

    system: ClassVar[str] = "coin"
    luck: int = 0

    def plan(self, ruleset, check_id: str) -> RollPlan:
        return RollPlan(system="coin", check=check_id, check_name=check_id.title(), modifier=self.luck)


class Coin:
    """A fifth mechanic written in a test: it only has to satisfy the protocol."""

    sheet = CoinSheet

    def choose_difficulty(self, check_id, text, scenario=None, revealed=None):
        return Difficulty(system="coin", target=2, reason="heads wins")

    def expression(self, plan, advantage=0):
        return "1d2"

    def make_roll(self, plan, difficulty, rng=None):
        face = (rng or random).randint(1, 2)
        return _roll(face + plan.modifier, [face])

    def roll_hint(self, plan):
        return "1 for tails, 2 for heads"

    def player_roll(self, plan, difficulty, typed):
        return _roll(int(typed), [int(typed)])

    def judge(self, plan, difficulty, result):
        return ("heads", True) if result.total >= difficulty.target else ("tails", False)

    def label(self, difficulty, plan=None):
        return "heads"

    def target(self, plan, difficulty):
        return difficulty.target


def test_a_fifth_mechanic_is_one_registry_line(monkeypatch):
    coin = Coin()
    assert isinstance(coin, Mechanic)
    monkeypatch.setitem(MECHANICS, "coin", coin)
    assert mechanic_for("coin") is coin
    # a pack that names its mechanic, and a user's sheet that names it for a pack that does not
    coinflip = SimpleNamespace(name="coinflip", rules={"system": "coin"})
    assert mechanic_for(coinflip) is coin
    sheet = parse_character({"name": "Flip", "luck": 1}, coinflip)
    assert isinstance(sheet, CoinSheet)
    homebrew = SimpleNamespace(name="homebrew", rules={})
    assert isinstance(parse_character({"name": "Flop", "system": "coin"}, homebrew), CoinSheet)
    # every dispatch goes through the registry: plan, difficulty, rolls, judging, the record
    plan = sheet.plan(coinflip, "dodge")
    difficulty = choose_difficulty("coin", "dodge", "I dodge")
    assert (plan.expression(), difficulty.label(plan)) == ("1d2", "heads")
    assert judge(plan, difficulty, make_roll(plan, difficulty, random.Random(0)))[1] is True  # luck 1: never below 2
    rec = record("Flip", plan, difficulty, _roll(1, [1]))
    assert (rec.outcome, rec.success, rec.target, rec.target_label) == ("tails", False, 2, "heads")


def test_no_module_outside_the_registry_branches_on_the_system():
    branching = re.compile(r"system\s*(==|!=)|system\s+(not\s+)?in\s*[(\[{]")
    registry = GM / "systems" / "__init__.py"
    offences = [
        f"{path.relative_to(GM.parent)}:{n}: {line.strip()}"
        for path in sorted(GM.rglob("*.py")) if path != registry
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if branching.search(line)
    ]
    assert not offences, "dispatch through gm.systems.mechanic_for instead:\n" + "\n".join(offences)
