"""Issue 25 (session 26): pagan.proposition1.d3 against the free mechanism.  A fair coin per coordinate ignores S,
so it is (0, 0)-DP, and its sign error is ½Σ|z̄_j| ≤ ½Σσ_j on every S: Proposition 1's bound (constant 1) must
stay below ½Σσ_j wherever √d·log d ≤ nε.  At d = 3, σ = (1, 1, 1) it does not (e.g. n = 2, ε = 1: 2.05 > 1.5), so
the claim is violated, exactly; its exponent mutants stay false at explicit points (declared equivalents, each
checked here in exact arithmetic).  Cheap: no runs."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from theory import pagan as tp
from verify import mutants, registry
from verify.papers import pagan

P1 = "pagan.proposition1.d3"
S23 = tp.power_sum(sp.Rational(2, 3))


def _generic(name):
    """The generic theory mutant ``name`` of pagan.proposition1.d3, built exactly as verify.mutants builds it."""
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[P1]) if m.name == name]
    return m


def _at(sigma, n, eps):
    """The mutated (or original) hypothesis and bound at an explicit point, exact (SymPy rationals)."""
    sigma = [sp.nsimplify(s) for s in sigma]
    vals = {tp.d: len(sigma), tp.n: n, tp.epsilon: sp.nsimplify(eps), S23: sum(s ** sp.Rational(2, 3) for s in sigma)}
    cond = tp.theorem4_condition()
    return bool(cond.lhs.subs(vals) <= cond.rhs.subs(vals)), tp.proposition1_lower_bound().subs(vals), sum(sigma) / 2


def test_coin_sign_error_is_half_the_sum():
    assert pagan.coin_sign_error([1.0, 0.5, 0.25]) == pytest.approx(0.875, rel=1e-15)
    # a Monte-Carlo check of the functional for the coin at one S (the exact value is ½Σ|z̄_j|)
    rng = np.random.default_rng(0)
    zbar = np.array([0.9, -0.4, 0.1])
    signs = rng.choice(np.array([-1.0, 1.0]), size=(200000, 3))
    err = np.mean(np.sum(np.abs(zbar) * (signs != np.sign(zbar)), axis=1))
    assert err == pytest.approx(0.5 * np.abs(zbar).sum(), rel=0.01)


def test_the_counterexample_is_exact():
    """d = 3, σ = (1, 1, 1), n = 2, ε = 1: the hypothesis holds and the bound 3^{3/2}/(2·log^{5/2} 3) > 3/2."""
    ok, bound, half = _at([1, 1, 1], 2, 1)
    assert ok and bool(bound > half) and float(bound) == pytest.approx(3**1.5 / (2 * np.log(3) ** 2.5), rel=1e-12)
    # and at d = 4 (flat, the worst profile by Hölder) the bound stays below ½Σσ_j = 2 just above the boundary
    # nε = 2·log 4 ≈ 2.7726 (the bound decreases in nε)
    ok4, b4, h4 = _at([1, 1, 1, 1], 1, sp.Rational(2773, 1000))
    assert ok4 and bool(b4 < h4)


def test_proposition1_d3_is_violated_exactly_without_runs(pagan_without_runs):
    out = pagan.proposition1_d3("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and ex["d"] == 3 and ex["sigma"] == [1.0, 1.0, 1.0]
    assert ex["largest_possible"] == pytest.approx(1.5) and ex["lower_bound"] > 1.5
    assert "fair coin" in out.evidence


@pytest.mark.parametrize("name", sorted(pagan.PROP1_STILL_FALSE))
def test_proposition1_d3_mutant_is_still_false_at_its_point(name):
    """Under the mutant (the SymPy mutation verify.mutants applies), at the declared point the mutated hypothesis
    holds and the mutated bound exceeds ½Σσ_j, exactly."""
    assert mutants.EQUIVALENT[(P1, name)].startswith("the mutated statement is still false")
    points = {"proposition1_lower_bound:pow1.25": ([10**4] * 3, 1, 2),
              "proposition1_lower_bound:pow0.75": ([1, sp.Rational(1, 2) ** sp.Rational(3, 2),
                                                    sp.Rational(1, 3) ** sp.Rational(3, 2)], 1, 2),
              "theorem4_condition:pow1.25": ([1, 1, 1], 2, 1),
              "theorem4_condition:pow0.75": ([1, 1, 1], 1, sp.Rational(5, 2))}
    sigma, n, eps = points[name]
    with _generic(name).apply():
        ok, bound, half = _at(sigma, n, eps)
    assert ok and bool(bound > half)


@pytest.mark.parametrize("name", ["proposition1_lower_bound:x0.1", "theorem4_condition:x0.1"])
def test_the_weakening_mutants_are_not_refuted_by_the_coin(name):
    """The bound ÷10, or the hypothesis √d·log d ≤ nε/10, stays below ½Σσ_j: the exact part passes (the check can
    then leave violated: these mutants are caught)."""
    with _generic(name).apply():
        v, ex, _, _ = pagan._lb_edge_scaled(pagan._prop1_lb_ne, pagan._box_condition, pagan.coin_sign_error,
                                            dims=(3, 4))  # d = 3, flat σ: the largest bound/½Σσ_j
    assert v == "holds" and ex is None


# --------------------------------------------------------------------------------------
# pagan.theorem5 against the free output x = 0 (excess ‖z̄‖₂ ≤ √(Σσ_j²)), at the hypothesis' boundary nε = d
# --------------------------------------------------------------------------------------
T5 = "pagan.theorem5"


def _generic5(name):
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[T5]) if m.name == name]
    return m


def _at5(sigma, n, eps):
    sigma = [sp.nsimplify(s) for s in sigma]
    vals = {tp.d: len(sigma), tp.n: n, tp.epsilon: sp.nsimplify(eps), tp.power_sum(1): sum(sigma)}
    cond = tp.theorem5_condition()
    free = sp.sqrt(sum(s**2 for s in sigma))
    return bool(cond.lhs.subs(vals) <= cond.rhs.subs(vals)), tp.theorem5_lower_bound().subs(vals), free


def test_hypothesis_boundary_is_found_to_rounding():
    assert pagan._hypothesis_boundary(pagan._thm5_condition, 2) == pytest.approx(2.0, rel=1e-12)
    assert pagan._hypothesis_boundary(pagan._box_condition, 3) == pytest.approx(np.sqrt(3) * np.log(3), rel=1e-12)
    assert pagan._thm5_condition(2, pagan._hypothesis_boundary(pagan._thm5_condition, 2))


def test_theorem5_is_violated_exactly_at_d2_without_runs(pagan_without_runs):
    ok, bound, free = _at5([1, 1], 1, 2)
    assert ok and bool(bound > free) and float(bound) == pytest.approx(1 / np.log(2), rel=1e-12)
    out = pagan.theorem5("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and ex["d"] == 2 and ex["sigma"] == [1.0, 1.0]
    assert ex["epsilon"] == pytest.approx(2.0, rel=1e-12) and ex["largest_possible"] == pytest.approx(2**0.5)
    assert "free output x = 0" in out.evidence


@pytest.mark.parametrize("name", sorted(pagan.THM5_STILL_FALSE))
def test_theorem5_mutant_is_still_false_at_its_point(name):
    assert mutants.EQUIVALENT[(T5, name)].startswith("the mutated statement is still false")
    sigma = [10**4] * 2 if name == "theorem5_lower_bound:pow1.25" else [1, 1]
    with _generic5(name).apply():
        ok, bound, free = _at5(sigma, 1, 2)
    assert ok and bool(bound > free)


@pytest.mark.parametrize("name", ["theorem5_lower_bound:x0.1", "theorem5_condition:x0.1", "theorem5_condition:pow0.75"])
def test_theorem5_weakening_mutants_pass_the_free_output(name):
    """The bound ÷10, or a narrower hypothesis (d ≤ nε/10, d ≤ (nε)^{3/4}), stays below √(Σσ_j²): not equivalent in a
    violated claim (the check can leave violated: caught), and no longer declared."""
    assert (T5, name) not in mutants.EQUIVALENT
    with _generic5(name).apply():
        v, ex, _, _ = pagan._lb_edge_scaled(pagan._thm5_lb_ne, pagan._thm5_condition,
                                            lambda sg: float(np.sqrt(np.sum(sg**2))), dims=(2, 3), boundary=True)
    assert v == "holds" and ex is None
