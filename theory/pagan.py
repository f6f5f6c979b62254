r"""Closed forms of ``pagan``: Asi, Duchi, Fallah, Javidbakht, Talwar (ICML 2021).

Conventions.  ``n`` records, dimension ``d``, batch ``b``, privacy ``(epsilon, delta)``.
The coordinate scales :math:`\sigma_j` enter the rates only through power sums
:math:`S_a = \sum_{j\le d} \sigma_j^a`; these are symbols (:func:`power_sum`) so that
the same expression serves any σ-profile: numerically from a vector, or in closed
form for the power-law profile :math:`\sigma_j = j^{-s}` (:func:`power_law_sums`,
generalised harmonic numbers).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

import dpvalidate as _v

n = sp.Symbol("n", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
b = sp.Symbol("b", positive=True, integer=True)
T = sp.Symbol("T", positive=True, integer=True)
epsilon = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
c = sp.Symbol("c", positive=True)
s = sp.Symbol("s", positive=True)  # power-law exponent of the σ-profile
sigma_j = sp.Symbol("sigma_j", positive=True)
x_j = sp.Symbol("x_j", real=True)
z_j = sp.Symbol("z_j", real=True)

_POWER_SUMS: dict[sp.Rational, sp.Symbol] = {}


def _exponent(name: str, a) -> sp.Expr:
    """A positive finite real exponent (a number or a SymPy number), exact (``nsimplify``), or ValueError naming it."""
    if isinstance(a, bool) or not isinstance(a, (int, float, sp.Basic, np.integer, np.floating)):
        raise ValueError(f"{name} must be a positive number (got {a!r})")
    if isinstance(a, sp.Basic):
        ok = bool(a.is_number and a.is_real and a.is_positive and a.is_finite)
    else:
        ok = 0 < a < 1e300 and math.isfinite(float(a))  # (an integer beyond float range fails the first test)
    if not ok:
        raise ValueError(f"{name} must be a positive finite number (got {a!r})")
    if isinstance(a, sp.Rational):  # already exact: what nsimplify returns, without its search (searches call
        return a                    # power_sum per evaluation)
    if isinstance(a, (int, np.integer)):
        return sp.Integer(int(a))
    return sp.nsimplify(a)


def power_sum(a) -> sp.Symbol:
    r"""The symbol :math:`S_a = \sum_{j=1}^d \sigma_j^a` (a positive number).

    Parameters
    ----------
    a : int, float or SymPy number
        The exponent, a positive finite number (taken exactly through ``sympy.nsimplify``); anything else raises
        ValueError.

    Returns
    -------
    sympy.Symbol
        The positive symbol ``S_<a>`` (``/`` written ``_``: ``S_2_3`` for a = 2/3); one symbol per exponent,
        cached, so equal exponents give the same symbol.
    """
    a = _exponent("a", a)
    if a not in _POWER_SUMS:
        tag = str(a).replace("/", "_")
        _POWER_SUMS[a] = sp.Symbol(f"S_{tag}", positive=True)
    return _POWER_SUMS[a]


def power_law_sums(exponent=sp.Rational(3, 2), powers=(1, sp.Rational(2, 3), 2, sp.Rational(4, 3))) -> dict:
    r"""Substitutions :math:`S_a \mapsto H_d^{(a s)}` for the profile :math:`\sigma_j = j^{-s}` (exact).

    Parameters
    ----------
    exponent : int, float or SymPy number, optional
        The power-law exponent s of σ_j = j^{−s} (default 3/2), positive and finite.
    powers : iterable of numbers, optional
        The exponents a of the power sums to substitute (default 1, 2/3, 2, 4/3), each positive and finite.

    Returns
    -------
    dict of sympy.Symbol to sympy.Expr
        ``{power_sum(a): harmonic(d, a·s)}`` for each a in ``powers`` (generalised harmonic numbers in ``d``).

    Raises
    ------
    ValueError
        When ``powers`` is not a sequence (an invalid ``exponent`` or entry of ``powers`` raises ValueError
        from the exponent check).
    """
    exponent = _exponent("exponent", exponent)
    try:
        powers = [_exponent("powers", a) for a in powers]
    except TypeError:
        raise ValueError(f"powers must be a sequence of positive numbers (got {powers!r})") from None
    return {power_sum(a): sp.harmonic(d, a * exponent) for a in powers}


# --------------------------------------------------------------------------------------
# Privacy calibration (Algorithms 1 and 2, line 6; Lemma 3.1)
# --------------------------------------------------------------------------------------
def noise_multiplier() -> sp.Expr:
    r"""Noise multiplier of Algorithms 1/2, line 6 (exact).

    ĝ = g̃ + √(log(1/δ))/(bε)·ξ with ξ ~ N(0, A⁻¹).  In the whitened coordinates
    A^{1/2}·, each record's projected gradient has norm ≤ 1, so one copy of a
    record moves the batch mean by at most 1/b, and the noise has standard deviation
    √(log(1/δ))/(bε): the ratio (noise multiplier) is √(log(1/δ))/ε.

    Returns
    -------
    sympy.Expr
        √(log(1/δ))/ε in ``delta, epsilon``.
    """
    return sp.sqrt(sp.log(1 / delta)) / epsilon


def sampling_rate() -> sp.Expr:
    """Probability that one draw of the batch picks a given record: b/n (exact; Alg. 1/2 line 3).

    Returns
    -------
    sympy.Expr
        b/n in ``b, n``.
    """
    return b / n


def lemma3_1_steps() -> sp.Expr:
    """Number of steps of Lemma 3.1 (pagan Lemma 3.1): T = c n²/b², c an unspecified constant.

    Returns
    -------
    sympy.Expr
        c·n²/b² in ``c, n, b``.
    """
    return c * n**2 / b**2


# --------------------------------------------------------------------------------------
# Rates (eqs. (7), (9)) and the Hölder chain between them
# --------------------------------------------------------------------------------------
def eq7_rate() -> sp.Expr:
    r"""Privacy term of eq. (7) (PAGAN on X∞, C_jj = σ_j^{-4/3}, p = log d, b = 1).

    :math:`(\sum_j \sigma_j^{2/3})^{3/2}/(n\varepsilon)\,\log(d/\delta)` — an upper bound up
    to an unknown O(1) factor (times diam∞(X)).

    Returns
    -------
    sympy.Expr
        S_{2/3}^{3/2}·log(d/δ)/(n·ε) in ``S_2_3, d, delta, n, epsilon`` (S_2_3 = :func:`power_sum` (2/3)).
    """
    return power_sum(sp.Rational(2, 3)) ** sp.Rational(3, 2) / (n * epsilon) * sp.log(d / delta)


def eq9_rate() -> sp.Expr:
    r"""Privacy term of eq. (9) (PASAN, C_jj = σ_j^{-1}, p = log d, b = 1).

    :math:`\sum_j \sigma_j/(n\varepsilon)\,\log(d/\delta)` — upper bound up to O(1) (times diam∞(X)).

    Returns
    -------
    sympy.Expr
        S_1·log(d/δ)/(n·ε) in ``S_1, d, delta, n, epsilon`` (S_1 = :func:`power_sum` (1)).
    """
    return power_sum(1) / (n * epsilon) * sp.log(d / delta)


def holder_chain() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""The three terms of the Hölder chain after eq. (9) (exact inequalities).

    :math:`\sqrt d\sum_j\sigma_j \;\ge\; (\sum_j\sigma_j^{2/3})^{3/2} \;\ge\; \sum_j\sigma_j`
    for σ ≥ 0.  Returned as (upper, middle, lower).

    Returns
    -------
    upper : sympy.Expr
        √d·S_1.
    middle : sympy.Expr
        S_{2/3}^{3/2}.
    lower : sympy.Expr
        S_1.
    """
    s1 = power_sum(1)
    s23 = power_sum(sp.Rational(2, 3))
    return sp.sqrt(d) * s1, s23 ** sp.Rational(3, 2), s1


def box_rate_ratio() -> sp.Expr:
    r"""PASAN-on-the-box over PAGAN rate factor: √d·S₁ / S_{2/3}^{3/2} (exact ratio of the two rate factors).

    On X∞, diam₂ = √d·diam∞, so PASAN's privacy term (eq. (9) with diam₂) carries
    √d·Σσ_j while PAGAN's carries (Σσ_j^{2/3})^{3/2}.

    Returns
    -------
    sympy.Expr
        √d·S_1/S_{2/3}^{3/2} in ``d, S_1, S_2_3`` (>= 1 by the Hölder chain).
    """
    upper, middle, _ = holder_chain()
    return upper / middle


# --------------------------------------------------------------------------------------
# Lower bounds (§5) and the reduction of Theorem 4
# --------------------------------------------------------------------------------------
def theorem4_lower_bound() -> sp.Expr:
    r"""Theorem 4 / Proposition 1 lower bound on X∞: (Σσ_j^{2/3})^{3/2}/(nε log^{5/2} d) (exact expression, constant 1 as stated).

    Returns
    -------
    sympy.Expr
        S_{2/3}^{3/2}/(n·ε·log^{5/2} d) in ``S_2_3, n, epsilon, d``.
    """  # noqa: E501
    return power_sum(sp.Rational(2, 3)) ** sp.Rational(3, 2) / (n * epsilon * sp.log(d) ** sp.Rational(5, 2))


def theorem4_condition() -> sp.Rel:
    """Hypothesis of Proposition 1 / Theorem 4: √d·log d ≤ nε.

    Returns
    -------
    sympy.Rel
        The relation √d·log d <= n·ε in ``d, n, epsilon``.
    """
    return sp.sqrt(d) * sp.log(d) <= n * epsilon


def reduction_gap_coordinate() -> sp.Expr:
    r"""One coordinate of f(x) − f(x*) on X∞ for f(x) = −xᵀz̄ (proof of Theorem 4; exact).

    x*_j = sign(z̄_j), so f(x) − f(x*) = Σ_j (|z̄_j| − x_j z̄_j).

    Returns
    -------
    sympy.Expr
        |z_j| − x_j·z_j in ``x_j, z_j``.
    """
    return sp.Abs(z_j) - x_j * z_j


def reduction_indicator_coordinate() -> sp.Expr:
    r"""One coordinate of the right side of the reduction: |z̄_j|·1{sign x_j ≠ sign z̄_j} (exact).

    Returns
    -------
    sympy.Expr
        |z_j|·(0 if sign x_j = sign z_j else 1), a ``Piecewise`` in ``x_j, z_j``.
    """
    return sp.Abs(z_j) * sp.Piecewise((0, sp.Eq(sp.sign(x_j), sp.sign(z_j))), (1, True))


def reduction_slack_coordinate() -> sp.Expr:
    """Per-coordinate slack of Theorem 4's reduction inequality (≥ 0 is the claim, for |x_j| ≤ 1).

    Returns
    -------
    sympy.Expr
        (|z_j| − x_j·z_j) − |z_j|·1{sign x_j ≠ sign z_j} in ``x_j, z_j``.
    """
    return reduction_gap_coordinate() - reduction_indicator_coordinate()


# --------------------------------------------------------------------------------------
# Geometry choices of §3.2 used by the experiments
# --------------------------------------------------------------------------------------
def pagan_optimal_C() -> sp.Expr:
    """§3.2: the diagonal C_jj = σ_j^{-4/3} that optimises Theorem 2's bound for sub-Gaussian σ_j (exact choice).

    Returns
    -------
    sympy.Expr
        σ_j^{−4/3} in ``sigma_j``.
    """
    return sigma_j ** sp.Rational(-4, 3)


def pasan_optimal_C() -> sp.Expr:
    """§3.2: C_jj = σ_j^{-1}, the choice that optimises Theorem 1's bound (exact choice).

    Returns
    -------
    sympy.Expr
        1/σ_j in ``sigma_j``.
    """
    return 1 / sigma_j


# --------------------------------------------------------------------------------------
# Example 1 and Lemma 3.2: moments of the Lipschitz constant G(z; C) = ‖z‖_C
# --------------------------------------------------------------------------------------
p = sp.Symbol("p", positive=True)
mu = sp.Symbol("mu", nonnegative=True)
K = sp.Symbol("K", positive=True)  # the unknown O(1) constant of Example 1
W = sp.Symbol("W", positive=True)  # Σ_j C_jj σ_j²
G_p = sp.Symbol("G_p", positive=True)
G_2p = sp.Symbol("G_2p", positive=True)


def weight_power_sum(r: int) -> sp.Symbol:
    """P_r = Σ_j w_j^r for the weights w_j = C_jj σ_j² of ‖Z‖_C² = Σ_j w_j N_j².

    Parameters
    ----------
    r : int
        The power r (converted with ``int``; not otherwise validated).

    Returns
    -------
    sympy.Symbol
        The positive symbol ``P_<r>``.
    """
    return sp.Symbol(f"P_{int(r)}", positive=True)


def example1_bound() -> sp.Expr:
    r"""Example 1, eq. (3): G_p(C) ≤ µ + K·√p·√(Σ_j C_jj σ_j²) — an upper bound with an unknown constant K = O(1).

    Returns
    -------
    sympy.Expr
        µ + K·√p·√W in ``mu, K, p, W`` (W = Σ_j C_jj σ_j²).
    """
    return mu + K * sp.sqrt(p) * sp.sqrt(W)


MAX_MOMENT_ORDER = 24  # gaussian_norm_moment: p(24) = 1575 monomials, a few seconds of SymPy expansion


def gaussian_norm_moment(k: int) -> sp.Expr:
    r"""E[Q^k] for Q = Σ_j w_j N_j², N_j iid N(0,1) (exact), as a polynomial in P_r = Σ_j w_j^r.

    Q's cumulants are κ_r = 2^{r−1}(r−1)!·P_r; raw moments follow from
    m_n = Σ_{r=1}^{n} C(n−1, r−1) κ_r m_{n−r}, m_0 = 1.  With Z_j ~ N(0, σ_j²),
    ‖Z‖_C² = Q with w_j = C_jj σ_j², so G_{2k}(C) = E[Q^k]^{1/(2k)}.

    Parameters
    ----------
    k : int
        The moment order, an integer in [0, :data:`MAX_MOMENT_ORDER`] (24); other values raise
        :class:`dpvalidate.InvalidParameter` (a ValueError).

    Returns
    -------
    sympy.Expr
        E[Q^k], an expanded polynomial in the symbols ``P_1, ..., P_k`` of :func:`weight_power_sum` (1 for
        k = 0); cached per k.
    """
    return _gaussian_norm_moment(_v.integer("k", k, 0, MAX_MOMENT_ORDER))  # the expansion has p(k) terms


@lru_cache(maxsize=None)
def _gaussian_norm_moment(k: int) -> sp.Expr:
    kappa = [None] + [2 ** (r - 1) * sp.factorial(r - 1) * weight_power_sum(r) for r in range(1, k + 1)]
    m = [sp.Integer(1)]
    for n_ in range(1, k + 1):
        m.append(sp.expand(sum(sp.binomial(n_ - 1, r - 1) * kappa[r] * m[n_ - r] for r in range(1, n_ + 1))))
    return m[k]


def lemma3_2_bound() -> sp.Expr:
    """Lemma 3.2: with probability ≥ 1 − 1/n, Ĝ_p(S; C) ≤ G_p(C) + G_2p(C) (exact right-hand side).

    Returns
    -------
    sympy.Expr
        G_p + G_2p in ``G_p, G_2p``.
    """
    return G_p + G_2p


def lemma3_2_probability() -> sp.Expr:
    """Lemma 3.2's failure probability bound 1/n (exact).

    Returns
    -------
    sympy.Expr
        1/n in ``n``.
    """
    return 1 / n


# --------------------------------------------------------------------------------------
# Algorithm 3 (private second-moment estimation): its privacy calibration
# --------------------------------------------------------------------------------------
rho = sp.Symbol("rho", positive=True)  # truncation level ρ_t of a round


def algorithm3_rounds() -> sp.Expr:
    """T = ⌈(3/2)·log₂ d⌉ (reconstruction of the extraction's "T = 3/2 log d", so that 2^{-T} ≤ d^{-3/2}).

    Returns
    -------
    sympy.Expr
        ⌈(3/2)·log₂ d⌉ in ``d``.
    """
    return sp.ceiling(sp.Rational(3, 2) * sp.log(d, 2))


def algorithm3_noise_variance() -> sp.Expr:
    """Algorithm 3, line 5, as the text supports it: Var ξ_{t,j} = ρ_t⁴ T² d log(T/δ)/(n² ε²).

    The extraction prints line 5 as "N(0, ρt T d log(T/δ)/n ε)" with the superscript row "4 2" over the
    numerator and "2 2" over the denominator: ρ_t⁴ takes the 4 and the remaining 2 sits on the first T
    (the denominator's are n² ε²).  The log(T/δ) is a per-round δ/T, the basic-composition split, which
    pairs with a per-round ε/T, i.e. a variance ∝ T²/ε².  See :func:`algorithm3_noise_variance_t1` for the
    other reading (one power of T), which the suite tested before.

    Returns
    -------
    sympy.Expr
        ρ⁴·T²·d·log(T/δ)/(n²ε²) in ``rho, T, d, delta, n, epsilon``.
    """
    return rho**4 * T**2 * d * sp.log(T / delta) / (n**2 * epsilon**2)


def algorithm3_noise_variance_t1() -> sp.Expr:
    """The other reading of line 5 (one superscript dropped): ρ_t⁴ T d log(T/δ)/(n² ε²); not what the text supports.

    Returns
    -------
    sympy.Expr
        ρ⁴·T·d·log(T/δ)/(n²ε²) in ``rho, T, d, delta, n, epsilon``.
    """
    return rho**4 * T * d * sp.log(T / delta) / (n**2 * epsilon**2)


def algorithm3_sensitivity() -> sp.Expr:
    r"""ℓ₂ sensitivity ρ²√d/n of one round of Algorithm 3 (exact).

    ℓ₂ sensitivity of one round's vector ((1/n)Σ_i min(z_ij², ρ²))_j: each entry lies in [0, ρ²/n·n]
    and one record moves it by at most ρ²/n (replace-one or zero-out alike), over d coordinates: ρ²√d/n (exact).

    Returns
    -------
    sympy.Expr
        ρ²·√d/n in ``rho, d, n``.
    """
    return rho**2 * sp.sqrt(d) / n


def algorithm3_noise_multiplier() -> sp.Expr:
    """Noise std over sensitivity of one round, derived: T·√(log(T/δ))/ε (exact, from the two expressions above).

    Returns
    -------
    sympy.Expr
        T·√(log(T/δ))/ε in ``T, delta, epsilon``.
    """
    return sp.simplify(sp.sqrt(algorithm3_noise_variance()) / algorithm3_sensitivity())


def algorithm3_noise_multiplier_t1() -> sp.Expr:
    """The multiplier under the one-T reading: √(T log(T/δ))/ε.

    Returns
    -------
    sympy.Expr
        √(T·log(T/δ))/ε in ``T, delta, epsilon``.
    """
    return sp.simplify(sp.sqrt(algorithm3_noise_variance_t1()) / algorithm3_sensitivity())


# --------------------------------------------------------------------------------------
# Theorems 1 and 2: the general-p excess-loss bounds, their prescribed parameters, and
# the large-p forms (5), (6); eqs. (7) and (9) as full rates
# --------------------------------------------------------------------------------------
diam2 = sp.Symbol("diam2", positive=True)  # diam₂(X)
diam_inf = sp.Symbol("diam_inf", positive=True)  # diam∞(X)
diam_C = sp.Symbol("diam_C", positive=True)  # diam of X in ‖x‖_{C⁻¹} = √(Σ x_j²/C_jj)
tr_Cinv = sp.Symbol("tr_Cinv", positive=True)  # tr(C⁻¹)
tr_Cinv_half = sp.Symbol("tr_Cinv_half", positive=True)  # tr(C^{-1/2})
R_std = sp.Symbol("R_std", nonnegative=True)  # (1/T)·√(Σ_k E‖g^k‖²)
R_ada = sp.Symbol("R_ada", nonnegative=True)  # (1/T)·E Σ_j √(Σ_k (g_j^k)²)


def theorem1_radius() -> sp.Expr:
    r"""Theorem 1's prescribed B (A_k = C/B²): 2G_2p(C)·(diam_{C⁻¹}(X)·nε / (diam₂(X)√(tr(C⁻¹) log(1/δ))))^{1/p}.

    Read from the extraction (the fraction's layout is damaged but its factors are legible); it is
    the B that balances the clipping bias against the noise, and the same reading gives Theorem 1's
    bound the exponents (p−1)/p and 1/p below.

    Returns
    -------
    sympy.Expr
        2·G_2p·(diam_C·n·ε/(diam2·√(tr_Cinv·log(1/δ))))^{1/p} in ``G_2p, diam_C, n, epsilon, diam2,
        tr_Cinv, delta, p``.
    """
    return 2 * G_2p * (diam_C * n * epsilon / (diam2 * sp.sqrt(tr_Cinv * sp.log(1 / delta)))) ** (1 / p)


def theorem2_radius() -> sp.Expr:
    r"""Theorem 2's prescribed B: 2G_2p(C)·(diam_{C⁻¹}(X)·nε / (diam∞(X)√(log(1/δ))·tr(C^{-1/2})))^{1/p}.

    Returns
    -------
    sympy.Expr
        2·G_2p·(diam_C·n·ε/(diam_inf·√(log(1/δ))·tr_Cinv_half))^{1/p} in ``G_2p, diam_C, n, epsilon,
        diam_inf, tr_Cinv_half, delta, p``.
    """
    return 2 * G_2p * (diam_C * n * epsilon / (diam_inf * sp.sqrt(sp.log(1 / delta)) * tr_Cinv_half)) ** (1 / p)


def theorem1_bound() -> sp.Expr:
    r"""Theorem 1 (PASAN), general p: the excess-loss upper bound, up to one unknown O(1) factor.

    Theorem 1 (PASAN), general p, up to one unknown O(1) factor (an upper bound on E[f(x̄_T) − min f]):

    diam₂·R_std(T) + diam₂·G_2p(C)·(√(tr(C⁻¹) log(1/δ))/(nε))^{(p−1)/p}·(diam_{C⁻¹}/diam₂)^{1/p},

    with α = diam₂(X), T = c n²/b², A_k = C/B² (B of :func:`theorem1_radius`), under Ĝ_p(S;C) ≤ G_2p(C).

    Returns
    -------
    sympy.Expr
        The displayed bound in ``diam2, R_std, G_2p, tr_Cinv, delta, n, epsilon, p, diam_C``.
    """
    return diam2 * R_std + diam2 * G_2p * (sp.sqrt(tr_Cinv * sp.log(1 / delta)) / (n * epsilon)) ** ((p - 1) / p) \
        * (diam_C / diam2) ** (1 / p)


def theorem2_bound() -> sp.Expr:
    r"""Theorem 2 (PAGAN), general p: the excess-loss upper bound, up to one unknown O(1) factor.

    Theorem 2 (PAGAN), general p, up to one unknown O(1) factor:

    diam∞·R_ada(T) + diam∞·G_2p(C)·(√(log(1/δ))·tr(C^{-1/2})/(nε))^{(p−1)/p}·(diam_{C⁻¹}/diam∞)^{1/p},

    with α = diam∞(X), T = c n²/b², A_k = C/B² (B of :func:`theorem2_radius`), under Ĝ_p(S;C) ≤ G_2p(C).

    Returns
    -------
    sympy.Expr
        The displayed bound in ``diam_inf, R_ada, G_2p, tr_Cinv_half, delta, n, epsilon, p, diam_C``.
    """
    return diam_inf * R_ada + diam_inf * G_2p * (sp.sqrt(sp.log(1 / delta)) * tr_Cinv_half / (n * epsilon)) \
        ** ((p - 1) / p) * (diam_C / diam_inf) ** (1 / p)


def theorem1_large_p() -> sp.Expr:
    r"""Eq. (5), Theorem 1 for large p: diam₂·(R_std(T) + G_2p(C)·√(tr(C⁻¹) log(1/δ))/(nε)) (the p → ∞ limit).

    Returns
    -------
    sympy.Expr
        diam2·(R_std + G_2p·√(tr_Cinv·log(1/δ))/(n·ε)) in ``diam2, R_std, G_2p, tr_Cinv, delta, n,
        epsilon``.
    """
    return diam2 * (R_std + G_2p * sp.sqrt(tr_Cinv * sp.log(1 / delta)) / (n * epsilon))


def theorem2_large_p() -> sp.Expr:
    r"""Eq. (6), Theorem 2 for large p: diam∞·(R_ada(T) + G_2p(C)·√(log(1/δ))·tr(C^{-1/2})/(nε)) (the p → ∞ limit).

    Returns
    -------
    sympy.Expr
        diam_inf·(R_ada + G_2p·√(log(1/δ))·tr_Cinv_half/(n·ε)) in ``diam_inf, R_ada, G_2p,
        tr_Cinv_half, delta, n, epsilon``.
    """
    return diam_inf * (R_ada + G_2p * sp.sqrt(sp.log(1 / delta)) * tr_Cinv_half / (n * epsilon))


def eq7_full_rate() -> sp.Expr:
    """Eq. (7) in full: diam∞·(R_ada(T) + (Σσ_j^{2/3})^{3/2}/(nε)·log(d/δ)), up to one O(1) factor.

    Returns
    -------
    sympy.Expr
        diam_inf·(R_ada + :func:`eq7_rate`) in ``diam_inf, R_ada, S_2_3, d, delta, n, epsilon``.
    """
    return diam_inf * (R_ada + eq7_rate())


def eq9_full_rate() -> sp.Expr:
    """Eq. (9) in full: diam₂·(R_std(T) + Σσ_j/(nε)·log(d/δ)), up to one O(1) factor.

    Returns
    -------
    sympy.Expr
        diam2·(R_std + :func:`eq9_rate`) in ``diam2, R_std, S_1, d, delta, n, epsilon``.
    """
    return diam2 * (R_std + eq9_rate())


# --------------------------------------------------------------------------------------
# Theorem 3: Algorithm 3's sample-size condition and guarantee (10)
# --------------------------------------------------------------------------------------
r_moment = sp.Symbol("r", positive=True)  # moment ratio of Definition 4.1
beta = sp.Symbol("beta", positive=True)
sigma_hat_j = sp.Symbol("sigmahat_j", positive=True)


def theorem3_sample_size() -> sp.Expr:
    r"""Theorem 3's condition n ≥ 1000 r² log(8d/β)·max{T·√(d log(T/δ))·ℓ(r)²/ε, r²}, ℓ(r) = max(1, log r).

    Reconstruction: the extraction keeps the factors T, √(d log(T/δ)) (the root's extent is lost),
    "log r" with a stray exponent 2, ε in a denominator, the second entry r² and the prefactor
    1000 r² log(8d/β).  Line 5's noise (the T² reading, :func:`algorithm3_noise_variance`) has standard
    deviation ρ_t²·T·√(d log(T/δ))/(nε) with ρ_t ∝ r·2^{-t}·log r, and a coordinate exits when its
    estimate passes the scale 2^{-2t}: the noise is small against that scale exactly when
    n ≳ r² log² r·T√(d log(T/δ))/ε, which fixes the reading (T outside the root, inherited from line 5).
    The log is floored at 1 as in kernels.moments (the extracted "log r" vanishes at r = 1).

    Returns
    -------
    sympy.Expr
        1000·r²·log(8d/β)·max{T·√(d·log(T/δ))·max(1, log r)²/ε, r²} in ``r, d, beta, T, delta,
        epsilon``.
    """
    ell = sp.Max(1, sp.log(r_moment))
    return 1000 * r_moment**2 * sp.log(8 * d / beta) * sp.Max(
        T * sp.sqrt(d * sp.log(T / delta)) * ell**2 / epsilon, r_moment**2)


def theorem3_lower() -> sp.Expr:
    """Left side of (10): ½·max(σ_j, d^{-3/2}) (exact).

    Returns
    -------
    sympy.Expr
        max(σ_j, d^{−3/2})/2 in ``sigma_j, d``.
    """
    return sp.Max(sigma_j, d ** sp.Rational(-3, 2)) / 2


def theorem3_upper() -> sp.Expr:
    """Right side of (10): 2σ_j (exact).

    Returns
    -------
    sympy.Expr
        2·σ_j in ``sigma_j``.
    """
    return 2 * sigma_j


def theorem3_floor() -> sp.Expr:
    """The smallest value Algorithm 3 can return, 2^{-T} (line 14); with T ≥ (3/2) log₂ d it is ≤ d^{-3/2}.

    Returns
    -------
    sympy.Expr
        2^{−T} in ``T``.
    """
    return 2 ** (-T)


def theorem3_estimated_C() -> sp.Expr:
    """Theorem 3's plug-in geometry Ĉ_j = (r σ̂_j)^{-4/3}/4 (exact).

    Returns
    -------
    sympy.Expr
        (r·σ̂_j)^{−4/3}/4 in ``r, sigmahat_j``.
    """
    return (r_moment * sigma_hat_j) ** sp.Rational(-4, 3) / 4


def theorem3_factor_bound() -> sp.Expr:
    r"""Upper bound 2^{4/3}·(Σσ_j^{2/3})^{3/2} on PAGAN's rate factor with Theorem 3's plug-in geometry (derived).

    Under (10), PAGAN's rate factor tr(Ĉ^{-1/2})·√(Σ_j Ĉ_jj σ_j²) with Ĉ = (rσ̂)^{-4/3}/4 is at most
    2^{4/3}·(Σσ_j^{2/3})^{3/2} (derived: Ĉ_jj^{-1/2} = 2(rσ̂_j)^{2/3} ≤ 2^{5/3} r^{2/3} σ_j^{2/3} from σ̂_j ≤ 2σ_j, and
    Ĉ_jj σ_j² ≤ 2^{4/3} r^{-4/3} σ_j^{2/3}/4 from σ̂_j ≥ σ_j/2; r cancels).  The optimal C = σ^{-4/3} gives
    exactly (Σσ_j^{2/3})^{3/2}, so the plug-in geometry loses at most the constant 2^{4/3}.

    Returns
    -------
    sympy.Expr
        2^{4/3}·S_{2/3}^{3/2} in ``S_2_3`` (S_2_3 = :func:`power_sum` (2/3)).
    """
    return 2 ** sp.Rational(4, 3) * power_sum(sp.Rational(2, 3)) ** sp.Rational(3, 2)


def theorem3_rate() -> sp.Expr:
    r"""Theorem 3, second part: PAGAN with Ĉ = (rσ̂)^{-4/3}/4, p = log d, b = 1 under (10) has
    E[f(x_T;S) − min_X f(·;S)] ≤ R_ada(T) + O(1)·diam∞(X)·r·(Σ_j σ_j^{2/3})^{3/2}/(nε)·log(d/δ).

    Reading of the damaged extraction: the fragments after "O(1)diam∞(X)r" are Σ_{j=1}^d σ_j^{2/3}, the exponent
    3/2, nε in a denominator and "d … log … δ", i.e. eq. (7)'s privacy term times r (the factor log(d/δ)).  It is
    Theorem 2's large-p form (eq. (6)) at C = Ĉ with G_2p(Ĉ) ≲ r√p·√(Σ_j Ĉ_jj σ_j²) and p = log d:
    tr(Ĉ^{-1/2})·√(Σ_j Ĉ_jj σ_j²) ≤ 2^{4/3}·(Σσ_j^{2/3})^{3/2} under (10) (:func:`theorem3_factor_bound`) and
    √(log d·log(1/δ)) ≤ log(d/δ).  R_ada(T) is written without diam∞ as in the statement; an upper bound up to
    the unknown O(1) factor on its second term (constant 1 here).

    Returns
    -------
    sympy.Expr
        R_ada + diam∞·r·S_{2/3}^{3/2}·log(d/δ)/(nε) in the symbols R_ada, diam_inf, r, S_{2/3}, d, delta, n, epsilon.
    """
    return R_ada + diam_inf * r_moment * power_sum(sp.Rational(2, 3)) ** sp.Rational(3, 2) / (n * epsilon) \
        * sp.log(d / delta)


# --------------------------------------------------------------------------------------
# Lower bounds of §5: Proposition 1 / Theorem 4 (X∞), Proposition 2 / Theorem 5 (X₂)
# --------------------------------------------------------------------------------------
sigma_const = sp.Symbol("sigma", positive=True)


def proposition1_lower_bound() -> sp.Expr:
    r"""Proposition 1: sup_S E Σ_j |z̄_j|·1{sign M_j(S) ≠ sign z̄_j} ≥ (Σσ_j^{2/3})^{3/2}/(nε log^{5/2} d), when √d log d ≤ nε.

    Returns
    -------
    sympy.Expr
        The same expression as :func:`theorem4_lower_bound`, S_{2/3}^{3/2}/(n·ε·log^{5/2} d).
    """  # noqa: E501
    return theorem4_lower_bound()


def proposition2_lower_bound() -> sp.Expr:
    r"""Proposition 2 (‖z‖∞ ≤ σ, X₂ unit ball): sup_S E[f(M(S)) − f(x*)] ≥ min{σ√d, dσ/(nε)}.

    Reconstruction: the extraction reads "min{σ d, dσ/(nε)}" with a stray √; rescaling Bassily et al.'s
    Theorem 5.3 (‖z‖₂ ≤ 1: min{1, √d/(nε)}) to ‖z‖₂ ≤ σ√d gives min{σ√d, dσ/(nε)}.

    Returns
    -------
    sympy.Expr
        min{σ√d, dσ/(nε)} in ``sigma, d, n, epsilon``.
    """
    return sp.Min(sigma_const * sp.sqrt(d), d * sigma_const / (n * epsilon))


def theorem5_lower_bound() -> sp.Expr:
    """Theorem 5 (|z_j| ≤ σ_j, X₂): sup_S E[f(M(S)) − f(x*)] ≥ Σσ_j/(nε log d), when d ≤ nε.

    Returns
    -------
    sympy.Expr
        S_1/(n·ε·log d) in ``S_1, n, epsilon, d``.
    """
    return power_sum(1) / (n * epsilon * sp.log(d))


def theorem5_condition() -> sp.Rel:
    """Hypothesis of Theorem 5: d ≤ nε.

    Returns
    -------
    sympy.Rel
        The relation d <= n·ε in ``d, n, epsilon``.
    """
    return d <= n * epsilon


def upper_lower_ratio_box() -> sp.Expr:
    """PAGAN's eq.-(7) privacy term over Theorem 4's lower bound: log(d/δ)·log^{5/2} d (exact; the S's cancel).

    Returns
    -------
    sympy.Expr
        log(d/δ)·log^{5/2} d, in the expanded form log(d)^{7/2} − log(d)^{5/2}·log(δ), in ``d, delta``.
    """
    return sp.cancel(eq7_rate() / theorem4_lower_bound())


def upper_lower_ratio_ball() -> sp.Expr:
    """PASAN's eq.-(9) privacy term over Theorem 5's lower bound: log(d/δ)·log d (exact).

    Returns
    -------
    sympy.Expr
        log(d/δ)·log d, in the expanded form log(d)² − log(d)·log(δ), in ``d, delta``.
    """
    return sp.cancel(eq9_rate() / theorem5_lower_bound())


def noncentral_norm_moments(w, m, kmax: int) -> np.ndarray:
    """Raw moments E[Q^k], k = 1..kmax, of a weighted sum of non-central χ²₁ variables (exact up to rounding).

    E[Q^k], k = 1..kmax, for Q = Σ_j w_j (N_j + m_j)², N_j iid N(0, 1) (exact up to rounding; all terms positive).

    Q's cumulants are κ_r = 2^{r−1}(r−1)!·Σ_j w_j^r (1 + r m_j²) (non-central χ²); raw moments follow from
    E[Q^n] = Σ_{r=1}^{n} C(n−1, r−1) κ_r E[Q^{n−r}].  With Y = v + Z, Z_j ~ N(0, σ_j²), ‖Y‖_C² = Q with
    w_j = C_jj σ_j² and m_j = v_j/σ_j, so (E‖v + Z‖_C^{2k})^{1/(2k)} = E[Q^k]^{1/(2k)}; m = 0 gives
    :func:`gaussian_norm_moment`.

    Parameters
    ----------
    w : array_like of float
        The weights w_j, a finite 1-d array with entries >= 0.
    m : array_like of float
        The means m_j, a finite 1-d array of the same shape as ``w``.
    kmax : int
        The highest moment order, an integer in [1, 200].

    Returns
    -------
    numpy.ndarray
        Shape (kmax,) float array of E[Q^k] for k = 1..kmax.

    Raises
    ------
    ValueError
        When ``w`` and ``m`` differ in shape or ``w`` has a negative entry; non-finite or non-1-d arrays, or a
        ``kmax`` outside [1, 200], raise :class:`dpvalidate.InvalidParameter` (a ValueError subclass).
    """
    w = _v.finite_array("w", w, 1)
    m = _v.finite_array("m", m, 1)
    if w.shape != m.shape or np.any(w < 0):
        raise ValueError(f"w (non-negative) and m must have one shape (got {w.shape} and {m.shape})")
    kmax = _v.integer("kmax", kmax, 1, 200)
    kappa = [0.0] + [2.0 ** (r - 1) * math.factorial(r - 1) * float(np.sum(w**r * (1.0 + r * m * m)))
                     for r in range(1, kmax + 1)]
    mom = [1.0]
    for n_ in range(1, kmax + 1):
        mom.append(math.fsum(math.comb(n_ - 1, r - 1) * kappa[r] * mom[n_ - r] for r in range(1, n_ + 1)))
    return np.array(mom[1:])


G_inf = sp.Symbol("G_inf", positive=True)  # G_∞(I): the uniform bound on ‖∇F(x; z)‖₂


def standard_dp_sgd_rate() -> sp.Expr:
    """The standard private-SGD rate that Theorem 1 recovers with C = I and p = ∞ (§3.1).

    The standard rate of private SGD that §3.1 says Theorem 1 recovers with C = I and p = ∞ (the extraction
    breaks the fraction; read as) diam₂(X)·G_∞(I)·√(d log(1/δ))/(nε).

    Returns
    -------
    sympy.Expr
        diam2·G_inf·√(d·log(1/δ))/(n·ε) in ``diam2, G_inf, d, delta, n, epsilon``.
    """
    return diam2 * G_inf * sp.sqrt(d * sp.log(1 / delta)) / (n * epsilon)
