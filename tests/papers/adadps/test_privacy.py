"""Theorem 1 (:mod:`verify.papers.adadps.privacy`, ``adadps.theorem1``): the quick verdict, the rule that refutes a
c₁ too large, the σ search, and why the declared theory mutants of the required c₂ are equivalent."""

import logging

from theory import adadps as ta
from verify import mutants, registry
from verify.papers.adadps import privacy
from verify.privacy import dp_sgd_epsilon

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_theorem1_is_undecided_at_quick_growth_that_levels_off_does_not_refute(quick):
    """At quick the needed c₂ of q = 0.01, r = 0.1 grows over the decade (least growth the accountant brackets allow
    > 0.1: the first rule's 'violated') but not over its last interval: c₂ rises towards its Gaussian-regime value
    as ε goes from 1e-3 to 1e-2, no sign of an unbounded c₂.  So no refutation, and not holds."""
    out = quick["theorem1"]
    f = out.numbers
    assert out.verdict == "inconclusive" and out.decisions == [] and out.counterexample is None
    assert f["max_least_growth_in_T_at_smallest_r"] > privacy.T1_SLOPE_MARGIN
    assert f["max_least_growth_last_interval_at_smallest_r"] <= privacy.T1_SLOPE_MARGIN
    assert 0 < f["c2_needed_min"] <= f["c2_needed_max"] < 10
    assert "would decide" in out.evidence


def test_theorem1_refutes_c1_0_1_once_epsilon_is_large(monkeypatch):
    """Power of the rule: at q = 0.1, ε = 0.1·q²T, T = 10³..10⁴ (ε = 1..10) the needed c₂ keeps growing through
    the top of the range (c₂ ∝ √ε once ε ≫ log 1/δ), so c₁ = 0.1 needs an unbounded c₂: violated, exactly."""
    monkeypatch.setitem(privacy.T1_GRIDS, "quick", dict(q=(0.1,), T=(1000, 3000, 10000), r=(0.1,), delta=(1e-5,)))
    out = privacy.theorem1("quick", 0)
    assert out.verdict == "violated"
    ce = out.counterexample
    assert ce["growth_min"] > privacy.T1_SLOPE_MARGIN and ce["growth_min_last"] > privacy.T1_SLOPE_MARGIN
    assert ce["c2_lo"][-1] > ce["c2_hi"][0]  # needed c₂ at T = 10⁴ certainly above the one at T = 10³


def test_theorem1_bracket_is_a_bracket():
    """σ_lo (optimistic PLD) ≤ σ_hi (RDP / pessimistic PLD), both within a few percent at a small-ε point."""
    r = privacy._t1_point(0.01, 100, 0.5 * 0.01**2 * 100, 1e-5)
    assert r["sigma_lo"] <= r["sigma_hi"] <= r["sigma_rdp"]
    assert r["sigma_hi"] / r["sigma_lo"] < 1.1
    # the RDP σ found really gives the promised ε, and 1% less noise does not (bisection bracket)
    s = privacy._sigma_for_epsilon(0.01, 1000, 0.5 * 0.01**2 * 1000, 1e-5)
    assert s["eps_at_sigma"] <= 0.05 < dp_sgd_epsilon(0.01, s["sigma"] * 0.99, 1000, 1e-5, "rdp")


def test_theorem1_search_computes_each_sigma_once_and_its_answer_eps_fresh(monkeypatch):
    """The σ search keeps the ε of each σ it tried: the PLD accountant runs once per distinct σ, and the ε returned
    for the answer is what a fresh accountant call gives (the same float)."""
    calls = []
    real = privacy._pld_subsampled_epsilon

    def counted(q, sigma, T, delta, vdi, pessimistic):
        calls.append(sigma)
        return real(q, sigma, T, delta, vdi, pessimistic)

    monkeypatch.setattr(privacy, "_pld_subsampled_epsilon", counted)
    q, T, eps = 0.1, 10, 0.1  # a short search (≈0.1 s): 10% precision
    s = privacy._sigma_for_epsilon(q, T, eps, 1e-5, "pld_upper", rel=0.1)
    assert calls and len(calls) == len(set(calls)) and s["sigma"] in calls
    vdi = privacy.T1_VDI_FRACTION * eps / T
    assert s["eps_at_sigma"] == real(q, s["sigma"], T, 1e-5, vdi, True) <= eps


def test_theorem1_required_c2_mutants_are_monotone_transforms_free_of_the_run():
    """The reason of the theorem1 equivalences, in SymPy: ×k gives k·c₂; x -> x^p gives k(δ)·c₂^p with k free of
    σ, ε, q and T (so c₂ bounded in T iff the mutated c₂ is)."""
    import sympy as sp


    c2 = ta.theorem1_required_c2()
    run_vars = {s for s in c2.free_symbols if s.name in ("sigma", "epsilon", "q", "T")}
    assert len(run_vars) == 4
    for name, _, fn, _ in mutants.THEORY_MUTATIONS:
        mutated = mutants.mutate_value(c2, fn)
        p = {"pow1.25": sp.Rational(5, 4), "pow0.75": sp.Rational(3, 4)}.get(name, 1)
        k = sp.simplify(sp.powsimp(sp.expand_log(mutated / c2**p, force=True), force=True))
        assert not (k.free_symbols & run_vars), (name, k)
        assert k.is_positive is not False
        registry.load_all()
        assert ("adadps.theorem1", f"theorem1_required_c2:{name}") in mutants.EQUIVALENT


def test_theorem1_a_c2_growing_in_T_would_not_pass_the_same_check():
    import sympy as sp


    c2 = ta.theorem1_required_c2()
    T = next(s for s in c2.free_symbols if s.name == "T")
    k = sp.simplify((c2 * sp.sqrt(T)) / c2)
    assert T in k.free_symbols
