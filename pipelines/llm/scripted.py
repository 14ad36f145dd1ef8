"""``scripted:<file.yaml>``: a model whose replies are written down in advance.

For exact tests and demos. Replies are taken by step name when the script has a list for
that step, otherwise from the ``default`` list, in order. Every request is recorded in
``requests`` so a test can check what a model was shown.

File forms::

    - "first reply"          # a plain list: replies in order
    - "second reply"

    steps:                    # or replies per pipeline step, then a default list
      pre_char: ['["Jester", "Fjord"]']
      char: ['["Jester"]']
    default: ["..."]
    repeat_last: true         # keep giving the last reply when a list runs out
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulesets import FileProblem, read_yaml

from ._types import Message, ModelError, Reply, Usage

Responder = Callable[[str | None, list[Message]], str]


class ScriptedModel:
    """Replies from lists (per step, then default) or from a ``responder`` function."""

    def __init__(
        self,
        replies: list[str] | None = None,
        *,
        by_step: dict[str, list[str]] | None = None,
        responder: Responder | None = None,
        repeat_last: bool = False,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self._default = list(replies or [])
        self._by_step = {k: list(v) for k, v in (by_step or {}).items()}
        self._responder = responder
        self._repeat_last = repeat_last
        self._last: dict[str | None, str] = {}
        self.requests: list[dict[str, Any]] = []

    @classmethod
    def from_file(cls, path: str | Path) -> "ScriptedModel":
        path = Path(path)
        if not path.exists():
            raise ModelError(f"scripted model file {path} not found; give scripted:<path to a YAML file of replies>")
        try:
            data = read_yaml(path, what="scripted model file")
        except FileProblem as problem:
            raise ModelError(str(problem)) from None
        name = f"scripted:{path}"
        if isinstance(data, list):
            return cls([str(r) for r in data], name=name)
        if isinstance(data, dict) and ({"steps", "default"} & data.keys()):
            steps = data.get("steps") or {}
            if not isinstance(steps, dict):
                raise ModelError(f"{path}: 'steps' must map step names to lists of replies")
            return cls(
                [str(r) for r in data.get("default") or []],
                by_step={str(k): [str(r) for r in (v if isinstance(v, list) else [v])] for k, v in steps.items()},
                repeat_last=bool(data.get("repeat_last", False)),
                name=name,
            )
        raise ModelError(f"{path}: expected a list of replies or a mapping with 'steps'/'default'; see pipelines/llm/scripted.py")

    def _next(self, step: str | None, messages: list[Message]) -> str:
        if self._responder is not None:
            return self._responder(step, messages)
        queue = self._by_step.get(step) if step is not None and step in self._by_step else self._default
        key = step if queue is not self._default else None
        if queue:
            self._last[key] = queue.pop(0)
            return self._last[key]
        if self._repeat_last and key in self._last:
            return self._last[key]
        raise ModelError(f"{self.name} has no reply left for step {step!r}; add replies to the script")

    async def complete(
        self,
        messages: list[Message],
        *,
        step: str | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        seed: int | None = None,
    ) -> Reply:
        self.requests.append({"step": step, "messages": [dict(m) for m in messages], "max_tokens": max_tokens, "json_schema": json_schema})
        text = self._next(step, messages)
        prompt_chars = sum(len(m.get("content", "")) for m in messages)
        usage = Usage(prompt_tokens=prompt_chars // 4, completion_tokens=len(text) // 4)
        return Reply(text=text, usage=usage, model=self.name, step=step)
