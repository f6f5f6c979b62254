"""The problem of ``adp`` (ADP-SGD, 2021): smooth non-convex regularised logistic regression, and the constants of
ADP-SGD's b_t and α_t schedules (:class:`AdpSchedule`), for the kernels of :mod:`kernels.adp` (which re-exports
both) and the NumPy reference :mod:`kernels.adp_reference`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

import dpvalidate as V
from kernels.problem_data import DataMatrix

REG_GRAD_MAX = 3.0 * math.sqrt(3.0) / 8.0  # max_u 2u/(1+u²)², at u = 1/√3


class AdpSchedule(NamedTuple):
    """The constants of ADP-SGD's b_t and α_t schedules (an immutable record; :mod:`kernels.adp`'s docstring).

    ``"poly"`` b: b_{t+1} = √(a + c(t+1)); ``"adaptive"`` b: b²_{t+1} = b_t² + max(‖g‖², ν) from b_0; ADP-SGD's α
    with the adaptive b: α_{t+1} = (b_0² + (t+1)C)^{1/4}.  Each constant must be a finite number > 0 (the kernels
    check it).

    Attributes
    ----------
    a, c : float
        The polynomial schedule's constants (default 1, 1).
    b0 : float
        b_0 of the adaptive schedule (default 1).
    nu : float
        The floor ν on the squared gradient norm in the adaptive schedule (default 1e-3).
    C : float
        The constant of the adaptive α_t (default 1).
    """

    a: float = 1.0
    c: float = 1.0
    b0: float = 1.0
    nu: float = 1e-3
    C: float = 1.0


@dataclass(frozen=True)
class NonconvexProblem(DataMatrix):
    """Non-convex regularised logistic regression: F(θ) = (1/n) Σ_i log(1 + exp(−y_i⟨x_i, θ⟩)) + λ Σ_j θ_j²/(1 + θ_j²).

    Attributes
    ----------
    features : ndarray of float64, shape (n, d)
        The records, unit rows.
    labels : ndarray of float64, shape (n,)
        Labels ±1.
    lam : float
        The regularisation weight λ ≥ 0.
    theta_star : ndarray of float64, shape (d,)
        The direction that generated the labels.
    params : dict
        The arguments of :func:`smooth_nonconvex` that built it.
    """

    features: np.ndarray  # (n, d), unit rows
    labels: np.ndarray  # (n,), ±1
    lam: float
    theta_star: np.ndarray
    params: dict

    @property
    def gradient_bound(self) -> float:
        """G of Assumption 2.2: ‖∇f(θ; x_i, y_i)‖ ≤ 1 + λ√d·3√3/8 for every θ and record.

        Returns
        -------
        float
            1 + λ√d·3√3/8 (the logistic part is at most ‖x_i‖ = 1; each regulariser coordinate at most λ·3√3/8).
        """
        return 1.0 + self.lam * math.sqrt(self.d) * REG_GRAD_MAX

    def full_gradient(self, theta: np.ndarray) -> np.ndarray:
        """∇F(θ) (NumPy; the reference).

        Parameters
        ----------
        theta : ndarray of float, shape (d,)
            The point θ.

        Returns
        -------
        ndarray of float64, shape (d,)
            (1/n) Σ_i −y_i x_i/(1 + exp(y_i⟨x_i, θ⟩)) + λ·2θ/(1 + θ²)² (the last term coordinatewise).
        """
        m = self.labels * (self.features @ theta)
        w = -self.labels / (1.0 + np.exp(m))
        return self.features.T @ w / self.n + self.lam * 2.0 * theta / (1.0 + theta**2) ** 2


def smooth_nonconvex(n: int = 2000, d: int = 20, lam: float = 0.05, flip: float = 0.1, seed: int = 0
                     ) -> NonconvexProblem:
    """The ``adp`` stand-in for its image experiments (docs/catalogue.md): non-convex regularised logistic regression.

    Limits: n, d ≤ 10⁹ with the (n, d) features ≤ 8 GiB.

    Gaussian rows normalised to unit norm, labels sign(⟨x_i, θ*⟩) (0 read as +1) for a Gaussian θ*, each
    flipped with probability ``flip``; all from one generator seeded by ``seed``.

    Parameters
    ----------
    n : int, optional
        Number of records (default 2000).
    d : int, optional
        Dimension (default 20).
    lam : float, optional
        Regularisation weight λ ≥ 0, finite (default 0.05).
    flip : float, optional
        Label-flip probability, in (0, 1] (default 0.1).
    seed : int, optional
        Seed ≥ 0 (default 0).

    Returns
    -------
    NonconvexProblem
        The problem, with ``params`` recording these arguments.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a size is not an integer in [1, 10⁹], the features would not fit in memory, ``lam`` is negative or
        not finite, ``flip`` lies outside (0, 1], or ``seed`` is not an integer ≥ 0.
    """
    n = V.count("n", n)
    d = V.count("d", d)
    V.memory("n, d", n, d)
    lam = V.nonnegative("lam", lam)
    flip = V.unit_interval("flip", flip)
    V.integer("seed", seed, 0)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    theta_star = rng.standard_normal(d)
    x = rng.standard_normal((n, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.sign(x @ theta_star)
    y[y == 0] = 1.0
    y = np.where(rng.random(n) < flip, -y, y)
    return NonconvexProblem(np.ascontiguousarray(x), y.astype(np.float64), lam, theta_star,
                            dict(n=n, d=d, lam=lam, flip=flip, seed=seed))
