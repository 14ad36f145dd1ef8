"""Step registry: ``@step("pre_char")`` names a step factory so a spec file can use it.

A step factory takes its configuration as keyword arguments and returns an
``async def run(state) -> state``. ``chain`` composes steps and is itself a step; like
inspect_ai's ``Chain`` it keeps the record of each named step it runs (``state.steps``), so a
step only fills in ``state.step_record(name)`` — its raw answer, what it read, its cost.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from rulesets import VgmError

from ..state import PipelineState, StepRecord

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
        @functools.wraps(factory)
        def named(*args: Any, **kwargs: Any) -> Step:
            made = factory(*args, **kwargs)
            made.step_name = name  # type: ignore[attr-defined]  # chain keeps a record under this name
            return made

        named.step_name = name  # type: ignore[attr-defined]
        _REGISTRY[name] = named
        _NEEDS_MODEL[name] = needs_model
        return named

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
    """Run steps in order over one state; stops early when a step marks the state completed.

    Before each named (registered) step the chain opens its ``StepRecord``; when the step
    returns, the record joins ``state.steps``. A step that raises leaves no record (the
    pipeline keeps the ones before it). Unnamed steps, such as a nested chain, keep their own.
    """

    async def run(state: PipelineState) -> PipelineState:
        for each in steps:
            if state.completed:
                break
            name = getattr(each, "step_name", None)
            state.record = StepRecord(name=name) if name else None
            state = await each(state)
            if name and state.record is not None:
                state.steps.append(state.record)
            state.record = None
        return state

    return run
