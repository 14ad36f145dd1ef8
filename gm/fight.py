"""Fights at the table: when one starts, what a player's line does in it, and who acts next.

The rules run the fight (``gm.combat``: initiative, attacks against AC, damage, NPC tactics);
this module only reads a player's words into one of the fight's actions — by their verbs and
the names they use, never by a model — and keeps the fight in the session after every action.

A fight starts when the scene opens in one (an encounter file with the scenario's id, such as
``ambush``) or when a player attacks in a scene that names a fight it can break into
(``encounter:`` in the scenario).
"""
from __future__ import annotations

import re
from typing import Any

from pipelines.speech import narrated

from .combat import Combat, CombatError, CombatEvent, can_act, encounter_for, load_encounter, monster_block, start_encounter
from .table import Scenario

__all__ = ["opening_fight", "linked_fight", "is_attack", "starts_fight", "read_action", "player_acts", "fight_lines", "FightAction"]

ATTACK = re.compile(r"\b(attack|attacks|hit|strike|stab|slash|swing (?:\w+ ){0,3}at|shoot|fire at|fire on|punch|charge at|cut down|bash|lunge at|smite|shank|club(?=\s+(?:him|her|them|it|down|at)\b)|tackle|open fire|loose an arrow at)\b", re.I)
# Who a fight can be with, beyond the foes' and NPCs' own names.
_FOE_WORDS = r"enem(y|ies)|foes?|him|her|them|thugs?|guards?|bandits?|monsters?|creatures?|beasts?"
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
    """A player's line read as one fight action (``kind``, optional ``target`` and weapon)."""

    def __init__(self, kind: str, target: str | None = None, attack: str | None = None, repeat: int = 1) -> None:
        self.kind, self.target, self.attack, self.repeat = kind, target, attack, repeat


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
    return bool(ATTACK.search(narrated(text)))


def starts_fight(scenario: Scenario, text: str) -> bool:
    """An attack on someone the scene's fight is with ("I shoot the cultist", "I attack him"),
    not a word like "hit the road"; only scenes that name a fight (``encounter:``) can start one."""
    if not scenario.encounter or not is_attack(text):
        return False
    enc = load_encounter(scenario.encounter)
    names = [f.name or monster_block(enc.ruleset, f.monster).name for f in enc.foes] + [f.monster.replace("_", " ") for f in enc.foes]
    names += [n.name for n in scenario.npcs]
    words = {w for name in names for w in re.findall(r"[a-z]{3,}", name.lower())} - {"the", "and"}
    who = "|".join([*(re.escape(w) for w in sorted(words)), _FOE_WORDS])
    return bool(re.search(rf"\b({who})s?\b", text, re.I))


def _named(combat: Combat, actor: str, text: str) -> str | None:
    """The enemy the line names ("goblin 2", "the ogre"), or None for the nearest."""
    low = text.lower()
    me = combat.get(actor)
    for foe in sorted(combat.enemies_of(me), key=lambda c: -len(c.name)):
        if foe.name.lower() in low:
            return foe.name
    for foe in combat.enemies_of(me):
        first = foe.name.lower().split()[0]
        if re.search(rf"\b{re.escape(first)}s?\b", low):
            return None  # "a goblin": any of them, the nearest
    return None


def read_action(combat: Combat, actor: str, text: str) -> FightAction | None:
    """The fight action a line asks for, or None when it is not one (talk, a skill use...)."""
    for kind, pattern in _KINDS:
        if pattern.search(text) and kind in {*combat.rules.ACTIONS, "end"}:
            return FightAction(kind, _named(combat, actor, text) if kind == "grapple" else None)
    if not is_attack(text):
        return None
    me = combat.get(actor)
    weapon = next((a.name for a in me.attacks if a.name.lower() in text.lower()), None)
    repeat = 2 if _TWICE.search(text) and getattr(combat.rules, "ACTIONS_PER_TURN", 1) > 1 else 1
    return FightAction("attack", _named(combat, actor, text), weapon, repeat)


def player_acts(combat: Combat, actor: str, action: FightAction) -> list[CombatEvent]:
    """Resolve the player's action, end their turn when they can do no more, then play the NPCs.

    Raises:
        CombatError: out of turn, a target not here, no action left: the fight is unchanged.
    """
    events: list[CombatEvent] = []
    for _ in range(action.repeat):
        events += combat.act(actor, action.kind if action.kind != "attack" or not action.attack else action.attack,
                             target=action.target)
        if combat.over or action.kind == "end":
            break
    me = combat.get(actor)
    if not combat.over and combat.current.name == me.name and (action.kind != "end") and not can_act(me):
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
