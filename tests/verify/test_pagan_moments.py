"""pagan.example1 and pagan.lemma3.2: quick verdicts, exact moments vs Monte Carlo, negative controls."""

import math

import numpy as np
import pytest
from scipy import special

from verify import stats
from verify.papers import pagan


def test_gaussian_norm_moments_match_monte_carlo():
    w = np.array([0.6, 0.3, 0.1, 0.05])
    exact = pagan.gaussian_norm_moments(w, 3)
    rng = np.random.default_rng(0)
    Q = (rng.standard_normal((400_000, 4)) ** 2 * w).sum(axis=1) / w.sum()
    for k in range(1, 4):
        ci = stats.mean_ci(Q**k, level=0.999)
        assert ci.lo <= exact[k - 1] <= ci.hi


def test_example1_quick_holds_with_ratio_at_most_one():
    out = pagan.example1("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["K_hat"] == pytest.approx(1 / math.sqrt(2))  # attained at p = 2: √(E Q)/√2
    assert out.numbers["steepest_slope_p"] <= pagan.EX1_SLOPE_MARGIN
    assert out.numbers["steepest_slope_d"] <= pagan.EX1_SLOPE_MARGIN


def test_example1_is_tied_to_its_declared_theory(monkeypatch):
    """Mutant of theory.pagan.example1_bound without its √p: the check must now see G_p/bound grow like √p
    over the last decade of p and say violated (it evaluates the declared closed form)."""
    import sympy as sp

    from theory import pagan as tp

    monkeypatch.setattr(tp, "example1_bound", lambda: tp.mu + tp.K * sp.sqrt(tp.W))
    out = pagan.example1("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["slope"] > pagan.EX1_SLOPE_MARGIN and out.counterexample["span"] >= 1.0 - 1e-12


def test_example1_boundedness_rule_flags_non_subgaussian_growth():
    """Negative control: Laplace coordinates have G_p ≈ p/e, so G_p/√p grows: slope ≈ 1/2 over the last decade."""
    ps = 2 * np.arange(1, 21)
    laplace_gp = special.gamma(ps + 1.0) ** (1.0 / ps)  # E|Z|^p = Γ(p+1) for Laplace(0, 1)
    slope, span = pagan._last_decade_slope(ps, laplace_gp / np.sqrt(ps))
    assert slope > pagan.EX1_SLOPE_MARGIN and span >= 1.0 - 1e-12


def test_lemma3_2_quick_holds_and_numbers_agree():
    out = pagan.lemma3_2("quick", 0)
    assert out.verdict == "holds"
    # 12 (n, d, C, p) cells and, last, the exact decision on the two-point laws (issue 25)
    assert out.numbers["cells_holding"] == out.numbers["cells"] == len(out.decisions) - 1 == 12
    assert all(str(d.verdict) == "holds" for d in out.decisions)
    assert out.decisions[-1].control.test.startswith("two-point laws")
    assert out.counterexample is None


def test_lemma3_2_is_tied_to_its_declared_theory(monkeypatch):
    """Mutant of theory.pagan.lemma3_2_bound without the G_2p slack: the check, which evaluates it, now finds
    failure frequencies far above 1/n and says violated."""
    from theory import pagan as tp

    monkeypatch.setattr(tp, "lemma3_2_bound", lambda: tp.G_p)
    out = pagan.lemma3_2("quick", 0)
    assert out.verdict == "violated"


def test_lemma3_2_detection_with_a_too_tight_bound():
    """Negative control: against G_p alone (no G_2p slack) Ĝ_p exceeds the bound in a sizeable fraction of
    datasets, so the Clopper–Pearson interval sits above 1/n: the frequency check can fail."""
    n, d = 100, 20
    o = pagan._lemma32_task(n=n, d=d, datasets=300, ps=[2], seed=1)
    sigma = np.arange(1, d + 1) ** -1.5
    w = sigma**2  # C = I
    gp = math.sqrt(w.sum()) * pagan.gaussian_norm_moments(w, 1)[0] ** 0.5
    fails = int(np.sum(o["G_hat"][:, 0, 0] > gp))
    assert stats.clopper_pearson(fails, 300).lo > 1 / n


def test_algorithm3_privacy_quick_holds_on_the_t2_reading():
    out = pagan.algorithm3("quick", 0)
    assert out.verdict == "holds" and out.counterexample is None
    assert out.numbers["points_broken"] == 0 and out.numbers["max_eps_ratio"] <= 1.0
    # the other reading (one power of T) is recorded beside it: it breaks the promise at quick
    assert out.numbers["t1_points_broken"] == 2 and out.numbers["t1_max_eps_ratio"] > 1.0
    from verify.registry import REGISTRY, load_all

    load_all()
    assert "pagan.algorithm3.privacy" in REGISTRY and "pagan.algorithm3" not in REGISTRY  # retired


def test_algorithm3_t2_multiplier_is_the_derived_one():
    """Line 5 read with T²: std ρ²·T·√(d log(T/δ))/(nε) over sensitivity ρ²√d/n is T·√log(T/δ)/ε; the kernel's
    noise std is the same formula."""
    import kernels.moments
    from theory import numeric
    from theory import pagan as tp

    z = float(numeric(tp.algorithm3_noise_multiplier())(T=5, delta=1e-5, epsilon=1.0))
    assert z == pytest.approx(5 * math.sqrt(math.log(5 / 1e-5)))
    std = kernels.moments.noise_std(0.5, 5, 10, 1000, 1.0, 1e-5)
    assert std == pytest.approx(0.25 * z * math.sqrt(10) / 1000, rel=1e-12)


def test_algorithm3_pinned_counterexample_recomputed():
    """The one-T reading (retired pagan.algorithm3): d = 10 ⇒ T = 5 rounds, multiplier √(5·log(5/δ))/ε; five
    composed Gaussians exceed ε = 1 at δ = 1e-5 (dp-accounting's optimistic PLD, a lower bound on the true ε)."""
    from verify.privacy import gaussian_epsilon_interval

    z = math.sqrt(5 * math.log(5 / 1e-5)) / 1.0
    lo, hi = gaussian_epsilon_interval(z, 1e-5, 5)
    assert lo > 1.0 and hi >= lo  # even the lower bound breaks the promise ε = 1
    # and with ε = 0.1 at the same δ the promise is kept
    assert gaussian_epsilon_interval(math.sqrt(5 * math.log(5 / 1e-5)) / 0.1, 1e-5, 5)[1] <= 0.1


def test_example1_scale_and_chi2_parts_hold_and_report():
    out = pagan.example1("quick", 0)
    assert out.numbers["steepest_scale_slope"] <= 1e-12  # both sides homogeneous of degree 1 in σ: exactly flat
    assert out.numbers["chi2_moment_relative_error"] <= pagan.EX1_MOMENT_RTOL


@pytest.mark.parametrize("k", ["5/4"])
def test_example1_scale_part_catches_a_wrong_exponent(monkeypatch, k):
    """The mutant x -> x^(5/4) of theory.pagan.example1_bound makes the ratio fall like p^(-1/8) in p (no growth:
    the p-window alone holds), but the bound is no longer homogeneous of degree 1 in σ: the ratio trends with the
    profile's scale t and the claim says violated.  (x^(3/4) is caught by the p-window already: p^(1/8).)"""
    import sympy as sp

    from theory import pagan as tp
    from verify.mutants import _powers, mutate_value

    original = tp.example1_bound
    monkeypatch.setattr(tp, "example1_bound", lambda: mutate_value(original(), _powers(sp.Rational(k))))
    out = pagan.example1("quick", 0)
    assert out.verdict == "violated"
    assert abs(out.counterexample["scale_slope"]) > pagan.EX1_SLOPE_MARGIN


@pytest.mark.parametrize("k", ["5/4", "3/4"])
def test_example1_moment_part_catches_a_wrong_moment_polynomial(monkeypatch, k):
    """theory.pagan.gaussian_norm_moment with every P_r -> P_r^k: the exact moments no longer match χ²_d's
    (P_1 = 1 after normalising, but P_r = d^(1-r) for r ≥ 2 changes), so the claim says violated."""
    import sympy as sp

    from theory import pagan as tp
    from verify.mutants import _powers, mutate_value

    original = tp.gaussian_norm_moment
    monkeypatch.setattr(tp, "gaussian_norm_moment", lambda kk: mutate_value(original(kk), _powers(sp.Rational(k))))
    out = pagan.example1("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["chi2_moment_relative_error"] > pagan.EX1_MOMENT_RTOL


def test_chi2_moments_are_the_raw_moments_of_chi2_over_d():
    from scipy import stats as st

    for d in (1, 3, 10):
        m = pagan._ex1_chi2_moments(d, 4)
        assert np.allclose(m, [st.chi2(d).moment(k) / d**k for k in range(1, 5)], rtol=1e-12)
