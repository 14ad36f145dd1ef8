"""Casting between fights at the table: "I cast Cure Wounds on Brisa" heals by the spell, not by a Medicine check.

Between fights the characters are the party of the last fight (its hit points, slots and magic
points as the fight left them) or, before any fight, fresh from their sheets; a spell cast
between fights changes them and they are kept in the session (the ended fight's record, or
``session.party``). A character whose sheet lists no spells is left to the GM's usual judgement.

What each carries lives on the same characters (``gm.combat.inventory``): a thing the world says
a character found or took is put in their hands (``carry_found``), "I give the potion to Brisa"
moves it, "I drink my healing potion" uses it up (``item_between_turns``); ``/sheet`` reads
``carried_now``. A thing the character does not carry is refused in one line, with no roll.
"We take a long rest" rests the whole party by its game's rules (``rest_between_fights``).
"""
from __future__ import annotations

import random
from typing import Any, Callable

from rulesets import VgmError

from .combat import Combat, CombatError, Combatant, CombatEvent, combatant_from_sheet, rules_for
from .combat.inventory import asked_name, carried, gather, hand_over, holding, put, read_item_act
from .combat.items import find_item, use_item
from .combat.rest import read_rest, rest
from .combat.spells import read_cast
from .world.state import gave, used_up

__all__ = ["cast_between_fights", "party_for_fight", "carried_now", "carry_found", "item_between_turns", "rest_between_fights"]


def _party(session: Any, ruleset: Any, sheets: list[Any], live: bool = False) -> tuple[dict[str, Combatant], Combat | None]:
    """The characters as they stand now, and the fight that holds them (None: from ``session.party`` or the sheets).

    ``live``: a fight under way counts too (a thing handed over mid-fight); else only one that ended.
    """
    if session.combat is not None:
        fight = Combat.from_json(session.combat)
        if fight.over or live:
            return {c.name: c for c in fight.combatants.values() if c.side == "party"}, fight
    kept = {name: Combatant.model_validate(c) for name, c in (session.party or {}).items()}
    for sheet in sheets:
        kept.setdefault(sheet.name, combatant_from_sheet(sheet, ruleset))
    return kept, None


def _keep(session: Any, party: dict[str, Combatant], fight: Combat | None) -> None:
    """Store the characters back where they came from: the fight's record, or ``session.party``."""
    if fight is not None:
        session.combat = fight.to_dict()
    else:
        session.party = {name: c.model_dump(mode="json") for name, c in party.items()}


def cast_between_fights(session: Any, ruleset: Any, sheets: list[Any], caster: str, text: str,
                        dice: Callable[[], random.Random] | None = None) -> list[CombatEvent] | None:
    """The events of a line that casts a spell outside a fight, by the rules; None when it is not one.

    ``dice`` gives the generator, asked only when a spell is really cast (the table's dice counter moves then).

    Raises:
        CombatError: the spell is not on the sheet, or no slot / magic / power points are left.
    """
    if session.combat is not None and not Combat.from_json(session.combat).over:
        return None  # a fight is on: its own action reads the line
    me = next((s for s in sheets if s.name == caster), None)
    if me is None or not me.spells:
        return None
    party, fight = _party(session, ruleset, sheets)
    found = read_cast(list(party), caster, text)
    if found is None:
        return None
    spell, targets = found
    who = party[caster]
    rng = dice() if dice is not None else None
    chosen = [party[t] for t in targets] or [who]
    if ruleset.name == "dnd5e":
        from .combat.spells import cast

        events = cast(None, who, spell, chosen, rng=rng)
    else:
        from .combat.powers import cast_power

        events = cast_power(None, who, spell, chosen, rng=rng)
    _keep(session, party, fight)
    return events


def party_for_fight(session: Any, sheets: list[Any]) -> list[Any]:
    """Who enters a fight: each character as the last fight or what was done since left them
    (slots spent, a potion drunk, a thing found), else its sheet."""
    if session.combat is not None and (ended := Combat.from_json(session.combat)).over:
        kept = {c.name: c.model_copy(update={"position": 0, "initiative": None}) for c in ended.combatants.values() if c.side == "party"}
    else:
        kept = {name: Combatant.model_validate(c) for name, c in (session.party or {}).items()}
    return [kept.get(sheet.name) or sheet for sheet in sheets]


def _first_names(names: list[str]) -> dict[str, str]:
    """Each full name and each unique first name → the full name."""
    firsts = [n.split()[0] for n in names]
    return {**{f: n for f, n in zip(firsts, names) if firsts.count(f) == 1}, **{n: n for n in names}}


def carried_now(session: Any, ruleset: Any, sheets: list[Any]) -> dict[str, dict[str, int]]:
    """What each character carries now (``/sheet``): name → {thing: how many}."""
    party, _ = _party(session, ruleset, sheets, live=True)
    return {name: carried(c) for name, c in party.items()}


def carry_found(session: Any, ruleset: Any, sheets: list[Any], world: Any) -> list[str]:
    """Things the world says a character now holds (found in a search, taken) go into what they carry,
    once each (the thing is marked ``carried``); returns the lines "Brisa Tallowmere carries Guild token"."""
    names = _first_names([s.name for s in sheets])
    new = [t for t in world.things if t.where in names and "carried" not in t.states]
    if not new:
        return []
    party, fight = _party(session, ruleset, sheets, live=True)
    out = []
    for thing in new:
        who = names[thing.where]
        if who not in party:
            continue
        label = put(party[who], thing.name, 1, next(s for s in sheets if s.name == who))
        thing.states.append("carried")
        out.append(f"{who} carries {label}")
    _keep(session, party, fight)
    return out


def item_between_turns(session: Any, ruleset: Any, sheets: list[Any], world: Any, actor: str, text: str,
                       dice: Callable[[], random.Random] | None = None) -> list[CombatEvent] | None:
    """A line that hands a thing over ("I give the potion to Brisa", "I hand Maren the key") or drinks
    one ("I drink my healing potion"): done by what each carries; None when the line is not one.

    In a fight, drinking is the turn's action (``gm.fight`` reads it); handing over is free.

    Raises:
        CombatError: the actor does not carry it ("Brisa Tallowmere has no healing potion"): nothing moves, nothing is rolled.
    """
    npcs = [n.name for n in world.npcs if n.alive and n.present]
    people = _first_names([*(s.name for s in sheets), *npcs])
    act = read_item_act(text, actor, list(people))  # read first: most lines are no item act, and need no party built
    if act is None:
        return None
    party, fight = _party(session, ruleset, sheets, live=True)
    if actor not in party or (act.kind == "use" and fight is not None and not fight.over):
        return None
    live = fight is not None and not fight.over
    me = party[actor]
    if act.kind == "gather":
        return _gather(session, party, fight, live, actor, act.item, text)
    known = holding(me, act.item) is not None or any(holding(c, act.item) for c in party.values()) or world.thing(act.item) is not None
    try:
        kind, _, item = find_item(act.item) if rules_for(me.system).ITEM_TABLES else (None, None, None)
    except CombatError:
        kind, item = None, None
    if act.kind == "use":
        if kind != "consumable" or not getattr(item, "heal", None):
            return None  # "I use my thieves' tools": a skill, the GM's judgement
        if holding(me, act.item) is None:
            raise CombatError(f"{actor} has no {asked_name(act.item)}")
        target = party.get(people.get(act.to or "", ""), me)
        events = use_item(None, me, act.item, target, dice() if dice is not None else None)
        used_up(world, item.name, actor, target.name)
    else:
        if not known and kind is None:
            return None  # "I give Maren my word": no thing anyone holds
        to = people[act.to]
        label = hand_over(me, party.get(to), act.item, 1, next((s for s in sheets if s.name == to), None))
        gave(world, label, actor, to)
        events = [CombatEvent(round=fight.round if live else 0, actor=actor, kind="give", target=to, text=f"{actor} gives {label} to {to}")]
    _keep(session, party, fight)
    return events



def _gather(session: Any, party: dict[str, Combatant], fight: Combat | None, live: bool, actor: str, item: str,
            text: str) -> list[CombatEvent] | None:
    """"I gather my arrows", "we pick up the javelins": what was shot or thrown comes back, after the fight.
    None when the line names nothing anyone spent (then it is the GM's: "I pick up the lantern")."""
    who = list(party.values()) if text.strip().lower().startswith(("we ", "let's", "let us", "everyone")) else [party[actor]]
    if not any(_spent_of(c, item) for c in who):
        return None
    if live:
        raise CombatError("arrows and javelins are gathered once the fight is over")
    lines = [line for c in who if (line := gather(c, item))]
    _keep(session, party, fight)
    return [CombatEvent(round=0, actor=actor, kind="gather", text=line) for line in lines]


def _spent_of(c: Combatant, item: str) -> bool:
    """``c`` shot or threw some of ``item`` (arrows, javelins) and has not gathered it yet."""
    return gather(c.model_copy(deep=True), item) is not None


def rest_between_fights(session: Any, ruleset: Any, sheets: list[Any], world: Any, text: str,
                        dice: Callable[[], random.Random] | None = None) -> list[CombatEvent] | None:
    """"We take a long rest", "we rest for three hours": the whole party rests by its game's rules
    (``gm.combat.rest``: hit points and Hit Dice, slots, magic / power / Focus Points back); None when
    the line does not rest.

    Raises:
        CombatError: a fight is under way (nobody rests in the middle of one).
        VgmError: ``/rest`` with a length it cannot read (one line saying what to type).
    """
    hours = read_rest(text)
    if hours is None and text.strip().lower().startswith("/rest"):  # a mistyped command: one line, no turn
        raise VgmError(f"{text.strip()!r}: say how long: /rest (a short rest, an hour), /rest long (a night), or /rest 3 (hours)")
    if hours is None:
        return None
    party, fight = _party(session, ruleset, sheets, live=True)
    if fight is not None and not fight.over:
        raise CombatError("there is no resting in the middle of a fight; end it first (win, flee or talk)")
    rng = dice() if dice is not None else None
    events = [e for c in party.values() for e in rest(c, hours, rng)]
    span = "the night" if hours >= 8 else f"{hours:g} hour{'s' if hours != 1 else ''}" if hours >= 1 else f"{round(hours * 60)} minutes"
    world.add_fact(f"The party rested for {span}", [*party], "outcome")
    _keep(session, party, fight)
    return events
