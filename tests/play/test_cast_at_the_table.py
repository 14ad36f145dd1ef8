"""At the table, between fights: "I cast Cure Wounds on Brisa" is the spell by its rules (a slot
spent, hit points back), not a Medicine check; a spell the sheet lacks is refused with the reason."""
from __future__ import annotations

import pytest

import rulesets
from gm.combat import CombatError
from gm.party import cast_between_fights
from gm.systems import ready_characters
from gm.table import Session, list_scenarios

PACK = rulesets.load("dnd5e")


@pytest.fixture
def session():
    scenario = next(s for s in list_scenarios("dnd5e"))
    return Session(ruleset="dnd5e", scenario=scenario)


def test_cure_wounds_between_fights_spends_a_slot_and_is_kept(session):
    sheets = ready_characters(PACK)
    events = cast_between_fights(session, PACK, sheets, "Oskar Venn", "I cast Cure Wounds on Brisa")
    assert events[0].text == "Oskar Venn casts Cure Wounds with a 1st-level slot (3 left)"
    assert "Brisa Tallowmere regains (from Cure Wounds)" in events[1].text
    assert session.party["Oskar Venn"]["slots"] == {"1": 3, "2": 2}
    cast_between_fights(session, PACK, sheets, "Oskar Venn", "I cast Bless on Brisa and myself")
    assert session.party["Oskar Venn"]["concentrating"] == "bless"


def test_a_line_that_casts_nothing_or_a_caster_without_spells_is_left_to_the_gm(session):
    sheets = ready_characters(PACK)
    assert cast_between_fights(session, PACK, sheets, "Oskar Venn", "I search the altar") is None
    assert cast_between_fights(session, PACK, sheets, "Ilya Thorncastle", "I cast Cure Wounds on Brisa") is None
    assert session.party is None


def test_a_spell_the_sheet_lacks_is_refused_with_the_reason(session):
    with pytest.raises(CombatError, match="Oskar Venn does not have Magic Missile; their sheet lists Sacred Flame"):
        cast_between_fights(session, PACK, ready_characters(PACK), "Oskar Venn", "I cast Magic Missile at the door")


SCRIPT = """
steps:
  pre_char: ['{"characters": ["Oskar Venn"]}']
  char: ['{"characters": ["Oskar Venn"]}']
  skill: ['{"checks": [{"character": "Oskar Venn", "skill": "medicine"}]}']
  narrate: ['Light runs from Oskar''s hands into Brisa''s wounds.']
repeat_last: true
"""


def test_the_gm_casts_the_spell_instead_of_calling_a_medicine_check(tmp_path):
    from gm.agent import GameMaster
    from pipelines.llm import get_model

    script = tmp_path / "gm.yaml"
    script.write_text(SCRIPT)
    gm = GameMaster(None, None, get_model(f"scripted:{script}"), memory="hashing", seed=2, session_path=tmp_path / "table.json")
    try:
        reply = gm.step("Oskar", "I cast Cure Wounds on Brisa")
        assert not reply.rolls and not reply.checks and reply.decision == "no_roll"  # no Medicine check, none called
        assert reply.fight[0] == "Oskar Venn casts Cure Wounds with a 1st-level slot (3 left)"
        assert gm.session.party["Oskar Venn"]["slots"] == {"1": 3, "2": 2}
        assert gm.undo() and gm.session.party is None  # an undo takes the spell back too
    finally:
        gm.close()


def test_a_spell_no_pack_knows_is_refused_at_the_table_with_its_name_and_the_turn_goes_on(tmp_path):
    """A caster naming a spell the pack lacks, with more said after it, hears why in one line; the
    turn is not an error (it was: the web table answered 500) and nothing is spent."""
    from gm.agent import GameMaster
    from pipelines.llm import get_model

    script = tmp_path / "gm.yaml"
    script.write_text(SCRIPT)
    gm = GameMaster(None, None, get_model(f"scripted:{script}"), memory="hashing", seed=2, session_path=tmp_path / "table.json")
    try:
        reply = gm.step("Oskar", "I cast Feather Glide and drift down to the courtyard below")
        assert reply.decision == "impossible" and not reply.rolls
        assert "no spell 'Feather Glide'" in reply.narration and gm.session.party is None
    finally:
        gm.close()


def test_a_fight_after_a_spell_starts_with_the_slot_still_spent(session):
    from gm.combat import start_encounter
    from gm.party import party_for_fight

    sheets = ready_characters(PACK)
    cast_between_fights(session, PACK, sheets, "Oskar Venn", "I cast Cure Wounds on Brisa")
    fight = start_encounter("ambush", party_for_fight(session, sheets), seed=1)
    assert fight.get("Oskar").slots == {1: 3, 2: 2} and fight.get("Ilya").slots == {}
