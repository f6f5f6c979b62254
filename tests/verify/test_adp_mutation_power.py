"""Issue 25 (mutation power) for adp: parts of a statement that a check computed but did not decide are decided,
and each new decision can fail."""

import pytest

from kernels import faults
from theory import adp as tadp
from verify.papers import adp as va


def test_remark41_identity_is_decided_and_holds():
    out = va.remark4_1("quick", 0)
    assert out.verdict == "holds"
    assert 0.0 <= out.numbers["max_identity_deviation_rounding_units"] <= 1.0
    assert "(the identity)" in out.evidence


def test_remark41_a_tenfold_ratio_is_violated(monkeypatch):
    """m_ratio ×10 is still ≥ 1 (the inequality part cannot see it); the identity M_dp/M_adp = M(1, b)/M_adp can."""
    real = tadp.m_ratio
    monkeypatch.setattr(tadp, "m_ratio", lambda b, exact=False: 10.0 * real(b, exact))
    out = va.remark4_1("quick", 0)
    assert out.verdict == "violated"
    assert out.numbers["max_identity_deviation_rounding_units"] > 1e10


def test_proposition52_common_factor_on_the_terms_is_equivalent(monkeypatch):
    """The reason declared for proposition5_2_terms:x10 / x0.1: the ratio, the break-even T and the verdict are
    unchanged when both privacy terms are scaled by one constant."""
    import sympy as sp

    from verify.mutants import EQUIVALENT

    ratio, t_star = tadp.proposition5_2_ratio(), tadp.proposition5_2_break_even()
    base = va.proposition5_2("quick", 0)
    real = tadp.proposition5_2_terms
    for factor in (10, sp.Rational(1, 10)):
        assert ("adp.proposition5.2", f"proposition5_2_terms:x{'10' if factor == 10 else '0.1'}") in EQUIVALENT
        monkeypatch.setattr(tadp, "proposition5_2_terms", lambda f=factor: tuple(f * e for e in real()))
        assert sp.simplify(tadp.proposition5_2_ratio() - ratio) == 0
        assert sp.simplify(tadp.proposition5_2_break_even() - t_star) == 0
        out = va.proposition5_2("quick", 0)
        assert out.verdict == base.verdict == "violated" and out.counterexample["T"] == base.counterexample["T"]


def test_proposition52_declares_a_larger_ratio_weaker():
    from verify.registry import load_all

    assert dict(load_all()["adp.proposition5.2"].weaker_if) == {"theory.adp.proposition5_2_ratio": "larger"}


# ---------------------------------------------------------------------------------------------------------------
# Issue 25, session 23: the "still false" equivalences of the violated exact claims, each checked at its explicit
# counterexample under the very mutation verify.mutants applies
# ---------------------------------------------------------------------------------------------------------------
def _mutant(path: str, name: str):
    from verify import mutants

    fn = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(path, name, "", fn)


def _declared(cid: str, mutant: str) -> str:
    from verify.mutants import EQUIVALENT
    from verify.registry import load_all

    load_all()
    reason = EQUIVALENT[(cid, mutant)]
    assert reason.startswith("the mutated statement is still false")
    return reason


def test_lemma21_exponent_mutants_still_fail_at_their_counterexamples():
    from theory import numeric

    for name, (dl, z) in va.LEMMA21_POW_COUNTEREXAMPLES.items():
        _declared("adp.lemma2.1", f"lemma2_1_epsilon:{name}")
        with _mutant("theory.adp.lemma2_1_epsilon", name).apply():
            eps = float(numeric(tadp.lemma2_1_epsilon())(delta=dl, Delta=1.0, sigma=z))
        plain = float(numeric(tadp.lemma2_1_epsilon())(delta=dl, Delta=1.0, sigma=z))
        assert eps != plain  # the mutation is in force
        assert va.gaussian_delta_at(z, eps) > dl * (1 + va.LEMMA21_RELATIVE_TOLERANCE)
        lo, _ = va.gaussian_epsilon_interval(z, dl)
        assert lo > eps, (name, lo, eps)


def test_lemma21_the_counterexample_check_can_fail():
    """At a point where the promise is kept (small ε: σ/Δ = 5, δ = 1e-5, unmutated) the same test says so."""
    from theory import numeric

    eps = float(numeric(tadp.lemma2_1_epsilon())(delta=1e-5, Delta=1.0, sigma=5.0))
    assert va.gaussian_delta_at(5.0, eps) <= 1e-5
    assert va.gaussian_epsilon_interval(5.0, 1e-5)[0] <= eps


def test_proposition52_exponent_mutants_of_the_ratio_are_still_false_at_t2():
    import sympy as sp

    for fn in ("proposition5_2_terms", "proposition5_2_ratio"):
        _declared("adp.proposition5.2", f"{fn}:pow0.75")
        with _mutant(f"theory.adp.{fn}", "pow0.75").apply():
            r = tadp.proposition5_2_ratio()
            assert sp.simplify(r - sp.log(1 + (tadp.T * tadp.nu / tadp.b0**2) ** sp.Rational(3, 4)) / 4) == 0
            val = r.subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1})
            assert sp.N(val, 30) < 1 and sp.simplify(val - sp.log(1 + 2 ** sp.Rational(3, 4)) / 4) == 0
            assert va.proposition5_2("quick", 0).counterexample["T"] == 2


def test_proposition52_break_even_mutants_leave_the_t2_counterexample():
    import sympy as sp

    for name in ("x10", "x0.1", "pow1.25", "pow0.75"):
        _declared("adp.proposition5.2", f"proposition5_2_break_even:{name}")
        with _mutant("theory.adp.proposition5_2_break_even", name).apply():
            assert sp.simplify(tadp.proposition5_2_break_even() - (sp.E**4 - 1) * tadp.b0**2 / tadp.nu) != 0
            assert tadp.proposition5_2_ratio().subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1}) == sp.log(3) / 4
            out = va.proposition5_2("quick", 0)
            assert out.verdict == "violated" and out.counterexample["T"] == 2


def test_proposition52_a_wrong_identity_is_violated_without_a_crash():
    """(12)/(11) ×10 is ≥ 1 at every T; the stated identity (12)/(11) = ¼·log(1 + Tν/b_0²) still fails, because
    the stated terms' own ratio is ¼·log(1 + Tν/b_0²) (the declared reason for proposition5_2_ratio:x10)."""
    import sympy as sp

    _declared("adp.proposition5.2", "proposition5_2_ratio:x10")
    adp_term, dp_term = tadp.proposition5_2_terms()
    with _mutant("theory.adp.proposition5_2_ratio", "x10").apply():
        mutated = tadp.proposition5_2_ratio()
        out = va.proposition5_2("quick", 0)
    assert sp.simplify(mutated - sp.cancel(dp_term / adp_term)) != 0
    assert sp.simplify(sp.cancel(dp_term / adp_term) - sp.log(1 + tadp.T * tadp.nu / tadp.b0**2) / 4) == 0
    assert out.verdict == "violated"
    assert out.counterexample["T"] is None and out.counterexample["identity_exact"] is False


def test_theorem41_exponent_mutants_still_fail_at_the_counterexample():
    p = va.THM41_POW_COUNTEREXAMPLE
    plain = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    for fn, name in (("theorem4_1_variance", "pow1.25"), ("b_delta", "pow1.25"), ("b_delta", "pow0.75")):
        _declared("adp.theorem4.1", f"{fn}:{name}")
        with _mutant(f"theory.adp.{fn}", name).apply():
            r = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
        assert r["sigma"] != plain["sigma"]  # the mutation is in force
        assert r["delta_lower"] > 100 * p["delta"], (fn, name, r)


def test_theorem41_tenfold_variance_mutants_still_fail_at_their_counterexample():
    """The reason declared for theorem4_1_variance:x10 and b_delta:x10: at DP-SGD, T = 100, n = 10⁴, ε = 2,
    δ = 1e-5 the event bound at the mutated σ (√10 times eq. (6)'s) still exceeds δ, by more than 80×."""
    p = va.THM41_X10_COUNTEREXAMPLE
    plain = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    for fn in ("theorem4_1_variance", "b_delta"):
        _declared("adp.theorem4.1", f"{fn}:x10")
        with _mutant(f"theory.adp.{fn}", "x10").apply():
            r = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
        assert r["sigma"] == pytest.approx(10**0.5 * plain["sigma"], rel=1e-12)  # the mutation is in force
        assert r["sigma"] == pytest.approx(0.2696, rel=1e-3)
        assert r["delta_lower"] > 8.7e-4 > 80 * p["delta"], (fn, r)
        # the three thresholds used before issue 25 (0.5, 0.7, 0.9) certify nothing here: τ = 1.3 does
        assert va.delta_lower_bound(va.alpha_schedule("dp", 100) * r["sigma"], 1e-4, 2.0, (0.5, 0.7, 0.9)) == 0.0
        assert va.delta_lower_bound(va.alpha_schedule("dp", 100) * r["sigma"], 1e-4, 2.0, (1.3,)) > 8.7e-4


def test_theorem41_variance_pow075_still_fails_at_its_counterexample():
    """The reason declared for theorem4_1_variance:pow0.75: a point of the full grid (DP-SGD, T = 100, n = 10⁴,
    ε = 4, δ = 1e-5) where the event bound at the mutated σ exceeds δ more than 20-fold."""
    p = va.THM41_POW075_COUNTEREXAMPLE
    plain = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    _declared("adp.theorem4.1", "theorem4_1_variance:pow0.75")
    with _mutant("theory.adp.theorem4_1_variance", "pow0.75").apply():
        r = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    assert r["sigma"] != plain["sigma"] and r["sigma"] == pytest.approx(0.267, rel=2e-3)
    assert r["delta_lower"] > 2.5e-4 > 20 * p["delta"], r


def test_theorem41_the_counterexample_check_can_fail():
    """A thousand times Theorem 4.1's σ² at the same points: the event bound no longer exceeds δ (ten times, the
    thresholds above the shift still find δ(2) > δ: see the test above)."""
    from verify.mutants import substituted

    real = tadp.theorem4_1_variance
    with substituted("theory.adp.theorem4_1_variance", lambda: 1000 * real()):
        for p in (va.THM41_POW_COUNTEREXAMPLE, va.THM41_X10_COUNTEREXAMPLE, va.THM41_POW075_COUNTEREXAMPLE):
            r = va._thm41_task(**p, pld_blocks=4, vdi=1e-2)
            assert not r["delta_lower"] > p["delta"]


def test_proposition51_from_t42_exponent_mutants_still_fail_at_the_smallest_case():
    s0 = va.P51_CONSISTENCY_SMALLEST
    tol = va.relative_tolerance(va.P51_FROM_T42_BUDGETS.at("quick").tmax)
    for name in ("pow1.25", "pow0.75"):
        _declared("adp.proposition5.1.from_theorem4.2", f"proposition5_1_privacy_terms:{name}")
        with _mutant("theory.adp.proposition5_1_privacy_terms", name).apply():
            r = va.eq7_against_eq9_eq10(s0["a"], s0["c"], s0["T"], s0["etaL"])
        k = 1.25 if name == "pow1.25" else 0.75
        assert abs(r["eq9"] - 9 ** (k / 2)) < 1e-12
        assert r["eq9"] < r["eq7_adp"] * (1 - tol) and r["eq9"] < r["eq7_adp_etaL"] * (1 - tol)


def test_proposition51_from_t42_the_counterexample_check_can_fail(monkeypatch):
    """(9) ×10 lies above (7)'s term at the smallest case: the same comparison says so."""
    s0 = va.P51_CONSISTENCY_SMALLEST
    real = tadp.proposition5_1_privacy_terms
    monkeypatch.setattr(tadp, "proposition5_1_privacy_terms", lambda: tuple(10 * e for e in real()))
    r = va.eq7_against_eq9_eq10(s0["a"], s0["c"], s0["T"], s0["etaL"])
    assert r["eq9"] > r["eq7_adp"]


# ---- adp.table1: the kernel probe (issue 25, session 25) ----------------------------------------------------
@pytest.mark.parametrize("fault", [None, dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_table1_kernel_probe_passes_unmutated_and_fails_under_a_kernel_fault(fault):
    sigmas = {"dp": 0.75, "adp": 0.4}
    if fault is None:
        why, numbers = va._table1_kernel_probe(2000, 10, sigmas, 20.0, 0)
        assert why == "" and max(numbers.values()) <= 1e-9
        return
    with faults.inject(**fault):
        why, numbers = va._table1_kernel_probe(2000, 10, sigmas, 20.0, 0)
    assert "dp: run_adp" in why and "adp: run_adp" in why and min(numbers.values()) > 1e-3
