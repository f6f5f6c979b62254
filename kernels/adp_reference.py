"""ADP-SGD / DP-SGD of ``adp`` in short NumPy: the test oracle and benchmark baseline of :mod:`kernels.adp`
(same draws as the kernel: an index, then d normals, per step)."""

from __future__ import annotations

import math

import numpy as np

from kernels.adp_problems import NonconvexProblem


def adp_reference(problem: NonconvexProblem, rng: np.random.Generator, *, steps: int, eta: float, b_rule: str,
                  alpha_rule: str, sigma: float, a: float = 1.0, c: float = 1.0, b0: float = 1.0, nu: float = 1e-3,
                  C: float = 1.0, clip: float | None = None) -> np.ndarray:
    """Short NumPy reference of one trial (same draws as the kernel: an index, then d normals, per step); returns θ_T."""  # noqa: E501
    clip = problem.gradient_bound if clip is None else clip
    X, Y, lam = problem.features, problem.labels, problem.lam
    theta = np.zeros(problem.d)
    b2 = b0 * b0
    for t in range(steps):
        i = rng.integers(0, problem.n)
        m = Y[i] * (X[i] @ theta)
        g = -Y[i] / (1.0 + np.exp(m)) * X[i] + lam * 2.0 * theta / (1.0 + theta**2) ** 2
        gn2 = float(g @ g)
        if gn2 > clip**2:
            g *= clip / math.sqrt(gn2)
            gn2 = clip**2
        if b_rule == "poly":
            b = math.sqrt(a + c * (t + 1))
        else:
            b2 += max(gn2, nu)
            b = math.sqrt(b2)
        al = 1.0 if alpha_rule == "dp" else (math.sqrt(b) if b_rule == "poly" else (b0**2 + (t + 1) * C) ** 0.25)
        theta = theta - (eta / b) * (g + al * sigma * rng.standard_normal(problem.d))
    return theta
