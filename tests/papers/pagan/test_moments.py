"""Example 1 and Lemma 3.2 (:mod:`verify.papers.pagan.moments`): quick verdicts, exact moments against Monte Carlo
and closed forms, the exact failure bounds, the scale of the law, and negative controls.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy import special
from scipy import stats as st

from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from theory import numeric
from theory import pagan as tp
from verify import mutants, registry, stats
from verify.mutants import _powers, mutate_value
from verify.papers.pagan import _common, moments
from verify.runner import SerialRunner, using

# --------------------------------------------------------------------------------------
# pagan.lemma3.2: exact moments against the MGF series; the weaker probability mutant
# --------------------------------------------------------------------------------------
L32 = "pagan.lemma3.2"


CID = "pagan.lemma3.2"


def _mutant(name: str):
    registry.load_all()
    (c,) = registry.select([CID])
    (m,) = [m for m in list(c.mutants) + mutants.theory_mutants(c) if m.name == name]
    return c, m


def test_lemma3_2_moments_agree_with_the_series_route():
    for w in (np.arange(1, 21.0) ** -3, np.arange(1, 101.0) ** -1, np.full(7, 0.3)):
        a, b = _common.gaussian_norm_moments(w, 12), moments.weighted_chi2_moments_series(w, 12)
        assert np.max(np.abs(a / b - 1)) < 1e-12
    # χ²_d / d: E[(Q/W)^2] = 1 + 2/d for equal weights
    assert moments.weighted_chi2_moments_series(np.ones(5), 2)[1] == pytest.approx(1 + 2 / 5, rel=1e-14)


@pytest.mark.parametrize("name", ["gaussian_norm_moment:pow1.25", "gaussian_norm_moment:pow0.75",
                                  "gaussian_norm_moment:x10"])
def test_lemma3_2_wrong_moments_are_refuted_exactly(name):
    c = claim_by_id(L32)
    m = [m for m in mutants.theory_mutants(c, {"theory.pagan.gaussian_norm_moment": tp.gaussian_norm_moment(2)})
         if m.name == name][0]
    out = run_under(c, m)
    assert out.verdict == "violated"
    assert out.counterexample["relative_gap"] > moments.LEMMA32_MOMENT_RTOL
    f = out.finding  # the exact moments' part fails (one part more than the decisions), no repair
    assert f.scope == "in_regime" and f.region.explored == len(out.decisions) + 1 and f.region.failing >= 1
    assert "the declared moments" in f.region.text and f.repair is None and not f.at_paper_setting.fails


def test_lemma3_2_probability_pow075_is_only_weaker():
    registry.load_all()
    assert (L32, "lemma3_2_probability:pow0.75") in mutants.EQUIVALENT
    m = generic_mutant(L32, "lemma3_2_probability:pow0.75")
    with m.apply():
        mutated = getattr(tp, "lemma3_2_probability")()
    assert sp.simplify(mutated - tp.n ** sp.Rational(-3, 4)) == 0
    # n^{-3/4} − n^{-1} = n^{-1}(n^{1/4} − 1) ≥ 0 for n ≥ 1 (and = 0 only at n = 1)
    diff = sp.factor(mutated - tp.lemma3_2_probability())
    assert all(bool(diff.subs(tp.n, v) >= 0) for v in (1, 2, 10, 10**6))
    assert sp.solve(sp.Eq(diff, 0), tp.n) == [1]


def test_lemma32_scale_is_one_for_the_papers_homogeneous_threshold():
    f = numeric(tp.lemma3_2_bound())
    scale, bound = moments._lemma32_scale(f, 1.3, 2.1)
    assert scale == 1.0 and bound == pytest.approx(3.4)


@pytest.mark.parametrize("power, scale", [(1.25, 1e-3), (0.75, 1e3)])
def test_lemma32_scale_picks_the_scale_where_a_non_homogeneous_threshold_is_smallest(power, scale):
    f = numeric(tp.G_p**power + tp.G_2p**power)
    got, bound = moments._lemma32_scale(f, 1.3, 2.1)
    assert got == scale and bound == pytest.approx((scale * 1.3) ** power + (scale * 2.1) ** power)


@pytest.mark.parametrize("power", [1.25, 0.75])
def test_lemma3_2_refutes_a_threshold_that_is_not_homogeneous(monkeypatch, power):
    """The pow mutants of the threshold (G_p^a + G_2p^a): at the law of s·Z (s = 1e-3 or 1e3) almost every dataset
    fails it, so the check says violated (it used to hold: at s = 1 the mutated threshold stays loose)."""
    monkeypatch.setattr(tp, "lemma3_2_bound", lambda: tp.G_p**power + tp.G_2p**power)
    out = moments.lemma3_2("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["scale"] in (1e-3, 1e3) and out.counterexample["failures"] > 0


def test_example1_mu_constant_does_not_trend_for_the_papers_bound():
    dims, kmax = moments.EXAMPLE1_MU_BUDGETS.at("quick")
    ps = 2 * np.arange(1, kmax + 1)
    f = numeric(tp.example1_bound())
    trends = moments._ex1_mu_constant_trends(dims, kmax, ps, lambda mu, K, p, W: float(f(mu=mu, K=K, p=p, W=W)))
    assert len(trends) == 2 * len(moments.EX1_PROFILES) * len(moments.EX1_GEOMETRIES)
    assert max(abs(t["slope"]) for t in trends) < 1e-9 and min(t["span"] for t in trends) >= 1.0 - 1e-12


def test_example1_mu_refutes_a_bound_whose_constant_is_not_o1(monkeypatch):
    """The pow0.75 mutant K^(3/4)·p^(3/8)·W^(3/8) + µ: G_p stays below it once K̂ is fitted per configuration, but
    K̂ grows like t^(1/4) with the profile's scale, so it is no O(1) constant: violated."""

    q = sp.Rational(3, 4)
    monkeypatch.setattr(tp, "example1_bound", lambda: tp.mu + tp.K**q * (tp.p * tp.W) ** (q / 2))
    out = moments.example1_mu("quick", 0)
    assert out.verdict == "violated"
    assert out.numbers["broken"] == 0 and out.counterexample["slope"] == pytest.approx(0.25, abs=1e-9)
    f = out.finding  # only the K̂ trends fail: no configuration is above the bound
    assert f.scope == "in_regime" and f.repair is None and f.region.failing >= 1
    assert f.region.explored == out.numbers["configurations"] + 2 * 3 * 3 and "K̂ along" in f.region.text


def test_noncentral_moments_match_the_central_case_and_a_hand_computation():
    """E[(w(N + m)²)] = w(1 + m²) and Var = 2w²(1 + 2m²) for one coordinate; m = 0 is the central recursion."""


    m1, m2 = tp.noncentral_norm_moments(np.array([2.0]), np.array([3.0]), 2)
    assert m1 == 2.0 * 10.0 and m2 - m1**2 == 2 * 4.0 * (1 + 2 * 9.0)
    w = np.array([1.0, 0.5, 0.2])
    assert np.allclose(tp.noncentral_norm_moments(w, np.zeros(3), 5),
                       _common.gaussian_norm_moments(w, 5) * w.sum() ** np.arange(1, 6), rtol=1e-13)


def test_example1_mu_holds_and_a_bound_without_mu_would_not():


    out = moments.example1_mu("quick", 0)
    assert out.verdict == "holds" and out.numbers["broken"] == 0 and out.numbers["min_relative_slack"] > 0
    # µ = 100·√W on one coordinate: G_2 = √(µ² + W) exceeds µ but not µ + K̂·√2·√W
    w = np.array([1.0, 1.0])
    g2 = math.sqrt(tp.noncentral_norm_moments(w, np.array([100 * math.sqrt(2.0), 0.0]), 1)[0])
    assert g2 == math.sqrt(100**2 * 2 + 2) and g2 > 100 * math.sqrt(2)
    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["pagan.example1.mu"]], "quick", 0)}
    assert by["example1_bound:x0.1"].refuted and by["example1_bound:x10"].equivalent


def test_markov_bound_matches_chi_square_moments_in_closed_form():
    # d = 1, p = 2: Y = N², S = Σ N_i² ~ χ²_n, E[S^m] = n(n + 2)···(n + 2m − 2)
    n, a, orders = 7, 3.0, 6
    chi2 = moments.weighted_chi2_moments_series(np.array([1.0]), orders)  # E[N^{2k}] = (2k − 1)!!
    assert np.allclose(chi2, [math.prod(range(1, 2 * k, 2)) for k in range(1, orders + 1)], rtol=1e-13)
    got, m = moments.lemma32_failure_bound(chi2, 2, a, n, orders=orders)
    closed = [math.prod(n + 2 * i for i in range(mm)) / (n * a) ** mm for mm in range(1, orders + 1)]
    assert got == pytest.approx(min(closed), rel=1e-12) and m == int(np.argmin(closed)) + 1
    assert moments.lemma32_failure_bound(chi2, 2, 0.0, n, orders=orders) == (1.0, 0)
    with pytest.raises(ValueError):
        moments.lemma32_failure_bound(chi2, 3, a, n, orders=orders)


def test_two_point_failure_of_the_papers_threshold_in_closed_form():
    # p = 2, n = 10: the breakpoint q solves 10·(√q + q^{1/4})² = 1, i.e. x² + x = 1/√10 with x = q^{1/4}; there the
    # failure is "some point is the outlier": 1 − (1 − q)^10 ≈ 0.0399 (≤ 1/n = 0.1, > 0.1/n = 0.01)
    x = (-1 + math.sqrt(1 + 4 / math.sqrt(10))) / 2
    q = x**4
    fail, at = moments.lemma32_two_point_failure(numeric(tp.lemma3_2_bound()), 2, 10)
    assert at["j"] == 1 and at["q"] == pytest.approx(q, rel=2e-6) and at["threshold_count"] < 1.0
    assert fail == pytest.approx(1 - (1 - q) ** 10, rel=1e-5)
    assert 0.01 < fail < 0.1


def test_quick_holds_with_every_cell_certified_exactly():
    registry.load_all()
    mutants.reset_caches()
    with using(SerialRunner()):
        out = registry.REGISTRY[CID].check("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["cells"] == 12 and out.numbers["cells_certified_exactly"] == 12
    assert 0.0 < out.numbers["exact_failure_bound_over_declared_max"] < 1e-3
    assert 0.5 < out.numbers["two_point_failure_over_declared_max"] < 1.0


@pytest.mark.parametrize("name", ["lemma3_2_probability:x0.1", "lemma3_2_probability:pow1.25"])
def test_a_smaller_failure_probability_is_refuted_by_a_two_point_law(name):
    c, m = _mutant(name)
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        out = c.check("quick", 0)
    assert out.verdict == "violated" and out.numbers["two_point_failure_over_declared_max"] > 1.0
    assert out.counterexample["law"].startswith("two-point") and out.counterexample["failure"] > \
        out.counterexample["declared"]


def test_gaussian_norm_moments_match_monte_carlo():
    w = np.array([0.6, 0.3, 0.1, 0.05])
    exact = _common.gaussian_norm_moments(w, 3)
    rng = np.random.default_rng(0)
    Q = (rng.standard_normal((400_000, 4)) ** 2 * w).sum(axis=1) / w.sum()
    for k in range(1, 4):
        ci = stats.mean_ci(Q**k, level=0.999)
        assert ci.lo <= exact[k - 1] <= ci.hi


def test_example1_quick_holds_with_ratio_at_most_one():
    out = moments.example1("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["K_hat"] == pytest.approx(1 / math.sqrt(2))  # attained at p = 2: √(E Q)/√2
    assert out.numbers["steepest_slope_p"] <= moments.EX1_SLOPE_MARGIN
    assert out.numbers["steepest_slope_d"] <= moments.EX1_SLOPE_MARGIN


def test_example1_is_tied_to_its_declared_theory(monkeypatch):
    """Mutant of theory.pagan.example1_bound without its √p: the check must now see G_p/bound grow like √p
    over the last decade of p and say violated (it evaluates the declared closed form)."""


    monkeypatch.setattr(tp, "example1_bound", lambda: tp.mu + tp.K * sp.sqrt(tp.W))
    out = moments.example1("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["slope"] > moments.EX1_SLOPE_MARGIN and out.counterexample["span"] >= 1.0 - 1e-12
    f = out.finding
    assert f.scope == "in_regime" and f.repair is None and "in p:" in f.region.text
    assert 1 <= f.region.failing < f.region.explored  # the exact moments still hold


def test_example1_boundedness_rule_flags_non_subgaussian_growth():
    """Negative control: Laplace coordinates have G_p ≈ p/e, so G_p/√p grows: slope ≈ 1/2 over the last decade."""
    ps = 2 * np.arange(1, 21)
    laplace_gp = special.gamma(ps + 1.0) ** (1.0 / ps)  # E|Z|^p = Γ(p+1) for Laplace(0, 1)
    slope, span = moments._last_decade_slope(ps, laplace_gp / np.sqrt(ps))
    assert slope > moments.EX1_SLOPE_MARGIN and span >= 1.0 - 1e-12


def test_lemma3_2_quick_holds_and_numbers_agree():
    out = moments.lemma3_2("quick", 0)
    assert out.verdict == "holds"
    # 12 (n, d, C, p) cells and, last, the exact decision on the two-point laws
    assert out.numbers["cells_holding"] == out.numbers["cells"] == len(out.decisions) - 1 == 12
    assert all(str(d.verdict) == "holds" for d in out.decisions)
    assert out.decisions[-1].control.test.startswith("two-point laws")
    assert out.counterexample is None


def test_lemma3_2_is_tied_to_its_declared_theory(monkeypatch):
    """Mutant of theory.pagan.lemma3_2_bound without the G_2p slack: the check, which evaluates it, now finds
    failure frequencies far above 1/n and says violated."""

    monkeypatch.setattr(tp, "lemma3_2_bound", lambda: tp.G_p)
    out = moments.lemma3_2("quick", 0)
    assert out.verdict == "violated"


def test_lemma3_2_detection_with_a_too_tight_bound():
    """Negative control: against G_p alone (no G_2p slack) Ĝ_p exceeds the bound in a sizeable fraction of
    datasets, so the Clopper–Pearson interval sits above 1/n: the frequency check can fail."""
    n, d = 100, 20
    o = moments._lemma32_task(n=n, d=d, datasets=300, ps=[2], seed=1)
    sigma = np.arange(1, d + 1) ** -1.5
    w = sigma**2  # C = I
    gp = math.sqrt(w.sum()) * _common.gaussian_norm_moments(w, 1)[0] ** 0.5
    fails = int(np.sum(o["G_hat"][:, 0, 0] > gp))
    assert stats.clopper_pearson(fails, 300).lo > 1 / n


def test_example1_scale_and_chi2_parts_hold_and_report():
    out = moments.example1("quick", 0)
    assert out.numbers["steepest_scale_slope"] <= 1e-12  # both sides homogeneous of degree 1 in σ: exactly flat
    assert out.numbers["chi2_moment_relative_error"] <= moments.EX1_MOMENT_RTOL


@pytest.mark.parametrize("k", ["5/4"])
def test_example1_scale_part_catches_a_wrong_exponent(monkeypatch, k):
    """The mutant x -> x^(5/4) of theory.pagan.example1_bound makes the ratio fall like p^(-1/8) in p (no growth:
    the p-window alone holds), but the bound is no longer homogeneous of degree 1 in σ: the ratio trends with the
    profile's scale t and the claim says violated.  (x^(3/4) is caught by the p-window already: p^(1/8).)"""


    original = tp.example1_bound
    monkeypatch.setattr(tp, "example1_bound", lambda: mutate_value(original(), _powers(sp.Rational(k))))
    out = moments.example1("quick", 0)
    assert out.verdict == "violated"
    assert abs(out.counterexample["scale_slope"]) > moments.EX1_SLOPE_MARGIN


@pytest.mark.parametrize("k", ["5/4", "3/4"])
def test_example1_moment_part_catches_a_wrong_moment_polynomial(monkeypatch, k):
    """theory.pagan.gaussian_norm_moment with every P_r -> P_r^k: the exact moments no longer match χ²_d's
    (P_1 = 1 after normalising, but P_r = d^(1-r) for r ≥ 2 changes), so the claim says violated."""


    original = tp.gaussian_norm_moment
    monkeypatch.setattr(tp, "gaussian_norm_moment", lambda kk: mutate_value(original(kk), _powers(sp.Rational(k))))
    out = moments.example1("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["chi2_moment_relative_error"] > moments.EX1_MOMENT_RTOL


def test_chi2_moments_are_the_raw_moments_of_chi2_over_d():

    for d in (1, 3, 10):
        m = moments._ex1_chi2_moments(d, 4)
        assert np.allclose(m, [st.chi2(d).moment(k) / d**k for k in range(1, 5)], rtol=1e-12)

