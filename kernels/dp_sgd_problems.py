"""Dense logistic regression: the problem on which DP-SGD is compared with its peers.

Records are rows of an (n, d) matrix with labels ±1; the loss of record i is
ℓ(w; xᵢ, yᵢ) = log(1 + exp(−yᵢ⟨xᵢ, w⟩)), so its gradient is cᵢ·xᵢ with cᵢ = −yᵢ/(1 + exp(yᵢ⟨xᵢ, w⟩)) and
its norm is |cᵢ|·‖xᵢ‖.  The squared row norms are stored with the problem (computed once, in float64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import dpvalidate as V
from kernels.problem_data import DataMatrix

DTYPES = ("float32", "float64")


@dataclass(frozen=True)
class LogisticProblem(DataMatrix):
    """Dense logistic regression: ``features`` (n, d) in float32 or float64, ``labels`` (n,) ±1 in the same dtype,
    ``sqnorms`` (n,) float64 squared row norms."""

    features: np.ndarray
    labels: np.ndarray
    sqnorms: np.ndarray

    def loss_value(self, w: np.ndarray) -> float:
        """Mean logistic loss at ``w`` (NumPy, float64).

        Parameters
        ----------
        w : array_like of float, shape (d,)
            The weights.

        Returns
        -------
        float
            (1/n) Σ_i log(1 + exp(−y_i⟨x_i, w⟩)), computed stably with ``logaddexp``.
        """
        m = -self.labels.astype(np.float64) * (self.features.astype(np.float64) @ np.asarray(w, np.float64))
        return float(np.mean(np.logaddexp(0.0, m)))


def dense_logistic(n: int = 2048, d: int = 10_000, seed: int = 0, dtype: str = "float64",
                   row_norm: float = 4.0) -> LogisticProblem:
    """Gaussian rows scaled to norm about ``row_norm``, labels from a random unit direction with 10% flipped.

    Parameters
    ----------
    n, d : int
        Records and dimension.
    seed : int
        Seed of the one generator every draw comes from.
    dtype : {"float32", "float64"}
        Storage type of the features and labels.
    row_norm : float
        Expected row norm (4 by default, so that clipping at 1 is active for most records near w = 0).

    Returns
    -------
    LogisticProblem

    Raises
    ------
    dpvalidate.InvalidParameter
        For a size below 1, an unknown dtype or a row norm that is not positive and finite.
    """
    n = V.count("n", n)
    d = V.count("d", d)
    dtype = V.choice("dtype", dtype, DTYPES)
    row_norm = V.positive("row_norm", row_norm)
    V.memory("n, d", n, d, itemsize=np.dtype(dtype).itemsize)
    rng = np.random.default_rng(V.integer("seed", seed, 0))
    X = rng.standard_normal((n, d)) * (row_norm / np.sqrt(d))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = np.where(X @ u >= 0, 1.0, -1.0)
    y[rng.random(n) < 0.1] *= -1.0
    X = np.ascontiguousarray(X, dtype=dtype)
    sq = np.einsum("ij,ij->i", X.astype(np.float64), X.astype(np.float64))
    return LogisticProblem(X, y.astype(dtype), sq)
