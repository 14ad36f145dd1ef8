"""Step registry: ``@step("pre_char")`` names a step factory so a spec file can use it.

A step factory takes its configuration as keyword arguments and returns an
``async def run(state) -> state``. ``chain`` composes steps and is itself a step.
"""
from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from rulesets import VgmError

from ..state import PipelineState

Step = Callable[[PipelineState], Awaitable[PipelineState]]
StepFactory = Callable[..., Step]

_REGISTRY: dict[str, StepFactory] = {}
_NEEDS_MODEL: dict[str, bool | Callable[[dict[str, Any]], bool]] = {}


class UnknownStep(VgmError):
    """A spec names a step nobody registered."""


def step(name: str, *, needs_model: bool | Callable[[dict[str, Any]], bool] = True) -> Callable[[StepFactory], StepFactory]:
    """Register a step factory under ``name`` (used by spec files).

    Args:
        name: the name spec files use.
        needs_model: False for steps that never call a model (baselines); or a function of the
            step's arguments, for a step that calls one only in some modes.
    """

    def register(factory: StepFactory) -> StepFactory:
        _REGISTRY[name] = factory
        _NEEDS_MODEL[name] = needs_model
        factory.step_name = name  # type: ignore[attr-defined]
        return factory

    return register


def registered_steps() -> list[str]:
    return sorted(_REGISTRY)


def step_needs_model(name: str, args: dict[str, Any] | None = None) -> bool:
    needs = _NEEDS_MODEL.get(name, True)
    return bool(needs(args or {})) if callable(needs) else needs


def make_step(name: str, args: dict[str, Any] | None = None, *, where: str = "spec") -> Step:
    """Build a registered step with its arguments; a bad name or argument is a ``VgmError``."""
    if name not in _REGISTRY:
        raise UnknownStep(f"{where}: unknown step {name!r}; registered steps are {', '.join(registered_steps())}")
    factory = _REGISTRY[name]
    args = dict(args or {})
    accepted = inspect.signature(factory).parameters
    extra = [key for key in args if key not in accepted]
    if extra:
        raise UnknownStep(f"{where}: step {name!r} takes no argument {extra[0]!r}; it takes {', '.join(accepted) or 'none'}")
    return factory(**args)


def chain(*steps: Step) -> Step:
    """Run steps in order over one state; stops early when a step marks the state completed."""

    async def run(state: PipelineState) -> PipelineState:
        for each in steps:
            if state.completed:
                break
            state = await each(state)
        return state

    return run
