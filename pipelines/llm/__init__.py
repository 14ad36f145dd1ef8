"""One way to reach any LLM: ``get_model("local" | "local:small" | "openai:gpt-4o-mini" | "scripted:f.yaml")``.

Every backend answers ``await model.complete(messages, step=...) -> Reply``.
"""
from ._types import ChatModel, Message, ModelError, Reply, Usage
from .scripted import ScriptedModel
from .structured import Parsed, complete_json, parse_as

__all__ = ["ChatModel", "Message", "ModelError", "Reply", "Usage", "ScriptedModel", "get_model", "Parsed", "complete_json", "parse_as"]


def get_model(spec: str | None = None, **options) -> ChatModel:
    """Resolve a model string (``--model`` / ``VGM_MODEL``, default ``local``) to a model.

    Filled in by the models layer (issue #3); scripted models work from the start.
    """
    import os

    spec = spec or os.environ.get("VGM_MODEL") or "local"
    if spec.startswith("scripted:"):
        return ScriptedModel.from_file(spec.removeprefix("scripted:"))
    raise ModelError(f"unknown model string {spec!r}; use local, local:small, local:/path.gguf, openai:<model> or scripted:<file>")
