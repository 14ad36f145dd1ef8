"""Helpers for the combat tests: scripted dice, the ready characters, a fight to start from."""
import random

import pytest

import rulesets
from gm.combat import Combatant, start_combat
from gm.systems import ready_characters

ENCOUNTER = {"dnd5e": "ambush", "pf2e": "toll_fight", "coc7e": "lighthouse_horror", "swade": "payroll_raid"}


class Faces(random.Random):
    """Dice that come up as scripted: each ``randrange(n)`` the d20 library makes for a die
    takes the next face (1..n); a ``1d%`` tens die takes the next value as given (0, 10 ... 90).
    When the script runs out, a seeded generator takes over."""

    def __init__(self, *faces: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.faces = list(faces)

    def randrange(self, start, stop=None, step=1):  # noqa: D401 - random API
        if self.faces:
            face = self.faces.pop(0)
            return face - 1 if stop is None else face
        return super().randrange(start, stop, step)


@pytest.fixture
def faces():
    return Faces


def pack(name: str):
    return rulesets.load(name)


def sheets(name: str):
    return ready_characters(pack(name))


def duel(name: str, foe: str, *, seed: int = 1, distance: int = 5, party: list[str] | None = None, **kw):
    """A small fight: ready characters (by first name; the pack's first one by default) against one ``foe``, ``distance`` ft apart."""
    from gm.systems import find_character

    ready = sheets(name)
    chosen = [find_character(n, ready) for n in party] if party else ready[:1]
    return start_combat(name, chosen, [{"monster": foe, "distance": distance}], random.Random(seed), seed=seed, **kw)


def put_first(combat, name: str) -> Combatant:
    """Make it ``name``'s turn now (fresh actions), whatever the initiative said."""
    c = combat.get(name)
    combat.order.remove(c.name)
    combat.order.insert(0, c.name)
    combat.turn = 0
    c.conditions = [x for x in c.conditions if x.name != "surprised"]
    combat.rules.start_turn(combat, c, random.Random(0))
    return c


def turn_of(name: str, who: str, foes: list, *, seed: int = 3, party: tuple[str, ...] = ("Oskar", "Ilya", "Brisa")):
    """A fight of the ready ``party`` against ``foes``, played by the rules until it is ``who``'s turn."""
    from gm.systems import find_character

    chosen = [find_character(n, sheets(name)) for n in party]
    fight = start_combat(name, chosen, list(foes), random.Random(seed), seed=seed)
    for _ in range(12):
        if fight.current.name.startswith(who):
            return fight
        fight.next_turn() if fight.current.is_player else fight.npc_turn()
    raise AssertionError(f"{who} never got a turn")
