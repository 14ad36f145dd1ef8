"""Shared test settings: no network, no analytics, and a fresh response cache per run.

The response cache lives in a temporary folder so that a test marked ``slow`` really asks
the local model instead of replaying an answer cached by an earlier run; the model weights
(``VGM_MODELS_DIR``) stay where ``vgm models install`` put them. Both folders, and the one where
local model servers are announced, are made once in the controlling process: pytest-xdist workers
inherit them.

No inherited terminal size: pytest imports ``readline`` before any conftest, and GNU readline
then exports ``COLUMNS=80 LINES=24`` into the process environment (not ``os.environ``). Child
processes, pytest-xdist workers among them, start with that size, and the CLI's rich consoles,
made at import, keep it for good, whatever width a test asks for. A test that needs a width sets it.
"""
import os
import tempfile

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
    os.unsetenv(_name)  # readline's copy is in the C environment only, where os.environ cannot see it
os.environ.setdefault("VGM_CACHE_DIR", tempfile.mkdtemp(prefix="vgm-test-cache-"))
# Local model servers are shared by this run's processes (both xdist workers, the CLIs the tests start),
# not borrowed from another job of the same user: a long evaluation's busy server made the real-model
# tests wait minutes for its slots (a 31 s tmux test took 418 s).
os.environ.setdefault("VGM_RUNTIME_DIR", tempfile.mkdtemp(prefix="vgm-test-servers-"))


def pytest_collection_modifyitems(config, items):
    """On pytest-xdist workers, files with a test marked ``slow`` go first (in their own order, each kept whole).

    ``make test`` hands out whole files (``--dist loadfile --no-loadscope-reorder``) in this order: the
    minute-long real-model and browser files then start at once instead of ending the run on one worker
    while the other sits idle.
    """
    if not hasattr(config, "workerinput"):
        return
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: the collected order otherwise
