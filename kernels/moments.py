r"""Algorithm 3 of ``pagan``: private second-moment (scale) estimation by halving search.

Per round t = 1..T (Δ = 2^{-(t-1)}), every coordinate j still active gets a truncated
empirical second moment plus Gaussian noise,

    σ̂²_{t,j} = (1/n) Σ_i min(z_ij², ρ_t²) + N(0, ρ_t⁴ T² d log(T/δ)/(n²ε²)),

and leaves the active set with σ̂_j = 2^{-t} once √max(σ̂²_{t,j}, 0) ≥ 2^{-t-1}; coordinates
still active after T rounds get 2^{-T}.

Reconstructions (the extraction damaged these; docs/catalogue.md, pagan):

* T = ⌈(3/2)·log₂ d⌉, so that 2^{-T} ≤ d^{-3/2}, the floor in Theorem 3's guarantee;
* the noise variance carries T² (the extraction's superscripts "4 2" over ρ_t T; the per-round
  log(T/δ) of basic composition pairs with a per-round ε/T), see theory.pagan.algorithm3_noise_variance;
* the test compares the *standard deviation* estimate √σ̂² with 2^{-t-1} (comparing the
  second moment itself with 2^{-t-1} would make σ̂_j = 2^{-t} a scale for σ_j², contrary
  to eq. (10));
* ρ_t = 4 r Δ_t · max(1, log r): the extracted "4rΔ log r" vanishes at r = 1 (and is
  negative for r < 1, while the moment ratio of Definition 4.1 satisfies r ≥ 1/√2 only),
  so the logarithmic factor is floored at 1.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

import dpvalidate as V

MAX_ROUNDS = 1000  # 2^{-T} underflows float64 for T > 1074; T = ⌈1.5 log₂ d⌉ is 45 at d = 10⁹


def rounds_for(d: int) -> int:
    """T = ⌈(3/2) log₂ d⌉ (at least 1).

    Parameters
    ----------
    d : int
        The dimension, 1 ≤ d ≤ :data:`dpvalidate.MAX_COUNT`.

    Returns
    -------
    int
        The number of rounds T (1 for d = 1).

    Raises
    ------
    InvalidParameter
        When ``d`` is not an integer in [1, MAX_COUNT].
    """
    d = V.count("d", d)
    return max(1, math.ceil(1.5 * math.log2(d))) if d > 1 else 1


def truncation_level(r: float, t: int) -> float:
    """ρ_t = 4 r Δ_t max(1, log r) with Δ_t = 2^{-(t-1)} (reconstruction, see module docstring).

    Parameters
    ----------
    r : float
        The moment ratio of Definition 4.1, > 0 and finite.
    t : int
        The round, 1 ≤ t ≤ :data:`MAX_ROUNDS`.

    Returns
    -------
    float
        The truncation level ρ_t (in the data's units).

    Raises
    ------
    InvalidParameter
        When ``r`` is not a finite number > 0, ``t`` is not an integer in [1, MAX_ROUNDS], or ρ_t overflows
        float64.
    """
    r = V.positive("r", r)
    t = V.integer("t", t, 1, MAX_ROUNDS)
    return _finite("r", 4.0 * r * 2.0 ** (-(t - 1)) * max(1.0, math.log(r)))


def noise_std(rho: float, rounds: int, d: int, n: int, epsilon: float, delta: float) -> float:
    """Standard deviation ρ²·T·√(d log(T/δ))/(nε) of Algorithm 3's noise (line 5, the T² reading).

    Parameters
    ----------
    rho : float
        The round's truncation level ρ_t, ≥ 0 and finite.
    rounds : int
        The number of rounds T, 1 ≤ T ≤ :data:`MAX_ROUNDS`.
    d : int
        The dimension (≥ 1).
    n : int
        The number of records (≥ 1).
    epsilon : float
        The privacy parameter ε > 0, finite.
    delta : float
        The privacy parameter δ, in (0, 1).

    Returns
    -------
    float
        The standard deviation of the Gaussian noise added to each truncated second moment in a round (in
        squared data units).

    Raises
    ------
    InvalidParameter
        When a parameter is out of its range above, or the standard deviation overflows float64.
    """
    rho = V.nonnegative("rho", rho)
    rounds = V.integer("rounds", rounds, 1, MAX_ROUNDS)
    d, n = V.count("d", d), V.count("n", n)
    epsilon = V.positive("epsilon", epsilon)
    delta = V.open_unit("delta", delta)
    return _finite("rho, epsilon", rho * rho * rounds * math.sqrt(d * math.log(rounds / delta)) / (n * epsilon))


def _finite(names: str, value: float) -> float:
    if not math.isfinite(value):
        raise V.InvalidParameter(names, "small enough (or epsilon large enough) that the value is finite in float64",
                                 value)
    return value


@njit(cache=True, nogil=True)
def _halving_search(Z, rhos, stds, rng, sigma_hat, exit_round):
    n, d = Z.shape
    rounds = rhos.shape[0]
    active = np.ones(d, dtype=np.bool_)
    for t in range(1, rounds + 1):
        rho2 = rhos[t - 1] * rhos[t - 1]
        thresh = 2.0 ** (-t - 1)
        for j in range(d):
            if not active[j]:
                continue
            s = 0.0
            for i in range(n):
                v = Z[i, j] * Z[i, j]
                s += v if v < rho2 else rho2
            est = s / n + stds[t - 1] * rng.standard_normal()
            if est > 0.0 and math.sqrt(est) >= thresh:
                sigma_hat[j] = 2.0 ** (-t)
                exit_round[j] = t
                active[j] = False
    for j in range(d):
        if active[j]:
            sigma_hat[j] = 2.0 ** (-rounds)
            exit_round[j] = rounds + 1


def schedule(n: int, d: int, r: float, epsilon: float, delta: float, rounds: int | None = None):
    """(rounds, ρ_t array, noise std array) for Algorithm 3 (``rounds`` ≤ 1000; r, ε such that ρ_t² and the
    noise std are finite).

    Parameters
    ----------
    n : int
        The number of records (≥ 1).
    d : int
        The dimension (≥ 1); sets T = :func:`rounds_for` (d) when ``rounds`` is None.
    r : float
        The moment ratio, > 0 and finite.
    epsilon : float
        The privacy parameter ε > 0, finite.
    delta : float
        The privacy parameter δ, in (0, 1).
    rounds : int or None, optional
        The number of rounds T, 1 ≤ T ≤ :data:`MAX_ROUNDS`; None (default) for ⌈(3/2) log₂ d⌉.

    Returns
    -------
    T : int
        The number of rounds.
    rhos : ndarray of float64, shape (T,)
        The truncation levels ρ_1, …, ρ_T (:func:`truncation_level`).
    stds : ndarray of float64, shape (T,)
        The noise standard deviation of each round (:func:`noise_std`).

    Raises
    ------
    InvalidParameter
        When a parameter is out of range, or ρ_t or the noise standard deviation overflows float64 (the
        latter reported against ``r, epsilon``).
    """
    T = rounds_for(d) if rounds is None else V.integer("rounds", rounds, 1, MAX_ROUNDS)
    rhos = np.array([truncation_level(r, t) for t in range(1, T + 1)])
    try:
        stds = np.array([noise_std(rho, T, d, n, epsilon, delta) for rho in rhos])
    except V.InvalidParameter as exc:
        if not exc.name.startswith("rho"):
            raise
        raise V.InvalidParameter("r, epsilon", "such that the noise std ρ_t²·T·√(d log(T/δ))/(nε) is finite",
                                 (r, epsilon)) from None
    return T, rhos, stds


def second_moment_estimate(Z, *, r: float, epsilon: float, delta: float, seed: int = 0, rounds: int | None = None,
                           rng: np.random.Generator | None = None) -> dict:
    """Run Algorithm 3 on data ``Z`` (n, d); returns σ̂ (d,), the exit round of each coordinate, and the schedule.

    Limits: ``rounds`` ≤ 1000; ``r`` and ``epsilon`` such that ρ_t² and the noise std stay finite.

    Parameters
    ----------
    Z : array_like of float, shape (n, d)
        The data, one record per row; finite, n, d ≥ 1.
    r : float
        The moment ratio of Definition 4.1, > 0 and finite (sets the truncation levels ρ_t).
    epsilon : float
        The privacy parameter ε > 0, finite.
    delta : float
        The privacy parameter δ, in (0, 1).
    seed : int, optional
        Seed (≥ 0) of the generator used when ``rng`` is None (default 0).
    rounds : int or None, optional
        The number of rounds T (1 to 1000); None (default) for ⌈(3/2) log₂ d⌉.
    rng : numpy.random.Generator or None, optional
        The generator of the noise draws (one standard normal per active coordinate per round, coordinates in
        order); None (default) for ``default_rng(SeedSequence(seed))``.

    Returns
    -------
    dict
        ``sigma_hat``: ndarray (d,), the scale estimate σ̂_j ∈ {2^{-1}, …, 2^{-T}};
        ``exit_round``: int64 ndarray (d,), the round t at which coordinate j left the active set
        (T + 1 for coordinates still active at the end);
        ``rounds``: int, T; ``rho``: ndarray (T,), the truncation levels; ``noise_std``: ndarray (T,), the
        noise standard deviation of each round.

    Raises
    ------
    InvalidParameter
        When ``Z`` is not a finite 2-d array with n, d ≥ 1, ``r``/``epsilon``/``delta``/``rounds``/``seed`` are
        out of range, ``rng`` is neither None nor a ``numpy.random.Generator``, or the schedule overflows
        (see :func:`schedule`).
    """
    Z = V.finite_array("Z", Z, ndim=2)
    if min(Z.shape) < 1:
        raise V.InvalidParameter("Z", "an (n, d) array with n, d >= 1", f"shape {Z.shape}")
    r = V.positive("r", r)
    epsilon = V.positive("epsilon", epsilon)
    delta = V.open_unit("delta", delta)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise V.InvalidParameter("rng", "a numpy.random.Generator or None", type(rng).__name__)
    n, d = Z.shape
    T, rhos, stds = schedule(n, d, r, epsilon, delta, rounds)
    if rng is None:
        rng = np.random.default_rng(np.random.SeedSequence(V.integer("seed", seed, 0)))
    sigma_hat = np.empty(d)
    exit_round = np.empty(d, dtype=np.int64)
    _halving_search(Z, rhos, stds, rng, sigma_hat, exit_round)
    return dict(sigma_hat=sigma_hat, exit_round=exit_round, rounds=T, rho=rhos, noise_std=stds)


@njit(cache=True, nogil=True)
def _gaussian_halving_search(sigma, n, rhos, stds, rng, sigma_hat, exit_round):
    # Z[i, j] = rng.standard_normal() * sigma[j], drawn row by row as rng.standard_normal((n, d)) * sigma draws
    # them; every round's truncated sums are accumulated in one pass (the same order of additions, i = 0..n-1, as
    # _halving_search), then the search draws its noise from the same rng.
    d = sigma.shape[0]
    rounds = rhos.shape[0]
    rho2 = np.empty(rounds)
    for t in range(rounds):
        rho2[t] = rhos[t] * rhos[t]
    sums = np.zeros((rounds, d))
    for _ in range(n):
        for j in range(d):
            z = rng.standard_normal() * sigma[j]
            v = z * z
            for t in range(rounds):
                sums[t, j] += v if v < rho2[t] else rho2[t]
    active = np.ones(d, dtype=np.bool_)
    for t in range(1, rounds + 1):
        thresh = 2.0 ** (-t - 1)
        for j in range(d):
            if not active[j]:
                continue
            est = sums[t - 1, j] / n + stds[t - 1] * rng.standard_normal()
            if est > 0.0 and math.sqrt(est) >= thresh:
                sigma_hat[j] = 2.0 ** (-t)
                exit_round[j] = t
                active[j] = False
    for j in range(d):
        if active[j]:
            sigma_hat[j] = 2.0 ** (-rounds)
            exit_round[j] = rounds + 1


def gaussian_second_moment_estimate(sigma, n: int, *, r: float, epsilon: float, delta: float,
                                    rng: np.random.Generator) -> dict:
    """Algorithm 3 on n Gaussian records z_i ~ N(0, diag(σ²)) drawn from ``rng``, without storing them.

    The same numbers as :func:`second_moment_estimate` on ``Z = rng.standard_normal((n, d)) * sigma`` with the
    same ``rng`` (the draws in the same order, each round's sum added up in the same order), in one pass over
    the records and O(T·d) memory instead of an (n, d) array.

    Parameters
    ----------
    sigma : array_like of float, shape (d,)
        The records' scales σ_j (finite, ≥ 0, d ≥ 1).
    n : int
        The number of records (≥ 1).
    r : float
        The moment ratio of Definition 4.1, > 0 and finite.
    epsilon : float
        The privacy parameter ε > 0, finite.
    delta : float
        The privacy parameter δ, in (0, 1).
    rng : numpy.random.Generator
        The generator of the records and then of the noise draws.

    Returns
    -------
    dict
        As :func:`second_moment_estimate`: ``sigma_hat``, ``exit_round``, ``rounds``, ``rho`` and ``noise_std``.

    Raises
    ------
    InvalidParameter
        When ``sigma`` is not a finite non-negative 1-d array, ``n`` is not a positive integer, ``rng`` is not a
        Generator, or ``r``/``epsilon``/``delta`` are out of range (see :func:`schedule`).
    """
    sigma = V.finite_array("sigma", sigma, ndim=1)
    if sigma.size < 1 or np.any(sigma < 0):
        raise V.InvalidParameter("sigma", "a non-empty 1-d array of scales >= 0", f"{sigma.size} values")
    n = V.count("n", n)
    r = V.positive("r", r)
    epsilon = V.positive("epsilon", epsilon)
    delta = V.open_unit("delta", delta)
    if not isinstance(rng, np.random.Generator):
        raise V.InvalidParameter("rng", "a numpy.random.Generator", type(rng).__name__)
    d = sigma.size
    T, rhos, stds = schedule(n, d, r, epsilon, delta)
    sigma_hat = np.empty(d)
    exit_round = np.empty(d, dtype=np.int64)
    _gaussian_halving_search(np.ascontiguousarray(sigma, dtype=float), n, rhos, stds, rng, sigma_hat, exit_round)
    return dict(sigma_hat=sigma_hat, exit_round=exit_round, rounds=T, rho=rhos, noise_std=stds)

def second_moment_reference(Z, rhos, stds, rng) -> np.ndarray:
    """NumPy reference of the halving search (same draws: one normal per active coordinate, in order).

    The NumPy twin of the jitted search in :func:`second_moment_estimate`; it takes the schedule as given and
    does not validate its inputs.

    Parameters
    ----------
    Z : ndarray of float, shape (n, d)
        The data, one record per row.
    rhos : sequence of float, length T
        The truncation levels ρ_1, …, ρ_T.
    stds : sequence of float, length T
        The noise standard deviation of each round.
    rng : numpy.random.Generator
        The generator of the noise draws (advanced by one normal per active coordinate per round).

    Returns
    -------
    ndarray of float64, shape (d,)
        The scale estimate σ̂ (2^{-T} for coordinates that never leave the active set).
    """
    n, d = Z.shape
    sigma_hat = np.full(d, 2.0 ** (-len(rhos)))
    active = np.ones(d, dtype=bool)
    for t, (rho, std) in enumerate(zip(rhos, stds), start=1):
        idx = np.nonzero(active)[0]
        est = np.minimum(Z[:, idx] ** 2, rho**2).mean(axis=0) + std * rng.standard_normal(idx.size)
        leave = idx[np.sqrt(np.maximum(est, 0.0)) >= 2.0 ** (-t - 1)]
        sigma_hat[leave] = 2.0 ** (-t)
        active[leave] = False
    return sigma_hat
