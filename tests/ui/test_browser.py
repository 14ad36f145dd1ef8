"""A rater in a real browser (Debian chromium, headless): score three items, reload, progress kept; the owner sees them."""
import re

import pytest

from eval.ratings import CRITERIA

# A real server plus chromium: over 20 s with start-up on a busy 2-core machine; CI runs slow tests too.
pytestmark = pytest.mark.slow


def _score(page, values):
    for crit, value in zip(CRITERIA, values):
        page.locator(f"#score-{crit.id}").get_by_label(str(value), exact=True).check()
    page.locator("#rate-submit").click()


def test_rater_scores_three_items_reloads_and_admin_sees_them(live_study, browser):
    server, token = live_study["server"], live_study["tokens"][0]
    page = browser.new_page()
    page.goto(f"{server.url}/?token={token}")
    progress = page.locator("#rate-progress")
    progress.get_by_text("0 rated").wait_for(timeout=20000)
    assert page.locator("#rate-context .vgm-speaker").count() >= 3  # speakers visible
    assert page.locator("#rate-utterance").inner_text().startswith("GM")
    assert page.get_by_role("tab", name="Compare").count() == 0  # a rater sees the Rate tab only
    seen = []
    for k, values in enumerate([(5, 4, 3), (2, 2, 2), (1, 5, 4)]):
        seen.append(page.locator("#rate-utterance").inner_text())
        _score(page, values)
        progress.get_by_text(f"{k + 1} rated").wait_for(timeout=20000)
    page.reload()
    progress.get_by_text("3 rated").wait_for(timeout=20000)
    assert re.search(r"item \d+ of 120", progress.inner_text())
    assert page.locator("#rate-utterance").inner_text() not in seen[-1:]  # resumes at the fourth item
    mine = live_study["study"].rater(token).my_ratings()
    assert sorted((m["naturalness"], m["groundedness"], m["factual"]) for m in mine) == [(1, 5, 4), (2, 2, 2), (5, 4, 3)]

    admin = browser.new_page()
    admin.goto(f"{server.url}/?token={live_study['admin']}")
    admin.locator("#admin-summary").get_by_text("score ratings").wait_for(timeout=20000)
    assert "3" in admin.locator("#admin-summary").inner_text().split("score ratings")[0]
    raters = admin.locator("#admin-raters").inner_text()
    assert "rater00" in raters
    assert admin.get_by_role("tab", name="Compare").count() == 1
    page.close()
    admin.close()


def test_wrong_token_page_shows_nothing_of_the_study(live_study, browser):
    page = browser.new_page()
    page.goto(f"{live_study['server'].url}/?token=not-a-token")
    page.get_by_text("access denied").wait_for(timeout=20000)
    assert page.locator("#rate-context .vgm-turn").count() == 0
    assert not page.locator("#rater-panel").is_visible()
    assert page.get_by_role("tab", name="Compare").count() == 0
    page.close()


def test_missing_score_is_flagged_not_stored(live_study, browser):
    token = live_study["tokens"][1]
    page = browser.new_page()
    page.goto(f"{live_study['server'].url}/?token={token}")
    page.locator("#rate-progress").get_by_text("0 rated").wait_for(timeout=20000)
    page.locator("#score-naturalness").get_by_label("3", exact=True).check()
    page.locator("#rate-submit").click()
    page.locator("#rate-alert").get_by_text("give a score for").wait_for(timeout=20000)
    assert live_study["study"].rater(token).my_ratings() == []
    page.close()


def test_owner_sees_every_tab_render(live_study, browser, tmp_path):
    """The admin link opens all four tabs; each shows its main content (screenshots go to $VGM_SCREENSHOTS)."""
    import os
    from pathlib import Path

    shots = Path(os.environ.get("VGM_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 1100})
    page.goto(f"{live_study['server'].url}/?token={live_study['admin']}")
    page.locator("#admin-summary").get_by_text("score ratings").wait_for(timeout=20000)
    page.screenshot(path=str(shots / "rate-admin.png"), full_page=True)

    page.get_by_role("tab", name="Compare").click()
    board = page.locator("#compare-leaderboard")
    board.get_by_text("tbs_gm").first.wait_for(timeout=20000)
    assert "template_gm" in board.inner_text()
    page.locator("#compare-diff").get_by_text("demo-0001").first.wait_for(timeout=20000)
    detail = page.locator("#compare-detail-a")
    detail.get_by_text("checks").wait_for(timeout=20000)
    first_detail = detail.inner_text()
    page.locator("#compare-pick input").click()  # the owner picks another instance: its checks replace the first's
    page.get_by_role("option").nth(1).click()
    page.wait_for_function("t => !document.querySelector('#compare-detail-a').innerText.includes(t)",
                           arg=first_detail, timeout=20000)
    assert "checks" in detail.inner_text()
    page.screenshot(path=str(shots / "compare.png"), full_page=True)

    page.get_by_role("tab", name="Beliefs").click()
    page.locator("#beliefs-truth").get_by_text("Ann").first.wait_for(timeout=20000)
    assert "Bo" in page.locator("#beliefs-where").inner_text()
    assert "mafia_pick" not in page.locator("#beliefs-feed").inner_text()  # Bo never saw the Mafia's pick
    assert "Mafia" in page.locator("#beliefs-truth").inner_text()
    number = page.locator("#beliefs-step input[type=number]")
    number.fill("0")
    number.press("Enter")
    page.locator("#beliefs-where").get_by_text("step 1 of 2").wait_for(timeout=20000)
    page.locator("#beliefs-truth").get_by_text("Unknown").first.wait_for(timeout=20000)  # Bo's earlier guess about Ann
    page.screenshot(path=str(shots / "beliefs.png"), full_page=True)

    page.get_by_role("tab", name="Play").click()
    page.locator("#play-scenario").wait_for(timeout=20000)
    assert page.locator("#play-new").is_visible()
    page.screenshot(path=str(shots / "play.png"), full_page=True)
    page.close()
