"""Fights at the table: when one starts, what a player's line does in it, and who acts next.

The rules run the fight (``gm.combat``: initiative, attacks against AC, damage, NPC tactics);
this module only reads a player's words into one of the fight's actions — by ``gm.intent``'s
reading of their verbs and the names they use, never by a model — and keeps the fight in the
session after every action. An attack on someone who is not in the fight asks "which one?".

A fight starts when the scene opens in one (an encounter file with the scenario's id, such as
``ambush``) or when a player attacks in a scene that names a fight it can break into
(``encounter:`` in the scenario).
"""
from __future__ import annotations

import re
from typing import Any

from pipelines.speech import narrated

from .combat import Action, Combat, Combatant, CombatError, CombatEvent, can_act, encounter_for, load_encounter, monster_block, start_encounter
from .intent import Intent, named_in, read_intent
from .combat.inventory import read_item_act, used_up
from .combat.spells import bonus_spell_ready, read_cast, read_strike_again
from .table import Scenario

__all__ = ["opening_fight", "linked_fight", "is_attack", "starts_fight", "read_action", "which_target_question", "player_acts",
           "fight_lines", "FightAction"]

_KINDS = [
    ("dodge", re.compile(r"\b(dodge|take the dodge|defend myself|duck and weave|go defensive|full defen[cs]e)\b", re.I)),
    ("flee", re.compile(r"\b(flee|run away|retreat|bolt|escape into|make a run for)\b", re.I)),
    ("dash", re.compile(r"\b(dash|sprint)\b", re.I)),
    ("disengage", re.compile(r"\bdisengage\b", re.I)),
    ("grapple", re.compile(r"\b(grapple|grab (him|her|it|them|the)|wrestle)\b", re.I)),
    ("end", re.compile(r"\b(end (my|the) turn|i pass|pass my turn|i wait|done for this turn)\b", re.I)),
]
_TWICE = re.compile(r"\b(twice|two times|two strikes|again and again)\b", re.I)


class FightAction:
    """A player's line read as one fight action (``kind``, optional ``target`` and weapon), with the ``Intent`` read."""

    def __init__(self, kind: str, target: str | None = None, attack: str | None = None, repeat: int = 1,
                 intent: Intent | None = None) -> None:
        self.kind, self.target, self.attack, self.repeat, self.intent = kind, target, attack, repeat, intent


def opening_fight(scenario: Scenario, sheets: list[Any], seed: int) -> Combat | None:
    """The fight a scene opens with (an encounter file of the scenario's own id), started."""
    enc = encounter_for(scenario) if not scenario.encounter else None
    return start_encounter(enc, sheets, seed=seed) if enc is not None else None


def linked_fight(scenario: Scenario, sheets: list[Any], seed: int) -> Combat:
    """The fight the scene names (``encounter:``), started now because someone attacked."""
    return start_encounter(load_encounter(scenario.encounter), sheets, seed=seed)


def is_attack(text: str) -> bool:
    """An attack told as the character's act: not words said or reported ("asks him why the Club
    took the bridge", "tells him she'll shoot"), not the noun "club"."""
    return read_intent(text, in_fight=True).kind == "attack"


def starts_fight(scenario: Scenario, text: str) -> bool:
    """An attack on someone the scene's fight is with ("I shoot the cultist", "I attack him"),
    not a word like "hit the road"; only scenes that name a fight (``encounter:``) can start one."""
    if not scenario.encounter:
        return False
    enc = load_encounter(scenario.encounter)
    foes = [f.name or monster_block(enc.ruleset, f.monster).name for f in enc.foes] + [f.monster.replace("_", " ") for f in enc.foes]
    return read_intent(text, npcs=[n.name for n in scenario.npcs], foes=foes).kind == "attack"


def _nearest_first(combat: Combat, me: Combatant) -> list[str]:
    """The standing enemies, nearest first (then the most hurt): "the goblin" of two is the nearer."""
    foes = combat.enemies_of(me)
    return [o.name for o in sorted(foes, key=lambda o: (abs(o.position - me.position), combat.rules.health(o), o.name))]


def _last_target(combat: Combat, me: Combatant) -> str | None:
    """Whom ``me`` attacked last in this fight: what "it", "him" and "the other one" are read by."""
    return next((e.target for e in reversed(combat.log) if e.actor == me.name and e.kind == "attack" and e.target), None)


def _named(combat: Combat, actor: str, text: str) -> str | None:
    """The enemy the line names ("goblin 2", "the ogre"; the nearer of two goblins), or None for the nearest."""
    return named_in(text, _nearest_first(combat, combat.get(actor)))


def which_target_question(combat: Combat, intent: Intent) -> str:
    """The one line that asks whom an attack on no one here meant ("the wizard" when only goblins stand)."""
    here = [c.name for c in combat.standing("foes")]
    who = intent.unknown_target or "that"  # an ally's name, a door: anything that is no foe here
    return f"\"{who}\" is not one of the foes standing ({', '.join(here) or 'none'}); which one do you attack?"


def read_action(combat: Combat, actor: str, text: str) -> FightAction | None:
    """The fight action a line asks for, or None when it is not one (talk, a skill use...).

    Attack wording with a target is always an attack, at the one it names (the nearest when it
    names none); a line read another way ("I take the Dodge action") is that action.

    Raises:
        CombatError: the attack names no one in the fight; the message asks which one, in one line.
    """
    me = combat.get(actor)
    if "cast" in combat.rules.ACTIONS and (spell := read_cast(list(combat.combatants), me.name, text)) is not None:
        action = FightAction("cast", None, spell[0])  # "I cast Cure Wounds on Brisa": the spell by its rules (gm.spells)
        action.targets = spell[1]
        return action
    allies = [c.name for c in combat.combatants.values() if c.side == me.side]
    if (lasting := read_strike_again(me, text)) is not None:  # "my spiritual weapon hits goblin 2": a bonus action, no slot
        action = FightAction("cast", None, lasting)
        action.targets, action.again = [t for t in [_named(combat, actor, text)] if t], True
        return action
    used = read_item_act(text, me.name, allies) if "use" in combat.rules.ACTIONS else None
    if used is not None and used.kind == "use" and used_up(used.item):  # "I drink my potion": the turn's action (gm.combat.items)
        return FightAction("use", used.to, used.item)
    intent = read_intent(text, foes=_nearest_first(combat, me), pcs=allies, weapons=[a.name for a in me.attacks],
                         in_fight=True, last_target=_last_target(combat, me))
    if intent.kind == "attack" and intent.unknown_target:
        raise CombatError(which_target_question(combat, intent))
    aimed = intent.kind == "attack" and intent.target is not None
    for kind, pattern in _KINDS if not aimed else ():
        if pattern.search(text) and kind in {*combat.rules.ACTIONS, "end"}:
            return FightAction(kind, _named(combat, actor, text) if kind == "grapple" else None, intent=intent)
    if intent.kind != "attack":
        return None
    repeat = 2 if _TWICE.search(text) and getattr(combat.rules, "ACTIONS_PER_TURN", 1) > 1 else 1
    return FightAction("attack", intent.target, intent.weapon, repeat, intent)


def player_acts(combat: Combat, actor: str, action: FightAction) -> list[CombatEvent]:
    """Resolve the player's action, end their turn when they can do no more, then play the NPCs.

    Raises:
        CombatError: out of turn, a target not here, no action left: the fight is unchanged.
    """
    events: list[CombatEvent] = []
    for _ in range(action.repeat):
        if action.kind == "use":
            events += combat.act(actor, Action(kind="use", target=action.target, options={"item": action.attack}))
            break
        if action.kind == "cast":
            events += combat.act(actor, Action(kind="cast", options={"spell": action.attack, "targets": getattr(action, "targets", []),
                                                                     **({"again": True} if getattr(action, "again", False) else {})}))
            break
        events += combat.act(actor, action.kind if action.kind != "attack" or not action.attack else action.attack,
                             target=action.target)
        if combat.over or action.kind == "end":
            break
    me = combat.get(actor)
    if not combat.over and combat.current.name == me.name and (action.kind != "end") and not can_act(me) and not bonus_spell_ready(me):
        events += combat.next_turn()
    return events + npc_turns(combat)


def end_turn_after(combat: Combat, actor: str) -> list[CombatEvent]:
    """A turn spent on something else (a skill use, talk): it ends, and the NPCs act."""
    events: list[CombatEvent] = []
    if not combat.over and combat.current.name == combat.get(actor).name:
        events += combat.next_turn()
    return events + npc_turns(combat)


def npc_turns(combat: Combat) -> list[CombatEvent]:
    """The GM plays every NPC turn, openly, until a player's turn or the end."""
    return [] if combat.over else combat.run_npcs()


def whose_turn(combat: Combat, actor: str) -> None:
    """A one-line ``CombatError`` when it is someone else's turn."""
    if combat.over:
        return
    if combat.current.name != combat.get(actor).name:
        raise CombatError(f"it is {combat.current.name}'s turn in the fight, not {combat.get(actor).name}'s; "
                          f"{combat.current.name.split()[0]}, what do you do?")


def fight_lines(events: list[CombatEvent]) -> list[str]:
    """What the table sees: each event with its dice breakdown."""
    return [e.line() for e in events if e.kind not in ("deal",) or e.rolls]


def story_of(events: list[CombatEvent]) -> str:
    """The events without the dice: what the narration is told happened this round."""
    kept = [e.text for e in events if e.kind not in ("order", "round", "turn", "initiative", "deal")]
    return " ".join(t.rstrip(".") + "." for t in kept[-8:])
