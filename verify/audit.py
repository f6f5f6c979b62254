r"""Empirical privacy audits: a statistically valid lower bound on ε from a distinguishing test.

Run a mechanism many times on two neighbouring datasets D (without the canary) and D′ (with
it) and reduce each output to a score T.  For a threshold τ, the test "T > τ ⇒ canary present"
has false-positive rate FPR = P_D(T > τ) and false-negative rate FNR = P_{D′}(T ≤ τ).  If the
mechanism is (ε, δ)-DP then, for the set S = {T > τ} and its complement,

    1 − FNR ≤ e^ε·FPR + δ      and      1 − FPR ≤ e^ε·FNR + δ,

so ε ≥ log((1 − δ − FNR)/FPR) and ε ≥ log((1 − δ − FPR)/FNR).  Replacing FPR and FNR by
one-sided Clopper–Pearson upper bounds (each at level 1 − α/2, so both hold together with
probability ≥ 1 − α) gives a lower bound on ε that is valid with probability ≥ 1 − α.

τ and the direction are chosen on a quarter of the samples (:data:`SELECTION_FRACTION`) and the
rates are counted on the other three quarters, so the choice does not bias the interval.  A lower
bound above the accountant's ε means the implementation leaks more than it claims.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

import dpvalidate as V
from dpvalidate import InvalidParameter
from verify import decide
from verify.registry import Figure, Outcome, Panel, Series
from verify.stats import LEVEL

METHODS = ("clopper_pearson", "gdp")
#: Share of each side's scores that chooses τ and the direction; the rest count the errors.  Any share keeps the
#: bound valid; a quarter counts on more scores than a half, and choosing τ needs fewer.  Measured on exact
#: Gaussian scores at ε = 4, δ = 1e-5, 10⁵ per side, 20 seeds: GDP mean 3.892 at a quarter, 3.863 at a half,
#: jax-privacy's epsilon_from_gdp (all scores, Bonferroni over its thresholds) 3.887; Clopper–Pearson 2.441 /
#: 2.362 / 2.416 (jax).  At 5·10³ per side the Clopper–Pearson bound rises from 1.03 to 1.55.
SELECTION_FRACTION = 0.25
ASSUMES = {
    "clopper_pearson": "nothing about the mechanism: (ε, δ) read directly off Clopper–Pearson bounds on the "
                       "test's two error rates",
    "gdp": "a Gaussian trade-off curve (μ-GDP): μ bounded from the error rates, then converted to (ε, δ) — the "
           "right comparison when the accountant's claim is itself a Gaussian claim (composed Gaussian steps)",
}


@dataclass(frozen=True)
class AuditBound:
    epsilon_lb: float  # valid lower bound on ε at `level` (0 when the test shows nothing)
    threshold: float
    direction: str  # "above" (T > τ flags the canary) or "below"
    fpr_hi: float
    fnr_hi: float
    trials: int  # samples per dataset used for the counts (the evaluation half)
    level: float
    method: str = "clopper_pearson"
    mu_lb: float | None = None  # the GDP method's lower bound on μ (None for clopper_pearson)
    thresholds_tested: int = 1  # thresholds counted on the evaluation half (the Bonferroni family, × 2 rates)

    @property
    def assumes(self) -> str:
        """What the bound's method assumes about the mechanism, in words.

        Returns
        -------
        str
            :data:`ASSUMES` of ``method``.
        """
        return ASSUMES[self.method]

    def to_dict(self) -> dict:
        """The bound as a plain dict.

        Returns
        -------
        dict
            Every field, plus ``assumes``.
        """
        return dict(epsilon_lb=self.epsilon_lb, threshold=self.threshold, direction=self.direction,
                    fpr_hi=self.fpr_hi, fnr_hi=self.fnr_hi, trials=self.trials, level=self.level,
                    method=self.method, mu_lb=self.mu_lb, thresholds_tested=self.thresholds_tested,
                    assumes=self.assumes)


def _upper(k: int, n: int, level: float) -> float:
    """One-sided Clopper–Pearson upper bound on a frequency k/n."""
    return 1.0 if k >= n else float(_st.beta.ppf(level, k + 1, n - k))


def _upper_vec(k: np.ndarray, n: int, level: float) -> np.ndarray:
    """:func:`_upper` for an array of counts."""
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    inside = k < n
    out[inside] = _st.beta.ppf(level, k[inside] + 1, n - k[inside])
    return out


def _eps_from_rates(fpr: float, fnr: float, delta: float) -> float:
    best = 0.0
    for a, b in ((fpr, fnr), (fnr, fpr)):  # ε ≥ log((1 − δ − b)/a)
        num = 1.0 - delta - b
        if num > 0 and a > 0:
            best = max(best, math.log(num / a))
        elif num > 0:  # a = 0: only an upper bound on a is used below, never 0
            best = math.inf
    return best


def gdp_delta(epsilon: float, mu: float) -> float:
    r"""δ(ε) of μ-GDP (Dong, Roth & Su 2022, Cor. 2.13): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).

    Parameters
    ----------
    epsilon : float
        The ε (≥ 0; +inf gives 0).
    mu : float
        The GDP parameter μ (≥ 0 and finite).

    Returns
    -------
    float
        δ(ε); 0 when μ = 0.

    Raises
    ------
    InvalidParameter
        When ``epsilon`` is negative or NaN, or ``mu`` is negative, NaN or infinite.
    """
    from scipy.special import log_ndtr, ndtr

    epsilon = V.real("epsilon", epsilon)
    if epsilon < 0:
        raise V.InvalidParameter("epsilon", ">= 0", epsilon)
    mu = V.nonnegative("mu", mu)
    if math.isinf(epsilon):
        return 0.0
    if mu <= 0:
        return 0.0
    return float(ndtr(-epsilon / mu + mu / 2) - math.exp(epsilon + log_ndtr(-epsilon / mu - mu / 2)))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest ε with δ(ε) ≤ ``delta`` on the μ-GDP curve (0 when δ(0) ≤ δ already).

    A closed form (:func:`gdp_delta`) solved for ε by bracketing and Brent's method, not an accountant.

    Parameters
    ----------
    mu : float
        The GDP parameter μ (≥ 0 and finite; 0 gives 0).
    delta : float
        The δ, in (0, 1).

    Returns
    -------
    float
        The ε ≥ 0.

    Raises
    ------
    InvalidParameter
        When ``mu`` is negative, NaN or infinite, or ``delta`` is outside (0, 1).
    """
    from scipy.optimize import brentq

    mu = V.nonnegative("mu", mu)
    delta = V.open_unit("delta", delta)
    if mu <= 0 or gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = max(1.0, mu)
    while gdp_delta(hi, mu) > delta:  # δ(ε) decreases in ε, to 0
        hi *= 2.0
    return float(brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-10, rtol=1e-12))


def _gdp_mu(fpr, fnr):
    """μ ≥ Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) for a μ-GDP mechanism (either rate may be an upper bound: μ only shrinks)."""
    from scipy.special import ndtri

    return ndtri(1.0 - np.asarray(fpr, dtype=float)) - ndtri(np.asarray(fnr, dtype=float))


def _cp_selection(a_sel, b_sel, delta):
    """Today's choice of (τ, direction) on the selection half: the best point estimate over 401 quantiles."""
    cand = np.unique(np.quantile(np.concatenate([a_sel, b_sel]), np.linspace(0.0, 1.0, 401)))
    a_sorted, b_sorted = np.sort(a_sel), np.sort(b_sel)
    best = (-math.inf, cand[0], "above")
    for tau in cand:
        above_a = (a_sorted.size - np.searchsorted(a_sorted, tau, side="right") + 0.5) / (a_sorted.size + 1)
        above_b = (b_sorted.size - np.searchsorted(b_sorted, tau, side="right") + 0.5) / (b_sorted.size + 1)
        for direction, fpr, fnr in (("above", above_a, 1.0 - above_b), ("below", 1.0 - above_a, above_b)):
            e = _eps_from_rates(fpr, fnr, delta)
            if e > best[0]:
                best = (e, float(tau), direction)
    return [(best[1], best[2])]


def _gdp_selection(a_sel, b_sel, n_eval_a, n_eval_b, one_sided, k):
    """The ``k`` (τ, direction) pairs with the largest *smoothed* μ bound on the selection half.

    At each of 401 quantiles of the pooled selection half, μ is bounded as the evaluation will bound it (the
    selection counts rescaled to the evaluation sizes, the same Clopper–Pearson level); the bounds are averaged
    over 21 neighbouring quantiles (5 % of the range) before taking the best, so that a lone spike of the noisy
    selection-half estimate in a sparse tail (a winner's curse over hundreds of candidates) is not chosen.
    """
    from scipy.ndimage import uniform_filter1d

    cand = np.quantile(np.concatenate([a_sel, b_sel]), np.linspace(0.0, 1.0, 401))
    a_sorted, b_sorted = np.sort(a_sel), np.sort(b_sel)
    above_a = (a_sorted.size - np.searchsorted(a_sorted, cand, side="right")) / a_sorted.size
    above_b = (b_sorted.size - np.searchsorted(b_sorted, cand, side="right")) / b_sorted.size
    ka, kb = np.rint(above_a * n_eval_a), np.rint(above_b * n_eval_b)
    smooth = []
    for direction in ("above", "below"):
        fp = ka if direction == "above" else n_eval_a - ka
        fn = n_eval_b - kb if direction == "above" else kb
        mu = np.clip(_gdp_mu(_upper_vec(fp, n_eval_a, one_sided), _upper_vec(fn, n_eval_b, one_sided)), -50, 50)
        smooth.append(uniform_filter1d(mu, 21, mode="nearest"))
    order = np.argsort(-np.concatenate(smooth), kind="stable")[:k]
    return [(float(cand[i % cand.size]), "above" if i < cand.size else "below") for i in order]


def epsilon_lower_bound(without: np.ndarray, with_canary: np.ndarray, delta: float,
                        level: float = LEVEL, seed: int = 0, method: str = "clopper_pearson",
                        thresholds: int = 1) -> AuditBound:
    """A lower bound on ε, valid with probability ≥ ``level``, from scores on D and on D′.

    The scores are split at random: a share :data:`SELECTION_FRACTION` chooses the threshold(s) and the
    direction, the rest counts the errors.  ``method``:

    * ``"clopper_pearson"`` (assumption-free): ε ≥ log((1 − δ − FNR)/FPR) (and with the rates swapped), with
      one-sided Clopper–Pearson upper bounds on FPR and FNR.
    * ``"gdp"`` (assumes a Gaussian trade-off curve): μ ≥ Φ⁻¹(1 − FPR_hi) − Φ⁻¹(FNR_hi), maximised over the
      ``thresholds`` thresholds counted, then ε from the μ-GDP curve at ``delta`` (:func:`gdp_epsilon`).  Valid
      for a mechanism whose claim is Gaussian (any post-processing of composed Gaussian mechanisms is μ-GDP);
      for other mechanisms it can exceed the true ε.  Needs δ > 0.

    Bonferroni: the 2 × ``thresholds`` rates each get level 1 − (1 − ``level``)/(2·thresholds).

    Parameters
    ----------
    without : array_like
        1-d finite scores on D (at least 4).
    with_canary : array_like
        1-d finite scores on D′ (at least 4).
    delta : float
        The δ: in [0, 1), in (0, 1) for "gdp".
    level : float, optional
        Confidence of the bound, in (0, 1).
    seed : int, optional
        Seed of the random split (≥ 0).
    method : str, optional
        "clopper_pearson" or "gdp".
    thresholds : int, optional
        Thresholds counted, in [1, 1000]; must be 1 for "clopper_pearson".

    Returns
    -------
    AuditBound
        The bound (0 when the test shows nothing), the chosen threshold and direction, the error-rate upper
        bounds, and the counts behind them.

    Raises
    ------
    InvalidParameter
        For scores that are not a 1-d finite array of at least 4, an unknown method, or ``delta``,
        ``level``, ``thresholds`` or ``seed`` out of range.
    """

    def scores(name, x):
        try:
            arr = V.finite_array(name, x, ndim=1)  # finite: a NaN score would make the audit meaningless
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, V.InvalidParameter):
                raise
            raise V.InvalidParameter(name, "a 1-d array of finite scores", type(x).__name__) from None
        if arr.size < 4:
            raise V.InvalidParameter(name, "at least 4 scores (half choose the threshold, half test it)",
                                      f"{arr.size} scores")
        return arr

    a = scores("without", without)
    b = scores("with_canary", with_canary)
    if not isinstance(method, str) or method not in METHODS:
        raise V.InvalidParameter("method", "one of " + ", ".join(repr(m) for m in METHODS), method)
    delta = V.real("delta", delta)
    if method == "gdp" and not 0.0 < delta < 1.0:
        raise V.InvalidParameter("delta", "in (0, 1) for method 'gdp'", delta)
    if not 0.0 <= delta < 1.0:
        raise V.InvalidParameter("delta", "in [0, 1)", delta)
    level = V.open_unit("level", level)
    k = V.integer("thresholds", thresholds, 1, 1000)
    if method == "clopper_pearson" and k != 1:
        raise V.InvalidParameter("thresholds", "1 for method 'clopper_pearson'", thresholds)
    rng = np.random.default_rng(V.integer("seed", seed, 0))
    a, b = rng.permutation(a), rng.permutation(b)
    ka, kb = max(1, int(a.size * SELECTION_FRACTION)), max(1, int(b.size * SELECTION_FRACTION))
    return _bound_from_halves(a[:ka], a[ka:], b[:kb], b[kb:], delta, level, method, k)


def _bound_from_halves(a_sel, a_ev, b_sel, b_ev, delta, level, method, k) -> AuditBound:
    """The bound from scores already split into a selection half and an evaluation half (validated inputs)."""
    one_sided = 1.0 - (1.0 - level) / (2.0 * k)  # Bonferroni over the two rates of each threshold counted
    if method == "clopper_pearson":
        chosen = _cp_selection(a_sel, b_sel, delta)
    else:
        chosen = _gdp_selection(a_sel, b_sel, a_ev.size, b_ev.size, one_sided, k)

    best = None
    for tau, direction in chosen:  # count on the evaluation half
        hit_a = int(np.sum(a_ev > tau)) if direction == "above" else int(np.sum(a_ev <= tau))
        hit_b = int(np.sum(b_ev > tau)) if direction == "above" else int(np.sum(b_ev <= tau))
        fpr_hi = _upper(hit_a, a_ev.size, one_sided)
        fnr_hi = _upper(b_ev.size - hit_b, b_ev.size, one_sided)
        if method == "clopper_pearson":
            mu, eps = None, _eps_from_rates(fpr_hi, fnr_hi, delta)
        else:
            mu = max(float(_gdp_mu(fpr_hi, fnr_hi)), 0.0)
            eps = gdp_epsilon(mu, delta)
        if best is None or eps > best[0]:
            best = (eps, mu, tau, direction, fpr_hi, fnr_hi)
    eps, mu, tau, direction, fpr_hi, fnr_hi = best
    return AuditBound(max(eps, 0.0), tau, direction, fpr_hi, fnr_hi, int(min(a_ev.size, b_ev.size)), level,
                      method, mu, k)


# ======================================================================================
# An audit's power: the smallest leak it could have seen
# ======================================================================================
#: an audit that finds no leak says 'holds' only when it could have seen a mechanism this many times the claim
POWER_FACTOR = 1.5
MAX_SUGGESTED_TRIALS = 10**8  # the largest --trials dpverify audit accepts


@dataclass(frozen=True)
class AuditPower:
    """What an audit could have seen: the smallest ε of an ideal Gaussian mechanism it would flag (see
    :func:`detectable_epsilon`), against the claim."""

    detectable_epsilon: float  # +inf when no Gaussian mechanism, however leaky, would be flagged
    claimed_epsilon: float
    method: str
    evaluation_runs: int  # runs per dataset that count the errors
    suggested_trials: int | None  # runs per dataset whose audit would see POWER_FACTOR × the claim (None: > 10⁸)
    sees: bool  # the ideal Gaussian mechanism of POWER_FACTOR × the claim is flagged (decided exactly, not from the
    # bisected detectable_epsilon, which is within 0.5 % above the exact one)

    def to_dict(self) -> dict:
        """The power as a plain dict.

        Returns
        -------
        dict
            Every field, plus ``power_factor``.
        """
        return dict(detectable_epsilon=self.detectable_epsilon, claimed_epsilon=self.claimed_epsilon,
                    method=self.method, evaluation_runs=self.evaluation_runs, suggested_trials=self.suggested_trials,
                    sees=self.sees, power_factor=POWER_FACTOR)


@functools.lru_cache(maxsize=4096)
def reference_mu(epsilon: float, delta: float) -> float:
    """μ of the Gaussian mechanism that is exactly (ε, δ)-DP: the μ with :func:`gdp_delta` (ε, μ) = δ.

    Parameters
    ----------
    epsilon : float
        The ε (> 0).
    delta : float
        The δ, in (0, 1).

    Returns
    -------
    float
        The μ (sensitivity over noise standard deviation).

    Raises
    ------
    InvalidParameter
        When ``epsilon`` is not positive and finite, or ``delta`` is outside (0, 1).
    """
    from scipy.optimize import brentq

    epsilon = V.positive("epsilon", epsilon)
    delta = V.open_unit("delta", delta)
    if math.isinf(epsilon):
        raise V.InvalidParameter("epsilon", "finite", epsilon)
    hi = 1.0
    while gdp_delta(epsilon, hi) < delta:  # δ(ε) grows with μ, to 1
        hi *= 2.0
    return float(brentq(lambda m: gdp_delta(epsilon, m) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


def _ideal_bound(mu: float, runs: int, delta: float, level: float, method: str, thresholds: int) -> float:
    """The bound of the audit's estimator on an ideal Gaussian mechanism of parameter μ (scores N(0, 1) on D,
    N(μ, 1) on D′), with the median error counts of ``runs`` evaluation runs at its best threshold."""
    from scipy.special import ndtr

    one_sided = 1.0 - (1.0 - level) / (2.0 * thresholds)

    def best(tau):
        fp, fn = np.rint(runs * ndtr(-tau)), np.rint(runs * ndtr(tau - mu))  # the binomial medians, to within one
        fpr_hi, fnr_hi = _upper_vec(fp, runs, one_sided), _upper_vec(fn, runs, one_sided)
        if method == "gdp":
            score = _gdp_mu(fpr_hi, fnr_hi)
        else:
            num = 1.0 - delta - fnr_hi
            score = np.where(num > 0, np.log(np.where(num > 0, num, 1.0) / fpr_hi), 0.0)
        k = int(np.argmax(score))
        return k, float(score[k])

    top = max(mu, float(_st.norm.isf(0.5 / runs))) + 2.0  # past it no false positive is expected
    tau = np.linspace(-2.0, top, 400)
    k, _ = best(tau)
    _, score = best(np.linspace(tau[max(k - 1, 0)], tau[min(k + 1, tau.size - 1)], 400))  # refined near the best
    score = max(score, 0.0)
    return gdp_epsilon(score, delta) if method == "gdp" else score


@functools.lru_cache(maxsize=4096)
def detectable_epsilon(claimed: float, runs: int, delta: float, level: float, method: str = "clopper_pearson",
                       thresholds: int = 1) -> float:
    """The smallest ε at which the audit would flag an ideal Gaussian mechanism against ``claimed``.

    The reference is the Gaussian mechanism that is exactly (ε, δ)-DP (μ = :func:`reference_mu`), scored by its
    release; the audit's estimator (``method``, ``level``, ``thresholds`` Bonferroni-counted thresholds) is
    applied to the median error counts of ``runs`` evaluation runs per dataset at the best threshold.  The
    returned ε is the smallest whose bound exceeds ``claimed``, to 0.5 %.  A real audit also chooses its
    threshold from noisy data and may score a vector release less well, so it sees no smaller leaks than this:
    "cannot see leaks below this ε" is a statement about the test, whatever the mechanism.

    Parameters
    ----------
    claimed : float
        The claimed ε (> 0).
    runs : int
        Runs per dataset that count the errors (≥ 1).
    delta : float
        The δ, in (0, 1).
    level : float
        Confidence of the audit's bound, in (0, 1).
    method : str, optional
        "clopper_pearson" or "gdp".
    thresholds : int, optional
        Thresholds the estimator counts (its Bonferroni family), ≥ 1.

    Returns
    -------
    float
        The ε (≥ ``claimed``); +inf when even a mechanism of ε = 200·``claimed`` (or 400) would not be flagged.

    Raises
    ------
    InvalidParameter
        For a parameter out of range or an unknown method.
    """
    claimed = V.positive("claimed", claimed)
    runs = V.integer("runs", runs, 1)
    delta = V.open_unit("delta", delta)
    level = V.open_unit("level", level)
    thresholds = V.integer("thresholds", thresholds, 1, 1000)
    if not isinstance(method, str) or method not in METHODS:
        raise V.InvalidParameter("method", "one of " + ", ".join(repr(m) for m in METHODS), method)

    def flags(eps: float) -> bool:
        return _ideal_bound(reference_mu(eps, delta), runs, delta, level, method, thresholds) > claimed

    lo, hi = claimed, min(200.0 * claimed, 400.0)
    if not flags(hi):
        return math.inf
    while hi / lo > 1.005:  # the bound grows with ε: bisect on a log scale
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if flags(mid) else (mid, hi)
    return hi


def evaluation_runs(trials: int, share: float = 1.0 - SELECTION_FRACTION) -> int:
    """The runs per dataset that count the errors when ``share`` of ``trials`` does (the rest choose the test).

    Parameters
    ----------
    trials : int
        Runs per dataset (≥ 1).
    share : float, optional
        The counting share: 1 − :data:`SELECTION_FRACTION` for :func:`epsilon_lower_bound`, ½ for
        :func:`audit_mechanism`.

    Returns
    -------
    int
        At least 1.
    """
    return max(1, trials - max(1, int(trials * (1.0 - share))))


def audit_power(claimed: float, trials: int, delta: float, level: float, method: str = "clopper_pearson",
                thresholds: int = 1, share: float = 1.0 - SELECTION_FRACTION) -> AuditPower:
    """An audit's power: its :func:`detectable_epsilon` and the trials that would see :data:`POWER_FACTOR` ×
    ``claimed`` (the smallest count on a grid of two significant digits, up to :data:`MAX_SUGGESTED_TRIALS`).

    Parameters
    ----------
    claimed : float
        The claimed ε (> 0).
    trials : int
        Runs per dataset (≥ 2).
    delta : float
        The δ, in (0, 1).
    level : float
        Confidence of the audit's bound, in (0, 1).
    method : str, optional
        "clopper_pearson" or "gdp".
    thresholds : int, optional
        Thresholds the estimator counts, ≥ 1.
    share : float, optional
        Share of the runs that count the errors (see :func:`evaluation_runs`).

    Returns
    -------
    AuditPower
        The power.

    Raises
    ------
    InvalidParameter
        For a parameter out of range or an unknown method.
    """
    trials = V.integer("trials", trials, 2)
    runs = evaluation_runs(trials, share)
    det = detectable_epsilon(claimed, runs, delta, level, method, thresholds)
    target = POWER_FACTOR * claimed
    sees = _ideal_bound(reference_mu(target, delta), runs, delta, level, method, thresholds) > claimed
    suggested = _suggest_trials(target, claimed, delta, level, method, thresholds, share)
    return AuditPower(det, float(claimed), method, runs, suggested, bool(sees))


@functools.lru_cache(maxsize=1024)
def _suggest_trials(target, claimed, delta, level, method, thresholds, share) -> int | None:
    mu = reference_mu(target, delta)

    def sees(trials: int) -> bool:
        return _ideal_bound(mu, evaluation_runs(trials, share), delta, level, method, thresholds) > claimed

    if not sees(MAX_SUGGESTED_TRIALS):
        return None
    lo, hi = MIN_MECHANISM_TRIALS, MAX_SUGGESTED_TRIALS  # sees(hi); the answer is at least lo
    if sees(lo):
        return lo
    while hi - lo > max(1, hi // 100):  # to two significant digits, then rounded up
        mid = int(math.sqrt(lo * hi)) if hi > 4 * lo else (lo + hi) // 2
        lo, hi = (lo, mid) if sees(mid) else (mid, hi)
    step = 10 ** max(0, len(str(hi)) - 2)
    out = int(math.ceil(hi / step) * step)
    while not sees(out) and out < MAX_SUGGESTED_TRIALS:  # the counts' rounding makes sees() monotone only nearly
        out += step
    return out

def power_text(power: AuditPower, trials_name: str = "runs per dataset", other: str | None = None) -> str:
    """One sentence on what an audit could see, and, when it could not see :data:`POWER_FACTOR` × the claim, what
    would: ``trials_name`` (e.g. "--trials") and, for the Clopper–Pearson method, ``other`` (e.g. "--method gdp").

    Parameters
    ----------
    power : AuditPower
        The audit's power.
    trials_name : str, optional
        How the sentence names the trial count; one starting with "-" is an option, followed by the count.
    other : str or None, optional
        How the sentence names the Gaussian-DP method, suggested for a Clopper–Pearson audit (None: not
        suggested, e.g. when the mechanism is subsampled and its trade-off curve not Gaussian).

    Returns
    -------
    str
        E.g. "cannot see leaks below ε = 4.43; to see 1.5 × the claimed 2: --trials 260000 or --method gdp (for a
        Gaussian mechanism)".
    """
    det, claim = power.detectable_epsilon, power.claimed_epsilon
    if power.sees:
        return f"could see leaks from ε ≈ {det:.3g} (a leak of {POWER_FACTOR:g} × the claimed {claim:.3g} is visible)"
    cannot = "cannot see a leak of any size" if math.isinf(det) else f"cannot see leaks below ε = {det:.3g}"
    fixes = []
    if power.suggested_trials is not None:
        fixes.append(f"{trials_name} {power.suggested_trials}" if trials_name.startswith("-")
                     else f"{power.suggested_trials} {trials_name}")
    if power.method == "clopper_pearson" and other is not None:
        fixes.append(f"{other} (for a Gaussian mechanism)")
    if not fixes:
        return (f"{cannot}; no trial count up to {MAX_SUGGESTED_TRIALS:.0e} sees {POWER_FACTOR:g} × the claimed "
                f"{claim:.3g}: a stronger score would decide")
    return f"{cannot}; to see {POWER_FACTOR:g} × the claimed {claim:.3g}: " + " or ".join(fixes)

# ======================================================================================
# Auditing anyone's mechanism (`dpverify audit FILE_OR_MODULE:FUNCTION`)
# ======================================================================================
MIN_MECHANISM_TRIALS = 100  # runs per neighbour: the halves must hold enough runs for a threshold and its count
DEFAULT_CALL_TIMEOUT = 60.0  # seconds one call of a mechanism may take before the audit gives up on it


class MechanismError(ValueError):
    """A mechanism that cannot be audited (not found, not callable, a bad release): one line naming it."""


def load_mechanism(spec: str):
    """The function named by ``FILE.py:FUNCTION`` or ``package.module:FUNCTION``.

    The file or module is imported; the function must accept ``(neighbour, rng)``.

    Parameters
    ----------
    spec : str
        ``FILE.py:FUNCTION`` or ``package.module:FUNCTION``.

    Returns
    -------
    callable
        The mechanism.

    Raises
    ------
    MechanismError
        When ``spec`` is malformed, the file or module is missing or fails to import, the name is absent or
        not callable, or its signature cannot take ``(neighbour, rng)`` (one line naming it).
    """
    import importlib
    import importlib.util
    import inspect
    from pathlib import Path

    if not isinstance(spec, str) or ":" not in spec:
        raise MechanismError(f"FUNCTION: must be FILE_OR_MODULE:FUNCTION, e.g. mech.py:release (got {spec!r})")
    where, _, name = spec.rpartition(":")
    if not where or not name.isidentifier():
        raise MechanismError(f"FUNCTION: must be FILE_OR_MODULE:FUNCTION with a Python name after the colon "
                             f"(got {spec!r})")
    path = Path(where)
    if where.endswith(".py") or path.exists():
        if not path.is_file():
            raise MechanismError(f"FUNCTION: file not found: {where}")
        mod_spec = importlib.util.spec_from_file_location(f"_dpverify_audit_{path.stem}", path)
        if mod_spec is None or mod_spec.loader is None:
            raise MechanismError(f"FUNCTION: cannot load {where} as a Python file")
        module = importlib.util.module_from_spec(mod_spec)
        try:
            mod_spec.loader.exec_module(module)
        except Exception as exc:  # the user's file failed: name it and why, in one line
            raise MechanismError(f"FUNCTION: importing {where} raised {type(exc).__name__}: {exc}") from None
    else:
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as exc:
            raise MechanismError(f"FUNCTION: module not found: {where} ({exc})") from None
        except Exception as exc:
            raise MechanismError(f"FUNCTION: importing {where} raised {type(exc).__name__}: {exc}") from None
    if not hasattr(module, name):
        raise MechanismError(f"FUNCTION: {where} has no function {name!r}")
    fn = getattr(module, name)
    if not callable(fn):
        raise MechanismError(f"FUNCTION: {spec} is not callable (a {type(fn).__name__})")
    try:
        inspect.signature(fn).bind(0, np.random.default_rng(0))
    except TypeError:
        raise MechanismError(f"FUNCTION: {spec} must accept (neighbour, rng): neighbour 0 for D, 1 for D′, "
                             "rng a numpy.random.Generator") from None
    except ValueError:  # no signature to inspect (some builtins): let the first call decide
        pass
    return fn


def _release(fn, neighbour: int, rng, k: int, shape):
    """One release of ``fn`` as a 1-d float array, checked against the first release's shape."""
    try:
        out = fn(neighbour, rng)
    except MechanismError:
        raise
    except BaseException as exc:  # SystemExit, KeyboardInterrupt raised by the mechanism itself: its failure
        raise MechanismError(f"FUNCTION: raised {type(exc).__name__} on neighbour {neighbour}, run {k}: {exc}") \
            from None
    if isinstance(out, (bool, np.bool_)) or not isinstance(out, (int, float, np.integer, np.floating, np.ndarray,
                                                                   list, tuple)):
        raise MechanismError("FUNCTION: must return a float or a 1-d array of floats "
                             f"(got {type(out).__name__} on neighbour {neighbour}, run {k})")
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise MechanismError("FUNCTION: must return a float or a 1-d array of floats "
                             f"(got a {type(out).__name__} that is not numeric on neighbour {neighbour}, run {k})") \
            from None
    arr = arr.reshape(1) if arr.ndim == 0 else arr
    if arr.ndim != 1 or arr.size == 0:
        raise MechanismError("FUNCTION: must return a float or a 1-d array of floats "
                             f"(got shape {np.shape(out)} on neighbour {neighbour}, run {k})")
    if shape is not None and arr.shape != shape:
        raise MechanismError(f"FUNCTION: releases must all have one shape: {shape} on the first run, "
                             f"{arr.shape} on neighbour {neighbour}, run {k}")
    if not np.all(np.isfinite(arr)):
        raise MechanismError(f"FUNCTION: returned a NaN or infinite release on neighbour {neighbour}, run {k}")
    return arr


class _Abandoned(Exception):
    """The audit gave up on the mechanism (a call timed out): the worker thread stops at its next call."""


def _with_timeout(collect, state: dict, stop, timeout: float) -> np.ndarray:
    """Run ``collect`` in a daemon thread; end with a MechanismError when one call exceeds ``timeout`` seconds."""
    import threading
    import time

    box: dict = {}

    def target() -> None:
        try:
            collect()
        except BaseException as exc:  # handed to the calling thread
            box["error"] = exc

    t = threading.Thread(target=target, name="dpverify-audit", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.1)
            call = state["call"]
            if call is not None and time.monotonic() - state["since"] > timeout:
                raise MechanismError(f"FUNCTION: did not return within {timeout:g} s on neighbour {call[0]}, run "
                                     f"{call[1]} (the per-call timeout; --timeout sets it)")
    finally:
        stop.set()  # the thread, if still running (a timeout, an interruption), calls the mechanism no more
    if "error" in box:
        raise box.pop("error")
    return state["out"]


def _direction(a_sel: np.ndarray, b_sel: np.ndarray) -> np.ndarray:
    """A likelihood-ratio-like direction from the selection half: Σ⁻¹(m₁ − m₀) with the pooled covariance Σ
    (ridge-regularised; diagonal beyond 256 coordinates), i.e. the Gaussian likelihood-ratio direction of the
    mechanism's own noise geometry."""
    diff = b_sel.mean(axis=0) - a_sel.mean(axis=0)
    centred = np.concatenate([a_sel - a_sel.mean(axis=0), b_sel - b_sel.mean(axis=0)])
    d = diff.size
    if d <= 256 and centred.shape[0] > 2 * d:
        cov = centred.T @ centred / (centred.shape[0] - 2)
        ridge = 1e-9 * max(float(np.trace(cov)) / d, 1e-300)
        w = np.linalg.solve(cov + ridge * np.eye(d), diff)
    else:
        var = centred.var(axis=0)
        w = diff / np.maximum(var, 1e-12 * max(float(var.max()), 1e-300))
    return w


def audit_mechanism(fn, epsilon: float, delta: float, trials: int = 10_000, seed: int = 0,
                    method: str = "clopper_pearson", level: float = LEVEL, progress: bool = False,
                    timeout: float = DEFAULT_CALL_TIMEOUT) -> dict:
    """Audit a mechanism ``fn(neighbour, rng)`` that returns its release on D (0) or D′ (1).

    ``trials`` runs per neighbour (neighbour k draws from its own Generator seeded by (seed, k)).  Half the runs
    choose the score (a vector release is projected on :func:`_direction`; a scalar is its own score) and the
    threshold; the other half count the errors (:func:`epsilon_lower_bound`'s estimators).  Verdict
    ``violated`` when the audited lower bound exceeds ``epsilon``; else ``holds`` (no leak found) when the audit
    could have seen a leak of :data:`POWER_FACTOR` × ``epsilon`` (:func:`audit_power`), and ``inconclusive`` when
    it could not.

    Before the runs, ``fn`` is called twice on each neighbour with Generators of one probe seed (not the audit's
    streams, so the audit's numbers do not depend on the probe): a mechanism whose releases differ draws
    randomness from somewhere other than the rng it is given (NumPy's global state, ``random``, the clock), so
    its audit could not be repeated, and it is refused.  The calls run in a worker thread: a call that takes
    longer than ``timeout`` seconds ends the audit (the thread is abandoned), and whatever the mechanism raises,
    ``SystemExit`` and ``KeyboardInterrupt`` included, is its failure; a Ctrl-C of the user still reaches the
    calling thread and stops the audit.  The release array (2 × ``trials`` × the first release's size) is
    refused before it is allocated when it would not fit in memory.

    Parameters
    ----------
    fn : callable
        ``fn(neighbour, rng)`` returning a float or a 1-d array (one shape for every release).
    epsilon : float
        The claimed ε (> 0).
    delta : float
        The claimed δ, in (0, 1).
    trials : int, optional
        Runs per neighbour, in [MIN_MECHANISM_TRIALS, 10⁸].
    seed : int, optional
        Seed (≥ 0).
    method : str, optional
        "clopper_pearson" or "gdp".
    level : float, optional
        Confidence of the lower bound, in (0, 1).
    progress : bool, optional
        Show a progress bar of the runs.
    timeout : float, optional
        Seconds one call of ``fn`` may take (> 0; default :data:`DEFAULT_CALL_TIMEOUT`).

    Returns
    -------
    dict
        ``verdict``, ``epsilon_lb``, the claimed ε and δ, the method and what it assumes, the settings, the
        score used, the threshold, direction and error-rate bounds, ``evaluation_runs``, the power
        (``detectable_epsilon``, ``suggested_trials`` and the sentence ``power``) and ``seconds``.

    Raises
    ------
    InvalidParameter
        For a parameter out of range or an unknown method, or ``trials`` whose releases would not fit in memory.
    MechanismError
        When ``fn`` is not callable, raises (or exits), does not return within ``timeout``, gives different
        releases for the same seed, returns something other than finite floats of one shape, or its releases
        overflow when projected.
    """
    import threading
    import time

    epsilon = V.positive("epsilon", epsilon)
    delta = V.open_unit("delta", delta)
    trials = V.integer("trials", trials, MIN_MECHANISM_TRIALS, 10**8)
    seed = V.integer("seed", seed, 0)
    level = V.open_unit("level", level)
    timeout = V.positive("timeout", timeout)
    if not isinstance(method, str) or method not in METHODS:
        raise V.InvalidParameter("method", "one of " + ", ".join(METHODS), method)
    if not callable(fn):
        raise MechanismError(f"FUNCTION: must be callable (got a {type(fn).__name__})")

    from tqdm import tqdm

    t0 = time.perf_counter()
    state: dict = {"call": None, "since": 0.0, "out": None}  # the call under way (neighbour, run) and since when
    stop = threading.Event()

    def release(neighbour: int, rng, k: int, shape):
        if stop.is_set():
            raise _Abandoned()
        state["call"], state["since"] = (neighbour, k), time.monotonic()
        try:
            return _release(fn, neighbour, rng, k, shape)
        finally:
            state["call"] = None

    def collect() -> None:
        for neighbour in (0, 1):  # the same seed twice must give the same release
            a, b = (release(neighbour, np.random.default_rng([seed, 2, neighbour]), 0, None) for _ in range(2))
            if a.shape != b.shape or not np.array_equal(a, b):
                raise MechanismError(f"FUNCTION: two calls on neighbour {neighbour} with generators of the same seed "
                                     "returned different releases: it must draw all its randomness from the rng it "
                                     "is given (not numpy.random's global state, random, the clock or another "
                                     "source), or its audit cannot be repeated")
        rngs = [np.random.default_rng([seed, k]) for k in (0, 1)]
        first = release(0, rngs[0], 0, None)
        V.memory("trials", 2, trials, first.size)  # the releases of both neighbours, before they are allocated
        out = np.empty((2, trials, first.size))
        out[0, 0] = first
        bar = tqdm(total=2 * trials, desc="audit runs", unit="run", disable=not progress, leave=False)
        try:
            bar.update(1)
            for neighbour in (0, 1):
                for k in range(1 if neighbour == 0 else 0, trials):
                    out[neighbour, k] = release(neighbour, rngs[neighbour], k, first.shape)
                    bar.update(1)
        finally:
            bar.close()
        state["out"] = out

    out = _with_timeout(collect, state, stop, timeout)
    first = out[0, 0]
    half = trials // 2
    a_sel, a_ev, b_sel, b_ev = out[0, :half], out[0, half:], out[1, :half], out[1, half:]
    if first.size == 1:
        score = "the release itself"
        s = [x[:, 0] for x in (a_sel, a_ev, b_sel, b_ev)]
    else:
        w = _direction(a_sel, b_sel)
        score = (f"projection of the {first.size}-d release on Σ⁻¹(mean D′ − mean D) of the selection half "
                 "(Σ: the pooled covariance)")
        s = [x @ w for x in (a_sel, a_ev, b_sel, b_ev)]
    if any(not np.all(np.isfinite(x)) for x in s):
        raise MechanismError("FUNCTION: its releases are too large to score (a projection overflowed)")
    bound = _bound_from_halves(s[0], s[1], s[2], s[3], delta, level, method, 1)
    power = audit_power(epsilon, trials, delta, level, method, share=0.5)
    if bound.epsilon_lb > epsilon:
        verdict = "violated"
    else:
        verdict = "holds" if power.sees else "inconclusive"
    return {"verdict": verdict, "epsilon_lb": bound.epsilon_lb, "epsilon_claimed": epsilon, "delta": delta,
            "method": method, "assumes": bound.assumes, "trials": trials, "seed": seed, "level": level,
            "mu_lb": bound.mu_lb, "release_size": int(first.size), "score": score, "threshold": bound.threshold,
            "direction": bound.direction, "fpr_hi": bound.fpr_hi, "fnr_hi": bound.fnr_hi,
            "evaluation_runs": bound.trials, "detectable_epsilon": power.detectable_epsilon,
            "suggested_trials": power.suggested_trials, "power": power_text(power, "--trials", "--method gdp"),
            "seconds": time.perf_counter() - t0}


# ======================================================================================
# Audits of the suite's own mechanisms (claims `<paper>.audit.<mechanism>`)
# ======================================================================================
AUDIT_DELTA = 1e-5
AUDIT_EPSILON = 4.0  # the nominal ε the mechanisms are calibrated for (PAGAN line 6: z = √log(1/δ)/ε)
# 'holds' for an audit means "no leak found"; an audit can show a leak, never its absence
_QUICK_CAVEAT = ("; quick budget: no leak found at this sample size — an audit can only show leaks, and the full "
                 "budget's 10× runs can find one this run misses")
#: an audit that finds no leak says 'holds' only when it can see most of the claimed ε: its best audited lower
#: bound reaches this fraction of the accountant's ε (below it, a leak of up to 1/AUDIT_POWER × would pass unseen)
AUDIT_POWER = 0.5


def audit_level(tests: int) -> float:
    """The level of each of a claim's ``tests`` audited bounds: 1 − α with α the ledger's per-test level
    (verify.decide: Bonferroni over every statistical test of the ledger).  Spends them from the claim's share.

    Parameters
    ----------
    tests : int
        Number of audited bounds the claim computes.

    Returns
    -------
    float
        1 − :func:`verify.decide.spend` (``tests``).
    """

    return 1.0 - decide.spend(tests)


def _nan_fields(rows, labels) -> list[str]:
    return [f"{key} of {lab}" for lab, r in zip(labels, rows) for key, val in r.items()
            if isinstance(val, (float, np.floating)) and math.isnan(val)]


def _ratio(lb: float, acct: float) -> float:
    return lb / acct if acct != 0 else (math.inf if lb > 0 else 0.0)


def _row_power(row: dict, trials: int, level: float, delta: float) -> AuditPower | None:
    """The power of one audited row (its method, level and thresholds when it records them), against its
    accountant's ε; None when that ε is not positive and finite."""
    acc = float(row["accountant_epsilon"])
    if not (math.isfinite(acc) and acc > 0):
        return None
    method = "gdp" if str(row.get("audit_method", "")).startswith("gdp") else "clopper_pearson"
    return audit_power(acc, trials, delta, float(row.get("audit_level", level)), method,
                       int(row.get("audit_thresholds_tested", 1)))


def claim_method(sampling_rate: float) -> str:
    """The estimator an audit row uses against its accountant: ``"gdp"`` when the accountant's claim is a
    composition of Gaussian mechanisms without subsampling (sampling rate 1: the claim *is* μ-GDP, so a μ lower
    bound above the claimed μ refutes it whatever the mechanism's curve), ``"clopper_pearson"`` (assumption-free)
    for a subsampled mechanism, whose trade-off curve is not Gaussian and whose GDP conversion could overstate ε.

    Parameters
    ----------
    sampling_rate : float
        The mechanism's sampling rate (1 for no subsampling).

    Returns
    -------
    str
        "gdp" when ``sampling_rate`` ≥ 1, else "clopper_pearson".
    """
    return "gdp" if sampling_rate >= 1.0 else "clopper_pearson"


def audit_outcome(figure: str, title: str, rows, labels, *, trials: int, level: float, budget: str, family: str,
                  series=(("audited lower bound", "audit_epsilon_lb"),), figures: dict | None = None,
                  delta: float = AUDIT_DELTA):
    """The claim Outcome of an audit from its rows (one per configuration, or per configuration and score).

    Each row holds ``audit_epsilon_lb`` (a lower bound on ε valid at ``level``) and ``accountant_epsilon``;
    ``labels[k]`` names row k in the evidence and on the figure's x axis.  ``family`` completes "Bonferroni
    over …" (e.g. "the 10 adadps audit tests"); ``series`` are the (label, row key) of the audited bounds drawn
    beside the accountant's ε; ``figures`` are extra numbers.  Verdict: ``inconclusive`` when any number in a
    row is NaN (the evidence names which); ``violated`` when some audited lower bound exceeds its accountant ε
    (the first such row is the counterexample); else ``holds`` — with :data:`_QUICK_CAVEAT` at the quick budget,
    since an audit can only show leaks.

    Parameters
    ----------
    figure : str
        The figure's name.
    title : str
        The figure's title.
    rows : iterable of dict
        One per configuration, with ``audit_epsilon_lb`` and ``accountant_epsilon`` (and optionally
        ``audit_method``).
    labels : iterable of str
        One per row.
    trials : int
        Runs per dataset behind each bound.
    level : float
        Confidence of each audited bound.
    budget : str
        "quick" or "full".
    family : str
        See above.
    series : sequence of (str, str), optional
        See above.
    figures : dict or None, optional
        See above.
    delta : float, optional
        The δ of the audit (shown on the figure).

    Returns
    -------
    verify.registry.Outcome
        The verdict (also ``inconclusive`` when no leak is found but the best audited bound is below
        :data:`AUDIT_POWER` of its accountant ε, or some row cannot see a leak of :data:`POWER_FACTOR` × its
        accountant ε: :func:`audit_power` at the row's method, level and ``trials``), the evidence, its summary
        (the outcome and the audit's settings) and points (one per row: its label, audited bound, method when
        given, accountant ε, detectable ε and verdict), the numbers, the counterexample, one figure and one
        decision per row.

    Raises
    ------
    InvalidParameter
        When there are no rows or not one label per row.
    """

    rows, labels = list(rows), list(labels)
    if not rows or len(rows) != len(labels):
        raise InvalidParameter("labels", f"one per row, for at least one row ({len(rows)} rows)",
                               f"{len(labels)} labels")

    nans = _nan_fields(rows, labels)
    broken = [] if nans else [r for r in rows if r["audit_epsilon_lb"] > r["accountant_epsilon"]]
    power = max(_ratio(r["audit_epsilon_lb"], r["accountant_epsilon"]) for r in rows)
    weak = not nans and not broken and not power >= AUDIT_POWER
    powers = [None if nans else _row_power(r, trials, level, delta) for r in rows]
    unseen = [(lab, p) for lab, p in zip(labels, powers) if p is not None and not p.sees]
    blind = not nans and not broken and not weak and bool(unseen)
    verdict = "inconclusive" if nans or weak or blind else ("violated" if broken else "holds")
    alpha = 1.0 - level
    ctrl = decide.Control(f"audited lower bound on ε vs dp-accounting's ε ({len(rows)} bounds); holds needs the "
                          f"best bound ≥ {AUDIT_POWER} of ε and every bound able to see a leak of {POWER_FACTOR:g} × "
                          "its ε", alpha, decide.family_text(), None, None)
    decisions = []
    for lab, r, p in zip(labels, rows, powers):
        lb, acc = r["audit_epsilon_lb"], r["accountant_epsilon"]
        sees = "" if p is None else f"; {power_text(p)}"
        if lb > acc:
            v, why = decide.Verdict.VIOLATED, f"{lab}: audited ε ≥ {lb:.3f} > accountant {acc:.3f} (a leak)"
        elif weak or nans:
            v, why = decide.Verdict.INCONCLUSIVE, (f"{lab}: audited ε ≥ {lb:.3f} vs accountant {acc:.3f}; the audit "
                                                   "sees "
                                                   f"at best {power:.2f} of ε (< {AUDIT_POWER}): it could not detect a "
                                                   "leak of that size — a stronger score or per-step observation would "
                                                   "decide")
        elif p is not None and not p.sees:
            v, why = decide.Verdict.INCONCLUSIVE, f"{lab}: audited ε ≥ {lb:.3f} vs accountant {acc:.3f}{sees}"
        else:
            v, why = decide.Verdict.HOLDS, f"{lab}: audited ε ≥ {lb:.3f} ≤ accountant {acc:.3f}{sees}"
        decisions.append(decide.Decision(v, ctrl, lb, acc, lb, why))
    listing = "; ".join(f"{lab}: audited ε ≥ {r['audit_epsilon_lb']:.3f}"
                        + (f" ({r['audit_method']})" if r.get("audit_method") else "")
                        + f" vs accountant {r['accountant_epsilon']:.3f}" for lab, r in zip(labels, rows))
    head = f"NaN in {', '.join(nans)}: the audit cannot decide; " if nans else ("LEAKS: " if broken else "")
    if weak:
        head = (f"no leak found, but the audit sees at best {power:.2f} of the accountant's ε (< {AUDIT_POWER}): it "
                "cannot show a leak of that size; ")
    elif blind:
        head = (f"no leak found, but {len(unseen)} of {len(rows)} bounds cannot see a leak of {POWER_FACTOR:g} × the "
                "accountant's ε (" + "; ".join(f"{lab}: {power_text(p)}" for lab, p in unseen) + "); ")
    settings = f"({trials} runs per dataset, a quarter for the threshold; one-sided {level:.4%} lower bounds"
    caveat = _QUICK_CAVEAT if verdict == "holds" and budget == "quick" else ""
    evidence = f"{head}{listing} {settings}, {decide.family_text()}){caveat}"
    settings += ")"  # the summary leaves the family to the decisions, which name it
    if nans:
        summary = f"NaN in {', '.join(nans)}: the audit cannot decide {settings}"
    elif broken:
        summary = (f"LEAKS: the audited lower bound on ε exceeds dp-accounting's ε in {len(broken)} of {len(rows)} "
                   f"configurations {settings}")
    elif weak:
        summary = f"{head.rstrip('; ')} {settings}"
    elif blind:
        summary = (f"no leak found, but {len(unseen)} of {len(rows)} bounds cannot see a leak of {POWER_FACTOR:g} × "
                   "the accountant's ε (the points give each bound's detectable ε and the runs per dataset that "
                   f"would see one) {settings}")
    else:
        which = ("the audited lower bound on ε is" if len(rows) == 1
                 else f"all {len(rows)} audited lower bounds on ε are")
        summary = f"no leak: {which} at most dp-accounting's ε, the best at {power:.2f} of it {settings}"
    summary += caveat
    points = [{"configuration": str(lab), "audited ε ≥": r["audit_epsilon_lb"],
               **({"method": str(r["audit_method"])} if r.get("audit_method") else {}),
               "accountant ε": r["accountant_epsilon"],
               **({} if p is None else {"detectable ε": p.detectable_epsilon,
                                        f"runs to see {POWER_FACTOR:g}×": p.suggested_trials}),
               "verdict": str(d.verdict)}
              for lab, r, d, p in zip(labels, rows, decisions, powers)]
    out_figures = {"trials_per_dataset": trials, "level": level, **(figures or {}),
                   "max_audit_over_accountant": max(_ratio(r["audit_epsilon_lb"], r["accountant_epsilon"])
                                                    for r in rows)}
    for k, (r, p) in enumerate(zip(rows, powers)):
        out_figures[f"accountant_epsilon_{k}"] = r["accountant_epsilon"]
        out_figures[f"audit_epsilon_lb_{k}"] = r["audit_epsilon_lb"]
        if p is not None and math.isfinite(p.detectable_epsilon):  # +inf (no leak visible) is in the points
            out_figures[f"detectable_epsilon_{k}"] = p.detectable_epsilon
    xs = list(range(len(rows)))
    delta_text = f"{delta:.0e}".replace("e-0", "e-")
    leaks = [k for k, r in enumerate(rows) if r["audit_epsilon_lb"] > r["accountant_epsilon"]]
    fig = Figure(figure, title, [Panel(
        f"audited lower bound vs accountant ε (δ = {delta_text})", "configuration", "ε",
        [Series("accountant ε", xs, [r["accountant_epsilon"] for r in rows], style="points")]
        + [Series(name, xs, [r[key] for r in rows], style="points") for name, key in series]
        + ([Series("leak: audited > accountant", leaks, [rows[k]["audit_epsilon_lb"] for k in leaks],
                   style="violation")] if leaks else []),
        categories=list(labels))])
    return Outcome(verdict=verdict, evidence=evidence, numbers=out_figures,
                   counterexample=broken[0] if broken else None, plots=[fig], decisions=decisions,
                   summary=summary, points=points)

