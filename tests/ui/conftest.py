"""Fixtures for the rating study and the web app: made-up runs, a study, a live server, a browser."""
from __future__ import annotations

import os
import shutil

import pytest

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eval.ratings import Study, build_study  # noqa: E402
from eval.ratings._demo import write_demo_runs  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--headless", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def demo_runs(tmp_path):
    return write_demo_runs(tmp_path / "demo", n=12)


@pytest.fixture
def study(tmp_path, demo_runs):
    """A study over two runs plus the human reference: 6 contexts x 3 conditions = 18 score items."""
    s, admin_token, _ = build_study(demo_runs, tmp_path / "study.db", n=6, include_human=True)
    s.admin_token_value = admin_token
    return s


@pytest.fixture
def raters(study):
    admin = study.owner()
    return [admin.add_rater(name) for name in ("alice", "bob")]


@pytest.fixture(scope="module")
def live_study(tmp_path_factory):
    """A study with 40 contexts (120 items) and 30 raters, served by a real ``vgm ui`` process."""
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("live")
    runs = write_demo_runs(root / "demo", n=40)
    s, admin_token, _ = build_study(runs, root / "study.db", n=40, include_human=True)
    admin = s.owner()
    tokens = [admin.add_rater(f"rater{k:02d}").token for k in range(30)]
    server = ServerProcess(study=root / "study.db", runs=root / "demo" / "runs", log_path=root / "server.log").start()
    yield {"study": s, "admin": admin_token, "tokens": tokens, "server": server, "root": root}
    server.stop()


@pytest.fixture(scope="module")
def browser():
    if not shutil.which("chromium") and not os.path.exists(CHROMIUM):
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
