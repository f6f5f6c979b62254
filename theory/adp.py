r"""Closed forms of ``adp``: Wu et al., ADP-SGD — noise adapted to the stepsize (2021).

Conventions.  T iterations with stepsizes η/b_t and noise scales α_t (Algorithm 1:
θ_{t+1} = θ_t − (η/b_{t+1})(∇f + α_{t+1} c_t), c_t ~ N(0, σ²I)).  The utility bound (7)
depends on the schedules only through

    M({α}, {b}) = Σ_t (α_t/b_t)² · Σ_t 1/α_t²,

minimised over α at α_t² = b_t with value M_adp = (Σ_t 1/b_t)² (Remark 4.1, Cauchy–Schwarz);
DP-SGD (α ≡ 1) has M_dp = T·Σ_t 1/b_t².  Sequences are numeric (:func:`m_value`,
:func:`m_ratio`); the polynomial schedule b_t = √(a + ct) has closed-form integral brackets
(:func:`poly_sum_brackets`) and asymptotics in SymPy.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import dpvalidate as _v


def _array(name: str, x, ndim: int = 1) -> np.ndarray:
    """A finite float array of ``ndim`` dimensions, or ValueError naming the parameter (theory may not import kernels)."""  # noqa: E501
    return _v.finite_array(name, x, ndim)


def _positive(name: str, x) -> float:
    return _v.positive(name, x)

T = sp.Symbol("T", positive=True)
t = sp.Symbol("t", positive=True)
a = sp.Symbol("a", positive=True)
c = sp.Symbol("c", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
epsilon = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
G = sp.Symbol("G", positive=True)  # gradient-norm bound (Assumption 2.2)
S_inv_alpha2 = sp.Symbol("S_inv_alpha2", positive=True)  # Σ_t 1/α_t²


# --------------------------------------------------------------------------------------
# M and its ratio for any positive sequence (exact numerics)
# --------------------------------------------------------------------------------------
def _positive_sequence(name: str, x) -> np.ndarray:
    x = _array(name, x)
    if x.size == 0 or np.any(x <= 0):
        raise ValueError(f"{name} must be a non-empty sequence of positive numbers")
    return x


def _sum(x: np.ndarray, exact: bool) -> float:
    if _v.flag("exact", exact):
        try:
            return math.fsum(x.tolist())
        except OverflowError:  # an infinite term or partial sum: reported by the caller's finite_result
            return math.inf
    return float(np.sum(x))  # NumPy sums pairwise: relative error ~1e-16·log T


# Float overflow in these sums is not a warning but an error: finite_result raises ValueError naming the inputs.
_REPORTED_BY_FINITE_RESULT = dict(over="ignore", divide="ignore", invalid="ignore")


def m_value(alpha, b, exact: bool = False) -> float:
    """M({α},{b}) = Σ (α_t/b_t)² · Σ 1/α_t² (eq. (7)).

    Entries whose squares or reciprocals overflow float64 (say 1e-300) raise ValueError naming alpha, b.

    Parameters
    ----------
    alpha : array_like of float
        The noise scales α_1..α_T: a non-empty 1-d sequence of finite positive numbers.
    b : array_like of float
        The batch-size/stepsize schedule b_1..b_T: a non-empty 1-d sequence of finite positive numbers.
    exact : bool, optional
        False (default): NumPy's pairwise sums; True: correctly rounded sums (``math.fsum``), slower.

    Returns
    -------
    float
        M({α},{b}) ≥ 0.

    Raises
    ------
    ValueError
        When ``alpha`` and ``b`` differ in length, or (as :class:`dpvalidate.InvalidParameter`, a ValueError
        subclass, from the validation helpers) when either is not a non-empty sequence of finite positive
        numbers, ``exact`` is not a bool, or the result overflows float64.
    """
    alpha = _positive_sequence("alpha", alpha)
    b = _positive_sequence("b", b)
    if alpha.shape != b.shape:
        raise ValueError(f"alpha must have the same length as b ({b.size}); got {alpha.size}")
    with np.errstate(**_REPORTED_BY_FINITE_RESULT):
        value = _sum((alpha / b) ** 2, exact) * _sum(1.0 / alpha**2, exact)
    return _v.finite_result("alpha, b", value)


def m_adp(b, exact: bool = False) -> float:
    """M_adp = (Σ 1/b_t)², the minimum of M over α (eq. (8)).

    Parameters
    ----------
    b : array_like of float
        The batch-size/stepsize schedule b_1..b_T: a non-empty 1-d sequence of finite positive numbers.
    exact : bool, optional
        False (default): NumPy's pairwise sums; True: correctly rounded sums (``math.fsum``), slower.

    Returns
    -------
    float
        (Σ_t 1/b_t)²; invalid input or an overflowing result raises
        :class:`dpvalidate.InvalidParameter` (a ValueError).
    """
    b = _positive_sequence("b", b)
    with np.errstate(**_REPORTED_BY_FINITE_RESULT):
        s = _sum(1.0 / b, exact)
    return _v.finite_result("b", s * s)  # (s ** 2 would raise OverflowError)


def m_dp(b, exact: bool = False) -> float:
    """M_dp = T·Σ 1/b_t², M at α ≡ 1 (DP-SGD).

    Parameters
    ----------
    b : array_like of float
        The batch-size/stepsize schedule b_1..b_T: a non-empty 1-d sequence of finite positive numbers.
    exact : bool, optional
        False (default): NumPy's pairwise sums; True: correctly rounded sums (``math.fsum``), slower.

    Returns
    -------
    float
        T·Σ_t 1/b_t² with T = ``len(b)``; invalid input or an overflowing result raises
        :class:`dpvalidate.InvalidParameter` (a ValueError).
    """
    b = _positive_sequence("b", b)
    with np.errstate(**_REPORTED_BY_FINITE_RESULT):
        value = b.size * _sum(1.0 / b**2, exact)
    return _v.finite_result("b", value)


def m_ratio(b, exact: bool = False) -> float:
    """M_dp/M_adp = T·Σ1/b_t² / (Σ1/b_t)² for any positive sequence b (≥ 1 by Cauchy–Schwarz).

    Vectorised sums; for T = 10⁷ this takes well under a second.  ``exact=True`` uses
    correctly rounded sums (math.fsum), slower.  Scale-free: m_ratio(k·b) = m_ratio(b).

    Parameters
    ----------
    b : array_like of float
        The batch-size/stepsize schedule b_1..b_T: a non-empty 1-d sequence of finite positive numbers.
    exact : bool, optional
        False (default): NumPy's pairwise sums; True: correctly rounded sums (``math.fsum``), slower.

    Returns
    -------
    float
        M_dp/M_adp ≥ 1 (up to rounding); invalid input or an overflowing result raises
        :class:`dpvalidate.InvalidParameter` (a ValueError).
    """
    b = _positive_sequence("b", b)
    with np.errstate(**_REPORTED_BY_FINITE_RESULT):
        inv = 1.0 / b
        s = _sum(inv, exact)
        value = b.size * _sum(inv * inv, exact) / (s * s)
    return _v.finite_result("b", value)


def polynomial_schedule(T_steps: int, a_: float, c_: float) -> np.ndarray:
    """b_t = √(a + c t), t = 1..T (Proposition 5.1).  T ≤ 10⁸ (the array it builds); a + cT finite.

    Parameters
    ----------
    T_steps : int
        Number of steps T, an integer in [1, 10⁸] (``dpvalidate.MAX_LENGTH``).
    a_ : float
        The offset a > 0 (finite).
    c_ : float
        The slope c > 0 (finite).

    Returns
    -------
    numpy.ndarray
        Shape (T,) float64 array of √(a + c·t) for t = 1..T; invalid parameters or an overflowing
        schedule raise :class:`dpvalidate.InvalidParameter` (a ValueError).
    """
    T_steps = _v.integer("T_steps", T_steps, 1, _v.MAX_LENGTH)
    a_ = _positive("a_", a_)
    c_ = _positive("c_", c_)
    return _v.finite_result("a_, c_", np.sqrt(a_ + c_ * np.arange(1, T_steps + 1, dtype=np.float64)))


# --------------------------------------------------------------------------------------
# The polynomial schedule in closed form: integral brackets and asymptotics
# --------------------------------------------------------------------------------------
def poly_sums_integrals() -> tuple[sp.Expr, sp.Expr]:
    r"""∫_1^T dt/(a+ct) and ∫_1^T dt/√(a+ct) (exact), the integrals behind Σ 1/b_t² and Σ 1/b_t.

    Returns
    -------
    int_inv_b2 : sympy.Expr
        ∫_1^T dt/(a + ct) (simplified), in ``T, a, c``.
    int_inv_b : sympy.Expr
        ∫_1^T dt/√(a + ct) (simplified), in ``T, a, c``.
    """
    f2 = 1 / (a + c * t)
    f1 = 1 / sp.sqrt(a + c * t)
    return sp.simplify(sp.integrate(f2, (t, 1, T))), sp.simplify(sp.integrate(f1, (t, 1, T)))


def poly_sum_brackets() -> dict[str, tuple[sp.Expr, sp.Expr]]:
    r"""Exact brackets of the two sums for b_t = √(a+ct) (the sum-vs-integral error made explicit).

    For a decreasing f ≥ 0: ∫_1^{T} f + f(T) ≤ Σ_{t=1}^T f(t) ≤ f(1) + ∫_1^T f.  Returns
    {"inv_b2": (lower, upper), "inv_b": (lower, upper)}.

    Returns
    -------
    dict of str to tuple of sympy.Expr
        ``{"inv_b2": (lower, upper), "inv_b": (lower, upper)}``: bounds on Σ_t 1/b_t² and Σ_t 1/b_t,
        each ``sympy.Expr`` in ``T, a, c`` (integral plus f(T) below, plus f(1) above).
    """
    i2, i1 = poly_sums_integrals()
    f2 = lambda x: 1 / (a + c * x)  # noqa: E731
    f1 = lambda x: 1 / sp.sqrt(a + c * x)  # noqa: E731
    return {"inv_b2": (i2 + f2(T), i2 + f2(1)), "inv_b": (i1 + f1(T), i1 + f1(1))}


def poly_ratio_brackets() -> tuple[sp.Expr, sp.Expr]:
    """Lower and upper bounds on M_dp/M_adp for b_t = √(a+ct) from :func:`poly_sum_brackets` (exact inequalities).

    Returns
    -------
    lower : sympy.Expr
        T·(lower bracket of Σ 1/b_t²)/(upper bracket of Σ 1/b_t)², in ``T, a, c``.
    upper : sympy.Expr
        T·(upper bracket of Σ 1/b_t²)/(lower bracket of Σ 1/b_t)², in ``T, a, c``.
    """
    br = poly_sum_brackets()
    lo2, hi2 = br["inv_b2"]
    lo1, hi1 = br["inv_b"]
    return T * lo2 / hi1**2, T * hi2 / lo1**2


def poly_ratio_asymptotic() -> sp.Expr:
    r"""Leading behaviour of M_dp/M_adp for b_t = √(a+ct): log(cT/a)... → (1/4)·log T as T → ∞.

    From the integrals: T·(1/c)log((a+cT)/(a+c)) / ((2/c)(√(a+cT) − √(a+c)))² ~ (1/4) log T.

    Returns
    -------
    sympy.Expr
        log(T)/4, the leading term as T → ∞ (asymptotic, not a bound).
    """
    return sp.log(T) / 4


def proposition5_1_privacy_ratio() -> sp.Expr:
    r"""Ratio of the privacy terms of (10) (DP-SGD) and (9) (ADP-SGD) in Proposition 5.1: 2·log(1 + Tc/a) (exact, as stated).

    Returns
    -------
    sympy.Expr
        2·log(1 + T·c/a) in ``T, a, c`` (SymPy simplifies it to log((T·c + a)²/a²)).
    """  # noqa: E501
    adp = sp.sqrt(T) / (2 * sp.sqrt(c))
    dp = sp.sqrt(T) * sp.log(1 + T * c / a) / sp.sqrt(c)
    return sp.simplify(dp / adp)


# --------------------------------------------------------------------------------------
# Privacy: Theorem 4.1's calibration and Lemma 2.2
# --------------------------------------------------------------------------------------
def b_delta() -> sp.Expr:
    """B_δ = log(16T/(nδ))·log(1.25/δ) (Theorem 4.1, as stated).

    Returns
    -------
    sympy.Expr
        log(16T/(nδ))·log(5/(4δ)) in ``T, n, delta``.
    """
    return sp.log(16 * T / (n * delta)) * sp.log(sp.Rational(5, 4) / delta)


def theorem4_1_variance() -> sp.Expr:
    """σ² = (16G)²·B_δ/(n²ε²)·Σ_t 1/α_t² (Theorem 4.1, eq. (6); a sufficient calibration, to be checked).

    Returns
    -------
    sympy.Expr
        (16G)²·B_δ·S_inv_alpha2/(n²ε²) in ``G, T, n, delta, epsilon, S_inv_alpha2``
        (S_inv_alpha2 = Σ_t 1/α_t², B_δ from :func:`b_delta`).
    """
    return (16 * G) ** 2 * b_delta() / (n**2 * epsilon**2) * S_inv_alpha2


def extended_advanced_composition(eps, deltas, delta_prime: float) -> tuple[float, float]:
    r"""Lemma 2.2 (as stated): ε̃ = √(2 log(1/δ')·Σε_i²) + Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1), δ̃ = 1 − Π(1 − δ_i) + δ'.

    The lemma requires ε_i, δ_i ∈ (0, 1) and δ' ∈ (0, 1).

    Parameters
    ----------
    eps : array_like of float
        The per-step ε_1..ε_k, a 1-d sequence of finite numbers, each in (0, 1).
    deltas : array_like of float
        The per-step δ_1..δ_k, a 1-d sequence of the same length as ``eps``, each in (0, 1).
    delta_prime : float
        The slack δ' in (0, 1).

    Returns
    -------
    eps_total : float
        ε̃ = √(2 log(1/δ')·Σε_i²) + Σ ε_i(e^{ε_i} − 1)/(e^{ε_i} + 1) (correctly rounded sums).
    delta_total : float
        δ̃ = 1 − Π(1 − δ_i) + δ'.

    Raises
    ------
    ValueError
        When ``deltas`` and ``eps`` differ in length, or an entry of ``eps``, ``deltas`` or ``delta_prime``
        lies outside (0, 1); non-finite or non-numeric input raises :class:`dpvalidate.InvalidParameter`
        (a ValueError subclass) from the validation helpers.
    """
    eps = _array("eps", eps)
    deltas = _array("deltas", deltas)
    if deltas.shape != eps.shape:
        raise ValueError(f"deltas must have the same length as eps ({eps.size})")
    if np.any((eps <= 0) | (eps >= 1)):
        raise ValueError("eps entries must lie in (0, 1) (Lemma 2.2's hypothesis)")
    if np.any((deltas <= 0) | (deltas >= 1)):
        raise ValueError("deltas entries must lie in (0, 1)")
    delta_prime = _v.real("delta_prime", delta_prime)
    if not 0 < delta_prime < 1:
        raise ValueError(f"delta_prime must lie in (0, 1) (got {delta_prime!r})")
    e_tilde = math.sqrt(2.0 * math.log(1.0 / delta_prime) * math.fsum((eps**2).tolist())) + math.fsum(
        (eps * np.expm1(eps) / (np.exp(eps) + 1.0)).tolist())
    d_tilde = -math.expm1(math.fsum(np.log1p(-deltas).tolist())) + delta_prime
    return e_tilde, d_tilde


# --------------------------------------------------------------------------------------
# Proposition 5.2 (adaptive stepsizes): the stated privacy terms (11), (12)
# --------------------------------------------------------------------------------------
nu = sp.Symbol("nu", positive=True)
b0 = sp.Symbol("b0", positive=True)
eta = sp.Symbol("eta", positive=True)
L = sp.Symbol("L", positive=True)
d = sp.Symbol("d", positive=True, integer=True)


def proposition5_2_terms() -> tuple[sp.Expr, sp.Expr]:
    """Privacy terms of (11) (ADP-SGD, α_t = (b_0² + tC)^{1/4}) and (12) (DP-SGD), as stated.

    Returns
    -------
    adp : sympy.Expr
        128·G³ηdL·B_δ·√T/(n²ε²ν), the privacy term of (11).
    dp : sympy.Expr
        32·G³ηdL·B_δ·√T·log(1 + Tν/b_0²)/(n²ε²ν), the privacy term of (12).

    Both are in ``G, eta, d, L, T, n, delta, epsilon, nu`` (and ``b0`` for ``dp``).
    """
    adp = 128 * G**3 * eta * d * L * b_delta() * sp.sqrt(T) / (n**2 * epsilon**2 * nu)
    dp = 32 * G**3 * eta * d * L * b_delta() * sp.sqrt(T) * sp.log(1 + T * nu / b0**2) / (n**2 * epsilon**2 * nu)
    return adp, dp


def proposition5_2_ratio() -> sp.Expr:
    """(12)/(11) = ¼·log(1 + Tν/b_0²) (exact): DP-SGD's privacy term over ADP-SGD's.

    Returns
    -------
    sympy.Expr
        log(1 + T·ν/b_0²)/4 in ``T, nu, b0``.
    """
    adp, dp = proposition5_2_terms()
    return sp.cancel(dp / adp)


def proposition5_2_break_even() -> sp.Expr:
    """The T at which (12) = (11): (e⁴ − 1)·b_0²/ν; for smaller T the stated ADP bound is the larger one.

    Returns
    -------
    sympy.Expr
        (e⁴ − 1)·b_0²/ν in ``b0, nu``.

    Raises
    ------
    ValueError
        When the ratio equals 1 at no positive T or at several (not for the stated ratio).
    """
    # solveset over T > 0 (not solve: it finds no root when T enters with a fractional power)
    sol = sp.solveset(sp.Eq(proposition5_2_ratio(), 1), T, sp.Interval.open(0, sp.oo))
    if not isinstance(sol, sp.FiniteSet) or len(sol) != 1:
        raise ValueError(f"(12)/(11) = 1 has no unique positive root T (solutions: {sol})")
    return next(iter(sol))  # as solveset gives it (simplify would take a fractional power of a negative factor)


# --------------------------------------------------------------------------------------
# Lemma 2.1 (the Gaussian mechanism) and the utility bound (7) of Theorem 4.2
# --------------------------------------------------------------------------------------
Delta = sp.Symbol("Delta", positive=True)  # ℓ2 sensitivity of h
sigma = sp.Symbol("sigma", positive=True)  # the noise's standard deviation


def lemma2_1_epsilon() -> sp.Expr:
    """Lemma 2.1, as stated: h(D) + N(0, σ²I) is (√(2 log(1.25/δ))·Δ/σ, δ)-DP.

    As stated for every ε, δ > 0 (the lemma states no other hypothesis; the Dwork–Roth theorem it cites also
    needs ε < 1).

    Returns
    -------
    sympy.Expr
        √(2·log(5/(4δ)))·Δ/σ in ``delta, Delta, sigma``.
    """
    return sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) * Delta / sigma


def lemma2_1_epsilon_range() -> float:
    """The largest ε for which Lemma 2.1 claims its calibration: ∞ as stated ("ε, δ > 0").

    Returns
    -------
    float
        ``math.inf``.
    """
    return math.inf


def theorem4_2_bound(b, alpha, expected_grad_sq, D_F: float, eta_: float, L_: float, d_: int, sigma2: float) -> float:
    """The right-hand side of Theorem 4.2's utility bound (7) as printed, with σ² of (6) passed in.

    The bound::

        (1/Σ_t 1/b_{t+1}) · ( D_F/η + (ηL/2)·Σ_t E‖∇f(θ_t, ξ_t)‖²/b_{t+1}² + d(16G)²B_δ/(2n²ε²)·M({α}, {b}) ),

    where d(16G)²B_δ/(n²ε²)·M = d·σ²·Σ_t(α_t/b_t)² (σ² = (16G)²B_δ Σ1/α_t²/(n²ε²)).  ``b``, ``alpha``: b_1..b_T,
    α_1..α_T; ``expected_grad_sq``: E‖∇f(θ_t, ξ_t)‖² for t = 0..T−1.  The printed third term has no factor ηL,
    which (9) and (10) carry.

    Parameters
    ----------
    b : array_like of float
        b_1..b_T, a non-empty 1-d sequence of finite positive numbers.
    alpha : array_like of float
        α_1..α_T, positive, of the same length as ``b``.
    expected_grad_sq : array_like of float
        E‖∇f(θ_t, ξ_t)‖² for t = 0..T−1, finite, of the same length as ``b``.
    D_F : float
        The initial gap D_F = F(θ_0) − F*: 0 (the first term dropped) or a finite positive number.
    eta_ : float
        The base stepsize η > 0.
    L_ : float
        The smoothness constant L > 0.
    d_ : int
        The dimension d (used as given, not validated).
    sigma2 : float
        The noise variance σ² of (6), > 0 (e.g. :func:`theorem4_1_variance` evaluated).

    Returns
    -------
    float
        The value of the right-hand side of (7).

    Raises
    ------
    ValueError
        When ``b``, ``alpha`` and ``expected_grad_sq`` differ in length; invalid entries or parameters
        raise :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    b = _positive_sequence("b", b)
    al = _positive_sequence("alpha", alpha)
    g2 = _array("expected_grad_sq", expected_grad_sq)
    if not (al.size == b.size == g2.size):
        raise ValueError(f"b, alpha and expected_grad_sq must have one length (got {b.size}, {al.size}, {g2.size})")
    inv_b = float(np.sum(1.0 / b))
    first = _positive("D_F", D_F) if D_F else 0.0
    eta_, L_, sigma2 = _positive("eta_", eta_), _positive("L_", L_), _positive("sigma2", sigma2)
    total = first / eta_ + 0.5 * eta_ * L_ * float(np.sum(g2 / b**2)) + 0.5 * d_ * sigma2 * float(np.sum((al / b) ** 2))
    return total / inv_b


# --------------------------------------------------------------------------------------
# Proposition 5.1's privacy terms (9), (10) against (7)
# --------------------------------------------------------------------------------------
def proposition5_1_privacy_terms() -> tuple[sp.Expr, sp.Expr]:
    """The privacy terms of (9) (ADP-SGD) and (10) (DP-SGD) of Proposition 5.1, as stated.

    In units of K = d(16G)²B_δ/(2n²ε²): ηL√T/√c and 2ηL√T·log(1 + Tc/a)/√c.

    Returns
    -------
    adp : sympy.Expr
        η·L·√T/√c, the privacy term of (9), in ``eta, L, T, c``.
    dp : sympy.Expr
        2·η·L·√T·log(1 + T·c/a)/√c, the privacy term of (10), in ``eta, L, T, c, a``.
    """
    return eta * L * sp.sqrt(T) / sp.sqrt(c), 2 * eta * L * sp.sqrt(T) * sp.log(1 + T * c / a) / sp.sqrt(c)


def eq7_privacy_term(alpha, b) -> float:
    """The privacy term of (7) as printed, in units of K = d(16G)²B_δ/(2n²ε²): M({α}, {b})/Σ_t 1/b_t (exact sums).

    Parameters
    ----------
    alpha : array_like of float
        α_1..α_T, a non-empty 1-d sequence of finite positive numbers.
    b : array_like of float
        b_1..b_T, positive, of the same length as ``alpha``.

    Returns
    -------
    float
        M({α}, {b})/Σ_t 1/b_t, from :func:`m_value` with ``exact=True``; invalid input raises ValueError
        (:class:`dpvalidate.InvalidParameter` or a length mismatch from :func:`m_value`).
    """
    b = _positive_sequence("b", b)
    return m_value(alpha, b, exact=True) / math.fsum((1.0 / b).tolist())
