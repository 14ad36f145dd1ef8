"""Registered pipeline steps. Importing this package registers every shipped MOE and GM step
(the InMind steps register with ``pipelines.inmind``). The GM's ``adjudicate`` step lives in
``pipelines.steps.adjudicate`` with its helpers.

    from pipelines.steps import chain, pre_char, char, skill
    tbs = chain(pre_char(), char(), skill())       # what the ``tbs`` spec builds
"""
from . import adjudicate  # noqa: F401 - registers the GM's adjudicate step (its module keeps the name)
from ._conversation import LANGS, is_gm, prompt_text
from ._registry import Step, UnknownStep, chain, make_step, registered_steps, step, step_needs_model
from .baselines import gold_checks, knn_skill, last_speaker, oracle_char, statistic_char, statistic_skill
from .moe import char, gm_utterance, pre_char, skill, template

__all__ = [
    "Step", "UnknownStep", "chain", "make_step", "registered_steps", "step", "step_needs_model", "prompt_text", "is_gm", "LANGS",
    "gold_checks", "knn_skill", "last_speaker", "oracle_char", "statistic_char", "statistic_skill",
    "char", "gm_utterance", "pre_char", "skill", "template",
]
