"""One way to reach any LLM: ``get_model("local" | "local:small" | "openai:gpt-4o-mini" | "scripted:f.yaml")``.

Every backend answers ``await model.complete(messages, step=...) -> Reply``; every real
call goes through one client (concurrency bound, timeout, retries, SQLite response
cache, usage log). ``complete_json`` asks for, repairs and validates structured answers.
"""
from ._types import ChatModel, Message, ModelError, Reply, Usage
from .ask import Answer, ask
from .cache import ResponseCache, UsageLog
from .client import ClientModel, OpenAICompatModel, stream_complete
from .langchain_bridge import LangChainModel, from_langchain
from .local import ensure_installed
from .resolve import LocalModel, get_model, langchain_model, parse_spec
from .scripted import ScriptedModel
from .structured import Parsed, complete_json, parse_as
from .tokens import count_tokens, estimate_cost, trim_to_budget

__all__ = [
    "ChatModel", "Message", "ModelError", "Reply", "Usage", "ScriptedModel", "get_model", "langchain_model",
    "parse_spec", "Parsed", "complete_json", "parse_as", "ClientModel", "OpenAICompatModel", "LocalModel",
    "ResponseCache", "UsageLog", "LangChainModel", "from_langchain", "ensure_installed", "ask", "Answer",
    "count_tokens", "trim_to_budget", "estimate_cost", "stream_complete",
]
