"""Searching for counterexamples to exact inequalities.

An exact claim is written as a *slack* function that is ≥ 0 wherever the claim
holds.  Two searches look for its minimum:

* :func:`random_search` — a seeded NumPy sampler rich in edge values (zeros, signed
  zeros, subnormals, the bounds, ties, single spikes, wide magnitude ranges); the
  worst example is recorded and returned.
* :func:`adversarial_search` — scipy's bounded minimiser from several seeded starts.

Claim checks use these two (reproducible from the claim's seed alone, and free of
test-only dependencies); the test suite states the same inequalities as hypothesis
properties with ``target()`` and ``@example`` pins (``tests/theory``).

The tolerance below which a negative slack counts as a violation is a
floating-point error bound (:func:`rounding_tolerance`), never a chosen constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

EPS = float(np.finfo(np.float64).eps)


@dataclass
class Worst:
    slack: float
    example: Any
    evaluated: int


def rounding_tolerance(n_terms: int, magnitude: float, ops_per_term: int = 4) -> float:
    """Error bound for a sum of ``n_terms`` terms of size ≤ ``magnitude``, each from a few flops.

    Standard backward-error bound for recursive summation: |error| ≤ (n + k)·u·Σ|terms|
    with u the unit roundoff; we use u = eps and Σ|terms| ≤ n·magnitude.

    Parameters
    ----------
    n_terms : int
        Number of terms summed.
    magnitude : float
        Bound on each term's absolute value.
    ops_per_term : int, optional
        Flops behind each term (k above).

    Returns
    -------
    float
        (n + k) · eps · n · magnitude.
    """
    return (n_terms + ops_per_term) * EPS * n_terms * magnitude


def edge_values(rng: np.random.Generator, size: int, lo: float, hi: float) -> np.ndarray:
    """``size`` floats in [lo, hi] mixing the bounds, zeros, subnormals, ties, spikes and wide magnitudes.

    ``size`` floats in [lo, hi] mixing the bounds, zeros (both signs), subnormals, ties,
    one-hot spikes, and uniform and log-uniform draws.  Each call picks one of six kinds at random.

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator drawn from.
    size : int
        Number of values.
    lo, hi : float
        The bounds (lo ≤ hi).

    Returns
    -------
    numpy.ndarray
        Shape (size,), clipped to [lo, hi].
    """
    kind = rng.integers(0, 6)
    if kind == 0:  # uniform
        v = rng.uniform(lo, hi, size)
    elif kind == 1:  # log-uniform magnitudes over the whole double range inside the bounds
        top = max(abs(lo), abs(hi))
        mag = 10.0 ** rng.uniform(-320, np.log10(top) if top > 0 else 0, size)
        v = mag * (rng.choice([-1.0, 1.0], size) if lo < 0 else 1.0)
    elif kind == 2:  # ties: every entry equal
        v = np.full(size, rng.uniform(lo, hi))
    elif kind == 3:  # a single spike on zeros
        v = np.zeros(size)
        v[rng.integers(0, size)] = rng.uniform(lo, hi)
    elif kind == 4:  # special values
        specials = np.array([lo, hi, 0.0, -0.0, 5e-324, -5e-324, 1.0, -1.0])
        v = rng.choice(specials[(specials >= lo) & (specials <= hi)], size)
    else:  # mixture
        v = np.where(rng.random(size) < 0.5, rng.uniform(lo, hi, size), rng.choice([lo, 0.0, hi], size))
    return np.clip(v, lo, hi)


def random_search(slack: Callable[[Any], float], sample: Callable[[np.random.Generator], Any], n: int,
                  seed: int) -> Worst:
    """Minimise ``slack`` over ``n`` examples from ``sample(rng)`` (seeded; no assertion made).

    Parameters
    ----------
    slack : callable
        example -> the slack (≥ 0 where the claim holds).
    sample : callable
        rng -> one example.
    n : int
        Number of examples.
    seed : int
        Seed of the generator (combined with a fixed stream tag).

    Returns
    -------
    Worst
        The smallest slack seen (a non-finite slack also replaces it), its example and ``n`` evaluations.
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xE8AC7]))
    worst = Worst(np.inf, None, 0)
    for _ in range(n):
        ex = sample(rng)
        v = float(slack(ex))
        worst.evaluated += 1
        if v < worst.slack or not np.isfinite(v):
            worst.slack, worst.example = v, ex
    return worst


def _lbfgsb_takes_workers() -> bool:
    """Whether this SciPy's L-BFGS-B accepts the ``workers`` option (a map for its finite-difference gradient)."""
    import inspect

    try:
        from scipy.optimize._lbfgsb_py import _minimize_lbfgsb
    except ImportError:  # pragma: no cover - a SciPy that moved it
        return False
    return "workers" in inspect.signature(_minimize_lbfgsb).parameters


def _batch_map(batch: Callable[[np.ndarray], np.ndarray]) -> Callable:
    """A map-like callable for SciPy's ``workers``: ``m(fun, xs)`` returns what ``map(fun, xs)`` would for
    SciPy's wrapper ``fun`` of a scalar slack (each value as a 1-element float array), computed by one call of
    ``batch`` on the stacked points instead of one call per point."""

    def mapper(fun, xs):
        X = np.stack([np.asarray(x, dtype=float) for x in xs])
        return [np.atleast_1d(float(v)) for v in batch(X)]

    return mapper


def adversarial_search(slack_vec: Callable[[np.ndarray], float], dim: int, bounds: tuple[float, float],
                       starts: int, seed: int, batch: Callable[[np.ndarray], np.ndarray] | None = None) -> Worst:
    """Minimise ``slack_vec`` over a box with L-BFGS-B from ``starts`` seeded random points.

    Parameters
    ----------
    slack_vec : callable
        x (shape (dim,)) -> the slack.
    dim : int
        Dimension of x.
    bounds : (float, float)
        The box's bounds, the same for each coordinate.
    starts : int
        Number of uniformly random starting points.
    seed : int
        Seed of the starting points.
    batch : callable, optional
        xs (shape (k, dim)) -> the k slacks, each bit-for-bit ``slack_vec`` of its row.  When given (and SciPy's
        L-BFGS-B takes ``workers``, SciPy >= 1.16), the points of each finite-difference gradient are evaluated in
        one call: the same points, values, iterates and evaluation count as without it, with less Python overhead.

    Returns
    -------
    Worst
        The smallest minimum found, its point, and the total number of function evaluations.
    """
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    options = {"workers": _batch_map(batch)} if batch is not None and _lbfgsb_takes_workers() else None
    worst = Worst(np.inf, None, 0)
    for _ in range(starts):
        x0 = rng.uniform(bounds[0], bounds[1], size=dim)
        res = minimize(slack_vec, x0, method="L-BFGS-B", bounds=[bounds] * dim, options=options)
        worst.evaluated += int(res.nfev)
        if res.fun < worst.slack:
            worst.slack, worst.example = float(res.fun), np.asarray(res.x)
    return worst
