"""Savage Worlds combat: the action deck and jokers, Shaken, wounds, Bennies, soaking, the Wild Die."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.combat import Combatant, start_combat
from gm.combat import trait as rules

from .conftest import Faces, duel, put_first, sheets

DUTCH = ["Dutch"]  # Shooting d8, Peacemaker 2d6+1 AP 1; Toughness 6, Parry 5; Wild Card, 3 Bennies


def test_the_deck_has_54_cards_and_two_jokers():
    assert len(rules.DECK) == 54 and len(set(rules.DECK)) == 54
    assert sum(rules.is_joker(c) for c in rules.DECK) == 2
    values = sorted(rules.DECK, key=rules.card_value)
    assert values[-2:] == rules.JOKERS and values[0] == "2♣" and values[-3] == "A♠"


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_a_joker_round_reshuffles_and_no_card_is_lost(seed):
    fight = start_combat("swade", sheets("swade"), ["outlaw_boss", {"monster": "hired_gun", "count": 3}], random.Random(seed))
    for c in fight.combatants.values():  # nobody gets hurt: we watch the cards
        c.attacks = []
        c.controller = "player"
    joker_last_round = any(rules.is_joker(c.card) for c in fight.combatants.values())
    for _ in range(12):
        start = len(fight.log)
        while True:
            fight.next_turn()
            if any(e.kind == "round" for e in fight.log[start:]):
                break
        new = fight.log[start:]
        shuffled = any(e.kind == "shuffle" and "joker" in e.text for e in new)
        assert shuffled == joker_last_round
        held = [c.card for c in fight.combatants.values() if c.card]
        assert len(held) + len(fight.deck) + len(fight.discard) == 54
        assert len(set(held) | set(fight.deck) | set(fight.discard)) == 54
        joker_last_round = any(rules.is_joker(c) for c in held)


def test_order_follows_the_cards():
    fight = start_combat("swade", sheets("swade"), ["claim_jumper"], random.Random(5))
    values = [rules.card_value(fight.combatants[n].card) for n in fight.order]
    assert values == sorted(values, reverse=True)
    assert all(e.kind != "initiative" for e in fight.log) and sum(e.kind == "deal" for e in fight.log) == 4


def test_a_joker_acts_any_time_with_plus_two():
    fight = start_combat("swade", sheets("swade")[:1], ["claim_jumper"], random.Random(1))
    dutch = fight.get("Dutch")
    dutch.card = "Red Joker"
    dutch.acted_round = 0
    fight.order = ["Claim Jumper", dutch.name]
    fight.turn = 0
    fight.rules.start_turn(fight, fight.get("Claim Jumper"), random.Random(0))
    events = fight.act("Dutch", "peacemaker", "Claim Jumper", Faces(3, 2, 4, 4))
    assert "joker +2" in events[0].text and "keep 3 + 2 = 5" in events[0].breakdown
    assert "+ 2 = " in events[1].breakdown  # and to the damage
    fight.next_turn()
    assert fight.current.name != dutch.name or fight.round > 1  # his own turn this round is spent


def test_wild_cards_roll_the_wild_die_and_extras_do_not():
    fight = duel("swade", "claim_jumper", party=DUTCH, distance=30)
    put_first(fight, "Dutch")
    mine = fight.act("Dutch", "peacemaker", "Claim Jumper", Faces(2, 5, 1, 1))
    assert "wild d6" in mine[0].breakdown
    put_first(fight, "Claim Jumper")
    if fight.get("Claim Jumper").standing:
        theirs = fight.act("Claim Jumper", "colt navy", "Dutch", Faces(3))
        assert "wild d6" not in theirs[0].breakdown


def test_snake_eyes_is_a_critical_failure():
    fight = duel("swade", "claim_jumper", party=DUTCH, distance=30)
    put_first(fight, "Dutch")
    fight.get("Dutch").bennies = 0
    events = fight.act("Dutch", "peacemaker", "Claim Jumper", Faces(1, 1))
    assert "snake eyes" in events[0].text and events[0].hit is False


@pytest.mark.parametrize("damage,shaken_before,wounds,shaken", [(4, False, 0, False), (6, False, 0, True), (9, True, 1, True),
                                                               (10, False, 1, True), (14, False, 2, True)])
def test_damage_against_toughness(damage, shaken_before, wounds, shaken):
    fight = duel("swade", "outlaw_boss", party=DUTCH)
    dutch = fight.get("Dutch")  # Toughness 6
    dutch.bennies = 0
    dutch.shaken = shaken_before
    rules.hurt(fight, dutch, damage)
    assert dutch.wounds == wounds and dutch.shaken is shaken and dutch.status == "up"


def test_extras_are_out_at_one_wound():
    fight = duel("swade", "claim_jumper", party=DUTCH)
    fight.damage("Claim Jumper", 9)  # Toughness 5: a raise
    jumper = fight.get("Claim Jumper")
    assert jumper.status == "down" and jumper.hp == 0 and fight.outcome == "party"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=10), st.integers(0, 3))
def test_wounds_are_capped_at_three_and_then_incapacitated(hits, bennies):
    fight = duel("swade", "outlaw_boss", party=DUTCH)
    dutch = fight.get("Dutch")
    dutch.bennies = bennies
    rng = random.Random(sum(hits))
    for amount in hits:
        if dutch.status != "up":
            break
        rules.hurt(fight, dutch, amount, rng=rng)
        assert 0 <= dutch.wounds <= 3 and 0 <= dutch.bennies <= bennies
        assert (dutch.status == "down") == dutch.has("incapacitated")
        assert dutch.hp == (0 if dutch.status != "up" else 4 - dutch.wounds)


def test_soaking_spends_a_benny_and_cancels_wounds():
    fight = duel("swade", "outlaw_boss", party=DUTCH)
    dutch = fight.get("Dutch")  # Vigor d8
    events = rules.hurt(fight, dutch, 14, rng=Faces(8, 1, 1))  # 2 wounds; Vigor 8!+1 = 9: success and a raise
    assert dutch.bennies == 2 and dutch.wounds == 0 and not dutch.shaken
    assert any(e.kind == "soak" and "cancels 2 of 2" in e.text for e in events)


def test_shaken_recovers_on_spirit_at_the_start_of_the_turn():
    fight = duel("swade", "claim_jumper", party=DUTCH)
    dutch = fight.get("Dutch")
    dutch.shaken = True
    events = rules.start_turn(fight, dutch, Faces(5, 2))  # Spirit d6: 5
    assert not dutch.shaken and dutch.actions_left == 1 and events[0].hit
    dutch.shaken, dutch.bennies = True, 0
    rules.start_turn(fight, dutch, Faces(2, 3))
    assert dutch.shaken and dutch.actions_left == 0
    dutch.bennies = 1
    rules.start_turn(fight, dutch, Faces(2, 3))
    assert not dutch.shaken and dutch.bennies == 0 and dutch.actions_left == 1


def test_a_failed_attack_can_be_rerolled_with_a_benny():
    fight = duel("swade", "claim_jumper", party=DUTCH, distance=30)
    put_first(fight, "Dutch")
    fight.get("Claim Jumper").toughness = 30
    events = fight.act("Dutch", "peacemaker", "Claim Jumper", Faces(2, 1, 6, 3, 1, 1), benny_reroll=True)
    assert len(events[0].rolls) == 2 and "a Benny rerolls" in events[0].text and fight.get("Dutch").bennies == 2
    assert events[0].hit


def test_fighting_is_against_parry_and_range_costs():
    fight = duel("swade", "claim_jumper", party=DUTCH)
    put_first(fight, "Dutch")
    melee = fight.act("Dutch", "bowie knife", "Claim Jumper", Faces(3, 2))  # Fighting unskilled d4-2 vs Parry 5
    assert "vs Parry 5" in melee[0].text
    far = duel("swade", "claim_jumper", party=DUTCH, distance=100)  # 12/24/48 inches = 72/144/288 ft
    put_first(far, "Dutch")
    shot = far.act("Dutch", "peacemaker", "Claim Jumper", Faces(3, 2))
    assert "medium range -2" in shot[0].text


def test_sort_key_is_the_card_then_the_name():
    people = [Combatant(name=n, side="party", system="trait", initiative=rules.card_value(card), card=card)
              for n, card in [("A", "5♣"), ("B", "5♠"), ("C", "Red Joker"), ("D", "K♦")]]
    assert [c.name for c in sorted(people, key=rules.sort_key)] == ["C", "D", "B", "A"]
