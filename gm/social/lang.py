"""Languages a social game can be played in: seats are spoken to in ``game.lang`` (``options["lang"]``).

English is each engine's ``prompts`` module as written; another language is a sibling module
(``prompts_zh``) with functions of the same names, picked per call by ``in_lang``. The moderator
loop's own few words (the JSON instruction, the log header) are here.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: Words the moderator loop itself says to a seat; the keys are the languages a game can use.
LOOP_TEXT = {
    "en": {"json": "Answer with JSON only, shaped like {shape}", "log": "The game so far, as you saw it:\n{log}",
           "empty": "(nothing has happened yet)", "belief": "(your own private thought) {text}"},
    "zh": {"json": "只用 JSON 回答，格式如：{shape}", "log": "到目前为止你看到的对局：\n{log}", "empty": "（还什么都没有发生）",
           "belief": "（你自己心里的想法）{text}"},
}
LANGS: tuple[str, ...] = tuple(LOOP_TEXT)


def in_lang(packs: dict[str, ModuleType]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator for a text function ``fn(game, ...)``: English is ``fn``; ``game.lang`` in ``packs``
    calls that pack's function of the same name instead, so English stays exactly as written."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def text(game: Any, *args: Any, **kwargs: Any) -> Any:
            pack = packs.get(getattr(game, "lang", "en"))
            return (getattr(pack, fn.__name__) if pack is not None else fn)(game, *args, **kwargs)

        return text

    return wrap


def zh_list(items: list[str]) -> str:
    """Names joined the Chinese way (1号、3号), or 没有人 for none."""
    return "、".join(items) if items else "没有人"
