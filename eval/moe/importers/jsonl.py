"""MOE JSON Lines in, MOE JSON Lines out: our own format and Tachikuma-style records.

Tachikuma-style lines may use other keys and Chinese names, e.g.
``{"id": 7, "rule": "COC", "context": ["KP：你们走进书房。", {"name": "林", "content": "我翻找书架"}],
"label": [{"name": "林", "skill": "侦查"}]}``; rule names ("DND", "COC", "PF2", "SW") and skill
names (侦查, 图书馆使用, "Spot Hidden") are resolved through the rule-set packs' aliases.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import rulesets
from rulesets import VgmError

from ..dataset import DatasetError, check_unique, parse_instance, read_lines
from ._report import ImportReport

GM_SPEAKERS = {"gm", "dm", "kp", "keeper", "主持人", "守秘人", "主持", "裁判"}
_SPLIT = re.compile(r"^\s*(?P<who>[^:：]{1,30})[:：]\s*(?P<text>.+)$", re.DOTALL)


def _first(data: dict, *keys: str) -> Any:
    return next((data[k] for k in keys if k in data), None)


def _turn(item: Any) -> dict | None:
    if isinstance(item, str):
        match = _SPLIT.match(item)
        who, text = (match.group("who"), match.group("text")) if match else ("Player", item)
    elif isinstance(item, dict):
        who = _first(item, "speaker", "name", "role", "character", "说话人")
        text = _first(item, "text", "content", "utterance", "内容")
    else:
        return None
    if who is None or text is None:
        return None
    who = str(who).strip()
    return {"speaker": "GM" if who.lower() in GM_SPEAKERS else who, "text": str(text).strip()}


def normalize_record(data: dict, number: int) -> dict:
    """Map a Tachikuma-style record onto MoeInstance's keys (our own records pass unchanged)."""
    out = dict(data)
    out["id"] = str(_first(data, "id", "qid", "uid") if _first(data, "id", "qid", "uid") is not None else number)
    rule = _first(data, "ruleset", "rule", "rules", "system")
    if rule is not None:
        try:
            out["ruleset"] = rulesets.load(str(rule)).name
        except VgmError:
            out["ruleset"] = str(rule)
    context = _first(data, "context", "contexts", "dialogue", "log")
    if isinstance(context, list):
        out["context"] = [t for t in (_turn(item) for item in context) if t]
    answers = _first(data, "answers", "answer", "label", "labels", "checks")
    if isinstance(answers, dict):
        answers = [answers]
    if isinstance(answers, list):
        fixed = []
        for item in answers:
            if isinstance(item, dict):
                fixed.append({"character": _first(item, "character", "name", "role", "角色"), "skill": _first(item, "skill", "check", "技能")})
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                fixed.append({"character": item[0], "skill": item[1]})
        out["answers"] = fixed
    for key in ("rule", "rules", "system", "label", "labels", "answer", "checks", "contexts", "dialogue", "log", "qid", "uid"):
        out.pop(key, None)
    return out


def import_jsonl(source: str | Path, **_: Any) -> ImportReport:
    """Read our JSONL or Tachikuma-style JSONL; every skill resolved, errors name file:line."""
    path = Path(source)
    if not path.is_file():
        raise DatasetError(f"{path}: no such file; give a .jsonl of MOE instances")
    report = ImportReport(source=f"jsonl {path}")
    packs: dict = {}
    seen: dict[str, str] = {}
    for where, data in read_lines(path):
        report.found += 1
        if not isinstance(data, dict):
            raise DatasetError(f"{where}: expected a JSON object")
        instance = parse_instance(normalize_record(data, report.found), where, packs)
        check_unique(instance, where, seen)
        if instance.source is None:
            instance = instance.model_copy(update={"source": f"{path.stem}#{where.rsplit(':', 1)[-1]}"})
        report.instances.append(instance)
    return report
