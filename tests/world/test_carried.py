"""What the characters carry lasts: a thing found is the finder's, a potion handed over is the
other's, a potion drunk is gone, and all of it is still so after ``vgm play --resume``."""
from __future__ import annotations

import pytest

from gm.party import carried_now

SCRIPT = """
steps:
  pre_char: ['{"characters": ["Ilya Thorncastle"]}']
  char: ['{"characters": ["Ilya Thorncastle"]}']
  skill: ['{"checks": [{"character": "Ilya Thorncastle", "skill": "athletics"}]}']
  narrate: ['The stair holds, and the tower opens above.']
repeat_last: true
"""


@pytest.fixture
def table(tmp_path):
    from gm.agent import GameMaster
    from pipelines.llm import get_model

    script = tmp_path / "gm.yaml"
    script.write_text(SCRIPT)
    model = get_model(f"scripted:{script}")
    made = []

    def open_table(resume: bool = False):
        gm = (GameMaster.resume(tmp_path / "table.json", model, memory="hashing") if resume else
              GameMaster("dnd5e", "drowned_chapel", model, memory="hashing", seed=3, session_path=tmp_path / "table.json"))
        made.append(gm)
        return gm

    yield open_table
    for gm in made:
        gm.close()


def test_a_potion_handed_over_and_drunk_stays_so_across_resume(table):
    gm = table()
    reply = gm.step("Brisa", "I give my healing potion to Oskar")
    assert not reply.rolls and not reply.checks
    assert reply.fight == ["Brisa Tallowmere gives Potion of Healing to Oskar Venn"]
    gm = table(resume=True)
    carries = carried_now(gm.session, gm.ruleset, gm.sheets)
    assert "Potion of Healing" not in carries["Brisa Tallowmere"] and carries["Oskar Venn"]["Potion of Healing"] == 1
    assert gm.world.holder_of("Potion of Healing") == "Oskar Venn"
    reply = gm.step("Oskar", "I drink the healing potion")
    assert reply.fight[0] == "Oskar Venn uses a Potion of Healing (0 left)" and "regains" in reply.fight[1]
    gm = table(resume=True)
    assert "Potion of Healing" not in carried_now(gm.session, gm.ruleset, gm.sheets)["Oskar Venn"]


def test_an_item_the_character_lacks_is_one_line_and_no_roll(table):
    gm = table()
    reply = gm.step("Ilya", "I drink my healing potion")
    assert reply.decision == "impossible" and not reply.rolls and not reply.checks
    assert "refused: Ilya Thorncastle has no healing potion" in reply.notes
    reply = gm.step("Ilya", "I give the healing potion to Brisa")
    assert "refused: Ilya Thorncastle has no healing potion" in reply.notes and not reply.rolls
    assert carried_now(gm.session, gm.ruleset, gm.sheets)["Brisa Tallowmere"]["Potion of Healing"] == 1


def test_a_weapon_handed_over_is_the_new_owners_attack(table):
    gm = table()
    gm.step("Ilya", "I hand Oskar my longsword")
    party = gm.session.party
    assert "Longsword" not in [a["name"] for a in party["Ilya Thorncastle"]["attacks"]]
    longsword = next(a for a in party["Oskar Venn"]["attacks"] if a["name"] == "Longsword")
    assert longsword["damage"] == "1d8+2"  # Oskar's STR 14, not Ilya's
    assert "Longsword" in carried_now(gm.session, gm.ruleset, gm.sheets)["Oskar Venn"]


def test_a_thing_found_by_a_check_is_carried_by_the_finder_across_resume(table):
    from pipelines.records import Turn

    gm = table()
    # the player's words, then "/check athletics" on them (the decision pipeline is other tests' subject)
    gm.session.log.append(Turn(speaker="Ilya Thorncastle", text="I climb the broken stair up into the bell tower"))
    reply = gm.step("Ilya", "/check athletics")
    assert reply.rolls and reply.rolls[0].success, reply.rolls  # seed 3: Athletics beats DC 13
    gm = table(resume=True)
    assert carried_now(gm.session, gm.ruleset, gm.sheets)["Ilya Thorncastle"]["silver reliquary"] == 1
    assert gm.world.holder_of("silver reliquary") == "Ilya Thorncastle"
    reply = gm.step("Ilya", "I hand Maren the reliquary")
    assert reply.fight == ["Ilya Thorncastle gives silver reliquary to Maren"]
    gm = table(resume=True)
    assert "silver reliquary" not in carried_now(gm.session, gm.ruleset, gm.sheets)["Ilya Thorncastle"]
    assert gm.world.holder_of("silver reliquary") == "Maren"


def test_a_long_rest_at_the_table_gives_the_slots_back_and_lasts_across_resume(table):
    gm = table()
    gm.step("Oskar", "I cast Cure Wounds on Brisa")
    assert gm.session.party["Oskar Venn"]["slots"] == {"1": 3, "2": 2}
    from rulesets import VgmError

    with pytest.raises(VgmError, match=r"^'/rest banana': say how long: /rest \(a short rest, an hour\), /rest long"):
        gm.step("Oskar", "/rest banana")  # a mistyped command: one line, nothing played
    assert not gm.can_undo or gm.session.turns[-1].text != "/rest banana"
    reply = gm.step("Oskar", "We take a long rest")
    assert not reply.rolls and "Oskar Venn finishes a long rest: 24/24 HP, 3 Hit Dice" in reply.fight
    gm = table(resume=True)
    assert gm.session.party["Oskar Venn"]["slots"] == {"1": 4, "2": 2}
    assert any(f.text == "The party rested for the night" for f in gm.world.facts)


def test_arrows_shot_and_a_javelin_thrown_stay_spent_after_the_fight_and_into_the_next():
    import rulesets
    from gm.combat import Action, start_combat
    from gm.party import party_for_fight
    from gm.systems import ready_characters
    from gm.table import Session, list_scenarios

    pack = rulesets.load("dnd5e")
    sheets = ready_characters(pack)
    session = Session(ruleset="dnd5e", scenario=next(iter(list_scenarios("dnd5e"))))
    fight = start_combat("dnd5e", sheets, [{"monster": "ogre", "distance": 60}], seed=4)
    for _ in range(8):
        me = fight.current
        if me.name == "Brisa Tallowmere" and me.actions_left:
            fight.act(me.name, Action(kind="attack", attack="Shortbow", target="Ogre"))
        elif me.name == "Ilya Thorncastle" and me.actions_left:
            fight.act(me.name, Action(kind="attack", attack="Javelin", target="Ogre"))
        fight.next_turn() if me.is_player else fight.npc_turn()
    session.combat = fight.to_dict()
    carries = carried_now(session, pack, sheets)
    assert carries["Brisa Tallowmere"]["Arrows"] < 20 and carries["Ilya Thorncastle"]["Javelin"] < 4
    fight.damage("Ogre", 500)
    session.combat = fight.to_dict()
    again = {c.name: c for c in party_for_fight(session, sheets)}
    assert again["Brisa Tallowmere"].ammo["arrows"] == carries["Brisa Tallowmere"]["Arrows"]



def test_after_the_fight_half_the_arrows_and_every_javelin_are_gathered_but_not_during_it():
    import rulesets
    from gm.combat import Action, CombatError, start_combat
    from gm.party import item_between_turns
    from gm.systems import ready_characters
    from gm.table import Session, list_scenarios
    from gm.world import World

    pack = rulesets.load("dnd5e")
    sheets = ready_characters(pack)
    session = Session(ruleset="dnd5e", scenario=next(iter(list_scenarios("dnd5e"))))
    fight = start_combat("dnd5e", sheets, [{"monster": "ogre", "distance": 60}], seed=4)
    for _ in range(12):
        me = fight.current
        if me.name == "Brisa Tallowmere" and me.actions_left:
            fight.act(me.name, Action(kind="attack", attack="Shortbow", target="Ogre"))
        elif me.name == "Ilya Thorncastle" and me.actions_left:
            fight.act(me.name, Action(kind="attack", attack="Javelin", target="Ogre"))
        fight.next_turn() if me.is_player else fight.npc_turn()
    brisa, ilya = fight.get("Brisa"), fight.get("Ilya")
    shot, thrown = 20 - brisa.ammo["arrows"], 4 - ilya.ammo["javelin"]
    assert shot >= 2 and thrown >= 1
    session.combat = fight.to_dict()
    with pytest.raises(CombatError, match="gathered once the fight is over"):
        item_between_turns(session, pack, sheets, World(), "Brisa Tallowmere", "I gather my arrows")
    fight.damage("Ogre", 500)
    session.combat = fight.to_dict()
    assert item_between_turns(session, pack, sheets, World(), "Brisa Tallowmere", "I pick up the lantern") is None
    events = item_between_turns(session, pack, sheets, World(), "Brisa Tallowmere", "We gather our arrows and javelins")
    assert [e.text for e in events] == [f"Brisa Tallowmere gathers {shot // 2} of {shot} arrows", f"Ilya Thorncastle gathers {thrown} of {thrown} javelin{'s' if thrown != 1 else ''}"]
    carries = carried_now(session, pack, sheets)
    assert carries["Brisa Tallowmere"]["Arrows"] == 20 - shot + shot // 2 and carries["Ilya Thorncastle"]["Javelin"] == 4
    assert item_between_turns(session, pack, sheets, World(), "Brisa Tallowmere", "I gather my arrows") is None  # nothing left to find


def test_the_terminal_rest_command_rests_the_party(table):
    gm = table()
    gm.step("Oskar", "I cast Bless on Brisa")
    reply = gm.step("Oskar", "/rest long")
    assert "Oskar Venn's spell slots are back (1st 4/4, 2nd 2/2)" in reply.fight
