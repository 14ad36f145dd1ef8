"""A crowd study served by the real ``vgm ui``: the enrollment, consent and completion pages and API over HTTP.

Every refusal is a clear page (or JSON) with its own status, and nothing is written.
"""
import sqlite3
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from eval.ratings import Study, build_study, crowd_settings
from eval.ratings._demo import write_demo_runs

CONSENT = "# Taking part\n\nYou rate short lines a Game Master says. <b>bold?</b> [a link](javascript:alert(1))"
STUDY_ID = "5" * 24


def ids(k: int, session: int | None = None) -> dict:
    return {"PROLIFIC_PID": f"{k:024x}", "STUDY_ID": STUDY_ID, "SESSION_ID": f"{(session or k + 5000):024x}"}


@pytest.fixture(scope="module")
def crowd_server(tmp_path_factory):
    from ui.web._launch import ServerProcess

    root = tmp_path_factory.mktemp("crowd")
    runs = write_demo_runs(root / "demo", n=6)
    server = ServerProcess(study=root / "crowd.db", log_path=root / "server.log")
    study, admin, _ = build_study(runs, root / "crowd.db", n=2, attention=1, consent=CONSENT,
                                  crowd=crowd_settings("prolific", quota=50, completion_code="C0DE1234",
                                                       redirect=f"{server.url}/healthz?cc={{code}}"))
    server.start()
    yield {"study": study, "admin": admin, "server": server, "url": server.url, "key": study.enroll_key(), "root": root}
    server.stop()


def rows(study: Study) -> tuple[int, int, int]:
    conn = sqlite3.connect(study.path)
    return tuple(conn.execute(q).fetchone()[0] for q in (
        "SELECT COUNT(*) FROM raters", "SELECT COUNT(*) FROM ratings", "SELECT COUNT(*) FROM raters WHERE completed_at IS NOT NULL"))


def test_vgm_ui_prints_the_admin_and_enrollment_links_for_the_port_it_serves(crowd_server):
    log = (crowd_server["root"] / "server.log").read_text()
    port = crowd_server["server"].port
    assert f"admin link (keep it private): http://127.0.0.1:{port}/?token={crowd_server['admin']}" in log
    assert f"enrollment link (prolific): http://127.0.0.1:{port}/enroll/{crowd_server['key']}" in log
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}" in log
    assert "7860" not in log
    assert crowd_server["study"].links()["admin"].startswith(f"http://127.0.0.1:{port}/")  # `vgm rate links` agrees


def test_enrollment_page_asks_consent_then_issues_a_token_and_the_same_id_resumes(crowd_server):
    url, key, study = crowd_server["url"], crowd_server["key"], crowd_server["study"]
    page = httpx.get(f"{url}/enroll/{key}", params=ids(1))
    assert page.status_code == 200 and 'data-reason="consent"' in page.text
    assert "Taking part" in page.text and "&lt;b&gt;bold?&lt;/b&gt;" in page.text and "href=\"javascript" not in page.text
    assert f'value="{ids(1)["PROLIFIC_PID"]}"' in page.text  # the ids ride along in the form
    before = rows(study)
    refused = httpx.post(f"{url}/enroll/{key}", data=ids(1))  # no tick
    assert refused.status_code == 403 and "tick" in refused.text and rows(study) == before
    made = httpx.post(f"{url}/enroll/{key}", data={**ids(1), "consent": "yes"})
    assert made.status_code == 303
    token = parse_qs(urlsplit(made.headers["location"]).query)["token"][0]
    assert study.rater(token).rater.participant_id == ids(1)["PROLIFIC_PID"]
    back = httpx.get(f"{url}/enroll/{key}", params=ids(1))  # the same participant, the same session: straight back in
    assert back.status_code == 303 and back.headers["location"] == made.headers["location"]
    assert rows(study)[0] == before[0] + 1


@pytest.mark.parametrize("path, params, status, reason", [
    ("/enroll/{key}", ids(1, session=999), 409, "reused"),
    ("/enroll/{key}", {**ids(2), "PROLIFIC_PID": "x' OR 1=1 --"}, 422, "forged"),
    ("/enroll/{key}", {}, 422, "missing"),
    ("/enroll/not-the-key", ids(3), 404, "closed"),
])
def test_bad_enrollments_get_a_clear_page_and_write_nothing(crowd_server, path, params, status, reason):
    url, key, study = crowd_server["url"], crowd_server["key"], crowd_server["study"]
    httpx.post(f"{url}/enroll/{key}", data={**ids(1), "consent": "yes"})  # participant 1 exists (first session)
    before = rows(study)
    for r in (httpx.get(url + path.format(key=key), params=params),
              httpx.post(url + path.format(key=key), data={**params, "consent": "yes"})):
        assert r.status_code == status and f'data-reason="{reason}"' in r.text
        assert 'id="vgm-why"' in r.text and "<script" not in r.text
    assert rows(study) == before


def test_the_api_enrolls_with_the_same_rules(crowd_server):
    url, key, study = crowd_server["url"], crowd_server["key"], crowd_server["study"]
    body = {"key": key, "participant_id": f"{7:024x}", "study_id": STUDY_ID, "session_id": f"{77:024x}"}
    before = rows(study)
    assert httpx.post(f"{url}/api/rate/enroll", json=body).status_code == 403  # consent missing
    assert httpx.post(f"{url}/api/rate/enroll", json={**body, "participant_id": "nope", "consent": True}).status_code == 422
    assert httpx.post(f"{url}/api/rate/enroll", json={**body, "key": "x", "consent": True}).status_code == 404
    assert httpx.post(f"{url}/api/rate/enroll", json={**body, "consent": "yes"}).status_code == 422  # strict types
    assert rows(study) == before
    first = httpx.post(f"{url}/api/rate/enroll", json={**body, "consent": True}).json()
    again = httpx.post(f"{url}/api/rate/enroll", json={**body, "consent": True}).json()
    assert first["resumed"] is False and again["resumed"] is True and again["token"] == first["token"]
    assert first["secret"] and "secret" not in again  # the browser secret is handed out once, to the newcomer


def test_completion_before_the_last_item_is_refused_then_given_with_the_code(crowd_server):
    url, key, study = crowd_server["url"], crowd_server["key"], crowd_server["study"]
    token = httpx.post(f"{url}/api/rate/enroll", json={"key": key, "participant_id": f"{8:024x}", "study_id": STUDY_ID,
                                                       "session_id": f"{88:024x}", "consent": True}).json()["token"]
    h = {"Authorization": f"Bearer {token}"}
    item = httpx.get(f"{url}/api/rate/next", headers=h).json()["item"]
    assert httpx.post(f"{url}/api/rate/submit", json={"item_id": item["id"], "naturalness": 4, "groundedness": 4, "factual": 4,
                                                      "comment": "reads well"}, headers=h).status_code == 200
    before = rows(study)
    early = httpx.get(f"{url}/complete", params={"token": token})
    assert early.status_code == 409 and "4 items still to rate" in early.text and 'href="/?token=' in early.text
    api_early = httpx.post(f"{url}/api/rate/complete", headers=h)
    assert api_early.status_code == 409 and "still to rate" in api_early.json()["error"]
    assert rows(study) == before
    while (item := httpx.get(f"{url}/api/rate/next", headers=h).json()["item"]) is not None:
        httpx.post(f"{url}/api/rate/submit", json={"item_id": item["id"], "naturalness": 2, "groundedness": 2, "factual": 2}, headers=h)
    done = httpx.post(f"{url}/api/rate/complete", headers=h).json()
    assert done["completion_code"] == "C0DE1234" and done["redirect"] == f"{url}/healthz?cc=C0DE1234"
    finish = httpx.get(f"{url}/complete", params={"token": token})
    assert finish.status_code == 303 and finish.headers["location"] == done["redirect"]
    assert rows(study)[2] == before[2] + 1
    assert [m["comment"] for m in httpx.get(f"{url}/api/rate/mine", headers=h).json()["ratings"]].count("reads well") == 1


def test_an_invited_rater_reaches_the_items_only_through_the_consent_form(crowd_server):
    url, study = crowd_server["url"], crowd_server["study"]
    token = study.owner().add_rater("lab-alice").token
    h = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{url}/api/rate/next", headers=h).status_code == 403
    form = httpx.get(f"{url}/consent", params={"token": token})
    assert form.status_code == 200 and 'id="consent-agree"' in form.text
    assert httpx.post(f"{url}/consent", data={"token": token}).status_code == 403
    assert study.rater(token).needs_consent()
    ok = httpx.post(f"{url}/consent", data={"token": token, "consent": "yes"})
    assert ok.status_code == 303 and httpx.get(f"{url}/api/rate/next", headers=h).json()["item"]
    assert httpx.get(f"{url}/consent", params={"token": "forged"}).status_code == 401


def test_admin_report_and_csv_over_http(crowd_server):
    url, admin = crowd_server["url"], crowd_server["admin"]
    report = httpx.get(f"{url}/api/rate/report", params={"token": admin, "exclude_failed_attention": "true"}).json()
    assert report["exclude_failed_attention"] is True and report["attention_items"] == 1
    assert all("attention_pass_rate" in r and "median_seconds" in r for r in report["rater_stats"])
    text = httpx.get(f"{url}/api/rate/export.csv", params={"token": admin}).text
    header = text.splitlines()[0].split(",")
    assert header[-4:] == ["participant_id", "attention", "attention_passed", "comment"]
    assert "T" in text.splitlines()[1].split(",")[header.index("created_at")]
