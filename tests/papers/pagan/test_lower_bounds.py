"""Proposition 1 and Theorem 4 on X∞ (:mod:`verify.papers.pagan.lower_bounds`): the reduction, the exact
refutations by a fair coin and by randomized response on the signs, the still-false mutants and the declared
equivalences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import kernels
import kernels.moments
import kernels.pagan_problems
from kernels import faults
from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from theory import pagan as tp
from verify import mutants, plots, registry
from verify.papers.pagan import _lower_bound_common, lower_bounds, lower_bounds_l2

# --------------------------------------------------------------------------------------
# pagan.proposition1.d2 / pagan.theorem4.risk.d2: exponent mutants, still false at an exact point
# --------------------------------------------------------------------------------------
D2 = [("pagan.proposition1.d2", "proposition1_lower_bound"), ("pagan.theorem4.risk.d2", "theorem4_lower_bound")]


# --------------------------------------------------------------------------------------
# pagan.theorem4.risk.d3: the upper/lower ratio must be one polylog(d) factor for every n
# --------------------------------------------------------------------------------------
T4 = "pagan.theorem4.risk.d3"


P1 = "pagan.proposition1.d3"


S23 = tp.power_sum(sp.Rational(2, 3))


def _coin_generic(name):
    """The generic theory mutant ``name`` of pagan.proposition1.d3, built exactly as verify.mutants builds it."""
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[P1]) if m.name == name]
    return m


def _coin_at(sigma, n, eps):
    """The mutated (or original) hypothesis and bound at an explicit point, exact (SymPy rationals)."""
    sigma = [sp.nsimplify(s) for s in sigma]
    vals = {tp.d: len(sigma), tp.n: n, tp.epsilon: sp.nsimplify(eps), S23: sum(s ** sp.Rational(2, 3) for s in sigma)}
    cond = tp.theorem4_condition()
    return bool(cond.lhs.subs(vals) <= cond.rhs.subs(vals)), tp.proposition1_lower_bound().subs(vals), sum(sigma) / 2


RR_CLAIM = "pagan.theorem4.risk.d3"


def _rr_generic(cid, name):
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[cid]) if m.name == name]
    return m


def _rr_at(bound_name, sigma, n, eps):
    """Hypothesis and bound (possibly mutated: looked up when called) at an explicit point, in SymPy."""
    sigma = [sp.nsimplify(s) for s in sigma]
    vals = {tp.d: len(sigma), tp.n: n, tp.epsilon: sp.nsimplify(eps), S23: sum(s ** sp.Rational(2, 3) for s in sigma)}
    cond = tp.theorem4_condition()
    return bool(cond.lhs.subs(vals) <= cond.rhs.subs(vals)), getattr(tp, bound_name)().subs(vals)


def _rr(sigma, eps, factor):
    """factor·Σσ_j/(1 + e^{ε/d}) in SymPy: the RR sign error (factor 1) or excess (factor 2)."""
    return factor * sum(sp.nsimplify(s) for s in sigma) / (1 + sp.exp(sp.nsimplify(eps) / len(sigma)))


LB_CLAIMS = ("pagan.proposition1.d3", "pagan.proposition2", "pagan.theorem4.risk.d3", "pagan.theorem5")


@pytest.mark.parametrize("cid, bound", D2)
@pytest.mark.parametrize("name", ["{b}:pow1.25", "{b}:pow0.75", "theorem4_condition:pow1.25",
                                  "theorem4_condition:pow0.75"])
def test_d2_exponent_mutants_are_still_false_at_an_exact_point(cid, bound, name):
    name = name.format(b=bound)
    registry.load_all()
    assert mutants.EQUIVALENT[(cid, name)].startswith("the mutated statement is still false")
    m = generic_mutant(cid, name)
    with m.apply():
        cond, lb = getattr(tp, "theorem4_condition")(), getattr(tp, bound)()
    at = {tp.d: 2, tp.n: 1, tp.epsilon: 1, tp.power_sum(sp.Rational(2, 3)): 2}  # σ = (1, 1): S_{2/3} = 2
    assert bool(cond.subs(at)) is True  # the mutated hypothesis holds (exact)
    value = lb.subs(at)
    assert value.is_number and bool(value > 4)  # above 2Σσ_j = 4 ≥ either left side (exact comparison)
    # and the mutation did change what it names
    orig = tp.theorem4_condition() if name.startswith("theorem4_condition") else getattr(tp, bound)()
    assert (cond if name.startswith("theorem4_condition") else lb) != orig


def test_theorem4_ratio_is_free_of_n_and_its_exponent_mutants_are_not():
    lim = lower_bounds.ratio_limit_in_n(tp.upper_lower_ratio_box())
    assert lim.is_number and lim.is_finite and lim.is_positive
    # x^(5/4): the ratio grows like (nε)^(1/4) (no polylog(d) factor bounds it); x^(3/4): it vanishes like (nε)^(-1/4)
    for name, expected in (("theorem4_lower_bound:pow1.25", sp.oo), ("theorem4_lower_bound:pow0.75", 0)):
        with generic_mutant(T4, name).apply():
            ratio = tp.upper_lower_ratio_box()
            assert lower_bounds.ratio_limit_in_n(ratio) == expected
            at = {tp.d: 3, tp.epsilon: 1, tp.delta: sp.Rational(1, 10**5), tp.power_sum(sp.Rational(2, 3)): 1}
            r = [float(ratio.subs(at).subs(tp.n, 10**k)) for k in (2, 6, 10)]
            assert (r[0] < r[1] < r[2]) if expected == sp.oo else (r[0] > r[1] > r[2])
    with pytest.raises(TypeError):
        lower_bounds.ratio_limit_in_n(1.0)
    # the claim itself decides (it used to crash evaluating the ratio's plot at d and δ alone)
    out = run_under(claim_by_id(T4), generic_mutant(T4, "theorem4_lower_bound:pow1.25"))
    assert out.verdict == "violated" and out.counterexample["limit_n_to_infinity"] == "oo"


def test_coin_sign_error_is_half_the_sum():
    assert lower_bounds.coin_sign_error([1.0, 0.5, 0.25]) == pytest.approx(0.875, rel=1e-15)
    # a Monte-Carlo check of the functional for the coin at one S (the exact value is ½Σ|z̄_j|)
    rng = np.random.default_rng(0)
    zbar = np.array([0.9, -0.4, 0.1])
    signs = rng.choice(np.array([-1.0, 1.0]), size=(200000, 3))
    err = np.mean(np.sum(np.abs(zbar) * (signs != np.sign(zbar)), axis=1))
    assert err == pytest.approx(0.5 * np.abs(zbar).sum(), rel=0.01)


def test_the_coin_counterexample_is_exact():
    """d = 3, σ = (1, 1, 1), n = 2, ε = 1: the hypothesis holds and the bound 3^{3/2}/(2·log^{5/2} 3) > 3/2."""
    ok, bound, half = _coin_at([1, 1, 1], 2, 1)
    assert ok and bool(bound > half) and float(bound) == pytest.approx(3**1.5 / (2 * np.log(3) ** 2.5), rel=1e-12)
    # and at d = 4 (flat, the worst profile by Hölder) the bound stays below ½Σσ_j = 2 just above the boundary
    # nε = 2·log 4 ≈ 2.7726 (the bound decreases in nε)
    ok4, b4, h4 = _coin_at([1, 1, 1, 1], 1, sp.Rational(2773, 1000))
    assert ok4 and bool(b4 < h4)


def test_proposition1_d3_is_violated_exactly_without_runs(lower_bound_runs_forbidden):
    out = lower_bounds.proposition1_d3("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and ex["d"] == 3 and ex["sigma"] == [1.0, 1.0, 1.0]
    assert ex["largest_possible"] == pytest.approx(1.5) and ex["lower_bound"] > 1.5
    assert "fair coin" in out.evidence


@pytest.mark.parametrize("name", sorted(lower_bounds.PROP1_STILL_FALSE))
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
    with _coin_generic(name).apply():
        ok, bound, half = _coin_at(sigma, n, eps)
    assert ok and bool(bound > half)


@pytest.mark.parametrize("name", ["proposition1_lower_bound:x0.1", "theorem4_condition:x0.1"])
def test_the_weakening_mutants_are_not_refuted_by_the_coin(name):
    """The bound ÷10, or the hypothesis √d·log d ≤ nε/10, stays below ½Σσ_j: the exact part passes (the check can
    then leave violated: these mutants are caught)."""
    with _coin_generic(name).apply():
        # d = 3, flat σ: the largest bound/½Σσ_j
        v, ex, _, _ = _lower_bound_common._lb_edge_scaled(lower_bounds._prop1_lb_ne, lower_bounds._box_condition,
                                                          lower_bounds.coin_sign_error, dims=(3, 4))
    assert v == "holds" and ex is None


def test_rr_values_and_a_monte_carlo_check_of_the_functional():
    assert lower_bounds.rr_sign_error([1.0, 1.0, 1.0], 3.0) == pytest.approx(3 / (1 + np.e), rel=1e-14)
    assert lower_bounds.rr_excess([1.0, 0.5], 0.0) == pytest.approx(1.5, rel=1e-14)  # ε = 0: a fair coin
    assert lower_bounds.rr_excess([1.0] * 3, 1e3) == pytest.approx(6 * np.exp(-1e3 / 3), rel=1e-12)  # no overflow
    with pytest.raises(ValueError, match="sigma"):
        lower_bounds.rr_sign_error([], 1.0)
    # the excess of x = RR(sign z̄) at one S, simulated (the exact value is 2Σ|z̄_j|/(1 + e^{ε/d}))
    rng = np.random.default_rng(0)
    zbar, eps = np.array([0.9, -0.4, 0.1]), 2.0
    keep = rng.random((200000, 3)) < np.exp(eps / 3) / (1 + np.exp(eps / 3))
    x = np.where(keep, np.sign(zbar), -np.sign(zbar))
    excess = np.mean(np.abs(zbar).sum() - x @ zbar)
    assert excess == pytest.approx(lower_bounds.rr_excess(np.abs(zbar), eps), rel=0.01)


def test_the_randomized_response_counterexample_is_exact():
    """d = 3, σ = (1, 1, 1), n = 1, ε = √3·log 3 (the hypothesis' boundary):
    3^{3/2}/(ε·log^{5/2} 3) > 6/(1 + e^{ε/3})."""
    eps = sp.sqrt(3) * sp.log(3)
    ok, bound = _rr_at("theorem4_lower_bound", [1, 1, 1], 1, eps)
    gap = (bound - _rr([1, 1, 1], eps, 2)).evalf(60)
    assert ok and gap > 0 and float(bound) == pytest.approx(2.1585676829790725, rel=1e-12)
    assert float(_rr([1, 1, 1], eps, 2)) == pytest.approx(2.079238600043644, rel=1e-12)


def test_theorem4_is_violated_exactly_without_runs(lower_bound_runs_forbidden):
    out = lower_bounds.theorem4_risk_d3("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and ex["d"] == 3 and ex["sigma"] == [1.0, 1.0, 1.0] and ex["n"] == 1
    assert ex["epsilon"] == pytest.approx(np.sqrt(3) * np.log(3), rel=1e-12)
    assert ex["largest_possible"] == pytest.approx(lower_bounds.rr_excess([1.0] * 3, ex["epsilon"]), rel=1e-14)
    assert "randomized response" in ex["witness"] and "randomized response" in out.evidence


def test_at_eps_at_most_1_randomized_response_refutes_nothing():
    """The reading's evidence: the refutation needs ε > 1.  With ε = 1 (n = nε) the witness's excess stays above the
    bound wherever the hypothesis holds (flat and j^{-3/2} profiles, 3 ≤ d ≤ 40, nε up to 10⁴)."""
    for d in range(3, 41):
        ne0 = _lower_bound_common._hypothesis_boundary(lower_bounds._box_condition, d)
        for decay in (0.0, 1.5):
            sigma = kernels.pagan_problems.power_law_sigma(d, decay)
            for ne in np.geomspace(ne0, 1e4, 40):
                assert lower_bounds._box_lb_ne(d, ne, sigma) < lower_bounds.rr_excess(sigma, 1.0)


def test_the_coin_refutation_is_kept_where_it_exists():
    """Proposition 1: the fair coin (ε-free) already refutes at d = 3, so that is the counterexample reported, not
    the witness's."""
    out = lower_bounds.proposition1_d3("quick", 0)
    assert out.verdict == "violated" and "witness" not in out.counterexample
    assert out.counterexample["largest_possible"] == pytest.approx(1.5)


def test_a_bound_below_the_witness_is_not_refuted():
    """The witness cannot refute a bound it does not exceed (a check that could always refute would be no check):
    a bound of 0.99 times the witness's value, with the hypothesis everywhere, passes; 1.01 times (kept below
    0.9·Σσ_j, so that only the witness can refute it) fails."""
    cond = lambda d, ne: True  # noqa: E731
    below = lambda d, ne, sg: 0.99 * lower_bounds.rr_excess(sg, ne)  # noqa: E731
    above = lambda d, ne, sg: min(1.01 * lower_bounds.rr_excess(sg, ne), 0.9 * float(np.sum(sg)))  # noqa: E731
    top = lambda sg: float(np.sum(sg))  # noqa: E731
    assert _lower_bound_common._lb_edge_scaled(below, cond, top, dims=(3, 4),
                                               witness=lower_bounds.rr_excess)[0] == "holds"
    v, ex, _, _ = _lower_bound_common._lb_edge_scaled(above, cond, top, dims=(3, 4), witness=lower_bounds.rr_excess)
    assert v == "violated" and ex["witness"] and ex["d"] == 3
    # and without the witness the same bound is not refuted (it never exceeds Σσ_j)
    assert _lower_bound_common._lb_edge_scaled(above, cond, top, dims=(3, 4))[0] == "holds"


@pytest.mark.parametrize("cid, table, bound_name, factor", [
    (RR_CLAIM, lower_bounds.THM4_RR_STILL_FALSE, "theorem4_lower_bound", 2),
    (P1, lower_bounds.PROP1_RR_STILL_FALSE, "proposition1_lower_bound", 1)])
def test_mutants_are_still_false_at_their_points(cid, table, bound_name, factor):
    """Under each mutant (the SymPy mutation verify.mutants applies), at d = 3, σ = (1, 1, 1), n = 1 and the declared
    ε, the mutated hypothesis holds and the mutated bound exceeds the witness's value, exactly (60 digits)."""
    for name, (eps, _) in table.items():
        assert mutants.EQUIVALENT[(cid, name)].startswith("the mutated statement is still false")
        with _rr_generic(cid, name).apply():
            ok, bound = _rr_at(bound_name, [1, 1, 1], 1, eps)
        assert ok and (bound - _rr([1, 1, 1], eps, factor)).evalf(60) > 0, name
        # and the original hypothesis/bound are not what is evaluated (the mutation applied)
        ok0, bound0 = _rr_at(bound_name, [1, 1, 1], 1, eps)
        assert not (ok0 == ok and sp.simplify(bound0 - bound) == 0) or name.startswith("theorem4_condition"), name


def test_the_only_weaker_hypothesis_mutant_is_no_longer_declared_so():
    assert not mutants.EQUIVALENT[(RR_CLAIM, "theorem4_condition:pow0.75")].startswith("only weaker")


@pytest.mark.parametrize("check", [lower_bounds.theorem4_risk_d3, lower_bounds.proposition1_d3,
                                   lower_bounds_l2.theorem5])
def test_figures_render_when_the_runs_are_skipped(check):
    """An exact refutation skips the runs; the claim's figures must still draw (the closed-form ratio of
    theorem4.risk.d3 is drawn without them; a log axis with no positive data used to fail the whole ledger)."""

    out = check("quick", 0)
    assert out.verdict == "violated" and out.plots
    for fig in out.plots:
        assert plots.png_bytes(fig)[:8] == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------------------
# lower bounds
# --------------------------------------------------------------------------------------
def test_proposition1_edge_counterexample_pinned():
    """Pinned: d = 2, σ = (1, 1), n = 1, ε = 1 meets √d·log d ≤ nε, yet the bound 2^{3/2}/log^{5/2} 2 ≈ 7.07
    exceeds Σσ_j = 2, the largest value the left side can take (and 2Σσ_j = 4 for Theorem 4's excess)."""
    d, n, eps = 2, 1, 1.0
    assert bool(tp.theorem4_condition().subs({tp.d: d, tp.n: n, tp.epsilon: eps}))
    lb = float(tp.theorem4_lower_bound().subs({tp.power_sum(sp.Rational(2, 3)): 2, tp.d: d, tp.n: n, tp.epsilon: eps}))
    assert lb == pytest.approx(2**1.5 / math.log(2) ** 2.5)
    assert lb > 4.0 > 2.0
    for check in (lower_bounds.proposition1_d2, lower_bounds.theorem4_risk_d2):
        out = check("quick", 0)
        assert out.verdict == "violated" and not out.decisions
        assert out.counterexample["d"] == 2 and out.counterexample["lower_bound"] == pytest.approx(lb)


def test_lower_bound_main_statements_for_d_at_least_3():
    """Theorem 4 for d ≥ 3 is refuted exactly at d = 3, n = 1 by randomized response on the signs
    (test_theorem4_is_violated_exactly_without_runs); Proposition 1 for d ≥ 3 at d = 3 by a fair coin per coordinate
    (½Σσ_j = 1.5 < the bound; test_proposition1_d3_is_violated_exactly_without_runs), whatever the cells show."""
    out = lower_bounds.theorem4_risk_d3("quick", 0)
    assert out.verdict == "violated" and out.counterexample["d"] == 3 and out.counterexample.get("witness")
    out = lower_bounds.proposition1_d3("quick", 0)
    assert out.verdict == "violated" and out.counterexample["d"] == 3 and "witness" not in out.counterexample


def test_upper_lower_ratios_are_polylog():
    assert sp.simplify(tp.upper_lower_ratio_box() - sp.log(tp.d / tp.delta) * sp.log(tp.d) ** sp.Rational(5, 2)) == 0
    assert sp.simplify(tp.upper_lower_ratio_ball() - sp.log(tp.d / tp.delta) * sp.log(tp.d)) == 0


def test_theorem4_reduction_holds_including_private_outputs():
    out = lower_bounds.theorem4("quick", 0)
    f = out.numbers
    assert out.verdict == "holds"
    assert f["min_relative_slack"] >= -f["rounding_tolerance"]
    assert f["algorithm_outputs"] > 0 and f["min_slack_at_outputs"] >= 0


@pytest.mark.parametrize("ratio, power", [(tp.upper_lower_ratio_box, sp.Rational(7, 2)),
                                          (tp.upper_lower_ratio_ball, 2)])
@pytest.mark.parametrize("mutation", [m for m in mutants.THEORY_MUTATIONS], ids=lambda m: m[0])
def test_mutated_upper_lower_ratios_stay_polylog(ratio, power, mutation):
    name, _, fn, _ = mutation
    mutated = fn(ratio())
    lim = sp.limit(mutated / sp.log(tp.d) ** power, tp.d, sp.oo)
    assert lim.is_finite and lim > 0, (name, lim)
    # and the declaration exists for the claim that uses this ratio
    cid = "pagan.theorem4.risk.d3" if ratio is tp.upper_lower_ratio_box else "pagan.theorem5"
    registry.load_all()
    assert (cid, f"{ratio.__name__}:{name}") in mutants.EQUIVALENT


def test_a_ratio_growing_faster_than_polylog_would_not_pass_the_same_check():
    lim = sp.limit(tp.upper_lower_ratio_ball() * sp.sqrt(tp.d) / sp.log(tp.d) ** 2, tp.d, sp.oo)
    assert not lim.is_finite


@pytest.mark.parametrize("condition", [tp.theorem4_condition, tp.theorem5_condition])
def test_a_smaller_right_side_of_a_hypothesis_admits_fewer_points(condition):
    rel = condition()
    small = mutants.mutate_value(rel, dict((m[0], m[2]) for m in mutants.THEORY_MUTATIONS)["x0.1"])
    f, g = sp.lambdify((tp.d, tp.n, tp.epsilon), rel), sp.lambdify((tp.d, tp.n, tp.epsilon), small)
    rng = np.random.default_rng(0)
    pts = [(float(d), float(n), float(e)) for d, n, e in zip(rng.integers(2, 10**4, 400), rng.integers(1, 10**4, 400),
                                                             rng.uniform(0.01, 10, 400))]
    assert all(f(*p) for p in pts if g(*p))  # the mutated hypothesis implies the original
    assert any(f(*p) and not g(*p) for p in pts)  # and is strictly narrower on this sample


@pytest.mark.parametrize("cid", LB_CLAIMS)
def test_lower_bound_claims_declare_their_kernel_faults_equivalent_with_a_reason(cid):
    (c,) = registry.select([cid])
    for m in mutants.KERNEL_MUTANTS:
        if m.name in ("noise*3", "noise-cov-A", "no-clipping", "stepsize*10"):
            reason = mutants.equivalence(c, m, "holds")
            assert "every (ε, δ)-DP mechanism" in reason


@pytest.mark.parametrize("fault", [dict(noise_scale=3.0), dict(noise_geometry_inverse=True), dict(skip_clipping=True),
                                   dict(stepsize_scale=10.0)], ids=lambda f: next(iter(f)))
def test_theorem4_reduction_points_stay_in_the_box_under_every_kernel_fault(fault):
    """pagan.theorem4 declares its kernel faults equivalent because every fault keeps the projection onto X∞: the
    iterates the check evaluates the inequality at stay in [−1, 1]^d."""

    with faults.inject(**fault):
        for algorithm in ("pagan", "pasan"):
            out = lower_bounds._sign_mean_outputs(algorithm, epsilon=1.0, delta=1e-5, n=200, d=6, steps=400, trials=4,
                                                  seed=0)
            x = np.asarray(out["x"])
            assert np.all(np.abs(x) <= 1.0 + 1e-12), (algorithm, float(np.max(np.abs(x))))
    registry.load_all()
    (c,) = registry.select(["pagan.theorem4"])
    assert "X∞" in mutants.equivalence(c, next(m for m in mutants.KERNEL_MUTANTS if m.name == "stepsize*10"), "holds")


# ---- findings: the scope, region and repair of each refuted lower bound (quick, seed 0) ----
@pytest.fixture(scope="module")
def box_findings():
    registry.load_all()
    return {cid: registry.REGISTRY[cid].check("quick", 0) for cid in (
        "pagan.proposition1.d2", "pagan.theorem4.risk.d2", "pagan.proposition1.d3", "pagan.theorem4.risk.d3")}


@pytest.mark.parametrize("cid,counts", [("pagan.proposition1.d2", (90, 74, 42)),
                                        ("pagan.theorem4.risk.d2", (80, 72, 50))])
def test_d2_finding_with_the_d3_witnesses_is_in_regime(box_findings, cid, counts):
    """The fair coin (or free output) and randomized response, applied at d = 2 as at d ≥ 3, beat the bound also at
    ε ≤ 1 well above the hypothesis' threshold (nε up to ≈ 7): failures off the d ≥ 3 claims' edge."""
    out = box_findings[cid]
    assert out.verdict == "violated"
    f = out.finding
    assert f.scope == "in_regime"
    assert f.region.edge.startswith("ε > 1 or nε < 2·√d·log d")
    assert (f.region.explored, f.region.failing, f.region.failing_on_edge, f.region.holding_off_edge) == (166,) + counts
    assert not f.at_paper_setting.fails and f.at_paper_setting.size < 1e-3
    assert f.repair.verdict == "violated" and f.repair.source == "derived"


@pytest.mark.parametrize("cid,failing", [("pagan.proposition1.d3", 187), ("pagan.theorem4.risk.d3", 155)])
def test_d3_finding_fails_only_above_eps_one_or_near_the_threshold(box_findings, cid, failing):
    f = box_findings[cid].finding
    assert f.scope == "boundary"
    assert f.region.edge.startswith("ε > 1 or nε < 2·√d·log d")
    assert (f.region.explored, f.region.failing, f.region.failing_on_edge) == (1110, failing, failing)
    assert f.region.holding_off_edge == 324
    assert "§6.1" in f.at_paper_setting.where and not f.at_paper_setting.fails
    assert f.repair.verdict == "holds"


def test_d3_edge_predicate_names_the_failures():
    """Off the edge (ε ≤ 1, nε ≥ 2√d·log d) a d = 3 point holds; the refuting points lie on it."""
    assert lower_bounds._d3_edge(3, 1, 1.903)  # the coin's counterexample: nε at the threshold
    assert lower_bounds._d3_edge(3, 1, 20.0)  # randomized response's: ε far above 1
    assert not lower_bounds._d3_edge(3, 100, 1.0)


def test_theorem4_reduction_with_a_larger_indicator_is_violated_with_its_finding():
    """The indicator ×10 (generic mutant) exceeds the gap: the searches find negative slack, and the finding names
    them (no paper setting: the reduction is stated for every x and z̄)."""
    m = generic_mutant("pagan.theorem4", "reduction_indicator_coordinate:x10")
    out = run_under(claim_by_id("pagan.theorem4"), m)
    assert out.verdict == "violated"
    f = out.finding
    assert f.scope == "in_regime" and f.region.explored == 5 and f.region.failing >= 1 and f.repair is None
    assert not f.at_paper_setting.fails and f.no_repair_reason
