"""Plain-data summaries of packs for listings (``vgm rulesets list/show``) and scripts (``--json``)."""
from __future__ import annotations

from collections import Counter

from ._loader import BUILTIN_DIR, load, load_path, pack_files
from ._problems import PackError
from ._ruleset import RuleSet


def pack_summaries() -> list[dict]:
    """One row per pack file found: name, title, kind, size, source; a broken pack carries ``error``."""
    rows = []
    for name, path in sorted(pack_files().items()):
        row = {"name": name, "title": "", "kind": "", "checks": 0, "roles": 0,
               "builtin": path.parent.resolve() == BUILTIN_DIR.resolve(), "source": str(path), "error": ""}
        try:
            rs = load_path(path)
        except PackError as exc:
            row["error"] = str(exc)
        else:
            row.update(title=rs.title, kind=rs.kind, checks=len(rs.checks), roles=len(rs.roles))
        rows.append(row)
    return rows


def describe(name: str) -> dict:
    """Everything in one pack as plain data (ids, names, Chinese names, aliases, setups, rules)."""
    rs = load(name)
    return describe_ruleset(rs)


def describe_ruleset(rs: RuleSet) -> dict:
    """``describe`` for an already loaded rule set."""
    out: dict = {"name": rs.name, "title": rs.title, "kind": rs.kind, "description": rs.description,
                 "aliases": rs.aliases, "source": rs.source}
    if rs.kind == "trpg":
        out["ability_word"] = rs.ability_word
        out["abilities"] = [a.model_dump() for a in rs.ability_defs.values()]
        out["checks"] = [c.model_dump() for c in rs.checks.values()]
        out["families"] = [{"id": f"{fid}:<topic>", **f.model_dump()} for fid, f in rs.families.items()]
    else:
        out["teams"] = rs.teams
        out["team_aliases"] = rs.team_aliases
        out["roles"] = [r.model_dump() for r in rs.roles.values()]
        out["setups"] = [s.model_dump() for _, s in sorted(rs.setups.items())]
    out["rules"] = rs.rules
    return out


def lineup_text(lineup: list[str]) -> str:
    """"merlin, percival, 2× loyal_servant, ..." in first-seen order."""
    counts = Counter(lineup)
    return ", ".join(f"{n}× {r}" if n > 1 else r for r, n in counts.items())


def resolve_report(pack: str, text: str) -> dict:
    """Resolve ``text`` in ``pack``: ``{"pack", "text", "id", "name"}``; raises ``UnknownName``."""
    rs = load(pack)
    ident = rs.resolve(text)
    name = rs.roles[ident].name if rs.kind == "social" else rs.check(ident).name
    return {"pack": rs.name, "text": text, "id": ident, "name": name}
