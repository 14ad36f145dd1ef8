"""Helpers for the social-deduction tests: scripted LLM responders that play by a plan."""
import json
import re

import pytest

from pipelines.llm import ScriptedModel


def seat_name(messages):
    """The seat a request is for, read from its system prompt ("You are NAME, ...")."""
    return re.match(r"You are (\w+)", messages[0]["content"]).group(1)


def responder_model(fn):
    """A ScriptedModel whose reply is ``json.dumps(fn(step, name, question, messages))``."""

    def respond(step, messages):
        out = fn(step, seat_name(messages), messages[-1]["content"], messages)
        return out if isinstance(out, str) else json.dumps(out)

    return ScriptedModel(responder=respond)


@pytest.fixture
def make_responder():
    return responder_model


@pytest.fixture
def seat_of():
    return seat_name
