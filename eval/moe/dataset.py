"""MOE datasets as JSON Lines of ``MoeInstance``: load with every gold skill resolved, write back.

Loading is strict, because a silently wrong gold label poisons every number after it: a
truncated line, a missing field, an empty context, a duplicate id or a skill the
instance's rule set does not know stops the load with ``file:line`` and the fix.
"""
from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

import rulesets
from pipelines.records import Check, MoeInstance
from pipelines.steps.moe import roster
from rulesets import FileProblem, VgmError, read_jsonl

SAMPLE = Path(__file__).resolve().parent / "data" / "sample.jsonl"


class DatasetError(VgmError):
    """A MOE data file cannot be used as it is."""


def data_path(path: str | Path) -> Path:
    """``sample`` is the shipped sample; anything else is a path."""
    return SAMPLE if str(path) == "sample" else Path(path)


def _pack(name: str, where: str, cache: dict):
    if name not in cache:
        try:
            cache[name] = rulesets.load(name)
        except VgmError as exc:
            raise DatasetError(f"{where}: ruleset {name!r}: {exc}") from None
    return cache[name]


def parse_instance(data: object, where: str, packs: dict | None = None) -> MoeInstance:
    """One decoded JSON value -> a validated instance with resolved skill ids."""
    packs = {} if packs is None else packs
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object (one MOE instance per line), got {type(data).__name__}")
    try:
        instance = MoeInstance.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "line"
        kind = "missing field" if first["type"] == "missing" else first["msg"]
        raise DatasetError(f"{where}: {key}: {kind}; each line needs id, ruleset, context [{{speaker, text}}], answers [{{character, skill}}]") from None
    if not instance.context:
        raise DatasetError(f"{where}: instance {instance.id!r} has an empty context; give at least one turn of the table log")
    if not instance.answers:
        raise DatasetError(f"{where}: instance {instance.id!r} has no answers; every MOE instance needs at least one gold check")
    pack = _pack(instance.ruleset, where, packs)
    table = roster(instance)
    answers = []
    for k, check in enumerate(instance.answers):
        try:
            skill = pack.resolve(check.skill)
        except VgmError as exc:
            raise DatasetError(f"{where}: answers[{k}].skill: {exc}") from None
        if not check.character.strip():
            raise DatasetError(f"{where}: answers[{k}].character is empty; name the character who rolls")
        if " ".join(check.character.lower().split()) not in table:
            at_table = ", ".join(dict.fromkeys(table.values())) or "nobody"
            raise DatasetError(f"{where}: answers[{k}].character {check.character!r} is not at the table ({at_table}); "
                               f"list them in 'characters' or fix the name")
        answers.append(Check(character=check.character.strip(), skill=skill))
    return instance.model_copy(update={"answers": answers, "ruleset": pack.name})


def read_lines(path: Path):
    """Yield ``(where, value)`` per non-blank line, through the shared reader (``rulesets.read_jsonl``).

    Gold data is strict: any bad line, the last one included, stops with ``file:line`` and the fix.
    """
    try:
        for number, value in read_jsonl(path, on_torn="error", what="MOE data file").numbered():
            yield f"{path}:{number}", value
    except FileProblem as problem:
        raise DatasetError(str(problem)) from None


def load_moe(path: str | Path, *, limit: int | None = None) -> list[MoeInstance]:
    """Read a MOE JSON Lines file (or ``"sample"``); errors name ``file:line`` and the fix."""
    path = data_path(path)
    if limit is not None and limit < 1:
        raise DatasetError(f"limit {limit}: give at least 1 (or no limit for every instance)")
    if path.is_dir():
        raise DatasetError(f"{path}: is a folder; give a MOE .jsonl file (see `vgm moe import`) or 'sample'")
    if not path.is_file():
        raise DatasetError(f"{path}: no such data file; give a MOE .jsonl (see `vgm moe import`) or 'sample'")
    packs: dict = {}
    seen: dict[str, str] = {}
    out: list[MoeInstance] = []
    for where, data in read_lines(path):
        instance = parse_instance(data, where, packs)
        check_unique(instance, where, seen)
        out.append(instance)
        if limit is not None and len(out) >= limit:
            break
    if not out:
        raise DatasetError(f"{path}: no instances in the file")
    return out


def check_unique(instance: MoeInstance, where: str, seen: dict[str, str]) -> None:
    """Ids must be unique in a file: runs resume and reports pair by id."""
    if instance.id in seen:
        first = seen[instance.id].rsplit(":", 1)[-1]
        raise DatasetError(f"{where}: duplicate id {instance.id!r} (first on line {first}); ids must be unique")
    seen[instance.id] = where


def write_moe(instances: Iterable[MoeInstance], path: str | Path) -> int:
    """Write instances as JSON Lines (to a temporary file renamed over ``path``, so never half-written); returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for instance in instances:
                handle.write(instance.model_dump_json(exclude_none=True) + "\n")
                n += 1
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return n


def describe_dataset(path: str | Path) -> dict:
    """What ``vgm moe validate`` prints: counts per rule set, top skills, context length."""
    instances = load_moe(path)
    by_rules: dict[str, Counter] = {}
    counts: Counter = Counter()
    for instance in instances:
        counts[instance.ruleset] += 1
        by_rules.setdefault(instance.ruleset, Counter()).update(a.skill for a in instance.answers)
    return {
        "path": str(data_path(path)),
        "instances": len(instances),
        "answers": sum(len(i.answers) for i in instances),
        "multi_character": sum(1 for i in instances if len({a.character for a in i.answers}) > 1),
        "mean_turns": sum(len(i.context) for i in instances) / len(instances),
        "rulesets": {name: {"instances": counts[name], "top_skills": by_rules[name].most_common(5)} for name in counts},
    }
