"""The GM's words in the table's language: the Chinese prompts and fixed sentences of ``vgm play --lang zh``.

``gm.narration`` keeps one narration loop and its guards for every language; what differs by
language is read here: the narration's system prompt (``pipelines/prompts/table.zh.txt``), its
worked replies and the answer prompt (``gm/data/prompts/*.zh.*``, beside the English ones), the
labels of the turn's message, the rules' verdict ("林语的侦查检定：困难成功。"), and the sentences the
GM says without a model (fallbacks, refusals, an NPC's "I don't know"): ``fixed.zh.yaml``.

Which parts of play read only English is said in one line where it matters (``check_line``,
``check_pipeline``), never left to fail quietly.
"""
from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipelines.steps import LANGS, prompt_text
from pipelines.steps.adjudicate import shot_messages
from rulesets import VgmError, read_text, read_yaml

__all__ = ["LANGS", "check_lang", "check_line", "check_pipeline", "is_chinese", "narration_messages", "answer_messages",
           "guide", "fallback", "verdict", "localized_answer", "refuses", "spoken", "leak", "voiced", "ENGLISH_ONLY_PIPELINES"]

PROMPTS = Path(__file__).parent / "data" / "prompts"
# decision pipelines that read the pack's English example lines and English cue words: a Chinese table cannot use them
ENGLISH_ONLY_PIPELINES = ("adjudicate", "adjudicate_check")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise VgmError(f"--lang {lang!r}: the GM plays in {', '.join(LANGS)}")
    return lang


def is_chinese(text: str) -> bool:
    """At least a fifth of the line's non-space characters are Han characters."""
    flat = "".join(str(text).split())
    return bool(flat) and len(_HAN.findall(flat)) >= 0.2 * len(flat)


def check_line(text: str, lang: str) -> None:
    """An English table reads its lines with English rules (cues, intents, example lines): a Chinese line is refused in one line."""
    if lang == "en" and is_chinese(text):
        raise VgmError("this table plays in English and reads lines with English rules; start a Chinese table with `vgm play --lang zh`")


def check_pipeline(pipeline: str, lang: str) -> None:
    """``adjudicate`` decides from the pack's English example lines: refused at a Chinese table, with what to use instead."""
    if lang != "en" and pipeline in ENGLISH_ONLY_PIPELINES:
        raise VgmError(f"--pipeline {pipeline} decides from the pack's English example lines; with --lang {lang} use a model pipeline "
                       "whose prompts have Chinese twins (template, the default there; tbs, char_skill, ...)")


@lru_cache(maxsize=None)
def fixed(lang: str) -> dict[str, Any]:
    """The fixed sentences of ``lang`` (``gm/data/prompts/fixed.<lang>.yaml``)."""
    return read_yaml(PROMPTS / f"fixed.{lang}.yaml")


def _say(lang: str, group: str, key: str, **slots: Any) -> str:
    return str(fixed(lang)[group][key]).format(**slots)


# --- the narration's prompt -----------------------------------------------------------------

def narration_messages(req: Any, retry_cause: str | None = None) -> list[dict[str, str]]:
    """``gm.narration.messages_for`` in the table's language: the same shape (system, worked replies, this turn)."""
    lang = req.lang
    title = getattr(req.pack, "title", None) or getattr(req.pack, "name", "")
    system = prompt_text("table", {"lang": lang}).format(title=title)
    ask = "\n".join([f"{_say(lang, 'labels', 'scene')}：{' '.join(req.scene.split())}", *req.recent[-4:],
                     f"{req.name}：“{' '.join(req.line.split())}”", guide(req)])
    if req.found:
        ask += f"\n{_say(lang, 'labels', 'learn')}：{req.found}"
    if retry_cause:
        ask += "\n" + _say(lang, "labels", "retry", cause=retry_cause, name=req.name)
    return [{"role": "system", "content": system}, *shot_messages(PROMPTS / f"narrate_shots.{lang}.yaml"), {"role": "user", "content": ask}]


def answer_task(req: Any) -> str:
    a, lang = req.answer, req.lang
    asked = _say(lang, "labels", "asked", line=" ".join(req.line.split()))
    if a.speaker and a.quote:
        voice = a.voice or _say(lang, "labels", "an_npc")
        return "\n".join([asked, _say(lang, "labels", "speaker", speaker=a.speaker, voice=voice), _say(lang, "labels", "says", quote=a.quote)])
    return f"{asked}\n" + _say(lang, "labels", "gm_says", content=a.content)


def answer_messages(req: Any) -> list[dict[str, str]]:
    """``gm.narration.answer_messages`` in the table's language: word the chosen content, nothing else."""
    system = read_text(PROMPTS / f"answer.{req.lang}.txt").strip()
    return [{"role": "system", "content": system}, *shot_messages(PROMPTS / f"answer_shots.{req.lang}.yaml"),
            {"role": "user", "content": answer_task(req)}]


def guide(req: Any) -> str:
    """What the rules decided, in the worked replies' words (``gm.narration.guide``'s twin)."""
    lang = req.lang
    if req.answer is not None and req.decision == "no_roll":
        return answer_task(req)
    if req.decision == "impossible":
        return _say(lang, "guide", "impossible_why", why=req.why) if req.why else _say(lang, "guide", "impossible")
    if req.decision == "no_roll":
        return _say(lang, "guide", "no_roll_question" if _asks(req.line) else "no_roll")
    if req.recall and req.success is False:
        return _say(lang, "guide", "recall_failed", verdict=req.verdict)
    if req.implausible and req.success:
        return _say(lang, "guide", "implausible", verdict=req.verdict)
    return _say(lang, "guide", "result", verdict=req.verdict)


def _asks(line: str) -> bool:
    return line.strip().rstrip("\"'”’」 ").endswith(("?", "？", "吗", "呢"))


# --- what the GM says without a model --------------------------------------------------------

def _talks(line: str) -> bool:
    """Words spoken rather than an act: a quote, a question, or a line that opens by calling someone ("露丝，…")."""
    text = line.strip()
    return bool(re.search(r"[“「\"]", text)) or _asks(text) or bool(re.match(r"^[^\s，,。]{1,6}[，,]", text) and not text.startswith("我"))


def _action(line: str) -> str:
    """The act as the player wrote it, less "我" and the closing mark: "我仔细翻看日志。" → "仔细翻看日志"."""
    act = re.sub(r"^[“\"「]?\s*我(?:要|想|来|试着|试试)?", "", line.strip()).strip().rstrip("。！!.…”\"」 ")
    return act


def fallback(lang: str, name: str, line: str, decision: str, success: bool | None, found: str = "", scene_line: str = "",
             why: str = "", recall: bool = False, implausible: bool = False, talk: bool = False) -> str:
    """``gm.narration.fallback`` in ``lang``: a plain sentence from the act, the outcome and the scene, never "check succeeds"."""
    act, talk = _action(line), talk or _talks(line)
    say = lambda key, **slots: _say(lang, "fallback", key, name=name, **slots)  # noqa: E731
    join = lambda *parts: "".join(p for p in parts if p).strip()  # noqa: E731
    if decision == "no_roll" and talk:
        return join(say("waits_answer" if _asks(line) else "waits_landing"), scene_line)
    if decision == "impossible":
        return join(say("impossible", action=act or say("this"), reason=why or say("impossible_reason")), scene_line)
    if decision == "no_roll" or success is None:
        return join(say("looks") if _asks(line) or not act else say("does", action=act), scene_line or found)
    if talk:  # a plea or a question that was rolled: how the words were taken, never the words retold as a deed
        key = ("asked_won" if success else "asked_lost") if _asks(line) else ("plea_won" if success else "plea_lost")
        return join(say(key), found or scene_line)
    if success and implausible:
        return join(say("nearly", action=act or say("this")), scene_line)
    if success:
        return join(say("success", action=act or say("this")), found or scene_line)
    if recall:
        return join(say("recall_failed"), scene_line)
    return join(say("failure", action=act or say("this")), found or scene_line)


def verdict(rolls: list[Any], pack: Any, lang: str) -> str:
    """The rules' word on the rolls, in ``lang``: "林语的侦查检定：困难成功。" (the check's first Chinese name in the pack)."""
    out = []
    for r in rolls:
        try:
            names = pack.check(r.check).zh if r.check else []
        except Exception:  # a check the pack cannot name (a free roll): its English name stands
            names = []
        outcome = fixed(lang)["outcomes"].get(r.outcome or "", r.outcome or "")
        out.append(fixed(lang)["verdict"].format(character=r.character, check=names[0] if names else r.check_name, outcome=outcome))
    return "".join(out)


def localized_answer(answer: Any, lang: str) -> Any:
    """An answer whose words are the GM's own fixed ones (a refusal, "X does not know", "X is dead") said in ``lang``;
    content chosen from the world (the scenario's own text) is left as written."""
    if answer is None or lang == "en":
        return answer
    name, text = answer.speaker, fixed(lang)["answers"]
    if answer.kind == "ooc":
        return dataclasses.replace(answer, content=text["ooc"])
    if answer.kind == "npc_gone":
        key = "npc_dead" if answer.content.endswith("is dead.") else "npc_absent"
        return dataclasses.replace(answer, content=text[key].format(name=name))
    if answer.kind in ("npc_refuses", "npc_gated", "npc_unknown"):
        return dataclasses.replace(answer, content=text[answer.kind].format(name=name), quote=text[f"{answer.kind}_quote"])
    return answer


_REFUSES = re.compile(r"做不到|办不到|不可能|无法|没有办法|没办法|不能")


def refuses(text: str) -> bool:
    """A Chinese reply already says the act cannot work (``gm.narration``'s English ``_REFUSES`` cannot read it)."""
    return bool(_REFUSES.search(text))


def spoken(answer: Any, lang: str) -> str:
    """``Answer.spoken`` in ``lang``: the NPC says the content in their own voice, else the content as it stands."""
    if answer.quote and answer.speaker:
        quote = answer.quote.strip()
        return f"{answer.speaker}说：“{quote if quote.endswith(('。', '！', '？', '.', '!', '?')) else quote + '。'}”"
    return answer.content


# the labels of the Chinese prompts (fixed.zh.yaml, the worked replies): a reply that copies one shows prompt text
_LABELS = re.compile(r"(?:^|[。！？\s])(?:场景|结果|无需检定|不可能|他们得知|主持人说|说话人|问)[:：]|主持人[:：]|(?:GM|KP)[:：]|检定[:：]")


def leak(sentence: str) -> str | None:
    """"prompt text" when a Chinese reply copies a label of its prompt (``gm.narration.prompt_leak`` reads English ones)."""
    return "prompt text" if _LABELS.search(sentence) else None


def voiced(text: str, speaker: str) -> bool:
    """The reply has ``speaker`` say something in quotes (``gm.narration.voiced`` for text with no spaces between words)."""
    outside = re.sub(r"[“\"「][^”\"」]*[”\"」]?", " ", text)
    names = {speaker, speaker.split()[0]} if speaker.split() else {speaker}
    return bool(re.search(r"[“\"「]", text)) and any(n and n in outside for n in names)
