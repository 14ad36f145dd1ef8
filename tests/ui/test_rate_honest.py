"""Issue 44's two attacks on a generic open link, over HTTP against the real ``vgm ui`` (loopback only).

A bot that answers every item in a fraction of a second while claiming ``seconds: 30`` is flagged
too fast, because the server times each item from when it served it; and knowing a worker's id
(MTurk ids are not secret) does not get that worker's token back without the browser's secret.
"""
import time

import httpx
import pytest

from eval.ratings import build_study, crowd_settings
from eval.ratings._demo import write_demo_runs


@pytest.fixture(scope="module")
def generic_server(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("generic")
    runs = write_demo_runs(root / "demo", n=8)
    study, admin, summary = build_study(runs, root / "g.db", n=7, crowd=crowd_settings("generic", completion_code="DONE42"))
    assert summary.items == 14
    with ServerProcess(study=root / "g.db", log_path=root / "server.log") as server:
        yield {"study": study, "admin": admin, "url": server.url, "key": study.enroll_key()}


def test_a_bot_claiming_30_seconds_an_item_is_flagged_too_fast(generic_server):
    url, key = generic_server["url"], generic_server["key"]
    token = httpx.post(f"{url}/api/rate/enroll", json={"key": key, "participant_id": "BOT0001"}).json()["token"]
    h = {"Authorization": f"Bearer {token}"}
    start, answered = time.perf_counter(), 0
    with httpx.Client(base_url=url, headers=h) as client:
        while (item := client.get("/api/rate/next").json()["item"]) is not None:
            sent = client.post("/api/rate/submit", json={"item_id": item["id"], "naturalness": 5, "groundedness": 5,
                                                         "factual": 5, "seconds": 30})
            assert sent.status_code == 200
            answered += 1
    took = time.perf_counter() - start
    report = httpx.get(f"{url}/api/rate/report", params={"token": generic_server["admin"]}).json()
    bot = next(r for r in report["rater_stats"] if r["participant_id"] == "BOT0001")
    assert answered == 14 and bot["answered"] == 14
    assert bot["too_fast"] is True and bot["median_seconds"] < min(3.0, took)  # the claimed 30 s was never read
    print(f"\nbot: 14 items in {took:.2f} s, server-timed median {bot['median_seconds']:.3f} s an item, flagged too fast")


def test_a_known_worker_id_without_the_browsers_secret_does_not_get_the_token(generic_server):
    url, key = generic_server["url"], generic_server["key"]
    made = httpx.post(f"{url}/enroll/{key}", data={"workerId": "A3KNOWNWORKER"})
    assert made.status_code == 303 and "token=" in made.headers["location"]
    cookie = made.cookies.get("vgm_enrolled")
    assert cookie and f"path=/enroll/{key}".lower() in made.headers["set-cookie"].lower()
    for attempt in (httpx.get(f"{url}/enroll/{key}", params={"workerId": "A3KNOWNWORKER"}),
                    httpx.post(f"{url}/enroll/{key}", data={"workerId": "A3KNOWNWORKER"})):
        assert attempt.status_code == 409 and 'data-reason="reused"' in attempt.text and "token=" not in attempt.text
    api = httpx.post(f"{url}/api/rate/enroll", json={"key": key, "participant_id": "A3KNOWNWORKER"})
    assert api.status_code == 409 and "token" not in api.json()
    back = httpx.get(f"{url}/enroll/{key}", params={"workerId": "A3KNOWNWORKER"}, cookies={"vgm_enrolled": cookie})
    assert back.status_code == 303 and back.headers["location"] == made.headers["location"]  # the same browser resumes
