"""adp claims at the quick budget: known verdicts, pinned counterexamples, negative controls."""

import numpy as np
import pytest

from theory import adp as tadp
from verify.papers import adp
from verify.privacy import composed_epsilon, gaussian_epsilon, optimal_composition_epsilon


@pytest.fixture(scope="module")
def thm41_quick():
    return adp.theorem4_1("quick", 0)


def test_lemma22_quick_holds_and_its_numbers_say_so():
    out = adp.lemma2_2("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["min_slack"] >= 0 and out.numbers["max_ratio_optimal_over_tilde"] <= 1.0


def test_lemma22_negative_control_flags_a_wrong_formula(monkeypatch):
    """Halving ε̃ (a composition bound that is too good to be true) must be caught."""
    real = tadp.extended_advanced_composition
    monkeypatch.setattr(tadp, "extended_advanced_composition",
                        lambda e, d, dp: (real(e, d, dp)[0] / 4, real(e, d, dp)[1]))
    out = adp.lemma2_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["eps_optimal"] > out.counterexample["eps_tilde"]


def test_optimal_composition_of_one_mechanism_is_itself():
    assert optimal_composition_epsilon([0.7], [1e-6], 1e-6 + 1e-9) == pytest.approx(0.7, abs=2e-4)


def test_theorem41_quick_and_the_calibration_it_checks(thm41_quick):
    out = thm41_quick
    f = out.numbers
    expected = "violated" if f["points_broken"] else ("holds" if f["points_not_certified"] == 0 else "inconclusive")
    assert out.verdict == expected
    r = adp._thm41_task("dp", 1000, 1000, 1.0, 1e-5)
    b_delta = np.log(16 * 1000 / (1000 * 1e-5)) * np.log(1.25 / 1e-5)
    assert r["sigma"] == pytest.approx(np.sqrt(256 * b_delta / 1000**2 * 1000))
    # negative control: the same steps with a twentieth of the noise are not (1, 1e-5)-DP by the accountant
    assert composed_epsilon([(1e-3, r["sigma"] / 20, 1000)], 1e-5, "rdp") > 1.0


def test_theorem41_uncertified_points_make_it_inconclusive(monkeypatch):
    monkeypatch.setattr(adp, "_thm41_task", lambda **kw: {"sigma": 1.0, "z_min": 1.0, "eps_upper": 10 * kw["epsilon"],
                                                           "eps_lower": 0.0, "delta_lower": 0.0})
    out = adp.theorem4_1("quick", 0)
    assert out.verdict == "inconclusive" and out.numbers["points_not_certified"] == out.numbers["points"]


def test_proposition51_exact_part_and_reported_measurements():
    out = adp.proposition5_1("quick", 0)
    assert out.verdict == "holds"
    r7 = out.numbers["exact_ratio_T10000000"]
    assert r7 == pytest.approx(tadp.m_ratio(tadp.polynomial_schedule(10**7, 1.0, 1.0)))
    assert 0.9 * np.log(1e7) / 4 < r7 < np.log(1e7) / 4  # Θ(log T) with constant ¼ (exact value 3.927)
    assert out.numbers["stated_privacy_term_ratio_T10000000"] == pytest.approx(2 * np.log(1 + 1e7))
    assert {k for k in out.numbers if k.startswith("measured_utility_ratio_T")} == {
        "measured_utility_ratio_T100", "measured_utility_ratio_T1000", "measured_utility_ratio_T4000"}


def test_proposition52_break_even_counterexample_pinned():
    """Pinned: b_0² = ν, T = 2 — the stated ADP term (11) exceeds DP's (12): (12)/(11) = ¼·log 3 < 1."""
    import sympy as sp

    r = tadp.proposition5_2_ratio().subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1})
    assert float(r) == pytest.approx(np.log(3) / 4) and float(r) < 1
    assert float(tadp.proposition5_2_break_even().subs({tadp.nu: 1, tadp.b0: 1})) == pytest.approx(np.e**4 - 1)
    assert sp.simplify(tadp.proposition5_2_ratio() - sp.log(1 + tadp.T * tadp.nu / tadp.b0**2) / 4) == 0
    out = adp.proposition5_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["T"] == 2
    assert out.numbers["M_ratio_max"] > 1.0 > out.numbers["M_ratio_min"]


def test_table1_at_matched_epsilon_is_never_a_refutation():
    out = adp.table1("quick", 0)
    g = out.numbers["growth_eps1"]
    assert out.verdict in ("holds", "inconclusive")  # a failure to reproduce is not a refutation
    assert np.isfinite(g) and g > 0
    assert set(k for k in out.numbers if k.startswith("advantage_eps1_")) == {"advantage_eps1_T300",
                                                                              "advantage_eps1_T3000"}
    assert len(out.decisions) == 1
    if out.verdict == "inconclusive":
        assert "not a refutation" in out.evidence
    assert out.verdict == "inconclusive"  # known at quick, seed 0: ADP-SGD is behind DP-SGD at a matched ε


def test_matched_sigma_gives_both_methods_the_same_accountant_epsilon():
    T, n = 1000, 20000
    b = tadp.polynomial_schedule(T, 1.0, 1.0)
    eps = []
    for alpha in (np.ones(T), np.sqrt(b)):
        s = adp.matched_sigma(alpha, n, 1.0, 1e-5)
        eps.append(composed_epsilon(adp._schedule_phases(alpha, s, n), 1e-5, "rdp"))
        assert composed_epsilon(adp._schedule_phases(alpha, s / 1.01, n), 1e-5, "rdp") > 1.0  # the smallest σ
    assert eps[0] <= 1.0 and eps[1] <= 1.0 and abs(eps[0] - eps[1]) < 0.02


def test_theorem41_counterexample_pinned():
    """Pinned: ADP-SGD (α_t² = √(1 + t)), T = 100, n = 10000, ε = 4, δ = 1e-8. Theorem 4.1's σ ≈ 0.03 leaves
    the one-record steps nearly noiseless: the event 'some step's output along u exceeds 1/2' has probability
    ≈ T/n under one neighbour and ≈ 0 under the other, so δ(4) ≥ 0.0099 ≫ 1e-8."""
    r = adp._thm41_task("adp_poly", 100, 10000, 4.0, 1e-8, 8, 1e-2)
    assert r["sigma"] == pytest.approx(0.02959, rel=1e-3)
    assert r["delta_lower"] > 0.0099 > 1e-8
    # the bound is a real probability computation: with ample noise it certifies nothing
    assert adp.delta_lower_bound(np.full(100, 5.0), 1e-3, 1.0) == 0.0


def test_theorem41_quick_reports_the_violation(thm41_quick):
    out = thm41_quick
    assert out.verdict == "violated" and out.numbers["points_broken"] >= 1
    c = out.counterexample
    assert c["delta_lower_bound"] > c["delta"] or c["epsilon_lower_bound"] > c["epsilon"]


def test_theorem41_optimistic_pld_failure_pinned():
    """Pinned (issue 17): DP-SGD, T = 100, n = 10000, ε = 0.5, δ = 1e-5, replace-one: Theorem 4.1's σ = 0.341 and
    dp-accounting's optimistic (lower) PLD ε is ≈ 3 > 0.5 — a provable failure, counted as such."""
    r = adp._thm41_task("dp", 100, 10000, 0.5, 1e-5, 4, 1e-2)
    assert r["sigma"] == pytest.approx(0.3411, rel=1e-3)
    assert r["eps_lower"] > 2.5 > 0.5 and r["eps_upper"] >= r["eps_lower"]


def test_theorem41_quick_counts_pld_failures_and_drops_duplicate_rows(thm41_quick):
    f = thm41_quick.numbers
    assert f["points"] == 16 and f["points_broken_by_pld_lower"] >= 1 and f["points_broken_by_event"] >= 1
    assert f["points_broken"] <= f["points_broken_by_pld_lower"] + f["points_broken_by_event"]
    assert not any("adp_adaptive" in k for k in f)
    assert thm41_quick.evidence.startswith("violated (exact, replace-one)")


def test_replace_one_lower_bound_is_below_the_upper_bound_and_doubles_the_shift():
    alpha = np.ones(1)
    lo = adp.replace_one_pld_epsilon(alpha, 2.0, 1, 1e-5, 1, False, 1e-3)
    hi = adp.replace_one_pld_epsilon(alpha, 2.0, 1, 1e-5, 1, True, 1e-3)
    assert lo <= hi and hi == pytest.approx(gaussian_epsilon(1.0, 1e-5), abs=2e-2)  # replace-one: multiplier z/2


def test_proposition52_reports_the_paper_experiment_looseness():
    out = adp.proposition5_2("quick", 0)
    f = out.numbers
    assert f["paper_experiment_ratio_12_over_11"] == pytest.approx(np.log1p(11700 * 1e-5 / 20) / 4, rel=1e-9)
    assert f["paper_experiment_adp_looser_by"] == pytest.approx(685.8, rel=1e-3)
    assert "685.8× looser" in out.evidence


def test_hockey_stick_matches_the_gaussian_closed_form():
    from scipy.stats import norm

    for mu, eps in ((1.0, 0.5), (0.5, 2.0), (2.0, 1.0)):
        exact = norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)
        assert adp.gaussian_hockey_stick(mu, 1.0, 0.0, 1.0, eps) == pytest.approx(exact, rel=1e-9, abs=1e-300)
    assert adp.gaussian_hockey_stick(0.0, 1.0, 0.0, 1.0, 0.1) == 0.0


def test_adaptive_stepsize_counterexample_pinned():
    """Pinned (issue 17): b_0² = 1, ν = 1e-5, z = 1, replace-one. The accountant gives one Gaussian step ε ≈ 10.0 at
    δ = 1e-5; the clean-gradient stepsize makes the update's variance differ between neighbours (b₁² = 2 vs
    1 + 1e-5), and the exact δ at that ε is ≈ 3.4e-4 ≫ 1e-5. With b₁ public the same pair is within the promise."""
    eps = adp.replace_one_gaussian_epsilon(1.0, 1e-5)
    assert eps == pytest.approx(gaussian_epsilon(0.5, 1e-5), abs=1e-2)
    d = adp.adaptive_step_delta(1.0, 1.0, eps)
    assert d == pytest.approx(3.366e-4, rel=1e-2) and d > 1e-5
    assert adp.adaptive_step_delta(1.0, 1.0, eps, adaptive=False) <= 1e-5
    out = adp.adaptive_stepsize_privacy("quick", 0)
    assert out.verdict == "violated" and out.counterexample["delta_exact"] > out.counterexample["delta"]
    assert out.numbers["control_max_delta"] <= 1e-5 and out.decisions == []


def test_proposition51_brackets_must_tend_to_the_declared_asymptotic(monkeypatch):
    """The log T coefficient the brackets are held to is poly_ratio_asymptotic's: a stated ½·log T is refuted."""
    import sympy as sp

    monkeypatch.setattr(tadp, "poly_ratio_asymptotic", lambda: sp.log(tadp.T) / 2)
    out = adp.proposition5_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["brackets_hold"]


def test_adaptive_stepsize_privacy_mutant_with_a_public_stepsize_turns_the_verdict():
    """The declared mutant drops b₁'s dependence on the clean gradient: the exact δ then stays within the promise
    at every point (the control's numbers), so the claim is no longer violated."""
    from verify.registry import load_all

    (m,) = load_all()["adp.algorithm1.adaptive_stepsize_privacy"].mutants
    assert adp.adaptive_stepsize_privacy("quick", 0).verdict == "violated"
    with m.apply():
        assert adp.adaptive_stepsize_privacy("quick", 0).verdict == "holds"
    assert adp.adaptive_stepsize_privacy("quick", 0).verdict == "violated"


def test_remark4_1_alternative_relation_smallest_counterexample_is_pinned():
    """T = 2, b = (1, 1), α = (2, 1/2): α₁α₂ = 1 = b₁ = b₂, yet M = (4 + 1/4)(1/4 + 4) = 289/16 ≠ M_adp = 4."""
    import numpy as np

    from verify.papers.adp import alternative_alphas, remark4_1_alternative

    b = np.array([1.0, 1.0])
    alpha = alternative_alphas(b, np.array([2.0]))
    assert alpha.tolist() == [2.0, 0.5] and (alpha * alpha[::-1]).tolist() == b.tolist()
    assert tadp.m_value(alpha, b) == 289 / 16 and tadp.m_adp(b) == 4.0
    odd = alternative_alphas(np.array([4.0, 9.0, 4.0]), np.array([8.0]))
    assert odd.tolist() == [8.0, 3.0, 0.5]  # the middle is √b_m; the pair multiplies to b_1
    out = remark4_1_alternative("quick", 0)
    assert out.verdict == "violated" and out.counterexample["M"] == 289 / 16 and out.counterexample["M_adp"] == 4.0
    assert out.numbers["paper_schedule_palindromic"] == 0.0


def test_remark4_1_alternative_declared_mutant_turns_it_to_holds():
    from verify import mutants, registry

    rs = mutants.run([registry.REGISTRY["adp.remark4.1.alternative"]], "quick", 0)
    by = {r.mutant: r for r in rs}
    assert by["alternative_alphas:sqrt-b"].verdict == "holds" and by["alternative_alphas:sqrt-b"].refuted
    assert all(r.equivalent for name, r in by.items() if name != "alternative_alphas:sqrt-b")


def test_footnote3_calibration_and_readings_are_pinned():
    """ε̄ = 0.8: σ² of eq. (6) at ε = 12.8, n = 50 000, T = 11 700, δ = 1e-5 gives z = 256σ ≈ 8.50; the
    accountants put the runs' ε between 0.21 (PLD) and 0.33 (the 2016 moments accountant), around the stated 0.29."""
    import math

    from verify.papers.adp import FOOTNOTE3, footnote3, footnote3_multiplier, footnote3_readings

    b_delta = math.log(16 * 11_700 / (50_000 * 1e-5)) * math.log(1.25 / 1e-5)
    sigma = math.sqrt(16**2 * b_delta / (50_000**2 * 12.8**2) * 11_700)
    assert footnote3_multiplier(0.8) == pytest.approx(256 * sigma, rel=1e-12)
    r = footnote3_readings(footnote3_multiplier(0.8))
    assert r["pld_lower"] <= r["pld_upper"] <= r["rdp"] <= r["moments_accountant_2016"]
    assert 0.2 < r["pld_upper"] < 0.29 < r["moments_accountant_2016"] < 0.34
    out = footnote3("quick", 0)
    assert out.verdict == "holds" and out.numbers["certified"] == len(FOOTNOTE3["stated"])
    assert out.numbers["reproduced_to_two_decimals"] == 0


def test_lemma2_1_is_violated_at_large_epsilon_and_the_example_is_pinned():
    """δ = 1e-5, Δ = 1, σ = √(2 ln(1.25e5))/10: the lemma promises (10, 1e-5)-DP; the Gaussian mechanism's exact
    δ at ε = 10 is larger than 1e-5, and dp-accounting's optimistic PLD ε at δ = 1e-5 exceeds 10."""
    import math

    from verify.papers.adp import gaussian_delta_at, lemma2_1
    from verify.privacy import gaussian_epsilon_interval

    z = math.sqrt(2 * math.log(1.25e5)) / 10
    assert float(tadp.lemma2_1_epsilon().subs({tadp.delta: 1e-5, tadp.Delta: 1, tadp.sigma: z})) == pytest.approx(10)
    assert gaussian_delta_at(z, 10.0) > 1e-5
    assert gaussian_epsilon_interval(z, 1e-5)[0] > 10.0
    z1 = math.sqrt(2 * math.log(1.25e5)) / 0.99  # inside Dwork–Roth's ε < 1 the calibration is valid
    assert gaussian_delta_at(z1, 0.99) < 1e-5
    out = lemma2_1("quick", 0)
    assert out.verdict == "violated" and out.numbers["points_broken_below_epsilon_1"] == 0
    assert out.counterexample["delta"] == 0.9 and out.counterexample["epsilon"] == pytest.approx(4.406, abs=1e-3)
    assert out.counterexample["pld_epsilon_lower"] > out.counterexample["epsilon"]


def test_lemma2_1_restricted_to_epsilon_below_one_holds():
    from verify import mutants, registry

    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["adp.lemma2.1"]], "quick", 0)}
    assert by["lemma2_1_epsilon_range:dwork-roth"].verdict == "holds"
    assert by["lemma2_1_epsilon:x10"].refuted


def test_proposition5_1_does_not_follow_from_eq7_smallest_case_pinned():
    """a = c = 1, T = 9 (= 5 + 4a/c), ηL = 1, units of K: (9) states ηL√T/√c = 3, while (7) at α_t² = b_t gives
    M_adp/Σ1/b_t = Σ_{t=1}^9 1/√(1 + t) ≈ 4.021 > 3; (10) = 2·3·log 10 ≥ (7)'s DP-SGD value ≈ 4.318."""
    import math

    from verify.papers.adp import eq7_against_eq9_eq10, proposition5_1_from_theorem4_2

    r = eq7_against_eq9_eq10(1.0, 1.0, 9, 1.0)
    assert r["eq9"] == pytest.approx(3.0) and r["eq10"] == pytest.approx(6 * math.log(10))
    assert r["eq7_adp"] == pytest.approx(math.fsum(1 / math.sqrt(1 + t) for t in range(1, 10)), rel=1e-14)
    assert r["eq7_adp"] > r["eq9"] and r["eq7_dp"] < r["eq10"]
    out = proposition5_1_from_theorem4_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["T"] == 9
    assert out.numbers["min_slack_etaL"] < 0 and out.numbers["min_slack_printed"] < out.numbers["min_slack_etaL"]


def test_proposition5_1_from_eq7_a_tenfold_stated_term_is_consistent():
    from verify import mutants, registry

    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["adp.proposition5.1.from_theorem4.2"]], "quick", 0)}
    assert by["proposition5_1_privacy_terms:x10"].verdict == "holds"
    assert by["eq7_privacy_term:x10"].equivalent and by["proposition5_1_privacy_terms:x0.1"].equivalent


def test_theorem4_2_bound7_is_violated_where_the_quadratic_regime_predicts():
    """η = b/L makes θ_{k+1} ≈ −c_k/L, so E‖∇F(θ_k)‖² ≈ dσ² for k ≥ 1, while (7) evaluates to
    D_F·L/T + Σ_t E‖∇F(θ_t)‖²/(2T) + dσ²/(2b) ≈ (0.04 + 0.53 + 0.0625)·dσ² at T = 50, b = 8, ‖∇F(θ_0)‖² = 4dσ²."""
    from verify.papers.adp import THM42, theorem4_2

    out = theorem4_2("quick", 0)
    noise = THM42.d * out.numbers["sigma2"]
    assert out.verdict == "violated"
    assert out.numbers["bound"] / noise == pytest.approx(0.6325, rel=0.02)
    assert out.numbers["min_mean_grad_sq"] / noise == pytest.approx(1.0, rel=0.05)
    assert out.counterexample["ratio"] > 1.4 and out.decisions[0].control.alpha < 0.05


def test_theorem4_2_with_the_eta_l_factor_holds():
    from verify import mutants, registry

    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["adp.theorem4.2"]], "quick", 0)}
    assert by["theorem4_2_bound:etaL-privacy-term"].verdict == "holds"
    assert by["theorem4_2_bound:x10"].refuted and by["theorem4_2_bound:x0.1"].equivalent


def test_proposition5_1_privacy_ratio_must_be_theta_log_t(monkeypatch):
    """The privacy-term ratio (10)/(9) is held to Θ(log T): one growing like √T (a different statement) is refuted,
    while the stated 2·log(1 + Tc/a) passes."""
    import sympy as sp

    out = adp.proposition5_1("quick", 0)
    assert out.verdict == "holds" and "Θ(log T) [yes]" in out.evidence
    monkeypatch.setattr(tadp, "proposition5_1_privacy_ratio", lambda: sp.sqrt(tadp.T * tadp.c / tadp.a))
    bad = adp.proposition5_1("quick", 0)
    assert bad.verdict == "violated" and bad.counterexample["privacy_ratio_over_log_T"] == "oo"
