"""Designs at crowd scale (issue 44): each item exactly K ratings, each rater a balanced random share of M items."""
import random
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.ratings import EnrollmentRefused, InvalidRating, Participant, Study, StudyError, crowd_settings, design, share
from eval.ratings._design import Design

from .conftest import Clock


def simulate(n_items: int, k: int, m: int, seed: int, drop: set[int] = frozenset()) -> tuple[dict, list[list[int]]]:
    """Raters arrive one by one until no item has a free place; the raters in ``drop`` give their items back."""
    holders = {i: 0 for i in range(n_items)}
    shares, rng = [], random.Random(seed)
    while True:
        mine = share(holders, k, m, rng)
        if not mine:
            return holders, shares
        for i in mine:
            holders[i] += 1
        shares.append(mine)
        if len(shares) - 1 in drop:  # a drop-out: every item goes back to the pool
            for i in mine:
                holders[i] -= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 6), st.data())
def test_every_item_reaches_k_loads_within_one_and_no_item_twice(n_items, k, data):
    m = data.draw(st.integers(1, n_items))
    holders, shares = simulate(n_items, k, m, data.draw(st.integers(0, 10**6)))
    assert set(holders.values()) == {k}  # exactly K each, once enough raters came
    assert all(len(s) == len(set(s)) for s in shares)  # nobody gets an item twice
    loads = [len(s) for s in shares]
    assert max(loads) - min(loads) <= 1 and max(loads) <= m
    assert len(shares) == Design(k, m).quota(n_items)  # the quota is items x K / M, rounded up


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.integers(1, 5), st.data())
def test_at_every_step_no_item_runs_more_than_one_ahead(n_items, k, data):
    m = data.draw(st.integers(1, n_items))
    holders, rng = {i: 0 for i in range(n_items)}, random.Random(data.draw(st.integers(0, 10**6)))
    while mine := share(holders, k, m, rng):
        for i in mine:
            holders[i] += 1
        assert max(holders.values()) - min(holders.values()) <= 1


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 4), st.data())
def test_drop_outs_items_are_taken_by_newcomers_until_each_has_k(n_items, k, data):
    m = data.draw(st.integers(1, n_items))
    drop = set(data.draw(st.lists(st.integers(0, 12), max_size=4)))
    holders, shares = simulate(n_items, k, m, data.draw(st.integers(0, 10**6)), drop)
    assert set(holders.values()) == {k}
    assert all(len(s) <= m and len(s) == len(set(s)) for s in shares)


def make_study(path, n_items=300, k=3, m=30, attention=2, crowd=True, drop_after=60.0) -> Study:
    contexts = [{"instance_id": f"c{i:03d}", "ruleset": "dnd5e", "turns": [{"speaker": "P", "text": f"turn {i}"}]}
                for i in range(n_items // 2)]
    items = [{"kind": "score", "instance_id": f"c{i // 2:03d}", "condition": ("tbs", "template")[i % 2],
              "utterance": f"line {i}", "checks": []} for i in range(n_items)]
    items += [{"kind": "score", "instance_id": "c000", "condition": "attention", "utterance": "Brother Osk, swim.",
               "attention": True, "expect": {"max": {"factual": 2}}} for _ in range(attention)]
    plan = design(k, m, n_items, drop_after)
    study, _ = Study.create(path, contexts, items, design=plan, crowd=crowd_settings("generic", enroll_rate=None) if crowd else None)
    return study


def held_and_rated(study) -> tuple[dict[int, int], dict[int, int]]:
    conn = sqlite3.connect(study.path)
    held = dict(conn.execute("SELECT i.id, (SELECT COUNT(*) FROM assignments a WHERE a.item_id = i.id) FROM items i WHERE attention = 0"))
    rated = dict(conn.execute("SELECT i.id, (SELECT COUNT(*) FROM ratings x WHERE x.item_id = i.id AND x.skipped = 0)"
                              " FROM items i WHERE attention = 0"))
    return held, rated


@pytest.mark.slow  # 1,900 stored answers and serves through the real store: about 35 s on the shared 2-core machine
def test_300_items_k3_m30_with_drop_outs_reassigned_every_item_rated_exactly_3_times(tmp_path):
    study = make_study(tmp_path / "d.db")
    study.clock = clock = Clock()
    key = study.enroll_key()
    raters = [study.enroll(key, Participant())[0] for _ in range(30)]
    assert [study.rater(r.token).progress().total for r in raters] == [32] * 30  # 30 items + the 2 attention items
    with pytest.raises(EnrollmentRefused) as full:
        study.enroll(key, Participant())
    assert full.value.reason == "full"
    quitters = {3, 17, 25}
    for n, r in enumerate(raters):
        view = study.rater(r.token)
        for _ in range(5 if n in quitters else 40):  # three raters answer 5 items and leave
            item = view.next_item()
            if item is None:
                break
            view.submit(item.id, 3, 3, 3)
    assert held_and_rated(study)[1] != {i: 3 for i in held_and_rated(study)[1]}
    clock.advance(61 * 60)  # an hour of silence: they dropped out
    late = [study.enroll(key, Participant())[0] for _ in range(3)]
    assert sorted(study.rater(r.token).progress().total - 2 for r in late) == [25, 25, 25]  # 75 open items, split evenly
    with pytest.raises(EnrollmentRefused):
        study.enroll(key, Participant())
    for r in late:
        view = study.rater(r.token)
        while (item := view.next_item()) is not None:
            view.submit(item.id, 4, 4, 4)
    held, rated = held_and_rated(study)
    assert set(rated.values()) == {3} and set(held.values()) == {3}  # every item served to exactly 3 raters
    finished = [r for r in study.owner().raters() if not r["dropped_at"]]
    assert len(finished) == 30 and {r["done"] for r in finished} == {32} | {27}  # 27 regular, 3 replacements
    cov = study.owner().coverage()
    assert cov["complete"] == 300 and cov["over"] == 0 and cov["reassigned"] == 75 and cov["dropped_raters"] == 3
    conn = sqlite3.connect(study.path)
    pairs = conn.execute("SELECT rater_id, item_id FROM ratings").fetchall()
    assert len(pairs) == len(set(pairs))  # no rater rated an item twice
    quitter = study.rater(raters[3].token)  # coming back after the items went to others: kept answers, no code
    assert quitter.dropped() and quitter.completion() is None
    with pytest.raises(EnrollmentRefused) as late_code:
        quitter.complete()
    assert late_code.value.reason == "timed_out" and late_code.value.status == 410


def test_a_rater_cannot_answer_an_item_outside_their_share(tmp_path):
    study = make_study(tmp_path / "d.db", n_items=20, k=1, m=10, crowd=False)
    alice = study.owner().add_rater("alice")
    view = study.rater(alice.token)
    theirs = set(view.order())
    other = next(i for i in range(1, 23) if i not in theirs)
    with pytest.raises(InvalidRating, match="not one of your items"):
        view.submit(other, 3, 3, 3)
    study.owner().add_rater("bob")
    with pytest.raises(StudyError, match="every item already has its 1 rater"):
        study.owner().add_rater("carol")


@pytest.mark.parametrize("k, m, message", [
    (3, None, "--per-item needs --per-rater too"),
    (0, 5, "--per-item 0: give how many ratings each item gets"),
    (3, 0, "--per-rater 0: give how many items each rater gets"),
    (3, 31, "--per-rater 31: the study has only 30 items and nobody rates one twice"),
])
def test_impossible_designs_are_one_line(k, m, message):
    with pytest.raises(StudyError) as err:
        design(k, m, 30)
    assert message in str(err.value) and "\n" not in str(err.value)
