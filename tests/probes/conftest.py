"""Deterministic scripted players and probe answerers for the probe tests (no model, no network)."""
from __future__ import annotations

import hashlib
import json
import re

import pytest

NAMES = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley", "Gray"]


def _pick(options: list[str], text: str) -> str:
    digest = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    return options[digest % len(options)]


def _options(text: str) -> list[str]:
    m = re.search(r"one of: ([^.\n]+)", text)
    return [o.strip() for o in m.group(1).split(",")] if m else NAMES[:1]


def game_reply(step: str | None, messages: list[dict]) -> str:
    """A seat's move: a hash of what it was shown picks among the legal options."""
    last = messages[-1]["content"]
    seen = json.dumps(messages)
    if step == "mafia.speak":
        return json.dumps({"thought": "hm", "speech": f"I think {_pick(NAMES, seen)} is odd."})
    if step == "mafia.vote":
        return json.dumps({"thought": "", "vote": _pick(_options(last), seen)})
    return json.dumps({"thought": "", "target": _pick(_options(last), seen)})


def probe_reply(step: str | None, messages: list[dict]) -> str:
    """A probe answer shaped after the probe asked, naming the players listed in the question."""
    q = messages[-1]["content"]
    m = re.search(r"\(([A-Z][a-z]+(?:, [A-Z][a-z]+)*)\)", q)
    players = m.group(1).split(", ") if m else NAMES
    h = int(hashlib.sha256(json.dumps(messages).encode()).hexdigest(), 16)
    pid = (step or "").removeprefix("probe:")
    if pid == "role_assessment":
        return json.dumps([{"player": p, "guessed_role": ["Mafia", "Villager", "Unknown", "Doctor"][(h >> i) % 4],
                            "confidence": (h >> (2 * i)) % 101, "reason": "x"} for i, p in enumerate(players)])
    if pid == "role_beliefs":
        return json.dumps([{"player": p, "beliefs": {"Mafia": (h >> i) % 60, "Doctor": 10, "Villager": 30}}
                           for i, p in enumerate(players)])
    if pid == "suspicion_ranking":
        return json.dumps([{"player": p, "score": (h >> (3 * i)) % 100} for i, p in enumerate(players)])
    if pid == "social_map":
        return json.dumps({"toward_me": [{"player": p, "attitude": ["trusts", "neutral", "suspects"][(h >> i) % 3],
                                          "confidence": 60} for i, p in enumerate(players)]})
    if pid == "planned_action":
        return json.dumps({"action": "vote", "target": players[0], "reasoning": "x"})
    if pid == "personality":
        return json.dumps([{"player": p, "O": 50, "C": 50, "E": 50, "A": 50, "N": 50} for p in players])
    if pid == "batch":
        ids = re.findall(r'### "([a-z_]+)"', q)
        return json.dumps({i: json.loads(probe_reply("probe:" + i, messages)) for i in ids})
    return "not json at all"


def responder(step: str | None, messages: list[dict]) -> str:
    if step and step.startswith("probe:"):
        return probe_reply(step, messages)
    return game_reply(step, messages)


@pytest.fixture
def respond():
    """The responder: game moves for ``mafia.*`` steps, shaped answers for ``probe:*`` steps."""
    return responder


@pytest.fixture
def scripted_model():
    from pipelines.llm import ScriptedModel

    return ScriptedModel(responder=responder, name="scripted:test")
