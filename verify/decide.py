"""The decision layer: how every statistical claim turns numbers into a verdict.

A verdict is a finding, so each statistical decision records its error control:
the test, its level, the family it is corrected over and its margin (:class:`Control`).
The rules every claim shares:

* ``violated`` is a one-sided test at level ``alpha_per_test()``: the family-wise
  false-alarm rate :data:`FAMILY_ALPHA` (5%) Bonferroni-divided over every statistical
  test that the loaded ledger declares (each claim declares how many tests its check
  makes, ``@claim(..., tests=k)``; a check that makes more raises).  The family is the
  whole ledger, not the claims selected for a run, so a claim's verdict does not depend
  on which others run beside it, and a run of any subset keeps the family-wise rate at
  most 5%.
* ``holds`` needs the evidence *for* the statement at one-sided confidence
  :data:`HOLDS_LEVEL` (an equivalence or non-inferiority test against a margin fixed in
  the code before the data): the power side, checked by the claim's mutants.
* anything else is ``inconclusive``, with the reason and what would decide it.

Margins are constants of the claim (in its source, before any data), never fitted.
Intervals are Student-t with Welch–Satterthwaite degrees of freedom where the
per-point Monte-Carlo errors are estimated from a few runs: valid at 4 runs per point,
where a normal interval is not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy import stats as _st

from verify import registry
from verify.registry import Figure, Panel, Series, Verdict
from verify.tally import claim_tests, running, spend_one  # noqa: F401 (claim_tests: verify.decide.claim_tests)

FAMILY_ALPHA = 0.05  #: family-wise false-alarm rate of ``violated`` over a whole run
HOLDS_LEVEL = 0.95  #: one-sided confidence a ``holds`` decision needs
#: the default equivalence margin on a log-log slope of measured/bound (an O(·) claim holds
#: when the ratio grows no faster than x^0.1 over the asymptotic window)
SLOPE_MARGIN = 0.1
#: a rate claim is refuted only by growth over at least this many decades of the swept variable
DECADES_FOR_VIOLATION = 1.0


# --------------------------------------------------------------------------------------
# the family
# --------------------------------------------------------------------------------------
def family_size() -> int:
    """Number of statistical tests the whole loaded ledger declares (the Bonferroni family).

    Loads the ledger (:func:`verify.registry.load_all`) first.

    Returns
    -------
    int
        The sum of every registered claim's ``tests``, at least 1.
    """

    reg = registry.load_all()
    return max(1, sum(c.tests for c in reg.values()))


def alpha_per_test() -> float:
    """One-sided level of each ``violated`` test: FAMILY_ALPHA / family_size().

    Returns
    -------
    float
        The Bonferroni-corrected level, in (0, FAMILY_ALPHA].
    """
    return FAMILY_ALPHA / family_size()


def family_text() -> str:
    """The family a decision is corrected over, in words (recorded in :class:`Control`).

    Returns
    -------
    str
        E.g. "Bonferroni: 0.05 family-wise over the ledger's N statistical tests".
    """
    n = family_size()
    return f"Bonferroni: {FAMILY_ALPHA:g} family-wise over the ledger's {n} statistical tests"


def _larger_range(axis: str) -> str:
    """What would decide an undecided rate: the full budget's range, or (at full) a range beyond it."""
    s = running()
    if s is not None and s.budget == "full":
        return f"a {axis} range beyond the full budget's would decide"
    return f"a larger {axis} range (--budget full) would decide"


def spend(k: int = 1) -> float:
    """Spend ``k`` tests of the running claim's declared share and return each one's one-sided level α.

    For checks that compute their own confidence bounds (the privacy audits' Clopper–Pearson and GDP
    estimators): they run each of the ``k`` bounds at level 1 − α, so their ``violated`` stays inside the
    family-wise 5%.

    Parameters
    ----------
    k : int, optional
        The number of tests spent (default 1).

    Returns
    -------
    float
        :func:`alpha_per_test`, the one-sided level of each.

    Raises
    ------
    RuntimeError
        (from the tally) When the running claim makes more tests than it declares; outside a claim nothing
        is counted.
    """
    for _ in range(int(k)):
        spend_one()
    return alpha_per_test()


# --------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Control:
    """The error control of one decision (recorded in results.json and worded in reports)."""

    test: str  # what was tested, e.g. "tail log-log slope of measured/bound (t, Welch-Satterthwaite)"
    alpha: float  # one-sided false-alarm level of 'violated' for this test
    family: str  # the family it is corrected over
    margin: float | None = None  # the equivalence / non-inferiority margin, fixed before the data
    holds_level: float | None = HOLDS_LEVEL  # None where 'holds' is no confidence statement (an audit's no-leak)

    def to_dict(self) -> dict:
        """The control as plain JSON types.

        Returns
        -------
        dict
            ``test``, ``alpha``, ``family``, ``margin`` and ``holds_level``.
        """
        return {"test": self.test, "alpha": self.alpha, "family": self.family, "margin": self.margin,
                "holds_level": self.holds_level}


@dataclass(frozen=True)
class Decision:
    """A three-way decision with its intervals and its control."""

    verdict: Verdict
    control: Control
    estimate: float
    holds_bound: float  # the one-sided bound compared with the margin for 'holds'
    violated_bound: float  # the one-sided bound compared with the margin for 'violated'
    reason: str
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The decision as plain JSON types (an entry of a result's ``control``).

        Returns
        -------
        dict
            Verdict, estimate, both bounds, reason, the control (:meth:`Control.to_dict`) and the details,
            non-finite numbers as text.
        """
        return {"verdict": str(self.verdict), "estimate": _num(self.estimate), "holds_bound": _num(self.holds_bound),
                "violated_bound": _num(self.violated_bound), "reason": self.reason,
                "control": self.control.to_dict(), **{k: _num(v) for k, v in self.details.items()}}

    def phrase(self) -> str:
        """How the verdict is worded for a user, with its control.

        Returns
        -------
        str
            "violated (family-wise 5%): ...", "holds (95% one-sided): ..." (or "holds: ..." when the
            control has no holds level) or "inconclusive: ...", followed by the reason.
        """
        if self.verdict == Verdict.VIOLATED:
            return f"violated (family-wise {FAMILY_ALPHA:.0%}): {self.reason}"
        if self.verdict == Verdict.HOLDS:
            if self.control.holds_level is None:
                return f"holds: {self.reason}"
            return f"holds ({self.control.holds_level:.0%} one-sided): {self.reason}"
        return f"inconclusive: {self.reason}"


#: the column names of a decision's point (:func:`decision_points`), before its details
POINT_COLUMNS = ("test", "verdict", "estimate", "holds bound", "violated bound", "margin", "α")


def decision_points(decisions: Sequence[Decision]) -> list[dict]:
    """The points of a result read off its decision records: one row per statistical decision.

    Each row is the decision's own record, column by column: the test, the verdict, the estimate, the one-sided
    bound compared for 'holds' and the family-corrected one compared for 'violated', the margin, the level α of
    'violated', then the decision's details (a rate's slope, standard error, degrees of freedom, points and
    decades).  Nothing is computed anew.

    Parameters
    ----------
    decisions : sequence of Decision
        A check's decisions (:attr:`verify.registry.Outcome.decisions`); entries that are not a
        :class:`Decision` are skipped.

    Returns
    -------
    list of dict
        The rows (see :func:`verify.registry.check_points`); [] when there is no decision.
    """
    rows = []
    for d in decisions:
        if not isinstance(d, Decision):
            continue
        row = dict(zip(POINT_COLUMNS, (d.control.test, str(d.verdict), d.estimate, d.holds_bound,
                                       d.violated_bound, d.control.margin, d.control.alpha)))
        for k, v in d.details.items():
            row.setdefault("n points" if k == "points" else k, v)
        rows.append({k: (float(v) if isinstance(v, np.floating) else v) for k, v in row.items()})
    return rows


def _num(v):
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else str(v)
    return v


# --------------------------------------------------------------------------------------
# the estimators: Student-t with Welch–Satterthwaite degrees of freedom
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """A linear estimate with its standard error and (Welch–Satterthwaite) degrees of freedom."""

    value: float
    se: float
    df: float

    def upper(self, alpha: float) -> float:
        """One-sided upper confidence bound at level 1 − alpha.

        Parameters
        ----------
        alpha : float
            The one-sided error level, in (0, 1).

        Returns
        -------
        float
            value + t_{1−alpha, df} · se (the normal quantile when df is not finite and positive).

        Raises
        ------
        ValueError
            (from the quantile) When ``alpha`` is not in (0, 1).
        """
        return self.value + self._q(alpha) * self.se

    def lower(self, alpha: float) -> float:
        """One-sided lower confidence bound at level 1 − alpha.

        Parameters
        ----------
        alpha : float
            The one-sided error level, in (0, 1).

        Returns
        -------
        float
            value − t_{1−alpha, df} · se (the normal quantile when df is not finite and positive).

        Raises
        ------
        ValueError
            (from the quantile) When ``alpha`` is not in (0, 1).
        """
        return self.value - self._q(alpha) * self.se

    def _q(self, alpha: float) -> float:
        if not (0.0 < alpha < 1.0):
            raise ValueError(f"alpha must lie in (0, 1) (got {alpha!r})")
        if self.se == 0.0:
            return 0.0
        df = self.df if math.isfinite(self.df) and self.df > 0 else np.inf
        return float(_st.t.isf(alpha, df))


def _welch_df(terms: np.ndarray, dfs: np.ndarray) -> float:
    """Welch–Satterthwaite degrees of freedom of Σ terms (each term a variance with its own df)."""
    num = float(np.sum(terms)) ** 2
    den = float(np.sum(terms**2 / dfs))
    return num / den if den > 0 else math.inf


def mean_estimate(x: Sequence[float]) -> Estimate:
    """The sample mean with its standard error (n − 1 degrees of freedom).

    Parameters
    ----------
    x : sequence of float
        The sample, at least 2 values.

    Returns
    -------
    Estimate
        The mean, s/√n and n − 1 degrees of freedom.

    Raises
    ------
    ValueError
        When ``x`` has fewer than 2 values.
    """
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        raise ValueError("a mean's interval needs at least 2 values")
    return Estimate(float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)), float(x.size - 1))


def difference_estimate(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """mean(a) − mean(b) for independent samples, Welch's t.

    Parameters
    ----------
    a, b : sequence of float
        The two samples, at least 2 values each.

    Returns
    -------
    Estimate
        The difference of means, √(se_a² + se_b²) and the Welch–Satterthwaite degrees of freedom.

    Raises
    ------
    ValueError
        (from :func:`mean_estimate`) When a sample has fewer than 2 values.
    """
    ea, eb = mean_estimate(a), mean_estimate(b)
    va, vb = ea.se**2, eb.se**2
    return Estimate(ea.value - eb.value, math.sqrt(va + vb), _welch_df(np.array([va, vb]), np.array([ea.df, eb.df])))


def log_slope_estimate(x: Sequence[float], samples: Sequence[Sequence[float]]) -> Estimate:
    """Slope of log(mean of each sample) against log x, with its Monte-Carlo error.

    Ordinary least squares over the points (weights that do not depend on the data), so the slope is
    a fixed linear combination Σ a_i log m_i of the per-point log-means.  Each log m_i has the
    delta-method variance r/n_i, where r is the *largest* relative variance s_i²/m_i² among the points:
    with a few runs of a skewed quantity (an excess loss) a point whose mean came out low also tends
    to get a small variance estimate, and per-point variances then make a flat ratio look like growth
    (false alarms at 1.5× the nominal level in :func:`simulate_flat_rate`); the common largest value
    keeps the test at or below its level.  Degrees of freedom: Welch–Satterthwaite over the points.
    Needs ≥ 2 points, ≥ 2 runs each, positive means.

    Parameters
    ----------
    x : sequence of float
        The swept variable at each point (positive, at least 2 distinct values).
    samples : sequence of sequences of float
        The per-run values at each point, one sample per entry of ``x``.

    Returns
    -------
    Estimate
        The OLS slope of log mean against log x, its standard error and degrees of freedom.

    Raises
    ------
    ValueError
        When there are fewer than 2 points, ``samples`` does not match ``x``, a point has fewer than 2 runs,
        a mean is not positive, or all x are equal.
    """
    lx = np.log(np.asarray(x, dtype=float))
    if lx.size < 2 or len(samples) != lx.size:
        raise ValueError("a slope needs at least 2 points, one sample per point")
    means, rel, ns = [], [], []
    for s in samples:
        s = np.asarray(s, dtype=float)
        if s.size < 2:
            raise ValueError("each point needs at least 2 runs")
        m = float(s.mean())
        if not m > 0:
            raise ValueError("a log-slope needs positive means")
        means.append(math.log(m))
        rel.append(float(s.var(ddof=1)) / (m * m))
        ns.append(float(s.size))
    c = lx - lx.mean()
    sxx = float(np.sum(c * c))
    if sxx == 0:
        raise ValueError("a slope needs at least 2 distinct x")
    a = c / sxx
    ns_ = np.asarray(ns)
    terms = a * a * max(rel) / ns_
    return Estimate(float(np.dot(a, means)), math.sqrt(float(terms.sum())), _welch_df(terms, ns_ - 1.0))


# --------------------------------------------------------------------------------------
# decisions
# --------------------------------------------------------------------------------------
def upper_bounded(est: Estimate, limit: float, *, test: str, margin: float = 0.0,
                  holds_reason: str = "", violated_reason: str = "", can_violate: bool = True,
                  why_not: str = "") -> Decision:
    """Decide "the quantity is at most ``limit``" (a bound, a growth rate, a sign).

    holds: the upper HOLDS_LEVEL bound is ≤ limit + margin... no: ≤ ``limit`` itself when margin is 0,
    else ≤ limit + margin (an equivalence margin on the permissible side);
    violated: the lower bound at the family-corrected level exceeds ``limit + margin`` (and
    ``can_violate``: e.g. a rate test whose window spans a decade);
    otherwise inconclusive.

    Parameters
    ----------
    est : Estimate
        The estimate and its t interval.
    limit : float
        The bound the quantity may not exceed.
    test : str
        The test's description, recorded with the decision.
    margin : float, optional
        The margin fixed before the data, on the permissible side.
    holds_reason, violated_reason : str, optional
        The decision's reason in place of the default wording.
    can_violate : bool, optional
        False where the data cannot support ``violated`` (``why_not`` says why).
    why_not : str, optional
        Why a lower bound above the limit is not a violation.

    Returns
    -------
    Decision
        The verdict, its error control and both bounds.

    Raises
    ------
    RuntimeError
        When the calling claim makes more statistical tests than it declares.
    """
    spend_one()
    alpha = alpha_per_test()
    ctrl = Control(test, alpha, family_text(), margin if margin else None)
    hi = est.upper(1 - HOLDS_LEVEL)
    lo = est.lower(alpha)
    thr = limit + margin
    if can_violate and lo > thr:
        return Decision(Verdict.VIOLATED, ctrl, est.value, hi, lo,
                        violated_reason or f"{est.value:.4g} > {thr:.4g}: lower bound {lo:.4g} at level {alpha:.2g}")
    if hi <= thr:
        return Decision(Verdict.HOLDS, ctrl, est.value, hi, lo,
                        holds_reason or f"{est.value:.4g}, upper bound {hi:.4g} ≤ {thr:.4g}")
    if not can_violate and lo > thr:
        reason = f"{est.value:.4g} above {thr:.4g} (lower bound {lo:.4g}) but {why_not}"
    else:
        reason = (f"{est.value:.4g} not separated from {thr:.4g}: upper bound {hi:.4g} > {thr:.4g}, "
                  f"family-corrected lower bound {lo:.4g} ≤ {thr:.4g}")
    return Decision(Verdict.INCONCLUSIVE, ctrl, est.value, hi, lo, reason)


def rate(x: Sequence[float], ratio_samples: Sequence[Sequence[float]], *, axis: str,
         asymptotic: Sequence[bool], criterion: str, margin: float = SLOPE_MARGIN,
         decades: float = DECADES_FOR_VIOLATION) -> Decision:
    """Does measured/bound stay bounded as ``x`` grows?  An equivalence test on its tail slope.

    ``ratio_samples[i]`` are the per-run values of measured/bound at ``x[i]`` (the ratio of means is
    the mean of these, the bound being fixed per point).  Only the points flagged ``asymptotic``
    (by ``criterion``, stated in the evidence) enter the window.  holds: the slope's upper
    HOLDS_LEVEL bound is ≤ +margin; violated: its family-corrected lower bound is > +margin and the
    window spans at least ``decades`` decades of x; inconclusive otherwise (including fewer than 2
    asymptotic points).

    Parameters
    ----------
    x : sequence of float
        The growing parameter's values.
    ratio_samples : sequence of sequences of float
        Per point, the runs' values of measured/bound.
    axis : str
        The parameter's name, for the evidence.
    asymptotic : sequence of bool
        Which points enter the window.
    criterion : str
        How the window was chosen, for the evidence.
    margin : float, optional
        The slope margin fixed before the data.
    decades : float, optional
        The span of ``x`` the window needs before a slope can mean ``violated``.

    Returns
    -------
    Decision
        With ``details``: the slope, its standard error and degrees of freedom, the points and the decades.

    Raises
    ------
    RuntimeError
        When the calling claim makes more statistical tests than it declares.
    """
    x = np.asarray(x, dtype=float)
    keep = np.asarray(asymptotic, dtype=bool)
    xs = x[keep]
    ss = [np.asarray(s, dtype=float) for s, k in zip(ratio_samples, keep) if k]
    test = (f"log-log slope of measured/bound along {axis} over the asymptotic window ({criterion}); "
            "OLS with Welch-Satterthwaite t")
    if xs.size < 2 or len(set(xs.tolist())) < 2:
        spend_one()
        ctrl = Control(test, alpha_per_test(), family_text(), margin)
        return Decision(Verdict.INCONCLUSIVE, ctrl, math.nan, math.nan, math.nan,
                        f"{axis}: {int(xs.size)} asymptotic point(s) ({criterion}); needs ≥ 2 — "
                        f"{_larger_range(axis)}", {"points": int(xs.size)})
    est = log_slope_estimate(xs, ss)
    span = math.log10(float(xs.max() / xs.min()))
    d = upper_bounded(est, 0.0, test=test, margin=margin,
                      holds_reason=f"{axis}: slope {est.value:+.3g}, upper bound {est.upper(1 - HOLDS_LEVEL):+.3g} "
                                   f"≤ +{margin:g} over {xs.size} points ({span:.2g} decades)",
                      violated_reason="",
                      can_violate=span >= decades,
                      why_not=f"the asymptotic window spans {span:.2g} < {decades:g} decade(s) of {axis}: "
                              f"{_larger_range(axis)}")
    if d.verdict == Verdict.VIOLATED:
        d = Decision(d.verdict, d.control, d.estimate, d.holds_bound, d.violated_bound,
                     f"{axis}: measured/bound grows, slope {est.value:+.3g} with family-corrected lower bound "
                     f"{d.violated_bound:+.3g} > +{margin:g} over {span:.2g} decades ({xs.size} points)")
    elif d.verdict == Verdict.INCONCLUSIVE and not d.reason.startswith(axis):
        d = Decision(d.verdict, d.control, d.estimate, d.holds_bound, d.violated_bound, f"{axis}: {d.reason}")
    details = {"slope": est.value, "se": est.se, "df": est.df, "points": int(xs.size), "decades": span}
    return Decision(d.verdict, d.control, d.estimate, d.holds_bound, d.violated_bound, d.reason, details)


def better(a: Sequence[float], b: Sequence[float], *, what: str, margin: float) -> Decision:
    """Decide "mean(a) < mean(b)" (lower is better; e.g. A reaches a lower loss than B).

    holds: the upper HOLDS_LEVEL bound of mean(a) − mean(b) is < 0; violated: the family-corrected
    lower bound is > +margin (A worse than B by more than the margin fixed before the data); a
    near-tie is inconclusive.

    Parameters
    ----------
    a, b : sequence of float
        The runs' values of A and of B (lower is better).
    what : str
        What is compared, for the evidence.
    margin : float
        The non-inferiority margin fixed before the data.

    Returns
    -------
    Decision

    Raises
    ------
    RuntimeError
        When the calling claim makes more statistical tests than it declares.
    """
    est = difference_estimate(a, b)
    test = f"{what}: Welch t on the difference of means, non-inferiority margin {margin:g}"
    spend_one()
    alpha = alpha_per_test()
    ctrl = Control(test, alpha, family_text(), margin)
    hi, lo = est.upper(1 - HOLDS_LEVEL), est.lower(alpha)
    if hi < 0:
        return Decision(Verdict.HOLDS, ctrl, est.value, hi, lo, f"{what}: difference {est.value:.4g} < 0 "
                        f"(upper bound {hi:.4g})")
    if lo > margin:
        return Decision(Verdict.VIOLATED, ctrl, est.value, hi, lo, f"{what}: difference {est.value:.4g}, "
                        f"family-corrected lower bound {lo:.4g} > margin {margin:g}")
    if hi - lo > 2 * margin:  # the interval alone is wider than the margin: too few runs to tell
        why = f"is undecided: the interval is wider than twice the margin {margin:g} (more runs would decide)"
    else:
        why = f"is a near-tie within the margin {margin:g}"
    return Decision(Verdict.INCONCLUSIVE, ctrl, est.value, hi, lo, f"{what}: difference {est.value:.4g} "
                    f"[{lo:.4g}, {hi:.4g}] {why}")


def equivalent(est: Estimate, *, what: str, margin: float) -> Decision:
    """Decide "abs(quantity) ≤ margin" (A resembles B): two one-sided tests.

    holds: both one-sided HOLDS_LEVEL bounds lie inside ±margin; violated: the family-corrected
    interval lies entirely outside ±margin; otherwise inconclusive.

    Parameters
    ----------
    est : Estimate
        The quantity's estimate.
    what : str
        What is compared, for the evidence.
    margin : float
        The equivalence margin fixed before the data.

    Returns
    -------
    Decision

    Raises
    ------
    RuntimeError
        When the calling claim makes more statistical tests than it declares.
    """
    spend_one()
    alpha = alpha_per_test()
    ctrl = Control(f"{what}: equivalence (two one-sided t tests)", alpha, family_text(), margin)
    hi, lo = est.upper(1 - HOLDS_LEVEL), est.lower(1 - HOLDS_LEVEL)
    vhi, vlo = est.upper(alpha / 2), est.lower(alpha / 2)
    if -margin < lo and hi < margin:
        return Decision(Verdict.HOLDS, ctrl, est.value, hi, vlo, f"{what}: {est.value:.4g} in [{lo:.4g}, {hi:.4g}] "
                        f"⊂ ±{margin:g}")
    if vlo > margin or vhi < -margin:
        return Decision(Verdict.VIOLATED, ctrl, est.value, hi, vlo, f"{what}: {est.value:.4g}, family-corrected "
                        f"interval [{vlo:.4g}, {vhi:.4g}] outside ±{margin:g}")
    return Decision(Verdict.INCONCLUSIVE, ctrl, est.value, hi, vlo, f"{what}: {est.value:.4g} "
                    f"[{lo:.4g}, {hi:.4g}] not inside ±{margin:g}, not outside it at the family level")


def mean_at_most(samples: Sequence[float], limit: float, *, what: str, margin: float = 0.0) -> Decision:
    """Decide "E[X] ≤ limit" (an explicit-constant bound in expectation) from i.i.d. runs of X (t interval).

    Parameters
    ----------
    samples : sequence of float
        Independent runs of X.
    limit : float
        The bound on E[X].
    what : str
        What is bounded, for the evidence.
    margin : float, optional
        The margin fixed before the data.

    Returns
    -------
    Decision

    Raises
    ------
    RuntimeError
        When the calling claim makes more statistical tests than it declares.
    """
    return upper_bounded(mean_estimate(samples), limit, test=f"{what}: one-sample t on the mean", margin=margin)


def proportion_at_most(k: int, n: int, p0: float, *, what: str) -> Decision:
    """Decide "P(event) ≤ p0" from k events in n independent trials (exact Clopper–Pearson bounds).

    holds: the one-sided HOLDS_LEVEL upper bound is ≤ p0; violated: the family-corrected lower bound
    is > p0; otherwise inconclusive (more trials would decide).

    Parameters
    ----------
    k, n : int
        Events and independent trials.
    p0 : float
        The bound on the probability.
    what : str
        The event, for the evidence.

    Returns
    -------
    Decision

    Raises
    ------
    ValueError
        Unless 0 ≤ k ≤ n and n ≥ 1.
    RuntimeError
        When the calling claim makes more statistical tests than it declares.
    """
    if not (0 <= k <= n and n >= 1):
        raise ValueError(f"need 0 ≤ k ≤ n and n ≥ 1 (got k={k}, n={n})")
    spend_one()
    alpha = alpha_per_test()
    ctrl = Control(f"{what}: exact binomial (Clopper-Pearson) on {n} trials", alpha, family_text(), None)
    hi = 1.0 if k == n else float(_st.beta.ppf(HOLDS_LEVEL, k + 1, n - k))
    lo = 0.0 if k == 0 else float(_st.beta.ppf(alpha, k, n - k + 1))
    est = k / n
    if lo > p0:
        return Decision(Verdict.VIOLATED, ctrl, est, hi, lo, f"{what}: {k}/{n}, family-corrected lower bound "
                        f"{lo:.4g} > {p0:.4g}")
    if hi <= p0:
        return Decision(Verdict.HOLDS, ctrl, est, hi, lo, f"{what}: {k}/{n}, upper bound {hi:.4g} ≤ {p0:.4g}")
    return Decision(Verdict.INCONCLUSIVE, ctrl, est, hi, lo, f"{what}: {k}/{n} in [{lo:.4g}, {hi:.4g}] "
                    f"straddles {p0:.4g}: more trials would decide")


def combine(decisions: Sequence[Decision]) -> Verdict:
    """A conjunction: violated if any part is, holds if all are, else inconclusive.

    Parameters
    ----------
    decisions : sequence of Decision

    Returns
    -------
    Verdict
    """
    vs = [d.verdict for d in decisions]
    if any(v == Verdict.VIOLATED for v in vs):
        return Verdict.VIOLATED
    if vs and all(v == Verdict.HOLDS for v in vs):
        return Verdict.HOLDS
    return Verdict.INCONCLUSIVE


# --------------------------------------------------------------------------------------
# calibration of the rule itself (no kernels): the false-alarm rate on a flat ratio
# --------------------------------------------------------------------------------------
def simulate_flat_rate(*, replications: int = 2000, points: int = 3, runs: int = 4, alpha: float = 0.05,
                       margin: float = 0.0, span_decades: float = 1.0, shape: str = "exponential",
                       seed: int = 0) -> dict:
    """Apply the rate rule to a ratio that is exactly flat and count false ``violated``.

    Each replication draws ``runs`` per-run ratios at each of ``points`` x-values spread over
    ``span_decades`` decades, from a law with mean 1 everywhere (``shape``: "exponential", a heavy
    skew like an excess loss; "lognormal" with σ = 1; "normal" with sd 0.3), and applies the
    one-sided test of the rate rule at level ``alpha`` with ``margin``.  Returns the false-alarm
    count and its Clopper–Pearson upper bound.

    Parameters
    ----------
    replications : int, optional
        Number of simulated flat ratios.
    points : int, optional
        x-values per replication (log-spaced from 1).
    runs : int, optional
        Per-run ratios drawn at each point.
    alpha : float, optional
        One-sided level of the test.
    margin : float, optional
        The slope margin an alarm must exceed.
    span_decades : float, optional
        Decades of x the points span.
    shape : str, optional
        "exponential", "lognormal" or "normal".
    seed : int, optional
        Seed of the NumPy generator.

    Returns
    -------
    dict
        ``replications``, ``alarms``, ``rate`` (alarms / replications), ``rate_hi`` (the Clopper–Pearson
        upper bound, 97.5% one-sided), and the settings ``alpha``, ``points``, ``runs``, ``shape``, ``margin``.
        A replication whose slope cannot be formed (a non-positive mean) counts as no alarm.

    Raises
    ------
    ValueError
        When ``shape`` is not one of the three laws.
    """
    rng = np.random.default_rng(seed)
    x = np.logspace(0.0, span_decades, points)
    alarms = 0
    for _ in range(replications):
        if shape == "exponential":
            s = rng.exponential(1.0, (points, runs))
        elif shape == "lognormal":
            s = rng.lognormal(-0.5, 1.0, (points, runs))
        elif shape == "normal":
            s = 1.0 + 0.3 * rng.standard_normal((points, runs))
        else:
            raise ValueError("shape must be exponential, lognormal or normal")
        try:
            est = log_slope_estimate(x, list(s))
        except ValueError:  # a non-positive mean (normal law only): no slope, no alarm
            continue
        if est.lower(alpha) > margin:
            alarms += 1
    hi = float(_st.beta.ppf(0.975, alarms + 1, replications - alarms)) if alarms < replications else 1.0
    return {"replications": replications, "alarms": alarms, "rate": alarms / replications, "rate_hi": hi,
            "alpha": alpha, "points": points, "runs": runs, "shape": shape, "margin": margin}


def false_alarm_figure(*, replications: int = 2000, alphas: Sequence[float] = (0.005, 0.01, 0.025, 0.05, 0.1),
                       seed: int = 0):
    """The rate rule's false-alarm rate on an exactly flat ratio against its nominal level (a Figure).

    One panel per design (3 points × 4 runs, the quick budget's; 5 points × 12 runs, the full
    budget's), one series per law of the per-run ratio, with Clopper–Pearson 95% bars; the dashed
    diagonal is the nominal level, which every series must stay under.

    Parameters
    ----------
    replications : int, optional
        Replications per point (see :func:`simulate_flat_rate`).
    alphas : sequence of float, optional
        The nominal one-sided levels on the x axis.
    seed : int, optional
        Seed of every simulation.

    Returns
    -------
    verify.registry.Figure
        The figure "false_alarms", two panels on log-log axes.
    """

    panels = []
    for points, runs in ((3, 4), (5, 12)):
        series = [Series("nominal level", list(alphas), list(alphas), style="dashed")]
        for shape in ("exponential", "lognormal", "normal"):
            rows = [simulate_flat_rate(replications=replications, points=points, runs=runs, alpha=a, shape=shape,
                                       seed=seed) for a in alphas]
            lo = [float(_st.beta.ppf(0.025, r["alarms"], replications - r["alarms"] + 1)) if r["alarms"] else 0.0
                  for r in rows]
            series.append(Series(f"{shape} runs", list(alphas), [r["rate"] for r in rows], lo,
                                 [r["rate_hi"] for r in rows], style="points"))
        panels.append(Panel(f"{points} points × {runs} runs, flat ratio", "nominal one-sided level",
                            "observed false-alarm rate", series, xscale="log", yscale="log"))
    return Figure("false_alarms", f"rate rule on a flat ratio: {replications} replications per point", panels)


# --------------------------------------------------------------------------------------
# mechanism probes: a check's runs must be the mechanism its claim states
# --------------------------------------------------------------------------------------
class MechanismMismatch(RuntimeError):
    """The kernel does not run the mechanism a claim states (a mechanism probe failed): the check gives no verdict."""


def after_probe(why: str, label: str, verdict: str, evidence: str,
                violation_from_runs: bool = True) -> tuple[str, str]:
    """A check's verdict and evidence once its mechanism probe said ``why`` ("": the probe passed).

    A failed probe means the runs are not the stated mechanism: a 'holds' is not established (inconclusive), and
    a 'violated' that rests on the runs is no evidence about the statement, so
    it gets no verdict, as an undecided check does (:class:`MechanismMismatch` is raised, with the reason).  A
    'violated' from an exact part, independent of the runs (``violation_from_runs`` False: the caller has already
    set aside the run decisions), is kept, with the probe's finding in front of its evidence.

    Parameters
    ----------
    why : str
        The probe's finding; "" when the kernel runs the stated mechanism.
    label : str
        Names the check in the raised message.
    verdict : str
        The check's verdict without the probe.
    evidence : str
        The check's evidence without the probe.
    violation_from_runs : bool, optional
        Whether a 'violated' may rest on the runs (default True).

    Returns
    -------
    tuple of (str, str)
        The verdict and evidence to report.

    Raises
    ------
    MechanismMismatch
        When the probe failed and the check's own verdict is 'inconclusive', or 'violated' with
        ``violation_from_runs``.
    """
    if not why:
        return verdict, evidence
    if verdict == "inconclusive" or (verdict == "violated" and violation_from_runs):
        raise MechanismMismatch(f"{label}: the kernel does not run the stated mechanism ({why})")
    head = f"the kernel does not run the stated mechanism ({why})"
    return ("inconclusive", f"{head}: {evidence}") if verdict == "holds" else (verdict, f"{head}; {evidence}")
