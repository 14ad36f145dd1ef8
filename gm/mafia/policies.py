"""Scripted Mafia players: ``random`` (uniform legal moves), ``heuristic`` and ``bluff``.

The heuristic player uses only its own knowledge (role, partners, its own checks) and the
public record: a Sheriff who found Mafia says so; villagers follow a Sheriff's claim, else the
most-accused living player; the Mafia kill a claimed Sheriff first and never vote a partner.
They speak the game's language (``game.lang``), and read claims and accusations in any of them.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any

from gm.social.ask import Ask

# What scripted seats say, per game language. A claim or accusation names one player, and the
# patterns below read it back from a speech in any language (names are one word in both).
_CLAIM_SAY = {"en": "Sheriff: {name} is Mafia. Vote them out.", "zh": "我是警长：{name}是黑手党，投他出局。"}
_SUSPECT_SAY = {"en": "I suspect {name}.", "zh": "我怀疑{name}。"}
_IDLE = {"en": ("I have no lead yet.", "Let's hear everyone.", "Something feels off."),
         "zh": ("我暂时没有线索。", "先听听大家怎么说。", "总觉得哪里不对。")}
_NO_COMMENT = {"en": "No comment.", "zh": "我没什么要说的。"}
_CLAIM = re.compile(r"Sheriff: (\w+) is Mafia|我是警长：(\w+?)是黑手党")
_SUSPECT = re.compile(r"I suspect (\w+)|我怀疑(\w+?)。")


def _named(match: re.Match[str] | None) -> str | None:
    return next((g for g in match.groups() if g), None) if match else None


def _lang(g: Any) -> str:
    return getattr(g, "lang", "en") if getattr(g, "lang", "en") in _IDLE else "en"


def random_policy(seat: Any, ask: Ask) -> Any:
    rng, kind = seat.rng, ask.kind
    if kind == "speak":
        return {"text": rng.choice(_IDLE[_lang(seat.game)])}
    if kind == "vote":
        opts = ask.options + ([None] if ask.extra.get("abstain") else [])
        return rng.choice(opts)
    return rng.choice(ask.options)


def _public_claims(g: Any) -> tuple[set[str], Counter]:
    """Players publicly named as Mafia by a Sheriff claim, and accusation counts, among the living."""
    claimed: set[str] = set()
    accused: Counter = Counter()
    claimers: set[str] = set()
    for e in g.log.events:
        if e["kind"] == "speech" and not e.get("private"):
            named = _named(_CLAIM.search(e["text"]))
            if named:
                claimed.add(named)
                claimers.add(e["player"])
            named = _named(_SUSPECT.search(e["text"]))
            if named:
                accused[named] += 1
    return claimed, accused, claimers


def heuristic_policy(seat: Any, ask: Ask) -> Any:
    g, rng, kind, me = seat.game, seat.rng, ask.kind, seat.name
    mafia = g.is_mafia(me)
    partners = {p for p in g.names if p != me and mafia and g.is_mafia(p)}
    mine = g.checked if g.roles[me] == g.table.sheriff_role else {}
    if kind == "kill":
        _, _, claimers = _public_claims(g)
        hot = [p for p in ask.options if p in claimers]
        return hot[0] if hot else ask.options[(g.round * 7 + len(g.alive)) % len(ask.options)]
    if kind == "save":
        _, _, claimers = _public_claims(g)
        hot = [p for p in ask.options if p in claimers]
        return hot[0] if hot else (me if me in ask.options and rng.random() < 0.5 else rng.choice(ask.options))
    if kind == "check":
        fresh = [p for p in ask.options if p not in g.checked]
        return rng.choice(fresh or ask.options)
    if kind == "speak":
        found = [p for p, r in mine.items() if r == "mafia" and p in g.alive]
        lang = _lang(g)
        if found:
            return {"text": _CLAIM_SAY[lang].format(name=found[0])}
        others = [p for p in g.alive if p != me and p not in partners]
        return {"text": _SUSPECT_SAY[lang].format(name=rng.choice(others))} if others else {"text": _NO_COMMENT[lang]}
    if kind == "vote":
        opts = [p for p in ask.options if p not in partners]
        if not opts:
            return rng.choice(ask.options)
        claimed, accused, _ = _public_claims(g)
        if not mafia:
            found = [p for p in opts if mine.get(p) == "mafia"]
            if found:
                return found[0]
            named = [p for p in opts if p in claimed]
            if named:
                return named[0]
        best = max(opts, key=lambda p: (accused[p], rng.random()))
        return best
    raise ValueError(f"no heuristic move for {kind}")


def bluff_policy(seat: Any, ask: Ask) -> Any:
    """``heuristic``, except that a Mafioso speaks as a false Sheriff and names a living town player.

    A second scripted model that plays the Mafia side differently (the heuristic town follows a
    Sheriff's claim), so a tournament has two scripted strategies to pit against each other.
    """
    g, me = seat.game, seat.name
    if ask.kind == "speak" and g.is_mafia(me):
        town = [p for p in g.alive if p != me and not g.is_mafia(p)]
        if town:
            return {"text": _CLAIM_SAY[_lang(g)].format(name=seat.rng.choice(town))}
    return heuristic_policy(seat, ask)


POLICIES = {"random": random_policy, "heuristic": heuristic_policy, "bluff": bluff_policy}
