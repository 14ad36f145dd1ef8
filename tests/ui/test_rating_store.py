"""The study file keeps every rating once, refuses bad scores, and shows each rater only their own."""
import sqlite3
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.ratings import AccessDenied, InvalidRating, Study, StudyError, build_study


def test_items_are_blind_and_in_a_per_rater_order(study, raters):
    alice, bob = (study.rater(r.token) for r in raters)
    assert sorted(alice.order()) == sorted(bob.order())
    assert alice.order() != bob.order()
    item = alice.next_item()
    assert not hasattr(item, "condition")
    assert "tbs_gm" not in repr(item) and "human" not in repr(item)
    assert [t["speaker"] for t in item.context][-1] != "GM"


def test_next_item_follows_the_order_and_resumes(study, raters):
    alice = study.rater(raters[0].token)
    order = alice.order()
    for expected in order[:3]:
        item = alice.next_item()
        assert item.id == expected
        alice.submit(item.id, 4, 3, 5)
    again = Study.open(study.path).rater(raters[0].token)  # a new process opening the same file
    assert again.progress().done == 3
    assert again.next_item().id == order[3]


def test_skipped_items_come_back_last(study, raters):
    alice = study.rater(raters[0].token)
    first = alice.next_item()
    alice.skip(first.id)
    seen = []
    while (item := alice.next_item()) is not None and item.id != first.id:
        alice.submit(item.id, 3, 3, 3)
        seen.append(item.id)
    assert item is not None and item.id == first.id
    assert alice.progress().skipped == 1
    alice.submit(first.id, 5, 5, 5)
    assert alice.next_item() is None and alice.progress().done == alice.progress().total


@pytest.mark.parametrize("bad", [0, 6, -1, 2.5, "x", None, True, "10"])
def test_scores_outside_1_to_5_are_refused(study, raters, bad):
    alice = study.rater(raters[0].token)
    item = alice.next_item()
    with pytest.raises(InvalidRating):
        alice.submit(item.id, bad, 3, 3)
    assert alice.progress().done == 0


def test_the_database_itself_refuses_out_of_range_scores(study, raters):
    conn = sqlite3.connect(study.path)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO ratings (rater_id, item_id, condition, naturalness, groundedness, factual, created_at, updated_at)"
                     " VALUES (1, 1, 'x', 9, 3, 3, 0, 0)")


def test_wrong_or_missing_token_gets_nothing(study, raters):
    for token in (None, "", "nope", raters[0].token + "x", study.admin_token_value[:-1]):
        with pytest.raises(AccessDenied):
            study.rater(token)
        with pytest.raises(AccessDenied):
            study.admin(token)
    with pytest.raises(AccessDenied):
        study.admin(raters[0].token)  # a rater is not the owner


def test_a_rater_sees_and_writes_only_their_own(study, raters):
    alice, bob = (study.rater(r.token) for r in raters)
    item = alice.next_item()
    alice.submit(item.id, 5, 5, 5)
    assert bob.my_rating(item.id) is None
    assert bob.my_ratings() == []
    bob.submit(item.id, 1, 1, 1)
    assert alice.my_rating(item.id)["naturalness"] == 5
    rows = study.owner().ratings()
    assert sorted((r.rater, r.scores["naturalness"]) for r in rows) == [("alice", 5), ("bob", 1)]


def test_resubmitting_replaces_instead_of_duplicating(study, raters):
    alice = study.rater(raters[0].token)
    item = alice.next_item()
    alice.submit(item.id, 2, 2, 2)
    alice.submit(item.id, 4, 4, 4)
    rows = study.owner().ratings()
    assert len(rows) == 1 and rows[0].scores["factual"] == 4


def test_unknown_item_and_wrong_answer_kind_are_refused(tmp_path, demo_runs):
    s, _, _ = build_study(demo_runs, tmp_path / "ab.db", n=3, mode="ab")
    bob = s.rater(s.owner().add_rater("bob").token)
    item = bob.next_item()
    assert item.kind == "ab" and item.utterance_b
    with pytest.raises(InvalidRating):
        bob.submit(item.id, 3, 3, 3)
    with pytest.raises(InvalidRating):
        bob.choose(item.id, "left")
    with pytest.raises(InvalidRating):
        bob.choose(99999, "a")
    bob.choose(item.id, "tie")
    assert bob.my_rating(item.id)["choice"] == "tie"


def test_many_threads_submitting_at_once_store_each_rating_once(study):
    admin = study.owner()
    views = [study.rater(admin.add_rater(f"r{k}").token) for k in range(8)]
    errors = []

    def work(view):
        try:
            for item_id in view.order():
                view.submit(item_id, 3, 4, 5)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(v,)) for v in views]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    rows = admin.ratings()
    assert len(rows) == 8 * 18
    assert len({(r.rater, r.item_id) for r in rows}) == len(rows)


def test_study_from_runs_without_utterances_says_how_to_fix(tmp_path, demo_runs):
    (demo_runs[0] / "predictions.jsonl").write_text('{"id": "demo-0000", "prediction": [], "utterance": null}\n')
    (demo_runs[1] / "predictions.jsonl").write_text('{"id": "demo-0000", "prediction": []}\n')
    with pytest.raises(StudyError, match=r"\+gm pipeline"):
        build_study(demo_runs, tmp_path / "x.db")


def test_include_human_without_reference_says_how_to_fix(tmp_path, demo_runs):
    data = demo_runs[0].parent.parent / "data.jsonl"
    data.write_text("".join(l.replace('"reference"', '"note"') + "\n" for l in data.read_text().splitlines()))
    with pytest.raises(StudyError, match="reference"):
        build_study(demo_runs, tmp_path / "x.db", include_human=True)


def test_existing_file_is_not_overwritten_by_accident(tmp_path, demo_runs):
    build_study(demo_runs, tmp_path / "s.db", n=2)
    with pytest.raises(StudyError, match="--overwrite"):
        build_study(demo_runs, tmp_path / "s.db", n=2)


def test_not_a_study_file(tmp_path):
    (tmp_path / "x.db").write_text("hello")
    with pytest.raises(StudyError, match="not a rating study"):
        Study.open(tmp_path / "x.db")
    with pytest.raises(StudyError, match="no such study"):
        Study.open(tmp_path / "missing.db")


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.integers(-100, 100), st.floats(allow_nan=True), st.text(max_size=3)))
def test_only_whole_scores_from_1_to_5_are_stored(tmp_path_factory, value):
    from eval.ratings._store import _check_score

    try:
        stored = _check_score("naturalness", value)
    except InvalidRating:
        return
    assert isinstance(stored, int) and 1 <= stored <= 5
