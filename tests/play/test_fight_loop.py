"""Fights at the table: the ambush opens in combat, a player's attack is rolled against AC by the
rules, the NPCs roll openly, and the fight is saved after every action and resumes mid-fight."""
from __future__ import annotations

import json

import pytest

from gm.agent import GameMaster
from gm.combat import Combat, CombatError
from gm.fight import read_action
from pipelines.llm import ScriptedModel

WORDS = "Steel rings against steel as the goblins scatter through the bracken and the mule brays."


def table(scenario="ambush", pack="dnd5e", **kw):
    model = ScriptedModel(replies=[WORDS], repeat_last=True)
    return GameMaster(pack, scenario, model, memory=False, seed=kw.pop("seed", 3), **kw)


def test_the_ambush_opens_in_combat_with_initiative_and_two_goblins(tmp_path):
    gm = table(session_path=tmp_path / "a.json")
    assert any("initiative" in line for line in gm.opening) and any("Initiative:" in line for line in gm.opening)
    saved = json.loads((tmp_path / "a.json").read_text())["combat"]
    assert saved["round"] >= 1 and len(saved["order"]) == 5
    assert sorted(n for n, c in saved["combatants"].items() if c["side"] == "foes") == ["Goblin 1", "Goblin 2"]
    assert all("hp" in c for c in saved["combatants"].values())


def test_an_unnamed_attack_is_the_current_players_and_is_rolled_against_ac(tmp_path):
    gm = table(session_path=tmp_path / "a.json")
    who = Combat.from_json(gm.session.combat).current.name
    reply = gm.step("", "I attack the nearest goblin")
    assert reply.character == who
    attack = next(line for line in reply.fight if line.startswith(who) and "vs AC" in line)
    assert "1d20" in attack
    after = reply.fight[reply.fight.index(attack) + 1:]
    assert any(line.startswith("Goblin") for line in after) or Combat.from_json(gm.session.combat).over  # the GM plays the NPCs
    assert reply.narration == WORDS
    assert json.loads((tmp_path / "a.json").read_text())["combat"]["log"]


def test_out_of_turn_is_one_line_and_changes_nothing():
    gm = table()
    fight = Combat.from_json(gm.session.combat)
    other = next(c.name for c in fight.combatants.values() if c.is_player and c.name != fight.current.name)
    before = gm.session.combat
    with pytest.raises(CombatError, match=f"it is {fight.current.name}'s turn") as caught:
        gm.step(other, "I attack the nearest goblin")
    assert "\n" not in str(caught.value) and gm.session.combat == before


def test_the_fight_resumes_mid_fight_with_the_same_dice(tmp_path):
    whole = table(session_path=tmp_path / "w.json", seed=9)
    first = whole.step("", "I attack the nearest goblin")
    second = whole.step("", "I attack the nearest goblin") if not Combat.from_json(whole.session.combat).over else None

    part = table(session_path=tmp_path / "p.json", seed=9)
    assert part.step("", "I attack the nearest goblin").fight == first.fight
    part.close()
    again = GameMaster.resume(tmp_path / "p.json", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False)
    if second is not None:
        assert again.step("", "I attack the nearest goblin").fight == second.fight


@pytest.mark.parametrize("pack,scenario,name", [("coc7e", "lantern_house", "Tomás"), ("pf2e", "broken_bridge", "Keth"),
                                               ("swade", "copper_flats", "Dutch")])
def test_an_attack_starts_the_fight_a_scene_names_in_every_pack(pack, scenario, name):
    gm = table(scenario, pack)
    assert gm.session.combat is None and gm.opening == []
    reply = gm.step(name, "I attack the nearest enemy")
    fight = Combat.from_json(gm.session.combat)
    assert fight.round >= 1 and reply.fight and any(c.side == "foes" for c in fight.combatants.values())
    assert any("[" in line for line in reply.fight)  # dice breakdowns are shown


def test_words_become_the_fights_actions():
    gm = table()
    fight = Combat.from_json(gm.session.combat)
    me = fight.current.name
    assert read_action(fight, me, "I swing at Goblin 2").target == "Goblin 2"
    assert read_action(fight, me, "I shoot the goblin").kind == "attack"
    assert read_action(fight, me, "I take the Dodge action").kind == "dodge"
    assert read_action(fight, me, "I ask Tamsin if she is hurt") is None


def test_fight_narration_never_kills_the_living_or_recites_hit_points():
    import asyncio

    import rulesets
    from gm.narration import NarrationRequest, narrate

    req = NarrationRequest(pack=rulesets.load("dnd5e"), scene="A forest road.", name="Brisa", line="I attack the nearest goblin",
                           decision="roll", verdict="In the fight: Brisa hits Goblin 1.", standing=["Goblin 1", "Goblin 2", "Brisa Tallowmere"])
    model = ScriptedModel(by_step={"narrate": ["The two goblins are defeated. Brisa's HP is now 10.",
                                               "Your arrow takes the goblin high in the shoulder and it shrieks, staggering back."]})
    said = asyncio.run(narrate(model, req))
    assert said.text == "Your arrow takes the goblin high in the shoulder and it shrieks, staggering back."
    assert any("contradicted the fight" in n for n in said.notes) and any("recited the numbers" in n for n in said.notes)
