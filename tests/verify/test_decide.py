"""The decision layer alone (no kernels): calibration, power, margins, the family's bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest

from verify import decide as D
from verify import registry
from verify.registry import Verdict


@pytest.mark.parametrize("shape", ["exponential", "lognormal", "normal"])
@pytest.mark.parametrize("runs,points", [(4, 3), (12, 5)])
def test_flat_ratio_false_alarm_rate_at_most_nominal(shape, runs, points):
    """2000 replications of an exactly flat ratio: the one-sided 5% test alarms at most 5% of the time
    (the Clopper–Pearson upper bound of the observed rate is below the nominal level)."""
    r = D.simulate_flat_rate(replications=2000, points=points, runs=runs, alpha=0.05, shape=shape, seed=11)
    assert r["rate_hi"] <= 0.05, r


def test_flat_ratio_false_alarm_rate_small_level():
    """At a level nearer the ledger's Bonferroni levels (1%), 10000 replications of a skewed flat ratio."""
    r = D.simulate_flat_rate(replications=10000, points=3, runs=4, alpha=0.01, shape="lognormal", seed=3)
    assert r["rate_hi"] <= 0.01, r


def _growing(slope, runs=12, points=4, seed=0):
    rng = np.random.default_rng(seed)
    x = np.logspace(0, 2, points)
    return x, [x_i**slope * rng.exponential(1.0, runs) for x_i in x]


def test_rate_rule_refutes_clear_growth_over_two_decades():
    x, s = _growing(1.0)
    d = D.rate(x, s, axis="n", asymptotic=[True] * len(x), criterion="all points")
    assert d.verdict == Verdict.VIOLATED and d.details["decades"] >= 1 and "grows" in d.reason


def test_rate_rule_holds_on_a_decreasing_ratio():
    x, s = _growing(-0.5)
    d = D.rate(x, s, axis="n", asymptotic=[True] * len(x), criterion="all points")
    assert d.verdict == Verdict.HOLDS


def test_rate_rule_needs_a_decade_to_refute():
    """The same growth over a third of a decade is not a refutation (the window is too short)."""
    rng = np.random.default_rng(1)
    x = np.array([100.0, 150.0, 215.0])
    s = [x_i**2.0 * rng.exponential(1.0, 400) for x_i in x]
    d = D.rate(x, s, axis="d", asymptotic=[True] * 3, criterion="all points")
    assert d.verdict == Verdict.INCONCLUSIVE and "decade" in d.reason and "--budget full" in d.reason


def test_rate_rule_uses_only_the_asymptotic_window():
    x, s = _growing(1.0)
    d = D.rate(x, s, axis="n", asymptotic=[True, False, False, False], criterion="bound ≤ 0.1 trivial")
    assert d.verdict == Verdict.INCONCLUSIVE and "1 asymptotic point" in d.reason


def test_better_near_tie_is_inconclusive_and_clear_cases_decide():
    rng = np.random.default_rng(0)
    b = 1.0 + 0.05 * rng.standard_normal(10)
    a = b[::-1] + 0.001  # the same spread, means 0.001 apart: a near-tie inside the margin
    assert D.better(a, b, what="A vs B", margin=0.05).verdict == Verdict.INCONCLUSIVE
    a, b = 1.0 + 0.01 * rng.standard_normal(30), 1.0 + 0.01 * rng.standard_normal(30)
    assert D.better(a - 0.1, b, what="A vs B", margin=0.05).verdict == Verdict.HOLDS
    assert D.better(a + 0.5, b, what="A vs B", margin=0.05).verdict == Verdict.VIOLATED


def test_equivalence_three_ways():
    assert D.equivalent(D.Estimate(0.0, 0.01, 30), what="gap", margin=0.1).verdict == Verdict.HOLDS
    assert D.equivalent(D.Estimate(1.0, 0.01, 30), what="gap", margin=0.1).verdict == Verdict.VIOLATED
    assert D.equivalent(D.Estimate(0.1, 0.05, 30), what="gap", margin=0.1).verdict == Verdict.INCONCLUSIVE


def test_violated_uses_the_family_corrected_level():
    """An estimate 3 standard errors above the limit holds no refutation at the ledger's corrected level
    (it would at an uncorrected 5%)."""
    est = D.Estimate(3.0, 1.0, np.inf)
    d = D.upper_bounded(est, 0.0, test="toy")
    assert D.alpha_per_test() < 0.05 / 10
    assert d.verdict == Verdict.INCONCLUSIVE
    assert d.control.alpha == pytest.approx(D.FAMILY_ALPHA / D.family_size())
    assert "Bonferroni" in d.control.family


def test_family_is_the_whole_ledger():
    reg = registry.load_all()
    assert D.family_size() == max(1, sum(c.tests for c in reg.values()))
    assert all(c.tests >= 0 for c in reg.values())


def test_a_claim_cannot_make_more_tests_than_it_declares():
    est = D.Estimate(0.0, 1.0, 10)
    with D.claim_tests("toy.claim", 1):
        D.upper_bounded(est, 1.0, test="first")
        with pytest.raises(RuntimeError, match="more statistical tests than it declares"):
            D.upper_bounded(est, 1.0, test="second")


def test_log_slope_estimate_matches_the_ols_slope_of_log_means():
    x = np.array([1.0, 10.0, 100.0])
    s = [np.array([1.0, 3.0]), np.array([2.0, 6.0]), np.array([4.0, 12.0])]
    est = D.log_slope_estimate(x, s)
    assert est.value == pytest.approx(np.log(2) / np.log(10))
    assert est.se > 0 and est.df > 0


def test_an_undecided_rate_says_what_would_decide_it_at_each_budget():
    xs = [10.0, 20.0, 40.0]  # less than a decade: the rate can hold but not be violated
    ys = [np.full(4, 1.0) * x ** 0.5 for x in xs]  # growing: not holds either
    with D.claim_tests("toy.quick", 1, "quick"):
        quick = D.rate(xs, ys, axis="n", asymptotic=[True] * 3, criterion="all")
    with D.claim_tests("toy.full", 1, "full"):
        full = D.rate(xs, ys, axis="n", asymptotic=[True] * 3, criterion="all")
    assert quick.verdict == full.verdict == "inconclusive"
    assert "(--budget full) would decide" in quick.reason
    assert "beyond the full budget's would decide" in full.reason and "--budget full" not in full.reason
