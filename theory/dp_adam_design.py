r"""Closed forms of ``dp_adam_design``: Ganesh, McMahan, Thakurta — *On Design Principles for Private
Adaptive Optimizers* (2025).

The extraction lost every formula of the paper, so each closed form here is *derived* in SymPy inside
its function from the setting the surviving text describes (docs/catalogue.md):

* per round t the clipped average ḡ_t, noise z_t ~ N(0, s²) per coordinate with s = σC/B (independent),
  or z̃_t = Σ_k (C⁻¹)_{tk} z_k (DP-MF, row norms r_t = ‖row_t(C⁻¹)‖²);
* Adam's second moment v_t = β₂ v_{t−1} + (1 − β₂) x_t, v̂_t = v_t/(1 − β₂^t).

Every function says whether its expression is exact, a bound, or an approximation, and cites the
paper's section / equation.  :func:`negative_probability` is the one numeric routine: the exact law of
a bias-corrected v̂ (a weighted sum of non-central χ²₁ variables) inverted by Imhof's formula.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

import dpvalidate as _v

beta2 = sp.Symbol("beta2", positive=True)
t = sp.Symbol("t", positive=True, integer=True)
k = sp.Symbol("k", positive=True, integer=True)
sigma = sp.Symbol("sigma", positive=True)
C = sp.Symbol("C", positive=True)
B = sp.Symbol("B", positive=True, integer=True)
d = sp.Symbol("d", positive=True)
s = sp.Symbol("s", positive=True)  # per-coordinate noise std σC/B (in gradient units)
g = sp.Symbol("g", real=True)  # a coordinate of the (constant) clipped average
tau = sp.Symbol("tau", positive=True)  # std of the noise on a squared coordinate (IME)
delta = sp.Symbol("delta", real=True)  # multiplicative error of v relative to the steady state
r = sp.IndexedBase("r", positive=True)  # ‖row_k(C⁻¹)‖², DP-MF


def _t_infinity(expr: sp.Expr) -> sp.Expr:
    """lim_{t→∞} for 0 < β₂ < 1 (SymPy needs the sign of log β₂: write β₂ = 1/(1 + ρ), ρ > 0)."""
    rho = sp.Symbol("rho", positive=True)
    lim = sp.limit(expr.subs(beta2, 1 / (1 + rho)), t, sp.oo)
    return sp.simplify(lim.subs(rho, 1 / beta2 - 1))


def noise_std() -> sp.Expr:
    """s = σC/B: the per-coordinate noise std of DP-SGD on the clipped average (docs/catalogue.md; exact).

    Returns
    -------
    sympy.Expr
        σ·C/B in ``sigma, C, B``.
    """
    return sigma * C / B


def _geometric(expr) -> sp.Expr:
    """Σ_{k=1}^t expr, keeping SymPy's generic branch (β₂ ≠ 1, which every use assumes: 0 < β₂ < 1)."""
    out = sp.simplify(sp.piecewise_fold(sp.summation(expr, (k, 1, t))))
    if isinstance(out, sp.Piecewise):
        out = next(e for e, c in out.args if c == sp.true)
    return sp.simplify(out)


# ======================================================================================
# §3.1 post-processing bias
# ======================================================================================
@lru_cache(maxsize=None)
def postprocessing_bias() -> sp.Expr:
    r"""§3.1 (exact): E[v_t] − v_t^clean = (1 − β₂^t)s² per coordinate, independent noise.

    Derivation: E[(ḡ_k + z_k)²] = ḡ_k² + s² (z mean zero, independent of ḡ_k), and v_t is the
    linear combination Σ_k (1 − β₂)β₂^{t−k} x_k, so the excess is s²·Σ_k (1 − β₂)β₂^{t−k}.

    Returns
    -------
    sympy.Expr
        (1 − β₂^t)·s² (factored) in ``beta2, t, s``.
    """
    return sp.factor(_geometric((1 - beta2) * beta2 ** (t - k) * s**2))


@lru_cache(maxsize=None)
def postprocessing_bias_normalized() -> sp.Expr:
    """§3.1 (exact): the bias of v̂_t = v_t/(1 − β₂^t) is s² = (σC/B)², for every t.

    Returns
    -------
    sympy.Expr
        s² (the symbol ``s``; substitute s = σC/B).
    """
    return sp.simplify(postprocessing_bias() / (1 - beta2**t))


def postprocessing_bias_dpmf() -> sp.Expr:
    r"""App. A (exact): post-processing bias of E[v_t] under DP-MF noise, as an unevaluated sum.

    App. A (exact): with DP-MF noise the excess of E[v_t] is Σ_k (1 − β₂)β₂^{t−k} s² r_k,
    r_k = ‖row_k(C⁻¹)‖² (Var z̃_k = s² r_k).  Unevaluated sum over the IndexedBase ``r``.

    Returns
    -------
    sympy.Sum
        The unevaluated ``sympy.Sum`` of (1 − β₂)β₂^{t−k}·s²·r[k] over k = 1..t, in ``beta2, t, s``
        and the IndexedBase ``r``.
    """
    return sp.Sum((1 - beta2) * beta2 ** (t - k) * s**2 * r[k], (k, 1, t))


def postprocessing_bias_dpmf_recursion() -> tuple[sp.Expr, sp.Symbol]:
    """App. A (exact): b_t = β₂ b_{t−1} + (1 − β₂)s² r_t (returned with the symbol b_{t−1}).

    Returns
    -------
    step : sympy.Expr
        β₂·b_prev + (1 − β₂)·s²·r[t], the bias at round t.
    b_prev : sympy.Symbol
        The symbol standing for the previous round's bias b_{t−1}.
    """
    bprev = sp.Symbol("b_prev", nonnegative=True)
    return beta2 * bprev + (1 - beta2) * s**2 * r[t], bprev


def dpmf_bias_numeric(row_norms2: np.ndarray, beta2_value: float, s_value: float) -> np.ndarray:
    """Numeric App.-A bias of v_t for t = 1..T from the recursion (same as the sum).

    ``row_norms2`` finite and >= 0 (1-d), ``beta2_value`` in [0, 1), ``s_value`` finite; a result that
    overflows float64 raises ValueError naming ``s_value``.

    Parameters
    ----------
    row_norms2 : array_like of float
        r_1..r_T = ‖row_k(C⁻¹)‖², a 1-d sequence of finite numbers >= 0.
    beta2_value : float
        Adam's second-moment decay β₂ in [0, 1).
    s_value : float
        The per-coordinate noise std s (finite).

    Returns
    -------
    numpy.ndarray
        Shape (T,) float64 array of the bias b_t of v_t for t = 1..T (b_0 = 0).

    Raises
    ------
    ValueError
        When an entry of ``row_norms2`` is negative or ``beta2_value`` is outside [0, 1); non-finite or
        wrongly shaped input, or a result that overflows float64, raises :class:`dpvalidate.InvalidParameter`
        (a ValueError subclass) from the validation helpers.
    """
    row_norms2 = _v.finite_array("row_norms2", row_norms2, 1)
    if np.any(row_norms2 < 0):
        raise ValueError("row_norms2 must be squared norms: entries >= 0")
    beta2_value = _v.real("beta2_value", beta2_value)
    if not 0 <= beta2_value < 1:
        raise ValueError(f"beta2_value must be in [0, 1) (got {beta2_value!r})")
    s_value = _v.finite("s_value", s_value)
    out = np.empty(row_norms2.size)
    b = 0.0
    for i, rk in enumerate(row_norms2):
        b = beta2_value * b + (1 - beta2_value) * s_value * s_value * rk
        out[i] = b
    return _v.finite_result("s_value, row_norms2", out)


# ======================================================================================
# §3.2 independent moment estimation: sensitivity and noise split
# ======================================================================================
def ime_sensitivity_first() -> sp.Expr:
    """§3.2 (exact, zero-out adjacency): sensitivity of ḡ is C/B.

    Returns
    -------
    sympy.Expr
        C/B in ``C, B``.
    """
    return C / B


@lru_cache(maxsize=None)
def ime_sensitivity_squares() -> sp.Expr:
    r"""§3.2 (upper bound, attained): zero-out sensitivity of ḡ⊙ḡ is (2B − 1)C²/B².

    Derivation: removing record j changes ḡ by a = c_j/B; ḡ⊙ḡ − ḡ'⊙ḡ' = a⊙(2ḡ − a) with
    2ḡ − a = (2/B)Σ_{i≠j} c_i + c_j/B, so ‖·‖ ≤ ‖a‖·‖2ḡ − a‖ (‖x⊙y‖₂ ≤ ‖x‖₂‖y‖₂) ≤
    (C/B)·(2(B − 1) + 1)C/B.  Equality needs every c_i equal to c_j with ‖c‖ = C *and*
    ‖c⊙c‖ = ‖c‖², i.e. c 1-sparse (always in one dimension).

    Returns
    -------
    sympy.Expr
        (2B − 1)·C²/B² (factored) in ``B, C``.
    """
    a_norm = C / B
    b_norm = (2 * (B - 1) + 1) * C / B
    return sp.factor(a_norm * b_norm)


@lru_cache(maxsize=None)
def ime_noise_multipliers() -> tuple[sp.Expr, sp.Expr]:
    r"""§3.2 (exact): the equal split σ₁ = σ₂ of one Gaussian mechanism's multiplier σ.

    Gaussian composition: two mechanisms with multipliers σ₁, σ₂ are together a Gaussian mechanism
    with 1/σ² = 1/σ₁² + 1/σ₂²; solving with σ₁ = σ₂ gives √2·σ each.

    Returns
    -------
    sigma1 : sympy.Expr
        √2·σ, the multiplier of the first-moment mechanism.
    sigma2 : sympy.Expr
        √2·σ, the multiplier of the second-moment mechanism (equal split).
    """
    x = sp.Symbol("x", positive=True)
    sol = sp.solve(sp.Eq(1 / sigma**2, 2 / x**2), x)
    return sol[0], sol[0]


def ime_noise_stds() -> tuple[sp.Expr, sp.Expr]:
    """§3.2 (exact): noise stds of the two parts, √2σ·C/B and √2σ·(2B − 1)C²/B².

    Returns
    -------
    std_first : sympy.Expr
        √2·σ·C/B, the noise std on ḡ, in ``sigma, C, B``.
    std_squares : sympy.Expr
        √2·σ·(2B − 1)·C²/B², the noise std on ḡ⊙ḡ, in ``sigma, C, B``.
    """
    s1, s2 = ime_noise_multipliers()
    return s1 * ime_sensitivity_first(), s2 * ime_sensitivity_squares()


# ======================================================================================
# §4.3.1 / App. B scale-then-privatize
# ======================================================================================
def stp_expected_v() -> sp.Expr:
    r"""App. B eq. (5) (exact in the idealised setting): scale-then-privatize's E[v_t | past].

    App. B eq. (5) (exact in the idealised setting): E[v_t | past] = α v_{t−1} + (1 − β₂)g²,
    α = β₂ + (1 − β₂)s².

    Setting (reconstructed): constant clean average g per coordinate, ξ = 0, t large (v̂ ≈ v), and the
    scaled clipping inactive.  Then g̃ = (s_t g + z)/s_t = g + √v_{t−1}·z with z ~ N(0, s²) (s in the
    scaled geometry) and E g̃² = g² + s² v_{t−1}.

    Returns
    -------
    sympy.Expr
        β₂·v_prev + (1 − β₂)(g² + s²·v_prev) (expanded) in ``beta2, g, s, v_prev``.
    """
    v_prev = sp.Symbol("v_prev", positive=True)
    return sp.expand(beta2 * v_prev + (1 - beta2) * (g**2 + s**2 * v_prev))


@lru_cache(maxsize=None)
def stp_contraction() -> sp.Expr:
    """App. B (exact in the same setting): scale-then-privatize's per-round contraction factor α.

    App. B (exact in the same setting): α = β₂ + (1 − β₂)s², the factor by which the multiplicative
    error of v contracts in expectation per round; α < 1 iff s = σC/B < 1.

    Returns
    -------
    sympy.Expr
        β₂ + (1 − β₂)·s² (factored) in ``beta2, s``.
    """
    v_prev = sp.Symbol("v_prev", positive=True)
    return sp.factor(sp.diff(stp_expected_v(), v_prev))


@lru_cache(maxsize=None)
def stp_steady_state() -> sp.Expr:
    r"""§4.3.1 / App. B (exact in the same setting): the fixed point v*/g² = κ = 1/(1 − s²).

    §4.3.1 / App. B (exact in the same setting): the fixed point v* = κg², κ = 1/(1 − s²) (s < 1),
    proportional to the clean second moment g².

    Returns
    -------
    sympy.Expr
        κ = 1/(1 − s²) in ``s`` (v* divided by g²).
    """
    v_prev = sp.Symbol("v_prev", positive=True)
    sol = sp.solve(sp.Eq(stp_expected_v(), v_prev), v_prev)
    return sp.simplify(sol[0] / g**2)


@lru_cache(maxsize=None)
def stp_error_after_one_round() -> sp.Expr:
    """App. B (exact in the same setting): v_{t−1} = (1 + δ)κg² ⇒ E v_t/(κg²) − 1 = αδ.

    Returns
    -------
    sympy.Expr
        α·δ = (β₂ + (1 − β₂)s²)·δ in ``beta2, s, delta``.
    """
    v_prev = sp.Symbol("v_prev", positive=True)
    kappa = stp_steady_state()
    ev = stp_expected_v().subs(v_prev, (1 + delta) * kappa * g**2)
    return sp.simplify(ev / (kappa * g**2) - 1)


def stp_update_noise_bound() -> sp.Expr:
    r"""§4.5 (exact upper bound): scale-then-privatize's per-update noise variance multiplier.

    §4.5 (exact upper bound, β₁ = 0, ξ = 0): the per-update noise of scale-then-privatize on coordinate j
    is z_j·√v̂_{t−1,j}/√v̂_{t,j}, and v_t ≥ β₂v_{t−1} gives v̂_{t−1}/v̂_t ≤ (1 − β₂^t)/(β₂(1 − β₂^{t−1})):
    the variance multiplier of every coordinate is at most this (→ 1/β₂), whatever the gradients.

    Returns
    -------
    sympy.Expr
        (1 − β₂^t)/(β₂·(1 − β₂^{t−1})) in ``beta2, t``.
    """
    return (1 - beta2**t) / (beta2 * (1 - beta2 ** (t - 1)))


# ======================================================================================
# §4.4.1 / App. C: variance of the bias-corrected v̂ and the dimension thresholds
# ======================================================================================
@lru_cache(maxsize=None)
def vhat_variance_factor() -> sp.Expr:
    r"""App. C (exact): K(β₂, t) = Σ_k ((1 − β₂)β₂^{t−k})²/(1 − β₂^t)² = (1 − β₂)(1 + β₂^t)/((1 + β₂)(1 − β₂^t)).

    K = 1 at t = 1, decreases in t, and K → (1 − β₂)/(1 + β₂) (≈ 1/2000 at β₂ = 0.999).

    Returns
    -------
    sympy.Expr
        K(β₂, t) = (1 − β₂)(1 + β₂^t)/((1 + β₂)(1 − β₂^t)) in ``beta2, t``.
    """
    raw = _geometric(((1 - beta2) * beta2 ** (t - k)) ** 2) / (1 - beta2**t) ** 2
    target = (1 - beta2) * (1 + beta2**t) / ((1 + beta2) * (1 - beta2**t))
    assert sp.simplify(raw - target) == 0
    return target


@lru_cache(maxsize=None)
def vhat_variance() -> sp.Expr:
    r"""App. C (exact): Var(v̂_t) = K(β₂, t)·(4g²s² + 2s⁴) for bias correction with a constant signal g.

    App. C (exact): Var(v̂_t) for bias correction with a constant signal g: K(β₂,t)·(4g²s² + 2s⁴)
    (Var (g + z)² = 4g²s² + 2s⁴ for z ~ N(0, s²)).

    Returns
    -------
    sympy.Expr
        K(β₂, t)·(4g²s² + 2s⁴) in ``beta2, t, g, s``.
    """
    from sympy.stats import E, Normal

    Z = Normal("Z", 0, s)
    var_term = sp.simplify(E((g + Z) ** 4) - E((g + Z) ** 2) ** 2)
    return vhat_variance_factor() * sp.expand(var_term)


@lru_cache(maxsize=None)
def vhat_variance_lower() -> sp.Expr:
    """§4.4.1 / App. C (lower bound): Var(v̂_t) ≥ 2s⁴(1 − β₂)/(1 + β₂) (drop 4g²s², t → ∞).

    Returns
    -------
    sympy.Expr
        2s⁴(1 − β₂)/(1 + β₂) in ``s, beta2``.
    """
    return _t_infinity(vhat_variance_factor()) * 2 * s**4


def vhat_variance_ime() -> sp.Expr:
    """§4.4.1 aside (exact): IME v̂ with a constant signal has variance K(β₂, t)·τ² (linear noise).

    Returns
    -------
    sympy.Expr
        K(β₂, t)·τ² in ``beta2, t, tau``.
    """
    return vhat_variance_factor() * tau**2


def _threshold(var: sp.Expr, mean_times_d: sp.Expr) -> sp.Expr:
    """Solve std(v̂) = mean(v̂) = mean_times_d/d for d (the paper's 'std within a constant of the mean'):
    the positive root d = mean_times_d/√var (checked by substitution)."""
    sol = sp.simplify(mean_times_d / sp.sqrt(var))
    assert sp.simplify(var - (mean_times_d / sol) ** 2) == 0
    return sol


@lru_cache(maxsize=None)
def threshold_optimistic(general_t: bool = False) -> sp.Expr:
    r"""Eq. (2) with general β₂ (approximate threshold): the dimension d* for aligned records.

    Eq. (2) with App. C's general β₂ (approximate threshold): d* = B²/(σ²√(2K)), K = (1 − β₂)/(1 + β₂)
    (or K(β₂, t) with ``general_t``).  Derivation: aligned records ⇒ ‖ḡ‖ = C, a typical coordinate
    ḡ_j² = C²/d; set the variance lower bound 2Ks⁴ equal to the squared mean (C²/d)², s = σC/B.

    Parameters
    ----------
    general_t : bool, optional
        False (default): the steady-state factor K = (1 − β₂)/(1 + β₂) (t → ∞); True: the finite-t factor
        K(β₂, t) of :func:`vhat_variance_factor`.

    Returns
    -------
    sympy.Expr
        B²/(σ²√(2K)) in ``B, sigma, beta2`` (and ``t`` when ``general_t``).
    """
    K = vhat_variance_factor() if general_t else _t_infinity(vhat_variance_factor())
    var = 2 * K * noise_std() ** 4
    return _threshold(var, C**2)


@lru_cache(maxsize=None)
def threshold_pessimistic(general_t: bool = False) -> sp.Expr:
    r"""Eq. (3) with general β₂ (approximate threshold): the dimension d* for orthogonal records.

    Eq. (3) with general β₂ (approximate threshold): d* = B/(σ²√(2K)): orthogonal records ⇒ ‖ḡ‖ = C/√B,
    ḡ_j² = C²/(Bd).

    Parameters
    ----------
    general_t : bool, optional
        False (default): the steady-state factor K = (1 − β₂)/(1 + β₂) (t → ∞); True: the finite-t factor
        K(β₂, t) of :func:`vhat_variance_factor`.

    Returns
    -------
    sympy.Expr
        B/(σ²√(2K)) in ``B, sigma, beta2`` (and ``t`` when ``general_t``).
    """
    K = vhat_variance_factor() if general_t else _t_infinity(vhat_variance_factor())
    var = 2 * K * noise_std() ** 4
    return _threshold(var, C**2 / B)


@lru_cache(maxsize=None)
def threshold_ime_optimistic(general_t: bool = False) -> sp.Expr:
    """§4.4.1 aside (approximate threshold): IME's dimension d* with aligned records.

    §4.4.1 aside (approximate threshold): IME (noise std τ = √2σ(2B − 1)C²/B² on ḡ²) with aligned records:
    d* = C²/(√K τ) — linear in B, far below eq. (2)'s B².

    Parameters
    ----------
    general_t : bool, optional
        False (default): the steady-state factor K = (1 − β₂)/(1 + β₂) (t → ∞); True: the finite-t factor
        K(β₂, t) of :func:`vhat_variance_factor`.

    Returns
    -------
    sympy.Expr
        C²/(√K·τ) with τ = √2σ(2B − 1)C²/B², i.e. B²/(√(2K)·σ(2B − 1)), in ``B, sigma, beta2``
        (and ``t`` when ``general_t``).
    """
    K = vhat_variance_factor() if general_t else _t_infinity(vhat_variance_factor())
    tau_v = ime_noise_stds()[1]
    return _threshold(K * tau_v**2, C**2)


def dpmf_variance_lower() -> sp.Expr:
    r"""§4.4.1 / App. C (exact lower bound): variance of the DP-MF-privatised bias-corrected v̂_t.

    §4.4.1 'prefix sums' / App. C (exact lower bound, any factorisation): the noise of the DP-MF-privatised
    decaying sum v̂_t = Σ_k w_k x_k/(1 − β₂^t), w_k = (1 − β₂)β₂^{t−k}, has variance ≥ (1 − β₂)²τ²/(1 − β₂^t)².

    Derivation (Cauchy–Schwarz; the paper's 'highest-weight term' assumption is in fact a bound): with
    noise C⁻¹z of multiplier set by sens(C) = max column norm, Var = τ² sens(C)²‖wᵀC⁻¹‖² ≥
    τ²(wᵀC⁻¹ C e_t)² = τ² w_t²  since ‖C e_t‖ ≤ sens(C).

    Returns
    -------
    sympy.Expr
        (1 − β₂)²τ²/(1 − β₂^t)² in ``beta2, t, tau``.
    """
    return ((1 - beta2) * tau / (1 - beta2**t)) ** 2


@lru_cache(maxsize=None)
def dpmf_threshold_gain() -> sp.Expr:
    r"""App. C (upper bound on the gain): the most DP-MF can raise the dimension thresholds.

    App. C (upper bound on the gain): ratio of the std of independent noise to the DP-MF lower bound,
    √(K(β₂,t))·(1 − β₂^t)/(1 − β₂), → 1/√(1 − β₂²) (≈ 22.4 at β₂ = 0.999): the most DP-MF can raise
    the (linear-in-std) dimension thresholds.

    Returns
    -------
    sympy.Expr
        √(K(β₂, t))·(1 − β₂^t)/(1 − β₂) in ``beta2, t``.
    """
    return sp.sqrt(vhat_variance_ime() / dpmf_variance_lower())


@lru_cache(maxsize=None)
def dpmf_threshold_gain_limit() -> sp.Expr:
    """lim_{t→∞} of :func:`dpmf_threshold_gain`: 1/√(1 − β₂²) (exact; ≈ 22.4 at β₂ = 0.999).

    Returns
    -------
    sympy.Expr
        1/√(1 − β₂²) in ``beta2``.
    """
    return sp.simplify(sp.sqrt(_t_infinity(dpmf_threshold_gain() ** 2)))


# ======================================================================================
# predicted and exact negative probabilities
# ======================================================================================
def negative_probability_gaussian(signal, noise_std, beta2, steps):
    """The paper's mean-vs-std prediction made a number: Φ(−E v̂/√Var v̂) (Gaussian approximation).

    ``signal`` a number or array, ``noise_std`` >= 0 (0 gives probability 0: v̂ = g² is never negative),
    ``beta2`` in [0, 1), ``steps`` an integer >= 1; inputs are checked as in :func:`negative_probability`.

    Parameters
    ----------
    signal : float or array_like of float
        The constant clipped average g of the coordinate(s); finite.
    noise_std : float
        The noise std s >= 0 (finite).
    beta2 : float
        Adam's second-moment decay β₂ in [0, 1).
    steps : int
        The round t, an integer in [1, 10¹⁸] (a closed form: no memory limit).

    Returns
    -------
    numpy.ndarray or float
        Φ(−E v̂_t/√Var v̂_t) with E v̂_t = g² and Var v̂_t = K(β₂, t)(4g²s² + 2s⁴), elementwise, of ``signal``'s
        shape (a scalar for a scalar ``signal``); zeros when ``noise_std`` is 0.

    Raises
    ------
    ValueError
        When ``signal`` is not a number/array of numbers or holds a NaN or inf, or (from the shared input check)
        when ``noise_std``, ``beta2`` or ``steps`` is out of range.
    """
    from scipy.stats import norm

    try:
        g = np.asarray(signal, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"signal must be a finite number or array of numbers (got {signal!r})") from None
    if not np.all(np.isfinite(g)):
        raise ValueError("signal must be finite (no NaN or inf)")
    _, s, beta2, steps = _check(0.0, noise_std, beta2, steps, max_steps=10**18)  # a closed form: any T
    if s == 0:
        return np.zeros_like(g)[()]
    Kv = (1 - beta2) * (1 + beta2**steps) / ((1 + beta2) * (1 - beta2**steps))
    # in units of s (so that squares cannot overflow): P = Φ(−a²/√(Kv(4a² + 2))), a = g/s
    a2 = (g / s) ** 2
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.where(np.isfinite(a2), -a2 / np.sqrt(Kv * (4 * a2 + 2)), -np.inf)
    return norm.cdf(z)


def _num(name: str, value) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a real number (got {value!r})")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a real number (got {value!r})") from None


def _check(signal, noise_std, beta2_value, steps, beta2_name: str = "beta2", max_steps: int | None = None):
    sig = _num("signal", signal)
    ns = _num("noise_std", noise_std)
    b2 = _num(beta2_name, beta2_value)
    _num("steps", steps)
    if not math.isfinite(sig):
        raise ValueError(f"signal must be a finite number (got {signal!r})")
    if not (math.isfinite(ns) and ns >= 0):
        raise ValueError(f"noise_std must be a finite number >= 0 (got {noise_std!r})")
    if not (0 <= b2 < 1):  # NaN fails this too
        raise ValueError(f"{beta2_name} must be in [0, 1) (got {beta2_value!r})")
    if isinstance(steps, bool) or not math.isfinite(float(steps)) or int(steps) != steps or int(steps) < 1:
        raise ValueError(f"steps must be an integer >= 1 (got {steps!r})")
    if max_steps is None and int(steps) > MAX_STEPS:
        raise ValueError(f"steps must be at most {MAX_STEPS} (the exact law sums one term per step; got {steps!r})")
    if max_steps is not None and int(steps) > max_steps:
        raise ValueError(f"steps must be at most {max_steps} (got {steps!r})")
    return sig, ns, b2, int(steps)


MAX_STEPS = 10**7  # negative_probability: one weight per step is held in memory


def vhat_weights(beta2_value: float, steps: int) -> np.ndarray:
    """w_k = (1 − β₂)β₂^{t−k}/(1 − β₂^t), k = 1..t (zero weights dropped): v̂ + s² = Σ w_k (g + z_k)².

    ``beta2_value`` in [0, 1), ``steps`` an integer in [1, 10⁷].

    Parameters
    ----------
    beta2_value : float
        Adam's second-moment decay β₂ in [0, 1).
    steps : int
        The round t, an integer in [1, 10⁷]; other values raise ValueError (from the shared input check).

    Returns
    -------
    numpy.ndarray
        1-d float array of the non-zero weights w_k in order k = 1..t (oldest first); they sum to 1 up to
        rounding and the dropped underflowed ones.
    """
    _, _, beta2_value, steps = _check(0.0, 0.0, beta2_value, steps, "beta2_value")
    e = np.arange(steps - 1, -1, -1, dtype=float)
    w = (1 - beta2_value) * beta2_value**e / (1 - beta2_value**steps)
    return w[w > 0]


def negative_probability(signal, noise_std, beta2, steps) -> float:
    r"""P(v̂_t < 0) exactly for bias-corrected Adam (one coordinate, constant clipped average).

    P(v̂_t < 0) exactly, v̂_t = v_t/(1 − β₂^t) − noise_std², v_t = (1 − β₂)Σ_k β₂^{t−k}(signal + z_k)²,
    z_k ~ N(0, noise_std²) independent (bias correction, one coordinate, constant clipped average).

    v̂_t + s² = s²·Q, Q = Σ_k w_k χ'²₁(λ), λ = (signal/s)², Σ w_k = 1, so P = P(Q < 1), computed by
    Imhof's inversion formula (1961):

        P(Q > x) = ½ + (1/π)∫₀^∞ sin θ(u)/(u ρ(u)) du,
        θ(u) = ½Σ_k [arctan(w_k u) + λ w_k u/(1 + w_k²u²)] − ½xu,
        ρ(u) = Π_k (1 + w_k²u²)^{1/4} · exp(½Σ_k λ w_k²u²/(1 + w_k²u²)).

    One term (t = 1 or β₂ = 0) has the closed form Φ(1 − g/s) − Φ(−1 − g/s).  Quadrature error
    ≲ 1e-10 absolute; steps up to 10⁴ take well under a second.

    Parameters
    ----------
    signal : float
        The constant clipped average g of the coordinate; a finite real number.
    noise_std : float
        The noise std s >= 0 (finite); 0 gives probability 0.
    beta2 : float
        Adam's second-moment decay β₂ in [0, 1).
    steps : int
        The round t, an integer in [1, 10⁷] (one weight per step is held in memory).
        Out-of-range or non-numeric arguments raise ValueError (from the shared input check).

    Returns
    -------
    float
        P(v̂_t < 0), clipped to [0, 1].
    """
    from scipy import integrate
    from scipy.stats import norm

    sig, ns, b2, steps = _check(signal, noise_std, beta2, steps)
    if ns == 0:
        return 0.0  # v̂ = signal² ≥ 0, never strictly negative
    a = abs(sig) / ns
    w = vhat_weights(b2, steps)
    if w.size == 1:
        return float(norm.cdf(1.0 - a) - norm.cdf(-1.0 - a))
    # Q >= w_max (a + z)² for the heaviest term, so P(Q < 1) <= Φ(1/√w_max − a): below 1e-315 (zero in float64)
    # when that argument is below −38.  This also keeps λ = a² from overflowing (signal/noise_std ~ 1e260).
    if 1.0 / math.sqrt(float(w.max())) - a < -38.0:
        return 0.0
    lam = a * a
    w2 = w * w

    def integrand(u):
        wu = w * u
        q = 1.0 + w2 * u * u
        theta = 0.5 * np.sum(np.arctan(wu) + lam * wu / q) - 0.5 * u
        logrho = 0.25 * np.sum(np.log(q)) + 0.5 * lam * np.sum(w2 * u * u / q)
        return math.sin(theta) * math.exp(-logrho) / u

    def amplitude_phase(u):
        wu = w * u
        q = 1.0 + w2 * u * u
        phi = 0.5 * np.sum(np.arctan(wu) + lam * wu / q)
        logrho = 0.25 * np.sum(np.log(q)) + 0.5 * lam * np.sum(w2 * u * u / q)
        return phi, math.exp(-logrho) / u

    # [0, U]: plain adaptive quadrature; (U, ∞): the remaining tail as a Fourier integral
    # sin(φ(u) − u/2) = sin φ cos(u/2) − cos φ sin(u/2) (QUADPACK QAWF), unless already negligible.
    hi = 1.0
    while hi < 256.0:
        q = 1.0 + w2 * hi * hi
        if 0.25 * np.sum(np.log(q)) + 0.5 * lam * np.sum(w2 * hi * hi / q) - math.log(hi) > 40:
            break
        hi *= 2.0
    edges = np.concatenate([[0.0], np.geomspace(min(1.0, hi), hi, 16)]) if hi > 1 else np.array([0.0, hi])
    total = 0.0
    for lo_, hi_ in zip(edges[:-1], edges[1:]):
        val, _ = integrate.quad(integrand, lo_, hi_, limit=400, epsabs=1e-13, epsrel=1e-10)
        total += val
    phi_hi, amp_hi = amplitude_phase(hi)
    if amp_hi > 1e-16:
        def fc(u):
            return (lambda pa: math.sin(pa[0]) * pa[1])(amplitude_phase(u))

        def fs(u):
            return (lambda pa: math.cos(pa[0]) * pa[1])(amplitude_phase(u))

        total += integrate.quad(fc, hi, np.inf, weight="cos", wvar=0.5, limlst=200)[0]
        total -= integrate.quad(fs, hi, np.inf, weight="sin", wvar=0.5, limlst=200)[0]
    p_gt = 0.5 + total / math.pi
    return float(min(1.0, max(0.0, 1.0 - p_gt)))


@lru_cache(maxsize=None)
def update_sensitivity_one_example() -> sp.Expr:
    """Sensitivity of Adam's update to one example (§3.4.1), exact.

    §3.4.1: the sensitivity of Adam's update (β₁ = 0, ξ = 0, bias-corrected) to one example, in the paper's
    one-dimensional construction — t − 1 rounds of zero gradients, then one batch whose single non-zero record
    has gradient g_0, so ḡ_t = g_0/B: m̂_t = ḡ_t, v̂_t = (1 − β₂)ḡ_t²/(1 − β₂ᵗ), and the update m̂_t/√v̂_t has
    magnitude √((1 − β₂ᵗ)/(1 − β₂)) whatever g_0 and B (its zero-out neighbour's update is 0).  Exact; derived
    here from the recursion.

    Returns
    -------
    sympy.Expr
        √((1 − β₂ᵗ)/(1 − β₂)) (SymPy's form: 1/√((β₂ − 1)/(β₂ᵗ − 1))) in ``beta2, t``.
    """
    gbar = sp.Symbol("gbar", positive=True)
    v_t = (1 - beta2) * gbar**2  # v_{t−1} = 0 after the zero-gradient rounds
    vhat = v_t / (1 - beta2**t)
    return sp.simplify(gbar / sp.sqrt(vhat))


def update_sensitivity_limit() -> sp.Expr:
    """lim_{t→∞} of :func:`update_sensitivity_one_example`: 1/√(1 − β₂) (the paper's "could be as large as").

    Returns
    -------
    sympy.Expr
        1/√(1 − β₂) in ``beta2``.
    """
    return _t_infinity(update_sensitivity_one_example())


# ======================================================================================
# §3.2 zero-out vs replace-one sensitivity of the pair [ḡ, γḡ²] (one dimension)
# ======================================================================================
gamma = sp.Symbol("gamma", positive=True)  # the weight γ of the squared part in the released pair


@lru_cache(maxsize=None)
def pair_sensitivity_zero_out() -> sp.Expr:
    r"""§3.2 (exact, d = 1, zero-out adjacency): ℓ₂ sensitivity of the pair [ḡ, γḡ²] over batches of B records.

    Derivation: zeroing record c (|c| ≤ C) with the others summing to S (|S| ≤ (B − 1)C) changes ḡ by c/B and ḡ²
    by c(2S + c)/B²; both magnitudes grow with |c| and with S of c's sign, so the maximum is at |c| = C,
    S = (B − 1)C·sign(c): √((C/B)² + γ²((2B − 1)C²/B²)²).  The worst-case neighbour is the zero gradient.

    Returns
    -------
    sympy.Expr
        √((C/B)² + γ²((2B − 1)C²/B²)²) in ``C, B, gamma``.
    """
    return sp.sqrt((C / B) ** 2 + (gamma * (2 * B - 1) * C**2 / B**2) ** 2)


def gbar_sensitivity_replace_one() -> sp.Expr:
    """§3.2 (exact): replace-one sensitivity of ḡ alone, 2C/B (the worst pair of clipped records is c' = −c).

    Returns
    -------
    sympy.Expr
        2C/B in ``C, B``.
    """
    return 2 * C / B


@lru_cache(maxsize=None)
def replace_gamma_max() -> sp.Expr:
    r"""§3.2 (exact, B = 1, d = 1): the largest γ for which replace-one leaves the pair's sensitivity at ḡ's, 2C.

    With u = c − c', w = c + c' (|u| + |w| ≤ 2C) the squared change is u²(1 + γ²w²), largest at |w| = 2C − |u|.
    Writing |u| = Cx, x ∈ [0, 2]: x²(1 + γ²C²(2 − x)²) ≤ 4 ⟺ γ²C² ≤ h(x) = (2 + x)/(x²(2 − x)); h is smallest at
    x = √5 − 1, where h = (11 + 5√5)/8 = φ⁵/4 (φ the golden ratio), so γ* = √((11 + 5√5)/8)/C ≈ 1.665/C.

    Returns
    -------
    sympy.Expr
        γ* = √((11 + 5√5)/8)/C in ``C``.
    """
    x = sp.Symbol("x", positive=True)
    h = (2 + x) / (x**2 * (2 - x))
    crit = [r_ for r_ in sp.solve(sp.diff(h, x), x) if r_.is_real and 0 < r_ < 2]
    hmin = sp.nsimplify(sp.simplify(h.subs(x, crit[0])))
    return sp.sqrt(sp.radsimp(hmin)) / C


@lru_cache(maxsize=None)
def pair_sensitivity_replace_one() -> sp.Expr:
    r"""§3.2 (exact, B = 1, d = 1, replace-one adjacency): ℓ₂ sensitivity of [c, γc²] over |c|, |c'| ≤ C.

    Maximise x²(1 + k(2 − x)²)·C² over x ∈ [0, 2] (k = γ²C², notation of :func:`replace_gamma_max`): the
    stationary points solve 1 + 2k(2 − x)(1 − x) = 0; the smaller, x₁ = (3 − √(1 − 2/k))/2 (real for k ≥ 2), is a
    local maximum, and the endpoint x = 2 (c' = −c) gives 4C².  So the sensitivity is 2C for k < 2 and
    max(2C, C·x₁√(1 + k(2 − x₁)²)) beyond; the two meet at γ = γ* (:func:`replace_gamma_max`, not used here).

    Returns
    -------
    sympy.Expr
        A ``sympy.Piecewise`` in ``gamma, C``: 2C when γ²C² < 2, else
        max(2C, C·x₁√(1 + γ²C²(2 − x₁)²)).
    """
    k_ = gamma**2 * C**2
    x1 = (3 - sp.sqrt(1 - 2 / k_)) / 2
    return sp.Piecewise((2 * C, k_ < 2), (sp.Max(2 * C, C * x1 * sp.sqrt(1 + k_ * (2 - x1) ** 2)), True))


# ======================================================================================
# §4.1 the quadratic example: DP-Adam's floor
# ======================================================================================
h_q = sp.Symbol("h", positive=True)  # a coordinate's curvature
sx_q = sp.Symbol("s_x", positive=True)  # the data's standard deviation in that coordinate
off_q = sp.Symbol("o", real=True)  # θ_j − μ_j


def quadratic_clean_second_moment() -> sp.Expr:
    r"""§4.1 (exact): E[ḡ_j²] = h²((θ_j − μ_j)² + s_x²/B) in the quadratic example.

    §4.1 (exact): E[ḡ_j²] = h²((θ_j − μ_j)² + s_x²/B) for ℓ(θ; x) = ½Σ h_j(θ_j − x_j)², x ~ N(μ, diag s_x²),
    at a fixed θ, ḡ the average of B records (unclipped): the mean h·o squared plus the variance h²s_x² of one
    record over B.  :func:`quadratic_clean_second_moment_derived` derives it by integrating against the Gaussian
    density (tests/theory check the two are the same expression; the integration takes seconds, so the ledger
    uses this form).

    Returns
    -------
    sympy.Expr
        h²(o² + s_x²/B) in ``h, o, s_x, B`` (o = θ_j − μ_j).
    """
    return h_q**2 * (B * off_q**2 + sx_q**2) / B


def quadratic_clean_second_moment_derived() -> sp.Expr:
    r""":func:`quadratic_clean_second_moment` derived: E[g] and Var[g] of one record's gradient
    g = h(o − x), x ~ N(0, s_x²) (o = θ_j − μ_j), by symbolic integration against the Gaussian density, then
    E[ḡ²] = E[g]² + Var[g]/B, simplified.

    Returns
    -------
    sympy.Expr
        The same expression as :func:`quadratic_clean_second_moment`.
    """
    x = sp.Symbol("x", real=True)
    mean = sp.integrate((h_q * (off_q - x)) * sp.exp(-x**2 / (2 * sx_q**2)) / sp.sqrt(2 * sp.pi * sx_q**2),
                        (x, -sp.oo, sp.oo))
    var_one = sp.integrate((h_q * (off_q - x) - mean) ** 2 * sp.exp(-x**2 / (2 * sx_q**2))
                           / sp.sqrt(2 * sp.pi * sx_q**2), (x, -sp.oo, sp.oo))
    return sp.simplify(mean**2 + var_one / B)


@lru_cache(maxsize=None)
def quadratic_dp_adam_vhat() -> sp.Expr:
    r"""§4.1 (exact in expectation): post-processing DP-Adam's E[v̂_j] = E[ḡ_j²] + (σC/B)².

    §4.1 (exact in expectation, every t, fixed θ, clipping inactive): post-processing DP-Adam's
    E[v̂_j] = E[ḡ_j²] + (σC/B)² — the noise's variance is a floor under every coordinate's second moment, so
    the per-coordinate learning rate η/√v̂_j is at most about η/(σC/B) whatever the coordinate's own scale.

    Returns
    -------
    sympy.Expr
        h²(o² + s_x²/B) + (σC/B)² in ``h, o, s_x, B, sigma, C``.
    """
    return quadratic_clean_second_moment() + (sigma * C / B) ** 2


# ======================================================================================
# §4.3.2 scale-then-privatize aligns the private and non-private geometry
# ======================================================================================
@lru_cache(maxsize=None)
def stp_private_gradient_factor() -> sp.Expr:
    r"""§4.3.2 (exact in expectation): scale-then-privatize's factor E[g̃_j²]/E[ḡ_j²] = 1 + κs².

    §4.3.2 (exact in expectation in §4.3.1's setting: ξ = 0, t large, scaled clipping inactive): at the
    preconditioner v̂ = κ·E[ḡ²] (κ from :func:`stp_steady_state`), the private gradient g̃ = ḡ + √v̂·z,
    z ~ N(0, s²), has E[g̃_j²] = E[ḡ_j²](1 + κs²) per coordinate: the same factor for every coordinate, so the
    private gradients' second moments are proportional to the clean ones (and 1 + κs² = κ: they equal v̂).

    Returns
    -------
    sympy.Expr
        1 + κs² = 1/(1 − s²) in ``s``.
    """
    kappa = stp_steady_state()
    return sp.simplify(1 + kappa * s**2)


# ======================================================================================
# §4.4.2 self-regularisation of post-processing
# ======================================================================================
@lru_cache(maxsize=None)
def postprocessing_update_bound() -> sp.Expr:
    r"""§4.4.2 (exact bound, attained): post-processing's update |m̂_t/√v̂_t| ≤ √((1 − β₂ᵗ)/(1 − β₂)).

    §4.4.2 (exact bound, attained; β₁ = 0, ξ = 0): post-processing's per-coordinate update |m̂_t/√v̂_t| is at
    most √((1 − β₂ᵗ)/(1 − β₂)) whatever the noise — its self-regularisation: a large noisy g̃_t enters v_t too.

    Derivation: m̂_t = g̃_t and v_t = β₂v_{t−1} + (1 − β₂)g̃_t² ≥ (1 − β₂)g̃_t², so
    g̃_t²/v̂_t ≤ (1 − β₂ᵗ)/(1 − β₂); equality when v_{t−1} = 0 (zero gradients before round t).

    Returns
    -------
    sympy.Expr
        √((1 − β₂ᵗ)/(1 − β₂)) in ``beta2, t``.
    """
    gt = sp.Symbol("gt", positive=True)
    v_min = (1 - beta2) * gt**2
    return sp.sqrt(sp.simplify(gt**2 / (v_min / (1 - beta2**t))))
