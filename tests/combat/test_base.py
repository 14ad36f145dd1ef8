"""The shared base of the combat rules: every system speaks the whole protocol, and a rule
written once in ``_base`` reaches the systems that keep it."""
import random

import pytest

from gm.combat import RULES, _base

from .conftest import ENCOUNTER, duel


@pytest.mark.parametrize("system", sorted(RULES))
def test_every_rules_module_speaks_the_whole_protocol(system):
    module = RULES[system]
    missing = [name for name in _base.PROTOCOL if not hasattr(module, name)]
    assert missing == [], f"{system} lacks {missing}"


@pytest.mark.parametrize("pack", sorted(ENCOUNTER))
def test_the_gm_hurts_by_dice_through_each_systems_own_damage(pack):
    """``Combat.damage`` with dice goes through the base into each system's ``hurt``."""
    fight = duel(pack, {"dnd5e": "goblin", "pf2e": "toll_goblin", "coc7e": "cultist", "swade": "claim_jumper"}[pack])
    foe = fight.standing("foes")[0]
    events = fight.damage(foe.name, "20d6", random.Random(3))
    assert events and events[0].kind == "damage" and events[0].rolls
    assert not foe.standing  # 20d6 fells a goblin, a cultist or an extra in every game


@pytest.mark.parametrize("pack, revived", [("dnd5e", "back on their feet"), ("pf2e", "wakes (wounded 1)"), ("coc7e", "no longer dying")])
def test_healing_the_dying_speaks_each_games_rule(pack, revived):
    fight = duel(pack, {"dnd5e": "goblin", "pf2e": "toll_goblin", "coc7e": "cultist"}[pack])
    pc = fight.standing("party")[0]
    pc.major_wound = pack == "coc7e"  # in CoC only a major wound makes 0 HP dying
    fight.damage(pc.name, pc.hp, random.Random(1))
    assert pc.status == "down"
    text = fight.heal(pc.name, 3)[0].text
    assert revived in text


@pytest.mark.parametrize("module", ["gm.combat.spells", "gm.combat.items", "gm.combat.powers", "gm.character_builder"])
def test_the_modules_that_build_on_the_rules_import_first_in_a_fresh_process(module):
    """gm.combat.spells, items and powers are read back by the rule modules: any can be imported first."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
