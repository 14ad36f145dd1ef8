"""How prompts reach a model and what comes back: records, composable steps, pipelines as data.

Common case::

    from pipelines import load_pipeline
    result = await load_pipeline("tbs").run(instance, model)
    result.checks  # [Check(character="Jester", skill="perception")]
"""
from .records import Check, MoeInstance, Turn
from .state import PipelineResult, PipelineState, StepRecord
from .statistic import SkillStats
from .steps import chain, registered_steps, step
from .pipeline import DEFAULT_COMPARE, PAPER_PIPELINES, Pipeline, PipelineSpec, PipelineSpecError, available_pipelines, load_pipeline

__all__ = [
    "Check", "MoeInstance", "Turn",
    "PipelineResult", "PipelineState", "StepRecord", "SkillStats",
    "chain", "registered_steps", "step",
    "DEFAULT_COMPARE", "PAPER_PIPELINES", "Pipeline", "PipelineSpec", "PipelineSpecError", "available_pipelines", "load_pipeline",
]
