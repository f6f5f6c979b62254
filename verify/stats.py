"""Statistics for verdicts: confidence intervals, comparisons, log-log slopes, bounded ratios.

Every tolerance a claim uses comes from here: a verdict is decided by where a
confidence interval lies, never by a hand-picked fudge factor.

Parameters are validated like the rest of the API (:mod:`dpvalidate`: one :class:`dpvalidate.InvalidParameter`,
a ValueError, naming the parameter and the accepted range): levels in (0, 1), counts that are integers with
0 ≤ successes ≤ trials, swept variables positive and finite, one value per point.  Measured samples are taken
as they are: a NaN among them (a diverged run) gives NaN, never a verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as _st

import dpvalidate as V

LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    estimate: float
    lo: float
    hi: float
    level: float = LEVEL

    def excludes(self, value: float) -> bool:
        """Whether ``value`` lies outside the closed interval [lo, hi].

        Parameters
        ----------
        value : float

        Returns
        -------
        bool
        """
        return self.lo > value or self.hi < value

    def __str__(self) -> str:
        return f"{self.estimate:.4g} [{self.lo:.4g}, {self.hi:.4g}]"


def mean_ci(x: Sequence[float], level: float = LEVEL) -> Interval:
    """Student-t interval for the mean.

    Parameters
    ----------
    x : sequence of float
        The sample.
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    Interval
        The mean and its t interval (n − 1 degrees of freedom); (−inf, inf) with fewer than 2 values.
    """
    level = V.open_unit("level", level)
    x = np.asarray(x, dtype=float)
    m = float(np.mean(x))
    if x.size < 2:
        return Interval(m, -np.inf, np.inf, level)
    se = float(np.std(x, ddof=1) / np.sqrt(x.size))
    h = float(_st.t.ppf(0.5 + level / 2, x.size - 1)) * se
    return Interval(m, m - h, m + h, level)


def median_ci(x: Sequence[float], level: float = LEVEL) -> Interval:
    """Distribution-free interval for the median from order statistics (binomial, exact coverage >= level).

    Parameters
    ----------
    x : sequence of float
        The sample.
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    Interval
        The median and [x_(k), x_(n−k+1)]; (−inf, inf) when the sample is too small for that coverage.
    """
    level = V.open_unit("level", level)
    x = np.sort(np.asarray(x, dtype=float))
    n = x.size
    med = float(np.median(x))
    if n < 2:
        return Interval(med, -np.inf, np.inf, level)
    # largest k with P(Bin(n, 1/2) < k) <= (1-level)/2  ->  [x_(k), x_(n-k+1)] (1-based)
    alpha = (1 - level) / 2
    k = int(_st.binom.ppf(alpha, n, 0.5))
    while k > 0 and _st.binom.cdf(k - 1, n, 0.5) > alpha:
        k -= 1
    if k < 1:
        return Interval(med, -np.inf, np.inf, level)
    return Interval(med, float(x[k - 1]), float(x[n - k]), level)


def median_bands(samples: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column-wise median and its order-statistic CI for a (runs, points) array.

    Parameters
    ----------
    samples : numpy.ndarray
        Shape (runs, points).
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    median, lo, hi : numpy.ndarray
        Each of shape (points,) (see :func:`median_ci`).

    Raises
    ------
    dpvalidate.InvalidParameter
        When ``samples`` is not 2-d or ``level`` is outside (0, 1).
    """
    level = V.open_unit("level", level)
    samples = np.asarray(samples, dtype=float)
    if samples.ndim != 2:
        raise V.InvalidParameter("samples", "a 2-d array (runs, points)", f"an array of shape {samples.shape}")
    cis = [median_ci(samples[:, j], level) for j in range(samples.shape[1])]
    return (np.array([c.estimate for c in cis]), np.array([c.lo for c in cis]), np.array([c.hi for c in cis]))


def bootstrap_ci(statistic, *samples: Sequence[float], level: float = LEVEL, n_boot: int = 4000,
                 seed: int = 0) -> Interval:
    """Percentile bootstrap CI of ``statistic(*samples)`` resampling each sample independently.

    Parameters
    ----------
    statistic : callable
        Takes one array per sample and returns a number.
    *samples : sequence of float
        The samples.
    level : float, optional
        Two-sided confidence level (default 0.95).
    n_boot : int, optional
        Number of bootstrap resamples.
    seed : int, optional
        Seed of the NumPy generator.

    Returns
    -------
    Interval
        The statistic on the data and the percentile interval of its resampled values.

    Raises
    ------
    dpvalidate.InvalidParameter
        When a sample is empty or not 1-d, ``level`` is outside (0, 1), ``n_boot`` < 1 or ``seed`` < 0.
    """
    level = V.open_unit("level", level)
    n_boot = V.count("n_boot", n_boot)
    rng = np.random.default_rng(V.integer("seed", seed, 0))
    arrs = [np.asarray(s, dtype=float) for s in samples]
    if not arrs or any(a.ndim != 1 or a.size == 0 for a in arrs):
        raise V.InvalidParameter("samples", "one or more non-empty 1-d samples",
                                 ", ".join(f"shape {a.shape}" for a in arrs) or "none")
    est = float(statistic(*arrs))
    boots = np.empty(n_boot)
    for i in range(n_boot):
        boots[i] = statistic(*[a[rng.integers(0, a.size, a.size)] for a in arrs])
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
    return Interval(est, float(lo), float(hi), level)


def median_difference(a: Sequence[float], b: Sequence[float], level: float = LEVEL, seed: int = 0) -> Interval:
    """Bootstrap CI for median(a) - median(b) (independent samples).

    Parameters
    ----------
    a, b : sequence of float
        The samples.
    level : float, optional
        Two-sided confidence level (default 0.95).
    seed : int, optional
        Seed of the bootstrap (:func:`bootstrap_ci`, 4000 resamples).

    Returns
    -------
    Interval
    """
    level = V.open_unit("level", level)
    return bootstrap_ci(lambda u, v: np.median(u) - np.median(v), a, b, level=level, seed=seed)


def _points(x, y) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) as 1-d float arrays of one length, x positive and finite (the swept variable of a log-log fit)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or y.shape != x.shape:
        raise V.InvalidParameter("x, y", "1-d sequences of one length (one y per x)",
                                 f"shapes {x.shape} and {y.shape}")
    if not np.all(np.isfinite(x) & (x > 0)):
        raise V.InvalidParameter("x", "positive and finite at every point (its logarithm is fitted)",
                                 f"{int(np.sum(~(np.isfinite(x) & (x > 0))))} other values")
    return x, y


def sign_verdict(interval: Interval, claimed: str) -> str:
    """Verdict for a claimed sign of a quantity: ``claimed`` is "negative" or "positive".

    holds: the CI lies entirely on the claimed side; violated: entirely on the other
    side; inconclusive: it straddles zero.

    Parameters
    ----------
    interval : Interval
        The quantity's confidence interval.
    claimed : str
        "negative" or "positive".

    Returns
    -------
    str
        "holds", "violated" or "inconclusive".

    Raises
    ------
    ValueError
        When ``claimed`` is neither "negative" nor "positive".
    """
    if claimed not in ("negative", "positive"):
        raise ValueError("claimed must be 'negative' or 'positive'")
    if claimed == "negative":
        if interval.hi < 0:
            return "holds"
        if interval.lo > 0:
            return "violated"
    else:
        if interval.lo > 0:
            return "holds"
        if interval.hi < 0:
            return "violated"
    return "inconclusive"


def combine(verdicts: Sequence[str]) -> str:
    """A conjunction of sub-statements: violated if any is, holds if all do, else inconclusive.

    Parameters
    ----------
    verdicts : sequence of str
        The sub-statements' verdicts.

    Returns
    -------
    str
        "violated", "holds" (all hold, at least one) or "inconclusive".
    """
    verdicts = list(verdicts)
    if any(v == "violated" for v in verdicts):
        return "violated"
    if verdicts and all(v == "holds" for v in verdicts):
        return "holds"
    return "inconclusive"


@dataclass(frozen=True)
class SlopeFit:
    slope: Interval
    intercept: float  # log of the fitted constant
    r2: float

    @property
    def constant(self) -> float:
        """The fitted constant.

        Returns
        -------
        float
            exp(intercept).
        """
        return float(np.exp(self.intercept))


def loglog_slope(x: Sequence[float], y: Sequence[float], level: float = LEVEL) -> SlopeFit:
    """OLS fit of log y = a + s log x with a t-interval for the slope s.

    Parameters
    ----------
    x, y : sequence of float
        Positive values, at least 3 points.
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    SlopeFit
        The slope with its t interval (n − 2 degrees of freedom), the intercept and R².

    Raises
    ------
    ValueError
        With fewer than 3 points; a :class:`dpvalidate.InvalidParameter` when ``level`` is outside (0, 1), x and
        y differ in length, or an x is not positive and finite.
    """
    level = V.open_unit("level", level)
    x, y = _points(x, y)
    if x.size < 3:
        raise ValueError("a log-log slope needs at least 3 points")
    lx, ly = np.log(x), np.log(y)
    res = _st.linregress(lx, ly)
    h = float(_st.t.ppf(0.5 + level / 2, lx.size - 2)) * float(res.stderr)
    return SlopeFit(Interval(float(res.slope), float(res.slope - h), float(res.slope + h), level),
                    float(res.intercept), float(res.rvalue**2))


def weighted_loglog_slope(x: Sequence[float], y: Sequence[float], y_se: Sequence[float],
                          level: float = LEVEL) -> SlopeFit:
    """Weighted fit of log y = a + s log x when each y has a known standard error (Monte-Carlo error).

    The error of log y is se/y (delta method); the slope's interval is the normal interval of the
    weighted least-squares estimate with those known variances, so two or more points suffice and
    the width reflects the Monte-Carlo error, not the scatter of a handful of points.  ``r2`` is the
    weighted R².

    Parameters
    ----------
    x, y : sequence of float
        The points (y positive), at least 2.
    y_se : sequence of float
        The standard error of each y (positive, finite).
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    SlopeFit
        The slope with its normal interval, the intercept and the weighted R².

    Raises
    ------
    ValueError
        With fewer than 2 points, or a y or an error that is not positive (or an error not finite); a
        :class:`dpvalidate.InvalidParameter` when ``level`` is outside (0, 1), the lengths differ, or an x is not
        positive and finite.
    """
    level = V.open_unit("level", level)
    x, y = _points(x, y)
    se = np.asarray(y_se, dtype=float)
    if se.shape != y.shape:
        raise V.InvalidParameter("y_se", f"one standard error per point ({y.size})", f"shape {se.shape}")
    if x.size < 2:
        raise ValueError("a weighted log-log slope needs at least 2 points")
    if np.any(y <= 0) or np.any(se <= 0) or not np.all(np.isfinite(se)):
        raise ValueError("weighted log-log slope needs positive values with positive, finite errors")
    lx, ly = np.log(x), np.log(y)
    w = (y / se) ** 2
    X = np.stack([np.ones_like(lx), lx], axis=1)
    cov = np.linalg.inv(X.T @ (X * w[:, None]))
    coef = cov @ (X.T @ (w * ly))
    h = float(_st.norm.ppf(0.5 + level / 2)) * math.sqrt(float(cov[1, 1]))
    resid = ly - X @ coef
    mean = float(np.sum(w * ly) / np.sum(w))
    tot = float(np.sum(w * (ly - mean) ** 2))
    r2 = 1.0 - float(np.sum(w * resid**2)) / tot if tot > 0 else 1.0
    return SlopeFit(Interval(float(coef[1]), float(coef[1]) - h, float(coef[1]) + h, level), float(coef[0]), r2)


def ratio_bounded(x: Sequence[float], ratio: Sequence[float], level: float = LEVEL) -> tuple[str, SlopeFit]:
    """Does ``ratio`` stay bounded as ``x`` grows?  Fit log ratio against log x.

    holds when the slope CI contains 0 or lies below it; violated when it lies
    entirely above 0 (the ratio grows polynomially in x); the fitted constant is
    exp(intercept).

    Parameters
    ----------
    x : sequence of float
        The swept variable (positive).
    ratio : sequence of float
        The ratio at each x (positive), at least 3 points.
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    verdict : str
        "holds" or "violated".
    fit : SlopeFit
        The log-log fit (:func:`loglog_slope`).

    Raises
    ------
    ValueError
        (from :func:`loglog_slope`) With fewer than 3 points.
    """
    fit = loglog_slope(x, ratio, level)
    if fit.slope.lo > 0:
        return "violated", fit
    return "holds", fit


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> Interval:
    """Exact binomial CI for a frequency k/n.

    Parameters
    ----------
    k : int
        Successes, in [0, n].
    n : int
        Trials (≥ 0).
    level : float, optional
        Two-sided confidence level (default 0.95).

    Returns
    -------
    Interval
        k/n (nan when n is 0) and the two-sided Clopper–Pearson interval.

    Raises
    ------
    dpvalidate.InvalidParameter
        When ``n`` or ``k`` is not an integer ≥ 0, ``k`` > ``n``, or ``level`` is outside (0, 1).
    """
    n = V.integer("n", n, 0)
    k = V.integer("k", k, 0)
    if k > n:
        raise V.InvalidParameter("k", f"at most the trials n = {n}", k)
    level = V.open_unit("level", level)
    alpha = 1 - level
    lo = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return Interval(k / n if n else float("nan"), lo, hi, level)
