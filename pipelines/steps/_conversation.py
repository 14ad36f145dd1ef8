"""The one conversation a pipeline keeps with the model, and reading its answers back.

Prefix caching only helps when every step (and every pipeline) on one instance starts
with the same tokens, so the long shared part — the GM role, the rules' check list, the table
log — is built here once, identically, and each step only appends its short instruction.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rulesets import VgmError

from ..llm import Message, ModelError, Usage, parse_as
from ..records import Check, MoeInstance
from ..state import PipelineState, StepRecord

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
GM_NAMES = {"gm", "dm", "game master", "dungeon master", "keeper", "kp"}
LANGS = ("en", "zh")  # zh: the Chinese prompt files (<name>.zh.txt) for Chinese logs


def is_gm(speaker: str) -> bool:
    return speaker.strip().lower() in GM_NAMES


def prompt_text(name: str, options: dict[str, Any] | None = None) -> str:
    """A prompt file's text; ``prompts_dir`` option or ``VGM_PROMPTS`` overrides the shipped ones.

    With the ``lang`` option ``zh`` the Chinese twin ``<name>.zh.txt`` is read instead (beside the English file).
    """
    lang = (options or {}).get("lang", "en")
    if lang not in LANGS:
        raise VgmError(f"--lang {lang!r}: prompts exist in {', '.join(LANGS)}")
    if lang != "en":
        name = f"{name}.{lang}"
    for folder in ((options or {}).get("prompts_dir"), os.environ.get("VGM_PROMPTS")):
        if folder and (Path(folder) / f"{name}.txt").is_file():
            return (Path(folder) / f"{name}.txt").read_text(encoding="utf-8").strip()
    return _shipped_prompt(name)


@lru_cache(maxsize=None)
def _shipped_prompt(name: str) -> str:
    path = PROMPTS / f"{name}.txt"
    if not path.is_file():
        raise VgmError(f"no prompt file {path}; known prompts: {', '.join(p.stem for p in sorted(PROMPTS.glob('*.txt')))}")
    return path.read_text(encoding="utf-8").strip()


# --- who is at the table -------------------------------------------------------------

def roster(instance: MoeInstance) -> dict[str, str]:
    """Lower-cased name or alias -> canonical character name.

    Canonical names are the first alias of each ``characters`` entry ("Nott|Nott the Brave"),
    then every non-GM speaker of the log (group speakers "A & B" count as A and B).
    """
    names: dict[str, str] = {}
    for entry in instance.characters or []:
        aliases = [a.strip() for a in entry.split("|") if a.strip()]
        for alias in aliases:
            names.setdefault(alias.lower(), aliases[0])
    for turn in instance.context:
        for speaker in turn.speaker.split("&"):
            speaker = speaker.strip()
            if speaker and not is_gm(speaker) and speaker.lower() not in ("all", "everyone"):
                names.setdefault(speaker.lower(), speaker)
    return names


def candidates(instance: MoeInstance) -> list[str]:
    """Canonical character names, most recent speaker first, then the rest of the table.

    Recency order is how a GM scans the table (whoever just described an action is the
    likeliest to roll), and small models tend to copy the first names of a list they are shown.
    """
    table = roster(instance)
    recent: list[str] = []
    for turn in reversed(instance.context):
        for speaker in turn.speaker.split("&"):
            canon = table.get(speaker.strip().lower())
            if canon and canon not in recent:
                recent.append(canon)
    return recent + [name for name in dict.fromkeys(table.values()) if name not in recent]


def resolve_character(name: Any, instance: MoeInstance) -> str | None:
    """A model's character name -> a canonical table name, or None when it names nobody here."""
    if not isinstance(name, str) or not name.strip():
        return None
    table = roster(instance)
    key = " ".join(name.strip().lower().split())
    if key in table:
        return table[key]
    # "Nott the Brave" for "Nott", "Caleb Widogast" for "Caleb": a unique whole-word prefix match
    hits = {canon for alias, canon in table.items() if key.startswith(alias + " ") or alias.startswith(key + " ")}
    return hits.pop() if len(hits) == 1 else None


def resolve_skill(text: Any, pack: Any) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    return pack.try_resolve(text)


# --- the shared prefix ----------------------------------------------------------------

def format_log(instance: MoeInstance, max_chars: int) -> str:
    """The table log, newest lines kept when it is longer than ``max_chars``."""
    lines = [f"{turn.speaker}: {' '.join(turn.text.split())}" for turn in instance.context]
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if kept and size + len(line) > max_chars:
            break
        kept.append(line[:max_chars])
        size += len(line) + 1
    return "\n".join(reversed(kept))


def check_menu(pack: Any, options: dict[str, Any], instance: MoeInstance | None = None) -> str:
    """The pack's check list, the checks GMs ask for most often first when training counts are given.

    A GM reaches for Perception long before Animal Handling; a small model reads a list
    top-down, so putting the common checks first is the prior it lacks.
    """
    lines = pack.check_menu(zh=options.get("lang") == "zh").splitlines()
    stats = options.get("stats")
    counts = stats.by_ruleset.get(pack.name) if stats is not None else None
    if not counts:
        return "\n".join(lines)
    rank = {skill: -n for skill, n in counts.items()}
    if instance is not None and options.get("leave_one_out"):  # the instance's own label must not move the list
        for check in instance.answers:
            rank[check.skill] = rank.get(check.skill, 0) + 1
    return "\n".join(sorted(lines, key=lambda line: rank.get(line.split(" ", 1)[0], 0)))


def shared_prefix(instance: MoeInstance, pack: Any, options: dict[str, Any]) -> list[Message]:
    """System (GM role + the pack's checks) and the table log: identical for every step and pipeline."""
    title = getattr(pack, "title", None) or getattr(pack, "name", None) or instance.ruleset
    system = prompt_text("system", options).format(ruleset=title, menu=check_menu(pack, options, instance))
    log = prompt_text("log", options).format(
        log=format_log(instance, int(options.get("max_log_chars", 6000))),
        characters=", ".join(candidates(instance)) or "(not listed)",  # most recent speaker first
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": log}]


def ensure_prefix(state: PipelineState) -> None:
    if not state.messages:
        state.messages = shared_prefix(state.instance, state.pack, state.options)


def with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    """Append a step's instruction last: joined to a trailing user message, else a new one."""
    out = [dict(m) for m in messages]
    if out and out[-1]["role"] == "user":
        out[-1]["content"] = out[-1]["content"] + "\n\n" + instruction
    else:
        out.append({"role": "user", "content": instruction})
    return out


# --- asking -----------------------------------------------------------------------------

async def ask(
    state: PipelineState,
    name: str,
    instruction: str,
    schema: type[BaseModel] | None,
    *,
    strict_schema: dict[str, Any] | None = None,
    max_tokens: int = 128,
) -> tuple[Any, StepRecord]:
    """One model step on the shared conversation; the answer is appended for later steps.

    The server gets ``strict_schema`` (names and ids as enums, so a grammar-constrained server
    can only answer from the table and the pack), but we read the answer with the looser
    ``schema``: a model without grammar support may still name someone unknown, and we
    would rather drop that one name than lose the whole answer. (This is why we do not call
    ``complete_json`` here: it validates against the schema it sends.) Unreadable answers get
    one re-ask with the error, then a recorded parse failure — never an exception.
    """
    if state.model is None:
        raise ModelError(f"step {name!r} needs a model; pass --model (e.g. local:small)")
    ensure_prefix(state)
    messages = with_instruction(state.messages, instruction)
    temperature = float(state.options.get("temperature", 0.0))
    usage = Usage(calls=0)
    seed = state.options.get("seed")  # a repeated run's own seed (eval.moe.samples); part of the cache key
    reply = await state.model.complete(messages, step=name, max_tokens=max_tokens, temperature=temperature, json_schema=strict_schema, seed=seed)
    usage = usage + reply.usage
    raw = reply.text
    record = state.step_record(name)
    if schema is None:
        state.messages = messages + [{"role": "assistant", "content": raw}]
        record.raw, record.parsed, record.usage = raw, raw.strip(), usage
        return raw.strip(), record
    value, _, error = parse_as(raw, schema)
    if error is not None and state.options.get("retry", True):
        again = messages + [
            {"role": "assistant", "content": raw},
            {"role": "user", "content": f"That answer could not be read ({error}). Reply again with only the JSON asked for."},
        ]
        reply = await state.model.complete(again, step=name, max_tokens=max_tokens, temperature=temperature, json_schema=strict_schema, seed=seed)
        usage = usage + reply.usage
        raw = reply.text
        value, _, error = parse_as(raw, schema)
    state.messages = messages + [{"role": "assistant", "content": raw}]
    record.raw, record.parsed, record.usage = raw, value.model_dump() if isinstance(value, BaseModel) else value, usage
    record.parse_ok, record.error = error is None, error
    return value, record


def enum_or_string(values: list[str]) -> dict[str, Any]:
    return {"type": "string", "enum": values} if values else {"type": "string"}


def _array(items: dict[str, Any], most: int | None) -> dict[str, Any]:
    """At least one item (MOE always has a check to call) and at most ``most``: a small model
    under a grammar otherwise repeats the same item until it runs out of tokens."""
    array: dict[str, Any] = {"type": "array", "items": items, "minItems": 1}
    if most:
        array["maxItems"] = most
    return array


def names_schema(allowed: list[str], zcot: bool, most: int | None = None) -> dict[str, Any]:
    return _object({"characters": _array(enum_or_string(allowed), most or len(allowed) or 8)}, zcot)


def checks_schema(allowed: list[str], skills: list[str], zcot: bool, most: int | None = None) -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {"character": enum_or_string(allowed), "skill": enum_or_string(skills)},
        "required": ["character", "skill"],
    }
    return _object({"checks": _array(item, most or len(allowed) or 8)}, zcot)


REASONING_CHARS = 200  # keeps a zero-shot CoT answer short enough for a CPU model (small models loop)


def _object(props: dict[str, Any], zcot: bool) -> dict[str, Any]:
    if zcot:  # reasoning first, so the model thinks before it commits to the answer
        props = {"reasoning": {"type": "string", "maxLength": REASONING_CHARS}, **props}
    return {"type": "object", "properties": props, "required": list(props)}


def dedupe(checks: list[Check]) -> list[Check]:
    return list(dict.fromkeys(checks))
