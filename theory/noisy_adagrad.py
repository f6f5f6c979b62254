r"""Closed forms of ``noisy_adagrad``: Kairouz, Diaz, Rush, Thakurta, *(Nearly) dimension independent
private ERM with AdaGrad rates via publicly estimated subspaces* (COLT 2021).

Notation: T steps, learning rate η, constraint-set diameter C (C_ada in App. B), gradient bound L,
n records, privacy (ε, δ), gradient-span rank k in ambient dimension p, subspace-oracle error γ,
G_t = (Σ_{s≤t} ∇_s∇_sᵀ)^{1/2}; ``trG`` stands for Tr(G_T) and ``noise_sum`` for Σ_t σ_b(t)² Tr(G_t⁺).
Matrix-valued statements (Lemmas 12, 13, 16, intrinsic dimension) are numeric functions of arrays;
everything else returns a SymPy expression.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import dpvalidate as _v

T = sp.Symbol("T", positive=True)
t = sp.Symbol("t", positive=True)
eta = sp.Symbol("eta", positive=True)
C = sp.Symbol("C", positive=True)  # diameter of the constraint set
L = sp.Symbol("L", positive=True)
n = sp.Symbol("n", positive=True, integer=True)
k = sp.Symbol("k", positive=True, integer=True)
epsilon = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
gamma = sp.Symbol("gamma", nonnegative=True)
alpha = sp.Symbol("alpha", nonnegative=True)
trG = sp.Symbol("trG", positive=True)  # Tr(G_T)
noise_sum = sp.Symbol("noise_sum", nonnegative=True)  # Σ_t σ_b(t)² Tr(G_t⁺)
theta_norm = sp.Symbol("theta_norm", positive=True)  # ‖θ*‖_M
sigma = sp.Symbol("sigma", nonnegative=True)
Delta = sp.Symbol("Delta", positive=True)  # ℓ2 sensitivity


def _array(name: str, x, ndim: int) -> np.ndarray:
    return _v.finite_array(name, x, ndim)


#: lemma13_sides' work: one p×p eigendecomposition per row of grads, T·p³ ≤ this (about a minute)
LEMMA13_MAX_WORK = 10**11


# --------------------------------------------------------------------------------------
# Theorem 3.1, eq. (25), and the learning rate
# --------------------------------------------------------------------------------------
def theorem3_1_bound(with_lemma12_factor: bool = False) -> sp.Expr:
    r"""noisy_adagrad Theorem 3.1's upper bound in the explicit form of eq. (25).

    noisy_adagrad Theorem 3.1 in the explicit form of eq. (25) (upper bound, explicit constants):

        (C²/(2ηT) + 8η/(6T))·Tr(G_T) + (η/(2T))·Σ_t σ_b(t)²Tr(G_t⁺) + C·L·γ.

    The γ term is the per-step bound C·L·γ of eq. (24) averaged over T (eq. (25) prints it as γ under
    its L = C = O(1) convention).  Eq. (25) drops the 4/3 of eq. (21) in front of the gradient-noise
    term; ``with_lemma12_factor=True`` restores it (η/(2T)·(4/3)·Σσ_b²Tr G_t⁺).

    Parameters
    ----------
    with_lemma12_factor : bool, optional
        False (default): eq. (25) as printed; True: the gradient-noise term multiplied by 4/3 as in eq. (21).

    Returns
    -------
    sympy.Expr
        (C²/(2ηT) + 4η/(3T))·trG + (η/(2T))·noise_sum (times 4/3 if ``with_lemma12_factor``) + C·L·γ, in
        ``C, eta, T, trG, noise_sum, L, gamma``.
    """
    noise_coef = sp.Rational(4, 3) if with_lemma12_factor else 1
    return ((C**2 / (2 * eta * T) + 8 * eta / (6 * T)) * trG + eta / (2 * T) * noise_coef * noise_sum
            + C * L * gamma)


def theorem3_1_eta() -> sp.Expr:
    """The η minimising the noiseless part of (25): C²/(2η) = 4η/3 ⇒ η = C·√(3/8) (exact).

    Returns
    -------
    sympy.Expr
        C·√(3/8) (= √6·C/4) in ``C``.
    """
    return C * sp.sqrt(sp.Rational(3, 8))


# --------------------------------------------------------------------------------------
# Corollary 3, Remark 4, Corollary 6
# --------------------------------------------------------------------------------------
def trace_growth_exponent(a=alpha) -> sp.Expr:
    """Exponent (1 − 2α)/2 of T in Tr(G_T) for ‖∇_t‖ ≍ t^(−α), α < 1/2 (asymptotic; Corollary 6).

    Exponent of T in Tr(G_T) when ‖∇_t‖ ≍ t^(−α) in a fixed rank-k span, α < 1/2 (asymptotic):
    Tr(G_T) ≍ √(Σ_t t^(−2α)) ≍ T^{(1−2α)/2} — as in the proof of Corollary 6 (App. C.7).

    ``a`` a SymPy expression or a number in [0, 1/2).

    Parameters
    ----------
    a : sympy.Expr or float, optional
        The decay exponent α of the gradient norms (default: the symbol ``alpha``); a number must be finite and
        in [0, 1/2).

    Returns
    -------
    sympy.Expr or float
        (1 − 2a)/2: a SymPy expression for a symbolic ``a``, a float for a number.

    Raises
    ------
    ValueError
        When a numeric ``a`` lies outside [0, 1/2) (a non-finite or non-numeric ``a`` raises
        :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers).
    """
    if not isinstance(a, sp.Basic):
        a = _v.finite("a", a)
        if not 0 <= a < 0.5:
            raise ValueError(f"a must be in [0, 1/2) (the regime of Corollary 6; got {a!r})")
    return (1 - 2 * a) / 2


def remark4_exponents() -> tuple[sp.Expr, sp.Expr]:
    """Remark 4 as printed (asymptotic): the exponents 3/8 of Tr(G_T) and −5/8 of the regret.

    Remark 4 as printed (asymptotic): ‖∇_t‖ = O(t^(−1/4)) ⇒ Tr(G_T) = O(√(Σ_t t^(−1/4))) = O(T^{3/8}) and
    regret O(T^{−5/8}).  (The square root of Σ‖∇_t‖² = Σ t^(−1/2) gives T^{1/4}; 3/8 is an upper bound.)

    Returns
    -------
    trace_exponent : sympy.Rational
        3/8, the exponent of T in Tr(G_T) as Remark 4 prints it.
    regret_exponent : sympy.Rational
        −5/8, the exponent of T in the regret as printed.
    """
    return sp.Rational(3, 8), -sp.Rational(5, 8)


def remark4_paper_sum_exponent() -> sp.Expr:
    """The exponent Remark 4 derives, from √(Σ_t t^(−1/4)) (SymPy: the sum's growth T^{3/4}, square-rooted).

    Returns
    -------
    sympy.Expr
        The exponent 3/8 (half of the sum's growth exponent 3/4), computed by SymPy.
    """
    s = sp.Symbol("s", positive=True)
    growth = sp.limit(sp.log(sp.integrate(s ** sp.Rational(-1, 4), (s, 1, T))) / sp.log(T), T, sp.oo)
    return growth / 2


def corollary3_rate() -> sp.Expr:
    """Corollary 3 (σ_b(t) = O(‖∇_t‖); asymptotic, unknown constant): regret O(Tr(G_T)/T + γ).

    Returns
    -------
    sympy.Expr
        trG/T + γ in ``trG, T, gamma``.
    """
    return trG / T + gamma


def corollary6_T() -> sp.Expr:
    """Corollary 6's horizon T = (εn)^{2/(1+2α)} (exact).

    Returns
    -------
    sympy.Expr
        (ε·n)^{2/(1+2α)} in ``epsilon, n, alpha``.
    """
    return (epsilon * n) ** (2 / (1 + 2 * alpha))


def corollary6_rate() -> sp.Expr:
    """Corollary 6 (asymptotic, unknown constant): excess risk O(√(k log(1/δ))/(εn)), free of p.

    Returns
    -------
    sympy.Expr
        √(k·log(1/δ))/(ε·n) in ``k, delta, epsilon, n``.
    """
    return sp.sqrt(k * sp.log(1 / delta)) / (epsilon * n)


def corollary6_proof_bound() -> sp.Expr:
    """The last display of App. C.7 (up to constants): √(1/T^{1+2α} + 1/(ε²n²)) + 1/(εn).

    Returns
    -------
    sympy.Expr
        √(T^{−(1+2α)} + 1/(εn)²) + 1/(εn) in ``T, alpha, epsilon, n``.
    """
    return sp.sqrt(1 / T ** (1 + 2 * alpha) + 1 / (epsilon * n) ** 2) + 1 / (epsilon * n)


# --------------------------------------------------------------------------------------
# Theorem 5.1 (unconstrained DP-GD)
# --------------------------------------------------------------------------------------
def theorem5_1_bound() -> sp.Expr:
    """noisy_adagrad Theorem 5.1, eq. (14): DP-GD's excess risk (explicit upper bound in expectation).

    noisy_adagrad Theorem 5.1, eq. (14) (explicit upper bound in expectation):
    E L(θ_priv) − L(θ*) ≤ L‖θ*‖_M √(1 + 2·rank(M)·log(1/δ))/(εn), with T = ε²n².

    Returns
    -------
    sympy.Expr
        L·‖θ*‖_M·√(1 + 2k·log(1/δ))/(ε·n) in ``L, theta_norm, k, delta, epsilon, n`` (k = rank(M)).
    """
    return L * theta_norm * sp.sqrt(1 + 2 * k * sp.log(1 / delta)) / (epsilon * n)


def theorem5_1_sigma() -> sp.Expr:
    """DP-GD noise std of App. C.8, σ = L√(2T log(1/δ))/(εn) (the constant 2 reconstructed).

    DP-GD noise std of App. C.8: σ = L√(2T log(1/δ))/(εn) — the constant 2 is reconstructed (the paper
    writes O(·)) as the one that turns ‖θ*‖_M√((L² + kσ²)/T) at T = ε²n² into eq. (14) exactly.

    Returns
    -------
    sympy.Expr
        L·√(2T·log(1/δ))/(ε·n) in ``L, T, delta, epsilon, n``.
    """
    return L * sp.sqrt(2 * T * sp.log(1 / delta)) / (epsilon * n)


def theorem5_1_eta() -> sp.Expr:
    """The learning rate of App. C.8: η = ‖θ*‖_M / √(T(L² + kσ²)) (minimises the bound below).

    Returns
    -------
    sympy.Expr
        ‖θ*‖_M/√(T(L² + kσ²)) in ``theta_norm, T, L, k, sigma``.
    """
    return theta_norm / sp.sqrt(T * (L**2 + k * sigma**2))


def theorem5_1_general_bound() -> sp.Expr:
    """App. C.8 before the choice of η: ‖θ*‖²_M/(2ηT) + (η/2)(L² + kσ²) (explicit upper bound).

    Returns
    -------
    sympy.Expr
        ‖θ*‖²_M/(2ηT) + (η/2)(L² + kσ²) in ``theta_norm, eta, T, L, k, sigma``.
    """
    return theta_norm**2 / (2 * eta * T) + eta / 2 * (L**2 + k * sigma**2)


# --------------------------------------------------------------------------------------
# Lemma 5 (sensitivity of G_t) and the privacy calibrations
# --------------------------------------------------------------------------------------
def lemma5_statement() -> sp.Expr:
    """Lemma 5 as stated (asymptotic, unknown constant): Δ₂(G_t) = O(L√t/n).

    Returns
    -------
    sympy.Expr
        L·√t/n in ``L, t, n``.
    """
    return L * sp.sqrt(t) / n


def lemma5_proof_line() -> sp.Expr:
    """The last line (48) of Lemma 5's proof: Δ₂(G_t) ≤ L√t/√n.

    Returns
    -------
    sympy.Expr
        L·√t/√n in ``L, t, n``.
    """
    return L * sp.sqrt(t) / sp.sqrt(n)


def lemma5_rigorous() -> sp.Expr:
    """A rigorous bound Δ₂(G_t) ≤ √2·L√t/n (our addition, not the paper's; explicit upper bound).

    A rigorous bound (our addition, not the paper's): G_t = |A_tᵀ| with A_t the p×t matrix of the
    gradients, and ‖|X| − |Y|‖_F ≤ √2‖X − Y‖_F (Araki–Yamagami); neighbours change each column by at
    most L/n, so Δ₂(G_t) ≤ √2·L√t/n (explicit upper bound).

    Returns
    -------
    sympy.Expr
        √2·L·√t/n in ``L, t, n``.
    """
    return sp.sqrt(2) * L * sp.sqrt(t) / n


def theorem10_sigma() -> sp.Expr:
    """Theorem 10 (Dwork–Roth A.1; explicit): the Gaussian mechanism's noise std σ = cΔ₂/ε.

    Theorem 10 (Dwork–Roth A.1; explicit): σ = cΔ₂/ε with c = √(2 ln(1.25/δ)) (the extraction prints
    'c² > 2 ln(1.25δ)'; the classical statement has 1.25/δ), claimed (ε, δ)-DP for ε ∈ (0, 1).

    Returns
    -------
    sympy.Expr
        √(2·log(5/(4δ)))·Δ/ε in ``delta, Delta, epsilon``.
    """
    return sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) * Delta / epsilon


def sigma_b_calibration() -> sp.Expr:
    """§4.1 (asymptotic, unknown constant): σ_b = O(L√(T log(1/δ))/(εn)) makes the T noisy gradients (ε/2, δ/2)-DP.

    Returns
    -------
    sympy.Expr
        L·√(T·log(1/δ))/(ε·n) in ``L, T, delta, epsilon, n``.
    """
    return L * sp.sqrt(T * sp.log(1 / delta)) / (epsilon * n)


def sigma_B_calibration() -> sp.Expr:
    """§4.1 (asymptotic, unknown constant): the noise std σ_B(t) for the preconditioners.

    §4.1 (asymptotic, unknown constant): σ_B(t) = O(L√(T·t·log(1/δ))/(ε√n)) for the preconditioners —
    built on Lemma 5's proof line L√t/√n, not on its statement L√t/n.

    Returns
    -------
    sympy.Expr
        L·√(T·t·log(1/δ))/(ε·√n) in ``L, T, t, delta, epsilon, n``.
    """
    return L * sp.sqrt(T * t * sp.log(1 / delta)) / (epsilon * sp.sqrt(n))


def goe_noise_multiplier() -> sp.Expr:
    """Noise multiplier σ_B√2/Δ of GOE matrix noise σ_B·M against Frobenius sensitivity Δ (exact).

    A GOE matrix σ_B·M is isotropic Gaussian noise of std σ_B√2 in the coordinates (M_ii, √2 M_ij)_{i<j},
    whose Euclidean norm is the Frobenius norm; so its noise multiplier against Frobenius sensitivity Δ is
    σ_B√2/Δ (exact).

    Returns
    -------
    sympy.Expr
        √2·σ/Δ in ``sigma, Delta`` (σ standing for σ_B).
    """
    return sigma * sp.sqrt(2) / Delta


# --------------------------------------------------------------------------------------
# Exact lemmas (numeric)
# --------------------------------------------------------------------------------------
def psd_sqrt_pinv(S: np.ndarray, rtol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(S^{1/2}, (S^{1/2})⁺) by eigh; root eigenvalues ≤ max(rtol, √(4p·ε))·max count as zero.

    ``S`` a finite symmetric (to rounding) square matrix, ``rtol`` a finite number >= 0.

    Parameters
    ----------
    S : array_like of float
        A finite square (p, p) matrix, symmetric up to rounding (|S − Sᵀ| ≤ 4p·eps·max|S|); its symmetric
        part is used and negative eigenvalues count as 0.
    rtol : float, optional
        Relative cut-off (default 1e-12), finite and >= 0: root eigenvalues ≤ rtol × the largest are dropped,
        and so are those ≤ √(4p·ε) × the largest (the rounding level of eigh for a zero eigenvalue of S).

    Returns
    -------
    root : numpy.ndarray
        S^{1/2}, shape (p, p).
    root_pinv : numpy.ndarray
        (S^{1/2})⁺, shape (p, p) (the inverse on the kept eigenvectors, 0 elsewhere).

    Raises
    ------
    ValueError
        When ``rtol`` < 0 or ``S`` is not symmetric up to rounding; a non-square or non-finite ``S``, a
        non-finite ``rtol`` or an overflowing result raises
        :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    S = _v.square_matrix("S", S)
    rtol = _v.finite("rtol", rtol)
    if rtol < 0:
        raise ValueError(f"rtol must be >= 0 (got {rtol!r})")
    # symmetric up to the rounding of a computed Gram matrix (each entry a p-term sum: error <= p·ε·max|S|)
    asym = float(np.max(np.abs(S - S.T)))
    if asym > 4 * S.shape[0] * np.finfo(float).eps * float(np.max(np.abs(S))):
        raise ValueError(f"S must be a symmetric matrix (up to rounding) (got max |S − Sᵀ| = {asym:.3g})")
    w, U = np.linalg.eigh((S + S.T) / 2)
    r = np.sqrt(np.clip(w, 0.0, None))
    # eigh's eigenvalues of S carry an absolute rounding error of about p·ε·max(w), so a zero eigenvalue of S
    # comes back as up to ~p·ε·max(w) and its root as up to ~√(p·ε)·max(r) (≈1e-8·max(r), far above a
    # 1e-12 cut-off): such a root is rounding, not signal, and is dropped too (else its inverse is ~1e8)
    floor = math.sqrt(4 * S.shape[0] * np.finfo(float).eps)
    keep = r > max(rtol, floor) * r.max(initial=0.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        inv = np.where(keep, 1.0 / np.where(keep, r, 1.0), 0.0)
        out = (U * np.where(keep, r, 0.0)) @ U.T, (U * inv) @ U.T
    return _v.finite_result("S", out[0]), _v.finite_result("S, rtol", out[1])


def _sqrt_pinv_of_gram(S: np.ndarray, rtol: float) -> np.ndarray:
    """(S^{1/2})⁺ of :func:`psd_sqrt_pinv`, the same arithmetic, for a finite, exactly symmetric S and a valid
    ``rtol`` (a sum of outer products): none of its checks, which cost more than the eigendecomposition at the
    small p of Lemma 13's searches.  A non-finite result is handed to :func:`psd_sqrt_pinv` to raise its error."""
    w, U = np.linalg.eigh((S + S.T) / 2)
    r = np.sqrt(np.clip(w, 0.0, None))
    floor = math.sqrt(4 * S.shape[0] * np.finfo(float).eps)
    keep = r > max(rtol, floor) * r.max(initial=0.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        out = (U * np.where(keep, 1.0 / np.where(keep, r, 1.0), 0.0)) @ U.T
    if not np.all(np.isfinite(out)):
        return psd_sqrt_pinv(S, rtol)[1]
    return out

def lemma13_sides(grads, rtol: float = 1e-12) -> tuple[float, float]:
    """Lemma 13 (Hazan's Lemma 5.15; exact): Σ_t ∇_tᵀG_t⁺∇_t ≤ 2 Tr(G_T); returns (left, right).

    ``grads`` (T, p) finite with T·p³ ≤ :data:`LEMMA13_MAX_WORK` (one p×p eigendecomposition per row).

    Parameters
    ----------
    grads : array_like of float
        The gradients ∇_1..∇_T as the rows of a finite (T, p) array, with T·p³ ≤ :data:`LEMMA13_MAX_WORK`.
    rtol : float, optional
        The cut-off of :func:`psd_sqrt_pinv` (default 1e-12), a number in (0, 1).

    Returns
    -------
    left : float
        Σ_t ∇_tᵀG_t⁺∇_t.
    right : float
        2·Tr(G_T).

    Raises
    ------
    ValueError
        When ``grads`` exceeds the work limit, ``rtol`` is not a number in (0, 1), or G_T overflows float64;
        a non-2-d or non-finite ``grads`` raises
        :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    g = _array("grads", grads, 2)
    if g.shape[0] * g.shape[1] ** 3 > LEMMA13_MAX_WORK:
        raise ValueError(f"grads must have T·p³ <= {LEMMA13_MAX_WORK:.0e} (one p×p eigendecomposition per row; "
                         f"got shape {g.shape})")
    if not (isinstance(rtol, (int, float, np.floating)) and not isinstance(rtol, bool) and 0 < rtol < 1):
        raise ValueError(f"rtol must be a number in (0, 1) (got {rtol!r})")
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.all(np.isfinite(g.T @ g)):
            raise ValueError("grads must be small enough that G_T = Σ ∇_t∇_tᵀ is finite in float64")
    S = np.zeros((g.shape[1], g.shape[1]))
    lhs = 0.0
    for row in g:
        S += np.outer(row, row)  # exactly symmetric: row_i·row_j = row_j·row_i
        Gi = _sqrt_pinv_of_gram(S, rtol)
        lhs += float(row @ Gi @ row)
    G, _ = psd_sqrt_pinv(S, rtol)
    return _v.finite_result("grads, rtol", (lhs, 2.0 * float(np.trace(G))))


def lemma13_sides_many(grads, rtol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """:func:`lemma13_sides` of a stack of gradient sequences of one shape, bit-for-bit, in stacked NumPy calls.

    Each step's p×p eigendecompositions and products are done for the whole stack at once (NumPy loops the same
    LAPACK/BLAS routine over the stack), so every entry equals :func:`lemma13_sides` of its sequence exactly; what
    is saved is the per-call Python overhead, which dominates at the small p of Lemma 13's searches (the
    finite-difference gradients of its L-BFGS-B search evaluate T·p + 1 sequences of one shape at a time).

    Parameters
    ----------
    grads : array_like of float
        Finite gradient sequences as a (k, T, p) array (k >= 1), each with T·p³ ≤ :data:`LEMMA13_MAX_WORK`.
    rtol : float, optional
        The cut-off of :func:`psd_sqrt_pinv` (default 1e-12), a number in (0, 1).

    Returns
    -------
    left : numpy.ndarray
        Σ_t ∇_tᵀG_t⁺∇_t of each sequence, shape (k,).
    right : numpy.ndarray
        2·Tr(G_T) of each sequence, shape (k,).

    Raises
    ------
    ValueError
        As :func:`lemma13_sides` raises for the first sequence it rejects (a stack in which some sequence is
        invalid or overflows is handed to it one sequence at a time).
    """
    g = _array("grads", grads, 3)
    if not (isinstance(rtol, (int, float, np.floating)) and not isinstance(rtol, bool) and 0 < rtol < 1):
        raise ValueError(f"rtol must be a number in (0, 1) (got {rtol!r})")
    k, T, p = g.shape
    with np.errstate(over="ignore", invalid="ignore"):
        ok = k > 0 and T * p ** 3 <= LEMMA13_MAX_WORK and bool(np.all(np.isfinite(np.swapaxes(g, 1, 2) @ g)))
    if not ok:
        sides = [lemma13_sides(x, rtol) for x in g]
        return np.array([a for a, _ in sides], dtype=float), np.array([b for _, b in sides], dtype=float)
    floor = math.sqrt(4 * p * np.finfo(float).eps)
    cut = max(rtol, floor)
    S = np.zeros((k, p, p))
    lhs = np.zeros(k)
    finite = True  # every G_t⁺ finite (lemma13_sides raises on the first that is not)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for i in range(T):
            row = g[:, i, :]
            S += row[:, :, None] * row[:, None, :]  # the entries of np.outer(row, row), added as lemma13_sides does
            w, U = np.linalg.eigh((S + np.swapaxes(S, 1, 2)) / 2)
            r = np.sqrt(np.clip(w, 0.0, None))
            keep = r > cut * np.max(r, axis=1, initial=0.0)[:, None]
            Gi = (U * np.where(keep, 1.0 / np.where(keep, r, 1.0), 0.0)[:, None, :]) @ np.swapaxes(U, 1, 2)
            finite = finite and bool(np.all(np.isfinite(Gi)))
            lhs += ((row[:, None, :] @ Gi) @ row[:, :, None])[:, 0, 0]
        w, U = np.linalg.eigh((S + np.swapaxes(S, 1, 2)) / 2)
        r = np.sqrt(np.clip(w, 0.0, None))
        keep = r > cut * np.max(r, axis=1, initial=0.0)[:, None]
        G = (U * np.where(keep, r, 0.0)[:, None, :]) @ np.swapaxes(U, 1, 2)
        rhs = 2.0 * np.trace(G, axis1=1, axis2=2)
    if not (finite and np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs)) and np.all(np.isfinite(G))):
        sides = [lemma13_sides(x, rtol) for x in g]  # raises lemma13_sides's error for the offending sequence
        return np.array([a for a, _ in sides], dtype=float), np.array([b for _, b in sides], dtype=float)
    return lhs, rhs


def lemma16_sides(a) -> tuple[float, float]:
    """Lemma 16 (exact): Σ_i a_i/√(Σ_{j≤i} a_j) ≤ 2√(Σ_i a_i) for a_i ≥ 0 (a term with zero prefix sum is 0).

    Parameters
    ----------
    a : array_like of float
        a_1..a_n, a 1-d sequence of finite numbers >= 0.

    Returns
    -------
    left : float
        Σ_i a_i/√(Σ_{j≤i} a_j) (correctly rounded sum).
    right : float
        2·√(Σ_i a_i).

    Raises
    ------
    ValueError
        When an entry of ``a`` is negative; non-finite or non-1-d input, or an overflowing result, raises
        :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    a = _array("a", a, 1)
    if np.any(a < 0):
        raise ValueError("a must have non-negative entries")
    pre = np.cumsum(a)
    terms = np.where(pre > 0, a / np.sqrt(np.where(pre > 0, pre, 1.0)), 0.0)
    return _v.finite_result("a", (float(math.fsum(terms.tolist())), 2.0 * math.sqrt(math.fsum(a.tolist()))))


def lemma12_ratio(A, B, u, v) -> tuple[float, float]:
    """Lemma 12's two sides: (|⟨u, C⁻¹v⟩|, (4/3)|⟨u, A⁺v⟩|) with C = A + B (C inverted exactly, A pseudo-inverted).

    Parameters
    ----------
    A : array_like of float
        A finite (p, p) matrix (pseudo-inverted as a Hermitian matrix, rcond 1e-12).
    B : array_like of float
        A finite (p, p) matrix; A + B must be invertible.
    u : array_like of float
        A finite vector of shape (p,).
    v : array_like of float
        A finite vector of shape (p,).

    Returns
    -------
    left : float
        |⟨u, (A + B)⁻¹v⟩|.
    right : float
        (4/3)·|⟨u, A⁺v⟩|.

    Raises
    ------
    ValueError
        When the shapes do not agree or NumPy finds A + B singular; non-finite input or an overflowing result
        raises :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    A = _v.square_matrix("A", A)
    B = _v.square_matrix("B", B)
    u = _array("u", u, 1)
    v = _array("v", v, 1)
    p = A.shape[0]
    if B.shape != A.shape or u.shape != (p,) or v.shape != (p,):
        raise ValueError(f"A, B, u, v must have shapes (p, p), (p, p), (p,), (p,) with one p (got {A.shape}, "
                         f"{B.shape}, {u.shape}, {v.shape})")
    Cm = A + B
    try:
        lhs = abs(float(u @ np.linalg.solve(Cm, v)))
        rhs = 4.0 / 3.0 * abs(float(u @ np.linalg.pinv(A, rcond=1e-12, hermitian=True) @ v))
    except np.linalg.LinAlgError:
        raise ValueError("A, B must have an invertible sum A + B (Lemma 12's C)") from None
    return _v.finite_result("A, B, u, v", (lhs, rhs))


def intrinsic_dimension(A) -> float:
    """intdim(A) = Tr(A)/‖A‖_op for PSD A (§6; exact); 1 ≤ intdim ≤ rank.

    Parameters
    ----------
    A : array_like of float
        A finite positive semi-definite (p, p) matrix; its symmetric part is used and negative eigenvalues
        (rounding) count as 0.

    Returns
    -------
    float
        Tr(A)/‖A‖_op.

    Raises
    ------
    ValueError
        When A has no positive eigenvalue; a non-square or non-finite ``A`` raises
        :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    A = _v.square_matrix("A", A)
    w = np.linalg.eigvalsh((A + A.T) / 2)
    if w.max(initial=0.0) <= 0:
        raise ValueError("A must be a non-zero positive semi-definite matrix")
    return _v.finite_result("A", float(np.sum(np.clip(w, 0, None)) / w.max()))


# --------------------------------------------------------------------------------------
# Theorem 3.1's subspace hypotheses
# --------------------------------------------------------------------------------------
def _projector(name: str, V) -> np.ndarray:
    """VVᵀ for V with orthonormal columns (p×k, k >= 0); a (p, 0) V gives the zero projector."""
    V = _array(name, V, 2)
    k = V.shape[1]
    if V.shape[0] == 0 or k > V.shape[0]:
        raise ValueError(f"{name} must be p×k with 0 <= k <= p and p >= 1 (got shape {V.shape})")
    if k and float(np.max(np.abs(V.T @ V - np.eye(k)))) > 1e-10:
        raise ValueError(f"{name} must have orthonormal columns (max |VᵀV − I| > 1e-10)")
    return V @ V.T


def theorem3_1_assumption_residual(V, Vt) -> float:
    """Theorem 3.1's hypothesis Ṽ_tṼ_tᵀ(I − V_tV_tᵀ) = 0, as the residual ‖ṼṼᵀ(I − VVᵀ)‖_op (exact; 0 iff it holds).

    ``V``, ``Vt`` p×k and p×k̃ with orthonormal columns (k, k̃ may differ; k̃ = 0 allowed).

    Parameters
    ----------
    V : array_like of float
        V_t, a p×k matrix with orthonormal columns (p >= 1, 0 <= k <= p; checked to 1e-10).
    Vt : array_like of float
        Ṽ_t, a p×k̃ matrix with orthonormal columns and the same p (k̃ may differ from k; k̃ = 0 allowed).

    Returns
    -------
    float
        ‖Ṽ_tṼ_tᵀ(I − V_tV_tᵀ)‖_op >= 0.

    Raises
    ------
    ValueError
        When ``V`` and ``Vt`` differ in their number of rows, or either is not p×k with orthonormal columns.
    """
    P, Pt = _projector("V", V), _projector("Vt", Vt)
    if P.shape != Pt.shape:
        raise ValueError(f"V and Vt must have the same number of rows (got {P.shape[0]} and {Pt.shape[0]})")
    return float(np.linalg.norm(Pt @ (np.eye(P.shape[0]) - P), 2))


def subspace_gap(V, Vt) -> float:
    """The subspace gap ‖V_tV_tᵀ − Ṽ_tṼ_tᵀ‖_op that γ bounds in Theorem 3.1 (exact).

    The quantity γ bounds in Theorem 3.1: ‖V_tV_tᵀ − Ṽ_tṼ_tᵀ‖_op (exact; the sine of the largest principal
    angle when k̃ = k).  ``V``, ``Vt`` as in :func:`theorem3_1_assumption_residual`.

    Parameters
    ----------
    V : array_like of float
        V_t, a p×k matrix with orthonormal columns (p >= 1, 0 <= k <= p; checked to 1e-10).
    Vt : array_like of float
        Ṽ_t, a p×k̃ matrix with orthonormal columns and the same p (k̃ may differ from k; k̃ = 0 allowed).

    Returns
    -------
    float
        ‖V_tV_tᵀ − Ṽ_tṼ_tᵀ‖_op in [0, 1].

    Raises
    ------
    ValueError
        When ``V`` and ``Vt`` differ in their number of rows, or either is not p×k with orthonormal columns.
    """
    P, Pt = _projector("V", V), _projector("Vt", Vt)
    if P.shape != Pt.shape:
        raise ValueError(f"V and Vt must have the same number of rows (got {P.shape[0]} and {Pt.shape[0]})")
    return float(np.linalg.norm(P - Pt, 2))


def theorem3_1_gamma_p2k1() -> dict:
    """Theorem 3.1's subspace hypothesis and gap in the smallest case p = 2, k = 1 (SymPy, exact).

    The smallest case p = 2, k = 1 in SymPy (exact): V = e₁, Ṽ = (cos θ, sin θ). Returns the hypothesis'
    residual matrix ṼṼᵀ(I − VVᵀ) in θ, the gap's eigenvalues (those of VVᵀ − ṼṼᵀ), the solutions θ ∈ [0, 2π) of
    the hypothesis, and the set of gaps ‖VVᵀ − ṼṼᵀ‖_op at those solutions.

    Returns
    -------
    dict
        Keys ``"theta"`` (the symbol θ), ``"residual"`` (2×2 ``sympy.Matrix``), ``"gap_eigenvalues"``
        (list of ``sympy.Expr``, ±sin θ), ``"solutions"`` (``sympy.Set``, {0, π})
        and ``"gaps"`` (``sympy.FiniteSet``, {0}).
    """
    th = sp.Symbol("theta", real=True)
    V = sp.Matrix([1, 0])
    Vt = sp.Matrix([sp.cos(th), sp.sin(th)])
    P, Pt = V * V.T, Vt * Vt.T
    resid = sp.simplify(Pt * (sp.eye(2) - P))
    eig = [sp.simplify(e) for e in (P - Pt).eigenvals()]
    sols = sp.Interval.Ropen(0, 2 * sp.pi)
    for entry in set(resid) - {0}:
        sols = sols.intersect(sp.solveset(entry, th, sp.Interval.Ropen(0, 2 * sp.pi)))
    gaps = sp.FiniteSet(*[sp.Max(*[sp.Abs(e.subs(th, s)) for e in eig]) for s in sols])
    return {"theta": th, "residual": resid, "gap_eigenvalues": eig, "solutions": sols, "gaps": gaps}


# --------------------------------------------------------------------------------------
# Corollary 6's dependence on k: main text, App. C.7, and the proof's route
# --------------------------------------------------------------------------------------
m_full = sp.Symbol("m", positive=True)  # the number of steps t ≤ T at which rank(G_t) = k


def corollary6_appendix_rate() -> sp.Expr:
    """Corollary 6 as App. C.7 states it (asymptotic, unknown constant): O(√(log(1/δ))/(εn)) — no k.

    Returns
    -------
    sympy.Expr
        √(log(1/δ))/(ε·n) in ``delta, epsilon, n``.
    """
    return sp.sqrt(sp.log(1 / delta)) / (epsilon * n)


def corollary6_proof_floor() -> sp.Expr:
    r"""App. C.7's route: the least it can give for rank-k gradients (explicit lower bound; our derivation).

    The least that C.7's route (eq. (25) at its best η, γ = 0, σ_b = L√(T log(1/δ))/(εn) of §4.1) can give, for
    ANY gradient sequence whose G_t has rank k at m of the T steps (explicit lower bound; our derivation):

        min_η [(C²/(2ηT) + 4η/(3T))·Tr G_T + (η/(2T))·σ_b² Σ_t Tr G_t⁺] ≥ (C/T)·√(Tr G_T · σ_b² Σ_t Tr G_t⁺)
                                                                    ≥ (C/T)·σ_b·k·√m,

    since G_t ≼ G_T (the square root is operator monotone) and Tr(X)·Tr(X⁺) ≥ rank(X)² (Cauchy–Schwarz on the
    positive eigenvalues). With m = T it is C·L·k·√(log(1/δ))/(εn): linear in k, free of T.

    Returns
    -------
    sympy.Expr
        C·k·σ_b·√m/T = C·L·k·√m·√(log(1/δ))/(√T·ε·n) in ``C, L, k, m, T, delta, epsilon, n``.
    """
    return C * k * sigma_b_calibration() * sp.sqrt(m_full) / T


def corollary6_proof_isotropic() -> sp.Expr:
    r"""App. C.7's route for isotropic rank-k gradients ‖∇_t‖ = t^(−α) (explicit to leading order; ours).

    C.7's route in the case its growth rates describe (explicit to leading order; our derivation): ‖∇_t‖ = t^(−α)
    spread evenly over a rank-k span, so G_t = √(S_t/k)·P with S_t = Σ_{s≤t} s^(−2α) ≈ T^{1−2α}/(1−2α): Tr G_T =
    √(k S_T), Σ_t Tr G_t⁺ = k^{3/2} Σ_t S_t^{−1/2} ≈ k^{3/2}√(1−2α)·2T^{(1+2α)/2}/(1+2α). Eq. (25) at its best η,
    2√(a·b) with a = C²Tr G_T/(2T), b = (4/3·Tr G_T + σ_b²Σ_t Tr G_t⁺/2)/T, at T = (εn)^{2/(1+2α)}.

    Returns
    -------
    sympy.Expr
        The value 2√(a·b) at T = (εn)^{2/(1+2α)}, in ``C, L, k, alpha, delta, epsilon, n``.
    """
    S_T = T ** (1 - 2 * alpha) / (1 - 2 * alpha)
    trg = sp.sqrt(k * S_T)
    sum_pinv = k ** sp.Rational(3, 2) * sp.sqrt(1 - 2 * alpha) * 2 * T ** ((1 + 2 * alpha) / 2) / (1 + 2 * alpha)
    a = C**2 * trg / (2 * T)
    b = (sp.Rational(4, 3) * trg + sigma_b_calibration() ** 2 * sum_pinv / 2) / T
    return (2 * sp.sqrt(a * b)).subs(T, corollary6_T())


# --------------------------------------------------------------------------------------
# Lemma 14: projection in a seminorm
# --------------------------------------------------------------------------------------
def seminorm(kind: str, M, z) -> float:
    """A seminorm of z: √(zᵀMz) (kind "quad") or ‖Mz‖_q (kind "l<q>") (exact up to rounding).

    A seminorm of z (exact up to rounding): kind "quad" gives √(zᵀMz) for M positive semi-definite (the H_t-seminorm
    of Algorithm 1), kind "l<q>" (q ≥ 1 or "inf", e.g. "l4", "linf") gives ‖Mz‖_q for any square M (a norm when M
    is invertible, a seminorm otherwise).

    Parameters
    ----------
    kind : str
        ``"quad"`` for √(zᵀMz), or ``"l<q>"`` (``"l2"``, ``"l4"``, ``"linf"``, ...; q >= 1) for ‖Mz‖_q.
    M : array_like of float
        A finite square (p, p) matrix (positive semi-definite for ``"quad"``; a slightly negative zᵀMz from
        rounding gives 0).
    z : array_like of float
        A finite vector of shape (p,).

    Returns
    -------
    float
        The seminorm of ``z``, >= 0.

    Raises
    ------
    ValueError
        When ``z`` does not have shape (p,), ``kind`` is not ``"quad"`` or ``"l<q>"``, or q < 1; a
        non-square or non-finite ``M`` or ``z`` raises
        :class:`dpvalidate.InvalidParameter` (a ValueError subclass) from the validation helpers.
    """
    M = _v.square_matrix("M", M)
    z = _array("z", z, 1)
    if z.shape != (M.shape[0],):
        raise ValueError(f"z must have shape ({M.shape[0]},) (got {z.shape})")
    if kind == "quad":
        return math.sqrt(max(float(z @ M @ z), 0.0))
    if not (isinstance(kind, str) and kind.startswith("l")):
        raise ValueError(f"kind must be 'quad' or 'l<q>' (got {kind!r})")
    q = math.inf if kind == "linf" else float(kind[1:])
    if not q >= 1:
        raise ValueError(f"kind's q must be >= 1 (got {kind!r})")
    return float(np.linalg.norm(M @ z, ord=q))


def segment_projection(kind: str, M, x, a, b) -> float:
    """Parameter s of the projection of x onto the segment [a, b] in a seminorm.

    The parameter s ∈ [0, 1] of a minimiser a + s(b − a) of ‖a + s(b − a) − x‖ over the segment [a, b] (a convex
    set): in closed form for "quad" (the clipped least-squares step; any minimiser when the seminorm vanishes on
    b − a: s = 0), else by golden-section search of the convex function of s over [0, 1] (90 steps: the bracket
    shrinks below 1e-18), compared with both ends.

    Parameters
    ----------
    kind : str
        ``"quad"`` for √(zᵀMz), or ``"l<q>"`` (``"l2"``, ``"l4"``, ``"linf"``, ...; q >= 1) for ‖Mz‖_q.
    M : array_like of float
        The finite square (p, p) matrix of the seminorm (see :func:`seminorm`).
    x : array_like of float
        The point to project, a finite vector of shape (p,).
    a : array_like of float
        One end of the segment, a finite vector of shape (p,).
    b : array_like of float
        The other end, a finite vector of shape (p,).
        Invalid input raises ValueError (:class:`dpvalidate.InvalidParameter` or from :func:`seminorm`).

    Returns
    -------
    float
        The parameter s ∈ [0, 1] of the projection a + s(b − a).
    """
    x, a, b = (_array(nm, w, 1) for nm, w in (("x", x), ("a", a), ("b", b)))
    d = b - a
    if kind == "quad":
        M = _v.square_matrix("M", M)
        dd = float(d @ M @ d)
        return 0.0 if dd <= 0 else float(np.clip(float(d @ M @ (x - a)) / dd, 0.0, 1.0))

    def f(s):
        return seminorm(kind, M, a + s * d - x)

    g = (math.sqrt(5.0) - 1.0) / 2.0
    lo, hi = 0.0, 1.0
    c1, c2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(c1), f(c2)
    for _ in range(90):
        if f1 <= f2:
            hi, c2, f2 = c2, c1, f1
            c1 = hi - g * (hi - lo)
            f1 = f(c1)
        else:
            lo, c1, f1 = c1, c2, f2
            c2 = lo + g * (hi - lo)
            f2 = f(c2)
    return float(min((0.0, 1.0, (lo + hi) / 2.0), key=f))


def lemma14_sides(kind: str, M, x, a, b, u: float) -> tuple[float, float]:
    """Lemma 14's two sides for projection onto a segment in a seminorm.

    Lemma 14's two sides for the segment C = [a, b], v = a + u(b − a) ∈ C: (‖Π_C(x) − v‖, ‖x − v‖) in the seminorm
    ``kind``/``M`` of :func:`seminorm`, Π_C(x) from :func:`segment_projection`.

    Parameters
    ----------
    kind : str
        ``"quad"`` for √(zᵀMz), or ``"l<q>"`` (``"l2"``, ``"l4"``, ``"linf"``, ...; q >= 1) for ‖Mz‖_q.
    M : array_like of float
        The finite square (p, p) matrix of the seminorm (see :func:`seminorm`).
    x : array_like of float
        The point projected, a finite vector of shape (p,).
    a : array_like of float
        One end of the segment C, a finite vector of shape (p,).
    b : array_like of float
        The other end of C, a finite vector of shape (p,).
    u : float
        The position of v = a + u(b − a) on C, finite and in [0, 1].

    Returns
    -------
    left : float
        ‖Π_C(x) − v‖.
    right : float
        ‖x − v‖.

    Raises
    ------
    ValueError
        When ``u`` lies outside [0, 1]; other invalid input raises ValueError from the validation helpers or
        :func:`seminorm`.
    """
    u = _v.finite("u", u)
    if not 0 <= u <= 1:
        raise ValueError(f"u must be in [0, 1] (v on the segment; got {u!r})")
    x, a, b = (_array(nm, w, 1) for nm, w in (("x", x), ("a", a), ("b", b)))
    s = segment_projection(kind, M, x, a, b)
    v = a + u * (b - a)
    return seminorm(kind, M, a + s * (b - a) - v), seminorm(kind, M, x - v)


def lemma14_linf_example() -> dict:
    """The smallest counterexample to Lemma 14 in ℓ∞ (SymPy, exact).

    The smallest counterexample, exact (SymPy): ℓ∞ on R², C = {s·(1, 2)}, x = (1, 0), v = (−1, −2) ∈ C.
    ‖s(1, 2) − x‖∞ = max(|1 − s|, 2|s|) is minimised only at s = 1/3 (it is ≥ 2/3 + |s − 1/3|), so
    Π_C(x) = (1/3, 2/3) and ‖Π_C(x) − v‖∞ = 8/3 > 2 = ‖x − v‖∞.

    Returns
    -------
    dict
        Keys ``"objective"`` (max(|1 − s|, 2|s|) in the symbol ``s``), ``"s_star"`` (1/3),
        ``"min_value"`` (2/3), ``"lhs"`` (8/3), ``"rhs"`` (2) and ``"projection"`` ([1/3, 2/3]), all SymPy objects.
    """
    s = sp.Symbol("s", real=True)
    f = sp.Max(sp.Abs(1 - s), 2 * sp.Abs(s))
    s_star = sp.Rational(1, 3)
    proj = sp.Matrix([s_star, 2 * s_star])
    x = sp.Matrix([1, 0])
    v = sp.Matrix([-1, -2])

    def linf(z):
        return sp.Max(*[sp.Abs(e) for e in z])

    return {"objective": f, "s_star": s_star, "min_value": f.subs(s, s_star),
            "lhs": linf(proj - v), "rhs": linf(x - v), "projection": list(proj)}


# --------------------------------------------------------------------------------------
# Theorem 15 (Davis–Kahan as stated in App. C.3)
# --------------------------------------------------------------------------------------
def _symmetric(name: str, S) -> np.ndarray:
    S = _v.square_matrix(name, S)
    if not np.array_equal(S, S.T):
        raise ValueError(f"{name} must be an exactly symmetric matrix")
    return S


def top_projector(S, i: int, ascending: bool = False) -> np.ndarray:
    """The orthogonal projector P^i_S onto the top-i eigenvectors of a symmetric S.

    P^i_S: the orthogonal projector onto the eigenvectors of the i largest eigenvalues of the symmetric S
    (``ascending=True``: of the i smallest — the other ordering convention); P^0 = 0. Ties are split as eigh
    orders them (any split is a valid P^i).

    Parameters
    ----------
    S : array_like of float
        An exactly symmetric square matrix (finite), (p, p).
    i : int
        The number of eigenvectors, an integer in [0, p].
    ascending : bool, optional
        False (default): the i largest eigenvalues; True: the i smallest.

    Returns
    -------
    numpy.ndarray
        The (p, p) projector P^i_S.

    Raises
    ------
    ValueError
        When ``i`` is not an integer in [0, p] (an ``S`` that is not exactly symmetric raises ValueError too).
    """
    S = _symmetric("S", S)
    if not (isinstance(i, (int, np.integer)) and 0 <= i <= S.shape[0]):
        raise ValueError(f"i must be an integer in [0, {S.shape[0]}] (got {i!r})")
    _, U = np.linalg.eigh(S)
    cols = U[:, :i] if ascending else U[:, U.shape[1] - i:]
    return cols @ cols.T


def eigenvalue(S, i: int, ascending: bool = False) -> float:
    """λ_i(S), 1-based, in decreasing order (``ascending=True``: increasing).

    Parameters
    ----------
    S : array_like of float
        An exactly symmetric square matrix (finite), (p, p).
    i : int
        The 1-based index, an integer in [1, p].
    ascending : bool, optional
        False (default): count from the largest eigenvalue; True: from the smallest.

    Returns
    -------
    float
        λ_i(S).

    Raises
    ------
    ValueError
        When ``i`` is not an integer in [1, p] (an ``S`` that is not exactly symmetric raises ValueError too).
    """
    w = np.linalg.eigvalsh(_symmetric("S", S))
    if not (isinstance(i, (int, np.integer)) and 1 <= i <= w.size):
        raise ValueError(f"i must be an integer in [1, {w.size}] (got {i!r})")
    return float(w[i - 1] if ascending else w[w.size - i])


def davis_kahan_sides(A, B, i: int, j: int, ascending: bool = False) -> tuple[float, float]:
    """The two sides of Theorem 15 (Davis–Kahan, eq. (37)).

    Theorem 15 (eq. (37)) for symmetric A, B of one size with λ_i(A) > λ_j(B):
    (‖P^i_A(I − P^{j−1}_B)‖_op, ‖A − B‖_op/(λ_i(A) − λ_j(B))). ``ascending`` reads λ and P in increasing order.

    Parameters
    ----------
    A : array_like of float
        An exactly symmetric square matrix (finite), (p, p).
    B : array_like of float
        An exactly symmetric square matrix (finite) of the same shape.
    i : int
        Index into A's spectrum, an integer in [1, p].
    j : int
        Index into B's spectrum, an integer in [1, p] (P^{j−1}_B is used).
    ascending : bool, optional
        False (default): decreasing order of λ and P; True: increasing.

    Returns
    -------
    left : float
        ‖P^i_A(I − P^{j−1}_B)‖_op.
    right : float
        ‖A − B‖_op/(λ_i(A) − λ_j(B)).

    Raises
    ------
    ValueError
        When A and B differ in shape or λ_i(A) ≤ λ_j(B); invalid matrices or indices raise ValueError from the
        helpers (:func:`eigenvalue`, :func:`top_projector`, the validation helpers).
    """
    A, B = _symmetric("A", A), _symmetric("B", B)
    if A.shape != B.shape:
        raise ValueError(f"A and B must have one shape (got {A.shape} and {B.shape})")
    gap = eigenvalue(A, i, ascending) - eigenvalue(B, j, ascending)
    if not gap > 0:
        raise ValueError(f"λ_i(A) must exceed λ_j(B) (the hypothesis; got a gap of {gap!r})")
    P = top_projector(A, i, ascending)
    Q = top_projector(B, j - 1, ascending)
    lhs = float(np.linalg.norm(P @ (np.eye(A.shape[0]) - Q), 2))
    return _v.finite_result("A, B", (lhs, float(np.linalg.norm(A - B, 2)) / gap))
