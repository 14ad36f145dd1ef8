"""One whole fight per pack, start to end, with a fixed seed: initiative, attacks with dice, NPC rolls, saved and resumed."""
import pytest

from gm.combat import Combat, CombatError, start_encounter

from .conftest import ENCOUNTER, sheets

SEEDS = {"dnd5e": 7, "pf2e": 7, "coc7e": 3, "swade": 4}  # seeds where the party wins after round 2


def play(fight: Combat, until_round: int | None = None) -> Combat:
    """Players attack the nearest enemy (twice in pf2e) and end the turn; the GM plays the NPCs."""
    for _ in range(400):
        if fight.over or (until_round and fight.round >= until_round):
            break
        c = fight.current
        if not c.is_player:
            fight.run_npcs()
            continue
        for _ in range(2 if fight.system == "degrees" else 1):
            target = fight.nearest_enemy(c)
            if fight.over or target is None:
                break
            try:
                fight.act(c.name, "attack", target.name)
            except CombatError:
                break
        if not fight.over:
            fight.next_turn()
    return fight


@pytest.mark.parametrize("ruleset", list(ENCOUNTER))
def test_a_whole_fight(ruleset):
    fight = play(start_encounter(ENCOUNTER[ruleset], sheets(ruleset), seed=SEEDS[ruleset]))
    assert fight.over and fight.outcome == "party"
    assert all(not c.standing for c in fight.combatants.values() if c.side == "foes")
    attacks = [e for e in fight.log if e.kind == "attack"]
    by_players = [e for e in attacks if e.by == "player"]
    by_gm = [e for e in attacks if e.by == "gm"]
    assert by_players and by_gm, "both sides attacked"
    for e in attacks:
        assert e.rolls and e.breakdown and any(ch.isdigit() for ch in e.breakdown)
        assert e.line().endswith("]") and e.text in e.line()
    assert any(e.kind == "damage" and e.rolls for e in fight.log)
    assert fight.log[-1].kind == "end" and "party won" in fight.log[-1].text
    saved = fight.to_dict()
    assert {"round", "order", "combatants"} <= set(saved)
    assert all("hp" in c for c in saved["combatants"].values()) and saved["order"] == fight.order


@pytest.mark.parametrize("ruleset", list(ENCOUNTER))
def test_a_fight_saved_mid_way_resumes_exactly(ruleset):
    whole = play(start_encounter(ENCOUNTER[ruleset], sheets(ruleset), seed=SEEDS[ruleset]))
    half = play(start_encounter(ENCOUNTER[ruleset], sheets(ruleset), seed=SEEDS[ruleset]), until_round=2)
    assert not half.over
    resumed = play(Combat.from_json(half.to_json()))
    assert [e.line() for e in resumed.log] == [e.line() for e in whole.log]


def test_the_ambush_opens_with_initiative_and_two_goblins():
    fight = start_encounter("ambush", sheets("dnd5e"), seed=SEEDS["dnd5e"])
    assert sum(c.side == "foes" for c in fight.combatants.values()) == 2
    order = next(e for e in fight.log if e.kind == "order")
    assert order.text.startswith("Initiative: ") and "Goblin 1" in order.text and "Goblin 2" in order.text
    assert fight.order_text().startswith("Round 1: ")


def test_damaged_saved_combat_is_one_line():
    with pytest.raises(CombatError, match="not valid JSON"):
        Combat.from_json("{oops")
    with pytest.raises(CombatError, match="key 'round'"):
        Combat.from_json({"pack": "dnd5e", "system": "d20", "round": "first"})
