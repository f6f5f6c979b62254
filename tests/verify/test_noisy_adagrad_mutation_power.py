"""Issue 25 (mutation power) for noisy_adagrad: the parts of a statement that a check used to compute but only report
are decided, and each new decision can fail."""

import math

import numpy as np
import pytest
import sympy as sp

from kernels import faults
from theory import noisy_adagrad as tn
from verify import decide, mutants
from verify.papers import noisy_adagrad as vn


def test_sigma_promise_decides_the_accountant_bracket_against_the_promise():
    z = math.sqrt(2 * math.log(1e5))  # Theorem 5.1's σn/L over √T at ε = 1, δ = 1e-5: accountant ε ≈ 0.759
    ok = vn.sigma_promise(z * 40, 1600, 1.0, 1e-5, "x")
    assert ok.verdict == decide.Verdict.HOLDS and 0.75 < ok.violated_bound <= ok.holds_bound < 0.77
    bad = vn.sigma_promise(z * 40 * 0.5, 1600, 1.0, 1e-5, "x")  # half the noise: ε ≈ 1.63
    assert bad.verdict == decide.Verdict.VIOLATED and bad.violated_bound > 1.6
    lo, hi = ok.violated_bound, ok.holds_bound  # the exact ε's bracket, relative width about 2e-9
    assert 0 < (hi - lo) / hi < 1e-8
    below = vn.sigma_promise(z * 40, 1600, 0.75888, 1e-5, "x")  # just below the exact ε ≈ 0.758904: broken
    assert below.verdict == decide.Verdict.VIOLATED
    inside = vn.sigma_promise(z * 40, 1600, (lo + hi) / 2, 1e-5, "x")  # a promise inside the bracket: undecided
    assert inside.verdict == decide.Verdict.INCONCLUSIVE
    assert vn.sigma_promise(z * 40, 1600, hi, 1e-5, "x").verdict == decide.Verdict.HOLDS


def test_theorem51_privacy_half_is_decided_and_holds():
    out = vn.theorem5_1("quick", 0)
    priv = [d for d in out.decisions if "(ε, δ)-DP for T" in d.control.test]
    assert len(priv) == 1 and priv[0].verdict == decide.Verdict.HOLDS
    assert out.numbers["accountant_epsilon_of_sigma_hi"] <= 1.0
    assert out.numbers["accountant_epsilon_of_sigma_lo"] == pytest.approx(out.numbers["accountant_epsilon_of_sigma"],
                                                                           abs=1e-3)


def test_theorem51_a_tenfold_smaller_sigma_is_violated_by_its_privacy(monkeypatch):
    """theorem5_1_sigma ×0.1 used to survive (less noise only lowers the excess risk); its σ is not (1, 1e-5)-DP."""
    real = tn.theorem5_1_sigma()
    monkeypatch.setattr(tn, "theorem5_1_sigma", lambda: real / 10)
    out = vn.theorem5_1("quick", 0)
    assert out.verdict == "violated"
    c = out.counterexample
    assert c["accountant_epsilon_lo"] > c["epsilon_promised"] == 1.0


@pytest.mark.parametrize("adjacency", ["zero_out", "replace_one"])
def test_goe_sigma_is_solved_at_the_actual_sensitivity(adjacency):
    z, _, sigma_B = vn._na_adagrad_noise(16, 4, adjacency)
    k = vn.NA_AUDIT_SENSITIVITY[adjacency]
    delta_t = math.sqrt(2) * np.sqrt(np.arange(1, 5)) / 16
    np.testing.assert_allclose(sigma_B, k * z * delta_t / math.sqrt(2), rtol=1e-14)


def _goe_pow(power: float):
    s, d = tn.sigma, tn.Delta
    return lambda: s**power * sp.sqrt(2) / d**power


def test_goe_multiplier_power_mutant_changes_the_noise(monkeypatch):
    """Evaluated at σ = Δ = 1 (as before) any power of σ and Δ gave the same σ_B; solved at the actual Δ_t it does
    not."""
    z, _, before = vn._na_adagrad_noise(16, 1, "zero_out")
    monkeypatch.setattr(tn, "goe_noise_multiplier", _goe_pow(1.25))
    _, _, after = vn._na_adagrad_noise(16, 1, "zero_out")
    assert after[0] < 0.95 * before[0]  # kz/√2 > 1: the 1.25 power needs less noise for the same multiplier


def test_exact_mu_decision_flags_an_under_noised_calibration(monkeypatch):
    monkeypatch.setattr(tn, "goe_noise_multiplier", _goe_pow(1.25))
    w = vn.na_adagrad_release_direction(16, 1, "zero_out")
    assert w["mu"] / w["mu_accountant"] > 1.01
    out = vn.na_audit("noisy_adagrad", "quick", 0, trials=2000)
    assert out.verdict == "violated"
    assert out.counterexample["canary_mu_over_accountant_mu"] > 1.01
    assert any("exact" in d.control.test and d.verdict == decide.Verdict.VIOLATED for d in out.decisions)


def test_exact_mu_decision_holds_unmutated():
    out = vn.na_audit("noisy_adagrad", "quick", 0, trials=2000)
    mu = [d for d in out.decisions if "canary's exact μ" in d.control.test]
    assert len(mu) == 1 and mu[0].verdict == decide.Verdict.HOLDS and 0.998 <= mu[0].estimate <= 1.0


def test_lemma5_rate_is_decided_flat_unmutated(quick_lemma5):
    out = quick_lemma5
    assert out.verdict == "holds"
    assert abs(out.numbers["slope_in_t"]) <= vn.LEMMA5_SLOPE_MARGIN
    assert abs(out.numbers["slope_in_n"]) <= vn.LEMMA5_SLOPE_MARGIN
    assert "≤ the margin 0.1" in out.evidence


@pytest.fixture(scope="module")
def quick_lemma5():
    return vn.lemma5("quick", 0)


def test_lemma5_a_slower_rate_in_t_is_violated(monkeypatch):
    """lemma5_statement with every exponent ×3/4 (L√t/n → L^(3/4) t^(3/8)/n^(3/4)) is larger on the grid, so the
    ceiling and the pointwise bounds cannot see it; the ratio then grows like t^(1/8) along t: the rate fails."""
    L, t, n = tn.L, tn.t, tn.n
    monkeypatch.setattr(tn, "lemma5_statement",
                        lambda: L ** sp.Rational(3, 4) * t ** sp.Rational(3, 8) / n ** sp.Rational(3, 4))
    out = vn.lemma5("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["slope_in_t"] > vn.LEMMA5_SLOPE_MARGIN
    assert out.counterexample["worst_ratio"] < out.counterexample["ceiling"]  # only the rate decides here


@pytest.mark.parametrize("fn", ["sigma_B_calibration", "lemma5_rigorous", "goe_noise_multiplier"])
def test_section41_scale_in_L_catches_exponent_errors_the_sqrt_n_slack_absorbs(monkeypatch, fn):
    """σ_B's forms with every positive variable's exponent ×5/4 (σ_B) or ×3/4 (the sensitivity, the GOE multiplier)
    stay bounded along T and n (σ_B carries √n of slack) but are no longer scale-free in L."""
    from verify.mutants import _powers

    real = getattr(tn, fn)()
    wrong = _powers(sp.Rational(5, 4) if fn == "sigma_B_calibration" else sp.Rational(3, 4))(real)
    monkeypatch.setattr(tn, fn, lambda: wrong)
    out = vn.section4_1_sigma("quick", 0)
    assert out.verdict == "violated"
    L_slopes = [out.numbers[f"tail_slope_c_B_{a}"] for a in vn.SEC41_L_AXES]
    assert max(L_slopes) > vn.SEC41_VIOLATE and out.counterexample["largest_tail_slope"].startswith("c_B_L_")


def test_section41_constants_are_scale_free_in_L():
    a = vn.sec41_constants(100, 1000, 1.0, 1e-5, L=1.0)
    for L in (1e-6, 1e6):
        b = vn.sec41_constants(100, 1000, 1.0, 1e-5, L=L)
        assert b["c_B"] == pytest.approx(a["c_B"], rel=1e-12) and b["c_b"] == pytest.approx(a["c_b"], rel=1e-12)


@pytest.mark.parametrize("name", ["dp_gd", "dp_gd_replace_one"])
def test_dpgd_audit_decides_the_calibration_and_holds(name):
    out = vn.na_audit(name, "quick", 0, trials=2000)
    exact = [d for d in out.decisions if "Theorem 5.1's σ at nominal" in d.reason]
    # every configuration at the canary's L = 1 and at each NA_DPGD_PRIVACY_L
    assert len(exact) == len(vn.NA_AUDITS[name][2]) * (1 + len(vn.NA_DPGD_PRIVACY_L))
    assert all(d.verdict == decide.Verdict.HOLDS and d.holds_bound <= 4.0 for d in exact)


@pytest.mark.parametrize("name", ["dp_gd", "dp_gd_replace_one"])
def test_dpgd_audit_a_tenfold_smaller_sigma_is_violated(monkeypatch, name):
    """theorem5_1_sigma ×0.1 used to survive: the kernel and the audit's accountant both took the smaller σ, so no
    leak could show; its accountant ε (≈ 69) is far above the nominal 4."""
    real = tn.theorem5_1_sigma()
    monkeypatch.setattr(tn, "theorem5_1_sigma", lambda: real / 10)
    out = vn.na_audit(name, "quick", 0, trials=2000)
    assert out.verdict == "violated"
    assert out.counterexample["exact_violated_bound"] > 4.0 and "nominal" in out.counterexample["exact_test"]


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: Lemma 5's two explicit bounds at fixed witness pairs off the grid (n = 2, L ≠ 1)
# ---------------------------------------------------------------------------------------------------------------
def test_lemma5_witness_is_a_valid_pair_below_the_rigorous_bound():
    for L, t in vn.LEMMA5_WITNESS_POINTS:
        g = vn.lemma5_witness_gap(L, t)
        unit = L * math.sqrt(t) / 2
        assert 1.26 < g / unit < math.sqrt(2)  # ≈ 1.262·L√t/n, under Araki–Yamagami's √2
    a = np.array([[0.5, 0.0, 0.0]])
    h = np.array([[0.5 * math.cos(vn.LEMMA5_WITNESS_PHI), 0.5 * math.sin(vn.LEMMA5_WITNESS_PHI), 0.0]])
    assert np.linalg.norm(a) <= 0.5 and np.linalg.norm(h) <= 0.5 + 1e-15  # inside the balls at n = 2, L = 1
    assert vn.lemma5_witness_gap(1.0, 1) == vn.lemma5_gap(a, h)


@pytest.mark.parametrize("fn, k", [("lemma5_rigorous", sp.Rational(3, 4)), ("lemma5_proof_line", sp.Rational(5, 4)),
                                   ("lemma5_proof_line", sp.Rational(3, 4))])
def test_lemma5_a_wrong_power_in_an_explicit_bound_is_violated_at_a_witness(monkeypatch, fn, k):
    """Every variable of the bound to the power k: on the grid (t ≤ 4 < n, L = 1) the bound is only larger or still
    above the search's gaps; at a witness point it falls below an exact gap."""
    real = getattr(tn, fn)
    monkeypatch.setattr(tn, fn, lambda: real().xreplace({s: s**k for s in real().free_symbols}))
    out = vn.lemma5("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["witness_broken"]
    assert out.counterexample["worst_ratio"] <= out.counterexample["ceiling"] * (1 + 1e-9)  # the ceiling cannot see it


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: Theorem 10 at sensitivities Δ₂ ≠ 1
# ---------------------------------------------------------------------------------------------------------------
def test_theorem10_multiplier_does_not_depend_on_the_sensitivity():
    for D in (1.0,) + vn.THEOREM10_DELTA2:
        assert vn._thm10_point(0.5, 1e-3, D)["z"] == pytest.approx(vn._thm10_point(0.5, 1e-3)["z"], rel=1e-12)


def test_theorem10_a_wrong_power_of_the_sensitivity_is_violated(monkeypatch):
    """σ with every variable to the power 5/4: at Δ₂ = 1 and ε < 1 it is larger (ε^(−5/4) > ε^(−1)), so the grid at
    Δ₂ = 1 cannot see it; at Δ₂ = 0.01 the multiplier σ/Δ₂ is too small."""
    real = tn.theorem10_sigma
    monkeypatch.setattr(tn, "theorem10_sigma",
                        lambda: real().xreplace({s: s ** sp.Rational(5, 4) for s in real().free_symbols}))
    out = vn.theorem10("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["Delta"] == 0.01 and out.counterexample["eps_lo"] > out.counterexample["epsilon"]


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: Theorem 5.1's privacy half at gradient bounds L ≠ 1
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, bad_L", [(sp.Rational(5, 4), 1e-2), (sp.Rational(3, 4), 1e2)])
def test_theorem51_a_wrong_power_in_sigma_is_violated_at_another_L(monkeypatch, k, bad_L):
    """σ with every variable to the power k: along T = ε²n² at L = 1 it is σ·√k (1.118σ, or 0.866σ, whose ε ≈ 0.88
    still keeps the promise ε = 1); the multiplier σn/L carries L^(k−1), so the promise fails at L = 0.01 (k = 5/4)
    or L = 100 (k = 3/4)."""
    real = tn.theorem5_1_sigma
    monkeypatch.setattr(tn, "theorem5_1_sigma", lambda: real().xreplace({s: s**k for s in real().free_symbols}))
    out = vn.theorem5_1("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["L"] == bad_L and out.counterexample["accountant_epsilon_lo"] > 1.0
    priv = [d for d in out.decisions if "(ε, δ)-DP for T" in d.control.test]
    assert len(priv) == 1 and priv[0].verdict == decide.Verdict.HOLDS  # L = 1 alone cannot see it


def test_theorem51_privacy_at_other_L_holds_unmutated():
    out = vn.theorem5_1("quick", 0)
    other = [d for d in out.decisions if "at L = " in d.control.test]
    assert len(other) == len(vn.THM51_PRIVACY_L) and all(d.verdict == decide.Verdict.HOLDS for d in other)
    assert out.numbers["accountant_epsilon_of_sigma_hi_other_L"] == pytest.approx(
        out.numbers["accountant_epsilon_of_sigma_hi"], rel=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: the DP-GD audits' exact half at a gradient bound L ≠ 1
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["dp_gd", "dp_gd_replace_one"])
def test_dpgd_audit_exact_half_at_another_L(monkeypatch, name):
    """Unmutated the multiplier σn/(kL) does not depend on L; with every variable of Theorem 5.1's σ to the power
    3/4 it is 0.94–1.5× the calibrated one at the audited (n, T) and L = 1 (still within ε = 4), but ×100^(−1/4) at
    L = 100, where the exact promise fails."""
    for n, T in vn.NA_AUDITS[name][2]:
        k = vn.NA_AUDIT_SENSITIVITY[vn.NA_AUDITS[name][1]]
        z1 = vn.na_dpgd_audit_sigma(n, T, "zero_out" if name == "dp_gd" else "replace_one") * n
        z100 = vn.na_dpgd_audit_sigma(n, T, "zero_out" if name == "dp_gd" else "replace_one", 100.0) * n / 100.0
        assert z100 == pytest.approx(z1, rel=1e-12) and k in (1, 2)
    real = tn.theorem5_1_sigma
    monkeypatch.setattr(tn, "theorem5_1_sigma",
                        lambda: real().xreplace({s: s ** sp.Rational(3, 4) for s in real().free_symbols}))
    out = vn.na_audit(name, "quick", 0, trials=2000)
    assert out.verdict == "violated"
    assert out.counterexample["L"] == 100.0 and out.counterexample["exact_violated_bound"] > 4.0


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: the noisy AdaGrad audits' exact μ at records' gradient bound L = 100
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("adjacency, n, T", [("zero_out", 16, 1), ("replace_one", 16, 1), ("zero_out", 16, 4)])
def test_exact_mu_is_scale_free_in_L_unmutated(adjacency, n, T):
    one = vn.na_adagrad_release_direction(n, T, adjacency)
    big = vn.na_adagrad_release_direction(n, T, adjacency, vn.NA_ADAGRAD_EXACT_L)
    assert big["mu"] / big["mu_accountant"] == pytest.approx(one["mu"] / one["mu_accountant"], rel=1e-9)
    assert big["gradient_gap"] == pytest.approx(vn.NA_ADAGRAD_EXACT_L * one["gradient_gap"], rel=1e-12)


@pytest.mark.parametrize("fn", ["lemma5_rigorous", "goe_noise_multiplier"])
@pytest.mark.parametrize("name", ["noisy_adagrad", "noisy_adagrad_replace_one", "noisy_adagrad_composed"])
def test_exact_mu_at_L100_catches_a_wrong_power_that_adds_noise_at_L1(monkeypatch, fn, name):
    """Every positive variable of the sensitivity (or of the GOE multiplier's Δ) to the power 3/4: at the audited
    n = 16, t ≤ 4, L = 1 it makes σ_B 1.5–2× larger (more noise: the canary's μ falls to ~0.8 of the accountant's,
    which no audit can see as a leak); at L = 100 the sensitivity is L^(3/4) and σ_B too small: μ > the accountant's."""
    real = getattr(tn, fn)
    monkeypatch.setattr(tn, fn, lambda: real().xreplace({s: s ** sp.Rational(3, 4) for s in real().free_symbols
                                                          if s.is_positive}))
    n, T = vn.NA_AUDITS[name][2][0]
    w1 = vn.na_adagrad_release_direction(n, T, vn.NA_AUDITS[name][1])
    assert w1["mu"] / w1["mu_accountant"] < 0.9
    out = vn.na_audit(name, "quick", 0, trials=2000)
    assert out.verdict == "violated"
    assert out.counterexample["L"] == vn.NA_ADAGRAD_EXACT_L and out.counterexample["canary_mu_over_accountant_mu"] > 1.3


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: Theorem 3.1's repair mutant (eq. (25) for σ_B = 0)
# ---------------------------------------------------------------------------------------------------------------
def test_theorem31_declares_the_sigma_b_zero_repair_and_it_holds():
    from verify.registry import load_all

    c = load_all()["noisy_adagrad.theorem3.1"]
    (m,) = [m for m in c.mutants if m.name == "theorem3_1:sigma_B_zero"]
    with m.apply():
        assert vn.THM31["quick"]["rhos"] == (0.0,)
        out = vn.theorem3_1("quick", 0)
    assert vn.THM31["quick"]["rhos"][-1] == 1000.0  # restored
    assert out.verdict == "holds" and len(out.decisions) == 1


def test_theorem31_repair_can_fail(monkeypatch):
    """The repaired statement with a bound ten times too small (eq. (25) ×0.1) is violated at σ_B = 0."""
    real = tn.theorem3_1_bound
    monkeypatch.setattr(tn, "theorem3_1_bound", lambda: real() / 10)
    with vn._thm31_sigma_b_zero():
        out = vn.theorem3_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["rho"] == 0.0


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: Corollary 6's privacy half, exact at the sweep's own (ε, T)
# ---------------------------------------------------------------------------------------------------------------
def _cor6_steps():
    g = vn.COR6["quick"]
    return g["n"], [int(round((e * g["n"]) ** 2)) for e in g["epsilons"]], g["epsilons"]


def test_cor6_privacy_holds_unmutated():
    d = vn.cor6_privacy_decision(*_cor6_steps())
    assert d.verdict == decide.Verdict.HOLDS and 0.9999 < d.estimate <= 1.0


@pytest.mark.parametrize("k, eps", [(sp.Rational(5, 4), 0.5), (sp.Rational(3, 4), 2.0)])
def test_cor6_privacy_catches_a_wrong_power_in_the_sensitivity(monkeypatch, k, eps):
    """lemma5_rigorous with every variable to the power k: Δ_t ∝ t^(k/2)/n^k is below √2·L√t/n for t < n² (k = 5/4)
    or t > n² (k = 3/4); the sweep's T = (εn)² = 625 … 10⁴ at n = 50 straddles n² = 2500, so one ε leaks."""
    real = tn.lemma5_rigorous
    monkeypatch.setattr(tn, "lemma5_rigorous", lambda: real().xreplace({s: s**k for s in real().free_symbols}))
    d = vn.cor6_privacy_decision(*_cor6_steps())
    assert d.verdict == decide.Verdict.VIOLATED and d.estimate > 1.03
    assert f"ε = {eps:g}" in d.reason


def test_cor6_claim_is_violated_by_the_privacy_half(monkeypatch):
    real = tn.lemma5_rigorous
    monkeypatch.setattr(tn, "lemma5_rigorous",
                        lambda: real().xreplace({s: s ** sp.Rational(5, 4) for s in real().free_symbols}))
    out = vn.corollary6("quick", 0)
    assert out.verdict == "violated" and out.counterexample["canary_mu_over_accountant_mu"] > 1.1


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: Corollary 6's horizon against C.7's route, exact (SymPy limits in εn)
# ---------------------------------------------------------------------------------------------------------------
def _powered(fn_name: str, k):
    real = getattr(tn, fn_name)
    return lambda: real().xreplace({s: s**k for s in real().free_symbols if s.is_positive})


def test_cor6_horizon_holds_unmutated_with_finite_limits():
    d = vn.cor6_horizon_decision(3, 1e-5)
    assert d.verdict == decide.Verdict.HOLDS and d.estimate == 0.0
    assert "α = 0:" in d.reason and "α = 1/4:" in d.reason and "oo" not in d.reason
    with pytest.raises(ValueError):
        vn.cor6_horizon_decision(3, 1.5)


@pytest.mark.parametrize("fn_name, k", [("corollary6_T", sp.Rational(3, 4)), ("corollary6_rate", sp.Rational(5, 4))])
def test_cor6_horizon_catches_a_short_horizon_or_a_too_fast_rate(monkeypatch, fn_name, k):
    """T = (εn)^{3/2} at α = 0 leaves the route's √(Tr G_T/T) ~ (εn)^{-3/4} above 1/(εn); a rate (εn)^{-5/4} is
    outgrown by the route's 1/(εn)."""
    monkeypatch.setattr(tn, fn_name, _powered(fn_name, k))
    d = vn.cor6_horizon_decision(3, 1e-5)
    assert d.verdict == decide.Verdict.VIOLATED and d.estimate == 1.0


def test_cor6_horizon_a_longer_horizon_or_slower_rate_still_holds(monkeypatch):
    """The statement is an upper bound in εn: T = (εn)^{5/2} (the route's 1/(εn) term dominates) and a rate
    (εn)^{-3/4} keep the ratio bounded."""
    monkeypatch.setattr(tn, "corollary6_T", _powered("corollary6_T", sp.Rational(5, 4)))
    monkeypatch.setattr(tn, "corollary6_rate", _powered("corollary6_rate", sp.Rational(3, 4)))
    assert vn.cor6_horizon_decision(3, 1e-5).verdict == decide.Verdict.HOLDS


def test_cor6_claim_is_violated_by_the_horizon(monkeypatch):
    monkeypatch.setattr(tn, "corollary6_T", _powered("corollary6_T", sp.Rational(3, 4)))
    out = vn.corollary6("quick", 0)
    assert out.verdict == "violated" and "horizon" in out.counterexample


@pytest.mark.parametrize("a", [sp.Integer(0), sp.Rational(1, 4)])
def test_cor6_route_through_eq25_equals_the_isotropic_closed_form(a):
    vals = {tn.k: 3, tn.delta: sp.Rational(1, 10**5), tn.C: 2, tn.L: 1, tn.n: 1}
    for en in (3, 50):
        lhs = float(vn._cor6_route(a).subs(vals).subs(tn.epsilon, en))
        rhs = float(tn.corollary6_proof_isotropic().subs(tn.alpha, a).subs(vals).subs(tn.epsilon, en))
        assert lhs == pytest.approx(rhs, rel=1e-12)


def test_cor6_horizon_catches_eq25_with_exponents_three_quarters(monkeypatch):
    monkeypatch.setattr(tn, "theorem3_1_bound", _powered("theorem3_1_bound", sp.Rational(3, 4)))
    assert vn.cor6_horizon_decision(3, 1e-5).verdict == decide.Verdict.VIOLATED


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 25: Corollary 6's kernel probe (the runs decide only if the kernel is Algorithm 1 as declared)
# ---------------------------------------------------------------------------------------------------------------
def _cor6_probe():
    g = vn.COR6["quick"]
    prob = vn.kn.low_rank_glm(n=g["n"], p=g["p_rate"], k=g["k"], loss="absolute", w_norm=0.8, seed=0)
    _, eta, sb, sB = vn._cor6_calibration(prob, g["n"], float(g["epsilons"][0]), True)
    return vn._kernel_probe(prob, eta, 1.0, sb, sB, seed=0)


@pytest.mark.parametrize("fault", [dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_cor6_kernel_probe_passes_unmutated_and_fails_under_a_kernel_fault(monkeypatch, fault):
    # the one-release multiplier z₀ (a PLD calibration, ~2 s uncached) fixed at its value at ε = 0.5 to 2 digits:
    # the probe compares kernel and twin under the same noise, whatever its scale
    monkeypatch.setattr(vn, "half_budget_multiplier", lambda epsilon, delta: 14.0)
    p = _cor6_probe()
    assert p.ok and p.rel_diff <= vn.NA_PROBE_RTOL
    with faults.inject(**fault):
        bad = _cor6_probe()
    assert not bad.ok and bad.rel_diff > 1e-3 and "does not run Algorithm 1" in bad.text


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 25: theorem3_1_eta mutants of noisy_adagrad.theorem3.1 are another instance of a ∀η statement
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mutation", list(mutants.THEORY_MUTATIONS), ids=lambda m: m[0])
def test_theorem31_eta_mutants_are_a_finite_positive_learning_rate_and_declared(mutation):
    name, _, fn, _ = mutation
    eta = fn(tn.theorem3_1_eta()).subs(tn.C, 2 * vn.THM31_RADIUS)  # the claim's C = 2
    assert eta.is_finite and eta.is_positive, (name, eta)
    assert float(eta) != pytest.approx(float(tn.theorem3_1_eta().subs(tn.C, 2)))  # a different instance is tested
    assert ("noisy_adagrad.theorem3.1", f"theorem3_1_eta:{name}") in mutants.EQUIVALENT
    # the reason rests on (25) being stated for every learning rate: the paper's wording, and the claim's bound
    # takes η as a free symbol (not the minimiser substituted)
    assert tn.eta in tn.theorem3_1_bound().free_symbols


def test_cor3_algorithm1_decision_does_not_use_eq25(monkeypatch):
    """The reason of the theorem3_1_bound equivalences of noisy_adagrad.corollary3.algorithm1: the decision is the
    same whatever eq. (25)'s values (only the reported envelope changes)."""
    g = dict(vn.COR3["quick"])
    Ts = np.array(g["Ts"], float)
    rng = np.random.default_rng(3)
    trg = 2.0 * Ts ** 0.25
    base = [dict(regret=0.5 * T ** -0.5 * (1 + 0.05 * rng.standard_normal(8)), trG=np.full(8, tg),
                 bound25=np.full(8, 1.0), indefinite_frac=np.zeros(8), lipschitz=1.0) for T, tg in zip(Ts, trg)]
    monkeypatch.setattr(vn, "_cor3_probe", lambda budget, seed: vn._Probe(True, 0.0, "probe passed"))

    def run(scale):
        outs = [dict(o, bound25=o["bound25"] * scale(T)) for o, T in zip(base, Ts)]
        reg = np.array([np.mean(o["regret"]) for o in outs])
        monkeypatch.setattr(vn, "_cor3_fits", lambda budget, seed, precond: (g, Ts, outs, trg, reg, None, None, None))
        out = vn.corollary3_algorithm1("quick", 0)
        return out.verdict, out.numbers["slope"], out.numbers["envelope_last"]

    a, b = run(lambda T: 1.0), run(lambda T: 7.0 * T**0.5)
    assert a[:2] == b[:2] and a[2] != b[2]
    assert ("noisy_adagrad.corollary3.algorithm1", "theorem3_1_bound:pow1.25") in mutants.EQUIVALENT


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 26: "still false" equivalences of the violated claims theorem3.1 and corollary6, each evaluated
# under the very mutation verify.mutants applies, at an exact counterexample
# ---------------------------------------------------------------------------------------------------------------
def _theory_mutant(fn_name: str, name: str):
    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(f"theory.noisy_adagrad.{fn_name}", name, "", fn)


def _still_false(cid: str, mutant: str) -> str:
    from verify.registry import load_all

    load_all()
    reason = mutants.EQUIVALENT[(cid, mutant)]
    assert reason.startswith("the mutated statement is still false")
    return reason


def _thm31_kink_point():
    """(the exact lower bound η(√T − √2)/T on the average regret, the substitution) of the |θ| counterexample."""
    cx = vn.THM31_POW125_COUNTEREXAMPLE
    T, C = sp.Integer(cx["T"]), sp.Integer(cx["C"])
    eta = tn.theorem3_1_eta().subs(tn.C, C)  # the check's η = C√(3/8)
    vals = {tn.C: C, tn.eta: eta, tn.T: T, tn.trG: sp.sqrt(T), tn.noise_sum: cx["noise_sum"], tn.L: cx["L"],
            tn.gamma: cx["gamma"]}
    return eta * (sp.sqrt(T) - sp.sqrt(2)) / T, vals


def test_theorem31_pow125_bound_is_below_an_exact_regret_lower_bound():
    _still_false("noisy_adagrad.theorem3.1", "theorem3_1_bound:pow1.25")
    lower, vals = _thm31_kink_point()
    with _theory_mutant("theorem3_1_bound", "pow1.25").apply():
        mutated = tn.theorem3_1_bound().subs(vals)
    assert sp.simplify(mutated - tn.theorem3_1_bound().subs(vals)) != 0  # the mutation was in force
    assert sp.N(lower - mutated, 30) > 0 and float(mutated) == pytest.approx(6.96e-4, rel=1e-3)
    assert float(lower) == pytest.approx(1.223e-3, rel=1e-3)


def test_theorem31_the_kink_comparison_can_fail_unmutated():
    """Eq. (25) itself is not refuted by the same lower bound (the comparison says so when it should)."""
    lower, vals = _thm31_kink_point()
    bound = tn.theorem3_1_bound().subs(vals)
    assert sp.N(bound - lower, 30) > 0 and float(bound) == pytest.approx(3.266e-3, rel=1e-3)


def test_theorem31_kink_lower_bound_matches_the_run():
    """The argument's premises on the run itself (float, T = 2·10⁴): one projection, Σ|θ_t| ≥ η(√T − √2)."""
    eta, T = float(tn.theorem3_1_eta().subs(tn.C, 2)), 20000
    theta, total, projected = 0.0, 0.0, 0
    for t in range(1, T + 1):
        total += abs(theta)
        y = theta - eta * (1.0 if theta >= 0 else -1.0) / math.sqrt(t)  # G_t = √t: every |∇_s| = 1
        projected += abs(y) > 1.0
        theta = min(1.0, max(-1.0, y))
    assert projected == 1 and total >= eta * (math.sqrt(T) - math.sqrt(2))


@pytest.mark.parametrize("name", sorted(vn.COR6_LEMMA5_POW_COUNTEREXAMPLES))
def test_cor6_lemma5_power_mutants_are_not_private_at_their_point(name):
    eps, T = vn.COR6_LEMMA5_POW_COUNTEREXAMPLES[name]
    reason = _still_false("noisy_adagrad.corollary6", f"lemma5_rigorous:{name}")
    n = vn.COR6["quick"]["n"]
    assert T == round((eps * n) ** 2) and f"ε = {eps:g}, T = {T}" in reason
    with _theory_mutant("lemma5_rigorous", name).apply():
        d = vn.cor6_privacy_decision(n, [T], [eps])
    assert d.verdict == decide.Verdict.VIOLATED
    assert f"{d.estimate:.3f}" in reason  # the μ ratio the reason quotes


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 27: Theorem 10 at multipliers whose 1e-4 PLD grid dp-accounting cannot hold
# ---------------------------------------------------------------------------------------------------------------
def test_theorem10_point_past_the_pld_grid_takes_the_analytic_epsilon(monkeypatch):
    """σ ten times too small at ε = 16, δ = 0.01 (multiplier 0.0194, true ε ≈ 1444.3): the 1e-4 grid would exceed
    MAX_PLD_POINTS, so the point takes dp-accounting's analytic Gaussian ε, whose bracket holds the root of the
    closed-form δ(ε) = Φ(1/(2z) − εz) − e^ε Φ(−1/(2z) − εz) = δ solved independently with 50-digit mpmath."""
    mpmath = pytest.importorskip("mpmath")
    real = tn.theorem10_sigma()
    monkeypatch.setattr(tn, "theorem10_sigma", lambda: real * sp.Rational(1, 10))
    r = vn._thm10_point(16.0, 1e-2)
    assert r["grid"] == 0.0
    with mpmath.workdps(50):
        z = mpmath.mpf(r["z"])
        root = mpmath.findroot(lambda e: mpmath.ncdf(1 / (2 * z) - e * z) - mpmath.exp(e) * mpmath.ncdf(
            -1 / (2 * z) - e * z) - mpmath.mpf("0.01"), 1444)
    assert r["eps_lo"] <= float(root) <= r["eps_hi"] and r["eps_hi"] - r["eps_lo"] < 1e-5 and r["eps_lo"] > 16.0
    # the paper's own multiplier keeps the 1e-4 PLD grid
    monkeypatch.undo()
    assert vn._thm10_point(0.5, 1e-2)["grid"] == 1e-4


def test_theorem10_point_other_errors_are_not_swallowed(monkeypatch):
    def refuse(*args, **kwargs):
        raise vn.InvalidParameter("delta", "in (0, 1)", 2.0)
    monkeypatch.setattr(vn, "gaussian_epsilon_interval", refuse)
    with pytest.raises(vn.InvalidParameter, match="delta"):
        vn._thm10_point(0.5, 1e-3)


def test_theorem10_decides_a_tenfold_too_small_sigma_whose_outside_points_leave_the_grid(monkeypatch):
    """The mutant theorem10_sigma:x0.1 at ε = 0.5 (inside the hypothesis) and at the full budget's corner ε = 16
    (outside, reported only), δ = 0.01: the outside point used to raise (the 1e-4 grid too fine for dp-accounting),
    which cost the whole claim its verdict; now it is decided: violated."""
    real = tn.theorem10_sigma()
    monkeypatch.setattr(tn, "theorem10_sigma", lambda: real * sp.Rational(1, 10))
    monkeypatch.setattr(vn, "THEOREM10_BUDGETS", vn.Budgets(
        quick=vn.Theorem10Settings(eps_in=(0.5,), eps_out=(16.0,), deltas=(1e-2,)),
        full=vn.THEOREM10_BUDGETS.full))
    out = vn.theorem10("quick", 0)
    assert out.verdict == "violated" and out.counterexample["eps_lo"] > out.counterexample["epsilon"]
    assert out.numbers["outside_points_broken"] == 1
