"""The problems of ``noisy_adagrad`` (Kairouz, Ribero Diaz, Rush, Thakurta, COLT 2021): low-rank GLMs with
their losses and gradients (jitted), for the kernels of :mod:`kernels.noisy_adagrad` (which re-exports them)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

import dpvalidate as V
from kernels.problem_data import DataMatrix

LOSSES = {"absolute": 0, "logistic": 1, "hinge": 2}


@dataclass(frozen=True)
class LowRankGLM(DataMatrix):
    """A GLM whose records lie in a k-dimensional subspace of R^p (the fields' shapes are noted beside them).

    ``loss`` is a key of :data:`LOSSES`; ``params`` records the generator's arguments.  ``n`` and ``d`` (= p)
    are read off ``X`` (:class:`kernels.problem_data.DataMatrix`).
    """

    X: np.ndarray  # (n, p) records, rows in span(V), ‖x_i‖ ≤ 1
    y: np.ndarray  # (n,)
    V: np.ndarray  # (p, k) orthonormal basis of the feature span
    Z: np.ndarray  # (n, k) coordinates, X = Z Vᵀ
    theta_true: np.ndarray  # (p,) = V w_true
    X_public: np.ndarray  # (m, p), possibly empty
    loss: str
    params: dict

    data_matrix = "X"  # n and d (= p) from X

    @property
    def p(self) -> int:
        """The ambient dimension p.

        Returns
        -------
        int
            The number of columns of ``X``.
        """
        return self.d

    @property
    def k(self) -> int:
        """The rank k of the feature subspace.

        Returns
        -------
        int
            The number of columns of the basis ``V``.
        """
        return self.V.shape[1]

    @property
    def lipschitz(self) -> float:
        """L: every per-record (sub)gradient has norm ≤ max_i ‖x_i‖ ≤ 1 (all three losses are 1-Lipschitz in ⟨x, θ⟩).

        Returns
        -------
        float
            max_i ‖x_i‖₂ over the private records.
        """
        return float(np.max(np.linalg.norm(self.X, axis=1)))

    def loss_value(self, theta: np.ndarray) -> float:
        """The empirical loss L(θ; D) = (1/n) Σ_i ℓ(⟨x_i, θ⟩; y_i) (jitted, :func:`glm_loss`).

        Parameters
        ----------
        theta : array_like of float, shape (p,)
            The point θ.

        Returns
        -------
        float
            The mean loss.
        """
        return float(glm_loss(self.X, self.y, LOSSES[self.loss], np.ascontiguousarray(theta, dtype=np.float64)))

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        """A (sub)gradient of the empirical loss at θ (jitted, :func:`glm_grad`).

        Parameters
        ----------
        theta : array_like of float, shape (p,)
            The point θ.

        Returns
        -------
        ndarray of float64, shape (p,)
            (1/n) Σ_i ℓ'(⟨x_i, θ⟩; y_i)·x_i (for the absolute loss, 0 is taken at a kink).
        """
        out = np.empty(self.p)
        glm_grad(self.X, self.y, LOSSES[self.loss], np.ascontiguousarray(theta, dtype=np.float64), out)
        return out


def low_rank_glm(n: int = 200, p: int = 50, k: int = 3, loss: str = "absolute", m_public: int = 0,
                 public_shift: float = 0.0, label_noise: float = 0.0, w_norm: float = 1.0, seed: int = 0) -> LowRankGLM:
    """``low_rank_glm`` (docs/catalogue.md): features in a random rank-k subspace of R^p, a 1-Lipschitz GLM loss.

    The k-dimensional data (z_i, labels, w_true) depend only on (n, k, seed, loss, label_noise, w_norm);
    V and the public noise also on p — the problem seen in the subspace is the same for every p.
    Limits: n, p, m_public ≤ 10⁹ with the (n, p), (m_public, p) and the kernels' (p, p) arrays ≤ 8 GiB.

    z_i ~ N(0, diag(1/j)) scaled so that max_i ‖z_i‖ ≤ 1, w_true a random direction of norm ``w_norm``; labels
    y_i = ⟨z_i, w_true⟩ (absolute loss) or its sign flipped with probability ``label_noise`` (logistic, hinge);
    V from the QR factorisation of a Gaussian p×k matrix.

    Parameters
    ----------
    n : int, optional
        Private records (default 200).
    p : int, optional
        Ambient dimension (default 50).
    k : int, optional
        Rank of the feature subspace, 1 ≤ k ≤ p (default 3).
    loss : {"absolute", "logistic", "hinge"}, optional
        The GLM loss (default ``"absolute"``).
    m_public : int, optional
        Public records, ≥ 0 (default 0).
    public_shift : float, optional
        Total standard deviation ≥ 0 of the isotropic noise added to the public records (default 0).
    label_noise : float, optional
        Label-flip probability in [0, 0.5) for logistic and hinge (default 0).
    w_norm : float, optional
        ‖θ_true‖ > 0 (default 1).
    seed : int, optional
        Seed ≥ 0 (default 0).

    Returns
    -------
    LowRankGLM
        The problem, with ``params`` recording these arguments.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above, k > p, or an array would not fit in memory.
    """
    n = V.count("n", n)
    p = V.count("p", p)
    k = V.count("k", k)
    if k > p:
        raise V.InvalidParameter("k", f"an integer between 1 and p = {p}", k)
    V.choice("loss", loss, LOSSES)
    m_public = V.count("m_public", m_public, 0)
    V.memory("n, p", n, p)
    V.memory("m_public, p", m_public, p)
    V.memory("p", p, p)
    public_shift = V.nonnegative("public_shift", public_shift)
    if not 0.0 <= V.real("label_noise", label_noise) < 0.5:
        raise V.InvalidParameter("label_noise", "in [0, 0.5)", label_noise)
    w_norm = V.positive("w_norm", w_norm)
    seed = V.integer("seed", seed, 0)
    rz = np.random.default_rng(np.random.SeedSequence([seed, 0, n, k]))
    scales = 1.0 / np.sqrt(np.arange(1, k + 1))  # decaying spectrum inside the subspace
    Z = rz.standard_normal((n, k)) * scales
    Z /= max(1.0, float(np.max(np.linalg.norm(Z, axis=1))))
    w = rz.standard_normal(k)
    w *= w_norm / np.linalg.norm(w)
    zp = rz.standard_normal((m_public, k)) * scales
    zp /= max(1.0, float(np.max(np.linalg.norm(zp, axis=1)))) if m_public else 1.0
    if loss == "absolute":
        y = Z @ w
    else:
        y = np.sign(Z @ w)
        y[y == 0] = 1.0
        y = np.where(rz.random(n) < label_noise, -y, y)
    rv = np.random.default_rng(np.random.SeedSequence([seed, 1, p, k]))
    Vb, _ = np.linalg.qr(rv.standard_normal((p, k)))
    Xp = zp @ Vb.T
    if m_public and public_shift > 0:
        Xp = Xp + rv.standard_normal((m_public, p)) * public_shift / math.sqrt(p)
    return LowRankGLM(np.ascontiguousarray(Z @ Vb.T), y.astype(np.float64), np.ascontiguousarray(Vb), Z, Vb @ w,
                      np.ascontiguousarray(Xp), loss,
                      dict(n=n, p=p, k=k, loss=loss, m_public=m_public, public_shift=public_shift,
                           label_noise=label_noise, w_norm=w_norm, seed=seed))


def aligned_glm(n: int = 40, p: int = 20, k: int = 1, w_norm: float = 1.0) -> LowRankGLM:
    """Coordinate-aligned records (an adversarial instance of the rank-k GLM class): record i is the unit axis
    e_{(i mod k)+1} of R^p (every record at the largest norm L = 1), absolute loss with clean labels
    y_i = ⟨θ*, x_i⟩, θ* = (w_norm/√k)·(e_1 + … + e_k).  The loss is a sum of k V-shapes whose kinks sit at
    distance w_norm/√k from θ_0 = 0: gradient descent drifts at the largest speed the Lipschitz constant allows
    until it reaches them, the case in which the first term of the DP-GD analysis is tight.  Deterministic (no seed).

    Parameters
    ----------
    n : int, optional
        Records (default 40).
    p : int, optional
        Ambient dimension (default 20).
    k : int, optional
        Number of axes used, 1 ≤ k ≤ min(n, p) (default 1).
    w_norm : float, optional
        ‖θ*‖ > 0 (default 1).

    Returns
    -------
    LowRankGLM
        An absolute-loss problem with no public records and V = the first k unit axes.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a size is not a count, k > min(n, p), ``w_norm`` is not a finite positive number, or the records
        would not fit in memory.
    """
    n = V.count("n", n)
    p = V.count("p", p)
    k = V.count("k", k)
    if k > min(n, p):
        raise V.InvalidParameter("k", f"an integer between 1 and min(n, p) = {min(n, p)}", k)
    w_norm = V.positive("w_norm", w_norm)
    V.memory("n, p", n, p)
    Z = np.zeros((n, k))
    Z[np.arange(n), np.arange(n) % k] = 1.0
    w = np.full(k, w_norm / math.sqrt(k))
    Vb = np.ascontiguousarray(np.eye(p)[:, :k])
    return LowRankGLM(np.ascontiguousarray(Z @ Vb.T), (Z @ w).astype(np.float64), Vb, Z, Vb @ w, np.zeros((0, p)),
                      "absolute", dict(n=n, p=p, k=k, loss="absolute", m_public=0, public_shift=0.0, label_noise=0.0,
                                       w_norm=w_norm, seed=0, aligned=True))


@njit(cache=True, nogil=True)
def _dloss(m, yi, loss):
    if loss == 0:
        r = m - yi
        return 1.0 if r > 0 else (-1.0 if r < 0 else 0.0)
    if loss == 1:
        u = yi * m
        return -yi / (1.0 + math.exp(u)) if u > -700.0 else -yi
    return -yi if yi * m < 1.0 else 0.0


@njit(cache=True, nogil=True)
def _lval(m, yi, loss):
    if loss == 0:
        return abs(m - yi)
    if loss == 1:
        u = -yi * m
        return u + math.log1p(math.exp(-u)) if u > 0 else math.log1p(math.exp(u))
    return max(0.0, 1.0 - yi * m)


@njit(cache=True, nogil=True)
def glm_grad(X, y, loss, theta, out):
    """Write the mean (sub)gradient (1/n) Σ_i ℓ'(⟨x_i, θ⟩; y_i)·x_i into ``out`` (jitted).

    ℓ' is sign(m − y) for the absolute loss (0 at m = y), −y/(1 + e^{ym}) for the logistic loss and −y where
    ym < 1 (else 0) for the hinge loss.

    Parameters
    ----------
    X : ndarray of float64, shape (n, p)
        The records.
    y : ndarray of float64, shape (n,)
        The labels.
    loss : int
        The loss code, a value of :data:`LOSSES` (0 absolute, 1 logistic, 2 hinge).
    theta : ndarray of float64, shape (p,)
        The point θ.
    out : ndarray of float64, shape (p,)
        Overwritten with the gradient.
    """
    n, p = X.shape
    for j in range(p):
        out[j] = 0.0
    for i in range(n):
        m = 0.0
        for j in range(p):
            m += X[i, j] * theta[j]
        w = _dloss(m, y[i], loss)
        if w != 0.0:
            for j in range(p):
                out[j] += w * X[i, j]
    for j in range(p):
        out[j] /= n


@njit(cache=True, nogil=True)
def glm_loss(X, y, loss, theta):
    """The mean loss (1/n) Σ_i ℓ(⟨x_i, θ⟩; y_i) (jitted; the logistic loss computed without overflow).

    Parameters
    ----------
    X : ndarray of float64, shape (n, p)
        The records.
    y : ndarray of float64, shape (n,)
        The labels.
    loss : int
        The loss code, a value of :data:`LOSSES` (0 absolute abs(m − y), 1 logistic log(1 + e^{−ym}),
        2 hinge max(0, 1 − ym)).
    theta : ndarray of float64, shape (p,)
        The point θ.

    Returns
    -------
    float
        The mean loss.
    """
    n, p = X.shape
    s = 0.0
    for i in range(n):
        m = 0.0
        for j in range(p):
            m += X[i, j] * theta[j]
        s += _lval(m, y[i], loss)
    return s / n
