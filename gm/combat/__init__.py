"""Combat, NPCs and opposed rolls as rules code: one module per mechanic, dispatched by the pack's ``system``.

The common case is a few lines::

    from gm.combat import start_encounter
    fight = start_encounter("ambush", sheets, rng)          # initiative rolled, first turn begun
    print(fight.order_text())
    events = fight.act("Ilya", "attack", target="Goblin 1")  # the player's action, by the rules
    events += fight.next_turn()                              # end the turn
    events += fight.run_npcs()                               # the GM plays NPC turns, openly
    for e in events: print(e.line())                         # each line with its dice breakdown
    session_data["combat"] = fight.to_dict()                 # round, order, combatants (hp ...)

=============  ==========  ===================================================================
mechanic       packs       the fight
=============  ==========  ===================================================================
``d20``        dnd5e       initiative, attack vs AC (advantage, crits), resistances, saves,
                           conditions, death saves, rests
``degrees``    pf2e        three actions, multiple attack penalty, four degrees, valued conditions
``percentile`` coc7e       dodge / fight back, firearms by range, major wounds, Sanity, Luck, push
``trait``      swade       action deck with jokers, Shaken, wounds, Bennies, soak, the Wild Die
=============  ==========  ===================================================================

A new mechanic is one module with the same names and one line in ``RULES``. The defaults of
every name live once in ``_base`` (d20 initiative, nothing between rounds, hit points, GM
damage through the system's own ``hurt`` ...); a module imports what it keeps and defines only
what its game does differently. The names (``_base.PROTOCOL``):

- building: ``build_pc``, ``build_foe``, ``DEFAULT_SKILLS`` (an attack's skill when a stat block
  names none), ``RANGE_FEET`` (feet per range unit of its stat blocks);
- the round: ``roll_initiative``, ``sort_key``, ``new_round``, ``REORDER_EACH_ROUND``,
  ``opening`` (what happens before the first turn: an ambush, a Sanity roll), ``start_turn``,
  ``end_turn``, ``may_interrupt``, ``INTERRUPT_USES_TURN``;
- acting: ``ACTIONS``, ``TARGETED``, ``FREE_ACTIONS``, ``hurt``, ``damage`` (and its ``damage_roll``), ``heal``
  (and its ``revive``), ``save``;
- reading: ``health``, ``hp_text``, ``initiative_text``; the tactics' ``reach_left``,
  ``longest_range``, ``worth_striking``;
- contests: ``contest_plan`` (a combatant's roll for a check) and ``contest`` (who wins).
- outside a fight: ``rest`` (what hours of rest give back), ``ITEM_TABLES`` (the pack's potions and
  weapons of ``gm.combat.items`` are this game's), ``BONUS_ACTIONS`` (a turn has a bonus action).
"""
from __future__ import annotations

from . import d20, degrees, percentile, trait
from ._combat import Combat, pack_rules
from ._common import can_act
from ._data import (BLOCKS, Coc7eBlock, Dnd5eBlock, Encounter, FoeRef, Gear, Pf2eBlock, SwadeBlock, encounter_for,
                    find_monster, list_encounters, load_encounter, load_monster_file, load_monsters, monster_block, party_gear)
from ._model import RULES, Action, Attack, CombatError, Combatant, CombatEvent, Condition, OnHit, rules_for
from ._opposed import ContestRoll, Contestant, OpposedResult, beats_passive, contestant, opposed, percentile_winner
from ._start import combatant_from_sheet, monster, start_combat, start_encounter
from ._tactics import Decide, candidate_actions, choose_npc_action
from .d20 import long_rest, short_rest
from .percentile import SkillRoll, push_roll, sanity_roll, skill_roll, spend_luck

# The registry: a mechanic's name → its combat rules. The keys are gm.systems.MECHANICS's.
# (The dict lives in ``_model``, which every rules module imports; it is filled here.)
RULES.update({"d20": d20, "degrees": degrees, "percentile": percentile, "trait": trait})

__all__ = [
    "RULES", "rules_for", "pack_rules",
    "Combat", "Combatant", "CombatEvent", "Action", "Attack", "Condition", "OnHit", "CombatError", "can_act",
    "start_combat", "start_encounter", "combatant_from_sheet", "monster",
    "choose_npc_action", "candidate_actions", "Decide",
    "opposed", "contestant", "Contestant", "ContestRoll", "OpposedResult", "beats_passive", "percentile_winner",
    "short_rest", "long_rest", "sanity_roll", "skill_roll", "spend_luck", "push_roll", "SkillRoll",
    "load_monsters", "load_monster_file", "monster_block", "find_monster", "load_encounter", "list_encounters",
    "encounter_for", "party_gear", "Encounter", "FoeRef", "Gear", "BLOCKS",
    "Dnd5eBlock", "Pf2eBlock", "Coc7eBlock", "SwadeBlock",
]
