"""The GM's world: who is here and what they know, where things are, what is true.

``read_world(scenario)`` gives the ``World`` a scene starts with (its ``world:`` mapping,
filled in from the prose); ``gm.world.state`` changes it as outcomes land; ``understood``
and ``not_understood`` say what the GM made of a scenario (``vgm scenario check``).
"""
from .model import Exit, Fact, Knowledge, Npc, Place, Thing, World, world_problem
from .reader import read_world, read_world_with_model
from .report import not_understood, understood
from .state import foe_down, found, moved, opened, settle, took

__all__ = ["World", "Npc", "Knowledge", "Thing", "Place", "Exit", "Fact", "world_problem", "read_world",
           "read_world_with_model", "understood", "not_understood", "found", "foe_down", "opened", "took", "moved", "settle"]
