"""How NPCs fight: simple rules, and a hook where a model could make the choice instead.

The rules, in order: a cowardly creature below a quarter of its health flees; otherwise it
goes for the nearest standing enemy (the most hurt one among equals) with its best attack for
the distance (melee when in reach or reachable, ranged when not); a creature that can reach
no one moves toward the nearest (dashing if it must). In pf2e it stops striking when the
multiple attack penalty reaches -10 (-8 with an agile weapon is still worth it).

``decide`` is the plug for a model: it gets the legal candidates and the rules' pick, and
returns one of the candidates (anything else, or None, keeps the rules' pick).
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Callable

from ._common import average, distance
from ._model import Action, Attack, Combatant

if TYPE_CHECKING:
    from ._combat import Combat

__all__ = ["Decide", "candidate_actions", "choose_npc_action"]

Decide = Callable[["Combat", Combatant, list[Action], Action], "Action | None"]
FLEE_BELOW = 0.25


def _reach_left(combat: "Combat", c: Combatant) -> int:
    """How far ``c`` can still go this turn before attacking."""
    return combat.rules.reach_left(c)


def _usable(combat: "Combat", c: Combatant, t: Combatant, atk: Attack) -> bool:
    dist = distance(c, t)
    if atk.kind == "melee":
        return dist - max(atk.reach, 5) <= _reach_left(combat, c)
    if not atk.range:
        return True
    return dist <= combat.rules.longest_range(atk)


def _worth_striking(combat: "Combat", c: Combatant, atk: Attack) -> bool:
    return combat.rules.worth_striking(c, atk)


def _order(combat: "Combat", c: Combatant) -> list[Combatant]:
    """Nearest first, then the most hurt, then by name."""
    return sorted(combat.enemies_of(c), key=lambda o: (distance(c, o), combat.rules.health(o), o.hp, o.name))


def candidate_actions(combat: "Combat", npc: Combatant) -> list[Action]:
    """Every legal choice this moment: each usable attack at each standing enemy, moving, fleeing, ending."""
    out: list[Action] = []
    for t in _order(combat, npc):
        for atk in npc.attacks:
            if _usable(combat, npc, t, atk) and _worth_striking(combat, npc, atk):
                out.append(Action(kind="attack", attack=atk.name, target=t.name))
    foes = _order(combat, npc)
    if foes and _reach_left(combat, npc) > 0 and distance(npc, foes[0]) > 5:
        out.append(Action(kind="move", target=foes[0].name))
    if "dash" in combat.rules.ACTIONS and npc.actions_left > 0:
        out.append(Action(kind="dash"))
    if npc.actions_left > 0 and not npc.has("grappled", "grabbed", "restrained"):
        out.append(Action(kind="flee"))
    out.append(Action(kind="end"))
    return out


def _rules_pick(combat: "Combat", npc: Combatant, candidates: list[Action]) -> Action:
    health = combat.rules.health(npc)
    flee = next((a for a in candidates if a.kind == "flee"), None)
    if npc.morale == "cowardly" and health < FLEE_BELOW and flee is not None:
        return flee.model_copy(update={"why": f"cowardly, down to {health:.0%}"})
    attacks = [a for a in candidates if a.kind == "attack"]
    if attacks:
        target = attacks[0].target
        t = combat.get(target)
        mine = [a for a in attacks if a.target == target]
        dist = distance(npc, t)

        def score(a: Action) -> tuple:
            atk = npc.attack(a.attack)
            in_reach = atk.kind == "melee" and dist <= max(atk.reach, 5)
            ranged_ok = atk.kind == "ranged" and dist > 5
            extra = {"db": npc.damage_bonus} if "db" in atk.damage else None
            return (round(average(atk.damage, extra)), in_reach, ranged_ok, atk.bonus)

        best = max(mine, key=score)
        nearest = dist == distance(npc, combat.get(attacks[-1].target)) and len({a.target for a in attacks}) > 1
        why = "the weakest of the nearest" if nearest else "the nearest standing enemy"
        return best.model_copy(update={"why": f"{why}, best attack"})
    for kind in ("move", "dash"):
        found = next((a for a in candidates if a.kind == kind), None)
        if found is not None and combat.enemies_of(npc):
            return found.model_copy(update={"why": "closing in"})
    return Action(kind="end", why="nothing in reach")


def choose_npc_action(combat: "Combat", npc: Combatant, rng: random.Random | None = None, decide: Decide | None = None) -> Action:
    """The NPC's next action by the rules above; ``decide`` may pick another legal candidate.

    Args:
        decide: ``decide(combat, npc, candidates, rules_pick) -> Action | None``, e.g. a small
            model choosing among ``candidates`` (a JSON-schema enum of their ``str()``).
    """
    candidates = candidate_actions(combat, npc)
    pick = _rules_pick(combat, npc, candidates)
    if decide is None:
        return pick
    chosen = decide(combat, npc, candidates, pick)
    if chosen is not None:
        match = next((c for c in candidates if c.same(chosen)), None)
        if match is not None:
            return match.model_copy(update={"why": chosen.why or "chosen by the decision step", "options": chosen.options})
    return pick
