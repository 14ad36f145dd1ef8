"""Fixtures for rule-set tests: a clean pack search path, and a folder for user packs."""
import pytest


@pytest.fixture(autouse=True)
def _no_user_packs(monkeypatch):
    """Tests see only the built-in packs unless they set VGM_RULESETS_PATH themselves."""
    monkeypatch.delenv("VGM_RULESETS_PATH", raising=False)


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    """A user pack folder named by VGM_RULESETS_PATH."""
    folder = tmp_path / "packs"
    folder.mkdir()
    monkeypatch.setenv("VGM_RULESETS_PATH", str(folder))
    return folder
