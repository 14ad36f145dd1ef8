"""Registered pipeline steps. Importing this package registers every shipped step."""
from . import adjudicate, baselines, moe  # noqa: F401  (registration side effect)
from ._registry import Step, UnknownStep, chain, make_step, registered_steps, step, step_needs_model

__all__ = ["Step", "UnknownStep", "chain", "make_step", "registered_steps", "step", "step_needs_model"]
