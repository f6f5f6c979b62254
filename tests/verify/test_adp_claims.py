"""adp claims (issue 7, in progress): Lemma 2.2 against the optimal composition, Theorem 4.1 against the accountant."""

import numpy as np
import pytest

from theory import adp as ta
from verify import adp
from verify.privacy import composed_epsilon, optimal_composition_epsilon


@pytest.fixture(scope="module")
def thm41_quick():
    return adp.theorem4_1("quick", 0)


def test_lemma22_quick_holds_and_its_numbers_say_so():
    out = adp.lemma2_2("quick", 0)
    assert out.verdict == "holds"
    assert out.figures["min_slack"] >= 0 and out.figures["max_ratio_optimal_over_tilde"] <= 1.0


def test_lemma22_negative_control_flags_a_wrong_formula(monkeypatch):
    """Halving ε̃ (a composition bound that is too good to be true) must be caught."""
    real = ta.extended_advanced_composition
    monkeypatch.setattr(ta, "extended_advanced_composition", lambda e, d, dp: (real(e, d, dp)[0] / 4, real(e, d, dp)[1]))
    out = adp.lemma2_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["eps_optimal"] > out.counterexample["eps_tilde"]


def test_optimal_composition_of_one_mechanism_is_itself():
    assert optimal_composition_epsilon([0.7], [1e-6], 1e-6 + 1e-9) == pytest.approx(0.7, abs=2e-4)


def test_theorem41_quick_and_the_calibration_it_checks(thm41_quick):
    out = thm41_quick
    f = out.figures
    expected = "violated" if f["points_broken"] else ("holds" if f["points_not_certified"] == 0 else "inconclusive")
    assert out.verdict == expected
    r = adp._thm41_task("dp", 1000, 1000, 1.0, 1e-5)
    b_delta = np.log(16 * 1000 / (1000 * 1e-5)) * np.log(1.25 / 1e-5)
    assert r["sigma"] == pytest.approx(np.sqrt(256 * b_delta / 1000**2 * 1000))
    # negative control: the same steps with a twentieth of the noise are not (1, 1e-5)-DP by the accountant
    assert composed_epsilon([(1e-3, r["sigma"] / 20, 1000)], 1e-5, "rdp") > 1.0


def test_theorem41_uncertified_points_make_it_inconclusive(monkeypatch):
    monkeypatch.setattr(adp, "_thm41_task", lambda **kw: {"sigma": 1.0, "z_min": 1.0, "eps_upper": 10 * kw["epsilon"],
                                                           "delta_lower": 0.0})
    out = adp.theorem4_1("quick", 0)
    assert out.verdict == "inconclusive" and out.figures["points_not_certified"] == out.figures["points"]


def test_proposition51_exact_part_and_reported_measurements():
    out = adp.proposition5_1("quick", 0)
    assert out.verdict == "holds"
    r7 = out.figures["exact_ratio_T10000000"]
    assert r7 == pytest.approx(ta.m_ratio(ta.polynomial_schedule(10**7, 1.0, 1.0)))
    assert 0.9 * np.log(1e7) / 4 < r7 < np.log(1e7) / 4  # Θ(log T) with constant ¼ (exact value 3.927)
    assert out.figures["stated_privacy_term_ratio_T10000000"] == pytest.approx(2 * np.log(1 + 1e7))
    assert {k for k in out.figures if k.startswith("measured_utility_ratio_T")} == {
        "measured_utility_ratio_T100", "measured_utility_ratio_T1000", "measured_utility_ratio_T4000"}


def test_proposition52_break_even_counterexample_pinned():
    """Pinned: b_0² = ν, T = 2 — the stated ADP term (11) exceeds DP's (12): (12)/(11) = ¼·log 3 < 1."""
    import sympy as sp

    r = ta.proposition5_2_ratio().subs({ta.T: 2, ta.nu: 1, ta.b0: 1})
    assert float(r) == pytest.approx(np.log(3) / 4) and float(r) < 1
    assert float(ta.proposition5_2_break_even().subs({ta.nu: 1, ta.b0: 1})) == pytest.approx(np.e**4 - 1)
    assert sp.simplify(ta.proposition5_2_ratio() - sp.log(1 + ta.T * ta.nu / ta.b0**2) / 4) == 0
    out = adp.proposition5_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["T"] == 2
    assert out.figures["M_ratio_max"] > 1.0 > out.figures["M_ratio_min"]


def test_table1_verdict_follows_its_interval(monkeypatch):
    out = adp.table1("quick", 0)
    g = out.figures["growth_eps1"]
    assert out.verdict in ("holds", "violated", "inconclusive")
    assert np.isfinite(g) and g > 0
    # the same runs, reported advantage = DP/ADP utility at each T
    assert set(k for k in out.figures if k.startswith("advantage_eps1_")) == {"advantage_eps1_T300", "advantage_eps1_T3000"}


def test_theorem41_counterexample_pinned():
    """Pinned: ADP-SGD (α_t² = √(1 + t)), T = 100, n = 10000, ε = 4, δ = 1e-8. Theorem 4.1's σ ≈ 0.03 leaves
    the one-record steps nearly noiseless: the event 'some step's output along u exceeds 1/2' has probability
    ≈ T/n under one neighbour and ≈ 0 under the other, so δ(4) ≥ 0.0099 ≫ 1e-8."""
    r = adp._thm41_task("adp_poly", 100, 10000, 4.0, 1e-8, 8)
    assert r["sigma"] == pytest.approx(0.02959, rel=1e-3)
    assert r["delta_lower"] > 0.0099 > 1e-8
    # the bound is a real probability computation: with ample noise it certifies nothing
    assert adp.delta_lower_bound(np.full(100, 5.0), 1e-3, 1.0) == 0.0


def test_theorem41_quick_reports_the_violation(thm41_quick):
    out = thm41_quick
    assert out.verdict == "violated" and out.figures["points_broken"] >= 1
    assert out.counterexample["delta_lower_bound"] > out.counterexample["delta"]
