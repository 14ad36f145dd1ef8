"""The Beliefs viewer in a real browser (Debian chromium, headless) on two small probed Mafia games
recorded with snapshots: every panel renders, Branch replays the game from the selected step, the
edges download. Screenshots go to $VGM_SCREENSHOTS (docs/img uses them)."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a real server plus chromium

NAMES = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley"]


def _h(messages) -> int:
    return int(hashlib.sha256(json.dumps(messages).encode()).hexdigest(), 16)


def responder(step: str | None, messages: list[dict]) -> str:
    """Scripted seats: moves picked by a hash of what the seat saw; probe answers shaped after the probe."""
    q = messages[-1]["content"]
    h = _h(messages)
    if step == "mafia.speak":
        who = NAMES[h % len(NAMES)]
        return json.dumps({"thought": "", "speech": f"I think {who} is suspicious." if h % 3 else f"I trust {who}."})
    if step and step.startswith("mafia."):
        m = re.search(r"one of: ([^.\n]+)", q)
        options = [o.strip() for o in m.group(1).split(",")] if m else NAMES
        return json.dumps({"thought": "", ("vote" if step == "mafia.vote" else "target"): options[h % len(options)]})
    m = re.search(r"\(([A-Z][a-z]+(?:, [A-Z][a-z]+)*)\)", q)
    players = m.group(1).split(", ") if m else NAMES
    pid = (step or "").removeprefix("probe:")
    if pid == "role_assessment":
        return json.dumps([{"player": p, "guessed_role": ["Mafia", "Villager", "Doctor", "Unknown"][(h >> i) % 4],
                            "confidence": 30 + (h >> (2 * i)) % 71, "reason": "a hunch"} for i, p in enumerate(players)])
    if pid == "suspicion_ranking":
        return json.dumps([{"player": p, "score": (h >> (3 * i)) % 100} for i, p in enumerate(players)])
    if pid == "social_map":
        return json.dumps({"toward_me": [{"player": p, "attitude": ["trusts", "neutral", "suspects"][(h >> i) % 3],
                                          "confidence": 60} for i, p in enumerate(players)]})
    return json.dumps([])


FORK_MODEL = """\
# what every LLM seat says in a replay started from the viewer (illegal picks fall back to a legal one)
steps:
  mafia.speak: ['{"thought": "", "speech": "I think Alex is suspicious."}']
  mafia.vote: ['{"thought": "", "vote": "Alex"}']
default: ['{"thought": "", "target": "Blair"}']
repeat_last: true
"""


def write_probed_games(folder: Path) -> list[Path]:
    """Two 6-seat Mafia games with the role, suspicion and social-map probes, recorded with snapshots.

    The seats play with ``responder``; their recorded model string is a scripted YAML file, so a
    fork started by the server (another process) can rebuild them."""
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat
    from pipelines.llm import ScriptedModel
    from pipelines.probes import attach_probes

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fork-model.yaml").write_text(FORK_MODEL, encoding="utf-8")
    (folder / "probes.yaml").write_text(PROBES, encoding="utf-8")
    spec = f"scripted:{folder / 'fork-model.yaml'}"
    logs = []
    for seed in (3, 4):
        model = ScriptedModel(responder=responder, name=spec)
        game = MafiaGame([LlmSeat(model, model_spec=spec) for _ in NAMES], seed=seed, game_id=f"viewer-{seed}",
                         log_path=folder / f"viewer-{seed}.jsonl", snapshots=True, options={"max_rounds": 3})
        runner = attach_probes(game, folder / "probes.yaml", None, folder / f"viewer-{seed}.probes.jsonl")
        game.play()
        runner.close()
        logs.append(folder / f"viewer-{seed}.jsonl")
    (folder / "probes.yaml").unlink()  # not a game
    return logs


PROBES = """\
name: viewer
probes:
  - id: role_assessment
    answer: role_assessment
    question: "You are {player} ({role}). For each of ({players}) guess the role. JSON only."
  - id: suspicion_ranking
    answer: suspicion_ranking
    question: "Score how suspicious each of ({players}) is, 0-100. JSON only."
  - id: social_map
    answer: social_map
    question: "How does each of ({players}) feel about you? JSON only."
"""


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("viewer")
    write_probed_games(root / "logs")
    server = ServerProcess(logs=root / "logs", runs=root / "runs", log_path=root / "server.log").start()
    yield {"server": server, "root": root}
    server.stop()


@pytest.fixture
def page(viewer, browser):
    """The Beliefs tab, opened; nothing leaves the machine (Gradio asks for web fonts: aborted)."""
    url = viewer["server"].url
    page = browser.new_page(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
    page.goto(url)
    page.get_by_role("tab", name="Beliefs").click()
    page.locator("#beliefs-where").get_by_text(re.compile(r"step \d+ of \d+")).wait_for(timeout=30000)
    yield page
    page.close()


def _shots() -> Path | None:
    folder = os.environ.get("VGM_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) if folder else None


def _shot(page, locator: str, name: str) -> None:
    folder = _shots()
    if folder:
        page.locator(locator).screenshot(path=str(folder / f"beliefs_{name}.png"))


def _wait_text(page, elem_id: str, text: str, timeout: int = 30000) -> str:
    """Wait until the element's visible text holds ``text`` (Gradio tables keep a hidden copy of each cell)."""
    page.wait_for_function("([id, t]) => { const e = document.getElementById(id); return e && e.innerText.includes(t); }",
                           arg=[elem_id, text], timeout=timeout)
    return page.locator(f"#{elem_id}").inner_text()


def _image_loaded(page, elem_id: str) -> None:
    page.wait_for_function(f"() => {{ const i = document.querySelector('#{elem_id} img'); return i && i.complete && i.naturalWidth > 100; }}",
                           timeout=30000)


def test_every_panel_renders_with_the_games_content(page):
    dashboard = _wait_text(page, "beliefs-dashboard", "viewer-3")
    assert "viewer-4" in dashboard and "deceptions" in dashboard
    assert re.search(r"\bmafia\b|\bvillage", dashboard, re.IGNORECASE)  # the winner column
    metrics = _wait_text(page, "beliefs-metrics", "first-order accuracy")
    assert "Mafia recall" in metrics and "ECE" in metrics and "2nd-order agreement" in metrics
    second = _wait_text(page, "beliefs-second-order", "Believed")
    assert "Actual" in second and re.search(r"match \d+/\d+", second)
    assert re.search(r"suspects|trusts|neutral", page.locator("#beliefs-second-order .vgm-actual").inner_text())
    for elem in ("beliefs-graph", "beliefs-timeline", "beliefs-calibration"):
        _image_loaded(page, elem)
    deception = _wait_text(page, "beliefs-deception", "privately guessed")
    assert re.search(r"accuses|vouches|votes", deception)
    where = page.locator("#beliefs-where").inner_text()

    number = page.locator("#beliefs-step input[type=number]")  # move the timeline: the step-bound panels follow
    number.fill("2")
    number.press("Enter")
    _wait_text(page, "beliefs-where", "step 3 of")
    assert page.locator("#beliefs-where").inner_text() != where
    at = page.locator("#beliefs-branch-at input, #beliefs-branch-at textarea").first
    page.wait_for_function("() => { const e = document.querySelector('#beliefs-branch-at textarea, #beliefs-branch-at input');"
                           " return e && /^\\d+\\.(\\d+|end)$/.test(e.value); }", timeout=30000)
    step = at.input_value()
    _wait_text(page, "beliefs-metrics", f"Figures at step {step}")
    _image_loaded(page, "beliefs-graph")

    _shot(page, "#beliefs-dashboard", "dashboard")
    _shot(page, "#beliefs-metrics", "metrics")
    _shot(page, "#beliefs-graph", "graph")
    _shot(page, "#beliefs-timeline", "timeline")
    _shot(page, "#beliefs-second-order", "second_order")
    _shot(page, "#beliefs-calibration", "calibration")
    _shot(page, "#beliefs-deception", "deception")

    # let the step's own updates land first: a slower one arriving after the toggle would redraw with roles
    page.wait_for_function("() => !document.querySelector('.pending, .generating')", timeout=60000)
    page.get_by_label("Show true roles").uncheck()  # a blind reading: no panel names a role
    page.wait_for_function("() => !document.getElementById('beliefs-metrics').innerText.includes('hidden Mafiosi')", timeout=30000)
    page.wait_for_function("() => { const t = document.getElementById('beliefs-deception').innerText;"
                           " const n = s => t.split(s).length - 1;"
                           " return n('privately guessed') > 0 && n('(hidden)') >= n('privately guessed'); }", timeout=30000)
    table = page.locator("#beliefs-deception").inner_text()
    assert table.count("(hidden)") >= table.count("privately guessed") > 0  # every row's true role is hidden


def test_branch_replays_from_the_selected_step_and_a_bad_step_is_one_line(page, viewer):
    at = page.locator("#beliefs-branch-at textarea, #beliefs-branch-at input").first
    at.fill("1.3")
    page.locator("#beliefs-branch-n input").fill("2")
    page.locator("#beliefs-branch").click()
    text = _wait_text(page, "beliefs-branch-result", "2 replays of", timeout=120000)
    assert "from step 1.3" in text and "winner" in text and "%" in text
    forks = sorted((viewer["root"] / "logs" / "forks").glob("viewer-3-fork1.3-?.jsonl"))
    assert len(forks) == 2 and all(json.loads(f.read_text().splitlines()[0])["kind"] == "setup" for f in forks)
    _shot(page, "#beliefs-branch-result", "branch")

    at.fill("99.1")  # long after the game ended
    page.locator("#beliefs-branch").click()
    error = _wait_text(page, "beliefs-branch-result", "error:")
    assert error.count("error:") == 1 and re.search(r"^error: \S+viewer-3\.jsonl: the game is already over at step 99\.1; fork an earlier step$",
                                                    error, re.MULTILINE)  # one line (Gradio may add a timer line above it)
    at.fill("soon")
    page.locator("#beliefs-branch").click()
    error = _wait_text(page, "beliefs-branch-result", "ROUND.SEQ")
    assert re.search(r"^error: bad step 'soon'; write ROUND\.SEQ \(e\.g\. 2\.7\) or ROUND\.end$", error, re.MULTILINE)


def test_the_belief_graph_downloads_as_temporal_edges(page):
    page.wait_for_function("() => { const a = document.querySelector('#beliefs-edges-csv'); return a && !a.disabled; }", timeout=30000)
    with page.expect_download(timeout=30000) as got:
        page.locator("#beliefs-edges-csv").click()
    download = got.value
    assert download.suggested_filename.endswith(".edges.csv")
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    assert rows and set(rows[0]) == {"step", "from", "to", "kind", "value"}
    assert {r["kind"] for r in rows} >= {"suspicion", "social"} and any(r["kind"].startswith("role:") for r in rows)
    with page.expect_download(timeout=30000) as got:
        page.locator("#beliefs-edges-json").click()
    data = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert len(data) == len(rows) and data[0]["step"] == rows[0]["step"]
