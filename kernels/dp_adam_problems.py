r"""Stylized problems of ``dp_adam_design`` (docs/catalogue.md).

``quadratic``, ``sparse_logistic_1d`` and ``synthetic_gradients``.

Each is a generator ``(params, seed) -> dataset`` with the per-record gradient (and loss) the
kernels of :mod:`kernels.dp_adam` consume through ``grad_fn(t, theta, rng) -> (B, d)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import dpvalidate as V


# --------------------------------------------------------------------------------------
# quadratic (§4.1): ℓ(θ; x) = ½ Σ_j h_j (θ_j − x_j)², x ~ N(μ, diag s²)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Quadratic:
    """The quadratic of §4.1: ℓ(θ; x) = ½ Σ_j h_j (θ_j − x_j)² with records x ~ N(μ, diag s²).

    Attributes
    ----------
    h : ndarray of float64, shape (d,)
        The curvatures, > 0.
    mu : ndarray of float64, shape (d,)
        The records' mean μ (the minimiser of the population loss).
    s : ndarray of float64, shape (d,)
        The records' standard deviations, ≥ 0.
    """

    h: np.ndarray
    mu: np.ndarray
    s: np.ndarray

    @property
    def d(self) -> int:
        """The dimension.

        Returns
        -------
        int
            The length of ``h``.
        """
        return self.h.size

    def sample(self, rng: np.random.Generator, batch: int) -> np.ndarray:
        """Draw fresh records x_i ~ N(μ, diag s²).

        Parameters
        ----------
        rng : numpy.random.Generator
            The data generator (``batch``·d standard normals drawn).
        batch : int
            The number of records B.

        Returns
        -------
        ndarray of float64, shape (B, d)
            The records, one per row.
        """
        return self.mu + self.s * rng.standard_normal((batch, self.d))

    def grads(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per-record gradients h⊙(θ − x_i), shape (B, d).

        Parameters
        ----------
        theta : ndarray of float, shape (d,)
            The iterate θ.
        x : ndarray of float, shape (B, d)
            The records.

        Returns
        -------
        ndarray of float64, shape (B, d)
            Row i is ∇ℓ(θ; x_i).
        """
        return self.h * (theta - x)

    def loss(self, theta: np.ndarray) -> float:
        """Population loss ½Σ h_j((θ_j − μ_j)² + s_j²).

        Parameters
        ----------
        theta : ndarray of float, shape (d,)
            The iterate θ.

        Returns
        -------
        float
            E_x ℓ(θ; x), whose minimum ½Σ h_j s_j² is attained at θ = μ.
        """
        return float(0.5 * np.sum(self.h * ((theta - self.mu) ** 2 + self.s**2)))

    def grad_fn(self, batch: int):
        """The gradient stream of :func:`kernels.dp_adam.run_stream`: fresh records every round.

        Parameters
        ----------
        batch : int
            Records per round B.

        Returns
        -------
        callable
            ``fn(t, theta, rng)`` returning the (B, d) gradients at ``theta`` of B records drawn from ``rng``
            (``t`` unused).
        """
        return lambda t, theta, rng: self.grads(theta, self.sample(rng, batch))


def quadratic(d: int = 2, h=None, mu=None, s=None) -> Quadratic:
    """Default: two coordinates with very different curvature and data noise, h = (100, 1), μ = (1, 1),
    s = (10, 0.1); for d > 2 the curvatures alternate between the two (the d-dimensional generalisation).
    ``d`` ≤ 10⁹.

    Parameters
    ----------
    d : int, optional
        Dimension, 1 ≤ d ≤ 10⁹ (default 2).
    h : array_like of float, shape (d,), optional
        Curvatures, each > 0; None (default) for (100, 1, 100, 1, ...).
    mu : array_like of float, shape (d,), optional
        Records' mean; None (default) for ones.
    s : array_like of float, shape (d,), optional
        Records' standard deviations, each ≥ 0; None (default) for (10, 0.1, 10, 0.1, ...).

    Returns
    -------
    Quadratic
        The problem.

    Raises
    ------
    dpvalidate.InvalidParameter
        When ``d`` is not a count, an array given is not finite or not of shape (d,), an entry of ``h`` is ≤ 0
        or an entry of ``s`` is negative.
    """
    d = V.count("d", d)
    base_h, base_s = np.array([100.0, 1.0]), np.array([10.0, 0.1])
    h = np.resize(base_h, d) if h is None else V.finite_array("h", h, shape=(d,))
    s = np.resize(base_s, d) if s is None else V.finite_array("s", s, shape=(d,))
    mu = np.ones(d) if mu is None else V.finite_array("mu", mu, shape=(d,))
    if np.any(h <= 0):
        raise V.InvalidParameter("h", "positive curvatures", h.tolist())
    if np.any(s < 0):
        raise V.InvalidParameter("s", "non-negative scales", s.tolist())
    return Quadratic(h, mu, s)


# --------------------------------------------------------------------------------------
# sparse_logistic_1d (§5.1)
# --------------------------------------------------------------------------------------
#: Constants fixed before any run (the paper's were lost in extraction): x ~ N(0, 1), θ* = 1
#: (population log-loss 0.5994, the paper reports 0.5976 for its ground truth), labels
#: y ∈ {±1} with P(y = 1 | x) = 1/(1 + e^{−θ* x}), 90% of training features set to 0,
#: n = 1000 training records, 20 000 test records (not sparsified).
SPARSE_LOGISTIC_DEFAULTS = dict(n=1000, theta_star=1.0, zero_fraction=0.9, n_test=20000)


@dataclass(frozen=True)
class SparseLogistic1D:
    """The one-dimensional sparse logistic regression of §5.1 (loss log(1 + e^{−yθx})).

    Attributes
    ----------
    x, y : ndarray of float64, shape (n,)
        Training features (a fraction of them set to 0) and ±1 labels.
    x_test, y_test : ndarray of float64, shape (n_test,)
        Test features (not sparsified) and labels.
    theta_star : float
        The parameter that generated the labels.
    """

    x: np.ndarray
    y: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    theta_star: float

    def record_grads(self, theta: float, idx) -> np.ndarray:
        """∇ log(1 + e^{−yθx}) = −y x/(1 + e^{yθx}), shape (len(idx), 1).

        Parameters
        ----------
        theta : float
            The parameter θ.
        idx : int array_like
            Indices of training records.

        Returns
        -------
        ndarray of float64, shape (len(idx), 1)
            The records' gradients, one per row.
        """
        x, y = self.x[idx], self.y[idx]
        return (-y * x / (1.0 + np.exp(y * theta * x)))[:, None]

    def test_loss(self, theta) -> np.ndarray:
        """Mean test log-loss for each θ in ``theta`` (array-like).

        Parameters
        ----------
        theta : float or array_like of float, shape (k,)
            One or several values of θ.

        Returns
        -------
        ndarray of float64, shape (k,)
            (1/n_test) Σ_i log(1 + e^{−y_i θ x_i}) over the test split, for each θ (k = 1 for a scalar).
        """
        th = np.atleast_1d(np.asarray(theta, dtype=float))
        z = -self.y_test[None, :] * th[:, None] * self.x_test[None, :]
        return np.mean(np.logaddexp(0.0, z), axis=1)

    def grad_fn(self):
        """One record per round, in order (one epoch, batch size 1).

        Returns
        -------
        callable
            ``fn(t, theta, rng)`` returning the (1, 1) gradient of training record t at θ = ``theta[0]``
            (``rng`` unused; t must be < n).
        """
        return lambda t, theta, rng: self.record_grads(float(theta[0]), [t])


def sparse_logistic_1d(n: int = 1000, theta_star: float = 1.0, zero_fraction: float = 0.9, n_test: int = 20000,
                       seed: int = 0) -> SparseLogistic1D:
    """``sparse_logistic_1d`` of §5.1 (constants in :data:`SPARSE_LOGISTIC_DEFAULTS`); n, n_test ≤ 10⁹ (8 GiB each).

    Features x ~ N(0, 1), labels ±1 with P(y = 1 | x) = 1/(1 + e^{−θ* x}); then each training feature is set
    to 0 with probability ``zero_fraction``.

    Parameters
    ----------
    n : int, optional
        Training records (default 1000).
    theta_star : float, optional
        The true parameter θ*, finite (default 1).
    zero_fraction : float, optional
        Probability that a training feature is zeroed, in [0, 1) (default 0.9).
    n_test : int, optional
        Test records (default 20000).
    seed : int, optional
        Seed ≥ 0 (default 0).

    Returns
    -------
    SparseLogistic1D
        The dataset.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a size is not a count or its array would not fit in memory, ``theta_star`` is not finite,
        ``zero_fraction`` lies outside [0, 1), or ``seed`` is not an integer ≥ 0.
    """
    n = V.count("n", n)
    n_test = V.count("n_test", n_test)
    V.memory("n", n)
    V.memory("n_test", n_test)
    theta_star = V.real("theta_star", theta_star)
    if not math.isfinite(theta_star):
        raise V.InvalidParameter("theta_star", "a finite number", theta_star)
    zf = V.real("zero_fraction", zero_fraction)
    if not 0 <= zf < 1:
        raise V.InvalidParameter("zero_fraction", "in [0, 1)", zero_fraction)
    rng = np.random.default_rng(np.random.SeedSequence([V.integer("seed", seed, 0), 51]))

    def draw(k):
        x = rng.standard_normal(k)
        y = np.where(rng.random(k) < 1.0 / (1.0 + np.exp(-theta_star * x)), 1.0, -1.0)
        return x, y

    x, y = draw(n)
    x = np.where(rng.random(n) < zf, 0.0, x)
    xt, yt = draw(n_test)
    return SparseLogistic1D(x, y, xt, yt, theta_star)


# --------------------------------------------------------------------------------------
# synthetic_gradients (§4.4, Figs 4–6)
# --------------------------------------------------------------------------------------
SCALES = ("uniform", "powerlaw")


@dataclass(frozen=True)
class SyntheticGradients:
    """Streams of per-record gradients g_{t,i} = norm·(a ⊙ u_{t,i})/‖a ⊙ u_{t,i}‖-ish with per-coordinate scales a.

    ``alignment`` ρ ∈ [0, 1]: u_{t,i} = ρ·η + √(1 − ρ²)·ζ_{t,i} with a fixed sign vector η and fresh
    standard normals ζ (ρ = 1: all records equal, the optimistic case; ρ = 0: independent records,
    nearly orthogonal in high dimension, the pessimistic case).  ``fresh=False`` repeats round 0's
    records every round (the constant-gradient setting of §4.4.1).
    """

    d: int
    batch: int
    scales: np.ndarray  # a, normalised to ‖a‖₂ = √d
    signs: np.ndarray
    alignment: float
    norm: float
    fresh: bool

    def round(self, rng: np.random.Generator) -> np.ndarray:
        """One round's per-record gradients g_i = (norm/√d)·a ⊙ (ρη + √(1 − ρ²)ζ_i).

        Parameters
        ----------
        rng : numpy.random.Generator
            The data generator (batch·d standard normals drawn, also when ρ = 1).

        Returns
        -------
        ndarray of float64, shape (batch, d)
            The gradients, one record per row.
        """
        rho = self.alignment
        u = rho * self.signs + math.sqrt(max(0.0, 1.0 - rho * rho)) * rng.standard_normal((self.batch, self.d))
        g = self.scales * u
        return g * (self.norm / np.sqrt(self.d))

    def grad_fn(self):
        """The gradient stream of :func:`kernels.dp_adam.run_stream`.

        Returns
        -------
        callable
            ``fn(t, theta, rng)`` returning (batch, d) gradients (``t`` and ``theta`` unused): a fresh
            :meth:`round` each call, or, with ``fresh=False``, the first call's round repeated (kept by the
            returned function, so one function per trial).
        """
        if self.fresh:
            return lambda t, theta, rng: self.round(rng)
        cache: dict = {}

        def fn(t, theta, rng):
            if "g" not in cache:
                cache["g"] = self.round(rng)
            return cache["g"]

        return fn


def synthetic_gradients(d: int = 1000, batch: int = 16, scale: str = "uniform", alpha: float = 1.0,
                        alignment: float = 1.0, norm: float = 1.0, fresh: bool = True,
                        seed: int = 0) -> SyntheticGradients:
    """``scale="powerlaw"``: a_j ∝ j^{−α} in a random order (heavy-tailed coordinate magnitudes);
    ``"uniform"``: a_j = 1.  Records have typical norm ``norm`` (clip with C = norm to normalise).
    Limits: d, batch ≤ 10⁹ with one round's (batch, d) gradients ≤ 8 GiB.

    Parameters
    ----------
    d : int, optional
        Dimension (default 1000).
    batch : int, optional
        Records per round (default 16).
    scale : {"uniform", "powerlaw"}, optional
        The per-coordinate scales a (default ``"uniform"``); either way rescaled to ‖a‖₂ = √d.
    alpha : float, optional
        The power-law exponent α ≥ 0 (default 1; unused with ``"uniform"``).
    alignment : float, optional
        ρ ∈ [0, 1], the records' common component (default 1).
    norm : float, optional
        Typical record norm, > 0 (default 1).
    fresh : bool, optional
        New records every round (default True) or round 0's repeated.
    seed : int, optional
        Seed ≥ 0 of the scales' order and the sign vector η (default 0).

    Returns
    -------
    SyntheticGradients
        The gradient stream's description.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a parameter is outside the ranges above or one round's gradients would not fit in memory.
    """
    d = V.count("d", d)
    batch = V.count("batch", batch)
    V.memory("batch, d", batch, d)
    V.choice("scale", scale, SCALES)
    alpha = V.nonnegative("alpha", alpha)
    rho = V.real("alignment", alignment)
    if not 0 <= rho <= 1:
        raise V.InvalidParameter("alignment", "in [0, 1]", alignment)
    norm = V.positive("norm", norm)
    fresh = V.flag("fresh", fresh)
    rng = np.random.default_rng(np.random.SeedSequence([V.integer("seed", seed, 0), 44]))
    a = np.ones(d) if scale == "uniform" else rng.permutation(np.arange(1, d + 1, dtype=float) ** (-alpha))
    a *= math.sqrt(d) / np.linalg.norm(a)
    signs = rng.choice([-1.0, 1.0], d)
    return SyntheticGradients(d, batch, a, signs, rho, norm, bool(fresh))
