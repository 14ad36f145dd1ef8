"""Both web servers at their edge (issue 43): a body is refused by its size and its token before
it is read, JSON nests at most 32 deep, every failure is one ``{"error": ...}`` line, and text is
cleaned on the way in, so one bad note can no longer stop the table (it gave 500 on every later
line, and the session was not saved although the message said so)."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gm.agent import GameMaster
from pipelines.llm import ScriptedModel
from ui.web import TableRoom, create_table_app

WORDS = "Steel rings against steel as the goblins scatter through the bracken and the mule brays."
MB = 1024 * 1024


@pytest.fixture
def room(tmp_path):
    gm = GameMaster("dnd5e", "ambush", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False, seed=3,
                    session_path=tmp_path / "room.json")
    return TableRoom.open(gm)


def tokens(room):
    return {seat: link.split("token=")[1] for seat, link in room.links("http://t").items()}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


async def _asgi(app, method: str, path: str, headers: dict[str, str], chunks, query: str = "") -> tuple[int, dict, int]:
    """Call an ASGI app with a body given in chunks; (status, JSON answer, chunks the app pulled)."""
    chunks = list(chunks) if not callable(chunks) else chunks
    total = len(chunks) if not callable(chunks) else chunks.count
    pulled = 0

    async def receive():
        nonlocal pulled
        if pulled < total:
            pulled += 1
            chunk = chunks(pulled) if callable(chunks) else chunks[pulled - 1]
            return {"type": "http.request", "body": chunk, "more_body": pulled < total}
        await asyncio.sleep(30)
        return {"type": "http.disconnect"}

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": query.encode(),
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}
    await asyncio.wait_for(app(scope, receive, send), 20)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body), pulled


class Megabytes:
    """A 100 MB body as 1 MB chunks, never all in memory."""

    count = 100
    chunk = b"x" * MB

    def __call__(self, i: int) -> bytes:
        return self.chunk


# ----- the table ------------------------------------------------------------------------------------


def test_a_bad_note_is_refused_at_the_edge_and_the_table_plays_on(room, tmp_path):
    """The issue's case: a lone surrogate in a note gave 500 on the note, on every later line and on
    the host's state, and the session was not saved although the message said it was."""
    t = tokens(room)
    client = TestClient(create_table_app(room))
    body = b'{"token": "%s", "notes": ["\\ud800x"]}' % t["host"].encode()  # the token in the body too, as clients sent it before
    r = client.post("/api/notes", content=body, headers={**bearer(t["host"]), "Content-Type": "application/json"})
    assert r.status_code == 400 and set(r.json()) == {"error"} and "UTF-8" in r.json()["error"]
    r = client.post("/api/notes", content='{"notes": ["caf\u00e9"]}'.encode("latin-1"), headers=bearer(t["host"]))
    assert r.status_code == 400 and set(r.json()) == {"error"}  # not UTF-8 at all
    act = client.post("/api/act", json={"token": t["Brisa Tallowmere"], "text": "I attack the nearest goblin"},
                      headers=bearer(t["Brisa Tallowmere"]))
    assert act.status_code == 200 and act.json()["narration"] == WORDS
    assert client.get("/api/state", params={"token": t["host"]}).status_code == 200
    saved = json.loads((tmp_path / "room.json").read_text())
    assert saved["log"][-1]["text"] == WORDS  # the turn is on disk


def test_from_python_a_bad_note_is_cleaned_not_stored_as_it_came(room, tmp_path):
    host = tokens(room)["host"]
    kept = room.set_notes(host, ["\ud800x", "red\x1b[31m alert\x07", "tab\tkept"])
    assert kept == ["\ufffdx", "red[31m alert", "tab kept"]
    assert json.loads((tmp_path / "room.json").read_text())["scenario"]["notes"] == kept
    assert room.act(tokens(room)["Brisa Tallowmere"], "I attack the nearest goblin")["narration"] == WORDS


def test_control_characters_never_reach_the_log_or_the_other_pages(room):
    t = tokens(room)
    client = TestClient(create_table_app(room))
    start = room.seq
    line = "I attack\x00 the\x07 nearest\x1b\x9b goblin\x7f"
    r = client.post("/api/act", json={"text": line}, headers=bearer(t["Brisa Tallowmere"]))
    assert r.status_code == 200, r.text
    said = [e for e in room.events_since(start, room.seat(t["Oskar Venn"]))[0] if e["kind"] == "said"]
    assert said[0]["text"] == "I attack the nearest goblin"
    assert "I attack the nearest goblin" in [x.text for x in room.gm.session.log]


def test_clean_text_keeps_newlines_and_tabs_and_drops_the_rest():
    from ui._text import clean_text, terminal_safe

    assert clean_text("a\x1b[2Jb\r\nc\rd\te\x00\x07\x9b\ud800") == "a[2Jb\nc\nd\te\ufffd"
    assert terminal_safe("Brisa\x1b]0;pwned\x07\x00\x9b\nok\t") == "Brisa\\x1b]0;pwned\\x07\\x00\\x9b\nok\t"


def test_a_huge_body_without_a_token_is_refused_before_one_byte_is_read(room):
    """It was read whole first (100 MB: 1.8 s, memory 232 -> 518 MB), then refused."""
    app = create_table_app(room)
    status, answer, pulled = asyncio.run(_asgi(app, "POST", "/api/act", {"content-length": str(100 * MB)}, Megabytes()))
    assert (status, answer, pulled) == (403, {"error": "access denied"}, 0)
    # without a length and without a token: still refused before the body
    status, answer, pulled = asyncio.run(_asgi(app, "POST", "/api/notes", {}, Megabytes()))
    assert (status, pulled) == (403, 0)


def test_a_huge_body_with_a_good_token_is_cut_off_at_the_limit(room):
    app = create_table_app(room)
    host = tokens(room)["host"]
    status, answer, pulled = asyncio.run(_asgi(app, "POST", "/api/act", {"content-length": str(100 * MB), **bearer(host)}, Megabytes()))
    assert status == 413 and pulled == 0 and "over 65,536 bytes" in answer["error"]
    status, answer, pulled = asyncio.run(_asgi(app, "POST", "/api/act", bearer(host), Megabytes()))  # chunked, no length
    assert status == 413 and pulled == 1  # stopped at the first megabyte


def test_json_nested_100000_deep_is_a_400_not_a_recursion_error(room):
    t = tokens(room)
    client = TestClient(create_table_app(room))
    whole = client.post("/api/act", content=b"[" * 100_000 + b"]" * 100_000, headers=bearer(t["Brisa Tallowmere"]))
    assert whole.status_code == 413 and set(whole.json()) == {"error"}  # the body is over the size limit first
    for body in (b"[" * 30_000 + b"]" * 30_000, b'{"text": ' + b"[" * 40 + b"]" * 40 + b"}",
                 b'{"text": "I hide", "x": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}"):
        r = client.post("/api/act", content=body, headers={**bearer(t["Brisa Tallowmere"]), "Content-Type": "application/json"})
        assert r.status_code == 400 and "nests deeper than 32" in r.json()["error"], r.text[:200]
    assert room.gm.session.turns == []


@pytest.mark.parametrize("body", [b"{not json", b"NaN", b'{"text": NaN}', b'"just a string"', b"[1, 2]", b'{"text": 1e999}',
                                  b'{"text": ["a"]}', b"\xff\xfe{}"])
def test_every_malformed_body_is_one_error_line(room, body):
    r = TestClient(create_table_app(room)).post("/api/act", content=body, headers=bearer(tokens(room)["Oskar Venn"]))
    assert 400 <= r.status_code < 500 and set(r.json()) == {"error"} and "\n" not in r.json()["error"], r.text


@pytest.mark.parametrize("kind", ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"])
def test_a_form_or_text_body_is_a_400_not_a_500(room, kind):
    r = TestClient(create_table_app(room)).post("/api/notes", content=b"notes=a", headers={**bearer(tokens(room)["host"]), "Content-Type": kind})
    assert r.status_code == 400 and set(r.json()) == {"error"}, r.text


def test_two_tokens_in_one_address_open_nothing(room):
    t = tokens(room)
    client = TestClient(create_table_app(room))
    assert client.get(f"/api/state?token=x&token={t['host']}").status_code == 403
    assert client.get(f"/api/state?token={t['host']}").status_code == 200


def test_every_failure_of_the_table_is_the_same_json_shape(room):
    from ui.web._table_app import _after

    client = TestClient(create_table_app(room))
    brisa = bearer(tokens(room)["Brisa Tallowmere"])
    for r, status in [(client.get("/api/nothing-here", headers=brisa), 404), (client.put("/api/act", headers=brisa), 405),
                      (client.post("/api/act", headers={**brisa, "Content-Length": "lots"}), 400)]:
        assert r.status_code == status and set(r.json()) == {"error"}, r.text
    # a Last-Event-ID that str.isdigit takes and int() does not (it was a 500): read as no number
    assert _after("\u00b2") is None and _after("-1") is None and _after("9" * 40) is None and _after("12") == 12


def test_a_turn_that_cannot_be_saved_says_so_and_the_table_is_as_last_saved(room, tmp_path, monkeypatch):
    """'Saved' is only said after the write: a failing save is a 500 that says the line was not taken."""
    t = tokens(room)
    client = TestClient(create_table_app(room))
    before = (tmp_path / "room.json").read_text()
    session_type = type(room.gm.session)
    real_save = session_type.save
    monkeypatch.setattr(session_type, "save", lambda self, path=None: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    r = client.post("/api/act", json={"text": "I attack the nearest goblin"}, headers=bearer(t["Brisa Tallowmere"]))
    assert r.status_code == 500
    assert r.json()["error"] == ("the GM hit a bug (OSError) on that line; it was not taken and the table is as it was "
                                 "last saved; try again")
    assert (tmp_path / "room.json").read_text() == before
    assert "I attack the nearest goblin" not in [x.text for x in room.gm.session.log]  # memory matches the disk
    monkeypatch.setattr(session_type, "save", real_save)
    assert client.post("/api/act", json={"text": "I attack the nearest goblin"}, headers=bearer(t["Brisa Tallowmere"])).status_code == 200


def test_the_page_puts_every_text_on_the_page_as_text():
    """Stored text is shown as text: the script builds nodes with textContent, never HTML from data."""
    from ui.web._table_page import PAGE

    script = PAGE.split("<script>")[1]
    assert "innerHTML" not in script.replace("document.body.innerHTML = '';", "")
    assert "insertAdjacentHTML" not in script and "outerHTML" not in script and "document.write" not in script


# ----- the rating server ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rating(tmp_path_factory):
    from eval.ratings import build_study
    from eval.ratings._demo import write_demo_runs
    from ui.web import create_app

    folder = tmp_path_factory.mktemp("rating")
    runs = write_demo_runs(folder / "demo", n=12)
    study, _, _ = build_study(runs, folder / "study.db", n=10)
    token = study.owner().add_rater("bo").token
    return create_app(study=folder / "study.db", runs_dir=folder), token


def test_the_rating_api_refuses_a_huge_body_without_a_token_before_reading_it(rating):
    app, _ = rating
    status, answer, pulled = asyncio.run(_asgi(app, "POST", "/api/rate/submit", {"content-length": str(100 * MB)}, Megabytes()))
    assert (status, answer, pulled) == (401, {"error": "access denied"}, 0)


def test_the_rating_api_cuts_a_huge_body_off_and_refuses_deep_json_in_one_shape(rating):
    app, token = rating
    status, answer, pulled = asyncio.run(_asgi(app, "POST", "/api/rate/submit", bearer(token), Megabytes()))
    assert status == 413 and pulled == 1 and set(answer) == {"error"}
    client = TestClient(app)
    r = client.post("/api/rate/submit", content=b"[" * 30_000 + b"]" * 30_000, headers={**bearer(token), "Content-Type": "application/json"})
    assert r.status_code == 400 and "nests deeper" in r.json()["error"]
    r = client.post("/gradio_api/queue/join", content=b"[" * 100_000 + b"]" * 100_000, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "nests deeper" in r.json()["error"]  # the page's own calls too
    r = client.post("/api/rate/submit", json={"item_id": 0, "skip": True}, headers=bearer(token))
    assert r.status_code == 422 and set(r.json()) == {"error"} and r.json()["error"].startswith("item_id:")
    r = client.get("/api/rate/next")
    assert r.status_code == 401 and r.json() == {"error": "access denied"}


def test_a_comment_is_cleaned_before_the_study_stores_it(rating):
    app, token = rating
    client = TestClient(app)
    item = client.get("/api/rate/next", headers=bearer(token)).json()["item"]
    r = client.post("/api/rate/submit", headers=bearer(token), json={
        "item_id": item["id"], "naturalness": 3, "groundedness": 3, "factual": 3, "comment": "fine\x1b]0;pwned\x07 line\x00"})
    assert r.status_code == 200, r.text
    mine = client.get("/api/rate/mine", headers=bearer(token)).json()["ratings"]
    assert [m["comment"] for m in mine if m["item_id"] == item["id"]] == ["fine]0;pwned line"]
