"""Issue 25 (session 24, pagan b): lemma3.2 tested at a scale of the law chosen from the declared threshold, and the
rate claims' computed 'what would decide' for an undecided benign axis."""

import math

import numpy as np
import pytest

from theory import numeric
from theory import pagan as tp
from verify.papers import pagan


def test_lemma32_scale_is_one_for_the_papers_homogeneous_threshold():
    f = numeric(tp.lemma3_2_bound())
    scale, bound = pagan._lemma32_scale(f, 1.3, 2.1)
    assert scale == 1.0 and bound == pytest.approx(3.4)


@pytest.mark.parametrize("power, scale", [(1.25, 1e-3), (0.75, 1e3)])
def test_lemma32_scale_picks_the_scale_where_a_non_homogeneous_threshold_is_smallest(power, scale):
    f = numeric(tp.G_p**power + tp.G_2p**power)
    got, bound = pagan._lemma32_scale(f, 1.3, 2.1)
    assert got == scale and bound == pytest.approx((scale * 1.3) ** power + (scale * 2.1) ** power)


@pytest.mark.parametrize("power", [1.25, 0.75])
def test_lemma3_2_refutes_a_threshold_that_is_not_homogeneous(monkeypatch, power):
    """The pow mutants of the threshold (G_p^a + G_2p^a): at the law of s·Z (s = 1e-3 or 1e3) almost every dataset
    fails it, so the check says violated (it used to hold: at s = 1 the mutated threshold stays loose)."""
    monkeypatch.setattr(tp, "lemma3_2_bound", lambda: tp.G_p**power + tp.G_2p**power)
    out = pagan.lemma3_2("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["scale"] in (1e-3, 1e3) and out.counterexample["failures"] > 0


def test_gaussian_norm_mean_is_exact_on_closed_forms():
    assert pagan._gaussian_norm_mean(np.array([4.0])) == pytest.approx(2 * math.sqrt(2 / math.pi), rel=1e-9)
    assert pagan._gaussian_norm_mean(np.array([1.0, 1.0])) == pytest.approx(math.sqrt(math.pi / 2), rel=1e-9)


def test_window_reach_says_no_range_decides_where_the_ratio_levels_off():
    text = pagan._window_reach("pasan", "bound", "n", "quick")
    assert "--budget full" not in text and "beyond the full budget" not in text  # report: "undecided"
    assert "no n range of this sweep" in text and "the full budget's grid included" in text


@pytest.mark.parametrize("factor, says", [(0.9, "beyond the full budget's n ≤ 64000"),
                                           (1.1, "--budget full (n up to 64000) reaches it")])
def test_window_reach_names_the_first_value_where_the_window_opens(monkeypatch, factor, says):
    """With a window threshold the ratio does cross, the reason names where, and whether full reaches it."""
    r64 = pagan._expected_window_ratio("pasan", "bound", 64000, 10, 1.0, 0.25)
    monkeypatch.setattr(pagan, "RATE_ASYMPTOTIC", r64 * factor)
    text = pagan._window_reach("pasan", "bound", "n", "quick")
    assert "first at n ≈" in text and says in text


def test_example1_mu_constant_does_not_trend_for_the_papers_bound():
    dims, kmax = pagan.EXAMPLE1_MU_BUDGETS.at("quick")
    ps = 2 * np.arange(1, kmax + 1)
    f = numeric(tp.example1_bound())
    trends = pagan._ex1_mu_constant_trends(dims, kmax, ps, lambda mu, K, p, W: float(f(mu=mu, K=K, p=p, W=W)))
    assert len(trends) == 2 * len(pagan.EX1_PROFILES) * len(pagan.EX1_GEOMETRIES)
    assert max(abs(t["slope"]) for t in trends) < 1e-9 and min(t["span"] for t in trends) >= 1.0 - 1e-12


def test_example1_mu_refutes_a_bound_whose_constant_is_not_o1(monkeypatch):
    """The pow0.75 mutant K^(3/4)·p^(3/8)·W^(3/8) + µ: G_p stays below it once K̂ is fitted per configuration, but
    K̂ grows like t^(1/4) with the profile's scale, so it is no O(1) constant: violated."""
    import sympy as sp

    q = sp.Rational(3, 4)
    monkeypatch.setattr(tp, "example1_bound", lambda: tp.mu + tp.K**q * (tp.p * tp.W) ** (q / 2))
    out = pagan.example1_mu("quick", 0)
    assert out.verdict == "violated"
    assert out.numbers["broken"] == 0 and out.counterexample["slope"] == pytest.approx(0.25, abs=1e-9)


def _pow(expr, k):
    import sympy as sp

    return expr.subs({s: s ** sp.Rational(k) for s in expr.free_symbols if s.is_positive})


def _box_bound(expr):
    f = numeric(expr)
    return lambda d, ne, sg: float(f(S_2_3=float(np.sum(sg ** (2 / 3))), d=d, epsilon=ne, n=1))


def _ball_bound(expr):
    f = numeric(expr)
    return lambda d, ne, sg: float(f(S_1=float(np.sum(sg)), d=d, epsilon=ne, n=1))


def test_lb_edge_at_every_scale_holds_for_the_papers_bounds():
    v, ex, checked, _ = pagan._lb_edge_scaled(_box_bound(tp.proposition1_lower_bound()), pagan._box_condition,
                                              lambda sg: float(np.sum(sg)), dims=(3, 4))
    assert v == "holds" and ex is None and checked > 2 * 2 * len(pagan.LB_EDGE_SCALES)
    v, ex, _, _ = pagan._lb_edge_scaled(pagan._thm5_lb_ne, pagan._thm5_condition,
                                        lambda sg: 2.0 * math.sqrt(float(np.sum(sg**2))), dims=(2, 3))
    assert v == "holds" and ex is None


@pytest.mark.parametrize("what, k, scale", [("prop1", "5/4", 1e4), ("thm5", "5/4", 1e4), ("thm5", "3/4", 1e-4)])
def test_lb_edge_at_another_scale_refutes_a_bound_with_another_power_of_sigma(what, k, scale):
    """The pow mutants of the lower bounds are degree 5/4 or 3/4 in σ while the largest value is degree 1: at the
    scale 1e4 (or 1e-4) the mutated bound exceeds it, exactly; at scale 1 it does not."""
    if what == "prop1":
        lb, cond, top, dims = (_box_bound(_pow(tp.proposition1_lower_bound(), k)), pagan._box_condition,
                               lambda sg: float(np.sum(sg)), (3,))
    else:
        lb, cond, top, dims = (_ball_bound(_pow(tp.theorem5_lower_bound(), k)), pagan._thm5_condition,
                               lambda sg: 2.0 * math.sqrt(float(np.sum(sg**2))), (2, 3))
    assert pagan._lb_edge(lb, cond, top, dims=dims)[0] == "holds"
    v, ex, _, _ = pagan._lb_edge_scaled(lb, cond, top, dims=dims)
    assert v == "violated" and ex["scale"] == scale and ex["lower_bound"] > ex["largest_possible"]
    assert ex["lower_bound"] == pytest.approx(lb(ex["d"], ex["epsilon"], np.array(ex["sigma"])), rel=1e-12)


def test_edge_reason_names_log_d_only_where_log_d_is_at_most_one():
    assert pagan._edge_reason({"d": 2, "scale": 1.0}) == " (log d ≤ 1)"
    assert pagan._edge_reason({"d": 3}) == ""  # log 3 > 1: not the reason there
    assert "scaled by 0.0001" in pagan._edge_reason({"d": 3, "scale": 1e-4})
