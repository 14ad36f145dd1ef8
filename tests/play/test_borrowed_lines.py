"""Other games' lines for the same kind of act shape a check's centre, through the packs' shared
concepts; and the example lines' vectors are kept on disk between runs."""
from __future__ import annotations

import sqlite3
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import rulesets
from pipelines import vector_store
from pipelines.check_index import CheckIndex, borrowed_examples
from tests.play.test_gm_turn import bag_of_words


def pack(name: str, concepts: dict[str, list[str]], examples: dict[str, list[str]]) -> SimpleNamespace:
    checks = {cid: SimpleNamespace(examples=lines) for cid, lines in examples.items()}
    return SimpleNamespace(name=name, concepts=concepts, checks=checks, families={}, no_roll=[], impossible=[])


HERE = pack("here", {"endure": ["fortitude"], "look": ["spot"], "listen": ["listen"], "read_people": ["psych"]},
            {"fortitude": ["I hold my breath in the smoke"], "spot": ["I look at the floor for marks"],
             "listen": ["I listen at the door for voices"], "psych": ["is he lying to me about the ship"]})
THERE = pack("there", {"endure": ["vigor"], "look": ["notice"], "listen": ["notice"], "read_people": ["notice"],
                       "gamble": ["gambling"]},
             {"vigor": ["fights off the venom"], "notice": ["listen hard for voices at the door", "look for marks"],
              "gambling": ["bets the deed on one hand"]})


def test_a_line_is_lent_to_the_check_for_the_same_kind_of_act():
    lent = dict((line, label) for label, line in borrowed_examples(HERE, [HERE, THERE], bag_of_words))
    assert lent["fights off the venom"] == "fortitude"


def test_a_check_that_covers_several_kinds_of_act_lends_each_line_to_the_nearest_one_here():
    lent = dict((line, label) for label, line in borrowed_examples(HERE, [HERE, THERE], bag_of_words))
    assert lent["listen hard for voices at the door"] == "listen"
    assert lent["look for marks"] == "spot"


def test_a_check_for_a_kind_of_act_this_game_lacks_lends_nothing():
    lent = [line for _, line in borrowed_examples(HERE, [HERE, THERE], bag_of_words)]
    assert "bets the deed on one hand" not in lent
    assert borrowed_examples(pack("bare", {}, {"a": ["x"]}), [THERE], bag_of_words) == []


def test_borrowed_lines_move_a_checks_centre_but_never_the_nearest_line_vote(monkeypatch):
    monkeypatch.setattr(rulesets, "available", lambda: ["here", "there"])
    monkeypatch.setattr(rulesets, "load", lambda name: {"here": HERE, "there": THERE}[name])
    for p in (HERE, THERE):
        p.kind = "trpg"
    own = CheckIndex.for_pack(HERE, embed=bag_of_words)
    lent = CheckIndex.for_pack(HERE, embed=bag_of_words, borrow=True)
    line = "fights the venom in his arm"
    assert own.vote(line).neighbours == lent.vote(line).neighbours  # the lent lines are never neighbours
    assert lent.vote(line).blend["fortitude"] > own.vote(line).blend["fortitude"]


def test_the_shipped_packs_lend_a_save_across_games():
    dnd, others = rulesets.load("dnd5e"), [rulesets.load(n) for n in ("pf2e", "swade", "coc7e")]
    lent = borrowed_examples(dnd, others, bag_of_words)
    labels = {label for label, _ in lent}
    assert "constitution_save" in labels and labels <= set(dnd.checks)
    fortitude = set(rulesets.load("pf2e").check("fortitude").examples)
    assert {label for label, line in lent if line in {" ".join(f.split()) for f in fortitude}} == {"constitution_save"}


def counting(texts: list[str], calls: list[int]) -> np.ndarray:
    calls.append(len(texts))
    return bag_of_words(texts)


def test_example_vectors_are_computed_once_and_read_back_in_a_new_process(tmp_path, monkeypatch):
    store, calls = tmp_path / "vectors.sqlite", []
    monkeypatch.setattr(vector_store, "model_tag", lambda: "test-model")
    monkeypatch.setattr("pipelines.embeddings.DIM", 64)
    first = vector_store.embed_cached(["a b", "c d"], lambda t: counting(t, calls), path=store)
    vector_store._memo.clear()  # as a new process would start
    again = vector_store.embed_cached(["c d", "a b", "e f"], lambda t: counting(t, calls), path=store)
    assert calls == [2, 1]  # only the new line was embedded the second time
    assert np.allclose(again[1], first[0]) and np.allclose(again[0], first[1])


def test_an_unusable_store_warns_once_and_the_vectors_are_still_computed(tmp_path, monkeypatch):
    store = tmp_path / "vectors.sqlite"
    store.write_bytes(b"this is not a database" * 100)
    monkeypatch.setattr(vector_store, "model_tag", lambda: "test-model")
    monkeypatch.setattr(vector_store, "_broken", set())
    vector_store._memo.clear()
    with pytest.warns(UserWarning, match="not kept in .*VGM_CACHE_DIR"):
        out = vector_store.embed_cached(["a b"], bag_of_words, path=store)
    assert np.allclose(out, bag_of_words(["a b"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vector_store.embed_cached(["x y"], bag_of_words, path=store)  # no second warning


def test_a_new_model_never_reads_an_old_models_vectors(tmp_path, monkeypatch):
    store, calls = tmp_path / "vectors.sqlite", []
    monkeypatch.setattr("pipelines.embeddings.DIM", 64)
    monkeypatch.setattr(vector_store, "model_tag", lambda: "old")
    vector_store.embed_cached(["a b"], lambda t: counting(t, calls), path=store)
    vector_store._memo.clear()
    monkeypatch.setattr(vector_store, "model_tag", lambda: "new")
    vector_store.embed_cached(["a b"], lambda t: counting(t, calls), path=store)
    assert calls == [1, 1]
    assert sqlite3.connect(store).execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 2
