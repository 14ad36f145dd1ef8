"""Finding and reading pack files: the built-in ones and those in ``VGM_RULESETS_PATH`` folders.

A pack's name is its file name without ``.yaml``. A user pack with the name of a built-in one
replaces it (the folders are searched first, like ``PATH``).
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from pydantic import ValidationError

from ._io import FileProblem, read_yaml
from ._models import PackFile
from ._normalize import raw_key
from ._problems import PackError, UnknownName
from ._ruleset import RuleSet, build

BUILTIN_DIR = Path(__file__).parent / "packs"
ENV_VAR = "VGM_RULESETS_PATH"

_cache: dict[tuple[str, int, int], RuleSet] = {}


def search_dirs() -> list[Path]:
    """Folders searched for packs: those in ``VGM_RULESETS_PATH`` (in order), then the built-ins."""
    dirs = []
    for part in os.environ.get(ENV_VAR, "").split(os.pathsep):
        if not part.strip():
            continue
        d = Path(part).expanduser()
        if not d.is_dir():
            raise PackError(str(d), "", f"{ENV_VAR} names a folder that does not exist",
                            f"create the folder or remove it from {ENV_VAR}")
        dirs.append(d)
    return [*dirs, BUILTIN_DIR]


def pack_files() -> dict[str, Path]:
    """Pack name → file, earlier folders winning."""
    found: dict[str, Path] = {}
    for d in search_dirs():
        for path in sorted([*d.glob("*.yaml"), *d.glob("*.yml")]):
            found.setdefault(path.stem, path)
    return found


def available() -> list[str]:
    """Names of every pack that can be loaded (built-in and user folders), sorted."""
    return sorted(pack_files())


def read_pack(path: Path) -> RuleSet:
    """Parse, validate and index one pack file; every fault becomes a one-line ``PackError``."""
    f = str(path)
    try:
        data = read_yaml(path, what="rule-set pack")
    except FileProblem as problem:  # syntax, a key given twice, encoding, depth: as the one reader says it
        raise PackError(f"{f}:{problem.line}" if problem.line else f, problem.key, problem.problem, problem.fix) from None
    if not isinstance(data, dict):
        raise PackError(f, "", "the file is not a mapping of keys",
                        "start it with `title:`, `kind:` and the pack's sections") from None
    try:
        pack = PackFile.model_validate(data)
    except ValidationError as exc:
        raise _pack_error(f, exc) from None
    return build(pack, path.stem, f)


def _pack_error(f: str, exc: ValidationError) -> PackError:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    key = ".".join(loc)
    kind = err["type"]
    if kind == "missing":
        return PackError(f, key, "required key is missing", f"add `{loc[-1]}:` there")
    if kind == "extra_forbidden":
        return PackError(f, key, "unknown key", "remove it or fix its spelling (see docs/rulesets.md)")
    if kind == "literal_error":
        return PackError(f, key, err["msg"].lower(), "use one of the allowed values")
    got = err.get("input")
    if isinstance(got, bool):
        return PackError(f, key, f"{err['msg']} (YAML read it as {got})",
                         "quote it: YAML reads bare on/off/yes/no as true/false")
    return PackError(f, key, f"{err['msg']} (got {got!r:.40})", "give a value of that type (see docs/rulesets.md)")


def find_pack(name: str) -> Path:
    """The file for a pack name or alias ("D&D 5e", "COC"); ``UnknownName`` lists the packs otherwise."""
    files = pack_files()
    if name in files:
        return files[name]
    key = raw_key(name)
    for stem, path in files.items():
        if raw_key(stem) == key:
            return path
    broken = []
    for stem, path in files.items():
        try:
            aliases = load_path(path).aliases
        except PackError:
            broken.append(path.name)  # a broken pack only fails when asked for by its own name
            continue
        if key in {raw_key(a) for a in aliases}:
            return path
    closest = difflib.get_close_matches(name.casefold(), list(files), n=3, cutoff=0.0)
    unread = f" ({', '.join(broken)} could not be read: see `vgm rulesets list`)" if broken else ""
    raise UnknownName(name, "the installed packs", "rule set", closest,
                      f"use one of {', '.join(sorted(files))} or add a pack to {ENV_VAR}{unread}")


def load_path(path: Path) -> RuleSet:
    """Load a pack file, cached until the file changes."""
    path = Path(path).resolve()
    st = path.stat()
    stamp = (str(path), st.st_mtime_ns, st.st_size)
    if stamp not in _cache:
        _cache[stamp] = read_pack(path)
    return _cache[stamp]


def load(name: str | os.PathLike) -> RuleSet:
    """Load a rule set by name or alias (``load("dnd5e")``, ``load("Call of Cthulhu")``) or by
    the path of a ``.yaml`` file. Cached until the file changes."""
    text = os.fspath(name)
    if text.endswith((".yaml", ".yml")):
        path = Path(text).expanduser()
        if not path.is_file():
            raise PackError(text, "", "no such pack file", "check the path, or give a pack name (`vgm rulesets list`)")
        return load_path(path)
    return load_path(find_pack(text))
