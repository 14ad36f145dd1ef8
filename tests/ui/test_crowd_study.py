"""A crowd study: open enrollment with platform ids, consent, attention items, completion codes, the report's rater checks."""
import csv
import io
import json
import re
import sqlite3

import pytest
from typer.testing import CliRunner

from eval.ratings import (
    ATTENTION,
    EnrollmentRefused,
    InvalidRating,
    Participant,
    Study,
    StudyError,
    build_study,
    crowd_settings,
    export_csv,
    participant_from,
    study_report,
)

from .conftest import Clock

CONSENT = "# Consent\n\nYou will rate short lines. Your answers are anonymous.\n\n<script>alert(1)</script>"


def pid(k: int) -> str:
    return f"{k:024x}"


def who(k: int, session: int | None = None) -> Participant:
    return Participant(pid(k), "5" * 24, f"{session if session is not None else k + 1000:024x}")


def counts(study: Study) -> tuple[int, int]:
    conn = sqlite3.connect(study.path)
    return conn.execute("SELECT COUNT(*) FROM raters").fetchone()[0], conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]


@pytest.fixture
def crowd(tmp_path, demo_runs):
    """4 contexts x 2 runs = 8 score items plus 2 attention items; Prolific, 3 places, a consent form."""
    s, _, summary = build_study(
        demo_runs, tmp_path / "crowd.db", n=4, attention=2, consent=CONSENT,
        crowd=crowd_settings("prolific", quota=3, completion_code="C0DE1234"),
    )
    assert summary.items == 10 and summary.attention == 2
    return s


def answer_all(study, token, attentive=True, scores=(4, 4, 4)):
    """Rate every item; an attentive rater gives the plainly wrong attention line 1s."""
    view = study.rater(token)
    attention = attention_ids(study)
    while (item := view.next_item()) is not None:
        if item.kind == "ab":
            view.choose(item.id, "a")
        elif item.id in attention and attentive:
            view.submit(item.id, 3, 1, 1)
        else:
            view.submit(item.id, *scores)
    return view


def attention_ids(study) -> set[int]:
    conn = sqlite3.connect(study.path)
    return {r[0] for r in conn.execute("SELECT id FROM items WHERE attention = 1")}


def test_the_open_link_issues_one_private_token_and_the_same_id_resumes(crowd):
    key = crowd.enroll_key()
    first, resumed = crowd.enroll(key, who(1), consent=True)
    assert not resumed and first.participant_id == pid(1) and first.name == "P0001"
    again, resumed = crowd.enroll(key, who(1), consent=True)
    assert resumed and again.token == first.token
    assert crowd.returning(key, who(1)).token == first.token
    other, _ = crowd.enroll(key, who(2), consent=True)
    assert other.token != first.token
    view = crowd.rater(first.token)
    item = view.next_item()
    view.submit(item.id, 3, 3, 3)
    assert crowd.rater(other.token).my_ratings() == []  # isolated, as invited raters are
    row = next(r for r in crowd.owner().raters() if r["name"] == "P0001")
    assert row["participant_id"] == pid(1) and row["session_id"] == who(1).session_id and row["consented_at"]


@pytest.mark.parametrize("reason, attempt", [
    ("full", lambda s: s.enroll(s.enroll_key(), who(9), consent=True)),
    ("reused", lambda s: s.enroll(s.enroll_key(), who(1, session=77), consent=True)),
    ("consent", lambda s: s.enroll(s.enroll_key(), who(8), consent=False)),
    ("closed", lambda s: s.enroll("not-the-key", who(8), consent=True)),
    ("unfinished", lambda s: s.rater(s.owner().raters()[0]["token"]).complete()),
])
def test_each_refusal_says_why_and_writes_nothing(crowd, reason, attempt):
    key = crowd.enroll_key()
    for k in (1, 2, 3) if reason == "full" else (1,):
        crowd.enroll(key, who(k), consent=True)
    before = counts(crowd)
    with pytest.raises(EnrollmentRefused) as err:
        attempt(crowd)
    assert err.value.reason == reason and str(err.value) and err.value.status in (403, 404, 409)
    assert counts(crowd) == before
    assert all(r["completed_at"] is None for r in crowd.owner().raters())


@pytest.mark.parametrize("params, reason", [
    ({}, "missing"),
    ({"PROLIFIC_PID": pid(1)}, "missing"),
    ({"PROLIFIC_PID": "{{%PROLIFIC_PID%}}", "STUDY_ID": pid(2), "SESSION_ID": pid(3)}, "forged"),
    ({"PROLIFIC_PID": "<script>", "STUDY_ID": pid(2), "SESSION_ID": pid(3)}, "forged"),
    ({"PROLIFIC_PID": pid(1) + "0", "STUDY_ID": pid(2), "SESSION_ID": pid(3)}, "forged"),
    ({"PROLIFIC_PID": pid(1), "STUDY_ID": "x" * 24, "SESSION_ID": pid(3)}, "forged"),
])
def test_prolific_ids_are_checked_against_prolifics_format(params, reason):
    with pytest.raises(EnrollmentRefused) as err:
        participant_from("prolific", params)
    assert err.value.reason == reason


def test_generic_platforms_take_common_id_names_and_no_id_at_all():
    assert participant_from("generic", {"workerId": "A1B2C3", "assignmentId": "X9"}) == Participant("A1B2C3", None, "X9")
    assert participant_from("generic", {"PID": "p-17"}).participant_id == "p-17"
    assert participant_from("generic", {}) == Participant()
    with pytest.raises(EnrollmentRefused, match="not one your study platform issues"):
        participant_from("generic", {"PID": "a b"})


def test_without_a_platform_id_every_visit_is_a_new_participant(tmp_path, demo_runs):
    s, _, _ = build_study(demo_runs, tmp_path / "g.db", n=2, crowd=crowd_settings("generic", quota=2))
    a, _ = s.enroll(s.enroll_key(), Participant())
    b, _ = s.enroll(s.enroll_key(), Participant())
    assert a.token != b.token and a.participant_id is None
    with pytest.raises(EnrollmentRefused, match="places in this study are taken"):
        s.enroll(s.enroll_key(), Participant())


def test_completion_code_only_after_the_last_item_and_recorded_once(crowd):
    rater, _ = crowd.enroll(crowd.enroll_key(), who(1), consent=True)
    view = crowd.rater(rater.token)
    assert view.completion() is None
    item = view.next_item()
    view.skip(item.id)
    answer_all(crowd, rater.token)
    done = view.complete()
    assert done.code == "C0DE1234" and done.finish_url == "https://app.prolific.com/submissions/complete?cc=C0DE1234"
    first = next(r for r in crowd.owner().raters() if r["name"] == rater.name)["completed_at"]
    view.complete()
    assert next(r for r in crowd.owner().raters() if r["name"] == rater.name)["completed_at"] == first


def test_an_invited_rater_in_a_study_with_consent_must_accept_it_first(crowd):
    token = crowd.owner().add_rater("alice").token
    view = crowd.rater(token)
    assert view.needs_consent()
    item = view.next_item()
    with pytest.raises(EnrollmentRefused, match="consent"):
        view.submit(item.id, 3, 3, 3)
    with pytest.raises(EnrollmentRefused):
        view.skip(item.id)
    assert counts(crowd)[1] == 0
    view.consent()
    view.submit(item.id, 3, 3, 3, comment="  the GM names someone who is not there  ")
    assert view.my_rating(item.id)["comment"] == "the GM names someone who is not there"


@pytest.mark.parametrize("bad", [123, "x" * 2001, "bell\x07"])
def test_comments_are_plain_text_of_bounded_length(crowd, bad):
    rater, _ = crowd.enroll(crowd.enroll_key(), who(1), consent=True)
    view = crowd.rater(rater.token)
    with pytest.raises(InvalidRating, match="comment"):
        view.submit(view.next_item().id, 3, 3, 3, comment=bad)
    assert view.my_ratings() == []


def test_attention_items_are_blind_built_from_gold_and_plainly_wrong(crowd):
    rater, _ = crowd.enroll(crowd.enroll_key(), who(1), consent=True)
    view = crowd.rater(rater.token)
    ids = attention_ids(crowd)
    assert len(ids) == 2 and ids != {9, 10}  # stored in a shuffled order: the last ids are not the attention items
    conn = sqlite3.connect(crowd.path)
    rows = conn.execute("SELECT i.utterance, i.checks_json, i.expect_json, c.turns_json FROM items i "
                        "JOIN contexts c ON c.id = i.context_id WHERE i.attention = 1").fetchall()
    for utterance, checks, expect, turns in rows:
        outsider = json.loads(checks)[0]["character"]
        assert outsider in utterance and outsider not in turns  # someone who is not at the table
        assert json.loads(expect) == {"max": {"groundedness": 2, "factual": 2}}
    seen = [view.item(i) for i in ids]
    assert all(ATTENTION not in repr(item) and "attention" not in repr(item).lower() for item in seen)
    assert ATTENTION not in crowd.owner().summary()["conditions"]


def test_attention_ab_items_put_the_gold_line_against_the_wrong_one(tmp_path, demo_runs):
    s, _, _ = build_study(demo_runs, tmp_path / "ab.db", n=3, mode="ab", attention=2)
    conn = sqlite3.connect(s.path)
    for a, b, expect in conn.execute("SELECT utterance, utterance_b, expect_json FROM items WHERE attention = 1"):
        good = a if json.loads(expect)["choice"] == "a" else b
        assert "go ahead and roll" in good  # the data's real GM line


def test_more_attention_items_than_contexts_is_one_line_and_writes_nothing(tmp_path, demo_runs):
    with pytest.raises(StudyError, match=r"--attention 5: this study's 4 contexts can make at most 4 attention items"):
        build_study(demo_runs, tmp_path / "x.db", n=4, attention=5)
    assert not (tmp_path / "x.db").exists()


def test_report_flags_failed_attention_and_can_leave_those_raters_out(crowd):
    key = crowd.enroll_key()
    tokens = [crowd.enroll(key, who(k), consent=True)[0].token for k in (1, 2, 3)]
    answer_all(crowd, tokens[0], scores=(4, 4, 4))
    answer_all(crowd, tokens[1], scores=(4, 4, 4))
    answer_all(crowd, tokens[2], attentive=False, scores=(1, 1, 1))  # clicks through: 1s everywhere... and 5s on the checks
    careless = crowd.rater(tokens[2])
    for i in attention_ids(crowd):
        careless.submit(i, 5, 5, 5)
    rep = study_report(crowd.owner())
    stats = {r.rater: r for r in rep.rater_stats}
    assert stats["P0001"].attention_pass_rate == 1.0 and stats["P0003"].attention_pass_rate == 0.0
    assert rep.failed_attention == ["P0003"] and rep.ratings == 3 * 8  # attention items never count as ratings
    assert rep.mean_of("tbs_gm", "naturalness").mean == pytest.approx(3.0)
    kept = study_report(crowd.owner(), exclude_failed_attention=True)
    assert kept.excluded == ["P0003"] and kept.raters == 2 and kept.ratings == 2 * 8
    assert kept.mean_of("tbs_gm", "naturalness").mean == 4.0
    assert json.loads(json.dumps(kept.to_dict()))["rater_stats"][2]["failed_attention"] is True


def test_median_seconds_per_item_and_the_too_fast_flag(crowd):
    key = crowd.enroll_key()
    crowd.clock = clock = Clock()
    slow, fast = (crowd.rater(crowd.enroll(key, who(k), consent=True)[0].token) for k in (1, 2))
    for view, secs in ((slow, 12.0), (fast, 0.8)):
        while (item := view.next_item()) is not None:
            clock.advance(secs)
            view.submit(item.id, 2, 2, 2)
    rep = study_report(crowd.owner(), too_fast=3.0)
    stats = {r.rater: r for r in rep.rater_stats}
    assert stats["P0001"].median_seconds == pytest.approx(12.0) and not stats["P0001"].too_fast
    assert stats["P0002"].median_seconds == pytest.approx(0.8) and stats["P0002"].too_fast and rep.too_fast == ["P0002"]
    assert study_report(crowd.owner(), exclude_too_fast=True).excluded == ["P0002"]


def test_time_per_item_is_the_servers_from_when_the_item_was_served(crowd):
    crowd.clock = clock = Clock()
    view = crowd.rater(crowd.enroll(crowd.enroll_key(), who(1), consent=True)[0].token)
    first = view.next_item()
    clock.advance(20.0)
    view.skip(first.id)  # a skipped item is timed afresh when it comes back
    second = view.next_item(after=first.id)
    clock.advance(5.0)
    view.submit(second.id, 3, 3, 3)
    clock.advance(9.0)
    view.submit(second.id, 4, 4, 4)  # changing an answer keeps the first time
    rows = {r.item_id: r for r in crowd.owner().ratings()}
    assert rows[second.id].seconds == pytest.approx(5.0) and rows[second.id].scores["naturalness"] == 4
    while (item := view.next_item()) is not None and item.id != first.id:
        view.submit(item.id, 3, 3, 3)
    clock.advance(7.0)
    view.submit(first.id, 3, 3, 3)
    assert {r.item_id: r for r in crowd.owner().ratings()}[first.id].seconds == pytest.approx(7.0)


def test_an_id_without_the_secret_or_the_session_does_not_get_the_token_back(tmp_path, demo_runs):
    s, _, _ = build_study(demo_runs, tmp_path / "g.db", n=2, crowd=crowd_settings("generic"))
    key = s.enroll_key()
    worker = Participant("A1WORKER77")  # MTurk worker ids are not secret
    first, resumed = s.enroll(key, worker)
    assert not resumed and first.secret and first.secret != first.token
    with pytest.raises(EnrollmentRefused) as refused:
        s.enroll(key, worker)
    assert refused.value.reason == "reused" and "browser you started in" in str(refused.value)
    with pytest.raises(EnrollmentRefused):
        s.returning(key, worker, "a guessed secret")
    again, resumed = s.enroll(key, worker, secret=first.secret)
    assert resumed and again.token == first.token and again.secret is None  # the secret is handed out once
    anonymous, _ = s.enroll(key, Participant())  # no id at all: the browser's secret alone brings it back
    assert s.returning(key, Participant(), anonymous.secret).token == anonymous.token
    assert s.returning(key, Participant(), first.secret) is None  # another participant's secret is not a way in
    with_session = Participant("A2WORKER88", None, "ASSIGN0001")  # the platform's session id is proof too
    made, _ = s.enroll(key, with_session)
    assert s.enroll(key, with_session)[0].token == made.token
    assert "secret" not in sqlite3.connect(s.path).execute("SELECT group_concat(browser_secret) FROM raters").fetchone()[0]
    assert first.secret not in open(s.path, "rb").read().decode("latin-1")


def test_the_open_link_enrolls_at_most_its_rate_a_minute(tmp_path, demo_runs):
    s, _, _ = build_study(demo_runs, tmp_path / "g.db", n=2, crowd=crowd_settings("generic", enroll_rate=3))
    s.clock = clock = Clock()
    made = [s.enroll(s.enroll_key(), Participant())[0] for _ in range(3)]
    with pytest.raises(EnrollmentRefused) as busy:
        s.enroll(s.enroll_key(), Participant())
    assert busy.value.reason == "busy" and busy.value.status == 429 and counts(s)[0] == 3
    assert s.enroll(s.enroll_key(), Participant(), secret=made[0].secret)[1] is True  # coming back is never limited
    clock.advance(61)
    assert s.enroll(s.enroll_key(), Participant())[1] is False


def test_csv_has_iso_timestamps_participants_attention_and_comments(crowd):
    rater, _ = crowd.enroll(crowd.enroll_key(), who(1), consent=True)
    view = crowd.rater(rater.token)
    item = view.next_item()
    view.submit(item.id, 2, 2, 2, comment="=HYPERLINK(\"x\")")
    answer_all(crowd, rater.token)
    rows = list(csv.DictReader(io.StringIO(export_csv(crowd.owner()))))
    assert len(rows) == 10
    iso = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00")
    assert all(iso.fullmatch(r["created_at"]) and iso.fullmatch(r["updated_at"]) for r in rows)
    assert {r["participant_id"] for r in rows} == {pid(1)}
    assert sorted(r["attention"] for r in rows).count("1") == 2
    assert {r["attention_passed"] for r in rows if r["attention"] == "1"} == {"1"}
    assert next(r for r in rows if r["comment"])["comment"] == "'=HYPERLINK(\"x\")"  # no formula in a spreadsheet


def test_a_study_file_from_before_crowd_studies_opens_and_upgrades(tmp_path, study, raters):
    conn = sqlite3.connect(study.path)
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    again = Study.open(study.path)
    view = again.rater(raters[0].token)
    view.submit(view.next_item().id, 5, 5, 5, comment="fine")
    assert again._meta("schema") == "3" and again.crowd() is None and not view.needs_consent()


def test_links_use_the_address_served_unless_a_public_one_was_given(crowd, tmp_path, demo_runs):
    assert crowd.links()["admin"].startswith("http://127.0.0.1:7860/?token=")
    crowd.record_served_url("http://127.0.0.1:8123")
    links = crowd.links()
    assert links["admin"].startswith("http://127.0.0.1:8123/?token=")
    assert links["enroll"] == f"http://127.0.0.1:8123/enroll/{crowd.enroll_key()}"
    assert links["enroll_with_ids"].endswith("?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}")
    public, _, _ = build_study(demo_runs, tmp_path / "p.db", n=2, base_url="https://study.example.org/")
    public.record_served_url("http://127.0.0.1:8123")
    assert public.links()["admin"].startswith("https://study.example.org/?token=")


def _cli(args, cwd):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", "from ui.cli import main; main()", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("extra, message", [
    (["--attention", "9"], "--attention 9: this study's 3 contexts can make at most 3 attention items"),
    (["--crowd", "mturk"], "--crowd 'mturk': use prolific or generic"),
    (["--crowd", "prolific"], "--crowd prolific needs --completion-code"),
    (["--quota", "5"], "--quota needs --crowd"),
    (["--crowd", "generic", "--quota", "0"], "--quota 0"),
    (["--crowd", "generic", "--redirect", "javascript:alert(1)"], "--redirect"),
    (["--crowd", "generic", "--completion-code", "has space"], "--completion-code"),
    (["--consent", "missing.md"], "--consent missing.md: no such file"),
])
def test_create_refuses_bad_crowd_options_in_one_line_before_writing(tmp_path, demo_runs, extra, message):
    proc = _cli(["rate", "create", "--from", str(demo_runs[0]), str(demo_runs[1]), "--n", "3", "-o", "s.db", *extra], tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and proc.stderr.strip().count("\n") == 0
    assert not (tmp_path / "s.db").exists()


def test_cli_creates_a_crowd_study_and_the_report_shows_attention(tmp_path, demo_runs, monkeypatch):
    from ui.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "consent.md").write_text(CONSENT)
    runner = CliRunner()
    out = runner.invoke(app, ["rate", "create", "--from", str(demo_runs[0]), str(demo_runs[1]), "--n", "4", "-o", "c.db",
                              "--crowd", "prolific", "--quota", "3", "--completion-code", "C0DE1234", "--attention", "2",
                              "--consent", "consent.md"])
    assert out.exit_code == 0, out.output
    assert "10 score items (2 of them attention items)" in out.output
    assert re.search(r"enrollment link: http://127\.0\.0\.1:7860/enroll/[\w-]{22}", out.output)
    s = Study.open(tmp_path / "c.db")
    assert s.consent_text().startswith("# Consent")
    tokens = [s.enroll(s.enroll_key(), who(k), consent=True)[0].token for k in (1, 2)]
    answer_all(s, tokens[0])
    bad = answer_all(s, tokens[1], attentive=False, scores=(5, 5, 5))
    table = runner.invoke(app, ["rate", "report", "c.db"], terminal_width=200)
    assert table.exit_code == 0, table.output
    assert "attention" in table.output and "(100%)" in table.output and "0/2 (0%)" in table.output
    assert pid(1) in table.output  # the whole participant id, to approve or reject on the platform
    assert "failed: P0002; add --exclude-failed-attention to leave them out" in table.output
    kept = runner.invoke(app, ["rate", "report", "c.db", "--exclude-failed-attention", "--json"])
    rep = json.loads(kept.output)
    assert rep["excluded"] == ["P0002"] and rep["raters"] == 1 and bad.finished()
    links = runner.invoke(app, ["rate", "links", "c.db", "--json"])
    assert json.loads(links.output)["enroll_link"].endswith(s.enroll_key())


def test_a_server_keeps_one_idle_connection_and_folds_the_wal_back_when_closed(crowd):
    from pathlib import Path

    server = Study.open(crowd.path, keep_open=True)
    rater, _ = server.enroll(server.enroll_key(), who(1), consent=True)
    view = server.rater(rater.token)
    view.submit(view.next_item().id, 4, 4, 4)
    assert Path(f"{crowd.path}-wal").exists()  # held open between requests: writes skip the checkpoint
    server.close()
    assert not Path(f"{crowd.path}-wal").exists()  # the last connection folded it into the study file
    assert len(Study.open(crowd.path).owner().ratings()) == 1
