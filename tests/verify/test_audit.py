"""The audit's lower bound on ε: valid (below the true ε) and informative (close to it with enough samples)."""

import numpy as np
import pytest

from verify.audit import SELECTION_FRACTION, epsilon_lower_bound
from verify.privacy import InvalidParameter, gaussian_epsilon_interval


def _gauss(mu, n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n), mu + rng.standard_normal(n)


def test_lower_bound_is_valid_for_the_gaussian_mechanism():
    """N(0,1) vs N(1/z,1) is exactly the Gaussian mechanism with multiplier z: the bound stays below its ε.

    Each bound exceeds the true ε with probability ≤ 5%; over 20 seeds more than 4 exceedances has
    probability < 1.6%, so the assertion fails by chance rarely (and, the seeds being fixed, never flips).
    """
    z, delta = 0.5, 1e-5
    true_lo, true_hi = gaussian_epsilon_interval(z, delta)
    over = [epsilon_lower_bound(*_gauss(1 / z, 4000, s), delta, seed=s).epsilon_lb > true_hi for s in range(20)]
    assert sum(over) <= 4


def test_lower_bound_is_informative_with_many_samples():
    z, delta = 0.5, 1e-5
    true_lo, _ = gaussian_epsilon_interval(z, delta)
    b = epsilon_lower_bound(*_gauss(1 / z, 200_000, 1), delta)
    assert 0.5 * true_lo < b.epsilon_lb < true_lo  # a threshold test at 10⁵ samples recovers a good share of ε
    # the errors are counted on the scores the threshold was not chosen on: all but the selection share
    assert b.direction == "above" and b.trials == 200_000 - int(200_000 * SELECTION_FRACTION)


def test_identical_distributions_give_almost_nothing():
    rng = np.random.default_rng(0)
    b = epsilon_lower_bound(rng.standard_normal(20000), rng.standard_normal(20000), 1e-5)
    assert b.epsilon_lb < 0.1


def test_bad_scores_are_refused():
    with pytest.raises(ValueError, match="without"):  # the message names the parameter
        epsilon_lower_bound([0.0, np.nan, 1.0, 2.0], [1.0, 2.0, 3.0, 4.0], 1e-5)
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound(np.zeros(10), np.ones(10), 1.5)


# -- the Gaussian-DP estimator (method="gdp") ------------------------------------------------------
from verify.audit import gdp_epsilon  # noqa: E402


def _mu_for_epsilon(eps, delta):
    from scipy.optimize import brentq

    return brentq(lambda m: gdp_epsilon(m, delta) - eps, 0.05, 20.0, xtol=1e-12)


def test_gdp_curve_is_the_gaussian_mechanism_of_dp_accounting():
    """μ-GDP with μ = 1/z is the Gaussian mechanism with noise multiplier z: the closed form solved for ε lies in
    dp-accounting's interval for it."""
    for z in (0.5, 1.0, 3.0):
        lo, hi = gaussian_epsilon_interval(z, 1e-5)
        assert lo - 1e-6 <= gdp_epsilon(1 / z, 1e-5) <= hi + 1e-6
    assert gdp_epsilon(0.0, 1e-5) == 0.0 and gdp_epsilon(1e-3, 0.5) == 0.0  # δ(0) ≤ δ: nothing to pay


def test_gdp_bound_is_tight_on_exact_gaussian_scores():
    """N(0,1) vs N(μ,1) with the exact ε at δ = 1e-5 equal to 4, 10⁵ samples per side: ≥ 0.9·4, and below 4
    (a valid lower bound of an exactly Gaussian trade-off); the assumption-free bound is recorded alongside."""
    mu = _mu_for_epsilon(4.0, 1e-5)
    g = epsilon_lower_bound(*_gauss(mu, 100_000, 0), 1e-5, method="gdp")
    cp = epsilon_lower_bound(*_gauss(mu, 100_000, 0), 1e-5)
    assert 0.9 * 4.0 <= g.epsilon_lb <= 4.0 and g.mu_lb <= mu
    assert g.method == "gdp" and "Gaussian" in g.assumes and g.to_dict()["method"] == "gdp"
    assert cp.method == "clopper_pearson" and cp.mu_lb is None and cp.epsilon_lb < g.epsilon_lb


def test_gdp_bound_is_valid_on_gaussian_scores():
    """Each bound exceeds the true ε = 4 with probability ≤ 5%; over 20 seeds more than 4 exceedances has
    probability < 1.6% (the seeds being fixed, the assertion never flips)."""
    mu = _mu_for_epsilon(4.0, 1e-5)
    over = [epsilon_lower_bound(*_gauss(mu, 4000, s), 1e-5, seed=s, method="gdp").epsilon_lb > 4.0
            for s in range(20)]
    assert sum(over) <= 4


def test_gdp_bound_on_identical_distributions_is_small():
    rng = np.random.default_rng(0)
    b = epsilon_lower_bound(rng.standard_normal(100_000), rng.standard_normal(100_000), 1e-5, method="gdp")
    assert b.epsilon_lb <= 0.2


def test_gdp_bonferroni_over_several_thresholds():
    mu = _mu_for_epsilon(4.0, 1e-5)
    b = epsilon_lower_bound(*_gauss(mu, 100_000, 0), 1e-5, method="gdp", thresholds=5)
    assert b.thresholds_tested == 5 and 0.9 * 4.0 <= b.epsilon_lb <= 4.0


def test_bad_method_and_gdp_delta_are_refused():
    with pytest.raises(InvalidParameter, match="method"):
        epsilon_lower_bound(np.zeros(10), np.ones(10), 1e-5, method="exact")
    with pytest.raises(InvalidParameter, match="delta"):
        epsilon_lower_bound(np.zeros(10), np.ones(10), 0.0, method="gdp")
    with pytest.raises(InvalidParameter, match="thresholds"):
        epsilon_lower_bound(np.zeros(10), np.ones(10), 1e-5, thresholds=3)


# -- audits of the suite's own mechanisms -------------------------------------------------------
from verify import audit  # noqa: E402
from verify.papers import adp as vadp  # noqa: E402
from verify.papers import pagan as audit_pagan_pack  # noqa: E402
from verify.registry import load_all  # noqa: E402


def test_every_pagan_family_mechanism_has_an_audit_claim():
    reg = load_all()
    assert {f"pagan.audit.{m}" for m in audit_pagan_pack.PAGAN_FAMILY_AUDITS} <= set(reg)


@pytest.mark.parametrize("name", ["dp_sgd", "pagan_opt"])
def test_pagan_audit_finds_no_leak_and_its_sampled_row_cannot_see_one(name):
    """No leak at the quick budget; the n = 1 row (Gaussian-DP bound) sees leaks of 1.5× its ε, the sampled
    n = 4 row (Clopper–Pearson at 11.4) can certify no ε that large at any sample size, so the claim is
    inconclusive with the reason, not 'holds'."""
    out = audit_pagan_pack.audit_pagan_family(name, "quick", 0)
    f = out.numbers
    for k in range(len(audit_pagan_pack.PAGAN_AUDIT_CONFIGS)):
        assert 0 < f[f"audit_epsilon_lb_{k}"] <= f[f"accountant_epsilon_{k}"]
    assert f["accountant_epsilon_0"] < f["detectable_epsilon_0"] <= audit.POWER_FACTOR * f["accountant_epsilon_0"]
    assert "detectable_epsilon_1" not in f  # none: no finite ε is visible
    assert [p["detectable ε"] for p in out.points][1] == float("inf")
    assert [str(d.verdict) for d in out.decisions] == ["holds", "inconclusive"]
    assert out.verdict == "inconclusive"
    assert "cannot see a leak of any size" in out.evidence and "1 of 2 bounds cannot see" in out.summary


def test_audit_catches_a_mechanism_that_adds_a_quarter_of_its_noise():
    """Negative control: noise divided by 4 (the kind of bug an audit exists for) must be flagged."""
    out = audit_pagan_pack.audit_pagan_family("dp_sgd", "quick", 0, noise_scale=0.25)
    assert out.verdict == "violated"
    assert out.counterexample["audit_epsilon_lb"] > out.counterexample["accountant_epsilon"]


@pytest.mark.parametrize("name", audit_pagan_pack.PAGAN_FAMILY_AUDITS)
def test_audit_catches_noise_times_0_7(name):
    """Negative control at the quick budget: noise ×0.7 (true ε of the one-step configuration 7.8 vs 5.30) is
    caught by the GDP bound of the n = 1 configuration (seeds 0–2 all gave audited/accountant 1.45–1.50)."""
    out = audit_pagan_pack.audit_pagan_family(name, "quick", 0, noise_scale=0.7)
    assert out.verdict == "violated" and out.counterexample["n"] == 1


@pytest.mark.parametrize("name", ["pagan_opt", "pagan", "pasan"])
def test_audit_catches_pagan_noise_with_covariance_a_instead_of_its_inverse(name):
    """Negative control: the noise drawn with covariance ∝ A instead of A⁻¹ (mechanism option
    ``noise_geometry="direct"``).  The canary goes on the axis where the implemented noise is smallest relative
    to the clipping ellipsoid, so the audit sees the mutant's worst direction.  PAGAN-opt's A comes from public
    data; PASAN and PAGAN are audited with the anisotropic A of PAGAN_AUDIT_ELLIPSOID (with A = I, as before, the
    option changed nothing).  (DP-SGD and PDP-SGD clip in ℓ₂: no A.)"""
    out = audit_pagan_pack.audit_pagan_family(name, "quick", 0, noise_geometry="direct")
    assert out.verdict == "violated" and out.counterexample["n"] == 1
    honest = audit_pagan_pack.pagan_family_audit_task("pagan_opt", 1, 1, 1, True, 10, 0)
    assert honest["canary_axis"] == 0  # a correct kernel: every axis alike, the first is taken


def test_one_stream_trials_are_reproducible():
    a = audit_pagan_pack.pagan_family_audit_task("pasan", 4, 2, 3, True, 500, 9)
    b = audit_pagan_pack.pagan_family_audit_task("pasan", 4, 2, 3, True, 500, 9)
    assert np.array_equal(a["score"], b["score"]) and np.unique(a["score"]).size > 100


def test_adp_audits_registered_and_dp_sgd_holds():
    assert {f"adp.audit.{m}" for m in vadp.ADP_AUDITS} <= set(load_all())
    out = vadp.audit_adp("dp_sgd", "quick", 0)
    assert out.verdict == "holds" and out.numbers["max_audit_over_accountant"] <= 1.0


@pytest.mark.parametrize("name", ["adp_sgd_adaptive", "dp_sgd_adaptive"])
def test_adp_adaptive_stepsize_leaks_through_the_scale_of_its_update(name):
    """Finding (pinned): with b_{t+1}² = b_t² + max(‖∇f‖², ν) from the clean gradient (Algorithm 1, line 4) the
    released update's scale depends on the record; at n = 1, T = 1 the spread score certifies more ε than the
    Gaussian-mechanism accountant gives ADP-SGD's noise.  The GDP estimator (the accountant's claim at n = 1 is a
    Gaussian one) certifies 11.2 against 4.64 (adp_sgd_adaptive) and 5.68 (dp_sgd_adaptive) at seed 0; the
    Clopper–Pearson bound used before (4.72 for both) decided only the first."""
    out = vadp.audit_adp(name, "quick", 0)
    assert out.verdict == "violated"
    c = out.counterexample
    assert c["n"] == 1 and c["steps"] == 1 and c["score"] == "spread"
    assert c["audit_epsilon_lb"] > c["accountant_epsilon"]


def test_adp_audit_catches_under_noising():
    out = vadp.audit_adp("adp_sgd", "quick", 0, noise_scale=0.25)
    assert out.verdict == "violated" and out.counterexample["score"] == "shift"


def test_adp_audit_catches_noise_times_0_7():
    out = vadp.audit_adp("dp_sgd", "quick", 0, noise_scale=0.7)
    assert out.verdict == "violated" and out.counterexample["n"] == 1


# -- the one Outcome builder every audit claim uses ---------------------------------------------
def _rows(*pairs, method="gdp"):
    return [dict(audit_epsilon_lb=lb, accountant_epsilon=acct, extra=1.5, audit_method=method) for lb, acct in pairs]


def _outcome(rows, budget="quick", trials=20_000, **kw):
    return audit.audit_outcome("audit_x", "Privacy audit of x", rows, [f"cfg{k}" for k in range(len(rows))],
                               trials=trials, level=0.99, budget=budget, family="the 4 x audit tests", **kw)


def test_audit_outcome_that_cannot_see_a_leak_of_1_5x_is_inconclusive_with_the_runs_that_would():
    """The same bounds from a Clopper–Pearson audit of 1000 runs: it could not have seen a mechanism of 1.5× the
    accountant's ε, so 'holds' would overstate what it saw; the evidence names the runs that would see one."""
    out = _outcome(_rows((1.5, 2.0), (1.0, 4.0), method="clopper_pearson"), trials=1000)
    assert out.verdict == "inconclusive" and out.counterexample is None
    assert [str(d.verdict) for d in out.decisions] == ["inconclusive", "inconclusive"]
    assert "2 of 2 bounds cannot see a leak of 1.5 × the accountant's ε" in out.summary
    power = audit.audit_power(2.0, 1000, audit.AUDIT_DELTA, 0.99, "clopper_pearson")
    assert not power.sees and power.suggested_trials > 1000
    assert f"to see 1.5 × the claimed 2: {power.suggested_trials} runs per dataset" in out.evidence
    assert out.points[0]["detectable ε"] == power.detectable_epsilon == out.numbers["detectable_epsilon_0"]
    # with the suggested runs the same row could see it
    assert audit.audit_power(2.0, power.suggested_trials, audit.AUDIT_DELTA, 0.99, "clopper_pearson").sees


def test_audit_outcome_holds_with_the_caveat_only_at_the_quick_budget():
    quick, full = _outcome(_rows((1.5, 2.0), (1.0, 4.0))), _outcome(_rows((1.5, 2.0), (1.0, 4.0)), "full")
    for out in (quick, full):
        assert out.verdict == "holds" and out.counterexample is None
        assert out.numbers["max_audit_over_accountant"] == 0.75
        assert out.numbers["audit_epsilon_lb_1"] == 1.0 and out.numbers["accountant_epsilon_0"] == 2.0
        assert "cfg1: audited ε ≥ 1.000 (gdp) vs accountant 4.000" in out.evidence
        assert "one-sided 99.0000% lower bounds, Bonferroni: 0.05 family-wise over the ledger's" in out.evidence
        assert [str(d.verdict) for d in out.decisions] == ["holds", "holds"]
    assert quick.evidence.endswith(audit._QUICK_CAVEAT) and audit._QUICK_CAVEAT not in full.evidence


def test_audit_that_sees_little_of_epsilon_is_inconclusive():
    """No leak found, but the best bound is a quarter of the accountant's ε: the audit could not have seen a leak
    of up to 2× (AUDIT_POWER = 0.5), so it says inconclusive, not holds."""
    out = _outcome(_rows((0.5, 2.0), (1.0, 4.0)))
    assert out.verdict == "inconclusive" and "the audit sees at best 0.25" in out.evidence
    assert all(str(d.verdict) == "inconclusive" for d in out.decisions)


def test_audit_outcome_is_violated_by_any_row_above_its_accountant():
    rows = _rows((0.5, 2.0), (4.5, 4.0), (3.0, 2.5))
    out = _outcome(rows, figures={"noise_scale": 0.25})
    assert out.verdict == "violated" and out.evidence.startswith("LEAKS: ")
    assert out.counterexample is rows[1] and audit._QUICK_CAVEAT not in out.evidence
    assert out.numbers["max_audit_over_accountant"] == 3.0 / 2.5 and out.numbers["noise_scale"] == 0.25
    panel = out.plots[0].panels[0]
    series = panel.series
    assert [s.label for s in series] == ["accountant ε", "audited lower bound", "leak: audited > accountant"]
    assert list(series[1].y) == [0.5, 4.5, 3.0] and list(series[2].x) == [1, 2] and series[2].style == "violation"
    assert list(panel.categories) == ["cfg0", "cfg1", "cfg2"]  # configurations on a categorical axis


def test_audit_outcome_with_a_nan_is_inconclusive_and_says_where():
    rows = _rows((0.5, 2.0), (5.0, 4.0))
    rows[0]["accountant_epsilon"] = float("nan")
    out = _outcome(rows)
    assert out.verdict == "inconclusive" and out.counterexample is None
    assert out.evidence.startswith("NaN in accountant_epsilon of cfg0: the audit cannot decide")
    assert audit._QUICK_CAVEAT not in out.evidence and "LEAKS" not in out.evidence
    rows = _rows((0.5, 2.0))
    rows[0]["extra"] = np.float64("nan")  # a NaN anywhere in a row, not only in the two compared numbers
    assert _outcome(rows).verdict == "inconclusive"


def test_audit_outcome_draws_each_named_series_and_refuses_unlabelled_rows():
    rows = [dict(audit_epsilon_lb=1.0, accountant_epsilon=2.0, a_lb=1.0, b_lb=0.25)]
    out = _outcome(rows, series=(("audit: a", "a_lb"), ("audit: b", "b_lb")))
    assert [s.label for s in out.plots[0].panels[0].series] == ["accountant ε", "audit: a", "audit: b"]
    with pytest.raises(InvalidParameter, match="labels must be one per row"):
        audit.audit_outcome("audit_x", "x", rows, [], trials=10, level=0.9, budget="quick", family="one test")
