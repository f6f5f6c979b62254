"""An audit's power (verify.audit.audit_power): the smallest leak it could have seen, and what would see more.

The detectable ε is computed on an ideal Gaussian mechanism (median error counts at the best threshold); these
tests check it against the estimator it describes, run on exact Gaussian scores.
"""

import math

import numpy as np
import pytest

from dpvalidate import InvalidParameter
from verify import audit
from verify.audit import (
    POWER_FACTOR,
    audit_power,
    detectable_epsilon,
    epsilon_lower_bound,
    evaluation_runs,
    gdp_epsilon,
    reference_mu,
)
from verify.stats import LEVEL

DELTA = 1e-5


@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_reference_mu_is_the_gaussian_mechanism_of_that_epsilon(eps):
    assert gdp_epsilon(reference_mu(eps, DELTA), DELTA) == pytest.approx(eps, rel=1e-8)


def test_detectable_epsilon_falls_with_runs_and_the_gdp_method_sees_more():
    for method in audit.METHODS:
        seen = [detectable_epsilon(2.0, runs, DELTA, LEVEL, method) for runs in (750, 7500, 75_000, 750_000)]
        assert all(a > b for a, b in zip(seen, seen[1:])) and seen[-1] > 2.0
    for runs in (750, 7500, 75_000):
        assert (detectable_epsilon(2.0, runs, DELTA, LEVEL, "gdp")
                < detectable_epsilon(2.0, runs, DELTA, LEVEL, "clopper_pearson"))


def test_a_clopper_pearson_audit_cannot_certify_more_than_about_log_runs():
    """With no error at all, the bound is log(1/FPR_hi) ≈ log(runs / log(1/α)): 37 500 runs at the ledger's level
    certify at most ≈ 8.4, so no leak above a claim of 11.4 is visible and no trial count up to 10⁸ helps."""
    power = audit_power(11.4, 50_000, DELTA, 0.99983, "clopper_pearson")
    assert math.isinf(power.detectable_epsilon) and not power.sees and power.suggested_trials is None
    assert "no trial count up to 1e+08" in audit.power_text(power)


@pytest.mark.parametrize("method, trials, claim", [("clopper_pearson", 10_000, 2.0), ("gdp", 10_000, 2.0),
                                                   ("gdp", 2_000, 4.0), ("clopper_pearson", 40_000, 1.0)])
def test_the_estimator_rarely_flags_below_the_detectable_epsilon_and_always_well_above_it(method, trials, claim):
    """The real test (threshold chosen on a quarter of the scores) on exact Gaussian scores, 20 seeds: measured
    0–3 of 20 flagged at 0.85 × the detectable ε, 5–9 at it, 20 at 1.5 ×.  Asserted: at most 4 below (a rate of
    5 % would exceed 4 of 20 with probability 0.3 %), at least 16 above."""
    det = detectable_epsilon(claim, evaluation_runs(trials), DELTA, LEVEL, method)

    def flagged(eps):
        mu, hits = reference_mu(eps, DELTA), 0
        for s in range(20):
            rng = np.random.default_rng([s, 7])
            a, b = rng.standard_normal(trials), rng.standard_normal(trials) + mu
            hits += epsilon_lower_bound(a, b, DELTA, LEVEL, seed=s, method=method).epsilon_lb > claim
        return hits

    assert flagged(0.85 * det) <= 4
    assert flagged(1.5 * det) >= 16


def test_the_suggested_trials_see_the_leak_and_fewer_do_not():
    power = audit_power(2.0, 10_000, DELTA, LEVEL, "clopper_pearson", share=0.5)
    n = power.suggested_trials
    assert not power.sees and n > 10_000
    assert audit_power(2.0, n, DELTA, LEVEL, "clopper_pearson", share=0.5).sees
    assert not audit_power(2.0, int(n * 0.9), DELTA, LEVEL, "clopper_pearson", share=0.5).sees
    assert audit.power_text(power, "--trials", "--method gdp") == (
        f"cannot see leaks below ε = {power.detectable_epsilon:.3g}; to see 1.5 × the claimed 2: --trials {n} or "
        "--method gdp (for a Gaussian mechanism)")


def test_audit_power_refuses_bad_input():
    with pytest.raises(InvalidParameter, match="claimed"):
        audit_power(0.0, 1000, DELTA, LEVEL)
    with pytest.raises(InvalidParameter, match="method"):
        audit_power(1.0, 1000, DELTA, LEVEL, "exact")
    with pytest.raises(InvalidParameter, match="delta"):
        audit_power(1.0, 1000, 0.0, LEVEL)


def test_the_command_line_help_states_the_power_factor():
    """The audit command's help (on the light path, without verify.audit) says 1.5 ×, which is POWER_FACTOR."""
    import inspect

    from verify import cli

    assert POWER_FACTOR == 1.5 and "1.5 x --epsilon" in inspect.getsource(cli._add_audit_parser)


def test_an_audit_of_a_gaussian_mechanism_states_its_power():
    """The honest Gaussian mechanism of ε = 2: the default (Clopper–Pearson, 10⁴ runs) cannot see a leak of 3
    and says so (inconclusive); the GDP method can, and holds.  Half the noise is a leak both report."""
    mu = reference_mu(2.0, DELTA)

    def honest(neighbour, rng):
        return neighbour + rng.standard_normal() / mu

    def half_noise(neighbour, rng):
        return neighbour + 0.5 * rng.standard_normal() / mu

    cp = audit.audit_mechanism(honest, 2.0, DELTA)
    assert cp["verdict"] == "inconclusive" and cp["detectable_epsilon"] > 3.0
    assert cp["power"].startswith("cannot see leaks below ε = ")
    gdp = audit.audit_mechanism(honest, 2.0, DELTA, method="gdp")
    assert gdp["verdict"] == "holds" and 2.0 < gdp["detectable_epsilon"] <= 3.0
    assert gdp["power"].startswith("could see leaks from ε ≈ ")
    for method in audit.METHODS:
        assert audit.audit_mechanism(half_noise, 2.0, DELTA, method=method)["verdict"] == "violated"
