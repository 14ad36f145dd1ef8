"""The real ``vgm ui`` server: tokens guard everything, 30 raters at once lose nothing, a restart loses nothing."""
import asyncio
import sqlite3

import httpx
import pytest

from ui.web._loadsim import simulate_raters


def test_wrong_or_missing_token_gets_nothing_over_http(live_study):
    url = live_study["server"].url
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Bearer {live_study['tokens'][0]}x"}):
        for path in ("/api/rate/next", "/api/rate/mine", "/api/rate/report", "/api/rate/export.csv"):
            r = httpx.get(url + path, headers=headers)
            assert r.status_code == 401 and r.json() == {"error": "access denied"}
        r = httpx.post(url + "/api/rate/submit", json={"item_id": 1, "naturalness": 3, "groundedness": 3, "factual": 3}, headers=headers)
        assert r.status_code == 401
    # a rater's token does not open the owner's report
    r = httpx.get(url + "/api/rate/report", headers={"Authorization": f"Bearer {live_study['tokens'][0]}"})
    assert r.status_code == 401


def test_one_rater_cannot_read_or_write_anothers_ratings(live_study):
    url, (t1, t2) = live_study["server"].url, live_study["tokens"][28:30]
    h1, h2 = {"Authorization": f"Bearer {t1}"}, {"Authorization": f"Bearer {t2}"}
    item = httpx.get(url + "/api/rate/next", headers=h1).json()["item"]
    assert "condition" not in item  # blind
    assert httpx.post(url + "/api/rate/submit", json={"item_id": item["id"], "naturalness": 5, "groundedness": 5, "factual": 5}, headers=h1).status_code == 200
    assert httpx.get(url + "/api/rate/mine", headers=h2).json()["ratings"] == []
    # rater 2 rating the same item writes rater 2's row only
    httpx.post(url + "/api/rate/submit", json={"item_id": item["id"], "naturalness": 1, "groundedness": 1, "factual": 1}, headers=h2)
    mine = httpx.get(url + "/api/rate/mine", headers=h1).json()["ratings"]
    assert [(m["item_id"], m["naturalness"]) for m in mine] == [(item["id"], 5)]


def test_scores_outside_1_to_5_are_refused_over_http(live_study):
    url, token = live_study["server"].url, live_study["tokens"][27]
    h = {"Authorization": f"Bearer {token}"}
    item = httpx.get(url + "/api/rate/next", headers=h).json()["item"]
    for bad in (0, 6, 99, -3, 2.5, "five"):
        r = httpx.post(url + "/api/rate/submit", json={"item_id": item["id"], "naturalness": bad, "groundedness": 3, "factual": 3}, headers=h)
        assert r.status_code == 422, bad
    assert httpx.get(url + "/api/rate/mine", headers=h).json()["ratings"] == []


@pytest.mark.slow  # ~30 s on a busy 2-core machine
def test_30_concurrent_raters_submit_1000_ratings_stored_exactly_once_and_survive_a_restart(live_study):
    server, tokens = live_study["server"], live_study["tokens"]
    before = len(live_study["study"].owner().ratings())
    # all 30 raters at once; a few already rated an item above, so their next items come after it
    result = asyncio.run(simulate_raters(server.url, tokens, 1000))
    assert result.failed == 0 and result.submitted == 1000
    conn = sqlite3.connect(live_study["study"].path)
    rows = conn.execute("SELECT rater_id, item_id FROM ratings").fetchall()
    assert len(rows) - before == 1000 and len(set(rows)) == len(rows)
    print(f"\n1000 ratings by {len(tokens)} raters: p50 {1000 * result.percentile(50):.0f} ms, "
          f"p95 {1000 * result.percentile(95):.0f} ms, {result.per_second:.0f}/s")
    server.restart()  # killed hard (SIGKILL), started again
    report = httpx.get(server.url + "/api/rate/report", params={"token": live_study["admin"]}).json()
    assert report["ratings"] == before + 1000


def test_serving_on_a_busy_port_is_one_clear_error():
    import socket

    from rulesets import VgmError
    from ui.web import serve

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        with pytest.raises(VgmError, match="already in use by another program; stop it or pass another --port"):
            serve(port=port)
        taken.listen()
        with pytest.raises(VgmError, match=r"already in use by pid \d+ \(.*\); stop it or pass another --port"):
            serve(port=port)  # a listener is named, as the table names it: the same check


def _time_wait_port() -> int:
    """A port a crashed server leaves behind: its side closed first, so the port sits in TIME_WAIT."""
    import socket

    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn's listener
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        conn, _ = server.accept()
        conn.close()  # the server closes first: TIME_WAIT is on its side
        client.recv(1)
        client.close()
    return port


def test_both_servers_start_again_at_once_on_the_port_a_crashed_one_left(monkeypatch):
    """`vgm ui` after a crash could not restart on its port for ~60 s: its check bound without
    SO_REUSEADDR, which uvicorn itself uses. Both servers now make the same check."""
    import errno
    import socket

    import uvicorn

    import ui.web._app as web_app
    from ui.web import check_address, serve

    port = _time_wait_port()
    with socket.socket() as plain:  # the port really is in TIME_WAIT: a bind without SO_REUSEADDR fails
        try:
            plain.bind(("127.0.0.1", port))
            pytest.skip("this kernel frees TIME_WAIT ports at once")
        except OSError as exc:
            assert exc.errno == errno.EADDRINUSE
    served = []
    monkeypatch.setattr(web_app, "create_app", lambda **kw: type("App", (), {"state": type("S", (), {"vgm": type("C", (), {"study": None})})})())
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw["port"]))
    serve(port=port)  # the rating server
    check_address("127.0.0.1", port)  # the table's check
    assert served == [port]
