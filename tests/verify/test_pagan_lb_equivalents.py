"""The equivalences the lower-bound claims of pagan declare are true, not convenient.

``upper_lower_ratio_box`` / ``_ball`` under every generic theory mutation stay polylogarithmic in d (the statements
allow any polylog(d) factor), and a hypothesis lhs ≤ rhs with its right side made smaller admits fewer (d, nε), so
the ``weaker_if`` direction "smaller" of the conditions is the weakening one.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from theory import pagan as tp
from verify import mutants, registry

LB_CLAIMS = ("pagan.proposition1.d3", "pagan.proposition2", "pagan.theorem4.risk.d3", "pagan.theorem5")


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
    from kernels import faults
    from verify.papers import pagan as vp

    with faults.inject(**fault):
        for algorithm in ("pagan", "pasan"):
            out = vp._sign_mean_outputs(algorithm, epsilon=1.0, delta=1e-5, n=200, d=6, steps=400, trials=4, seed=0)
            x = np.asarray(out["x"])
            assert np.all(np.abs(x) <= 1.0 + 1e-12), (algorithm, float(np.max(np.abs(x))))
    registry.load_all()
    (c,) = registry.select(["pagan.theorem4"])
    assert "X∞" in mutants.equivalence(c, next(m for m in mutants.KERNEL_MUTANTS if m.name == "stepsize*10"), "holds")
