"""The GM's decision: whether a player's line calls for a roll, which check, or that it cannot work.

One package holds the parts (DESIGN.md, "The GM turn"): the features a line is read into
(``features``), the calibrated model learned from real play (``learned``; built by
``vgm play learn``), the registry of general rules (``registry``) and the rules themselves
(``rules``, ``impossible``). The ``adjudicate`` step (``pipelines.steps.adjudicate``) puts them
together; a spec lists the rules it runs.
"""
from .features import LineFeatures, scene_tail, surface, vote_features
from .learned import MODEL_FILE, LearnedDecision, ModelFileError
from .registry import RULES, STAGES, Context, Rule, UnknownRule, Verdict, apply_rules, chosen, rule, rule_ids
from .rules import DEFAULT_RULES, OUT_OF_CHARACTER

__all__ = [
    "LineFeatures", "scene_tail", "surface", "vote_features", "MODEL_FILE", "LearnedDecision", "ModelFileError",
    "RULES", "STAGES", "Context", "Rule", "UnknownRule", "Verdict", "apply_rules", "chosen", "rule", "rule_ids",
    "DEFAULT_RULES", "OUT_OF_CHARACTER",
]
