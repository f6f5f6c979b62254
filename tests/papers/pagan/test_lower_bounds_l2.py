"""Proposition 2 and Theorem 5 on the ℓ₂ ball (:mod:`verify.papers.pagan.lower_bounds_l2`): the exact edge against
the free output x = 0, its still-false mutants, and the quick verdicts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from theory import pagan as tp
from verify import mutants, registry
from verify.papers.pagan import _lower_bound_common, lower_bounds, lower_bounds_l2

# --------------------------------------------------------------------------------------
# pagan.proposition2: the exact edge at every σ scale
# --------------------------------------------------------------------------------------
P2 = "pagan.proposition2"


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


def test_proposition2_edge_holds_at_every_scale_and_catches_wrong_powers():
    v, ex, checked, _ = lower_bounds_l2.prop2_edge()
    assert v == "holds" and ex is None and checked == 3 * 2 * 10 * 61  # 3 σ, 2 profiles, d = 1..10, 61 values of nε
    # x^(5/4) at σ = 100, d = 1, nε = 1e-3: min{100^(5/4), ·} = 316.2 > 2σ√d = 200; x^(3/4) at σ = 0.01: 0.0316 > 0.02
    for name, sigma in (("proposition2_lower_bound:pow1.25", 100.0), ("proposition2_lower_bound:pow0.75", 0.01)):
        with generic_mutant(P2, name).apply():
            v, ex, _, _ = lower_bounds_l2.prop2_edge()
            assert v == "violated" and ex["sigma"] == sigma and ex["d"] == 1
            assert ex["lower_bound"] == pytest.approx(sigma ** (1.25 if sigma > 1 else 0.75), rel=1e-12)
            assert ex["lower_bound"] > ex["largest_possible"] * 1.5
            assert lower_bounds_l2.prop2_edge((1.0,))[0] == "holds"  # σ = 1 alone (the earlier check) cannot see it
    with pytest.raises(ValueError):
        lower_bounds_l2.prop2_edge((0.0,))


# --------------------------------------------------------------------------------------
# the lower-bound claims: exact parts first; the runs are skipped where an exact part already refutes
# --------------------------------------------------------------------------------------
def test_theorem5_exact_refutation_skips_the_runs(monkeypatch):
    def no_runs(*args, **kwargs):
        raise AssertionError("the measured part ran although the exact part refutes")

    monkeypatch.setattr(_lower_bound_common, "_lb_runs", no_runs)  # read by _lb_measured
    monkeypatch.setattr(lower_bounds_l2, "_lb_runs", no_runs)  # read by proposition2
    out = run_under(claim_by_id("pagan.theorem5"), generic_mutant("pagan.theorem5", "theorem5_lower_bound:pow1.25"))
    assert out.verdict == "violated" and out.counterexample["scale"] == 1e4
    assert out.numbers["cells"] == 0 and out.evidence.startswith("the measured part was not run")
    # unmutated, the exact part refutes too (the free output x = 0 at d = 2), so no runs either;
    # the weakened bound (÷10) passes it and the runs are needed (here: refused)
    assert claim_by_id("pagan.theorem5").check("quick", 0).verdict == "violated"
    with pytest.raises(AssertionError, match="measured part ran"):
        run_under(claim_by_id("pagan.theorem5"), generic_mutant("pagan.theorem5", "theorem5_lower_bound:x0.1"))


def test_hypothesis_boundary_is_found_to_rounding():
    assert _lower_bound_common._hypothesis_boundary(lower_bounds_l2._thm5_condition, 2) == pytest.approx(2.0, rel=1e-12)
    assert _lower_bound_common._hypothesis_boundary(lower_bounds._box_condition, 3) == pytest.approx(
        np.sqrt(3) * np.log(3), rel=1e-12)
    assert lower_bounds_l2._thm5_condition(2, _lower_bound_common._hypothesis_boundary(lower_bounds_l2._thm5_condition,
                                                                                       2))


def test_theorem5_is_violated_exactly_at_d2_without_runs(lower_bound_runs_forbidden):
    ok, bound, free = _at5([1, 1], 1, 2)
    assert ok and bool(bound > free) and float(bound) == pytest.approx(1 / np.log(2), rel=1e-12)
    out = lower_bounds_l2.theorem5("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and ex["d"] == 2 and ex["sigma"] == [1.0, 1.0]
    assert ex["epsilon"] == pytest.approx(2.0, rel=1e-12) and ex["largest_possible"] == pytest.approx(2**0.5)
    assert "free output x = 0" in out.evidence


@pytest.mark.parametrize("name", sorted(lower_bounds_l2.THM5_STILL_FALSE))
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
        v, ex, _, _ = _lower_bound_common._lb_edge_scaled(lower_bounds_l2._thm5_lb_ne, lower_bounds_l2._thm5_condition,
                                                          lambda sg: float(np.sqrt(np.sum(sg**2))), dims=(2, 3),
                                                          boundary=True)
    assert v == "holds" and ex is None


def test_theorem5_and_proposition2_quick():
    # Theorem 5 is refuted exactly at d = 2 by the free output x = 0 (test_theorem5_is_violated_exactly_at_d2_...)
    out = lower_bounds_l2.theorem5("quick", 0)
    assert out.verdict == "violated" and out.counterexample["d"] == 2 and out.numbers["cells"] == 0
    # proposition2 cannot fail as built: it says so and is inconclusive whatever its cells show
    out = lower_bounds_l2.proposition2("quick", 0)
    assert out.verdict == "inconclusive" and out.evidence.startswith("inconclusive: not testable as built")


def test_proposition2_reconstruction_matches_rescaled_bassily():
    """min{σ√d, dσ/(nε)} = σ√d·min{1, √d/(nε)} (Bassily et al. Thm 5.3 rescaled to ‖z‖₂ ≤ σ√d)."""
    e = tp.proposition2_lower_bound()
    for d, ne in ((4, 1.0), (100, 5.0), (100, 1000.0)):
        got = float(e.subs({tp.sigma_const: 0.7, tp.d: d, tp.n: 1, tp.epsilon: ne}))
        assert got == pytest.approx(0.7 * math.sqrt(d) * min(1.0, math.sqrt(d) / ne))


@pytest.fixture(scope="module")
def theorem5_outcome():
    registry.load_all()
    return registry.REGISTRY["pagan.theorem5"].check("quick", 0)


def test_theorem5_finding_is_the_d2_boundary_repaired_by_max_one_log_d(theorem5_outcome):
    f = theorem5_outcome.finding
    assert theorem5_outcome.verdict == "violated"
    assert f.scope == "boundary"
    assert f.region.edge == "d ≤ 2 (log d < 1)"
    assert (f.region.explored, f.region.failing, f.region.failing_on_edge) == (1220, 1, 1)
    assert f.region.holding_off_edge == 1066
    assert not f.at_paper_setting.fails and f.at_paper_setting.size < 1e-2
    assert f.repair.verdict == "holds" and "max(1, log d)" in f.repair.statement


def test_proposition2_is_not_refuted_by_the_free_output_applied_alike():
    """The free output x = 0, Theorem 5's and Theorem 4's witness, applied to Proposition 2: its bound reaches the
    free output's worst excess σ√d (at small nε) and never exceeds it."""
    assert lower_bounds_l2.prop2_free_output_ratio() == pytest.approx(1.0, abs=1e-12)
