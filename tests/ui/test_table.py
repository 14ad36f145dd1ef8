"""The shared table without a browser: links guard everything, one GM turn at a time, every page
hears the same events, the host's notes are saved and outlive an undo, and a room reopens."""
from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from eval.ratings import AccessDenied
from gm.agent import GameMaster
from gm.combat import Combat
from pipelines.llm import ScriptedModel
from rulesets import VgmError
from ui.web import Seats, TableRoom, create_table_app, links_path
from ui.web._table_app import event_stream

WORDS = "Steel rings against steel as the goblins scatter through the bracken and the mule brays."


def ambush(tmp_path, name="room.json", **kw):
    model = ScriptedModel(replies=[WORDS], repeat_last=True)
    return GameMaster("dnd5e", "ambush", model, memory=False, seed=3, session_path=tmp_path / name, **kw)


@pytest.fixture
def room(tmp_path):
    return TableRoom.open(ambush(tmp_path))


def tokens(room):
    return {seat: link.split("token=")[1] for seat, link in room.links("http://t").items()}


def heard(room, token, after):
    """The kinds of event the seat of ``token`` hears after ``after``."""
    return [e["kind"] for e in room.events_since(after, room.seat(token))[0]]


def post(client, path, token, **body):
    return client.post(path, json=body, headers={"Authorization": f"Bearer {token}"})


# ----- links and access ---------------------------------------------------------------------


def test_every_seat_has_its_own_private_link_kept_beside_the_session(room, tmp_path):
    t = tokens(room)
    assert set(t) == {"host", "Ilya Thorncastle", "Brisa Tallowmere", "Oskar Venn"}
    assert len(set(t.values())) == 4 and all(len(v) >= 20 for v in t.values())
    assert room.seat(t["Brisa Tallowmere"]).character == "Brisa Tallowmere" and room.seat(t["host"]).role == "host"
    path = links_path(tmp_path / "room.json")
    assert path == tmp_path / "room.links.json" and path.stat().st_mode & 0o077 == 0  # only the owner can read it


@pytest.mark.parametrize("bad", [None, "", "not-a-token", "x" * 500])
def test_a_wrong_token_gets_access_denied_from_every_route_and_nothing_else(room, bad):
    with pytest.raises(AccessDenied):
        room.view(bad)
    client = TestClient(create_table_app(room))
    page = client.get("/", params={"token": bad} if bad is not None else {})
    assert page.status_code == 403 and "access denied" in page.text
    assert "Goblin" not in page.text and "Ambush" not in page.text and "Brisa" not in page.text
    assert client.get("/api/state", params={"token": bad}).json() == {"error": "access denied"}
    assert client.get("/api/events", params={"token": bad}).status_code == 403
    for path, body in [("/api/act", {"text": "I attack"}), ("/api/undo", {}), ("/api/regenerate", {}),
                       ("/api/notes", {"notes": ["x"]}), ("/api/renew", {"seat": "Brisa"})]:
        for r in (client.post(path, json={"token": bad, **body}), client.post(path, json=body, params={"token": bad} if bad else {}),
                  client.post(path, json=body, headers={"Authorization": f"Bearer {bad}"} if bad else {})):
            assert r.status_code == 403 and r.json() == {"error": "access denied"}, path
    assert room.gm.scenario.notes[0].startswith("The goblins flee")  # nothing changed


def test_a_player_cannot_do_what_only_the_host_does(room):
    brisa = tokens(room)["Brisa Tallowmere"]
    for act in (room.undo, room.regenerate, lambda t: room.set_notes(t, ["mine now"]), lambda t: room.renew_link(t, "Oskar")):
        with pytest.raises(AccessDenied):
            act(brisa)
    view = room.view(brisa)
    assert "notes" not in view and "links" not in view and "can_undo" not in view  # GM-only notes stay with the host
    assert "The goblins flee" not in json.dumps(view)
    host = room.view(tokens(room)["host"], "http://t")
    assert host["notes"][0].startswith("The goblins flee") and host["links"]["Oskar Venn"].startswith("http://t/?token=")


def test_a_revoked_link_is_denied_at_once_and_the_new_one_works(room):
    t = tokens(room)
    new = room.renew_link(t["host"], "oskar", "http://t")
    with pytest.raises(AccessDenied):
        room.view(t["Oskar Venn"])
    assert room.view(new.split("token=")[1])["you"]["character"] == "Oskar Venn"
    assert room.view(t["Brisa Tallowmere"])  # the others keep theirs
    with pytest.raises(VgmError, match="no seat 'Zed'"):
        room.renew_link(t["host"], "Zed")


def test_revoke_from_the_command_line_reaches_a_running_room(room, tmp_path):
    from ui.cli import app

    old = tokens(room)["Brisa Tallowmere"]
    time.sleep(0.01)
    result = CliRunner().invoke(app, ["table", "revoke", str(tmp_path / "room.json"), "Brisa", "--base-url", "http://h:9"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Brisa Tallowmere: http://h:9/?token=")
    with pytest.raises(AccessDenied):
        room.view(old)
    listed = CliRunner().invoke(app, ["table", "links", str(tmp_path / "room.json")])
    assert listed.exit_code == 0 and listed.output.splitlines()[0].startswith("host: http://127.0.0.1:7861/?token=")
    missing = CliRunner().invoke(app, ["table", "links", str(tmp_path / "none.json")])
    assert missing.exit_code != 0 and "serve the room once" in missing.output


def test_an_event_stream_ends_with_denied_when_its_link_is_revoked(room):
    t = tokens(room)

    async def follow():
        out = []
        async for chunk in event_stream(room, t["Oskar Venn"], room.seq):
            out.append(chunk)
            if chunk.startswith("retry"):
                await asyncio.to_thread(room.act, t["Brisa Tallowmere"], "/roll 1d20")  # as the server does
            elif "event: done" in chunk:
                room.renew_link(t["host"], "Oskar")
        return "".join(out)

    text = asyncio.run(asyncio.wait_for(follow(), 10))
    assert "event: said" in text and "/roll 1d20" in text and "event: done" in text
    assert text.rstrip().endswith('data: {"error": "access denied"}')


# ----- turns ------------------------------------------------------------------------------------


def test_a_player_acts_as_their_own_character_and_everyone_hears_it_in_order(room):
    t = tokens(room)
    start = room.seq
    out = room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")
    assert out["character"] == "Brisa Tallowmere" and out["narration"] == WORDS
    for seat in ("Brisa Tallowmere", "Oskar Venn", "host"):  # the sender and the others alike
        assert heard(room, t[seat], start) == ["busy", "said", "mechanics", "token", "done"], seat
    said = room.events_since(start, room.seat(t["Oskar Venn"]))[0][1]
    assert said["who"] == "Brisa Tallowmere" and said["text"] == "I attack the nearest goblin"
    state = room.view(t["Oskar Venn"])
    assert state["turn"] == "Oskar Venn" and state["fight"] and state["round"] == 1
    assert {o["name"]: o["hp"] for o in state["order"]}["Goblin 1"] == "1/7 HP"
    assert state["log"][-1] == {"speaker": "GM", "text": WORDS}
    assert json.loads(Path(room.gm.session.path).read_text())["combat"]["order"]  # saved after the action


def test_out_of_turn_is_one_line_for_the_player_and_nothing_for_the_others(room):
    t = tokens(room)
    before, start = room.gm.session.model_dump_json(), room.seq
    client = TestClient(create_table_app(room))
    r = post(client, "/api/act", t["Oskar Venn"], text="I attack the nearest goblin")
    assert r.status_code == 400 and r.json()["error"].startswith("it is Brisa Tallowmere's turn")
    assert "\n" not in r.json()["error"]
    assert heard(room, t["Oskar Venn"], start) == ["busy", "idle"]  # the sender's page waits, then hears the refusal
    for other in ("Brisa Tallowmere", "Ilya Thorncastle", "host"):
        assert heard(room, t[other], start) == [], other  # nobody else hears a thing, not even who tried
    assert room.gm.session.model_dump_json() == before
    assert not room.undo(t["host"])  # a refused line leaves nothing to undo


def test_the_hosts_own_doings_reach_the_host_only(room):
    t = tokens(room)
    start = room.seq
    room.set_notes(t["host"], ["The goblins fight to the death."])
    room.renew_link(t["host"], "Oskar")
    assert heard(room, t["host"], start) == ["notes", "revoked"]
    assert heard(room, t["Brisa Tallowmere"], start) == []  # players learn of neither (Oskar's page is told "denied" by its stream)


def test_players_roll_and_check_from_their_seat(room):
    t = tokens(room)
    out = room.act(t["Oskar Venn"], "/roll 2d6+1")  # a free roll: anyone, any time
    assert out["lines"][0].startswith("[roll] Oskar Venn: 2d6")
    assert room.view(t["Brisa Tallowmere"])["log"][-1]["text"].startswith("/roll 2d6+1")
    assert not room.can_regenerate()  # the last thing said was a roll, not a GM reply
    checked = room.act(t["Brisa Tallowmere"], "/check perception")
    assert any(line.startswith("[roll] Brisa Tallowmere — Perception") for line in checked["lines"])
    with pytest.raises(VgmError, match="/check"):
        room.act(t["Oskar Venn"], "/check basket weaving")


def test_the_host_may_speak_for_any_character(room):
    host = tokens(room)["host"]
    assert room.act(host, "I attack the nearest goblin", character="Brisa")["character"] == "Brisa Tallowmere"
    with pytest.raises(VgmError, match="no character 'Zed'"):
        room.act(host, "I hide", character="Zed")


def test_turns_are_served_one_at_a_time(tmp_path):
    """Two players send at once: the second waits, and its events never mix with the first's."""
    inside, most = [0], [0]

    def slow(step, messages):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.15)
        inside[0] -= 1
        return "Water drips from the cracked bell while the old keeper watches you."

    gm = GameMaster("dnd5e", "drowned_chapel", ScriptedModel(responder=slow), memory=False, seed=1, session_path=tmp_path / "c.json")
    room = TableRoom.open(gm)
    t = tokens(room)
    start = room.seq
    results, errors = [], []

    def play(seat, line):
        try:
            results.append(room.act(t[seat], line))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(seat, line)) for seat, line in
               [("Brisa Tallowmere", "I look under the altar"), ("Oskar Venn", "I pray quietly by the door"),
                ("Ilya Thorncastle", "I sit on a pew")]]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert not errors and len(results) == 3 and most[0] == 1
    kinds = heard(room, t["host"], start)
    turns = "".join("[" if k == "busy" else "]" if k == "done" else "" for k in kinds)
    assert turns == "[][][]"  # each turn opens and closes before the next begins
    assert len(room.gm.session.turns) == 3


# ----- the host ---------------------------------------------------------------------------------


def test_undo_and_regenerate_reach_everyone(tmp_path):
    model = ScriptedModel(by_step={"narrate": [WORDS, "Bowstrings thrum in the beech shade while Tamsin ducks low."]},
                          replies=[WORDS], repeat_last=True)
    room = TableRoom.open(GameMaster("dnd5e", "ambush", model, memory=False, seed=3, session_path=tmp_path / "r.json"))
    t = tokens(room)
    first = room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")
    assert room.view(t["host"])["can_regenerate"]
    start = room.seq
    again = room.regenerate(t["host"])
    assert again["lines"] == first["lines"] and again["narration"] != first["narration"]  # same dice, new words
    seen = room.events_since(start, room.seat(t["Oskar Venn"]))[0]
    assert seen[1]["kind"] == "said" and seen[1]["regenerated"] and seen[-1]["kind"] == "done"
    log = room.view(t["Oskar Venn"])["log"]
    assert log[-1]["text"] == again["narration"] and WORDS not in [x["text"] for x in log]
    assert room.undo(t["host"])
    assert room.events_since(room.seq - 1)[0][0]["kind"] == "undo"
    state = room.view(t["Oskar Venn"])
    assert state["turn"] == "Brisa Tallowmere" and "I attack the nearest goblin" not in [x["text"] for x in state["log"]]
    assert Combat.from_json(json.loads((tmp_path / "r.json").read_text())["combat"]).current.name == "Brisa Tallowmere"
    with pytest.raises(VgmError, match="nothing to regenerate"):
        room.regenerate(t["host"])


def test_the_host_edits_the_scene_notes_saved_and_kept_through_an_undo(room, tmp_path):
    t = tokens(room)
    room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")
    kept = room.set_notes(t["host"], "The goblins fight to the death.\n\n   Tamsin   lies about the guild.  ")
    assert kept == ["The goblins fight to the death.", "Tamsin lies about the guild."]
    assert json.loads((tmp_path / "room.json").read_text())["scenario"]["notes"] == kept
    assert room.events_since(room.seq - 1)[0][0]["kind"] == "notes"
    assert room.undo(t["host"])
    assert room.gm.scenario.notes == kept
    assert json.loads((tmp_path / "room.json").read_text())["scenario"]["notes"] == kept
    assert "Tamsin lies" in " ".join(room.gm.scenario.hidden_texts(set()))  # the narration guard knows them
    with pytest.raises(VgmError, match="one short line"):
        room.set_notes(t["host"], ["x" * 3000])
    client = TestClient(create_table_app(room))
    r = post(client, "/api/notes", t["host"], notes=["A", "B"])
    assert r.json() == {"ok": True, "notes": ["A", "B"]}
    assert post(client, "/api/notes", t["host"], notes=7).status_code == 400


def test_a_room_reopens_from_its_session_file_with_the_same_links(room, tmp_path):
    t = tokens(room)
    room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")
    room.close()
    again = TableRoom.open(GameMaster.resume(tmp_path / "room.json", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False))
    assert tokens(again) == t
    state = again.view(t["Oskar Venn"])
    assert state["turn"] == "Oskar Venn" and state["log"][-1]["text"] == WORDS
    fresh = TableRoom.open(again.gm, new_links=True)
    with pytest.raises(AccessDenied):
        fresh.view(t["Oskar Venn"])


def test_a_damaged_links_file_is_one_line(tmp_path):
    bad = tmp_path / "room.links.json"
    bad.write_text("{not json")
    with pytest.raises(VgmError, match=r"room.links.json: not a links file of a vgm table \(.*\); delete it and serve again") as caught:
        Seats(bad, ["Brisa"])
    assert "\n" not in str(caught.value)
    bad.write_text('{"tokens": {"host": "short"}}')
    with pytest.raises(VgmError, match="not a links file"):
        Seats(bad)


def test_the_page_shows_the_sheet_rows_the_terminal_shows(room):
    from gm.sheet_view import sheet_rows

    state = room.view(tokens(room)["Brisa Tallowmere"])
    brisa = next(p for p in state["party"] if p["name"] == "Brisa Tallowmere")
    assert brisa["rows"] == [list(r) for r in sheet_rows(room.gm.sheet("Brisa"), room.gm.ruleset)]
    assert brisa["hp"] == "21/21 HP" and brisa["summary"].startswith("Brisa Tallowmere — halfling rogue")
    assert brisa["carries"] == "Shortsword, Shortbow, Leather, Arrows ×20, Potion of Healing"  # what she holds now, as /sheet says


def test_a_busy_port_or_a_foreign_host_is_one_line_before_the_table_is_set():
    import socket

    from ui.web import check_address

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(VgmError, match=f"127.0.0.1:{port} is already in use by pid .*; stop it or pass another --port"):
            check_address("127.0.0.1", port)
    with pytest.raises(VgmError, match="cannot listen on 8.8.8.8"):
        check_address("8.8.8.8", port)


# ----- the journal: no accepted line is lost when the server dies ----------------------------------


class Killed(BaseException):
    """Stands for kill -9 in the middle of a turn: nothing after it runs, no handler sees it."""


def _dies_at_narration(step, messages):
    if step == "narrate":
        raise Killed()
    return WORDS


def test_a_line_the_server_died_on_is_listed_for_its_player_when_the_room_reopens(tmp_path):
    """kill -9 of `vgm table serve` dropped the lines being answered, with no record of them."""
    gm = GameMaster("dnd5e", "ambush", ScriptedModel(responder=_dies_at_narration), memory=False, seed=3, session_path=tmp_path / "room.json")
    room = TableRoom.open(gm)
    t = tokens(room)
    before = (tmp_path / "room.json").read_text()
    with pytest.raises(Killed):
        room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")  # dies after the dice, before the words
    assert (tmp_path / "room.json").read_text() == before  # no half turn on disk: the fight's dice were not saved
    journal = (tmp_path / "room.journal.jsonl")
    assert "I attack the nearest goblin" in journal.read_text() and journal.stat().st_mode & 0o077 == 0

    again = TableRoom.open(GameMaster.resume(tmp_path / "room.json", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False))
    mine = again.view(t["Brisa Tallowmere"])["unanswered"]
    assert [(u["who"], u["text"]) for u in mine] == [("Brisa Tallowmere", "I attack the nearest goblin")]
    assert "table stopped before the GM answered" in mine[0]["why"]
    assert again.view(t["Oskar Venn"])["unanswered"] == []  # only its player (and the host) see it
    assert [u["text"] for u in again.view(t["host"])["unanswered"]] == ["I attack the nearest goblin"]
    assert again.view(t["Oskar Venn"])["turn"] == "Brisa Tallowmere"  # the fight is as before the line

    assert again.act(t["Brisa Tallowmere"], "I attack the nearest goblin")["narration"] == WORDS  # sent again
    assert again.view(t["Brisa Tallowmere"])["unanswered"] == []
    third = TableRoom.open(GameMaster.resume(tmp_path / "room.json", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False))
    assert third.view(t["host"])["unanswered"] == []  # answered is answered, across restarts too


def test_a_line_is_journaled_before_anything_about_it_is_streamed(tmp_path):
    journal = tmp_path / "room.journal.jsonl"
    seen_on_disk = []
    room = TableRoom.open(ambush(tmp_path))
    t = tokens(room)
    room.listen(lambda: seen_on_disk.append(journal.read_text() if journal.exists() else ""))
    room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")
    assert seen_on_disk and all("I attack the nearest goblin" in text for text in seen_on_disk)  # before the first event


def test_a_turn_saved_whole_is_not_listed_even_if_its_closing_mark_was_lost(tmp_path, monkeypatch):
    from ui.web._journal import Journal

    gm = GameMaster("dnd5e", "ambush", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False, seed=3, session_path=tmp_path / "room.json")
    room = TableRoom.open(gm)
    t = tokens(room)
    real_close = Journal.close

    def die_on_answered(self, n, state, *a, **kw):
        if state == "answered":
            raise Killed()  # killed between the session's save and the journal's closing mark
        return real_close(self, n, state, *a, **kw)

    monkeypatch.setattr(Journal, "close", die_on_answered)
    with pytest.raises(Killed):
        room.act(t["Brisa Tallowmere"], "I attack the nearest goblin")
    monkeypatch.setattr(Journal, "close", real_close)
    again = TableRoom.open(GameMaster.resume(tmp_path / "room.json", ScriptedModel(replies=[WORDS], repeat_last=True), memory=False))
    assert again.view(t["host"])["unanswered"] == [] and again.gm.session.log[-1].text == WORDS


# ----- memory: a long-served room stays flat (bench/table_soak.py measures it) ---------------------


def test_the_twenty_undo_points_of_a_long_game_stay_small(room):
    """Each undo point was the whole session as text: 20 of them grew by 20 times the session's own
    growth every turn. They are kept compressed."""
    brisa = tokens(room)["Brisa Tallowmere"]
    for _ in range(30):
        room.act(brisa, "/roll 1d20+5")
    session = len(room.gm.session.model_dump_json())
    kept = sum(len(h) for h in room.gm._history)
    assert len(room.gm._history) == 20 and kept < 6 * session, (kept, session)  # was 18 times, uncompressed
    assert room.undo(tokens(room)["host"]) and room.gm.session.free_rolls[-1].expression == "1d20+5"


def test_the_server_holds_the_heap_steady(monkeypatch):
    """Large blocks go back to the system when freed (glibc's adjusting mmap threshold let the heap
    grow by 0.15-0.45 MB a turn); served rooms set it before serving."""
    import platform

    import uvicorn

    from ui.web import _table_app

    calls = []
    monkeypatch.setattr(_table_app, "steady_heap", lambda: calls.append(1) or True)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    monkeypatch.setattr(_table_app, "check_address", lambda host, port: None)

    class Room:
        closed = False
        def closing(self): pass
        def close(self): pass

    _table_app.serve_table(Room(), port=1)
    assert calls == [1]
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        monkeypatch.undo()
        assert _table_app.steady_heap() is True
