r"""NumPy references for :mod:`kernels.noisy_adagrad` (test oracles), composed in the optax idiom.

Each algorithm is a chain of small ``init``/``update`` pieces over an explicit state record; the
p×p matrices are formed explicitly (S_t, G_t = S_t^{1/2}, H_t), unlike the fused kernels, which keep
a basis of the gradient span — so kernel = reference checks the basis bookkeeping too.  Given the
same pre-drawn noise (ξ_t ∈ R^p and the k̃×k̃ GOE matrix of step t, embedded as ṼM̃Ṽᵀ), the results
must agree to floating-point tolerance.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kernels.noisy_adagrad import LOSSES, RTOL, LowRankGLM, loss_scales


class Preconditioner(NamedTuple):
    S: np.ndarray  # Σ ∇∇ᵀ


def grad(prob: LowRankGLM, theta: np.ndarray) -> np.ndarray:
    m = prob.X @ theta
    if prob.loss == "absolute":
        w = np.sign(m - prob.y)
    elif prob.loss == "logistic":
        w = -prob.y / (1.0 + np.exp(prob.y * m))
    else:
        w = np.where(prob.y * m < 1.0, -prob.y, 0.0)
    return prob.X.T @ w / prob.n


def psd_sqrt(S: np.ndarray, rtol: float = RTOL) -> np.ndarray:
    """S^{1/2} by eigh; eigenvalues of the root ≤ rtol·max set to 0."""
    w, U = np.linalg.eigh((S + S.T) / 2)
    r = np.sqrt(np.clip(w, 0.0, None))
    r[r <= rtol * r.max(initial=0.0)] = 0.0
    return (U * r) @ U.T


def treat(kappa: np.ndarray, mode: str, rtol: float = RTOL) -> np.ndarray:
    """The kernels' rule for an indefinite H: |κ| ≤ rtol·max|κ| → 0; negatives → |κ| ("abs") or 0 ("clip")."""
    k = kappa.copy()
    small = np.abs(k) <= rtol * np.max(np.abs(k), initial=0.0)
    k[small] = 0.0
    return np.abs(k) if mode == "abs" else np.where(k > 0, k, 0.0)


def pinv_apply(U: np.ndarray, kappa: np.ndarray, v: np.ndarray) -> np.ndarray:
    inv = np.where(kappa > 0, 1.0 / np.where(kappa > 0, kappa, 1.0), 0.0)
    return U @ (inv * (U.T @ v))


def project_seminorm(U: np.ndarray, kappa: np.ndarray, y: np.ndarray, radius: float,
                     delta_c: float = 0.0) -> np.ndarray:
    """argmin_{‖θ‖ ≤ R} ‖θ − y‖_H, H = U diag(κ) Uᵀ + δ_c(I − UUᵀ): the tie-break of the kernels' docstring."""
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
    return Preconditioner(np.zeros((p, p)))


def accumulate_update(g: np.ndarray, state: Preconditioner) -> tuple[np.ndarray, Preconditioner]:
    S = state.S + np.outer(g, g)
    return psd_sqrt(S), Preconditioner(S)


def noisy_precondition(G: np.ndarray, Vt: np.ndarray, sigma_B: float, goe_k: np.ndarray, mode: str):
    """H = Π(G + σ_B ṼM̃Ṽᵀ)Π formed in R^{p×p}, its eigenbasis and treated eigenvalues."""
    Pi = Vt @ Vt.T
    H = Pi @ (G + sigma_B * Vt @ goe_k @ Vt.T) @ Pi
    kap, U = np.linalg.eigh((H + H.T) / 2)
    return U, treat(kap, mode)


def noisy_adagrad(prob: LowRankGLM, steps: int, eta: float, radius: float, Vt: np.ndarray, sigma_b: np.ndarray,
                  sigma_b_mode: str, sigma_B: np.ndarray, xi: np.ndarray, goe_k: np.ndarray, indefinite: str = "abs",
                  decay_alpha: float = 0.0) -> dict:
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
    """Full-matrix AdaGrad, H = δI + G (δ = 0: pseudo-inverse and seminorm projection)."""
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
    theta = np.zeros(prob.p)
    avg = np.zeros(prob.p)
    for t in range(xi.shape[0]):
        avg += theta
        theta = theta - eta * (grad(prob, theta) + sigma * xi[t])
    return {"theta_avg": avg / xi.shape[0], "theta_last": theta}


__all__ = ["LOSSES", "adagrad", "dpgd", "noisy_adagrad", "project_seminorm", "psd_sqrt", "treat"]
