"""The Chinese rater page (issue 44, ``--lang zh``) in Debian's chromium at 1280x800 and 375x812.

One item fits the screen in Chinese, the keys score it, and the answer is stored. Screenshots go to
$VGM_SCREENSHOTS (docs/img holds the ones in docs/ui.md).
"""
import json
import os
from pathlib import Path

import pytest

from eval.ratings import build_from_items

pytestmark = pytest.mark.slow  # a real server and a browser

SCENES = [
    ([("阿澜", "我贴着墙慢慢靠近那扇门，听听里面有没有动静。"), ("主持人", "门后隐约传来低语声。"), ("小北", "我把弓拉开，随时准备。")],
     "阿澜，请进行一次聆听检定。", "小北，你的手指已经发白了——阿澜，先过个聆听。"),
    ([("老周", "我想说服守卫放我们进城。"), ("守卫", "没有通行证，谁也别想进。")],
     "老周，进行一次说服检定。", "守卫上下打量着你们，老周，来个说服吧。"),
    ([("阿澜", "我爬上钟楼看看远处。")], "请进行运动检定。", "钟楼的石阶湿滑，阿澜，过个运动。"),
]


@pytest.fixture(scope="module")
def zh_site(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("zhweb")
    rows = [{"id": f"s{k}", "ruleset": "coc7e", "context": [{"speaker": s, "text": t} for s, t in turns],
             "candidates": [{"condition": "model", "text": a}, {"condition": "human", "text": b}]}
            for k, (turns, a, b) in enumerate(SCENES)]
    (root / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    study, _, _ = build_from_items(root / "items.jsonl", root / "zh.db", lang="zh")
    with ServerProcess(study=root / "zh.db", log_path=root / "server.log") as server:
        yield {"study": study, "url": server.url, "shots": Path(os.environ.get("VGM_SCREENSHOTS") or root)}


def _inside(page, selector: str, height: int) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


@pytest.mark.parametrize("width, height", [(1280, 800), (375, 812)])
def test_the_chinese_page_fits_one_item_and_the_keys_score_it(zh_site, browser, width, height):
    study, url = zh_site["study"], zh_site["url"]
    token = study.owner().add_rater(f"zh-{width}").token
    page = browser.new_page(viewport={"width": width, "height": height})
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
    page.goto(f"{url}/?token={token}")
    page.locator("#vgm-progress-text").get_by_text("第 1 / 6 题", exact=False).wait_for(timeout=30000)
    page.wait_for_timeout(300)
    assert page.locator("#score-naturalness").get_by_text("自然度").is_visible()
    assert page.locator("#rate-submit").inner_text().strip() == "提交并继续"
    for selector in ("#rate-context .vgm-turn:last-child", "#rate-utterance", "#score-factual", "#rate-comment", "#rate-submit"):
        assert _inside(page, selector, height), selector
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(zh_site["shots"] / f"rate-zh-{width}.png"))
    page.keyboard.press("Enter")
    page.locator("#rate-alert").get_by_text("请给").wait_for(timeout=20000)
    for key in "454":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.locator("#vgm-done").get_by_text("1", exact=True).wait_for(timeout=20000)
    assert "已评" in page.locator("#vgm-progress-text").inner_text()
    assert [(r["naturalness"], r["groundedness"], r["factual"]) for r in study.rater(token).my_ratings()] == [(4, 5, 4)]
    page.close()
