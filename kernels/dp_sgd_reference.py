"""NumPy twin of :func:`kernels.dp_sgd.run_dp_sgd`: the same batches and noise from the same generator."""

from __future__ import annotations

import numpy as np

from kernels.dp_sgd_problems import LogisticProblem


def dp_sgd_step(problem: LogisticProblem, w: np.ndarray, idx: np.ndarray, lr: float, clip: float,
                noise: np.ndarray | None) -> tuple[np.ndarray, int]:
    """One step on the records ``idx``: (new w, records clipped).  ``noise``: the (d,) noise added to the sum."""
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
    """``steps`` DP-SGD steps drawn exactly as the kernel draws them (partial Fisher–Yates, then the noise)."""
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
