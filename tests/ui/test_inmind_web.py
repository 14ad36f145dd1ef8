"""The InMind tab's game (``ui.web._inmind_game``) and its handlers, without a browser: a person's answers
reach the recorder, bad input is one line, and a stopped game writes nothing."""
import html
import json
from pathlib import Path

import gradio as gr
import pytest

from eval.inmind import load_released, load_sessions
from rulesets import VgmError
from ui.web._common import AppContext
from ui.web._inmind_game import WebRecording

TRACE = "Player 4 rejected a clean team; I suspect Player 4."
REFLECTION = "Player 4 was evil after all; I should have said so sooner."


def _answer(request) -> str:
    """A person who picks the first seats offered, approves, plays Success and writes the same notes."""
    return {"propose": lambda: ", ".join(request.options[:request.size]), "vote": lambda: "y", "mission": lambda: "s",
            "assassinate": lambda: request.options[0], "trace": lambda: TRACE, "reflection": lambda: REFLECTION,
            }.get(request.kind, lambda: "I trust this team.")()


def _play(rec: WebRecording) -> list[str]:
    kinds = []
    while not rec.done:
        assert rec.request is not None, rec.failure
        kinds.append(rec.request.kind)
        rec.answer(_answer(rec.request), timeout=10)
    return kinds


@pytest.mark.parametrize("mode", ["participant", "observer"])
def test_a_person_records_a_session_the_importer_reads(tmp_path, mode):
    rec = WebRecording(mode=mode, out=str(tmp_path), seat=2, others="scripted", lang="en", seed=3).start(10)
    assert rec.view()[0].startswith("You are P2"), "the page shows what the seat may see"
    kinds = _play(rec)
    assert rec.result is not None and rec.failure == ""
    session = load_released(rec.result["log"])
    assert session.mode == mode and session.subject_seat == 2
    assert session.traces and all(n.text == TRACE for n in session.traces)
    assert session.reflection == REFLECTION and kinds[-1] == "reflection"
    if mode == "participant":
        assert {"speak", "vote"} <= set(kinds)
    else:
        assert set(kinds) == {"trace", "reflection"}, "a watcher is asked only for notes"


def test_a_chinese_game_asks_in_chinese(tmp_path):
    rec = WebRecording(mode="participant", out=str(tmp_path), seat=1, others="scripted", lang="zh", seed=4).start(10)
    while rec.request and rec.request.kind != "trace":
        rec.answer(_answer(rec.request), timeout=10)
    assert "策略轨迹" in rec.request.question
    rec.stop(timeout=5)


def test_an_empty_note_is_refused_and_the_game_still_waits_for_it(tmp_path):
    rec = WebRecording(mode="observer", out=str(tmp_path), seat=1, others="scripted", seed=2).start(10)
    asked = rec.request
    assert asked.kind == "trace"
    with pytest.raises(VgmError, match="^the strategy trace is empty; write a sentence or two$"):
        rec.answer("  \n ")
    assert rec.request is asked and not rec.done
    rec.stop(timeout=5)


def test_a_refused_move_comes_back_with_the_engines_reason(tmp_path):
    rec = WebRecording(mode="participant", out=str(tmp_path), seat=1, others="scripted", seed=3).start(10)
    while rec.request.kind != "propose":
        rec.answer(_answer(rec.request), timeout=10)
    first = rec.request
    rec.answer(first.options[0], timeout=10)  # one seat short of a team
    assert rec.request.kind == "propose" and rec.request.n == first.n + 1
    assert "needs a team of exactly" in rec.request.error and rec.request.question == first.question
    rec.stop(timeout=5)


@pytest.mark.parametrize("others, message", [
    ("nonsense:model", "unknown model string 'nonsense:model'"),
    ("scripted:/no/such/replies.yaml", "scripted model file /no/such/replies.yaml not found"),
    ("", "give the other seats"),
])
def test_an_unknown_model_string_is_one_line_before_any_file(tmp_path, others, message):
    with pytest.raises(VgmError, match="^" + message) as caught:
        WebRecording(mode="participant", out=str(tmp_path / "s"), seat=1, others=others)
    assert "\n" not in str(caught.value) and not (tmp_path / "s").exists()


def test_an_unwritable_folder_is_one_line_before_the_game(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(VgmError, match="a-file") as caught:
        WebRecording(mode="participant", out=str(tmp_path / "a-file" / "sessions"), seat=1, others="scripted")
    assert "\n" not in str(caught.value)


def test_stopping_half_way_writes_nothing_and_keeps_the_finished_games(tmp_path):
    done = WebRecording(mode="participant", out=str(tmp_path), seat=1, others="scripted", seed=3).start(10)
    _play(done)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    rec = WebRecording(mode="participant", out=str(tmp_path), seat=1, others="scripted", seed=4).start(10)
    rec.answer(_answer(rec.request), timeout=10)
    rec.stop(timeout=5)
    assert rec.done and rec.stopped and rec.result is None
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    [session] = load_sessions(tmp_path)
    assert session.reflection == REFLECTION


# -- the tab's handlers ------------------------------------------------------------------------
@pytest.fixture
def tab():
    from ui.web._inmind import InMindTab

    with gr.Blocks():
        return InMindTab(AppContext(), gr.State(None))


def test_the_tab_offers_a_team_picker_then_says_where_the_session_went(tab, tmp_path):
    shown = tab._start(None, None, "participant", "en", 1, "scripted", str(tmp_path), 3)
    rec = shown[tab.rec]
    assert "Your turn" in shown[tab.status] and "You are P1" in shown[tab.view]
    proposed = False
    while not rec.done:
        request = rec.request
        if request.kind == "propose":
            assert shown[tab.team]["visible"] and shown[tab.team]["choices"] == request.options
            proposed = True
        shown = tab._send(None, rec, request.options[:request.size], {"vote": "y", "mission": "s"}.get(request.kind),
                          _answer(request), False)
    assert proposed
    assert "Session saved to" in shown[tab.status] and "vgm inmind import --data" in shown[tab.status]
    assert json.loads(Path(rec.result["log"]).read_text(encoding="utf-8"))["my_review"]["msg"] == REFLECTION


def test_the_tabs_bad_input_is_one_red_line(tab, tmp_path):
    shown = tab._start(None, None, "participant", "en", 1, "gpt-who", str(tmp_path), 1)
    assert shown[tab.rec] is None and "vgm-denied" in shown[tab.status]
    assert "unknown model string 'gpt-who'" in html.unescape(shown[tab.status])
    shown = tab._start(None, None, "participant", "en", 1, "scripted", "  ", 1)
    assert "give an output folder" in shown[tab.status]
    shown = tab._start(None, None, "observer", "en", 1, "scripted", str(tmp_path), 1)
    rec = shown[tab.rec]
    shown = tab._send(None, rec, [], None, "", False)
    assert "the strategy trace is empty" in shown[tab.alert] and rec.request.kind == "trace"
    shown = tab._stop(None, rec)
    assert shown[tab.status].startswith("Stopped: nothing was written") and not list(tmp_path.glob("*.json"))
