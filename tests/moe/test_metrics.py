"""CF/SF exactly as Tachikuma (1)-(6): hand-computed cases and properties a reader relies on.

The default is the paper's formulas as written; the per-tuple reading (``metric="tuple"``)
is kept by name. Issue 16 changed the default, so the cases where the two differ are
stated for both.
"""
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from eval.moe.metrics import score_instance, score_moe
from pipelines import Check


def c(who, skill):
    return Check(character=who, skill=skill)


def test_hand_computed_two_instances():
    gold = [[c("Jester", "perception")], [c("Nott", "stealth"), c("Caleb", "arcana")]]
    pred = [[c("jester", "insight")], [c("Nott the Brave", "stealth")]]
    score = score_moe(gold, pred, characters=[None, ["Nott|Nott the Brave"]])
    # instance 1: tc=1,p=1,g=1,ts=0 ; instance 2: tc=1,p=1,g=2,ts=1
    assert math.isclose(score.cp.value, (1 + 1) / 2)
    assert math.isclose(score.cr.value, (1 + 0.5) / 2)
    assert math.isclose(score.sp.value, (0 + 1) / 2)
    assert math.isclose(score.sr.value, (0 + 0.5) / 2)
    assert math.isclose(score.cf.value, 2 * 1 * 0.75 / 1.75)
    assert math.isclose(score.sf.value, 2 * 0.5 * 0.25 / 0.75)
    assert score.exact.value == 0
    assert "CF" in str(score) and "SF" in str(score)


def test_harmonic_mean_of_averages_not_average_of_f():
    gold = [[c("A", "x")], [c("B", "y"), c("C", "y"), c("D", "y")]]
    pred = [[c("A", "x"), c("B", "x"), c("C", "x"), c("E", "x")], [c("B", "y")]]
    score = score_moe(gold, pred)
    cp, cr = (0.25 + 1) / 2, (1 + 1 / 3) / 2
    assert math.isclose(score.cf.value, 2 * cp * cr / (cp + cr))
    assert not math.isclose(score.cf.value, score.cf_mean)


def test_paper_counts_character_names_for_t_c():
    """Issue 16: gold {(A,strength),(A,athletics)}, predicted {(A,perception)} → CR 0.5 (t_c = 1 name, g = 2)."""
    s = score_instance([c("A", "strength"), c("A", "athletics")], [c("A", "perception")])
    assert (s.cp, s.cr, s.sp, s.sr) == (1.0, 0.5, 0.0, 0.0)
    assert score_instance([c("A", "strength"), c("A", "athletics")], [c("A", "perception")], metric="tuple").cr == 1.0


def test_paper_counts_every_predicted_tuple_for_p():
    """Issue 16: a duplicated prediction → SP 0.5 (p = 2 tuples, t_s = 1)."""
    s = score_instance([c("A", "x")], [c("A", "x"), c("a", "x")])
    assert (s.cp, s.cr, s.sp, s.sr) == (0.5, 1.0, 0.5, 1.0)
    assert score_instance([c("A", "x")], [c("A", "x"), c("A", "x")], metric="tuple").sp == 1.0


def test_paper_one_character_two_checks_perfect_prediction():
    """As written, a perfect prediction of two checks for one character has CP = CR = 0.5 (t_c counts the one name)."""
    s = score_instance([c("A", "x"), c("A", "y")], [c("A", "x"), c("A", "y")])
    assert (s.cp, s.cr, s.sp, s.sr) == (0.5, 0.5, 1.0, 1.0) and s.exact
    t = score_instance([c("A", "x"), c("A", "y")], [c("A", "x"), c("A", "y")], metric="tuple")
    assert (t.cp, t.cr, t.sp, t.sr) == (1.0, 1.0, 1.0, 1.0)


def test_unknown_metric_is_one_line():
    import pytest

    from rulesets import VgmError

    with pytest.raises(VgmError, match=r"--metric 'f1': choose one of paper, tuple"):
        score_instance([c("A", "x")], [], metric="f1")


def test_empty_prediction_has_precision_zero():
    s = score_instance([c("A", "x")], [])
    assert (s.cp, s.cr, s.sp, s.sr) == (0, 0, 0, 0)


def test_one_character_two_checks_stays_within_one():
    s = score_instance([c("A", "x")], [c("A", "x"), c("A", "y")], metric="tuple")
    assert s.cp == 1 and s.cr == 1 and s.sp == 0.5 and s.sr == 1
    paper = score_instance([c("A", "x")], [c("A", "x"), c("A", "y")])
    assert paper.cp == 0.5 and paper.cr == 1 and paper.sp == 0.5 and paper.sr == 1


names = st.sampled_from(["Jester", "Nott", "Caleb", "Beau"])
skills = st.sampled_from(["perception", "stealth", "insight"])
checks = st.lists(st.builds(c, names, skills), min_size=0, max_size=4)
gold_checks = st.lists(st.builds(c, names, skills), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(st.lists(gold_checks, min_size=1, max_size=6))
def test_perfect_prediction_scores_one(gold):
    score = score_moe(gold, gold, B=20, metric="tuple")
    assert score.cf.value == 1 and score.sf.value == 1 and score.exact.value == 1
    distinct = [list(dict.fromkeys(g)) for g in gold]  # the paper: SF 1 for any exact prediction without repeats
    paper = score_moe(distinct, distinct, B=20)
    assert paper.sf.value == 1 and paper.exact.value == 1
    one_check_each = all(len({x.character for x in g}) == len(g) for g in distinct)
    assert (paper.cf.value == 1) == one_check_each


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(gold_checks, checks), min_size=1, max_size=6), st.randoms(), st.sampled_from(["paper", "tuple"]))
def test_order_invariance_and_bounds(pairs, rnd, metric):
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    score = score_moe(gold, pred, B=20, metric=metric)
    if metric == "tuple":  # only the per-tuple reading guarantees CF >= SF
        assert score.cf.value >= score.sf.value - 1e-12
        assert score.cp.value >= score.sp.value - 1e-12 and score.cr.value >= score.sr.value - 1e-12
    for value in (score.cp, score.cr, score.sp, score.sr, score.cf, score.sf):
        assert 0 <= value.value <= 1
    shuffled_pred = [list(reversed(p)) for p in pred]
    order = list(range(len(gold)))
    rnd.shuffle(order)
    again = score_moe([gold[i] for i in order], [shuffled_pred[i] for i in order], B=20, metric=metric)
    assert math.isclose(again.cf.value, score.cf.value) and math.isclose(again.sf.value, score.sf.value)
