"""Things change hands by the rules of what each carries: a potion given is the other's, a weapon
takes its attack along, a thing not carried cannot be given, and nothing is made or lost on the way."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import rulesets
from gm.combat import CombatError, combatant_from_sheet
from gm.combat.inventory import carried, hand_over, put, read_item_act, take
from gm.systems import ready_characters

PACK = rulesets.load("dnd5e")
NAMES = ["Brisa Tallowmere", "Brisa", "Oskar Venn", "Oskar", "Ilya Thorncastle", "Ilya", "Maren"]


def _party():
    sheets = {s.name.split()[0]: s for s in ready_characters(PACK)}
    return sheets, {k: combatant_from_sheet(s, PACK) for k, s in sheets.items()}


@pytest.mark.parametrize("line, kind, item, to", [
    ("I give the potion to Brisa", "give", "the potion", "Brisa"),
    ("I hand Maren the key", "give", "the key", "Maren"),
    ("I pass my arrows over to Brisa, then duck", "give", "my arrows", "Brisa"),
    ("I drink my healing potion", "use", "my healing potion", None),
    ("I pour the healing potion down Brisa's throat", "use", "the healing potion", "Brisa"),
])
def test_lines_that_move_or_use_a_thing(line, kind, item, to):
    act = read_item_act(line, "Oskar Venn", NAMES)
    assert (act.kind, act.item, act.to) == (kind, item, to)


@pytest.mark.parametrize("line", ["I give it to Maren", "I search the altar", "I hand over the reins"])
def test_lines_that_name_no_thing_or_no_one_are_not_item_acts(line):
    assert read_item_act(line, "Oskar Venn", NAMES) is None


def test_the_sheet_items_are_carried_and_a_potion_given_moves():
    _, party = _party()
    assert carried(party["Brisa"]) == {"Shortsword": 1, "Shortbow": 1, "Leather": 1, "Arrows": 20, "Potion of Healing": 1}
    assert hand_over(party["Brisa"], party["Oskar"], "healing potion") == "Potion of Healing"
    assert "Potion of Healing" not in carried(party["Brisa"]) and party["Oskar"].items == {"potion_of_healing": 1}
    with pytest.raises(CombatError, match="^Brisa Tallowmere has no healing potion$"):
        take(party["Brisa"], "my healing potion")


def test_a_javelin_given_joins_the_thrown_count_and_the_last_sword_takes_its_attack():
    sheets, party = _party()
    hand_over(party["Ilya"], party["Brisa"], "javelin", 1, sheets["Brisa"])
    assert party["Ilya"].ammo["javelin"] == 3 and party["Brisa"].ammo["javelin"] == 1
    assert any(a.name == "Javelin" and a.kind == "ranged" for a in party["Brisa"].attacks)
    hand_over(party["Ilya"], party["Oskar"], "longsword", 1, sheets["Oskar"])
    assert "Longsword" not in [a.name for a in party["Ilya"].attacks]
    assert next(a for a in party["Oskar"].attacks if a.name == "Longsword").bonus == 4  # Oskar's STR 14 + proficiency 2


def test_a_weapon_is_found_by_the_word_a_player_uses():
    from gm.combat.inventory import holding

    _, party = _party()
    assert holding(party["Brisa"], "my sword") == ("gear", "Shortsword")
    assert holding(party["Brisa"], "her bow") == ("gear", "Shortbow")
    assert holding(party["Brisa"], "my axe") is None


def test_a_thing_found_is_carried_by_its_name():
    _, party = _party()
    assert put(party["Brisa"], "Guild token") == "Guild token"
    assert carried(party["Brisa"])["Guild token"] == 1
    assert take(party["Brisa"], "the token") == "Guild token" and "Guild token" not in carried(party["Brisa"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Brisa", "Oskar", "Ilya"]), st.sampled_from(["Brisa", "Oskar", "Ilya"]),
                          st.sampled_from(["arrows", "bolts", "javelin", "potion", "mace", "leather", "shield"])), max_size=12))
def test_handing_things_around_never_makes_or_loses_one(moves):
    sheets, party = _party()
    total = lambda: sum(n for c in party.values() for n in carried(c).values())  # noqa: E731
    before = total()
    for giver, receiver, thing in moves:
        try:
            hand_over(party[giver], party[receiver], thing, 1, sheets[receiver])
        except CombatError:
            pass  # the giver had none: nothing moved
    assert total() == before


def test_in_a_fight_drinking_the_potion_is_the_turns_action_and_is_counted():
    from gm.combat import start_combat
    from gm.fight import player_acts, read_action

    fight = start_combat("dnd5e", ready_characters(PACK), ["goblin"], seed=1)
    brisa = fight.get("Brisa Tallowmere")
    fight.order = [brisa.name, *[n for n in fight.order if n != brisa.name]]
    fight.turn = 0
    brisa.actions_left, brisa.hp = 1, 10
    action = read_action(fight, brisa.name, "I drink my healing potion")
    assert action.kind == "use"
    events = player_acts(fight, brisa.name, action)
    assert events[0].text == "Brisa Tallowmere uses a Potion of Healing (0 left)" and brisa.hp > 10
    assert "Potion of Healing" not in carried(brisa)


@pytest.mark.parametrize("line", ['I give Maren a little bow. "Evening, ma\'am."', "I give the sheriff a nod.", "Brisa gives Snik a wink."])
def test_a_courtesy_given_is_no_thing_handed_over(line):
    """"give Maren a little bow" handed Brisa's shortbow to Maren."""
    assert read_item_act(line, "Brisa", ["Maren", "Snik", "sheriff"]) is None
    assert read_item_act("I give Maren my bow.", "Brisa", ["Maren"]).item == "my bow"
