"""The statistics helpers and the GDP curve functions refuse invalid parameters with one ValueError naming the
parameter and the accepted range, instead of returning NaN or a number that means nothing."""

import math

import numpy as np
import pytest

from dpvalidate import InvalidParameter
from verify import stats
from verify.audit import gdp_delta, gdp_epsilon

NAN = float("nan")

CASES = [
    # (call, the parameter named, what the message says is accepted)
    (lambda: stats.clopper_pearson(5, 3), "k", "at most the trials n = 3"),  # was 1.667 [nan, nan]
    (lambda: stats.clopper_pearson(-1, 10), "k", ">= 0"),
    (lambda: stats.clopper_pearson(0, -4), "n", ">= 0"),
    (lambda: stats.clopper_pearson(1.5, 3), "k", "an integer"),
    (lambda: stats.clopper_pearson(NAN, 3), "k", "an integer"),
    (lambda: stats.clopper_pearson(1, 3, level=1.5), "level", "in the open interval (0, 1)"),
    (lambda: stats.clopper_pearson(1, 3, level=0.0), "level", "in the open interval (0, 1)"),
    (lambda: stats.clopper_pearson(1, 3, level=NAN), "level", "not NaN"),
    (lambda: stats.mean_ci([1.0, 2.0, 3.0], level=2.0), "level", "in the open interval (0, 1)"),
    (lambda: stats.median_ci([1.0, 2.0, 3.0, 4.0], level=-0.5), "level", "in the open interval (0, 1)"),
    (lambda: stats.median_bands(np.ones(5)), "samples", "a 2-d array"),
    (lambda: stats.bootstrap_ci(np.mean, [1.0, 2.0], n_boot=0), "n_boot", "an integer in [1, "),
    (lambda: stats.bootstrap_ci(np.mean, []), "samples", "non-empty"),
    (lambda: stats.bootstrap_ci(np.mean, [1.0, 2.0], seed=-1), "seed", ">= 0"),
    (lambda: stats.median_difference([1.0, 2.0], [3.0, 4.0], level=1.0), "level", "in the open interval (0, 1)"),
    (lambda: stats.loglog_slope([1.0, -2.0, 4.0], [1.0, 2.0, 3.0]), "x", "positive and finite"),
    (lambda: stats.loglog_slope([1.0, 2.0, NAN], [1.0, 2.0, 3.0]), "x", "positive and finite"),
    (lambda: stats.loglog_slope([1.0, 2.0, 4.0], [1.0, 2.0]), "x, y", "one length"),
    (lambda: stats.ratio_bounded([0.0, 2.0, 4.0], [1.0, 1.0, 1.0]), "x", "positive and finite"),
    (lambda: stats.weighted_loglog_slope([0.0, 2.0], [1.0, 2.0], [0.1, 0.1]), "x", "positive and finite"),
    (lambda: stats.weighted_loglog_slope([1.0, 2.0], [1.0, 2.0], [0.1]), "y_se", "one standard error per point"),
    (lambda: gdp_delta(1.0, -0.5), "mu", ">= 0 and finite"),  # was 0: a negative μ is no GDP parameter
    (lambda: gdp_delta(1.0, NAN), "mu", "not NaN"),  # was NaN
    (lambda: gdp_delta(1.0, math.inf), "mu", ">= 0 and finite"),
    (lambda: gdp_delta(NAN, 1.0), "epsilon", "not NaN"),  # was NaN
    (lambda: gdp_delta(-1.0, 1.0), "epsilon", ">= 0"),
    (lambda: gdp_epsilon(1.0, 0.0), "delta", "in the open interval (0, 1)"),  # was 64.0
    (lambda: gdp_epsilon(1.0, 1.5), "delta", "in the open interval (0, 1)"),  # was 0
    (lambda: gdp_epsilon(-1.0, 1e-5), "mu", ">= 0 and finite"),
    (lambda: gdp_epsilon(NAN, 0.1), "mu", "not NaN"),  # was a ValueError from brentq, naming nothing
]


@pytest.mark.parametrize("call, name, accepted", CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_invalid_parameters_are_refused_naming_them(call, name, accepted):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert info.value.name == name
    assert accepted in str(info.value)
    assert str(info.value).startswith(f"{name} must be ")


def test_valid_parameters_give_the_same_numbers():
    """The checks refuse only what was invalid: the edges that were valid keep their values."""
    assert stats.clopper_pearson(0, 10).lo == 0.0 and stats.clopper_pearson(10, 10).hi == 1.0
    ci = stats.clopper_pearson(3, 10)
    assert (ci.lo, ci.hi) == pytest.approx((0.0667395, 0.6524529), abs=1e-6)
    assert math.isnan(stats.clopper_pearson(0, 0).estimate)  # n = 0: documented, the interval is [0, 1]
    assert gdp_delta(1.0, 0.0) == 0.0 and gdp_epsilon(0.0, 1e-5) == 0.0
    assert gdp_delta(math.inf, 1.0) == 0.0
    assert gdp_epsilon(1.0, 1e-5) == pytest.approx(4.377178095681235, rel=1e-9)
    assert stats.loglog_slope([1.0, 2.0, 4.0], [1.0, 4.0, 16.0]).slope.estimate == pytest.approx(2.0)


def test_nan_in_a_measured_sample_gives_nan_not_a_refusal():
    """Measured values are taken as they are: a diverged run's NaN reaches the interval (and no verdict)."""
    assert math.isnan(stats.mean_ci([1.0, NAN, 2.0]).estimate)
    assert math.isnan(stats.loglog_slope([1.0, 2.0, 4.0], [1.0, NAN, 3.0]).slope.estimate)
