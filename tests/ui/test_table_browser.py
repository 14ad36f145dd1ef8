"""Two players in one room, each in their own browser (Debian chromium, headless), fight the ambush:
both see the order and HP, A acts on A's turn, B sees A's line and the GM's words as they stream,
the host regenerates and undoes, and a revoked or wrong link sees "access denied" and nothing else."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx
import pytest

from ui.web._launch import free_port

# A real server plus chromium, like tests/ui/test_browser.py; CI runs slow tests too.
pytestmark = pytest.mark.slow

FIRST = "Steel rings against steel as the goblins scatter through the bracken and the mule brays."
AGAIN = "Bowstrings thrum in the beech shade while Tamsin ducks low behind her cart wheel."
ATTACK = "I attack the nearest goblin with my shortbow"
WAIT = 20000  # ms


@pytest.fixture(scope="module")
def table_server(tmp_path_factory):
    """``vgm table serve --scenario ambush`` with a scripted GM (seed 3: Brisa acts first, Oskar next)."""
    root = tmp_path_factory.mktemp("table")
    script = root / "gm.yaml"
    script.write_text(json.dumps({"default": [FIRST], "steps": {"narrate": [FIRST, AGAIN]}, "repeat_last": True}))
    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    log = open(root / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "-c", "from ui.cli import main; main()", "table", "serve", "--scenario", "ambush",
                             "--model", f"scripted:{script}", "--memory", "off", "--seed", "3", "--save", str(root / "room.json"),
                             "--port", str(port)], env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        assert proc.poll() is None, (root / "server.log").read_text()
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.time() < deadline, "the table did not start"
        time.sleep(0.3)
    tokens = json.loads((root / "room.links.json").read_text())["tokens"]
    yield {"url": url, "links": {seat: f"{url}/?token={t}" for seat, t in tokens.items()}, "root": root}
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


def heard(page, kind):
    return page.evaluate("(k) => window.vgmTableEvents.filter(e => e.kind === k)", kind)


def test_two_players_fight_in_one_room_and_the_host_regenerates_and_undoes(table_server, browser):
    links = table_server["links"]
    a, b = browser.new_page(), browser.new_page()
    a.goto(links["Brisa Tallowmere"])
    b.goto(links["Oskar Venn"])
    for page in (a, b):  # both see the order and HP, and whose turn it is
        page.locator("#table-order").get_by_text("Goblin 2").wait_for(timeout=WAIT)
        order = page.locator("#table-order").inner_text()
        assert "Brisa Tallowmere" in order and "21/21 HP" in order and "7/7 HP" in order
        assert "Brisa Tallowmere's turn" in page.locator("#table-turn").inner_text()
        assert "Perception" in page.locator("#table-sheets").inner_text()  # the sheets, as /sheet shows them
    assert "your turn" in a.locator("#table-turn").inner_text()

    # B out of turn: one line, and nothing happens at the table
    b.fill("#table-text", ATTACK)
    b.click("#table-send")
    b.locator("#table-error").get_by_text("it is Brisa Tallowmere's turn").wait_for(timeout=WAIT)

    # A acts on A's turn; B sees A's line, the dice and the GM's words arrive live, then the log
    a.fill("#table-text", ATTACK)
    a.click("#table-send")
    b.locator("#table-log").get_by_text(FIRST).wait_for(timeout=WAIT)
    said = heard(b, "said")
    assert said and said[-1]["who"] == "Brisa Tallowmere" and said[-1]["text"] == ATTACK
    kinds = [e["kind"] for e in b.evaluate("window.vgmTableEvents")]
    assert kinds.index("said") < kinds.index("mechanics") < kinds.index("token") < kinds.index("done")
    assert "".join(e["text"] for e in heard(b, "token")) == FIRST
    assert "Brisa Tallowmere attacks Goblin 1" in b.locator("#table-log").inner_text()
    assert "Oskar Venn's turn" in b.locator("#table-turn").inner_text()
    assert "your turn" in b.locator("#table-turn").inner_text()
    assert "1/7 HP" in a.locator("#table-order").inner_text()
    assert a.locator("#host-panel").count() == 0  # players get no host controls

    # the host regenerates the reply: same dice, new words, streamed to both players
    host = browser.new_page()
    host.goto(links["host"])
    host.locator("#host-regenerate").wait_for(timeout=WAIT)
    assert "The goblins flee" in host.locator("#host-notes").input_value()  # the GM-only notes, for the host only
    assert "The goblins flee" not in b.content()
    host.locator("#host-regenerate").click()
    for page in (a, b):
        page.locator("#table-log").get_by_text(AGAIN).wait_for(timeout=WAIT)
        assert FIRST not in page.locator("#table-log").inner_text()
        assert "1/7 HP" in page.locator("#table-order").inner_text()  # the same dice
    assert AGAIN in "".join(e["text"] for e in heard(b, "token"))

    # the host undoes it: back to Brisa's turn, the goblin unhurt, on every page
    host.locator("#host-undo").click()
    for page in (a, b):
        page.locator("#table-turn").get_by_text("Brisa Tallowmere's turn").wait_for(timeout=WAIT)
        assert ATTACK not in page.locator("#table-log").inner_text()
        assert "1/7 HP" not in page.locator("#table-order").inner_text()

    # the host edits the scene notes; they are saved in the session file
    host.fill("#host-notes", "The goblins flee when hurt.\nTamsin pays 10 gp.")
    host.click("#host-notes-save")
    host.locator("#host-status").get_by_text("notes saved").wait_for(timeout=WAIT)
    saved = json.loads((table_server["root"] / "room.json").read_text())
    assert saved["scenario"]["notes"] == ["The goblins flee when hurt.", "Tamsin pays 10 gp."]

    # the host revokes Oskar's link: B's open page and the old link both see only "access denied"
    old = links["Oskar Venn"]
    host.locator("#host-links button[data-seat='Oskar Venn']").click()
    b.locator("#table-denied").wait_for(timeout=WAIT)
    assert b.locator("#table-log").count() == 0
    late = browser.new_page()
    late.goto(old)
    assert late.locator("#table-denied").inner_text() == "access denied"
    assert late.locator("#table-log").count() == 0 and "Goblin" not in late.content()
    for page in (a, b, host, late):
        page.close()


def test_a_wrong_link_sees_access_denied_and_nothing_of_the_table(table_server, browser):
    page = browser.new_page()
    page.goto(table_server["url"] + "/?token=not-a-token")
    assert page.locator("#table-denied").inner_text() == "access denied"
    assert page.locator("#table-log").count() == 0 and page.locator("#table-order").count() == 0
    assert "Goblin" not in page.content() and "Brisa" not in page.content()
    page.close()
