"""The rating app under abuse: a submit racing a skip loses nothing (1,000 tries), ``true`` is not
a score, ids past SQLite's range are a clean 4xx, the CSV export needs the admin token and leaves no
file behind, and a bad ``rate create`` writes nothing."""
from __future__ import annotations

import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from eval.ratings import InvalidRating, Study, build_study
from eval.ratings._demo import write_demo_runs
from ui.cli import app as cli_app


@pytest.fixture
def demo_runs(tmp_path):
    return write_demo_runs(tmp_path / "demo", n=12)


@pytest.fixture
def study(tmp_path, demo_runs):
    s, admin_token, _ = build_study(demo_runs, tmp_path / "study.db", n=10, include_human=True)
    s.admin_token_value = admin_token
    return s


@pytest.fixture
def client(study):
    from ui.web._api import rate_router
    from ui.web._common import AppContext

    api = FastAPI()
    api.include_router(rate_router(AppContext(study=study, runs_dir=study.path.parent, logs_dir=None, model=None,
                                              saves_dir=study.path.parent)))
    return TestClient(api)


def test_a_submit_racing_a_skip_loses_nothing_in_1000_tries(study):
    admin = study.owner()
    raters = [study.rater(admin.add_rater(f"r{k:02d}").token) for k in range(34)]
    items = study._item_ids()
    pairs = [(view, item) for view in raters for item in items][:1000]
    assert len(pairs) == 1000
    gate = threading.Barrier(2)

    def submit(view, item):
        gate.wait()
        view.submit(item, 4, 3, 5)

    def skip(view, item):
        gate.wait()
        view.skip(item)

    with ThreadPoolExecutor(2) as pool:
        for view, item in pairs:
            a, b = pool.submit(submit, view, item), pool.submit(skip, view, item)
            a.result(), b.result()
    stored = admin.ratings(include_skipped=True)
    assert len(stored) == 1000
    lost = [r for r in stored if r.skipped or r.scores != {"naturalness": 4, "groundedness": 3, "factual": 5}]
    assert lost == []


@pytest.mark.parametrize("value", [True, False, None, "", "4.0", "²", [], {}, 4.5, -1, 6])
def test_scores_of_the_wrong_type_are_refused_by_the_store(study, value):
    view = study.rater(study.owner().add_rater("ann").token)
    item = view.next_item()
    with pytest.raises(InvalidRating):
        view.submit(item.id, value, 3, 3)
    assert view.my_ratings() == []


@pytest.mark.parametrize("body", [
    {"naturalness": True, "groundedness": 3, "factual": 3},
    {"naturalness": 3, "groundedness": 3, "factual": False},
    {"naturalness": 3.0, "groundedness": 3, "factual": 3},
    {"naturalness": [3], "groundedness": 3, "factual": 3},
    {"naturalness": 3, "groundedness": 3, "factual": 3, "seconds": "fast"},
    {"naturalness": 3, "groundedness": 3, "factual": 3, "seconds": -1},
    {"skip": "yes"},
    {"skip": 1},
    {"choice": True},
    {"choice": "a" * 1000},
    {"naturalness": 3, "groundedness": 3, "factual": 3, "extra": 1},
])
def test_strict_types_over_http(client, study, body):
    token = study.owner().add_rater("bea").token
    h = {"Authorization": f"Bearer {token}"}
    item = client.get("/api/rate/next", headers=h).json()["item"]
    r = client.post("/api/rate/submit", json={"item_id": item["id"], **body}, headers=h)
    assert r.status_code == 422, r.text
    assert client.get("/api/rate/mine", headers=h).json()["ratings"] == []


@pytest.mark.parametrize("item_id", [2**63, 2**63 - 1, 2**64 + 5, -(2**63), 0, -1, 10**40, "7", 1.5, True, None, "x" * 50])
def test_ids_out_of_range_are_a_clean_4xx(client, study, item_id):
    token = study.owner().add_rater("cy").token
    h = {"Authorization": f"Bearer {token}"}
    for body in ({"item_id": item_id, "naturalness": 3, "groundedness": 3, "factual": 3}, {"item_id": item_id, "skip": True},
                 {"item_id": item_id, "choice": "a"}):
        r = client.post("/api/rate/submit", json=body, headers=h)
        assert 400 <= r.status_code < 500, (item_id, r.status_code, r.text)


@pytest.mark.parametrize("item_id", [2**63, 2**62 + 1, -5, 0, True, "9" * 40, 1.5, None, "seven"])
def test_ids_out_of_range_in_the_store(study, item_id):
    view = study.rater(study.owner().add_rater("dee").token)
    for call in (lambda: view.submit(item_id, 3, 3, 3), lambda: view.skip(item_id), lambda: view.item(item_id),
                 lambda: view.choose(item_id, "a"), lambda: view.my_rating(item_id)):
        with pytest.raises(InvalidRating):
            call()


def test_the_csv_export_needs_the_admin_token(client, study):
    rater = study.owner().add_rater("eve").token
    for params, headers in (({}, {}), ({"token": rater}, {}), ({}, {"Authorization": f"Bearer {rater}"}),
                            ({"token": study.admin_token_value + "x"}, {})):
        assert client.get("/api/rate/export.csv", params=params, headers=headers).status_code == 401
    r = client.get("/api/rate/export.csv", params={"token": study.admin_token_value})
    assert r.status_code == 200 and r.text.startswith("rater,item_id")
    assert "attachment" in r.headers["content-disposition"] and r.headers["cache-control"] == "no-store"


def test_the_rate_tab_export_is_a_guarded_link_and_writes_no_file(study, tmp_path, monkeypatch):
    import gradio as gr

    from ui.web._common import AppContext
    from ui.web._rate import RateTab

    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    with gr.Blocks():
        tab = RateTab(AppContext(study=study, runs_dir=tmp_path, logs_dir=None, model=None, saves_dir=tmp_path), gr.State(None))
    shown = tab._csv(study.admin_token_value)
    assert shown["visible"] is True and "/api/rate/export.csv?token=" in shown["value"]
    assert tab._csv(study.owner().add_rater("fay").token) is None and tab._csv(None) is None
    assert list(private_tmp.iterdir()) == []


def test_the_report_plot_lives_in_a_private_folder(study):
    from ui.web._common import AppContext
    from ui.web._rate import admin_tables

    view = study.rater(study.owner().add_rater("gus").token)
    view.submit(view.next_item().id, 3, 3, 3)
    _, _, _, plot = admin_tables(AppContext(study=study, runs_dir=study.path.parent, logs_dir=None, model=None,
                                            saves_dir=study.path.parent))
    assert plot and os.stat(os.path.dirname(plot)).st_mode & 0o077 == 0


@pytest.mark.parametrize("raters", ["a,alice,alice", "alice,ALICE", "bob, ,bob", "x" * 200, "ok,bad\x07name"])
def test_rate_create_validates_raters_before_writing(tmp_path, demo_runs, raters, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(cli_app, ["rate", "create", "--from", str(demo_runs[0]), "--n", "3", "-o", "s.db",
                                       "--raters", raters])
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert out.exit_code != 0 and len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in out.output
    assert not list(tmp_path.glob("s.db*")) and not list(tmp_path.glob(".s.db*"))
    again = CliRunner().invoke(cli_app, ["rate", "create", "--from", str(demo_runs[0]), "--n", "3", "-o", "s.db",
                                         "--raters", "alice,bob"])
    assert again.exit_code == 0, again.output  # the retry is not refused
    assert [r["name"] for r in Study.open(tmp_path / "s.db").owner().raters()] == ["alice", "bob"]


def test_a_failed_build_leaves_the_old_study(tmp_path):
    path = tmp_path / "s.db"
    Study.create(path, [{"instance_id": "i1", "ruleset": "dnd5e", "turns": []}],
                 [{"kind": "score", "instance_id": "i1", "condition": "c", "utterance": "u"}])
    with pytest.raises(Exception):
        Study.create(path, [{"instance_id": "i1", "ruleset": "dnd5e", "turns": []}],
                     [{"kind": "score", "instance_id": "missing", "condition": "c", "utterance": "u"}], overwrite=True)
    assert len(Study.open(path)._item_ids()) == 1 and [p.name for p in tmp_path.iterdir()] == ["s.db"]
