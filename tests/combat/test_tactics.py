"""NPC tactics: flee when cowardly and hurt, go for the nearest (then weakest), use the best attack; a decision hook."""
import random

import pytest

from gm.combat import Action, CombatError, candidate_actions, choose_npc_action, start_combat

from .conftest import put_first, sheets


def _fight(foe="goblin", party=("Ilya", "Brisa"), distance=5):
    chosen = [s for s in sheets("dnd5e") if s.name.split()[0] in party]
    return start_combat("dnd5e", chosen, [{"monster": foe, "distance": distance}], random.Random(3))


def test_cowardly_creatures_flee_below_a_quarter():
    fight = _fight()
    goblin = put_first(fight, "Goblin")
    goblin.hp = 1
    action = choose_npc_action(fight, goblin)
    assert action.kind == "flee" and "cowardly" in action.why
    events = fight.npc_turn()
    assert events[0].kind == "flee" and goblin.status == "fled" and fight.outcome == "party"


def test_brave_creatures_fight_on():
    fight = _fight("ogre")
    ogre = put_first(fight, "Ogre")
    ogre.hp = 2
    assert choose_npc_action(fight, ogre).kind == "attack"


def test_nearest_first_then_the_weakest():
    fight = _fight()
    goblin = put_first(fight, "Goblin")
    fight.get("Brisa").position = -20
    assert choose_npc_action(fight, goblin).target == "Ilya Thorncastle"
    fight.get("Brisa").position = 0
    fight.get("Ilya").hp = 5
    pick = choose_npc_action(fight, goblin)
    assert pick.target == "Ilya Thorncastle" and "weakest" in pick.why


def test_best_attack_for_the_distance():
    near = _fight("ogre")
    assert choose_npc_action(near, put_first(near, "Ogre")).attack == "Greatclub"
    far = _fight("goblin", distance=60)
    assert choose_npc_action(far, put_first(far, "Goblin")).attack == "Shortbow"


def test_the_decision_hook_may_pick_any_legal_candidate():
    fight = _fight()
    goblin = put_first(fight, "Goblin")
    seen = {}

    def model(combat, npc, candidates, rules_pick):
        seen["n"] = len(candidates)
        return Action(kind="attack", attack="Shortbow", target="Brisa Tallowmere", why="the model's choice")

    pick = choose_npc_action(fight, goblin, decide=model)
    assert (pick.attack, pick.target, pick.why) == ("Shortbow", "Brisa Tallowmere", "the model's choice")
    assert seen["n"] == len(candidate_actions(fight, goblin))
    nonsense = choose_npc_action(fight, goblin, decide=lambda *a: Action(kind="attack", target="The Moon"))
    assert nonsense.target in ("Ilya Thorncastle", "Brisa Tallowmere") and nonsense.kind == "attack"


def test_npc_turn_refuses_a_players_turn():
    fight = _fight()
    put_first(fight, "Ilya")
    with pytest.raises(CombatError, match="a player plays"):
        fight.npc_turn()


def test_a_pf2e_npc_stops_striking_at_minus_ten():
    fight = start_combat("pf2e", [s for s in sheets("pf2e") if s.name.startswith("Marisol")], [{"monster": "bridge_thug", "distance": 5}], random.Random(1))
    put_first(fight, "Bridge Thug")
    fight.get("Marisol").hp = fight.get("Marisol").max_hp = 500
    events = fight.npc_turn()
    strikes = [e for e in events if e.kind == "attack" and e.actor == "Bridge Thug"]
    assert len(strikes) == 2


def test_a_distant_npc_closes_in():
    fight = _fight("ogre", distance=100)
    put_first(fight, "Ogre")
    fight.get("Ogre").attacks = [a for a in fight.get("Ogre").attacks if a.kind == "melee"]
    events = fight.npc_turn()
    assert any(e.kind == "move" for e in events) and any(e.kind == "dash" for e in events)
    assert fight.get("Ogre").position < 100
