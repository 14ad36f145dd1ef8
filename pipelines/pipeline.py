"""Pipelines declared as data: ``pipelines/specs/<name>.yaml`` names registered steps and their arguments.

``load_pipeline("tbs")`` builds the chain; ``load_pipeline("tbs_gm")`` is any spec plus the
GM-utterance step. ``await pipeline.run(instance, model)`` never raises for a bad model
answer: parse failures and model errors are recorded in the result.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

import rulesets
from rulesets import FileProblem, VgmError, read_yaml

from .llm import ChatModel, ModelError
from .records import MoeInstance
from .state import PipelineResult, PipelineState
from .steps import chain, make_step, step_needs_model

SPECS = Path(__file__).resolve().parent / "specs"
GM_SUFFIX = "_gm"


class PipelineSpecError(VgmError):
    """A pipeline spec file is missing or malformed."""


class StepSpec(BaseModel):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class PipelineSpec(BaseModel):
    """The YAML shape: ``name``, ``description``, ``steps`` (a name, or ``{name: {arg: value}}``)."""

    name: str
    description: str = ""
    steps: list[StepSpec]

    @field_validator("steps", mode="before")
    @classmethod
    def _step_forms(cls, value: Any) -> Any:
        if not isinstance(value, list) or not value:
            raise ValueError("must be a non-empty list of step names")
        out = []
        for item in value:
            if isinstance(item, str):
                out.append({"name": item})
            elif isinstance(item, dict) and len(item) == 1:
                (name, args), = item.items()
                out.append({"name": name, "args": args or {}})
            else:
                out.append(item)
        return out


class Pipeline:
    """A named chain of registered steps, built from a spec."""

    def __init__(self, spec: PipelineSpec, source: str = "") -> None:
        self.spec = spec
        self.name = spec.name
        self.description = spec.description
        self.source = source
        where = source or spec.name
        self._chain = chain(*(make_step(s.name, s.args, where=where) for s in spec.steps))

    @property
    def needs_model(self) -> bool:
        return any(step_needs_model(s.name, s.args) for s in self.spec.steps)

    @property
    def step_names(self) -> list[str]:
        return [s.name for s in self.spec.steps]

    def describe(self) -> dict[str, Any]:
        """The resolved chain, for run logs."""
        return {"name": self.name, "source": self.source, "steps": [s.model_dump() for s in self.spec.steps]}

    async def run(self, instance: MoeInstance, model: ChatModel | None = None, *, pack: Any = None, **options: Any) -> PipelineResult:
        """Run the chain on one instance.

        Args:
            instance: the MOE question.
            model: any ``ChatModel``; may be None for pipelines without model steps.
            pack: the rule-set pack; loaded from ``instance.ruleset`` when omitted.
            **options: ``stats`` (SkillStats), ``leave_one_out``, ``max_log_chars``,
                ``prompts_dir``, ``temperature``, ``retry``.

        Returns:
            A ``PipelineResult``; a model failure is in ``error``, the steps done so far kept.
        """
        if pack is None:
            pack = rulesets.load(instance.ruleset)
        if model is None and self.needs_model:
            raise ModelError(f"pipeline {self.name!r} needs a model; pass --model (e.g. local:small)")
        state = PipelineState(instance=instance, pack=pack, model=model, options=options)
        started = time.perf_counter()
        try:
            state = await self._chain(state)
        except ModelError as exc:
            state.error = str(exc)
        except Exception as exc:  # one broken answer or backend hiccup must not sink a batch
            state.error = f"{type(exc).__name__}: {exc}"
        result = state.result()
        if not result.usage.latency_s:
            result.usage.latency_s = time.perf_counter() - started
        return result


def _spec_path(name_or_path: str) -> Path | None:
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml"):
        return path
    candidate = SPECS / f"{name_or_path}.yaml"
    return candidate if candidate.is_file() else None


def _read_spec(path: Path) -> PipelineSpec:
    if not path.is_file():
        raise PipelineSpecError(f"pipeline spec {path} not found; give a name from `vgm moe pipelines` or a .yaml path")
    try:
        data = read_yaml(path, what="pipeline spec")
    except FileProblem as problem:  # the one reader's line, with a syntax error still called "not valid YAML"
        raise PipelineSpecError(str(problem).replace("malformed YAML", "not valid YAML", 1)) from None
    if not isinstance(data, dict):
        raise PipelineSpecError(f"{path}: expected a mapping with 'name' and 'steps'")
    data.setdefault("name", path.stem)
    try:
        return PipelineSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        raise PipelineSpecError(f"{path}: key {key!r}: {first['msg']}; see pipelines/specs/tbs.yaml for the shape") from None


def load_pipeline(name_or_path: str) -> Pipeline:
    """A shipped pipeline by name (``tbs``, ``template_gm``, ...) or a spec file by path.

    ``<name>_gm`` is any spec plus the GM-utterance step, unless a spec of that name exists.
    """
    path = _spec_path(name_or_path)
    if path is not None:
        return Pipeline(_read_spec(path), source=str(path))
    if name_or_path.endswith(GM_SUFFIX):
        base_path = _spec_path(name_or_path.removesuffix(GM_SUFFIX))
        if base_path is not None:
            base = _read_spec(base_path)
            spec = PipelineSpec(
                name=name_or_path,
                description=f"{base.description} Then the GM asks for the checks in a GM's voice.".strip(),
                steps=[*base.steps, StepSpec(name="gm_utterance")],
            )
            return Pipeline(spec, source=f"{base_path} + gm_utterance")
    raise PipelineSpecError(f"unknown pipeline {name_or_path!r}; available: {', '.join(available_pipelines())} (or <name>_gm, or a .yaml path)")


# The pipelines of the paper's table (Tachikuma Table 2, with its two floors first), in its order.
PAPER_PIPELINES = ("last_speaker", "statistic", "template", "template_zcot", "char_skill", "tbs", "tbs_zcot", "tbs_statistic")
DEFAULT_COMPARE = list(PAPER_PIPELINES)  # what `vgm moe compare` runs when not told


def available_pipelines() -> list[str]:
    """Shipped spec names, the paper's first in its order (``PAPER_PIPELINES``), then the rest."""
    found = sorted(p.stem for p in SPECS.glob("*.yaml"))
    return [n for n in PAPER_PIPELINES if n in found] + [n for n in found if n not in PAPER_PIPELINES]
