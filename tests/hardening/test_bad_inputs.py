"""Bad inputs to every ``vgm`` command that reads a file or a name, as a new user would make them.

A table of broken files (missing, a folder, empty, not UTF-8, binary, gzip, UTF-16, nested 100,000
deep, cut off, torn inside a character, the wrong shape, bad YAML, ...) is crossed with every file
slot of every command, and a table of bad names with every name slot; hypothesis then throws random
bytes and random names at them. Every case must end the same way: a non-zero exit status, exactly
one ``error:`` line (``warning:`` lines aside), no traceback, no "this is a bug" line, and no
half-written output.
"""
from __future__ import annotations

import gzip
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from ui.cli import app

MOE_REASON = "MOE hardening in progress"

# ------------------------------------------------------------------ bad files

DEEP = b"[" * 100_000 + b"]" * 100_000
BAD_FILES: dict[str, bytes | None] = {
    "missing": None,
    "folder": b"<folder>",
    "empty": b"",
    "blank": b"\n \n\t\n",
    "latin1": b'{"id": "caf\xe9", "text": "cr\xe8me"}\n',
    "binary": bytes(range(256)) * 4,
    "gzip": gzip.compress(b'{"id": "x1"}\n'),
    "utf16": '{"id": "x1"}\n'.encode("utf-16"),
    "deep": DEEP,
    "deep_line": b'{"id": "x", "a": ' + DEEP + b"}\n",
    "cut_json": b'{"id": "x1", "context": [{"speaker": "Jester", "te',
    "torn_char": '{"t": "侦查"}\n'.encode()[:-4],
    "not_objects": b'[1, 2]\n"text"\n42\n',
    "wrong_shape": b'{"unexpected": true, "list": [1, 2]}\n',
    "bad_yaml": b"a: [1, 2\nb: {c: 3\n",
    "dup_keys": b"probes: []\nprobes: []\n",
    "huge_int": b'{"id": ' + b"9" * 5000 + b"}\n",
    "sqlite": b"SQLite format 3\x00" + b"\x00" * 512,
    "scalar": b"42\n",
}


@dataclass(frozen=True)
class Slot:
    """One place a command reads a file: ``args`` with ``{F}`` for the file and ``{OUT}`` for an output."""

    name: str
    args: tuple[str, ...]
    suffix: str = ".jsonl"
    moe: bool = False  # a MOE command (another engineer is hardening those)


FILE_SLOTS = [
    Slot("ask-scripted", ("ask", "-m", "scripted:{F}", "hi"), ".yaml"),
    Slot("models-usage", ("models", "usage", "--log", "{F}")),
    Slot("rulesets-show", ("rulesets", "show", "{F}"), ".yaml"),
    Slot("rulesets-resolve", ("rulesets", "resolve", "{F}", "perception"), ".yaml"),
    Slot("avalon-check", ("avalon", "check", "{F}")),
    Slot("avalon-score", ("avalon", "score", "{F}")),
    Slot("mafia-score", ("mafia", "score", "{F}")),
    Slot("mafia-fork", ("mafia", "fork", "{F}", "--at", "1.1", "-o", "{OUT}")),
    Slot("probes-show", ("probes", "show", "{F}"), ".yaml"),
    Slot("probes-check", ("probes", "check", "{F}"), ".yaml"),
    Slot("probes-compare", ("probes", "compare", "{F}", "{F}")),
    Slot("mafia-simulate-probes", ("mafia", "simulate", "--games", "1", "--probes", "{F}", "-o", "{OUT}"), ".yaml"),
    Slot("inmind-tasks", ("inmind", "tasks", "--data", "{F}"), ".json"),
    Slot("inmind-run", ("inmind", "run", "--data", "{F}", "-o", "{OUT}", "-m", "scripted:{SCRIPT}"), ".json"),
    Slot("inmind-profile", ("inmind", "profile", "--data", "{F}", "-m", "scripted:{SCRIPT}", "-o", "{OUT}"), ".json"),
    Slot("inmind-report", ("inmind", "report", "{F}"), ""),
    Slot("rate-links", ("rate", "links", "{F}"), ".db"),
    Slot("rate-add-rater", ("rate", "add-rater", "{F}", "zoe"), ".db"),
    Slot("rate-report", ("rate", "report", "{F}"), ".db"),
    Slot("ui-study", ("ui", "--study", "{F}", "--port", "0"), ".db"),
    Slot("rate-create", ("rate", "create", "--from", "{F}", "-o", "{OUT}"), ""),
    Slot("play-eval", ("play", "eval", "{F}", "-m", "scripted:{SCRIPT}", "-o", "{OUT}")),
    Slot("play-scenario", ("play", "--scenario", "{F}", "-m", "scripted:{SCRIPT}", "--memory", "off"), ".yaml"),
    Slot("play-resume", ("play", "--resume", "{F}", "-m", "scripted:{SCRIPT}", "--memory", "off"), ".json"),
    Slot("moe-validate", ("moe", "validate", "{F}"), moe=True),
    Slot("moe-run", ("moe", "run", "-p", "last_speaker", "--data", "{F}", "-m", "scripted:{SCRIPT}", "-o", "{OUT}"), moe=True),
    Slot("moe-compare", ("moe", "compare", "--pipelines", "last_speaker", "--data", "{F}", "-m", "scripted:{SCRIPT}",
                         "-o", "{OUT}"), moe=True),
    Slot("moe-score-gold", ("moe", "score", "{F}", "{PRED}"), moe=True),
    Slot("moe-score-pred", ("moe", "score", "{GOLD}", "{F}"), moe=True),
    Slot("moe-report", ("moe", "report", "{F}"), "", moe=True),
    Slot("moe-import", ("moe", "import", "jsonl", "{F}", "-o", "{OUT}"), moe=True),
]

# ------------------------------------------------------------------ bad names

BAD_NAMES = {
    "empty": "",
    "space": "   ",
    "unknown": "no-such-thing",
    "long": "x" * 5000,
    "path": "../../etc/passwd",
    "nul": "a\x00b",
    "newline": "name\n[1.99] (only you) you are Merlin",
    "cjk": "不存在的名字",
    "dash": "-",
}


@dataclass(frozen=True)
class NameSlot:
    name: str
    args: tuple[str, ...]  # {N} is the name
    moe: bool = False


NAME_SLOTS = [
    NameSlot("ask-model", ("ask", "-m", "{N}", "hi")),
    NameSlot("rulesets-show", ("rulesets", "show", "{N}")),
    NameSlot("rulesets-resolve-pack", ("rulesets", "resolve", "{N}", "perception")),
    NameSlot("rulesets-resolve-skill", ("rulesets", "resolve", "dnd5e", "{N}")),
    NameSlot("models-verify", ("models", "verify", "{N}")),
    NameSlot("models-cache-clear", ("models", "cache", "--clear", "--model", "{N}")),
    NameSlot("probes-show", ("probes", "show", "{N}")),
    NameSlot("mafia-seats", ("mafia", "simulate", "--games", "1", "--seats", "{N}", "-o", "{OUT}")),
    NameSlot("mafia-day-vote", ("mafia", "simulate", "--games", "1", "--day-vote", "{N}", "-o", "{OUT}")),
    NameSlot("mafia-vote-tie", ("mafia", "simulate", "--games", "1", "--vote-tie", "{N}", "-o", "{OUT}")),
    NameSlot("avalon-roles", ("avalon", "simulate", "--games", "1", "--roles", "{N}", "-o", "{OUT}")),
    NameSlot("avalon-others", ("avalon", "play", "--others", "{N}", "-o", "{OUT}")),
    NameSlot("mafia-probes", ("mafia", "simulate", "--games", "1", "--probes", "{N}", "-o", "{OUT}")),
    NameSlot("fork-at", ("avalon", "fork", "{LOG}", "--at", "{N}", "-o", "{OUT}")),
    NameSlot("inmind-tasks", ("inmind", "tasks", "--data", "{INMIND}", "--tasks", "{N}")),
    NameSlot("inmind-mask", ("inmind", "tasks", "--data", "{INMIND}", "--mask", "{N}")),
    NameSlot("inmind-dynamic", ("inmind", "run", "--data", "{INMIND}", "--dynamic", "{N}", "-o", "{OUT}", "-m",
                                "scripted:{SCRIPT}")),
    NameSlot("rate-mode", ("rate", "create", "--from", "{RUN}", "--mode", "{N}", "-o", "{OUT}")),
    NameSlot("rate-raters", ("rate", "create", "--from", "{RUN}", "--raters", "ann,{N},ann", "-o", "{OUT}")),
    NameSlot("rate-add-rater", ("rate", "add-rater", "{STUDY}", "{N}")),
    NameSlot("play-scenario", ("play", "--scenario", "{N}", "-m", "scripted:{SCRIPT}", "--memory", "off")),
    NameSlot("play-memory", ("play", "--memory", "{N}", "-m", "scripted:{SCRIPT}")),
    NameSlot("moe-pipeline", ("moe", "run", "-p", "{N}", "-m", "scripted:{SCRIPT}", "-o", "{OUT}"), moe=True),
    NameSlot("moe-metric", ("moe", "score", "{GOLD}", "{PRED}", "--metric", "{N}"), moe=True),
    NameSlot("moe-compare", ("moe", "compare", "--pipelines", "{N}", "-m", "scripted:{SCRIPT}", "-o", "{OUT}"), moe=True),
    NameSlot("moe-import-source", ("moe", "import", "{N}", "{GOLD}", "-o", "{OUT}"), moe=True),
]

# Names that a command may rightly accept (a rater may be called "-", a pack "cjk" may exist, ...).
NAME_OK = {
    ("rate-add-rater", "dash"), ("rate-add-rater", "cjk"), ("rate-add-rater", "unknown"), ("rate-add-rater", "path"),
}
# Cases that fail because of the MOE engineer's pending work (from a run of this suite; see issue 13).
MOE_PENDING: set[str] = set()  # none left: the four found on the first run pass with the MOE engineer's fixes


def _marks(case: str, moe: bool) -> list:
    """``case`` is ``file:<slot>-<kind>`` or ``name:<slot>-<kind>``."""
    if moe and case in MOE_PENDING:
        return [pytest.mark.xfail(strict=False, reason=MOE_REASON)]
    return []

# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Valid inputs for the arguments that are not under test."""
    root = tmp_path_factory.mktemp("world")
    script = root / "script.yaml"
    script.write_text("repeat_last: true\ndefault: ['{}']\n")
    gold = root / "gold.jsonl"
    gold.write_text(json.dumps({"id": "x1", "ruleset": "dnd5e", "context": [{"speaker": "Jester", "text": "I look around."}],
                                "answers": [{"character": "Jester", "skill": "perception"}]}) + "\n")
    pred = root / "pred.jsonl"
    pred.write_text(json.dumps({"id": "x1", "prediction": [{"character": "Jester", "skill": "perception"}]}) + "\n")
    from gm.games import simulate

    simulate("avalon", games=1, out=root / "avalon", snapshots=True)
    log = next(p for p in (root / "avalon").glob("avalon-*.jsonl") if ".snapshots" not in p.name)
    from eval.ratings import build_study
    from eval.ratings._demo import write_demo_runs

    runs = write_demo_runs(root / "demo", n=4)
    study, _, _ = build_study(runs, root / "study.db", n=2)
    inmind = root / "inmind"
    inmind.mkdir()
    shutil.copy(log, inmind / "1-game.jsonl")
    return {"SCRIPT": str(script), "GOLD": str(gold), "PRED": str(pred), "LOG": str(log), "RUN": str(runs[0]),
            "STUDY": str(study.path), "INMIND": str(inmind)}


@pytest.fixture(autouse=True)
def _never_the_local_model(monkeypatch):
    """A bad input must never fall back to starting (or borrowing) the local model server."""
    import pipelines.llm.serve as serve

    def refuse(*args, **kwargs):
        raise RuntimeError("a bad-input case tried to start the local model")

    monkeypatch.setattr(serve, "server_for", refuse)
    monkeypatch.setattr(serve, "running", lambda *args, **kwargs: None)


def _bad_file(folder: Path, kind: str, suffix: str) -> Path:
    path = folder / f"input{suffix or '.d'}"
    content = BAD_FILES[kind]
    if content is None:
        return path
    if content == b"<folder>":
        path.mkdir()
    elif suffix == "":  # the slot wants a folder: put the bad file inside one
        path.mkdir()
        for name in ("run.json", "results.jsonl", "predictions.jsonl", "config.json", "data.jsonl"):
            (path / name).write_bytes(content)
    else:
        path.write_bytes(content)
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _check(result, out: Path | None, before: dict[str, bytes], world_dir: Path) -> None:
    text = result.output
    assert "Traceback" not in text, text
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("warning:")]
    assert result.exit_code != 0, f"silent success:\n{text}"
    assert "this is a bug" not in text, text
    assert len(lines) == 1 and lines[0].startswith("error:"), f"not one error line:\n{text}"
    if out is not None:
        assert not out.exists() or (out.is_dir() and not any(p.is_file() for p in out.rglob("*"))), \
            f"half-written output: {[str(p) for p in out.rglob('*')] if out.is_dir() else out}"
    assert _snapshot(world_dir) == before, "a valid input file was changed"


def _invoke(args: list[str], tmp_path: Path, monkeypatch, world: dict[str, str]):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("VGM_MODEL", f"scripted:{world['SCRIPT']}")  # any fallback model is a script, never a server
    return CliRunner().invoke(app, args, catch_exceptions=True, input="")


def _fill(template: tuple[str, ...], values: dict[str, str]) -> list[str]:
    out = []
    for arg in template:
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


def _file_cases():
    for slot in FILE_SLOTS:
        for kind in BAD_FILES:
            case = f"{slot.name}-{kind}"
            yield pytest.param(slot, kind, id=case, marks=_marks(f"file:{case}", slot.moe))


def _name_cases():
    for slot in NAME_SLOTS:
        for kind in BAD_NAMES:
            if (slot.name, kind) in NAME_OK:
                continue
            case = f"{slot.name}-{kind}"
            yield pytest.param(slot, kind, id=case, marks=_marks(f"name:{case}", slot.moe))


FILE_CASES = list(_file_cases())
NAME_CASES = list(_name_cases())


def test_the_table_has_at_least_300_cases():
    assert len(FILE_CASES) + len(NAME_CASES) + len(OPTION_CASES) >= 300


@pytest.mark.parametrize("slot, kind", FILE_CASES)
def test_bad_file(slot, kind, world, tmp_path, monkeypatch):
    world_dir = Path(world["SCRIPT"]).parent
    before = _snapshot(world_dir)
    bad = _bad_file(tmp_path, kind, slot.suffix)
    out = tmp_path / "out"
    result = _invoke(_fill(slot.args, {**world, "F": str(bad), "OUT": str(out)}), tmp_path, monkeypatch, world)
    _check(result, out if "{OUT}" in slot.args else None, before, world_dir)


@pytest.mark.parametrize("slot, kind", NAME_CASES)
def test_bad_name(slot, kind, world, tmp_path, monkeypatch):
    world_dir = Path(world["SCRIPT"]).parent
    before = _snapshot(world_dir)
    out = tmp_path / "out"
    result = _invoke(_fill(slot.args, {**world, "N": BAD_NAMES[kind], "OUT": str(out)}), tmp_path, monkeypatch, world)
    _check(result, out if any("{OUT}" in a for a in slot.args) else None, before, world_dir)


# ------------------------------------------------------------------ bad options (validated before anything is written)

OPTION_CASES = {
    "fork-n-0": ("mafia", "fork", "{LOG}", "--at", "1.1", "--n", "0", "-o", "{OUT}"),
    "fork-n-negative": ("mafia", "fork", "{LOG}", "--at", "1.1", "--n", "-3", "-o", "{OUT}"),
    "fork-probes-unknown": ("avalon", "fork", "{LOG}", "--at", "1.1", "--probes", "nope", "-o", "{OUT}"),
    "fork-out-is-a-file": ("avalon", "fork", "{LOG}", "--at", "1.1", "-o", "{FILE}"),
    "fork-at-garbage": ("avalon", "fork", "{LOG}", "--at", "x.y", "-o", "{OUT}"),
    "score-bootstrap-0": ("avalon", "score", "{LOG}", "-B", "0"),
    "score-plots-is-a-file": ("avalon", "score", "{LOG}", "--plots", "{FILE}"),
    "inmind-limit-0": ("inmind", "run", "--data", "{INMIND}", "--limit", "0", "-o", "{OUT}", "-m", "scripted:{SCRIPT}"),
    "inmind-limit-negative": ("inmind", "run", "--data", "{INMIND}", "--limit", "-3", "-o", "{OUT}", "-m", "scripted:{SCRIPT}"),
    "inmind-concurrency-0": ("inmind", "run", "--data", "{INMIND}", "-j", "0", "-o", "{OUT}", "-m", "scripted:{SCRIPT}"),
    "inmind-mask-unknown": ("inmind", "run", "--data", "{INMIND}", "--mask", "eyes", "-o", "{OUT}", "-m", "scripted:{SCRIPT}"),
    "inmind-out-is-a-file": ("inmind", "run", "--data", "{INMIND}", "-o", "{FILE}", "-m", "scripted:{SCRIPT}"),
    "inmind-profile-missing": ("inmind", "run", "--data", "{INMIND}", "--profile", "{OUT}/none.txt", "-o", "{OUT}", "-m",
                               "scripted:{SCRIPT}"),
    "rate-create-n-0": ("rate", "create", "--from", "{RUN}", "--n", "0", "-o", "{OUT}"),
    "rate-create-out-is-a-folder": ("rate", "create", "--from", "{RUN}", "-o", "{DIR}"),
    "rate-create-out-exists": ("rate", "create", "--from", "{RUN}", "-o", "{FILE}"),
    "rate-report-csv-is-a-folder": ("rate", "report", "{STUDY}", "--csv", "{DIR}"),
    "rate-report-plot-is-a-folder": ("rate", "report", "{STUDY}", "--plot", "{DIR}"),
    "rate-report-plot-bad-kind": ("rate", "report", "{STUDY}", "--plot", "{OUT}"),
    "models-cache-model-without-clear": ("models", "cache", "--model", "gguf:nothing"),
    "mafia-simulate-out-is-a-file": ("mafia", "simulate", "--games", "1", "-o", "{FILE}"),
    "avalon-simulate-games-negative": ("avalon", "simulate", "--games", "-1", "-o", "{OUT}"),
    "avalon-play-seat-0": ("avalon", "play", "--seat", "99", "--others", "scripted", "-o", "{OUT}"),
    "mafia-play-max-tokens-0": ("mafia", "play", "--others", "scripted", "--max-tokens", "0", "-o", "{OUT}"),
    "probes-compare-empty-logs": ("probes", "compare", "{EMPTY}", "{EMPTY}"),
}


@pytest.mark.parametrize("case", sorted(OPTION_CASES))
def test_bad_option(case, world, tmp_path, monkeypatch):
    world_dir = Path(world["SCRIPT"]).parent
    before = _snapshot(world_dir)
    file, folder, empty = tmp_path / "existing.file", tmp_path / "a-folder", tmp_path / "empty.jsonl"
    file.write_text("keep me\n")
    folder.mkdir()
    empty.write_text("")
    out = tmp_path / "out.xyz"
    args = _fill(OPTION_CASES[case], {**world, "FILE": str(file), "DIR": str(folder), "EMPTY": str(empty), "OUT": str(out)})
    result = _invoke(args, tmp_path, monkeypatch, world)
    _check(result, out, before, world_dir)
    assert file.read_text() == "keep me\n" and list(folder.iterdir()) == []


# ------------------------------------------------------------------ generated

OURS = [s for s in FILE_SLOTS if not s.moe and s.name not in ("ui-study", "rate-create") and not s.name.startswith("play-")]
HYPO = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@HYPO
@given(slot=st.sampled_from(OURS), content=st.binary(max_size=400))
def test_random_bytes_in_any_file_slot(slot, content, world, tmp_path_factory, monkeypatch):
    tmp_path = tmp_path_factory.mktemp("bytes")
    world_dir = Path(world["SCRIPT"]).parent
    before = _snapshot(world_dir)
    path = tmp_path / f"input{slot.suffix or '.d'}"
    if slot.suffix == "":
        path.mkdir()
        (path / "results.jsonl").write_bytes(content)
    else:
        path.write_bytes(content)
    out = tmp_path / "out"
    result = _invoke(_fill(slot.args, {**world, "F": str(path), "OUT": str(out)}), tmp_path, monkeypatch, world)
    _check(result, out if "{OUT}" in slot.args else None, before, world_dir)


NAMED = [s for s in NAME_SLOTS if not s.moe and not s.name.startswith("play-")]


@HYPO
@given(slot=st.sampled_from(NAMED), name=st.text(min_size=0, max_size=40).filter(
    lambda t: not t.startswith("-") and t.strip().lower() not in {"local", "local:small", "default", "cheap", "all", "seats",
                                                                    "paper", "full", "summary", "score", "ab", "both", "plurality",
                                                                    "majority", "no_elimination", "revote", "random", "scripted",
                                                                    "heuristic", "hashing", "off", "minilm", "human"}))
def test_random_names_in_any_name_slot(slot, name, world, tmp_path_factory, monkeypatch):
    if slot.name == "rate-add-rater":
        return  # any printable text is a fine rater name
    tmp_path = tmp_path_factory.mktemp("names")
    world_dir = Path(world["SCRIPT"]).parent
    before = _snapshot(world_dir)
    out = tmp_path / "out"
    result = _invoke(_fill(slot.args, {**world, "N": name, "OUT": str(out)}), tmp_path, monkeypatch, world)
    if result.exit_code == 0:  # a random name may happen to be a valid one (a seat number, a role, a pack alias)
        assert "Traceback" not in result.output and "this is a bug" not in result.output
        return
    _check(result, out if any("{OUT}" in a for a in slot.args) else None, before, world_dir)
