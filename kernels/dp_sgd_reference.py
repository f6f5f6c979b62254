"""NumPy twin of :func:`kernels.dp_sgd.run_dp_sgd`: the same batches and noise from the same generator."""

from __future__ import annotations

import numpy as np

from kernels.dp_sgd_problems import LogisticProblem


def dp_sgd_step(problem: LogisticProblem, w: np.ndarray, idx: np.ndarray, lr: float, clip: float,
                noise: np.ndarray | None) -> tuple[np.ndarray, int]:
    """One step on the records ``idx``: (new w, records clipped).  ``noise``: the (d,) noise added to the sum.

    Each record's logistic-loss gradient c_i·x_i is clipped to ℓ₂ norm ``clip`` (factor min(1, C/‖g_i‖)),
    the clipped gradients are summed, ``noise`` is added, and w ← w − (lr/B)·(sum + noise) with B = len(idx).
    Computed in float64, then cast back to ``w``'s dtype.

    Parameters
    ----------
    problem : LogisticProblem
        The data (features, labels, squared row norms).
    w : ndarray, shape (d,)
        The current iterate.
    idx : ndarray of int, shape (B,)
        The batch's record indices.
    lr : float
        The step size.
    clip : float
        The per-example clipping threshold C.
    noise : ndarray of float, shape (d,), or None
        The noise added to the sum of clipped gradients; None for none.

    Returns
    -------
    w : ndarray, shape (d,)
        The new iterate, in ``w``'s dtype.
    clipped : int
        How many of the B records had a gradient norm above ``clip``.
    """
    X = problem.features[idx].astype(np.float64)
    y = problem.labels[idx].astype(np.float64)
    m = y * (X @ w.astype(np.float64))
    c = -y * np.exp(-np.logaddexp(0.0, m))  # −y / (1 + exp(y z))
    norms = np.abs(c) * np.sqrt(problem.sqnorms[idx])
    f = np.where(norms > clip, clip / np.where(norms > 0, norms, 1.0), 1.0)
    total = (f * c) @ X
    if noise is not None:
        total = total + noise
    return (w - (lr / len(idx)) * total).astype(w.dtype), int(np.sum(norms > clip))


def dp_sgd_reference(problem: LogisticProblem, *, steps: int, batch_size: int, lr: float, clip: float, sigma: float,
                     seed: int = 0, w0: np.ndarray | None = None) -> dict:
    """``steps`` DP-SGD steps drawn exactly as the kernel draws them (partial Fisher–Yates, then the noise).

    Per step: B = ``batch_size`` distinct records by a partial Fisher–Yates shuffle of a persistent permutation
    (one ``rng.integers`` per record), then, when sigma > 0, d standard normals scaled by sigma·clip; then
    :func:`dp_sgd_step`.  No input is validated (the kernel's wrapper does that).

    Parameters
    ----------
    problem : LogisticProblem
        The data.
    steps : int
        Steps to take.
    batch_size : int
        Distinct records per step, 1 ≤ B ≤ n.
    lr : float
        Step size.
    clip : float
        Per-example clipping threshold.
    sigma : float
        Noise multiplier: the noise added to the sum has standard deviation ``sigma * clip`` (none drawn when 0).
    seed : int, optional
        Seed of ``np.random.default_rng``, the one generator of the batches and the noise (default 0).
    w0 : array_like, shape (d,), optional
        Starting point (default 0), stored in the features' dtype.

    Returns
    -------
    dict
        ``w``: ndarray (d,), the last iterate in the features' dtype; ``clip_fraction``: float, the fraction of
        the steps·B record gradients that were clipped.
    """
    rng = np.random.default_rng(seed)
    n, d = problem.features.shape
    w = np.zeros(d, dtype=problem.features.dtype) if w0 is None else np.array(w0, dtype=problem.features.dtype)
    perm = np.arange(n)
    clipped = 0
    for _ in range(steps):
        for k in range(batch_size):
            j = k + int(rng.integers(0, n - k))
            perm[k], perm[j] = perm[j], perm[k]
        noise = sigma * clip * rng.standard_normal(d) if sigma > 0 else None
        w, c = dp_sgd_step(problem, w, perm[:batch_size].copy(), lr, clip, noise)
        clipped += c
    return {"w": w, "clip_fraction": clipped / (steps * batch_size)}
