"""Statistics for verdicts: confidence intervals, comparisons, log-log slopes, bounded ratios.

Every tolerance a claim uses comes from here: a verdict is decided by where a
confidence interval lies, never by a hand-picked fudge factor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as _st

LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    estimate: float
    lo: float
    hi: float
    level: float = LEVEL

    def excludes(self, value: float) -> bool:
        return self.lo > value or self.hi < value

    def __str__(self) -> str:
        return f"{self.estimate:.4g} [{self.lo:.4g}, {self.hi:.4g}]"


def mean_ci(x: Sequence[float], level: float = LEVEL) -> Interval:
    """Student-t interval for the mean."""
    x = np.asarray(x, dtype=float)
    m = float(np.mean(x))
    if x.size < 2:
        return Interval(m, -np.inf, np.inf, level)
    se = float(np.std(x, ddof=1) / np.sqrt(x.size))
    h = float(_st.t.ppf(0.5 + level / 2, x.size - 1)) * se
    return Interval(m, m - h, m + h, level)


def median_ci(x: Sequence[float], level: float = LEVEL) -> Interval:
    """Distribution-free interval for the median from order statistics (binomial, exact coverage >= level)."""
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
    """Column-wise median and its order-statistic CI for a (runs, points) array."""
    samples = np.asarray(samples, dtype=float)
    cis = [median_ci(samples[:, j], level) for j in range(samples.shape[1])]
    return (np.array([c.estimate for c in cis]), np.array([c.lo for c in cis]), np.array([c.hi for c in cis]))


def bootstrap_ci(statistic, *samples: Sequence[float], level: float = LEVEL, n_boot: int = 4000,
                 seed: int = 0) -> Interval:
    """Percentile bootstrap CI of ``statistic(*samples)`` resampling each sample independently."""
    rng = np.random.default_rng(seed)
    arrs = [np.asarray(s, dtype=float) for s in samples]
    est = float(statistic(*arrs))
    boots = np.empty(n_boot)
    for i in range(n_boot):
        boots[i] = statistic(*[a[rng.integers(0, a.size, a.size)] for a in arrs])
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
    return Interval(est, float(lo), float(hi), level)


def median_difference(a: Sequence[float], b: Sequence[float], level: float = LEVEL, seed: int = 0) -> Interval:
    """Bootstrap CI for median(a) - median(b) (independent samples)."""
    return bootstrap_ci(lambda u, v: np.median(u) - np.median(v), a, b, level=level, seed=seed)


def sign_verdict(interval: Interval, claimed: str) -> str:
    """Verdict for a claimed sign of a quantity: ``claimed`` is "negative" or "positive".

    holds: the CI lies entirely on the claimed side; violated: entirely on the other
    side; inconclusive: it straddles zero.
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
    """A conjunction of sub-statements: violated if any is, holds if all do, else inconclusive."""
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
        return float(np.exp(self.intercept))


def loglog_slope(x: Sequence[float], y: Sequence[float], level: float = LEVEL) -> SlopeFit:
    """OLS fit of log y = a + s log x with a t-interval for the slope s."""
    lx = np.log(np.asarray(x, dtype=float))
    ly = np.log(np.asarray(y, dtype=float))
    if lx.size < 3:
        raise ValueError("a log-log slope needs at least 3 points")
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
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    se = np.asarray(y_se, dtype=float)
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
    """
    fit = loglog_slope(x, ratio, level)
    if fit.slope.lo > 0:
        return "violated", fit
    return "holds", fit


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> Interval:
    """Exact binomial CI for a frequency k/n."""
    alpha = 1 - level
    lo = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return Interval(k / n if n else float("nan"), lo, hi, level)
