r"""Noisy full-matrix AdaGrad with a subspace oracle, full-matrix AdaGrad and unconstrained DP-GD
(``noisy_adagrad``: Kairouz, Diaz, Rush, Thakurta, COLT 2021), on the ``low_rank_glm`` problem
(:mod:`kernels.noisy_adagrad_problems`, re-exported here).

Problem ``low_rank_glm`` (docs/catalogue.md).  Records x_i = V z_i with V a random p×k orthonormal basis and
z_i ∈ R^k drawn from a seed that does not depend on p, so the k-dimensional problem is the same for
every ambient dimension p; ‖x_i‖ ≤ 1, hence every per-record (sub)gradient has norm ≤ L = 1.
Losses ℓ(⟨x, θ⟩; y): ``absolute`` |⟨x,θ⟩ − y| (y = ⟨x, θ_true⟩, so L* = 0 and θ_true minimises),
``logistic`` log(1 + exp(−y⟨x,θ⟩)), ``hinge`` max(0, 1 − y⟨x,θ⟩) (labels ±1 from θ_true, flipped with
probability ``label_noise``).  Optional public sample (m records from the same law, plus isotropic
noise of total std ``public_shift`` spread over R^p) for the estimated-span oracle.  The online
losses are f_t = s_t·L(θ; D) with s_t = t^(−α) (``decay_alpha``), so that ‖∇_t‖ decays like t^(−α)
(an option of the problem, docs/catalogue.md); α = 0 is plain ERM.

Algorithm 1 (noisy AdaGrad), one step t = 1..T:

    ∇_t = s_t ∇L(θ_t);  S_t = S_{t−1} + ∇_t∇_tᵀ;  G_t = S_t^{1/2}
    H_t = Π(G_t + σ_B(t) M_t)Π,  Π = ṼṼᵀ,  M_t ~ GOE(p)
    ∇̃_t = ∇_t + σ_b(t)·ξ_t,  ξ_t ~ N(0, I_p)   (σ_b(t) constant, or c·‖∇_t‖: ``sigma_b_mode``)
    y = θ_t − η H_t⁺ ∇̃_t;   θ_{t+1} = argmin_{‖θ‖ ≤ R} ‖θ − y‖_{H_t}

Numerics (the brief asks that they be said):

* G_t is never formed as a p×p matrix: the kernel keeps an orthonormal basis Q of the gradients
  seen so far (a new direction is added when its residual exceeds ``rank_tol``·‖∇_t‖; below that it
  is rounding noise) and S in that basis; G = Q (QᵀSQ)^{1/2} Qᵀ by a symmetric eigendecomposition
  (``eigh``), negative rounding eigenvalues set to 0; root eigenvalues ≤ ``rtol``·max count as zero.  The
  rank of G_t is thus that of the gradients' span (fewer than k̃ directions in the first steps, so with
  σ_B = 0 the step H_t⁺σ_bξ_t must see exact zeros there, not rounding: 1/κ would amplify it).  The NumPy
  twin follows the same rule from a square-root factor of S_t (an SVD of the stacked gradients); the
  root of a *formed* S_t cannot be used for this: eigh returns S_t's zero eigenvalues as ±O(p·ε·‖S_t‖),
  whose roots, ~√(p·ε)·‖G_t‖ ≈ 1e-8·‖G_t‖, pass ``rtol``.
* ΠM_tΠ = Ṽ(ṼᵀM_tṼ)Ṽᵀ and ṼᵀM_tṼ is exactly a k̃×k̃ GOE matrix (the GOE law is invariant under
  orthogonal maps), so the kernel draws the k̃×k̃ GOE directly: the same law as Algorithm 1's, at
  k̃² instead of p² normals per step.  The NumPy reference draws nothing either: both take the same
  pre-drawn noise, and the reference forms the p×p matrices explicitly.
* H_t⁺: eigh of K = Ṽᵀ(G_t + B_t)Ṽ; eigenvalues with |κ| ≤ ``rtol``·max|κ| count as zero (explicit
  relative rank tolerance).  **Indefinite H_t** (the GOE term can make K indefinite when σ_B is not
  small against λ_min⁺(G_t)): ``indefinite="abs"`` (default) uses |κ| — H⁺ is then PSD, the step a
  descent step in the |H|-metric and the H-seminorm projection well defined; ``"clip"`` drops the
  negative eigen-directions (treated as kernel: no step, no projection weight there).  The
  diagnostics count the steps where K was indefinite.
* H-seminorm projection onto the ball ‖θ‖ ≤ R: in the eigenbasis of H the problem is diagonal.  If
  the weighted part (coordinates with positive weight) already fits, it is kept and the null-space
  part of y is scaled to the remaining radius (one of the minimisers — the seminorm does not see
  it); otherwise the null part is 0 and the weighted part is a_i = κ_i c_i/(κ_i + μ) with μ > 0 the
  root of ‖a(μ)‖ = R (bisection).  With δ > 0 (AdaGrad's H = δI + G) every direction has weight.

Full-matrix AdaGrad (App. A.1): H_t = δI + G_t (δ ≥ 0; δ = 0 uses the pseudo-inverse), same
projection.  With σ_b = σ_B = 0 and Ṽ spanning the gradients, noisy AdaGrad *is* AdaGrad with δ = 0.

DP-GD (App. C.8, Alg. 3): θ_{t+1} = θ_t − η(∇L(θ_t) + σ ξ_t), unconstrained, output (1/T)Σ_{t=1}^T θ_t
with θ_1 = θ_0 = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

import dpvalidate as V
from kernels import faults
from kernels.noisy_adagrad_problems import (  # noqa: F401  (the problems are part of this module's API)
    LOSSES,
    LowRankGLM,
    aligned_glm,
    glm_grad,
    glm_loss,
    low_rank_glm,
)

ORACLES = ("exact", "public", "rotated")
INDEFINITE = {"abs": 0, "clip": 1}
SIGMA_B_MODES = {"constant": 0, "grad_norm": 1}
RTOL = 1e-10  # relative rank tolerance of the pseudo-inverses
RANK_TOL = 1e-9  # relative residual below which a gradient adds no new direction to the basis


# ======================================================================================
# Subspace oracles
# ======================================================================================
def orthonormal(name: str, Vt) -> np.ndarray:
    """Check that ``Vt`` is a finite p×k matrix with orthonormal columns (k ≤ p) and return it as an array.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    Vt : array_like
        The candidate basis, shape (p, k); columns orthonormal to within 1e-8 (``np.allclose``).

    Returns
    -------
    numpy.ndarray
        ``Vt`` as a finite float array (not re-orthonormalised).

    Raises
    ------
    dpvalidate.InvalidParameter
        ``Vt`` is not a finite 2-D array, has more columns than rows, or its columns are not orthonormal.
    """
    Vt = V.finite_array(name, Vt, ndim=2)
    if Vt.shape[1] > Vt.shape[0] or not np.allclose(Vt.T @ Vt, np.eye(Vt.shape[1]), atol=1e-8):
        raise V.InvalidParameter(name, "a p×k matrix with orthonormal columns (k ≤ p)", f"shape {Vt.shape}")
    return Vt


def subspace_oracle(prob: LowRankGLM, kind: str = "exact", gamma: float = 0.0, k: int | None = None,
                    seed: int = 0) -> np.ndarray:
    """Ṽ (p×k̃, orthonormal): ``exact`` V; ``public`` the top-k̃ right singular vectors of the public
    sample; ``rotated`` Ṽ = V cos θ + W sin θ with W ⟂ V random and sin θ = γ, so every principal angle
    is θ and ‖VVᵀ − ṼṼᵀ‖_op = γ (needs p ≥ 2k).

    Parameters
    ----------
    prob : LowRankGLM
        The problem (its true span V and public sample).
    kind : {"exact", "public", "rotated"}, optional
        Which oracle (:data:`ORACLES`).
    gamma : float, optional
        ``rotated`` only: sin θ ∈ [0, 1], the operator-norm distance of the two projections.
    k : int, optional
        ``public`` only: k̃ ∈ [1, p], the number of singular vectors (default the problem's k).  The ``exact`` and
        ``rotated`` oracles have k columns.
    seed : int, optional
        ``rotated`` only: seeds the random complement W.

    Returns
    -------
    numpy.ndarray
        Ṽ, (p, k̃) with orthonormal columns.

    Raises
    ------
    dpvalidate.InvalidParameter
        ``prob`` not a LowRankGLM, an unknown ``kind``, ``k``/``seed``/``gamma`` out of range, fewer public records
        than k̃, or p < 2k for ``rotated``.
    """
    if not isinstance(prob, LowRankGLM):
        raise V.InvalidParameter("prob", "a LowRankGLM (kernels.noisy_adagrad.low_rank_glm)", type(prob).__name__)
    V.choice("kind", kind, ORACLES)
    kk = prob.k if k is None else V.integer("k", k, 1, prob.p)
    seed = V.integer("seed", seed, 0)
    if kind == "exact":
        return prob.V.copy()
    if kind == "public":
        if prob.X_public.shape[0] < kk:
            raise V.InvalidParameter("m_public", f"at least k = {kk} public records for the public oracle",
                                     prob.X_public.shape[0])
        _, _, vt = np.linalg.svd(prob.X_public, full_matrices=False)
        return np.ascontiguousarray(vt[:kk].T)
    gamma = V.real("gamma", gamma)
    if not 0.0 <= gamma <= 1.0:
        raise V.InvalidParameter("gamma", "in [0, 1]", gamma)
    if prob.p < 2 * prob.k:
        raise V.InvalidParameter("p", f"at least 2k = {2 * prob.k} for a rotated span", prob.p)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2]))
    A = rng.standard_normal((prob.p, prob.k))
    A -= prob.V @ (prob.V.T @ A)
    W, _ = np.linalg.qr(A)
    W -= prob.V @ (prob.V.T @ W)
    W, _ = np.linalg.qr(W)
    c, s = math.sqrt(1.0 - gamma * gamma), gamma
    Vt, _ = np.linalg.qr(prob.V * c + W * s)
    return np.ascontiguousarray(Vt)


def principal_distance(Va: np.ndarray, Vb: np.ndarray) -> float:
    """‖V_aV_aᵀ − V_bV_bᵀ‖_op (the sine of the largest principal angle when the dimensions agree).

    Parameters
    ----------
    Va, Vb : numpy.ndarray
        (p, k_a) and (p, k_b) matrices with orthonormal columns.

    Returns
    -------
    float
        The largest absolute eigenvalue of V_aV_aᵀ − V_bV_bᵀ.
    """
    D = Va @ Va.T - Vb @ Vb.T
    return float(np.max(np.abs(np.linalg.eigvalsh(D))))


def goe(rng: np.random.Generator, k: int, size: int | None = None) -> np.ndarray:
    """GOE (Definition 8): symmetric, off-diagonal N(0, 1), diagonal N(0, 2).

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream the entries are drawn from.
    k : int
        The matrix size.
    size : int, optional
        The number of matrices (None: one).

    Returns
    -------
    numpy.ndarray
        (k, k), or (size, k, k), (A + Aᵀ)/√2 for A with standard normal entries.
    """
    shape = (k, k) if size is None else (size, k, k)
    A = rng.standard_normal(shape)
    return (A + np.swapaxes(A, -1, -2)) / math.sqrt(2.0)


# ======================================================================================
# Jitted pieces
# ======================================================================================


@njit(cache=True, nogil=True)
def _project_seminorm(U, kappa, delta_c, y, radius, out):
    """argmin_{‖θ‖ ≤ R} ‖θ − y‖_H with H = U diag(κ) Uᵀ + δ_c (I − UUᵀ), κ ≥ 0 (see the module docstring)."""
    p, r = U.shape
    c = np.zeros(r)
    for i in range(r):
        s = 0.0
        for j in range(p):
            s += U[j, i] * y[j]
        c[i] = s
    z = y.copy()
    for i in range(r):
        for j in range(p):
            z[j] -= U[j, i] * c[i]
    zn2 = 0.0
    yn2 = 0.0
    for j in range(p):
        zn2 += z[j] * z[j]
        yn2 += y[j] * y[j]
    if yn2 <= radius * radius:
        for j in range(p):
            out[j] = y[j]
        return 0.0
    w2 = 0.0  # squared norm of the weighted part
    null2 = 0.0
    for i in range(r):
        if kappa[i] > 0.0:
            w2 += c[i] * c[i]
        else:
            null2 += c[i] * c[i]
    if delta_c > 0.0:
        w2 += zn2
    else:
        null2 += zn2
    if w2 <= radius * radius:
        f = math.sqrt(max(radius * radius - w2, 0.0) / null2) if null2 > 0.0 else 0.0
        f = min(f, 1.0)
        for j in range(p):
            out[j] = z[j] * (1.0 if delta_c > 0.0 else f)
        for i in range(r):
            g = 1.0 if kappa[i] > 0.0 else f
            for j in range(p):
                out[j] += U[j, i] * c[i] * g
        return 0.0
    kmax = delta_c
    for i in range(r):
        kmax = max(kmax, kappa[i])
    lo, hi = 0.0, kmax * math.sqrt(w2) / radius  # ‖a(hi)‖ ≤ R
    for _ in range(200):
        mu = 0.5 * (lo + hi)
        s = 0.0
        for i in range(r):
            if kappa[i] > 0.0:
                a = kappa[i] * c[i] / (kappa[i] + mu)
                s += a * a
        if delta_c > 0.0:
            s += (delta_c / (delta_c + mu)) ** 2 * zn2
        if s > radius * radius:
            lo = mu
        else:
            hi = mu
        if hi - lo <= 1e-15 * hi:
            break
    mu = hi
    fz = delta_c / (delta_c + mu) if delta_c > 0.0 else 0.0
    for j in range(p):
        out[j] = z[j] * fz
    for i in range(r):
        g = kappa[i] / (kappa[i] + mu) if kappa[i] > 0.0 else 0.0
        for j in range(p):
            out[j] += U[j, i] * c[i] * g
    return mu


@njit(cache=True, nogil=True)
def _basis_update(Q, SQ, r, g, rank_tol):
    """Add g gᵀ to S kept in the orthonormal basis Q[:, :r] (SQ = QᵀSQ); returns the new rank."""
    p = Q.shape[0]
    c = np.zeros(r + 1)
    res = g.copy()
    for i in range(r):
        s = 0.0
        for j in range(p):
            s += Q[j, i] * g[j]
        c[i] = s
    for i in range(r):
        for j in range(p):
            res[j] -= Q[j, i] * c[i]
    rn = 0.0
    gn = 0.0
    for j in range(p):
        rn += res[j] * res[j]
        gn += g[j] * g[j]
    rn = math.sqrt(rn)
    if rn > rank_tol * math.sqrt(gn) and r < p:
        for j in range(p):
            Q[j, r] = res[j] / rn
        c[r] = rn
        for i in range(r + 1):
            SQ[i, r] = 0.0
            SQ[r, i] = 0.0
        r += 1
    for i in range(r):
        for j in range(r):
            SQ[i, j] += c[i] * c[j]
    return r


@njit(cache=True, nogil=True)
def _sqrt_psd(SQ, r, rtol):
    """(eigenvectors, eigenvalues of S^{1/2}) of the r×r block, eigenvalues ≤ rtol·max set to 0."""
    if r == 0:
        return np.zeros((0, 0)), np.zeros(0)
    w, U0 = np.linalg.eigh(SQ[:r, :r].copy())
    U = np.ascontiguousarray(U0)
    top = 0.0
    for i in range(r):
        w[i] = math.sqrt(w[i]) if w[i] > 0.0 else 0.0
        top = max(top, w[i])
    for i in range(r):
        if w[i] <= rtol * top:
            w[i] = 0.0
    return U, w


class NoisyAdagradParams(NamedTuple):
    """The scalar settings of :func:`_noisy_adagrad_loop` (one argument of the jitted loop)."""

    loss: int  # the GLM loss code (LOSSES)
    eta: float  # the stepsize
    radius: float  # the radius of the constraint set (may be inf)
    rtol: float  # the relative rank tolerance of the pseudo-inverses
    rank_tol: float  # the relative residual below which a gradient adds no direction to the basis
    mode: int  # what to do with negative eigenvalues (INDEFINITE)
    b_mode: int  # σ_b constant or proportional to ‖∇_t‖ (SIGMA_B_MODES)


class AdagradParams(NamedTuple):
    """The scalar settings of :func:`_adagrad_loop` (one argument of the jitted loop)."""

    loss: int  # the GLM loss code (LOSSES)
    eta: float  # the stepsize
    delta: float  # the δ of H_t = δI + G_t
    radius: float  # the radius of the constraint set (may be inf)
    rtol: float  # the relative rank tolerance of the pseudo-inverses
    rank_tol: float  # the relative residual below which a gradient adds no direction to the basis


@njit(cache=True, nogil=True)
def _noisy_adagrad_loop(X, y, scales, theta0, Vt, sigma_b, sigma_B, xi, goe_k, prm, losses, gnorm, tr_g, tr_ginv,
                        lam_min, indef, theta_sum, rel_g, rel_K):
    loss, eta, radius, rtol, rank_tol, mode, b_mode = (prm.loss, prm.eta, prm.radius, prm.rtol, prm.rank_tol,
                                                       prm.mode, prm.b_mode)
    n, p = X.shape
    T = scales.shape[0]
    kk = Vt.shape[1]
    theta = theta0.copy()
    g = np.zeros(p)
    Q = np.zeros((p, p))
    SQ = np.zeros((p, p))
    r = 0
    yv = np.zeros(p)
    newt = np.zeros(p)
    for j in range(p):
        theta_sum[j] = 0.0
    for t in range(T):
        losses[t] = glm_loss(X, y, loss, theta)
        for j in range(p):
            theta_sum[j] += theta[j]
        glm_grad(X, y, loss, theta, g)
        gn = 0.0
        for j in range(p):
            g[j] *= scales[t]
            gn += g[j] * g[j]
        gn = math.sqrt(gn)
        gnorm[t] = gn
        if gn > 0.0:
            r = _basis_update(Q, SQ, r, g, rank_tol)
        # G = Q U diag(w) Uᵀ Qᵀ
        U, w = _sqrt_psd(SQ, r, rtol)
        tg, tgi, lm = 0.0, 0.0, np.inf
        for i in range(r):
            tg += w[i]
            if w[i] > 0.0:
                tgi += 1.0 / w[i]
                lm = min(lm, w[i])
        tr_g[t], tr_ginv[t], lam_min[t] = tg, tgi, lm
        # K = Ṽᵀ G Ṽ + σ_B M  with P = Ṽᵀ Q U
        K = np.zeros((kk, kk))
        if r > 0:
            P = np.ascontiguousarray(Vt.T) @ (np.ascontiguousarray(Q[:, :r]) @ U)
            for a in range(kk):
                for b in range(kk):
                    s = 0.0
                    for c in range(r):
                        s += P[a, c] * w[c] * P[b, c]
                    K[a, b] = s
        for a in range(kk):
            for b in range(kk):
                K[a, b] += sigma_B[t] * goe_k[t, a, b]
        if rel_K.shape[0] > 0:  # the released (privatised) preconditioner Ṽᵀ(G_t + B_t)Ṽ, for audits
            for a in range(kk):
                for b in range(kk):
                    rel_K[t, a, b] = K[a, b]
        if not np.all(np.isfinite(K)):  # σ_B·M_t overflowed (σ_B near float64's limit): eigh would raise; NaN out,
            for j in range(p):  # and the wrapper reports the overflow as the other float64 overflows
                theta[j] = np.nan
            return theta
        kap, W0 = np.linalg.eigh(K)
        W = np.ascontiguousarray(W0)
        top = 0.0
        neg = 0
        for i in range(kk):
            top = max(top, abs(kap[i]))
        for i in range(kk):
            if abs(kap[i]) <= rtol * top:
                kap[i] = 0.0
            elif kap[i] < 0.0:
                neg += 1
                kap[i] = -kap[i] if mode == 0 else 0.0
        indef[t] = neg
        UH = Vt @ W  # p × kk eigenbasis of H
        sb = sigma_b[t] * (gn if b_mode == 1 else 1.0)
        # step: y = θ − η H⁺ (∇ + σ_b ξ)
        for j in range(p):
            yv[j] = g[j] + sb * xi[t, j]
        if rel_g.shape[0] > 0:  # the released (privatised) gradient ∇_t + σ_b ξ_t, for audits
            for j in range(p):
                rel_g[t, j] = yv[j]
        coef = np.zeros(kk)
        for i in range(kk):
            if kap[i] > 0.0:
                s = 0.0
                for j in range(p):
                    s += UH[j, i] * yv[j]
                coef[i] = s / kap[i]
        for j in range(p):
            s = theta[j]
            for i in range(kk):
                s -= eta * UH[j, i] * coef[i]
            yv[j] = s
        _project_seminorm(UH, kap, 0.0, yv, radius, newt)
        for j in range(p):
            theta[j] = newt[j]
    return theta


@njit(cache=True, nogil=True)
def _adagrad_loop(X, y, scales, theta0, prm, losses, tr_g, theta_sum):
    loss, eta, delta, radius, rtol, rank_tol = prm.loss, prm.eta, prm.delta, prm.radius, prm.rtol, prm.rank_tol
    n, p = X.shape
    T = scales.shape[0]
    theta = theta0.copy()
    g = np.zeros(p)
    Q = np.zeros((p, p))
    SQ = np.zeros((p, p))
    r = 0
    yv = np.zeros(p)
    newt = np.zeros(p)
    for j in range(p):
        theta_sum[j] = 0.0
    for t in range(T):
        losses[t] = glm_loss(X, y, loss, theta)
        for j in range(p):
            theta_sum[j] += theta[j]
        glm_grad(X, y, loss, theta, g)
        gn = 0.0
        for j in range(p):
            g[j] *= scales[t]
            gn += g[j] * g[j]
        if gn > 0.0:
            r = _basis_update(Q, SQ, r, g, rank_tol)
        if r == 0:
            tr_g[t] = 0.0
            continue
        U, w = _sqrt_psd(SQ, r, rtol)
        tr_g[t] = np.sum(w)
        QU = np.ascontiguousarray(Q[:, :r]) @ U
        kap = w + delta
        top = max(np.max(kap), delta)
        for i in range(r):
            if kap[i] <= rtol * top:
                kap[i] = 0.0
        # H⁻¹∇ = Σ_i (QU)_i ⟨(QU)_i, ∇⟩/κ_i + (∇ − QU QUᵀ∇)/δ
        c = QU.T @ g
        res = g - QU @ c
        for j in range(p):
            s = res[j] / delta if delta > 0.0 else 0.0
            for i in range(r):
                if kap[i] > 0.0:
                    s += QU[j, i] * c[i] / kap[i]
            yv[j] = theta[j] - eta * s
        _project_seminorm(QU, kap, delta, yv, radius, newt)
        for j in range(p):
            theta[j] = newt[j]
    return theta


_DPGD_BATCH_BYTES = 64 * 2**20  # the noise of one batch of run_dpgd's trials


@njit(cache=True, nogil=True)
def _dpgd_trials(X, y, loss, theta0, eta, sigma, xi, losses, avg, last, loss_avg):
    """:func:`_dpgd_loop` for each trial k of a batch (noise ``xi[k]``): its losses, last iterate, average iterate
    (the iterates' sum over T) and that average's loss (:func:`glm_loss`)."""
    T = xi.shape[1]
    ts = np.empty(X.shape[1])
    for k in range(xi.shape[0]):
        last[k] = _dpgd_loop(X, y, loss, theta0, eta, sigma, xi[k], losses[k], ts)
        for j in range(ts.shape[0]):
            avg[k, j] = ts[j] / T
        loss_avg[k] = glm_loss(X, y, loss, avg[k])


@njit(cache=True, nogil=True)
def _dpgd_loop(X, y, loss, theta0, eta, sigma, xi, losses, theta_sum):
    n, p = X.shape
    T = xi.shape[0]
    theta = theta0.copy()
    g = np.zeros(p)
    for j in range(p):
        theta_sum[j] = 0.0
    for t in range(T):
        losses[t] = glm_loss(X, y, loss, theta)
        for j in range(p):
            theta_sum[j] += theta[j]
        glm_grad(X, y, loss, theta, g)
        for j in range(p):
            theta[j] -= eta * (g[j] + sigma * xi[t, j])
    return theta


@njit(cache=True, nogil=True)
def _dpgd_trials_one_stream(X, y, loss, theta0, eta, sigma, rng, losses, avg, last, loss_avg):
    """:func:`_dpgd_trials` with every trial's ξ (steps × p, row by row) drawn in turn from the one generator
    ``rng``, inside the call: trial k starts where trial k − 1 left the stream."""
    T = losses.shape[1]
    p = X.shape[1]
    xi = np.empty((T, p))
    ts = np.empty(p)
    for k in range(losses.shape[0]):
        for t in range(T):
            for j in range(p):
                xi[t, j] = rng.standard_normal()
        last[k] = _dpgd_loop(X, y, loss, theta0, eta, sigma, xi, losses[k], ts)
        for j in range(p):
            avg[k, j] = ts[j] / T
        loss_avg[k] = glm_loss(X, y, loss, avg[k])


@njit(cache=True, nogil=True)
def _noisy_adagrad_trials_one_stream(X, y, scales, theta0, Vt, sigma_b, sigma_B, prm, rng, losses, gnorm, tr_g,
                                     tr_ginv, lam_min, indef, theta_last, theta_avg, releases, rel_g, rel_K):
    """:func:`_noisy_adagrad_loop` for every trial k in one call, each trial drawing its noise in turn from the one
    generator ``rng`` in :func:`draw_noise`'s order (ξ, steps × p, then the steps k̃×k̃ matrices A of the GOE
    (A + Aᵀ)/√2); the per-trial state (θ, the basis, S) is set afresh by the loop, as in the per-trial path."""
    T = scales.shape[0]
    p = X.shape[1]
    kk = Vt.shape[1]
    r2 = math.sqrt(2.0)
    xi = np.empty((T, p))
    A = np.empty((T, kk, kk))
    goe_k = np.empty((T, kk, kk))
    ts = np.empty(p)
    for k in range(losses.shape[0]):
        for t in range(T):
            for j in range(p):
                xi[t, j] = rng.standard_normal()
        for t in range(T):
            for a in range(kk):
                for b in range(kk):
                    A[t, a, b] = rng.standard_normal()
        for t in range(T):
            for a in range(kk):
                for b in range(kk):
                    goe_k[t, a, b] = (A[t, a, b] + A[t, b, a]) / r2
        i = k if releases else 0
        theta_last[k] = _noisy_adagrad_loop(X, y, scales, theta0, Vt, sigma_b, sigma_B, xi, goe_k, prm, losses[k],
                                            gnorm[k], tr_g[k], tr_ginv[k], lam_min[k], indef[k], ts, rel_g[i],
                                            rel_K[i])
        for j in range(p):
            theta_avg[k, j] = ts[j] / T


# ======================================================================================
# Public wrappers
# ======================================================================================
def _schedule(name: str, value, T: int) -> np.ndarray:
    if isinstance(value, (list, tuple, np.ndarray)):
        arr = V.finite_array(name, value)
    else:  # a number (V.real refuses booleans, None and non-numeric strings, naming the parameter)
        arr = np.asarray(V.real(name, value), dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(T, float(arr))
    arr = V.finite_array(name, arr, shape=(T,))
    if np.any(arr < 0):
        raise V.InvalidParameter(name, "a number or length-T array of numbers >= 0", "negative entries")
    return arr


def loss_scales(T: int, decay_alpha: float) -> np.ndarray:
    """s_t = t^(−α), t = 1..T (the online losses f_t = s_t·L).

    Parameters
    ----------
    T : int
        The number of steps.
    decay_alpha : float
        α ≥ 0 (0: every s_t = 1).

    Returns
    -------
    numpy.ndarray
        (T,) float64 scales.
    """
    return np.arange(1, T + 1, dtype=np.float64) ** (-float(decay_alpha))


def _check_run(prob, steps, eta, radius, trials, seed, decay_alpha):
    if not isinstance(prob, LowRankGLM):
        raise V.InvalidParameter("prob", "a LowRankGLM (kernels.noisy_adagrad.low_rank_glm)", type(prob).__name__)
    X, y = prob.X, prob.y
    if not (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 and min(X.shape) >= 1
            and X.flags.c_contiguous and np.all(np.isfinite(X)) and isinstance(y, np.ndarray)
            and y.dtype == np.float64 and y.shape == (X.shape[0],) and np.all(np.isfinite(y))
            and prob.loss in LOSSES and isinstance(prob.V, np.ndarray) and prob.V.ndim == 2
            and prob.V.shape[0] == X.shape[1]):
        raise V.InvalidParameter("prob", "a LowRankGLM with finite float64 X (n, p), y (n,), V (p, k) and a known loss",
                                 getattr(X, "shape", type(X).__name__))
    V.memory("prob", prob.p, prob.p)
    steps = V.count("steps", steps)
    eta = V.positive("eta", eta)
    radius = V.positive("radius", radius, allow_inf=True)
    trials = V.count("trials", trials)
    seed = V.integer("seed", seed, 0)
    decay_alpha = V.nonnegative("decay_alpha", decay_alpha)
    return steps, eta, radius, trials, seed, decay_alpha


def draw_noise(seed: int, trials: int, steps: int, p: int, kk: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per trial (one SeedSequence child each): ξ (T×p) standard normals and T k̃×k̃ GOE matrices.

    The noise :func:`run_noisy_adagrad` feeds its loop (same ``seed`` ⇒ same draws; with ``one_stream=True`` it
    draws each trial's ξ and GOE matrices in this order from one stream instead), exposed so that a reference can be
    run on the same noise.

    Parameters
    ----------
    seed : int
        The root of the per-trial streams.
    trials : int
        Trials, one spawned stream each.
    steps : int
        T.
    p : int
        The dimension of the gradient noise ξ.
    kk : int
        k̃, the size of the preconditioner noise (:func:`goe`).

    Returns
    -------
    list of tuple of numpy.ndarray
        One ``(xi, goe_k)`` per trial: ξ (steps, p) and the GOE draws (steps, kk, kk).
    """
    out = []
    for child in np.random.SeedSequence(seed).spawn(trials):
        rng = np.random.default_rng(child)
        xi = rng.standard_normal((steps, p))
        out.append((xi, goe(rng, kk, steps)))
    return out


@dataclass(frozen=True)
class NoisyAdagradOptions:
    """How :func:`run_noisy_adagrad` runs Algorithm 1 beyond its stepsize and noise: an immutable record.

    Parameters
    ----------
    sigma_b_mode : str, optional
        "constant" (σ_b(t) as given) or "grad_norm" (σ_b(t)·‖∇_t‖, Corollary 3's noise).
    indefinite : str, optional
        What to do where the noisy preconditioner is indefinite: "abs" or "clip" (module docstring).
    decay_alpha : float, optional
        The losses' scale s_t = t^(−α), α ≥ 0.
    rtol : float, optional
        The relative rank tolerance of the pseudo-inverses (default :data:`RTOL`).
    """

    sigma_b_mode: str = "constant"
    indefinite: str = "abs"
    decay_alpha: float = 0.0
    rtol: float = RTOL


def run_noisy_adagrad(prob: LowRankGLM, steps: int, eta: float, radius: float, Vt=None, sigma_b=0.0, sigma_B=0.0,
                      options: NoisyAdagradOptions | None = None, trials: int = 1, seed: int = 0, theta0=None,
                      releases: bool = False, one_stream: bool = False) -> dict:
    """Algorithm 1 on ``prob``; per trial: losses L(θ_t), ‖∇_t‖, Tr G_t, Tr G_t⁺, λ_min⁺(G_t), the number of
    negative eigenvalues of Ṽᵀ(G_t + B_t)Ṽ, the average iterate and its loss.

    ``releases=True`` also returns the 2T privatised statistics every step releases (what the accountant
    composes; the iterates are their post-processing): ``released_gradient`` (trials, T, p), the noisy gradient
    ∇_t + σ_b ξ_t, and ``released_preconditioner`` (trials, T, k̃, k̃), the noisy Ṽᵀ(G_t + B_t)Ṽ — for privacy
    audits that observe every step.

    Limits: ``steps``, ``trials`` ≤ 10⁹; the pre-drawn noise of all trials, trials·steps·(p + k̃²) numbers, and
    the (trials, steps) diagnostics ≤ 8 GiB.  A run that overflows float64 raises InvalidParameter.

    Parameters
    ----------
    prob : LowRankGLM
    steps : int
    eta : float
        The stepsize.
    radius : float
        The radius of the constraint set.
    Vt : array, optional
        The subspace Ṽ the preconditioner lives in.
    sigma_b : float or array, optional
        The gradient noise σ_b (constant or per step; proportional to ‖∇_t‖ when ``options.sigma_b_mode`` is
        "grad_norm").
    sigma_B : float or array, optional
        The scale of the preconditioner's symmetric noise B_t.
    options : NoisyAdagradOptions, optional
        ``sigma_b_mode``, ``indefinite``, ``decay_alpha`` and ``rtol`` (:class:`NoisyAdagradOptions`; default: its
        defaults).  An invalid field is reported under its own name.
    trials, seed : int, optional
    theta0 : array, optional
        The starting point.
    releases : bool, optional
        As above.
    one_stream : bool, optional
        Draw every trial's noise, trial after trial (each in :func:`draw_noise`'s order), from one stream
        ``np.random.default_rng(seed)`` inside one jitted call (for many short trials, e.g. privacy audits: no
        per-trial Python), instead of a spawned stream per trial (the default, :func:`draw_noise`'s).  Other
        numbers than the default's, equally reproducible.

    Returns
    -------
    dict
        ``run_noisy_adagrad``'s arrays, listed above.

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_noisy_adagrad`` (or a field of ``options``) outside what it accepts, too large outputs or
        a float64 overflow.
    """
    if options is None:
        options = NoisyAdagradOptions()
    elif not isinstance(options, NoisyAdagradOptions):
        raise V.InvalidParameter("options", "a kernels.noisy_adagrad.NoisyAdagradOptions or None", options)
    sigma_b_mode, indefinite, decay_alpha, rtol = (options.sigma_b_mode, options.indefinite, options.decay_alpha,
                                                   options.rtol)
    steps, eta, radius, trials, seed, decay_alpha = _check_run(prob, steps, eta, radius, trials, seed, decay_alpha)
    Vt = prob.V if Vt is None else orthonormal("Vt", Vt)
    if Vt.shape[0] != prob.p:
        raise V.InvalidParameter("Vt", f"a matrix with p = {prob.p} rows", f"shape {Vt.shape}")
    V.memory("trials, steps", trials, steps, prob.p + Vt.shape[1] ** 2 + 8)
    releases = V.flag("releases", releases)
    one_stream = V.flag("one_stream", one_stream)
    if releases:
        V.memory("trials, steps", trials, steps, prob.p + Vt.shape[1] ** 2)
    sb = _schedule("sigma_b", sigma_b, steps)
    sB = _schedule("sigma_B", sigma_B, steps)
    # fault hooks for mutation analysis (kernels/faults.py): both privacy noises (the gradient's σ_b and the
    # preconditioner's σ_B) and the stepsize scaled
    fault = faults.noise_factor(sb, sB)
    sb, sB, eta = sb * fault, sB * fault, eta * faults.stepsize_scale()
    bm = SIGMA_B_MODES[V.choice("sigma_b_mode", sigma_b_mode, SIGMA_B_MODES)]
    mode = INDEFINITE[V.choice("indefinite", indefinite, INDEFINITE)]
    rtol = V.positive("rtol", rtol)
    th0 = np.zeros(prob.p) if theta0 is None else V.finite_array("theta0", theta0, shape=(prob.p,))
    scales = loss_scales(steps, decay_alpha)
    keys = ("losses", "gnorm", "tr_g", "tr_ginv", "lam_min", "indefinite")
    out = {k: np.empty((trials, steps)) for k in keys}
    out["theta_avg"] = np.empty((trials, prob.p))
    out["theta_last"] = np.empty((trials, prob.p))
    Vt = np.ascontiguousarray(Vt)
    kk = Vt.shape[1]
    rel_g = np.empty((trials, steps, prob.p) if releases else (1, 0, prob.p))
    rel_K = np.empty((trials, steps, kk, kk) if releases else (1, 0, kk, kk))
    prm = NoisyAdagradParams(LOSSES[prob.loss], eta, radius, rtol, RANK_TOL, mode, bm)
    if one_stream:
        _noisy_adagrad_trials_one_stream(prob.X, prob.y, scales, th0, Vt, sb, sB, prm, np.random.default_rng(seed),
                                         out["losses"], out["gnorm"], out["tr_g"], out["tr_ginv"], out["lam_min"],
                                         out["indefinite"], out["theta_last"], out["theta_avg"], releases, rel_g,
                                         rel_K)
    else:
        for i, (xi, gk) in enumerate(draw_noise(seed, trials, steps, prob.p, kk)):
            ts = np.empty(prob.p)
            out["theta_last"][i] = _noisy_adagrad_loop(
                prob.X, prob.y, scales, th0, Vt, sb, sB, xi, gk, prm, out["losses"][i], out["gnorm"][i],
                out["tr_g"][i], out["tr_ginv"][i], out["lam_min"][i], out["indefinite"][i], ts,
                rel_g[i if releases else 0], rel_K[i if releases else 0])
            out["theta_avg"][i] = ts / steps
    if releases:
        out["released_gradient"], out["released_preconditioner"] = rel_g, rel_K
    V.finite_output("eta, sigma_b, sigma_B, theta0", out["theta_last"], out["theta_avg"], out["losses"])
    out["loss_avg"] = np.array([prob.loss_value(th) for th in out["theta_avg"]])
    out["scales"] = scales
    out["sigma_b_used"] = sb[None, :] * (out["gnorm"] if bm == 1 else 1.0)
    return out


def run_adagrad(prob: LowRankGLM, steps: int, eta: float, radius: float, delta: float = 0.0,
                decay_alpha: float = 0.0, rtol: float = RTOL, theta0=None) -> dict:
    """Full-matrix AdaGrad (App. A.1, H_t = δI + G_t, H_t-norm projection); deterministic.  ``steps`` ≤ 10⁹.

    Parameters
    ----------
    prob : LowRankGLM
    steps : int
    eta : float
        The stepsize.
    radius : float
        The radius of the constraint set.
    delta : float, optional
        The δ of H_t = δI + G_t.
    decay_alpha : float, optional
    rtol : float, optional
    theta0 : array, optional
        The starting point.

    Returns
    -------
    dict

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_adagrad`` outside what it accepts.
    """
    steps, eta, radius, _, _, decay_alpha = _check_run(prob, steps, eta, radius, 1, 0, decay_alpha)
    V.memory("steps", steps, 2)
    delta = V.nonnegative("delta", delta)
    th0 = np.zeros(prob.p) if theta0 is None else V.finite_array("theta0", theta0, shape=(prob.p,))
    losses, tr_g, ts = np.empty(steps), np.empty(steps), np.empty(prob.p)
    prm = AdagradParams(LOSSES[prob.loss], eta, delta, radius, V.positive("rtol", rtol), RANK_TOL)
    last = _adagrad_loop(prob.X, prob.y, loss_scales(steps, decay_alpha), th0, prm, losses, tr_g, ts)
    V.finite_output("eta, delta, theta0", losses, last)
    return {"losses": losses, "tr_g": tr_g, "theta_avg": ts / steps, "theta_last": last}


def run_dpgd(prob: LowRankGLM, steps: int, eta: float, sigma: float, trials: int = 1, seed: int = 0,
             one_stream: bool = False) -> dict:
    """DP-GD (Alg. 3), unconstrained, θ_0 = 0: per trial the losses L(θ_t), the average iterate and its loss.

    Limits: ``steps``, ``trials`` ≤ 10⁹ with one trial's (steps, p) noise and the (trials, steps) losses ≤ 8 GiB.
    A run that overflows float64 (``eta``·``sigma`` too large) raises InvalidParameter.

    Parameters
    ----------
    prob : LowRankGLM
    steps : int
    eta : float
        The stepsize.
    sigma : float
        The noise's standard deviation.
    trials, seed : int, optional
        Trials (one spawned stream each) and their root seed.
    one_stream : bool, optional
        Draw every trial's noise, trial after trial, from one stream ``np.random.default_rng(seed)`` inside one
        jitted call (for many short trials, e.g. privacy audits: no per-trial Python), instead of a spawned stream
        per trial (the default).  Other numbers than the default's, equally reproducible.

    Returns
    -------
    dict
        Per trial the losses, the average iterate and its loss.

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_dpgd`` outside what it accepts, outputs over the size limit, or a float64 overflow.
    """
    steps, eta, _, trials, seed, _ = _check_run(prob, steps, eta, 1.0, trials, seed, 0.0)
    sigma = V.nonnegative("sigma", sigma)
    one_stream = V.flag("one_stream", one_stream)
    sigma, eta = sigma * faults.noise_factor(sigma), eta * faults.stepsize_scale()  # fault hooks (kernels/faults.py)
    V.memory("steps", steps, prob.p)
    V.memory("trials, steps", trials, steps)
    losses = np.empty((trials, steps))
    avg = np.empty((trials, prob.p))
    last = np.empty((trials, prob.p))
    loss_avg = np.empty(trials)
    th0 = np.zeros(prob.p)
    if one_stream:
        _dpgd_trials_one_stream(prob.X, prob.y, LOSSES[prob.loss], th0, eta, sigma, np.random.default_rng(seed),
                                losses, avg, last, loss_avg)
    else:
        children = np.random.SeedSequence(seed).spawn(trials)
        # the trials in batches of at most _DPGD_BATCH_BYTES of noise: each trial's ξ drawn from its own stream,
        # then one jitted call runs the batch (a call per trial cost more than a short trial's loop)
        per = max(1, min(trials, _DPGD_BATCH_BYTES // max(1, 8 * steps * prob.p)))
        xi = np.empty((per, steps, prob.p))
        for k0 in range(0, trials, per):
            k1 = min(trials, k0 + per)
            for k in range(k0, k1):
                np.random.default_rng(children[k]).standard_normal(out=xi[k - k0])
            _dpgd_trials(prob.X, prob.y, LOSSES[prob.loss], th0, eta, sigma, xi[:k1 - k0], losses[k0:k1],
                         avg[k0:k1], last[k0:k1], loss_avg[k0:k1])
    V.finite_output("eta, sigma", losses, avg, last)
    return {"losses": losses, "theta_avg": avg, "theta_last": last, "loss_avg": loss_avg}
