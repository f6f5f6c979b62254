r"""NumPy references for :mod:`kernels.noisy_adagrad` (test oracles), composed in the optax idiom.

Each algorithm is a chain of small ``init``/``update`` pieces over an explicit state record; the
p×p matrices are formed explicitly (S_t, G_t = S_t^{1/2}, H_t; G_t from a square-root factor of S_t, see
:func:`accumulate_update`), unlike the fused kernels, which keep a basis of the gradient span — so kernel =
reference checks the basis bookkeeping too.  Given the same pre-drawn noise (ξ_t ∈ R^p and the k̃×k̃ GOE
matrix of step t, embedded as ṼM̃Ṽᵀ), the results must agree to floating-point tolerance.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kernels.noisy_adagrad import LOSSES, RTOL, LowRankGLM, loss_scales


class Preconditioner(NamedTuple):
    S: np.ndarray  # Σ ∇∇ᵀ
    F: np.ndarray  # a square-root factor, FᵀF = S: diag(σ)Vᵀ of the SVD of the stacked gradients, (min(t, p), p)


def grad(prob: LowRankGLM, theta: np.ndarray) -> np.ndarray:
    """∇L(θ; D), the mean per-record (sub)gradient, in NumPy.

    Parameters
    ----------
    prob : LowRankGLM
        The problem (its ``loss``: ``"absolute"``, ``"logistic"``, anything else read as hinge).
    theta : ndarray of float, shape (p,)
        The point θ.

    Returns
    -------
    ndarray of float64, shape (p,)
        (1/n) Σ_i ℓ'(⟨x_i, θ⟩; y_i)·x_i, with sign(m − y) (0 at the kink) for the absolute loss.
    """
    m = prob.X @ theta
    if prob.loss == "absolute":
        w = np.sign(m - prob.y)
    elif prob.loss == "logistic":
        w = -prob.y / (1.0 + np.exp(prob.y * m))
    else:
        w = np.where(prob.y * m < 1.0, -prob.y, 0.0)
    return prob.X.T @ w / prob.n


def psd_sqrt(S: np.ndarray, rtol: float = RTOL) -> np.ndarray:
    """S^{1/2} by eigh; eigenvalues of S within rounding of 0 and those of the root ≤ rtol·max set to 0.

    The rounding floor: eigh of a formed p×p matrix returns its zero eigenvalues as ±O(p·ε·λ_max(S)), and
    their roots, O(√(p·ε))·‖G‖ ≈ 1e-8·‖G‖, would pass the root's ``rtol`` = 1e-10 as spurious directions
    (which H⁺ then amplifies ~1e8-fold in any noise σ_bξ that reaches them).  So an eigenvalue of S at or below
    p·ε·λ_max(S) is read as 0 (:func:`rounding_floor`) before the root is taken: the rank of G is that of
    the gradients' span, as in the kernels, whose basis holds those zeros exactly.

    Parameters
    ----------
    S : ndarray of float, shape (p, p)
        A symmetric PSD matrix (symmetrised as (S + Sᵀ)/2; negative rounding eigenvalues read as 0).
    rtol : float, optional
        The relative rank tolerance on the root's eigenvalues (default the kernels' ``RTOL``).

    Returns
    -------
    ndarray of float64, shape (p, p)
        The PSD square root G with GG = S up to the truncation.
    """
    w, U = np.linalg.eigh((S + S.T) / 2)
    w = np.where(w > rounding_floor(w), w, 0.0)
    r = np.sqrt(w)
    r[r <= rtol * r.max(initial=0.0)] = 0.0
    return (U * r) @ U.T


def rounding_floor(w: np.ndarray) -> float:
    """p·ε·max|w|: the size below which an eigenvalue of a formed p×p symmetric matrix is rounding.

    Parameters
    ----------
    w : ndarray of float, shape (p,)
        The eigenvalues (by ``eigh``) of a p×p symmetric matrix.

    Returns
    -------
    float
        p·ε·max|w| (0 for an empty or zero ``w``), ε the float64 machine epsilon.
    """
    return w.shape[0] * np.finfo(np.float64).eps * float(np.max(np.abs(w), initial=0.0))


def treat(kappa: np.ndarray, mode: str, rtol: float = RTOL) -> np.ndarray:
    """The kernels' rule for an indefinite H: |κ| ≤ rtol·max|κ| → 0; negatives → |κ| ("abs") or 0 ("clip").

    Parameters
    ----------
    kappa : ndarray of float, shape (m,)
        Eigenvalues of H (not changed).
    mode : str
        ``"abs"``, or any other value (``"clip"``) to drop the negative ones.
    rtol : float, optional
        The relative tolerance below which an eigenvalue counts as zero (default ``RTOL``).

    Returns
    -------
    ndarray of float64, shape (m,)
        The treated eigenvalues, all ≥ 0.
    """
    k = kappa.copy()
    small = np.abs(k) <= rtol * np.max(np.abs(k), initial=0.0)
    k[small] = 0.0
    return np.abs(k) if mode == "abs" else np.where(k > 0, k, 0.0)


def pinv_apply(U: np.ndarray, kappa: np.ndarray, v: np.ndarray) -> np.ndarray:
    """H⁺v for H = U diag(κ) Uᵀ (κ ≥ 0; zero eigenvalues give zero weight).

    Parameters
    ----------
    U : ndarray of float, shape (p, m)
        Orthonormal eigenvectors (columns).
    kappa : ndarray of float, shape (m,)
        The treated eigenvalues; those ≤ 0 are left out.
    v : ndarray of float, shape (p,)
        The vector.

    Returns
    -------
    ndarray of float64, shape (p,)
        U diag(1/κ on κ > 0, else 0) Uᵀ v.
    """
    inv = np.where(kappa > 0, 1.0 / np.where(kappa > 0, kappa, 1.0), 0.0)
    return U @ (inv * (U.T @ v))


def project_seminorm(U: np.ndarray, kappa: np.ndarray, y: np.ndarray, radius: float,
                     delta_c: float = 0.0) -> np.ndarray:
    """argmin_{‖θ‖ ≤ R} ‖θ − y‖_H, H = U diag(κ) Uᵀ + δ_c(I − UUᵀ): the tie-break of the kernels' docstring.

    y inside the ball is returned as is.  Otherwise, if the part of y that H weights fits in the ball it is kept
    and the unweighted (null-space) part scaled to the remaining radius; else the weighted coordinates are
    shrunk, κc/(κ + μ) (and the complement of span(U) by δ_c/(δ_c + μ) when δ_c > 0), with μ > 0 found by
    Brent's method (SciPy) so that the result has norm R, and the unweighted part dropped.

    Parameters
    ----------
    U : ndarray of float, shape (p, m)
        Orthonormal eigenvectors of H's weighted part.
    kappa : ndarray of float, shape (m,)
        Treated eigenvalues (≥ 0; zero ones belong to the null space).
    y : ndarray of float, shape (p,)
        The point to project.
    radius : float
        The ball's radius R > 0.
    delta_c : float, optional
        The weight δ_c of the complement of span(U) (default 0: unweighted).

    Returns
    -------
    ndarray of float64, shape (p,)
        The projection.
    """
    if y @ y <= radius**2:
        return y.copy()
    c = U.T @ y
    z = y - U @ c
    pos = kappa > 0
    w2 = c[pos] @ c[pos] + (z @ z if delta_c > 0 else 0.0)
    null2 = c[~pos] @ c[~pos] + (0.0 if delta_c > 0 else z @ z)
    if w2 <= radius**2:
        f = min(1.0, np.sqrt(max(radius**2 - w2, 0.0) / null2)) if null2 > 0 else 0.0
        return z * (1.0 if delta_c > 0 else f) + U @ (c * np.where(pos, 1.0, f))

    def coords(mu):
        return np.where(pos, kappa * c / np.where(pos, kappa + mu, 1.0), 0.0)

    def norm2(mu):
        a = coords(mu)
        return a @ a + ((delta_c / (delta_c + mu)) ** 2 * (z @ z) if delta_c > 0 else 0.0)

    from scipy.optimize import brentq

    hi = max(kappa.max(initial=0.0), delta_c) * np.sqrt(w2) / radius
    mu = brentq(lambda m: norm2(m) - radius**2, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return U @ coords(mu) + (z * delta_c / (delta_c + mu) if delta_c > 0 else 0.0)


# -- optax-like pieces ------------------------------------------------------------------
def accumulate_init(p: int) -> Preconditioner:
    """The empty accumulator S_0 = 0.

    Parameters
    ----------
    p : int
        The dimension.

    Returns
    -------
    Preconditioner
        With S the p×p zero matrix and an empty (0, p) factor F.
    """
    return Preconditioner(np.zeros((p, p)), np.zeros((0, p)))


def accumulate_update(g: np.ndarray, state: Preconditioner) -> tuple[np.ndarray, Preconditioner]:
    """S_t = S_{t−1} + ∇_t∇_tᵀ and G_t = S_t^{1/2} (Algorithm 1's accumulation), G_t from a square-root factor.

    G_t is not the root of the formed S_t (:func:`psd_sqrt`): eigh of S_t has absolute error ~p·ε·‖S_t‖, so root
    eigenvalues below ~√(p·ε)·‖G_t‖ (≈ 7e-8·‖G_t‖ at p = 20) are lost, and S_t's zero eigenvalues come back as
    rounding roots of that size.  Instead the factor F (FᵀF = S_t, the stacked gradients compressed by an SVD each
    step: [F_{t−1}; ∇_tᵀ] = UΣWᵀ, F_t = ΣWᵀ) gives G_t = W Σ Wᵀ with singular values accurate to ~ε·‖G_t‖;
    those ≤ ``RTOL``·max count as zero — the same rule as the kernels' roots, which their gradient basis computes
    to the same accuracy (the rank is that of the gradients' span).

    Parameters
    ----------
    g : ndarray of float, shape (p,)
        The step's gradient ∇_t.
    state : Preconditioner
        Holds S_{t−1} and its factor (not changed).

    Returns
    -------
    G : ndarray of float64, shape (p, p)
        G_t.
    state : Preconditioner
        Holds S_t and its factor.
    """
    _, sv, Wt = np.linalg.svd(np.vstack([state.F, g]), full_matrices=False)
    root = np.where(sv > RTOL * sv.max(initial=0.0), sv, 0.0)
    return (Wt.T * root) @ Wt, Preconditioner(state.S + np.outer(g, g), sv[:, None] * Wt)


def noisy_precondition(G: np.ndarray, Vt: np.ndarray, sigma_B: float, goe_k: np.ndarray, mode: str):
    """H = Π(G + σ_B ṼM̃Ṽᵀ)Π formed in R^{p×p}, its eigenbasis and treated eigenvalues.

    Parameters
    ----------
    G : ndarray of float, shape (p, p)
        G_t.
    Vt : ndarray of float, shape (p, k̃)
        The oracle's orthonormal basis Ṽ (Π = ṼṼᵀ).
    sigma_B : float
        The preconditioner noise scale σ_B(t).
    goe_k : ndarray of float, shape (k̃, k̃)
        The step's k̃×k̃ GOE matrix M̃.
    mode : str
        The indefinite-H rule of :func:`treat` (``"abs"`` or ``"clip"``).

    Returns
    -------
    U : ndarray of float64, shape (p, p)
        Eigenvectors of H.
    kappa : ndarray of float64, shape (p,)
        Their treated eigenvalues.
    """
    Pi = Vt @ Vt.T
    H = Pi @ (G + sigma_B * Vt @ goe_k @ Vt.T) @ Pi
    kap, U = np.linalg.eigh((H + H.T) / 2)
    return U, treat(kap, mode)


def noisy_adagrad(prob: LowRankGLM, steps: int, eta: float, radius: float, Vt: np.ndarray, sigma_b: np.ndarray,
                  sigma_b_mode: str, sigma_B: np.ndarray, xi: np.ndarray, goe_k: np.ndarray, indefinite: str = "abs",
                  decay_alpha: float = 0.0) -> dict:
    """Algorithm 1 (noisy AdaGrad) with every p×p matrix formed explicitly, given pre-drawn noise.

    From θ_1 = 0, each step t: ∇_t = s_t∇L(θ_t), G_t = (S_{t−1} + ∇_t∇_tᵀ)^{1/2},
    H_t = Π(G_t + σ_B(t)ṼM̃_tṼᵀ)Π, ∇̃_t = ∇_t + σ_b(t)ξ_t (σ_b(t)·‖∇_t‖ in ``"grad_norm"`` mode),
    y = θ_t − ηH_t⁺∇̃_t and θ_{t+1} the H_t-seminorm projection of y onto ‖θ‖ ≤ R.

    Parameters
    ----------
    prob : LowRankGLM
        The problem.
    steps : int
        The number of steps T.
    eta : float
        The stepsize η.
    radius : float
        The constraint radius R.
    Vt : ndarray of float, shape (p, k̃)
        The subspace oracle's orthonormal basis Ṽ.
    sigma_b : ndarray of float, shape (T,)
        The gradient noise scale σ_b(t) (or its factor c in ``"grad_norm"`` mode).
    sigma_b_mode : str
        ``"grad_norm"`` for σ_b(t)·‖∇_t‖, any other value (``"constant"``) for σ_b(t).
    sigma_B : ndarray of float, shape (T,)
        The preconditioner noise scale σ_B(t).
    xi : ndarray of float, shape (T, p)
        The gradient noise ξ_t ~ N(0, I_p).
    goe_k : ndarray of float, shape (T, k̃, k̃)
        The GOE matrices M̃_t.
    indefinite : str, optional
        The indefinite-H rule, ``"abs"`` (default) or ``"clip"`` (:func:`treat`).
    decay_alpha : float, optional
        α of the loss scales s_t = t^(−α) (default 0).

    Returns
    -------
    dict
        ``losses``: (T,) L(θ_t) before each step; ``theta_avg``: (p,) the mean of θ_1..θ_T; ``theta_last``: (p,)
        θ_{T+1}; ``released_gradient``: (T, p) the ∇̃_t; ``released_preconditioner``: (T, k̃, k̃) the released
        Ṽᵀ G_t Ṽ + σ_B(t)M̃_t.
    """
    scales = loss_scales(steps, decay_alpha)
    theta = np.zeros(prob.p)
    state = accumulate_init(prob.p)
    losses, avg = [], np.zeros(prob.p)
    rel_g, rel_K = [], []  # the privatised statistics each step releases
    for t in range(steps):
        losses.append(prob.loss_value(theta))
        avg += theta
        g = scales[t] * grad(prob, theta)
        G, state = accumulate_update(g, state)
        U, kap = noisy_precondition(G, Vt, sigma_B[t], goe_k[t], indefinite)
        sb = sigma_b[t] * (np.linalg.norm(g) if sigma_b_mode == "grad_norm" else 1.0)
        rel_g.append(g + sb * xi[t])
        rel_K.append(Vt.T @ G @ Vt + sigma_B[t] * goe_k[t])
        y = theta - eta * pinv_apply(U, kap, rel_g[-1])
        theta = project_seminorm(U, kap, y, radius)
    return {"losses": np.array(losses), "theta_avg": avg / steps, "theta_last": theta,
            "released_gradient": np.array(rel_g), "released_preconditioner": np.array(rel_K)}


def adagrad(prob: LowRankGLM, steps: int, eta: float, radius: float, delta: float = 0.0,
            decay_alpha: float = 0.0) -> dict:
    """Full-matrix AdaGrad, H = δI + G (δ = 0: pseudo-inverse and seminorm projection).

    Non-private: the step uses ∇_t itself.  Eigenvalues of G_t and of H below ``RTOL`` times the largest count
    as zero.

    Parameters
    ----------
    prob : LowRankGLM
        The problem.
    steps : int
        The number of steps T.
    eta : float
        The stepsize η.
    radius : float
        The constraint radius R.
    delta : float, optional
        The ridge δ ≥ 0 (default 0).
    decay_alpha : float, optional
        α of the loss scales s_t = t^(−α) (default 0).

    Returns
    -------
    dict
        ``losses``: (T,) L(θ_t) before each step; ``theta_avg``: (p,) the mean of θ_1..θ_T; ``theta_last``: (p,)
        θ_{T+1}.
    """
    scales = loss_scales(steps, decay_alpha)
    theta = np.zeros(prob.p)
    state = accumulate_init(prob.p)
    losses, avg = [], np.zeros(prob.p)
    for t in range(steps):
        losses.append(prob.loss_value(theta))
        avg += theta
        g = scales[t] * grad(prob, theta)
        G, state = accumulate_update(g, state)
        w, U = np.linalg.eigh(G)
        w = np.where(w > RTOL * w.max(initial=0.0), w, 0.0)
        kap = w + delta
        kap[kap <= RTOL * kap.max(initial=0.0)] = 0.0
        y = theta - eta * pinv_apply(U, kap, g)
        theta = project_seminorm(U, kap, y, radius)
    return {"losses": np.array(losses), "theta_avg": avg / steps, "theta_last": theta}


def dpgd(prob: LowRankGLM, eta: float, sigma: float, xi: np.ndarray) -> dict:
    """Unconstrained DP-GD from θ_1 = 0: θ_{t+1} = θ_t − η(∇L(θ_t) + σξ_t), one step per row of ``xi``.

    Parameters
    ----------
    prob : LowRankGLM
        The problem.
    eta : float
        The stepsize η.
    sigma : float
        The noise standard deviation σ.
    xi : ndarray of float, shape (T, p)
        The pre-drawn standard normal noise ξ_t (T ≥ 1).

    Returns
    -------
    dict
        ``theta_avg``: (p,) the mean of θ_1..θ_T; ``theta_last``: (p,) θ_{T+1}.
    """
    theta = np.zeros(prob.p)
    avg = np.zeros(prob.p)
    for t in range(xi.shape[0]):
        avg += theta
        theta = theta - eta * (grad(prob, theta) + sigma * xi[t])
    return {"theta_avg": avg / xi.shape[0], "theta_last": theta}


__all__ = ["LOSSES", "adagrad", "dpgd", "noisy_adagrad", "project_seminorm", "psd_sqrt", "rounding_floor", "treat"]
