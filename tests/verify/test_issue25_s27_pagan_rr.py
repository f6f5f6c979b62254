"""Issue 25 (session 27): pagan's Theorem 4 (d ≥ 3) against randomized response on the signs.  At n = 1, ε = nε,
reporting each sign correctly with probability e^{ε/d}/(1 + e^{ε/d}) is (ε, 0)-DP, and its excess ‖z̄‖₁ − xᵀz̄ on the
worst S is 2Σσ_j/(1 + e^{ε/d}): it decays like e^{-ε/d}, while the bound decays like 1/(nε).  At d = 3, σ = (1, 1, 1)
and the hypothesis' boundary nε = √3·log 3 the bound is 2.159 > 2.079, so the claim is violated, exactly; the same
witness leaves the claim's (and pagan.proposition1.d3's) weakened mutants false at explicit points.  Cheap: no
runs."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from theory import pagan as tp
from verify import mutants, registry
from verify.papers import pagan

T4 = "pagan.theorem4.risk.d3"
P1 = "pagan.proposition1.d3"
S23 = tp.power_sum(sp.Rational(2, 3))


def _generic(cid, name):
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[cid]) if m.name == name]
    return m


def _at(bound_name, sigma, n, eps):
    """Hypothesis and bound (possibly mutated: looked up when called) at an explicit point, in SymPy."""
    sigma = [sp.nsimplify(s) for s in sigma]
    vals = {tp.d: len(sigma), tp.n: n, tp.epsilon: sp.nsimplify(eps), S23: sum(s ** sp.Rational(2, 3) for s in sigma)}
    cond = tp.theorem4_condition()
    return bool(cond.lhs.subs(vals) <= cond.rhs.subs(vals)), getattr(tp, bound_name)().subs(vals)


def _rr(sigma, eps, factor):
    """factor·Σσ_j/(1 + e^{ε/d}) in SymPy: the RR sign error (factor 1) or excess (factor 2)."""
    return factor * sum(sp.nsimplify(s) for s in sigma) / (1 + sp.exp(sp.nsimplify(eps) / len(sigma)))


def test_rr_values_and_a_monte_carlo_check_of_the_functional():
    assert pagan.rr_sign_error([1.0, 1.0, 1.0], 3.0) == pytest.approx(3 / (1 + np.e), rel=1e-14)
    assert pagan.rr_excess([1.0, 0.5], 0.0) == pytest.approx(1.5, rel=1e-14)  # ε = 0: a fair coin
    assert pagan.rr_excess([1.0] * 3, 1e3) == pytest.approx(6 * np.exp(-1e3 / 3), rel=1e-12)  # no overflow
    with pytest.raises(ValueError, match="sigma"):
        pagan.rr_sign_error([], 1.0)
    # the excess of x = RR(sign z̄) at one S, simulated (the exact value is 2Σ|z̄_j|/(1 + e^{ε/d}))
    rng = np.random.default_rng(0)
    zbar, eps = np.array([0.9, -0.4, 0.1]), 2.0
    keep = rng.random((200000, 3)) < np.exp(eps / 3) / (1 + np.exp(eps / 3))
    x = np.where(keep, np.sign(zbar), -np.sign(zbar))
    excess = np.mean(np.abs(zbar).sum() - x @ zbar)
    assert excess == pytest.approx(pagan.rr_excess(np.abs(zbar), eps), rel=0.01)


def test_the_counterexample_is_exact():
    """d = 3, σ = (1, 1, 1), n = 1, ε = √3·log 3 (the hypothesis' boundary):
    3^{3/2}/(ε·log^{5/2} 3) > 6/(1 + e^{ε/3})."""
    eps = sp.sqrt(3) * sp.log(3)
    ok, bound = _at("theorem4_lower_bound", [1, 1, 1], 1, eps)
    gap = (bound - _rr([1, 1, 1], eps, 2)).evalf(60)
    assert ok and gap > 0 and float(bound) == pytest.approx(2.1585676829790725, rel=1e-12)
    assert float(_rr([1, 1, 1], eps, 2)) == pytest.approx(2.079238600043644, rel=1e-12)


def test_theorem4_is_violated_exactly_without_runs(pagan_without_runs):
    out = pagan.theorem4_risk_d3("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and ex["d"] == 3 and ex["sigma"] == [1.0, 1.0, 1.0] and ex["n"] == 1
    assert ex["epsilon"] == pytest.approx(np.sqrt(3) * np.log(3), rel=1e-12)
    assert ex["largest_possible"] == pytest.approx(pagan.rr_excess([1.0] * 3, ex["epsilon"]), rel=1e-14)
    assert "randomized response" in ex["witness"] and "randomized response" in out.evidence


def test_at_eps_at_most_1_randomized_response_refutes_nothing():
    """The reading's evidence: the refutation needs ε > 1.  With ε = 1 (n = nε) the witness's excess stays above the
    bound wherever the hypothesis holds (flat and j^{-3/2} profiles, 3 ≤ d ≤ 40, nε up to 10⁴)."""
    for d in range(3, 41):
        ne0 = pagan._hypothesis_boundary(pagan._box_condition, d)
        for decay in (0.0, 1.5):
            sigma = pagan.kernels.pagan_problems.power_law_sigma(d, decay)
            for ne in np.geomspace(ne0, 1e4, 40):
                assert pagan._box_lb_ne(d, ne, sigma) < pagan.rr_excess(sigma, 1.0)


def test_the_coin_refutation_is_kept_where_it_exists():
    """Proposition 1: the fair coin (ε-free) already refutes at d = 3, so that is the counterexample reported, not
    the witness's."""
    out = pagan.proposition1_d3("quick", 0)
    assert out.verdict == "violated" and "witness" not in out.counterexample
    assert out.counterexample["largest_possible"] == pytest.approx(1.5)


def test_a_bound_below_the_witness_is_not_refuted():
    """The witness cannot refute a bound it does not exceed (a check that could always refute would be no check):
    a bound of 0.99 times the witness's value, with the hypothesis everywhere, passes; 1.01 times (kept below
    0.9·Σσ_j, so that only the witness can refute it) fails."""
    cond = lambda d, ne: True  # noqa: E731
    below = lambda d, ne, sg: 0.99 * pagan.rr_excess(sg, ne)  # noqa: E731
    above = lambda d, ne, sg: min(1.01 * pagan.rr_excess(sg, ne), 0.9 * float(np.sum(sg)))  # noqa: E731
    top = lambda sg: float(np.sum(sg))  # noqa: E731
    assert pagan._lb_edge_scaled(below, cond, top, dims=(3, 4), witness=pagan.rr_excess)[0] == "holds"
    v, ex, _, _ = pagan._lb_edge_scaled(above, cond, top, dims=(3, 4), witness=pagan.rr_excess)
    assert v == "violated" and ex["witness"] and ex["d"] == 3
    # and without the witness the same bound is not refuted (it never exceeds Σσ_j)
    assert pagan._lb_edge_scaled(above, cond, top, dims=(3, 4))[0] == "holds"


@pytest.mark.parametrize("cid, table, bound_name, factor", [
    (T4, pagan.THM4_RR_STILL_FALSE, "theorem4_lower_bound", 2),
    (P1, pagan.PROP1_RR_STILL_FALSE, "proposition1_lower_bound", 1)])
def test_mutants_are_still_false_at_their_points(cid, table, bound_name, factor):
    """Under each mutant (the SymPy mutation verify.mutants applies), at d = 3, σ = (1, 1, 1), n = 1 and the declared
    ε, the mutated hypothesis holds and the mutated bound exceeds the witness's value, exactly (60 digits)."""
    for name, (eps, _) in table.items():
        assert mutants.EQUIVALENT[(cid, name)].startswith("the mutated statement is still false")
        with _generic(cid, name).apply():
            ok, bound = _at(bound_name, [1, 1, 1], 1, eps)
        assert ok and (bound - _rr([1, 1, 1], eps, factor)).evalf(60) > 0, name
        # and the original hypothesis/bound are not what is evaluated (the mutation applied)
        ok0, bound0 = _at(bound_name, [1, 1, 1], 1, eps)
        assert not (ok0 == ok and sp.simplify(bound0 - bound) == 0) or name.startswith("theorem4_condition"), name


def test_the_only_weaker_hypothesis_mutant_is_no_longer_declared_so():
    assert not mutants.EQUIVALENT[(T4, "theorem4_condition:pow0.75")].startswith("only weaker")


@pytest.mark.parametrize("check", [pagan.theorem4_risk_d3, pagan.proposition1_d3, pagan.theorem5])
def test_figures_render_when_the_runs_are_skipped(check):
    """An exact refutation skips the runs; the claim's figures must still draw (the closed-form ratio of
    theorem4.risk.d3 is drawn without them; a log axis with no positive data used to fail the whole ledger)."""
    from verify import plots

    out = check("quick", 0)
    assert out.verdict == "violated" and out.plots
    for fig in out.plots:
        assert plots.png_bytes(fig)[:8] == b"\x89PNG\r\n\x1a\n"
