"""One crowd participant in Debian's chromium, at 1280x800 and at 375x812: the enrollment link, the consent page,
five items with the keyboard (one of them an attention item), a skip, a comment, and the end page with its code.

Screenshots go to $VGM_SCREENSHOTS (docs/img holds the ones in docs/ui.md).
"""
import os
import sqlite3
from pathlib import Path

import pytest

from eval.ratings import build_study, crowd_settings
from eval.ratings._demo import write_demo_runs

pytestmark = pytest.mark.slow  # a real server and a browser

CONSENT = """# Rating Game Master lines

This study is run by the virtual-gm project. You will read five short moments from tabletop
role-playing games and judge the line the Game Master says next. It takes about five minutes.

- Taking part is voluntary; you can stop at any time by closing the page.
- We store your answers and your Prolific ID, and nothing else about you.
- Questions: write to the researcher through Prolific.
"""
CODE = "C0DE1234"


@pytest.fixture(scope="module")
def crowd_site(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("crowdweb")
    runs = write_demo_runs(root / "demo", n=6)
    server = ServerProcess(study=root / "crowd.db", log_path=root / "server.log")
    study, admin, _ = build_study(runs, root / "crowd.db", n=2, attention=1, consent=CONSENT,
                                  crowd=crowd_settings("prolific", quota=10, completion_code=CODE,
                                                       redirect=f"{server.url}/healthz?cc={{code}}"))
    server.start()
    yield {"study": study, "server": server, "url": server.url, "key": study.enroll_key()}
    server.stop()


def _loopback_only(page, url):
    """Nothing leaves the machine: any request to another host is aborted (Gradio asks for web fonts)."""
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())


def _contrast(page, selector: str) -> float:
    """WCAG contrast ratio of an element's text colour against the first opaque background behind it."""
    return page.locator(selector).first.evaluate("""(el) => {
      const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
      const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
                                   return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
      let bg = null, e = el;
      while (e) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length < 4 || c[3] > 0.9) { bg = c; break; } e = e.parentElement; }
      bg = bg || [255, 255, 255];
      const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg);
      return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    }""")


def _inside_viewport(page, selector: str, height: int) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def _wait_for_item(page, number: int) -> None:
    page.locator("#vgm-progress-text").get_by_text(f"item {number} of 5", exact=False).wait_for(timeout=20000)


@pytest.mark.parametrize("width, height", [(1280, 800), (375, 812)])
def test_a_participant_goes_from_the_enrollment_link_to_the_completion_code(crowd_site, browser, width, height):
    study, url = crowd_site["study"], crowd_site["url"]
    shots = Path(os.environ.get("VGM_SCREENSHOTS") or crowd_site["server"].log_path.parent)
    shots.mkdir(parents=True, exist_ok=True)
    participant = f"{width:024x}"
    conn = sqlite3.connect(study.path)
    attention_line = conn.execute("SELECT utterance FROM items WHERE attention = 1").fetchone()[0]
    link = f"{url}/enroll/{crowd_site['key']}?PROLIFIC_PID={participant}&STUDY_ID={'5' * 24}&SESSION_ID={width + 7:024x}"

    page = browser.new_page(viewport={"width": width, "height": height})
    _loopback_only(page, url)
    page.goto(link)
    page.locator("#consent-text").get_by_text("Rating Game Master lines").wait_for(timeout=20000)
    page.screenshot(path=str(shots / f"crowd-consent-{width}.png"))
    page.locator("#consent-start").click()  # not ticked: the browser keeps us on the form, the server is not asked
    assert "/enroll/" in page.url and conn.execute("SELECT COUNT(*) FROM raters WHERE participant_id = ?", (participant,)).fetchone()[0] == 0
    page.locator("#consent-agree").check()
    page.locator("#consent-start").click()
    _wait_for_item(page, 1)
    assert "token=" in page.url and page.get_by_role("tab", name="Compare").count() == 0

    # one item fits the screen: the log's newest turn, the line, three factors, comment and Submit, no scrolling
    page.wait_for_timeout(300)
    for selector in ("#rate-context .vgm-turn:last-child", "#rate-utterance", "#score-factual", "#rate-comment", "#rate-submit"):
        assert _inside_viewport(page, selector, height), selector
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sticks out sideways
    assert page.locator("#rate-keys").is_visible() == (width >= 700)  # the key legend where there is a keyboard
    for selector in ("#score-naturalness .info-text", ".vgm-scale", ".vgm-utterance .vgm-checks", "#vgm-progress-text"):
        assert _contrast(page, selector) >= 4.5, selector  # WCAG AA for body text
    page.screenshot(path=str(shots / f"rate-item-{width}.png"))

    page.keyboard.press("Enter")  # nothing scored yet: a message beside the buttons, nothing stored
    page.locator("#rate-alert").get_by_text("give a score for").wait_for(timeout=20000)
    assert not study.rater(study.returning(crowd_site["key"], _who(participant, width)).token).my_ratings()

    answered, skipped, came_back = 0, None, False
    for step in range(7):
        if page.locator("#rate-end").get_by_text("All done").is_visible():
            break
        item_text = page.locator("#rate-utterance").inner_text()
        if step == 1 and skipped is None:
            skipped = item_text
            page.keyboard.press("s")
            page.locator("#vgm-progress-text").get_by_text("1 skipped").wait_for(timeout=20000)
            continue
        scores = "311" if attention_line in item_text else "454"
        for key in scores:
            page.keyboard.press(key)
        for factor, value in zip(("naturalness", "groundedness", "factual"), scores):
            assert page.locator(f"#score-{factor} input[value='{value}']").is_checked()
        if step == 2:
            page.locator("#rate-comment textarea").fill("The check fits, the wording is stiff.")
            page.locator("#rate-comment textarea").press("Enter")
        else:
            page.keyboard.press("Enter")
        answered += 1
        if answered == 5:
            break
        page.locator("#vgm-done").get_by_text(str(answered), exact=True).wait_for(timeout=20000)
        assert page.locator("#rate-alert .vgm-alert").count() == 0 and page.locator(".toast-body").count() == 0
        if page.locator("#rate-utterance").is_visible() and skipped is not None and page.locator("#rate-utterance").inner_text() == skipped:
            assert not page.locator("#rate-skip").is_visible()  # the skipped item came back last: no skipping it again
            came_back = True

    assert came_back and answered == 5
    end = page.locator("#rate-end")
    end.get_by_text("All done").wait_for(timeout=20000)
    assert page.locator("#vgm-code").inner_text() == CODE
    assert not page.locator("#rate-submit").is_visible() and not page.locator("#rate-skip").is_visible()
    page.wait_for_timeout(600)  # let Gradio's 'pending' fade end before the picture
    assert _contrast(page, ".vgm-end h2") >= 4.5 and _contrast(page, "#vgm-code") >= 4.5
    page.screenshot(path=str(shots / f"rate-end-{width}.png"))

    row = conn.execute("SELECT id, completed_at, consented_at FROM raters WHERE participant_id = ?", (participant,)).fetchone()
    assert row[1] and row[2]
    got = conn.execute("SELECT x.naturalness, x.groundedness, x.factual, x.comment, i.attention FROM ratings x "
                       "JOIN items i ON i.id = x.item_id WHERE x.rater_id = ? AND x.skipped = 0", (row[0],)).fetchall()
    assert len(got) == 5 and [g[:3] for g in got if g[4]] == [(3, 1, 1)]  # the attention item, answered as it asks
    assert [g[3] for g in got if g[3]] == ["The check fits, the wording is stiff."]

    page.locator("#vgm-finish").click()  # recorded, then on to the platform with the code
    page.wait_for_url(f"{url}/healthz?cc={CODE}", timeout=20000)
    page.goto(link)  # the same participant again: back to their own (finished) session, not a new one
    page.locator("#rate-end").get_by_text("All done").wait_for(timeout=20000)
    assert conn.execute("SELECT COUNT(*) FROM raters WHERE participant_id = ?", (participant,)).fetchone()[0] == 1
    page.close()


def _who(participant: str, width: int):
    from eval.ratings import Participant

    return Participant(participant, "5" * 24, f"{width + 7:024x}")


@pytest.fixture(scope="module")
def ab_site(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("abweb")
    runs = write_demo_runs(root / "demo", n=6)
    study, _, _ = build_study(runs, root / "ab.db", n=2, include_human=True, mode="ab", attention=1)
    server = ServerProcess(study=root / "ab.db", log_path=root / "server.log").start()
    yield {"study": study, "server": server, "url": server.url}
    server.stop()


@pytest.mark.parametrize("width, height", [(1280, 800), (375, 812)])
def test_ab_items_fit_pick_with_a_b_t_and_leave_no_warning_behind(ab_site, browser, width, height):
    study, url = ab_site["study"], ab_site["url"]
    token = study.owner().add_rater(f"ab-{width}").token
    page = browser.new_page(viewport={"width": width, "height": height})
    _loopback_only(page, url)
    page.goto(f"{url}/?token={token}")
    page.locator("#vgm-progress-text").get_by_text("0 rated").wait_for(timeout=20000)
    page.wait_for_timeout(300)
    for selector in ("#rate-a", "#rate-b", "#ab-choice", "#rate-submit"):
        assert _inside_viewport(page, selector, height), selector
    if width == 1280:
        page.screenshot(path=str(Path(os.environ.get("VGM_SCREENSHOTS") or ab_site["server"].log_path.parent) / "rate-ab-1280.png"))
    page.keyboard.press("Enter")
    page.locator("#rate-alert").get_by_text("pick A, B, tie or both bad").wait_for(timeout=20000)
    for key, value in (("a", "a"), ("t", "tie"), ("b", "b")):
        page.keyboard.press(key)
        assert page.locator("#ab-choice input:checked").count() == 1
    page.keyboard.press("Enter")
    page.locator("#vgm-done").get_by_text("1", exact=True).wait_for(timeout=20000)
    assert page.locator("#rate-alert .vgm-alert").count() == 0 and page.locator(".toast-body").count() == 0
    assert [r["choice"] for r in study.rater(token).my_ratings()] == ["b"]
    page.close()
