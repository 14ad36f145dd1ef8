"""One reader for the text, YAML, JSON and JSON Lines files a user hands us.

Every way a file can be wrong ends in one ``FileProblem`` whose message is one line naming
the file (and the line, byte or key) and the fix; nothing here raises a traceback a user
would see, and nothing recurses deep enough to hit Python's recursion limit.

    text = read_text("notes.txt", what="profile")
    spec = read_yaml("probes.yaml")
    for record in read_jsonl("predictions.jsonl", Prediction):   # torn tail dropped, warned
        ...
    pack = read_model_file("table.yaml", Table)                  # pydantic errors as one line
"""
from __future__ import annotations

import gzip
import json
import os
import tempfile
import warnings
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ._errors import VgmError

MAX_DEPTH = 100
"""Deepest nesting of lists/objects a data file may have; no real file comes near it."""

M = TypeVar("M", bound=BaseModel)

# (magic bytes, what the file is, how to fix it)
_MAGIC: list[tuple[bytes, str, str]] = [
    (b"\x1f\x8b", "gzip-compressed", "decompress it first (gunzip FILE)"),
    (b"PK\x03\x04", "a zip archive", "unzip it and give the file inside"),
    (b"BZh", "bzip2-compressed", "decompress it first (bunzip2 FILE)"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first (unxz FILE)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it first (unzstd FILE)"),
    (b"SQLite format 3\x00", "an SQLite database", "give the text file, not the database"),
    (b"\x89PNG", "a PNG image", "give a text file"),
    (b"%PDF", "a PDF document", "give a text file"),
    (b"\x7fELF", "a program (ELF binary)", "give a text file"),
]


class FileProblem(VgmError):
    """A file that cannot be used as given. ``str()`` is one line: where, what, and the fix.

    ``path``, ``line`` (1-based or None) and ``key`` (a dotted key path or "") say where.
    """

    def __init__(self, path: str | os.PathLike, problem: str, fix: str, *,
                 line: int | None = None, key: str = "") -> None:
        self.path, self.line, self.key, self.problem, self.fix = str(path), line, key, problem, fix
        where = self.path + (f":{line}" if line else "")
        if key:
            where += f": key '{key}'"
        super().__init__(_one_line(f"{where}: {problem}; fix: {fix}"))


class TornTail(UserWarning):
    """A JSON Lines file whose last line was cut off (a write interrupted by a crash or a kill).

    The record is dropped; the warning's message names the file and line.
    """


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _short(value: Any, n: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------- bytes → text

def _check_path(path: Path, what: str) -> None:
    try:
        if path.is_dir():
            raise FileProblem(path, f"is a folder, not a {what}", f"give the path of the {what} itself")
        if not path.exists():
            raise FileProblem(path, f"no such {what}", "check the path (and the current folder)")
    except OSError as exc:  # a name too long, a loop of links, ...
        raise FileProblem(path, f"cannot open this {what} ({exc.strerror or exc.__class__.__name__})",
                          "check the path") from None


def _read_bytes(path: Path, what: str) -> bytes:
    _check_path(path, what)
    try:
        data = path.read_bytes()
    except PermissionError:
        raise FileProblem(path, f"no permission to read this {what}", "check its permissions (chmod u+r)") from None
    except OSError as exc:
        raise FileProblem(path, f"cannot read this {what} ({exc.strerror or exc.__class__.__name__})",
                          "check the path and the disk") from None
    if path.suffix == ".gz" and data[:2] == b"\x1f\x8b":
        data = _gunzip(path, data, what)
    return data


def _gunzip(path: Path, data: bytes, what: str) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise FileProblem(path, f"is a damaged or truncated gzip {what} ({_one_line(str(exc)) or 'unexpected end'})",
                          "re-copy or re-compress the file") from None


def _refuse_binary(path: Path, head: bytes, what: str) -> None:
    for magic, kind, fix in _MAGIC:
        if head.startswith(magic):
            raise FileProblem(path, f"is {kind}, not a text {what}", fix)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FileProblem(path, "is UTF-16 text, not UTF-8", "save it as UTF-8 (iconv -f UTF-16 -t UTF-8)")
    if b"\x00" in head[:8192]:
        raise FileProblem(path, f"is a binary file, not a text {what}", f"give a UTF-8 text {what}")


def _decode(path: Path, data: bytes, free_text: bool, base_line: int = 1, base_offset: int = 0) -> str:
    if free_text:
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = base_line + data.count(b"\n", 0, exc.start)
        raise FileProblem(path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {base_offset + exc.start})",
                          "save the file as UTF-8", line=line) from None


def read_text(path: str | os.PathLike, *, what: str = "file", free_text: bool = False) -> str:
    """The text of a UTF-8 file (a leading BOM dropped; ``*.gz`` files decompressed).

    Args:
        path: the file.
        what: what the file is, in the user's words ("probe file", "dataset"), for messages.
        free_text: decode bytes that are not UTF-8 as U+FFFD instead of refusing the file —
            for prose (prompts, utterances) where one bad byte should not lose the rest.

    Raises:
        FileProblem: missing, a folder, unreadable, compressed/binary, or (unless
            ``free_text``) not UTF-8 — naming the line and byte offset.
    """
    p = Path(path)
    data = _read_bytes(p, what)
    _refuse_binary(p, data[:8192], what)
    return _decode(p, data, free_text)


# ---------------------------------------------------------------- depth

def depth(value: Any) -> int:
    """How deeply lists/dicts nest in ``value`` (a scalar is 0), without recursion.

    Shared sub-objects (YAML anchors) are measured once; a structure that contains itself
    counts as infinitely deep.
    """
    heights: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (list, dict)):
            continue
        key = id(node)
        children = [c for c in (node.values() if isinstance(node, dict) else node) if isinstance(c, (list, dict))]
        if done:
            on_path.discard(key)
            heights[key] = 1 + max((heights[id(c)] for c in children), default=0)
            continue
        if key in heights:
            continue
        if key in on_path:
            return 1 << 30
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                return 1 << 30
            if id(child) not in heights:
                stack.append((child, False))
    return heights.get(id(value), 0)


def _bound_depth(path: Path, value: Any, line: int | None = None) -> Any:
    if depth(value) > MAX_DEPTH:
        raise FileProblem(path, f"nests lists/objects more than {MAX_DEPTH} deep (or refers to itself)",
                          "flatten the data; no file of ours needs that depth", line=line)
    return value


# ---------------------------------------------------------------- JSON

def _json_problem(path: Path, exc: json.JSONDecodeError, line_offset: int = 0) -> FileProblem:
    return FileProblem(path, f"malformed JSON ({exc.msg}, column {exc.colno})",
                       "fix the JSON there (quotes, commas, brackets)", line=exc.lineno + line_offset)


def _loads(path: Path, text: str, line: int | None = None) -> Any:
    """json.loads with every failure as a FileProblem; ``line`` is the JSONL line, if any."""
    if text.count("[") + text.count("{") > MAX_DEPTH:  # cheap test first: only then may it nest deep
        try:
            value = json.loads(text)
        except RecursionError:
            raise FileProblem(path, f"nests lists/objects more than {MAX_DEPTH} deep",
                              "flatten the data", line=line) from None
        except json.JSONDecodeError as exc:
            raise _json_problem(path, exc, (line or 1) - 1) from None
        except ValueError as exc:  # e.g. an integer with more digits than Python accepts
            raise FileProblem(path, f"unreadable JSON value ({_one_line(str(exc))[:80]})",
                              "fix the value there", line=line) from None
        return _bound_depth(path, value, line)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _json_problem(path, exc, (line or 1) - 1) from None
    except ValueError as exc:
        raise FileProblem(path, f"unreadable JSON value ({_one_line(str(exc))[:80]})",
                          "fix the value there", line=line) from None


def read_json(path: str | os.PathLike, *, what: str = "JSON file") -> Any:
    """The parsed contents of a JSON file; every fault (syntax, depth, encoding) a ``FileProblem``."""
    p = Path(path)
    text = read_text(p, what=what)
    if not text.strip():
        raise FileProblem(p, "is empty", f"give a {what} with content (or delete it)")
    return _loads(p, text)


# ---------------------------------------------------------------- YAML

class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (YAML would silently keep the last)."""


class _DuplicateKey(Exception):
    def __init__(self, key: Any, line: int, first: int) -> None:
        self.key, self.line, self.first = key, line, first


def _no_duplicates(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            if key in seen:
                raise _DuplicateKey(key, key_node.start_mark.line + 1, seen[key])
            seen[key] = key_node.start_mark.line + 1
        except TypeError:  # an unhashable key: let PyYAML say so
            break
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def _yaml_problem(path: Path, exc: yaml.YAMLError) -> FileProblem:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["unreadable"])[0]
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None and mark is not None and start.line != mark.line:
        problem += f", {context} that starts on line {start.line + 1}"
    return FileProblem(path, f"malformed YAML ({problem})",
                       "fix the indentation, brackets or quoting there (quote text containing ': ' or ' #')",
                       line=mark.line + 1 if mark else None)


def read_yaml(path: str | os.PathLike, *, what: str = "YAML file") -> Any:
    """The parsed contents of a YAML file (``None`` when it is empty).

    Keys given twice in one mapping, syntax errors, tags we do not load, deep nesting and
    bad encodings are each one ``FileProblem`` naming the file and line.
    """
    p = Path(path)
    return parse_yaml(read_text(p, what=what), p)


def parse_yaml(text: str, path: str | os.PathLike) -> Any:
    """``read_yaml`` for text already read (``read_text``), when the caller needs the text too
    (say, to point an error at a line with ``yaml_line``); ``path`` is named in the problems."""
    p = Path(path)
    try:
        value = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as dup:
        raise FileProblem(p, f"key {_short(dup.key)} is given twice (first on line {dup.first})",
                          "keep one entry per key; merge the two", line=dup.line) from None
    except RecursionError:
        raise FileProblem(p, f"nests lists/mappings more than {MAX_DEPTH} deep",
                          "flatten the data") from None
    except yaml.YAMLError as exc:
        raise _yaml_problem(p, exc) from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a timestamp out of range
        raise FileProblem(p, f"unreadable YAML value ({_one_line(str(exc))[:80]})",
                          "quote the value to keep it as text") from None
    return _bound_depth(p, value)


def yaml_line(text: str, loc: tuple | list) -> int | None:
    """The 1-based line of a key path (``("monsters", "goblin", "hp")``) in a YAML text, or None.

    For pointing a validation error at its line; the deepest key found is used when the path
    runs out early, and text that is not YAML gives None.
    """
    try:
        node = yaml.compose(text)
    except (yaml.YAMLError, RecursionError):
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    line, node = key.start_mark.line + 1, value
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


# ---------------------------------------------------------------- pydantic

_FIXES = {
    "missing": "add it",
    "extra_forbidden": "remove it or fix its spelling",
    "bool_type": "give true or false",
    "int_type": "give a whole number",
    "int_parsing": "give a whole number",
    "float_type": "give a number",
    "float_parsing": "give a number",
    "string_type": "give text (quote it)",
    "list_type": "give a list",
    "dict_type": "give a mapping of keys",
    "model_type": "give a mapping of keys",
    "literal_error": "use one of the allowed values",
    "enum": "use one of the allowed values",
}


def validation_problem(path: str | os.PathLike, exc: ValidationError, *, line: int | None = None,
                       fix: str = "") -> FileProblem:
    """A pydantic ``ValidationError`` as one ``FileProblem``: file, key path, message and fix.

    Only the first error is spelt out; the count of the others follows it.
    """
    errors = exc.errors()
    if not errors:
        return FileProblem(path, "does not validate", fix or "check the file against its documentation", line=line)
    err = errors[0]
    key = ".".join(str(p) for p in err.get("loc", ()))
    kind = err.get("type", "")
    message = err.get("msg", "invalid").lower() if kind in ("missing", "extra_forbidden") else err.get("msg", "invalid")
    got = err.get("input")
    if kind not in ("missing",) and not isinstance(got, (dict, list)):
        message += f" (got {_short(got)})"
    if isinstance(got, bool) and kind in ("int_type", "int_parsing", "float_type", "float_parsing"):
        message += "; true/false is not a number"
    more = len(errors) - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return FileProblem(path, message, fix or _FIXES.get(kind, "give a value of the expected type (see the docs)"),
                       line=line, key=key)


def read_model_file(path: str | os.PathLike, model: type[M], *, what: str = "") -> M:
    """A YAML or JSON file (by suffix; YAML otherwise) validated as ``model``.

    Raises:
        FileProblem: a read or syntax fault, an empty file, or the first validation error as
            one line (file, key path, message, fix).
    """
    p = Path(path)
    what = what or f"{model.__name__} file"
    data = read_json(p, what=what) if p.suffix.lower() == ".json" else read_yaml(p, what=what)
    if data is None:
        raise FileProblem(p, "is empty", f"give a {what} with content")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(p, exc) from None
    except RecursionError:
        raise FileProblem(p, "nests too deeply to validate", "flatten the data") from None


# ---------------------------------------------------------------- JSON Lines

class JsonlReader:
    """An iterable over the records of a JSON Lines file (see ``read_jsonl``).

    After iterating, ``torn`` is the line number of a dropped torn last line (or None) and
    ``good_bytes`` the byte offset just past the last complete line — where an appender
    should truncate to before it writes on.
    """

    def __init__(self, path: Path, model: type[BaseModel] | None, on_torn: str | Callable[[str], Any],
                 what: str, on_bad: str = "error") -> None:
        if not (callable(on_torn) or on_torn in ("drop", "error", "ignore")):
            raise ValueError(f"on_torn must be 'drop', 'error', 'ignore' or a callable, not {on_torn!r}")
        if on_bad not in ("error", "skip"):
            raise ValueError(f"on_bad must be 'error' or 'skip', not {on_bad!r}")
        self.path, self.model, self.on_torn, self.what, self.on_bad = path, model, on_torn, what, on_bad
        self.torn: int | None = None
        self.skipped: list[int] = []
        self.good_bytes = 0
        _check_path(path, what)

    def __iter__(self) -> Iterator[Any]:
        for _, record in self.numbered():
            yield record

    def numbered(self) -> Iterator[tuple[int, Any]]:
        """(line number, record) pairs; blank lines are skipped."""
        p = self.path
        self.torn, self.good_bytes, self.skipped = None, 0, []
        try:
            raw = gzip.open(p, "rb") if p.suffix == ".gz" and _head(p, 2) == b"\x1f\x8b" else p.open("rb")
        except PermissionError:
            raise FileProblem(p, f"no permission to read this {self.what}", "check its permissions") from None
        except OSError as exc:
            raise FileProblem(p, f"cannot read this {self.what} ({exc.strerror or exc.__class__.__name__})",
                              "check the path") from None
        offset = 0
        with raw as fh:
            try:
                first = True
                for number, line in enumerate(fh, 1):  # split on b"\n" only, never on U+2028
                    if first:
                        _refuse_binary(p, line[:8192], self.what)
                        first = False
                    complete = line.endswith(b"\n")
                    start, offset = offset, offset + len(line)
                    try:
                        record = self._parse(line, number, start)
                    except FileProblem as problem:
                        if not complete:
                            self._torn(number, problem)
                            return
                        if self.on_bad == "error" or problem.line is None:
                            raise
                        self.skipped.append(number)
                        self.good_bytes = offset
                        continue
                    if complete or record is not None:
                        self.good_bytes = offset
                    if record is not None:
                        yield number, record
            except (OSError, EOFError, zlib.error) as exc:
                raise FileProblem(p, f"is a damaged or truncated gzip {self.what} ({_one_line(str(exc))})",
                                  "re-copy or re-compress the file") from None

    def _parse(self, line: bytes, number: int, start: int) -> Any:
        text = _decode(self.path, line, False, number, start).rstrip("\r\n")
        if not text.strip():
            return None
        value = _loads(self.path, text, number)
        if not isinstance(value, dict):
            raise FileProblem(self.path, f"line is not a JSON object (got {type(value).__name__})",
                              "give one {...} object per line", line=number)
        if self.model is None:
            return value
        try:
            return self.model.model_validate(value)
        except ValidationError as exc:
            raise validation_problem(self.path, exc, line=number) from None
        except RecursionError:
            raise FileProblem(self.path, "nests too deeply to validate", "flatten the data", line=number) from None

    def _torn(self, number: int, problem: FileProblem) -> None:
        self.torn = number
        if self.on_torn == "error":
            raise FileProblem(self.path, f"the last line is cut off ({problem.problem})",
                              "an interrupted write? delete that line", line=number)
        message = f"{self.path}:{number}: the last line is cut off (an interrupted write?); skipped it"
        if callable(self.on_torn):
            self.on_torn(message)
        elif self.on_torn == "drop":
            warnings.warn(message, TornTail, stacklevel=4)


def _head(path: Path, n: int) -> bytes:
    with path.open("rb") as fh:
        return fh.read(n)


def read_jsonl(path: str | os.PathLike, model: type[BaseModel] | None = None, *,
               on_torn: str | Callable[[str], Any] = "drop", what: str = "JSON Lines file",
               on_bad: str = "error") -> JsonlReader:
    """The records of a JSON Lines file, one per non-blank line, read as they are iterated.

    Args:
        path: the file (``*.gz`` is decompressed).
        model: validate each record as this pydantic model (records are then model instances).
        on_torn: what to do with a last line that was cut off mid-write (no newline and not
            parseable, including a cut inside a multi-byte character): ``"drop"`` skips it with
            a ``TornTail`` warning, ``"ignore"`` skips it silently, ``"error"`` raises, a
            callable is given the one-line message and the line is skipped.
        what: what the file is, for messages.
        on_bad: ``"error"`` (the default) or ``"skip"``: skip bad complete lines too, their
            numbers kept in ``reader.skipped`` — only for logs many processes append to,
            where a crash can leave a cut line in the middle.

    Raises:
        FileProblem: at the call for a missing file or folder; while iterating for a bad line
            anywhere but the torn tail (naming file:line), a non-object line, or a record the
            model rejects.
    """
    return JsonlReader(Path(path), model, on_torn, what, on_bad)


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over: a reader (or a
    kill) sees the old file or the new one, never half; two writers never share a temp file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
