"""Fixtures for the rating study and the web app: made-up runs, a study, a live server, a browser."""
from __future__ import annotations

import os
import shutil

import pytest

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eval.ratings import build_study  # noqa: E402
from eval.ratings._demo import write_demo_runs  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--headless", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


class Clock:
    """A study clock a test moves by hand (``study.clock = Clock()``), so timing tests never sleep."""

    def __init__(self, now: float = 1_700_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


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
    write_mafia_log(root / "logs")
    server = ServerProcess(study=root / "study.db", runs=root / "demo" / "runs", logs=root / "logs",
                           log_path=root / "server.log").start()
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


def write_mafia_log(folder):
    """A tiny Mafia game in our log format (gm.social events) with role probes: Ann is Mafia, Bo is Sheriff."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    players = ["Ann", "Bo", "Cy", "Di"]
    roles = {"Ann": "Mafia", "Bo": "Sheriff", "Cy": "Villager", "Di": "Doctor"}
    ev = lambda **e: {"game_id": "g1", **e}  # noqa: E731
    events = [
        ev(round=0, public_msg_seq=0, kind="setup", private=True, to=[], players=[{"name": n, "role": roles[n]} for n in players]),
        ev(round=0, public_msg_seq=1, kind="start", players=players),
        ev(round=1, public_msg_seq=1, kind="speech", player="Ann", text="Good morning, I trust everyone."),
        ev(round=1, public_msg_seq=2, kind="speech", player="Bo", text="Cy was very quiet."),
        ev(round=1, public_msg_seq=2, kind="mafia_pick", private=True, to=["Ann"], player="Ann", target="Cy"),
        ev(round=1, public_msg_seq=2, kind="sheriff_check", private=True, to=["Bo"], player="Bo", target="Ann", result="Mafia"),
        ev(round=1, public_msg_seq=3, kind="night_result", died="Cy"),
        ev(round=1, public_msg_seq=4, kind="speech", player="Bo", text="Ann is the Mafia, I checked."),
    ]
    (folder / "g1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))

    def probe(rnd, seq, idx, who, guesses):
        return {"game_id": "g1", "round": rnd, "public_msg_seq": seq, "player_idx": idx, "player": who, "probe_seq": 0,
                "probe_id": "role_assessment", "parse_ok": True, "role": roles[who],
                "answer_parsed": [{"player": p, "guessed_role": r, "confidence": c, "reason": "hunch"} for p, r, c in guesses]}

    probes = [
        probe(1, 2, 1, "Bo", [("Ann", "Unknown", 10), ("Cy", "Mafia", 60), ("Di", "Villager", 40)]),
        probe(1, 4, 1, "Bo", [("Ann", "Mafia", 95), ("Di", "Doctor", 70)]),
        probe(1, 2, 2, "Cy", [("Ann", "Villager", 80), ("Bo", "Villager", 50), ("Di", "Mafia", 30)]),
        probe(1, 4, 0, "Ann", [("Bo", "Sheriff", 90), ("Di", "Villager", 50)]),
    ]
    (folder / "g1.probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in probes))
    return folder / "g1.jsonl"


@pytest.fixture
def mafia_logs(tmp_path):
    write_mafia_log(tmp_path / "logs")
    return tmp_path / "logs"
