"""Rule-set packs as data (dnd5e, coc7e, pf2e, swade, avalon, mafia) and name resolution.

    import rulesets
    rs = rulesets.load("dnd5e")            # or "D&D 5e", "COC", "PF2", "SW", "Call of Cthulhu"
    rs.resolve("Wisdom (Perception)")     # -> "perception"
    rulesets.load("avalon").resolve_role("梅林")  # -> "merlin"
"""
from ._errors import VgmError
from ._io import (FileProblem, JsonlReader, TornTail, parse_yaml, read_json, read_jsonl, read_model_file, read_text,
                  read_yaml, validation_problem, write_atomic, yaml_line)
from ._loader import BUILTIN_DIR, ENV_VAR, available, find_pack, load, load_path, search_dirs
from ._models import AbilityDef, CheckDef, FamilyDef, PackFile, RoleDef, SetupDef
from ._normalize import loose_key, raw_key
from ._problems import PackError, UnknownName
from ._report import describe, describe_ruleset, lineup_text, pack_summaries, resolve_report
from ._ruleset import RuleSet

__all__ = [
    "VgmError", "PackError", "UnknownName",
    "available", "load", "load_path", "find_pack", "search_dirs", "BUILTIN_DIR", "ENV_VAR",
    "RuleSet", "CheckDef", "AbilityDef", "FamilyDef", "RoleDef", "SetupDef", "PackFile",
    "raw_key", "loose_key",
    "pack_summaries", "describe", "describe_ruleset", "lineup_text", "resolve_report",
    "FileProblem", "TornTail", "JsonlReader", "write_atomic", "read_text", "read_json", "read_yaml", "read_jsonl",
    "read_model_file", "validation_problem", "yaml_line", "parse_yaml",
]
