"""theory.noisy_adagrad: the exact lemmas as hypothesis properties (target + pinned examples) and the closed forms."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, target
from hypothesis import strategies as st

from theory import noisy_adagrad as tn
from verify.papers.noisy_adagrad import privacy, regret_lemmas

nonneg = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)
coord = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@given(st.lists(nonneg, min_size=1, max_size=80))
@example([1.0])
@example([0.0, 0.0, 1.0])
@example([1.0] * 80)
@example([1e6, 1e-300, 0.0, 5e-324])
def test_lemma16_property(a):
    slack, lhs, rhs = regret_lemmas.lemma16_slack(np.array(a))
    if rhs > 0:
        target(lhs / rhs, label="lemma16 ratio")
    assert slack >= -1.0


@given(st.integers(1, 4).flatmap(lambda p: st.lists(st.lists(coord, min_size=p, max_size=p), min_size=1, max_size=12)))
@example([[1.0]])
@example([[1.0, 0.0]] * 12)
@example([[1.0, 0.0], [0.0, 1e-3], [1.0, 1.0]])
def test_lemma13_property(rows):
    g = np.array(rows)
    lhs, rhs = tn.lemma13_sides(g)
    if rhs > 0:
        target(lhs / rhs, label="lemma13 ratio")
    assert rhs - lhs >= -regret_lemmas.lemma13_tolerance(g)


@given(st.floats(0.01, 100.0), st.floats(-0.999, 100.0), st.floats(0.1, 10.0))
@example(a=1.0, b_over_a=-0.5, u=1.0)  # the pinned counterexample (A = 1, B = −1/2, u = v = 1): ratio 2 > 4/3
def test_lemma12_in_one_dimension_fails_exactly_when_b_is_below_minus_a_over_4(a, b_over_a, u):
    """p = 1, v = u ∈ im(A): |⟨u, C⁻¹u⟩|/|⟨u, A⁻¹u⟩| = a/(a + b) > 4/3 ⇔ b < −a/4 — the lemma as stated fails."""
    b = b_over_a * a
    if abs(b) < 1e-9:
        return
    lhs, rhs = tn.lemma12_ratio(np.array([[a]]), np.array([[b]]), np.array([u]), np.array([u]))
    target(lhs / rhs, label="lemma12 lhs/rhs")
    fails = lhs > rhs * (1 + 1e-12)
    assert fails == (b_over_a < -0.25 - 1e-9) or abs(b_over_a + 0.25) < 1e-6


def test_lemma12_pin_and_a_general_u_counterexample():
    lhs, rhs = tn.lemma12_ratio(*(np.array(regret_lemmas.LEMMA12_PIN[x]) for x in "ABuv"))
    assert lhs == pytest.approx(2.0) and rhs == pytest.approx(4 / 3) and lhs > rhs
    # B positive definite, but u ⟂ A⁻¹v: the right side is 0 and the left is not
    A, B = np.eye(2), np.array([[2.0, 1.0], [1.0, 2.0]])
    lhs, rhs = tn.lemma12_ratio(A, B, np.array([0.0, 1.0]), np.array([1.0, 0.0]))
    assert rhs == 0.0 and lhs == pytest.approx(1 / 8)
    assert regret_lemmas.lemma12_valid(A, B) and regret_lemmas.lemma12_valid(np.array([[1.0]]), np.array([[-0.5]]))


@given(st.integers(0, 10**6))
def test_lemma12_holds_for_u_equal_v_and_psd_noise(seed):
    rng = np.random.default_rng(seed)
    A, B, u, v = regret_lemmas.lemma12_case(rng, int(rng.integers(1, 4)), "u_eq_v_B_psd")
    lhs, rhs = tn.lemma12_ratio(A, B, u, v)
    target(lhs / rhs if rhs > 0 else 0.0, label="lemma12 psd ratio")
    assert lhs <= rhs * 3 / 4 * (1 + 1e-6) + 1e-12  # in fact ≤ vᵀA⁺v


def test_lemma5_sqrt2_is_approached_and_never_exceeded():
    n, t = 100, 5
    a = np.zeros((t, 2))
    h = np.zeros((t, 2))
    a[:, 0] = 0.99
    h[:, 1] = 1.0 / n
    r = privacy.lemma5_gap(a, h) / (math.sqrt(t) / n)
    assert r > 1.40 and r <= math.sqrt(2) + 1e-12
    rng = np.random.default_rng(0)
    for _ in range(300):
        aa, hh = privacy._to_balls(rng.uniform(-1, 1, 2 * t * 3), t, 3, n)
        assert privacy.lemma5_gap(aa, hh) <= math.sqrt(2) * math.sqrt(t) / n * (1 + 1e-9)


def test_theorem51_closed_forms():
    L_, th, k_, d_, e_, n_ = 1.0, 2.0, 3, 1e-5, 1.0, 100
    T_ = (e_ * n_) ** 2
    sig = float(tn.theorem5_1_sigma().subs({tn.L: L_, tn.T: T_, tn.delta: d_, tn.epsilon: e_, tn.n: n_}))
    eta_ = tn.theorem5_1_eta().subs({tn.theta_norm: th, tn.T: T_, tn.L: L_, tn.k: k_, tn.sigma: sig})
    general = float(tn.theorem5_1_general_bound().subs({tn.theta_norm: th, tn.eta: eta_, tn.T: T_, tn.L: L_, tn.k: k_,
                                                        tn.sigma: sig}))
    final = float(tn.theorem5_1_bound().subs({tn.L: L_, tn.theta_norm: th, tn.k: k_, tn.delta: d_, tn.epsilon: e_,
                                              tn.n: n_}))
    assert general == pytest.approx(final, rel=1e-12)
    # η minimises the general bound
    e = sp.Symbol("e", positive=True)
    gb = tn.theorem5_1_general_bound().subs(tn.eta, e)
    assert sp.simplify(sp.diff(gb, e).subs(e, tn.theorem5_1_eta())) == 0


def test_theorem31_eta_balances_the_noiseless_terms_and_formula():
    eta_ = tn.theorem3_1_eta()
    assert sp.simplify(tn.C**2 / (2 * eta_) - sp.Rational(4, 3) * eta_) == 0
    b = tn.theorem3_1_bound().subs({tn.C: 2, tn.eta: eta_.subs(tn.C, 2), tn.T: 100, tn.trG: 10, tn.noise_sum: 0,
                                    tn.gamma: 0, tn.L: 1})
    assert float(b) == pytest.approx(2 * math.sqrt(2 * 4 / 3) * 10 / 100 / 1, rel=1e-12)
    assert tn.theorem3_1_bound(True) - tn.theorem3_1_bound() == tn.eta / (2 * tn.T) * tn.noise_sum / 3


def test_remark4_and_corollary6_exponents():
    assert tn.remark4_exponents() == (sp.Rational(3, 8), -sp.Rational(5, 8))
    assert tn.remark4_paper_sum_exponent() == sp.Rational(3, 8)  # the paper's √(Σ t^{-1/4})
    assert tn.trace_growth_exponent(sp.Rational(1, 4)) == sp.Rational(1, 4)  # √(Σ‖∇_t‖²) with ‖∇_t‖ = t^{-1/4}
    assert tn.corollary6_T().subs(tn.alpha, 0) == (tn.epsilon * tn.n) ** 2
    # the proof's last display at T = (εn)^{2/(1+2α)} is O(1/(εn))
    e = tn.corollary6_proof_bound().subs(tn.T, tn.corollary6_T()) * tn.epsilon * tn.n
    assert float(e.subs({tn.alpha: 0.3, tn.epsilon: 1, tn.n: 10**6})) == pytest.approx(1 + math.sqrt(2), rel=1e-9)


def test_privacy_forms_and_intrinsic_dimension():
    z = tn.theorem10_sigma().subs({tn.Delta: 1, tn.epsilon: 1, tn.delta: sp.Rational(1, 10**5)})
    assert float(z) == pytest.approx(math.sqrt(2 * math.log(1.25e5)))
    assert sp.simplify(tn.lemma5_proof_line() / tn.lemma5_statement() - sp.sqrt(tn.n)) == 0
    assert tn.goe_noise_multiplier().subs({tn.sigma: 1, tn.Delta: sp.sqrt(2)}) == 1
    assert tn.intrinsic_dimension(np.diag([1.0, 1.0, 0.0])) == pytest.approx(2.0)
    assert tn.intrinsic_dimension(np.diag([4.0, 1.0])) == pytest.approx(1.25)
    with pytest.raises(ValueError, match="a must"):
        tn.lemma16_sides([1.0, -1.0])
    with pytest.raises(ValueError, match="grads"):
        tn.lemma13_sides([1.0, 2.0])


def test_psd_sqrt_pinv_matches_an_svd_of_a_factor_on_a_rank_deficient_matrix():
    # independent computation: S = X Xᵀ with X = U diag(s) Vᵀ (SVD of the factor, not eigh of S), so
    # S^{1/2} = U diag(s) Uᵀ and (S^{1/2})⁺ = U diag(1/s) Uᵀ on the nonzero s; X has rank 3 < p = 5,
    # so S has two zero eigenvalues, which both outputs must drop
    rng = np.random.default_rng(7)
    X = rng.standard_normal((5, 3)) @ np.diag([3.0, 1.0, 0.2])
    S = X @ X.T
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    root_ref = (U * s) @ U.T
    pinv_ref = (U / s) @ U.T
    root, pinv = tn.psd_sqrt_pinv(S)
    assert np.allclose(root, root_ref, rtol=0, atol=1e-7 * s.max())
    assert np.allclose(pinv, pinv_ref, rtol=0, atol=1e-7 / s.min())
    assert np.allclose(pinv, np.linalg.pinv(root_ref, rcond=1e-8), rtol=0, atol=1e-7 / s.min())
    # the zero directions: both outputs annihilate the null space of S
    null = np.linalg.svd(X.T)[2][3:]  # rows spanning ker(Xᵀ) = ker(S)
    assert np.abs(root @ null.T).max() < 1e-7 and np.abs(pinv @ null.T).max() < 1e-7


def test_lemma13_sides_many_equals_lemma13_sides_exactly():
    # the stacked form must be the same arithmetic: full-rank, rank-deficient, zero-row and tiny-perturbation
    # sequences of several shapes, each compared bit-for-bit with the one-sequence function
    rng = np.random.default_rng(13)
    for T, p in ((1, 1), (5, 2), (10, 2), (20, 3), (12, 6)):
        g = rng.uniform(-1, 1, (6, T, p)) * 10.0 ** rng.uniform(-4, 4, (6, T, 1))
        g[1, :, -1] = 0.0  # rank deficient
        g[2, 0, :] = 0.0  # a zero first gradient
        g[3] = g[4] + 1e-13 * rng.standard_normal((T, p))  # near-equal neighbours, as a finite difference makes
        g[5] = rng.standard_normal((T, 1)) @ rng.standard_normal((1, p))  # rank one
        lhs, rhs = tn.lemma13_sides_many(g)
        for j in range(len(g)):
            one = tn.lemma13_sides(g[j])
            assert (lhs[j], rhs[j]) == one


def test_lemma13_sides_many_rejects_what_lemma13_sides_rejects():
    ok = np.ones((2, 3, 2))
    bad = ok.copy()
    bad[1, 0, 0] = 1e200  # G_T overflows float64 for the second sequence only
    with pytest.raises(ValueError, match="G_T"):
        tn.lemma13_sides_many(bad)
    with pytest.raises(ValueError, match="grads"):
        tn.lemma13_sides_many(np.ones((3, 2)))
    with pytest.raises(ValueError, match="rtol"):
        tn.lemma13_sides_many(ok, rtol=0.0)
