"""theory.dp_adam_design: the SymPy derivations, the thresholds, and negative_probability against Monte Carlo."""

import math
import time

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, target
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import norm

from kernels import dp_adam as kd
from theory import dp_adam_design as td
from theory import numeric
from verify.papers.dp_adam_design import negative_estimates, survey
from verify.stats import clopper_pearson


def test_postprocessing_bias_closed_forms():
    assert sp.simplify(td.postprocessing_bias() - (1 - td.beta2**td.t) * td.s**2) == 0
    assert sp.simplify(td.postprocessing_bias_normalized() - td.s**2) == 0
    # the DP-MF sum reduces to the independent form when every row norm is 1, and equals its recursion
    expr = td.postprocessing_bias_dpmf()
    r = np.random.default_rng(0).uniform(0.5, 2, 30)
    val = float(expr.subs(td.t, 30).doit().subs({td.r[k]: r[k - 1] for k in range(1, 31)}).subs(
        {td.beta2: 0.9, td.s: 0.7}))
    assert val == pytest.approx(td.dpmf_bias_numeric(r, 0.9, 0.7)[-1], rel=1e-12)
    ones = td.dpmf_bias_numeric(np.ones(30), 0.9, 0.7)
    np.testing.assert_allclose(ones, numeric(td.postprocessing_bias())(beta2=0.9, s=0.7, t=np.arange(1, 31)))


def test_ime_sensitivity_and_split():
    assert sp.simplify(td.ime_sensitivity_squares() - (2 * td.B - 1) * td.C**2 / td.B**2) == 0
    s1, s2 = td.ime_noise_multipliers()
    assert sp.simplify(1 / s1**2 + 1 / s2**2 - 1 / td.sigma**2) == 0
    m, v = td.ime_noise_stds()
    assert float(m.subs({td.sigma: 1.3, td.C: 2.0, td.B: 8})) == pytest.approx(kd.ime_noise_stds(1.3, 2.0, 8)[0])
    assert float(v.subs({td.sigma: 1.3, td.C: 2.0, td.B: 8})) == pytest.approx(kd.ime_noise_stds(1.3, 2.0, 8)[1])


records = st.integers(1, 6).flatmap(lambda B: st.integers(1, 5).flatmap(lambda d: st.lists(
    st.floats(-3, 3, allow_nan=False), min_size=B * d, max_size=B * d).map(lambda x: np.array(x).reshape(B, d))))


@given(records)
@example(np.array([[1.0, 0.0]] * 4))  # equal axis-aligned records: the bound is attained
@example(np.array([[1 / math.sqrt(2), 1 / math.sqrt(2)]]))  # pinned: equal dense records are NOT tight
def test_squares_sensitivity_never_exceeds_the_bound(x):
    B = x.shape[0]
    bound = (2 * B - 1) / B**2
    actual = survey.squares_sensitivity(x, 1.0)
    target(actual / bound)
    assert actual <= bound * (1 + 8 * (x.size + 8) * 2.2e-16)


def test_tightness_pins():
    assert survey.squares_sensitivity(np.tile([1.0, 0.0], (5, 1)), 1.0) == pytest.approx(9 / 25, rel=1e-14)
    dense = survey.squares_sensitivity(np.array([[1 / math.sqrt(2), 1 / math.sqrt(2)]]), 1.0)
    assert dense == pytest.approx(1 / math.sqrt(2)) and dense < 1.0  # all records equal, ratio 1/√2


def test_scale_then_privatize_fixed_point_and_contraction():
    assert sp.simplify(td.stp_contraction() - (td.beta2 + (1 - td.beta2) * td.s**2)) == 0
    assert sp.simplify(td.stp_steady_state() - 1 / (1 - td.s**2)) == 0
    assert sp.simplify(td.stp_error_after_one_round() - td.stp_contraction() * td.delta) == 0


@pytest.mark.parametrize("b2,t", [(0.9, 1), (0.9, 7), (0.999, 1000), (0.5, 3)])
def test_variance_factor_is_the_sum_of_squared_weights(b2, t):
    w = td.vhat_weights(b2, t)
    factor = float(td.vhat_variance_factor().subs({td.beta2: b2, td.t: t}))
    assert factor == pytest.approx(float(np.sum(w**2)), rel=1e-10)
    assert np.sum(w) == pytest.approx(1.0)


def test_thresholds_closed_forms():
    kinf = (1 - td.beta2) / (1 + td.beta2)
    assert sp.simplify(td.threshold_optimistic() - td.B**2 / (td.sigma**2 * sp.sqrt(2 * kinf))) == 0
    assert sp.simplify(td.threshold_pessimistic() - td.B / (td.sigma**2 * sp.sqrt(2 * kinf))) == 0
    d_opt = float(td.threshold_optimistic().subs({td.B: 1, td.sigma: 1, td.beta2: 0.999}))
    assert d_opt == pytest.approx(1 / math.sqrt(2 * 0.001 / 1.999))  # ≈ 31.6 B²/σ² at β₂ = 0.999
    assert float(td.dpmf_threshold_gain_limit().subs(td.beta2, 0.999)) == pytest.approx(1 / math.sqrt(1 - 0.999**2))
    assert float(td.stp_update_noise_bound().subs({td.beta2: 0.99, td.t: 10**6})) == pytest.approx(1 / 0.99)


toeplitz = st.lists(st.floats(-2, 2, allow_nan=False), min_size=0, max_size=6)


@given(toeplitz, st.sampled_from([0.5, 0.9, 0.99]), st.integers(2, 60))
@example([], 0.9, 40)  # identity
@example([-0.5], 0.99, 60)  # C has coefficients 2^-k: the paper's half-cancelling example
def test_dpmf_variance_is_at_least_the_single_term_bound(tail, b2, t):
    c = np.concatenate([[1.0], tail, np.zeros(max(0, t - 1 - len(tail)))])[:t]
    cinv = kd.series_inverse(c, t)
    if not np.all(np.isfinite(cinv)) or np.max(np.abs(cinv)) > 1e8:
        return
    sens = float(np.max(np.sqrt(np.cumsum(c[::-1] ** 2)[::-1])))
    f = negative_estimates._dpmf_var_factor(cinv, sens, b2, t)
    lower = float(numeric(td.dpmf_variance_lower())(beta2=b2, t=t, tau=1.0))
    target(-(f / lower))
    assert f >= lower * (1 - 1e-9 * (1 + np.max(np.abs(cinv))))


# --------------------------------------------------------------------------------------
# negative_probability
# --------------------------------------------------------------------------------------
MC_SETTINGS = [  # (signal, noise_std, beta2, steps)
    (0.1, 1.0, 0.9, 1), (0.5, 1.0, 0.9, 2), (0.3, 1.0, 0.9, 3), (0.2, 1.0, 0.5, 5), (0.0, 1.0, 0.9, 20),
    (1.0, 1.0, 0.9, 50), (0.3, 1.0, 0.99, 100), (0.05, 0.3, 0.999, 300), (2.0, 1.0, 0.6, 4), (0.01, 0.1, 0.9, 30),
    (0.15, 1.0, 0.99, 2000), (0.4, 1.0, 0.0, 7),
]


def test_negative_probability_against_monte_carlo():
    level = 1 - 0.05 / len(MC_SETTINGS)
    diffs = []
    for k, (g, s, b2, t) in enumerate(MC_SETTINGS):
        n = 200_000 if t <= 300 else 20_000
        out = kd.constant_signal_vhat(np.full(n, g), s, b2, t, trials=1, seed=100 + k)
        frac = float(out["neg_frac"][-1])
        exact = td.negative_probability(g, s, b2, t)
        ci = clopper_pearson(int(round(frac * n)), n, level)
        diffs.append(abs(frac - exact))
        assert ci.lo <= exact <= ci.hi, (g, s, b2, t, exact, ci)
    print(f"negative_probability vs Monte Carlo on {len(MC_SETTINGS)} settings: max |diff| = {max(diffs):.4g}")


def test_negative_probability_against_an_independent_quadrature_for_two_terms():
    """t = 2: P(w₁(a+z₁)² + w₂(a+z₂)² < 1) by a 1-D integral over z₁ of the closed-form inner probability."""
    g, s, b2 = 0.4, 1.0, 0.7
    w1, w2 = td.vhat_weights(b2, 2)
    a = g / s

    def inner(z1):
        rem = 1 - w1 * (a + z1) ** 2
        if rem <= 0:
            return 0.0
        r = math.sqrt(rem / w2)
        return norm.pdf(z1) * (norm.cdf(r - a) - norm.cdf(-r - a))

    lo, hi = -a - 1 / math.sqrt(w1), -a + 1 / math.sqrt(w1)
    oracle = integrate.quad(inner, lo, hi, epsabs=1e-13)[0]
    assert td.negative_probability(g, s, b2, 2) == pytest.approx(oracle, abs=1e-9)


def test_negative_probability_edges_and_speed():
    assert td.negative_probability(0.3, 0.0, 0.9, 10) == 0.0
    assert td.negative_probability(0.3, 1.0, 0.9, 1) == pytest.approx(norm.cdf(0.7) - norm.cdf(-1.3))
    assert td.negative_probability(-0.3, 1.0, 0.99, 50) == td.negative_probability(0.3, 1.0, 0.99, 50)
    ps = [td.negative_probability(g, 1.0, 0.99, 400) for g in (0.0, 0.1, 0.2, 0.4, 0.8)]
    assert all(a > b for a, b in zip(ps, ps[1:]))  # a larger signal is less often negative
    t0 = time.perf_counter()
    p = td.negative_probability(0.05, 1.0, 0.999, 10_000)
    print(f"negative_probability at steps = 10^4: {time.perf_counter() - t0:.3f} s (p = {p:.6f})")
    assert 0 < p < 1
    for bad in [dict(beta2=1.0), dict(steps=0), dict(noise_std=-1.0), dict(signal=float("nan"))]:
        kw = dict(signal=0.1, noise_std=1.0, beta2=0.9, steps=5) | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            td.negative_probability(**kw)


def test_the_quadratic_examples_second_moment_is_the_gaussian_integral():
    # §4.1's closed form, as the ledger uses it, is what integrating one record's gradient against the Gaussian
    # density derives (E[g]² + Var[g]/B), term for term
    closed = td.quadratic_clean_second_moment()
    assert sp.srepr(td.quadratic_clean_second_moment_derived()) == sp.srepr(closed)
    assert sp.simplify(closed - td.h_q**2 * (td.off_q**2 + td.sx_q**2 / td.B)) == 0
