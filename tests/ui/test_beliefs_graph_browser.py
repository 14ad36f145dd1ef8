"""The Beliefs tab's round graph, addressed views and fork tree in a real browser (Debian chromium, headless).

Two probed 6-seat Mafia games (``write_probed_games``) and one edited fork of the first. Screenshots
go to $VGM_SCREENSHOTS (docs/img uses them)."""
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from eval.beliefs import fork_game, load_edits

from .test_beliefs_viewer import _image_loaded, _shot, _wait_text, write_probed_games

pytestmark = pytest.mark.slow  # a real server plus chromium


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("graph")
    logs = write_probed_games(root / "logs")
    edits = root / "edits.yaml"
    edits.write_text("- {kind: vote, round: 1, seat: Casey, target: Alex}\n- {kind: belief, seat: Drew, text: Alex lies.}\n")
    asyncio.run(fork_game(logs[0], (1, 3), 2, edits=load_edits(edits), edits_file=edits))
    server = ServerProcess(logs=root / "logs", runs=root / "runs", log_path=root / "server.log").start()
    yield {"server": server, "root": root}
    server.stop()


def _open(viewer, browser, query: str = ""):
    url = viewer["server"].url
    page = browser.new_page(viewport={"width": 1400, "height": 1400}, accept_downloads=True)
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
    page.goto(url.rstrip("/") + "/" + query)
    page.get_by_role("tab", name="Beliefs").click()
    page.locator("#beliefs-where").get_by_text(re.compile(r"step \d+ of \d+")).wait_for(timeout=60000)
    page.locator("#beliefs-round-graph").scroll_into_view_if_needed()  # below the fold; Gradio loads images lazily
    return page


def test_the_round_graph_draws_who_suspects_whom_and_exports_as_png(viewer, browser):
    page = _open(viewer, browser)
    _image_loaded(page, "beliefs-round-graph")
    link = _wait_text(page, "beliefs-link", "?game=")
    assert re.search(r"\?game=viewer-\d&round=\d+&seat=[A-Z][a-z]+", link)
    page.wait_for_function("() => /game=viewer-\\d&round=\\d+&seat=/.test(location.search)", timeout=30000)  # the address bar follows
    page.wait_for_function("() => { const a = document.querySelector('#beliefs-round-png'); return a && !a.disabled; }", timeout=30000)
    with page.expect_download(timeout=30000) as got:
        page.locator("#beliefs-round-png").click()
    data = Path(got.value.path()).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert re.match(r"viewer-\d-round\d+-[A-Z][a-z]+\.png", got.value.suggested_filename)
    tree = _wait_text(page, "beliefs-fork-tree", "branch at 1.3")
    assert "edited arm, 2 forks" in tree and "vote of Casey in round 1: Alex" in tree and "belief of Drew" in tree
    _shot(page, "#beliefs-fork-tree", "fork_tree")
    page.close()


def test_an_addressed_view_opens_that_game_round_and_seat(viewer, browser):
    page = _open(viewer, browser, "?game=viewer-4&round=1&seat=Blair")
    where = _wait_text(page, "beliefs-where", "Blair")
    assert "round 1," in where
    assert "viewer-4" in page.locator("#beliefs-game input").input_value()
    assert _wait_text(page, "beliefs-link", "?game=viewer-4&round=1&seat=Blair")
    page.wait_for_function("() => location.search.includes('game=viewer-4') && location.search.includes('seat=Blair')", timeout=30000)
    _image_loaded(page, "beliefs-round-graph")
    _shot(page, "#beliefs-round-graph", "round_graph")
    page.close()
    page = _open(viewer, browser, "?game=viewer-9&round=1")
    note = _wait_text(page, "beliefs-note", "address:")
    assert "no game 'viewer-9' in this folder" in note and note.count("address:") == 1
    page.close()
