"""The problem of ``adp`` (ADP-SGD, 2021): smooth non-convex regularised logistic regression, for the kernels of
:mod:`kernels.adp` (which re-exports it)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import dpvalidate as V
from kernels.problem_data import DataMatrix

REG_GRAD_MAX = 3.0 * math.sqrt(3.0) / 8.0  # max_u 2u/(1+u²)², at u = 1/√3


@dataclass(frozen=True)
class NonconvexProblem(DataMatrix):
    features: np.ndarray  # (n, d), unit rows
    labels: np.ndarray  # (n,), ±1
    lam: float
    theta_star: np.ndarray
    params: dict

    @property
    def gradient_bound(self) -> float:
        """G of Assumption 2.2: ‖∇f(θ; x_i, y_i)‖ ≤ 1 + λ√d·3√3/8 for every θ and record."""
        return 1.0 + self.lam * math.sqrt(self.d) * REG_GRAD_MAX

    def full_gradient(self, theta: np.ndarray) -> np.ndarray:
        """∇F(θ) (NumPy; the reference)."""
        m = self.labels * (self.features @ theta)
        w = -self.labels / (1.0 + np.exp(m))
        return self.features.T @ w / self.n + self.lam * 2.0 * theta / (1.0 + theta**2) ** 2


def smooth_nonconvex(n: int = 2000, d: int = 20, lam: float = 0.05, flip: float = 0.1, seed: int = 0
                     ) -> NonconvexProblem:
    """The ``adp`` stand-in for its image experiments (docs/catalogue.md): non-convex regularised logistic regression.

    Limits: n, d ≤ 10⁹ with the (n, d) features ≤ 8 GiB.
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
