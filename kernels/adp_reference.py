"""ADP-SGD / DP-SGD of ``adp`` in short NumPy: the test oracle and benchmark baseline of :mod:`kernels.adp`
(same draws as the kernel: an index, then d normals, per step)."""

from __future__ import annotations

import math

import numpy as np

from kernels.adp_problems import AdpSchedule, NonconvexProblem


def adp_reference(problem: NonconvexProblem, rng: np.random.Generator, *, steps: int, eta: float, b_rule: str,
                  alpha_rule: str, sigma: float, schedule: AdpSchedule = AdpSchedule(),
                  clip: float | None = None) -> np.ndarray:
    """Short NumPy reference of one trial (same draws as the kernel: an index, then d normals, per step); returns θ_T.

    From θ_0 = 0, each step draws one record i, takes its gradient (logistic loss plus the regulariser's
    λ·2θ/(1 + θ²)², coordinatewise), clips it to ℓ₂ norm ``clip``, updates b (``"poly"``: b_{t+1} = √(a + c(t+1));
    otherwise adaptive: b²_{t+1} = b_t² + max(‖g‖², ν) from b_0) and α (``"dp"``: 1; otherwise √b for ``"poly"``
    and (b_0² + (t+1)C)^{1/4} for adaptive b), then θ ← θ − (η/b)(g + α σ ξ) with ξ ~ N(0, I_d); a, c, b_0, ν and C
    come from ``schedule``.
    No input is validated.

    Parameters
    ----------
    problem : NonconvexProblem
        The data and λ.
    rng : numpy.random.Generator
        The trial's generator (one ``integers`` draw, then d normals, per step).
    steps : int
        The number of steps T.
    eta : float
        The base stepsize η.
    b_rule : str
        ``"poly"`` for the polynomial b_t; any other value (the kernel's ``"adaptive"``) for the adaptive one.
    alpha_rule : str
        ``"dp"`` for α_t = 1 (DP-SGD); any other value (the kernel's ``"adp"``) for ADP-SGD's α_t.
    sigma : float
        Standard deviation of the Gaussian noise per coordinate (times α_t).
    schedule : AdpSchedule, optional
        The schedules' constants a, c, b0, nu, C (default ``AdpSchedule()``: 1, 1, 1, 1e-3, 1).
    clip : float or None, optional
        Per-record clipping threshold; None (default) for ``problem.gradient_bound``.

    Returns
    -------
    ndarray of float64, shape (d,)
        The last iterate θ_T.
    """  # noqa: E501
    clip = problem.gradient_bound if clip is None else clip
    a, c, b0, nu, C = schedule
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
