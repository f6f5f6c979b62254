"""Claims of ``adp`` — Wu et al., ADP-SGD: noise adapted to the stepsize (2021).

Each claim is one decorated function ``check(budget, seed) -> Outcome``; the formulas it tests
live in :mod:`theory.adp`.  (Issue 7 in progress: the kernels, the privacy claims and the
measured-utility claims are not written yet.)
"""

from __future__ import annotations

import numpy as np

from theory import adp as ta
from verify.exact import EPS, adversarial_search, edge_values, random_search
from verify.registry import Figure, Outcome, Panel, Series, claim


def _budget(budget: str, quick, full):
    if budget not in ("quick", "full"):
        raise ValueError(f"budget must be quick or full (got {budget!r})")
    return quick if budget == "quick" else full


def relative_tolerance(T: int) -> float:
    """Rounding bound for comparing two M values of length-T sequences, relative to their size.

    Each M is a product of two sums of T positive terms (relative error ≤ (T + 4)u each, u the unit
    roundoff, recursive-summation bound) and a quotient; a difference of two such is within 4(T + 4)u.
    """
    return 4.0 * (T + 4) * EPS


@claim(
    "adp.remark4.1",
    kind="exact",
    statement="""Remark 4.1: for any positive {b_t} and {α_t}, M({α},{b}) = Σ(α_t/b_t)²·Σ1/α_t² ≥ M_adp = (Σ1/b_t)²,
    with equality at α_t² = b_t; hence M_dp/M_adp = T·Σ1/b_t²/(Σ1/b_t)² ≥ 1 (Cauchy–Schwarz).""",
    theory=("theory.adp.m_value", "theory.adp.m_adp", "theory.adp.m_dp", "theory.adp.m_ratio"),
    notes="Exact: seeded search over sequences with exponents drawn from edge values in [-6, 6] (α_t, b_t = 10^u), "
    "lengths 1..200, plus L-BFGS-B over log α for fixed b; the equality case α² = b is evaluated on every b drawn. "
    "The tolerance is the rounding bound of theory's sums (verify.adp.relative_tolerance).",
)
def remark4_1(budget: str, seed: int) -> Outcome:
    examples, starts, tmax = _budget(budget, (400, 6, 60), (4000, 30, 200))

    def pair(rng):
        k = int(rng.integers(1, tmax + 1))
        return 10.0 ** edge_values(rng, k, -6.0, 6.0), 10.0 ** edge_values(rng, k, -6.0, 6.0)

    eq_dev, ratio_min = [0.0], [np.inf]

    def slack(p) -> float:
        alpha, b = p
        tol = relative_tolerance(b.size)
        m, madp = ta.m_value(alpha, b), ta.m_adp(b)
        eq_dev[0] = max(eq_dev[0], abs(ta.m_value(np.sqrt(b), b) - madp) / madp / tol)
        ratio_min[0] = min(ratio_min[0], (ta.m_ratio(b) - 1.0) / tol)
        return (m - madp) / m / tol  # in units of the rounding bound: ≥ −1 means "holds"

    hw = random_search(slack, pair, examples, seed)
    adv = []
    for k, dim in enumerate((2, 5, 20)):
        b = 10.0 ** np.random.default_rng(seed + k).uniform(-3, 3, dim)
        adv.append(adversarial_search(lambda u, b=b: slack((10.0 ** u, b)), dim, (-6.0, 6.0), starts, seed + 7 + k))
    worst = min([hw] + adv, key=lambda w: w.slack)
    holds = worst.slack >= -1.0 and eq_dev[0] <= 1.0 and ratio_min[0] >= -1.0
    counter = None
    if not holds:
        alpha, b = worst.example if isinstance(worst.example, tuple) else (10.0 ** worst.example, None)
        counter = {"alpha": np.asarray(alpha).tolist(), "b": None if b is None else np.asarray(b).tolist(),
                   "slack_in_rounding_units": worst.slack}
    n_eval = hw.evaluated + sum(w.evaluated for w in adv)
    evidence = (f"{n_eval} evaluations: min (M − M_adp)/M = {worst.slack:.3g} rounding bounds (≥ −1 holds); "
                f"|M(√b) − M_adp|/M_adp ≤ {eq_dev[0]:.3g} rounding bounds; min (M_dp/M_adp − 1) = {ratio_min[0]:.3g} "
                "rounding bounds")
    Ts = np.unique(np.logspace(0, 6, 13).astype(int))
    ratios = [ta.m_ratio(ta.polynomial_schedule(int(k), 1.0, 1.0)) for k in Ts]
    fig = Figure("remark4_1", "adp Remark 4.1: M_dp/M_adp ≥ 1", [Panel(
        "b_t = √(1 + t)", "T", "M_dp / M_adp", [Series("exact ratio", Ts, ratios),
                                                 Series("Cauchy–Schwarz floor 1", Ts, np.ones(Ts.size), style="dashed")],
        xscale="log")])
    figures = {"evaluations": n_eval, "min_slack_rounding_units": worst.slack,
               "max_equality_deviation_rounding_units": eq_dev[0], "min_ratio_minus_1_rounding_units": ratio_min[0]}
    return Outcome("holds" if holds else "violated", evidence, figures, counter, [fig])
