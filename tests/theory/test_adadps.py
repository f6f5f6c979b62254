"""theory.adadps: Theorem 1's calibration, Theorem 2's pathwise steps (19) and (24), the GLM calculation."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, target
from hypothesis import strategies as st

from theory import adadps as ta
from theory import numeric
from verify.exact import EPS
from verify.papers.adadps import convex


@given(st.integers(min_value=0, max_value=2**32 - 1))
@example(0)
@example(12345)
def test_theorem2_pathwise_steps_19_and_24(seed):
    """For any path meeting Theorem 2's hypotheses, (19) and (24) hold up to rounding."""
    ghat, g, beta, eps, a, gamma = convex.theorem2_sample(np.random.default_rng(seed))
    s19, s24 = convex.theorem2_slacks(ghat, g, beta, eps, a, gamma)
    tol = (ghat.size + 4) * 8 * EPS
    target(-min(s19, s24))
    assert s19 >= -tol and s24 >= -tol


def test_theorem2_pathwise_edge_cases():
    """Pins: γ = a = 1, β₁ = 0 (v¹ = ĝ²), a single step, and all-zero public gradients."""
    one = np.ones(1)
    s19, s24 = convex.theorem2_slacks(one, one, np.zeros(1), 1e-8 * one, 1.0, 1.0)
    assert s24 >= 0
    T = 50
    t = np.arange(1, T + 1, dtype=float)
    z = np.zeros(T)
    s19, s24 = convex.theorem2_slacks(z, z, 1 - 1 / t, 1e-3 / np.sqrt(t), 0.5, 0.5)
    assert s24 == pytest.approx(1.0) and s19 >= -1e-15
    # (19) fails without the hypothesis √t εᵗ non-decreasing (a negative control for the slack)
    s19_bad, _ = convex.theorem2_slacks(z, z, 1 - 1 / t, 1e-3 / t, 1.0, 1.0)
    assert s19_bad < -0.1


def test_theorem1_required_c2_inverts_the_calibration():
    sig = ta.theorem1_sigma().subs(ta.b, ta.q * ta.n)
    c2 = ta.theorem1_required_c2().subs(ta.sigma, sig)
    assert sp.simplify(c2 - ta.c2) == 0
    assert sp.simplify(ta.theorem1_epsilon_range().subs(ta.b, ta.q * ta.n) - ta.c1 * ta.q**2 * ta.T) == 0


def test_glm_calculation_closed_forms():
    assert sp.simplify(ta.glm_R_sum_A() - ta.c_max**2 * ta.d * ta.p * ta.v**2 / (ta.p * ta.v + ta.eps_a)) == 0
    assert ta.glm_R_sum_A_over_dv_limit() == ta.c_max**2
    # the paper's intermediate denominator (E|x|)² + ϵ² gives a weaker bound than (E|x| + ϵ)²
    paper = ta.c_max**2 * ta.p * ta.v**2 / ((ta.p * ta.v) ** 2 + ta.eps_a**2)
    f = sp.lambdify((ta.c_max, ta.p, ta.v, ta.eps_a), paper - ta.glm_R_bound())
    assert all(f(1.0, p, v, e) >= 0 for p in (1e-3, 0.1, 0.9) for v in (0.5, 1, 3) for e in (1e-6, 1e-2, 1.0))
    assert sp.simplify(ta.expected_noise_A_norm(False) - ta.sigma**2 * ta.C**2 * ta.S_A) == 0
    assert sp.simplify(ta.noise_ratio_adadps_over_dpsgd() - ta.S_A / ta.d) == 0


def test_theorem_bounds_scale_as_one_over_sqrt_T():
    for bound in (ta.theorem2_bound(), ta.theorem3_bound()):
        assert sp.limit(bound * sp.sqrt(ta.T), ta.T, sp.oo) != 0
        assert sp.simplify(bound.subs(ta.T, 4 * ta.T) * 2 - bound) == 0
    G = numeric(ta.theorem2_G())(D=1.0, alpha=0.5, a=1.0, gamma=1.0)
    assert G == pytest.approx(1.0 + 0.5)


def test_toy_sparse_side_information_reduces_noise():
    """Section 4.1's A: Σ A / d = (50 + 450·0.01)/500 — AdaDPS's noise term is 10.9% of DP-SGD's."""
    A = np.where(np.arange(500) < 50, 1.0, 0.01)
    r = float(ta.noise_ratio_adadps_over_dpsgd().subs({ta.S_A: float(A.sum()), ta.d: 500}))
    assert r == pytest.approx(54.5 / 500)
    assert math.isfinite(r)
