"""A human subject records an InMind session in a real browser (Debian chromium, headless), against a real
``vgm ui`` whose other seats are a scripted model: they speak, propose, vote and write a strategy trace
when asked, are refused an empty one, write the reflection, and the file reads back through the
importer of ``vgm inmind import`` with their own words in it. Screenshots go to $VGM_SCREENSHOTS."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ui.cli import app
from ui.web._inmind import LABELS

pytestmark = pytest.mark.slow  # a real server plus chromium

KIND_OF = {label: kind for kind, label in LABELS.items()}
OTHERS = """\
# the other five seats: a scripted model (an illegal team falls back to a legal one)
steps:
  avalon.propose: ['{"team": ["P2", "P3"], "thought": ""}']
  avalon.speak: ['{"speech": "I would rather see Player 1 on the team.", "call_assassination": false, "thought": ""}']
  avalon.evil_talk: ['{"speech": "Player 1 argued like Merlin.", "thought": ""}']
  avalon.vote: ['{"approve": true, "thought": ""}']
  avalon.mission: ['{"success": false, "thought": ""}']
  avalon.assassinate: ['{"target": "P1", "thought": ""}']
repeat_last: true
"""
TRACE = "Player 3 pushed the team hard; I suspect Player 3 and trust Player 2."
REFLECTION = "Player 3 was evil as I thought; I should have rejected the teams with Player 3 sooner."


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("inmind-web")
    (root / "others.yaml").write_text(OTHERS)
    server = ServerProcess(runs=root / "runs", cwd=root, log_path=root / "server.log").start()
    yield {"server": server, "root": root}
    server.stop()


def _textbox(page, elem_id: str):
    return page.locator(f"#{elem_id} textarea, #{elem_id} input").first


def _turn(page) -> tuple[int, str]:
    """The pending request's number and kind, from the question's heading (``7. Vote on the team``)."""
    head = page.locator("#inmind-question").inner_text().strip().splitlines()[0]
    m = re.match(r"(\d+)\. (.+)", head)
    assert m, head
    return int(m.group(1)), KIND_OF[m.group(2).strip()]


def _wait_after(page, n: int) -> None:
    """Until the game asks something newer than request ``n``, or is over."""
    page.wait_for_function(
        "n => { const s = document.getElementById('inmind-status').innerText;"
        " if (s.includes('Game over') || s.includes('Stopped')) return true;"
        " const q = document.getElementById('inmind-question').innerText.trim();"
        " const m = q.match(/^(\\d+)\\./); return m && Number(m[1]) > n; }", arg=n, timeout=30000)


def test_a_participant_records_traces_and_a_reflection_the_importer_reads(server, browser):
    url, root = server["server"].url, server["root"]
    out = root / "sessions"
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
    page.goto(url)
    page.get_by_role("tab", name="InMind").click()
    assert page.get_by_role("tab", name="InMind").count() == 1
    page.locator("#inmind-mode").get_by_label("participant", exact=True).check()
    page.locator("#inmind-lang").get_by_label("en", exact=True).check()
    _textbox(page, "inmind-others").fill(f"scripted:{root / 'others.yaml'}")
    _textbox(page, "inmind-out").fill(str(out))
    page.locator("#inmind-seed input").fill("6")
    page.locator("#inmind-start").click()
    page.locator("#inmind-status").get_by_text("Your turn").wait_for(timeout=30000)
    assert "You are P1" in page.locator("#inmind-view").inner_text(), "the seat's own view: its role and the table"

    kinds, refused = [], False
    for _ in range(80):
        if "Game over" in page.locator("#inmind-status").inner_text():
            break
        n, kind = _turn(page)
        kinds.append(kind)
        if kind == "propose":
            size = int(re.search(r"Team of (\d)", page.locator("#inmind-team").inner_text()).group(1))
            for name in [f"P{i}" for i in range(1, size + 1)]:
                page.locator("#inmind-team").get_by_label(name, exact=True).check()
        elif kind in ("vote", "mission"):
            page.locator("#inmind-choice").get_by_label("Approve" if kind == "vote" else "Success", exact=True).check()
        elif kind == "assassinate":
            page.locator("#inmind-choice label").first.click()
        elif kind == "trace" and not refused:  # an empty trace is one red line; the game still waits for it
            _textbox(page, "inmind-text").fill("   ")
            page.locator("#inmind-send").click()
            page.locator("#inmind-alert").get_by_text("the strategy trace is empty").wait_for(timeout=30000)
            assert _turn(page) == (n, "trace")
            refused = True
            _textbox(page, "inmind-text").fill(TRACE)
        elif kind == "trace":
            _textbox(page, "inmind-text").fill(TRACE)
        elif kind == "reflection":
            assert "True roles" in page.locator("#inmind-question").inner_text()
            _textbox(page, "inmind-text").fill(REFLECTION)
        else:
            _textbox(page, "inmind-text").fill("I trust Player 2 more than Player 3.")
        page.locator("#inmind-send").click()
        _wait_after(page, n)
    status = page.locator("#inmind-status").inner_text()
    assert "Game over" in status and "Session saved to" in status, status
    assert {"speak", "trace", "vote", "reflection"} <= set(kinds) and refused
    shots = os.environ.get("VGM_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / "inmind_tab.png"), full_page=True)
    page.close()

    [written] = list(out.glob("avalon-play-6-participant.json"))
    res = CliRunner().invoke(app, ["inmind", "import", "--data", str(out), "--json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.output)
    assert row["mode"] == "participant" and row["subject_seat"] == 1 and row["traces"] == kinds.count("trace") > 0

    from eval.inmind import load_sessions  # what `vgm inmind import` reads: the person's own words are in it

    [session] = load_sessions(out)
    assert [note.text for note in session.traces] == [TRACE] * kinds.count("trace")
    assert session.reflection == REFLECTION
    assert json.loads(written.read_text(encoding="utf-8"))["my_review"]["msg"] == REFLECTION
