"""A dice bot's reply → the roll it reports: a check, a sanity roll, an opposed roll, or a bare roll.

Patterns follow each bot's default reply templates (docs/moe.md cites them):

- SealDice: ``<林语>的"侦查60"检定结果为: D100=28/60 成功`` (or “…” quotes; ``由于…，`` before a
  reason), ``对<林语>的"侦查"进行了2次检定``, ``<林语>的理智检定:``, ``对抗检定:`` with one line per side
  ``<A> 斗殴-> 属性值:…``, ``<林语>悄悄进行了一项侦查检定`` (hidden);
- Dice!: ``林语进行侦查检定：D100=28/60 成功`` (``由于… `` before a reason), ``林语的San Check：``,
  ``林语进行了一次暗中侦查检定√`` (hidden), ``林语掷骰: 1D6=4`` (bare);
- OlivaDice: ``[林语]进行技能[侦查:60]检定: 1D100=28/60 成功`` (``[侦查]``/``[60]`` when the name or
  value is missing), ``[KP]帮[玩家]的人物卡[林语]进行技能[…]检定``, ``[林语]进行理智检定[55]:``,
  ``[A]与[B]进行技能[斗殴]和技能[闪避]的对抗:``, ``…成长检定`` (growth, not a call).

Names may come with or without ``<>``; the Tachikuma issue's own example
``<玩家> 进行侦查检定: D100=28/65 困难成功`` reads as Dice!'s form.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME = r"<?(?P<pc>[^<>\n\[\]]{1,40}?)>?"
_SEAL_CHECK = re.compile(r"^(?:由于.+?，)?" + _NAME + r"的[\"“](?P<skill>[^\"”]+)[\"”]检定结果为")
_SEAL_MULTI = re.compile(r"^对" + _NAME + r"的[\"“](?P<skill>[^\"”]+)[\"”]进行了\d+次检定")
_SEAL_HIDDEN = re.compile(r"^" + _NAME + r"悄悄进行了一项(?P<skill>.+?)检定")
_SEAL_SAN = re.compile(r"^" + _NAME + r"的理智检定[:：]")
_SEAL_OPPOSED = re.compile(r"^对抗检定[:：]\s*$")
_SEAL_SIDE = re.compile(r"^\s*<?(?P<pc>[^<>\n]{1,40}?)>?\s+(?P<skill>\S.*?)\s*->\s*属性值")
_OLIVA_CHECK = re.compile(r"^(?:于群\[[^\]]*\]中)?(?:\[[^\]]*\]帮\[[^\]]*\]的人物卡)?\[(?P<pc>[^\]]{1,40})\]进行技能\[(?P<skill>[^\]]*)\](?P<growth>成长)?(?P<hidden>暗)?检定")
_OLIVA_SAN = re.compile(r"^(?:\[[^\]]*\]帮\[[^\]]*\]的人物卡)?\[(?P<pc>[^\]]{1,40})\]进行理智检定")
_OLIVA_OPPOSED = re.compile(r"^\[(?P<a>[^\]]{1,40})\]与\[(?P<b>[^\]]{1,40})\]进行技能\[(?P<sa>[^\]]+)\]和技能\[(?P<sb>[^\]]+)\]的对抗")
_DICE_CHECK = re.compile(r"^(?:由于\S+\s+)?" + _NAME + r"\s*进行(?P<hidden>了一次暗中)?(?P<skill>[^\n：:]{1,30}?)检定(?:[：:]|√)")
_DICE_SAN = re.compile(r"^" + _NAME + r"的\s*San ?Check[：:]", re.IGNORECASE)
_BARE = re.compile(r"^" + _NAME + r"\s*(?:掷骰|掷出了|的掷骰结果|进行了掷骰)[：:\s]")
_RESULT = re.compile(r"(?:D100|1D100|\(\s*\d+\s*\))\s*=\s*(?P<roll>\d+)\s*/\s*(?P<target>\d+)", re.IGNORECASE)
_COMMAND = re.compile(r"^\s*[.。/．！!](?P<cmd>[a-zA-Z]+)\s*(?P<args>.*)$", re.DOTALL)


@dataclass
class Roll:
    """What one bot reply reports. ``kind``: check, sanity, opposed, growth, hidden or bare."""

    kind: str
    sides: list[tuple[str, str]] = field(default_factory=list)  # (character as the bot names it, skill text)
    roll: int | None = None
    target: int | None = None


def _clean_skill(text: str) -> str:
    """``侦查:60`` / ``困难侦查60`` / ``侦查 60`` → ``侦查`` (the pack strips difficulty words itself)."""
    text = text.strip().strip("[]")
    text = re.sub(r"[:：]?\s*\d+\s*$", "", text)
    return text.strip()


def parse_reply(text: str) -> Roll | None:
    """The roll a bot's reply reports, or None when the reply is not a roll (help, card set, log on...)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    result = _RESULT.search(text)
    roll, target = (int(result["roll"]), int(result["target"])) if result else (None, None)
    match = _OLIVA_OPPOSED.match(first)
    if match:
        return Roll("opposed", [(match["a"], _clean_skill(match["sa"])), (match["b"], _clean_skill(match["sb"]))])
    if _SEAL_OPPOSED.match(first):
        sides = [(m["pc"].strip(), _clean_skill(m["skill"])) for m in map(_SEAL_SIDE.match, text.strip().splitlines()[1:]) if m]
        return Roll("opposed", sides) if len(sides) >= 2 else None
    match = _OLIVA_CHECK.match(first)
    if match:
        kind = "growth" if match["growth"] else "hidden" if match["hidden"] else "check"
        return Roll(kind, [(match["pc"].strip(), _clean_skill(match["skill"]))], roll, target)
    for pattern in (_OLIVA_SAN, _SEAL_SAN, _DICE_SAN):
        match = pattern.match(first)
        if match:
            return Roll("sanity", [(match["pc"].strip(), "理智")], roll, target)
    for pattern, kind in ((_SEAL_CHECK, "check"), (_SEAL_MULTI, "check"), (_SEAL_HIDDEN, "hidden")):
        match = pattern.match(first)
        if match:
            return Roll(kind, [(match["pc"].strip(), _clean_skill(match["skill"]))], roll, target)
    match = _DICE_CHECK.match(first)
    if match:
        return Roll("hidden" if match["hidden"] else "check", [(match["pc"].strip(), _clean_skill(match["skill"]))], roll, target)
    match = _BARE.match(first)
    if match:
        return Roll("bare", [(match["pc"].strip(), "")])
    return None


def command_of(text: str) -> tuple[str, str] | None:
    """``.ra 侦查60`` → (``ra``, ``侦查60``); None for a message that is not a bot command."""
    match = _COMMAND.match(text)
    return (match["cmd"].lower(), match["args"].strip()) if match else None


def command_skill(args: str) -> str:
    """The skill a check command names: ``.ra 困难侦查60`` → ``困难侦查``, ``.rc侦查 @林语`` → ``侦查``."""
    args = re.sub(r"@\S+", "", args)
    args = re.sub(r"^[bp]\d*\s*", "", args.strip())  # bonus/penalty dice: .ra b1 侦查
    return _clean_skill(args.split()[0]) if args.split() else ""
