"""Every sentence of the rater's page, in English and Chinese (``vgm rate create --lang zh``).

The criteria's own labels, questions and anchors come from the study's criteria file; these are
the page's words around them. A language without an entry here falls back to English.
"""
from __future__ import annotations

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "howto_title": "How to rate",
        "howto": """
You will see a moment from a tabletop role-playing game: the table log so far (players and the Game
Master, newest line at the bottom) and **the GM's next line**, with the checks it asks for. Judge only
that line, as if you were a player at this table.

- Read the last few turns first; scroll up only if you need more of the scene.
- Score each factor on its own: a line can be natural but wrong, or correct but stiff.
- {scale}
- In A/B items, pick the line you would rather hear from your GM; choose tie if they are equally good, and
  "both are bad" if neither would do.
- Keys: **1-9** score the highlighted factor and move to the next, **↑/↓** change factor, **A/B/T/X** pick in A/B
  items (X: both bad), **Enter** submits, **S** skips.
- Not sure? Press **Skip for now**; skipped items come back once the others are done. Your answers are saved
  as you go, so you can close the page and come back to the same link later.
""",
        "keys": ("<b>Keys</b> <kbd>1</kbd>-<kbd>9</kbd> score the highlighted factor · <kbd>↑</kbd><kbd>↓</kbd> change factor · "
                 "<kbd>A</kbd>/<kbd>B</kbd>/<kbd>T</kbd>/<kbd>X</kbd> pick A, B, tie or both bad · <kbd>Enter</kbd> submit · "
                 "<kbd>S</kbd> skip"),
        "ab_a": "A is better", "ab_b": "B is better", "ab_tie": "Tie: about the same", "ab_both_bad": "Both are bad",
        "item_of": "item {n} of {total} · ", "rated": "rated", "skipped": "skipped", "to_go": "to go",
        "gm_next": "GM (next line)", "checks": "checks proposed", "none": "none",
        "context_head": "The table so far", "context_hint": " (newest at the bottom; scroll up for more)",
        "scale_line": "Score each factor: {anchors}",
        "comment": "Comment on this item (optional)", "submit": "Submit and next", "skip": "Skip for now",
        "saved": "Saved.", "welcome": "Welcome.", "welcome_back": "Welcome back.",
        "skipped_before": " (you skipped this one before)", "skipped_note": "Skipped; it comes back after the other items.",
        "need_scores": "give a score for {missing} (or press Skip)",
        "need_pick": "pick A, B, tie or both bad before submitting (keys A, B, T, X)",
        "last_item": "this is the last item: answer it to finish",
        "done_title": "All done: you rated all {total} items. Thank you!",
        "your_code": "Your completion code:", "finish": "Finish and return to your study platform",
        "saved_close": "Your answers are saved; you can close this page.",
        "consent_first": "Before the first item, please read the consent form and accept it: [open the consent form]({href})",
        "start_title": "Before you start",
        "start_about": ("You will read {total} short moments from tabletop role-playing games and judge what the Game Master "
                        "says next. Your answers are saved as you go; keep this tab's address to come back."),
        "agree": "I have read the information above and agree to take part.", "start": "Start",
    },
    "zh": {
        "howto_title": "评分说明",
        "howto": """
你将看到一段桌面角色扮演游戏的片段：到目前为止的游戏记录（玩家和主持人，最新一句在最下面），以及
**主持人的下一句话**和它要求的检定。请只评价这一句，就像你是这张桌上的一名玩家。

- 先读最后几轮发言；只有需要更多场景时才向上翻。
- 每一项分别打分：一句话可能自然但有错，也可能正确但生硬。
- {scale}
- 在 A/B 题中，选出你更想从主持人那里听到的一句；两句一样好选“差不多”，两句都不行选“两句都不好”。
- 快捷键：**1-9** 给高亮的一项打分并跳到下一项，**↑/↓** 切换项目，**A/B/T/X** 在 A/B 题中选择（X：都不好），
  **Enter** 提交，**S** 跳过。
- 拿不准？点 **先跳过**；跳过的题会在其他题做完后再出现。答案随时保存，关掉页面后用同一链接回来即可继续。
""",
        "keys": ("<b>快捷键</b> <kbd>1</kbd>-<kbd>9</kbd> 给高亮项打分 · <kbd>↑</kbd><kbd>↓</kbd> 切换项目 · "
                 "<kbd>A</kbd>/<kbd>B</kbd>/<kbd>T</kbd>/<kbd>X</kbd> 选 A、B、差不多或都不好 · <kbd>Enter</kbd> 提交 · "
                 "<kbd>S</kbd> 跳过"),
        "ab_a": "A 更好", "ab_b": "B 更好", "ab_tie": "差不多", "ab_both_bad": "两句都不好",
        "item_of": "第 {n} / {total} 题 · ", "rated": "已评", "skipped": "已跳过", "to_go": "待评",
        "gm_next": "主持人（下一句）", "checks": "提出的检定", "none": "无",
        "context_head": "到目前为止的记录", "context_hint": "（最新的在最下面；向上滚动查看更多）",
        "scale_line": "每一项打分：{anchors}",
        "comment": "对这道题的意见（可选）", "submit": "提交并继续", "skip": "先跳过",
        "saved": "已保存。", "welcome": "欢迎。", "welcome_back": "欢迎回来。",
        "skipped_before": "（你之前跳过了这题）", "skipped_note": "已跳过；做完其他题后会再出现。",
        "need_scores": "请给 {missing} 打分（或点“先跳过”）",
        "need_pick": "提交前请选择 A、B、差不多或两句都不好（快捷键 A、B、T、X）",
        "last_item": "这是最后一题：回答后即完成",
        "done_title": "全部完成：你评完了全部 {total} 道题。谢谢！",
        "your_code": "你的完成码：", "finish": "完成并返回你的研究平台",
        "saved_close": "你的答案已保存；可以关闭本页。",
        "consent_first": "开始第一题之前，请阅读并同意知情同意书：[打开知情同意书]({href})",
        "start_title": "开始之前",
        "start_about": "你将阅读 {total} 段桌面角色扮演游戏的片段，并评价主持人接下来说的话。答案会随时保存；保留本页地址即可回来继续。",
        "agree": "我已阅读以上信息，同意参加。", "start": "开始",
    },
}


def text_for(lang: str) -> dict[str, str]:
    """The page's words in ``lang`` (English where a language lacks one)."""
    return {**TEXT["en"], **TEXT.get(lang, {})}
